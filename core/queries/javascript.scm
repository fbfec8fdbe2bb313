; What only JavaScript's grammar spells differently, added to ecmascript.scm: class heritage
; is a bare expression and class fields are `field_definition`.

(class_heritage (_) @reference.base)
(class_body (field_definition property: (_) @name value: [(arrow_function) (function_expression)]) @definition.function)
(field_definition property: (property_identifier) @assign.name value: (new_expression constructor: (_) @assign.value))
((comment) @doc . (field_definition) @documented (#match? @doc "^/[*][*]"))
