; JSX (TSX and JavaScript; plain TypeScript has no JSX): rendering a component is a use of
; it, as a call is. Lower-case tags (`div`) are the host's elements; the resolver says so.
(jsx_opening_element name: (_) @reference.render)
(jsx_self_closing_element name: (_) @reference.render)

; A JSX expression's value has the element type of the JSX runtime (`JSX.Element`).
(variable_declarator name: (identifier) @assign.name
  value: [(jsx_element) (jsx_self_closing_element)
          (parenthesized_expression [(jsx_element) (jsx_self_closing_element)])] @assign.jsx)

; A handler named in an attribute (`onClick={save}`) is a value handed to the element.
(jsx_expression [(identifier) (member_expression)] @reference.value)
