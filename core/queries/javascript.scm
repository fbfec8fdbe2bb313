; What only JavaScript's grammar spells differently, added to ecmascript.scm: class heritage
; is a bare expression and class fields are `field_definition`.

(class_heritage (_) @reference.base)
(class_body (field_definition property: (_) @name value: [(arrow_function) (function_expression)]) @definition.function)
(field_definition property: [(property_identifier) (private_property_identifier)] @assign.name value: (new_expression constructor: (_) @assign.value))
((comment) @doc . (field_definition) @documented (#match? @doc "^/[*][*]"))

; The element an array method's callback receives, with parenthesised parameters.
(call_expression
  function: (member_expression object: (_) @assign.elements property: (property_identifier) @_method)
  arguments: (arguments . [(arrow_function parameters: (formal_parameters . (identifier) @assign.name))
                           (function_expression parameters: (formal_parameters . (identifier) @assign.name))])
  (#match? @_method "^(map|forEach|filter|find|findLast|some|every|flatMap|findIndex|findLastIndex)$"))
(call_expression
  function: (member_expression object: (_) @assign.elements property: (property_identifier) @_method)
  arguments: (arguments . (arrow_function parameters: (formal_parameters . (_) . (identifier) @assign.name)))
  (#eq? @_method "reduce"))

; Parameters by name (see ecmascript.scm: @reference.parameter).
(formal_parameters (identifier) @reference.parameter)
(formal_parameters (assignment_pattern left: (identifier) @reference.parameter))
