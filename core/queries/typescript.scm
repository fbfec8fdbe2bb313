; What only TypeScript (and TSX) has, added to ecmascript.scm: interfaces, abstract classes,
; heritage clauses, type annotations and constructor parameter properties.

(abstract_class_declaration name: (_) @name) @definition.class
(interface_declaration name: (_) @name) @definition.interface
(interface_body (method_signature name: (_) @name) @definition.function)
(class_body (abstract_method_signature name: (_) @name) @definition.function)
; A method a class declares without a body: an overload's signature, or a declaration file's
; class (`export class Axios { get<T>(url: string): Promise<T>; }` in axios' index.d.ts).
(class_body (method_signature name: (_) @name) @definition.function)
(class_body (public_field_definition name: (_) @name value: [(arrow_function) (function_expression)]) @definition.function)
; `const createStore = ((init) => ...) as CreateStore`: a function, its type asserted
(variable_declarator name: (identifier) @name
  value: [(as_expression . (parenthesized_expression [(arrow_function) (function_expression)]))
          (satisfies_expression . (parenthesized_expression [(arrow_function) (function_expression)]))]) @definition.function
; A function returned by one whose return type is written (`(o): MiddlewareHandler => async (c,
; next) => ...`, `return function (c, next) {...}`): its untyped parameters take that type's.
(arrow_function return_type: (type_annotation)
  body: [(arrow_function parameters: (formal_parameters (required_parameter pattern: (identifier) @assign.name !type)))
     (function_expression parameters: (formal_parameters (required_parameter pattern: (identifier) @assign.name !type)))] @assign.returned)
; ... or returned from a block (`_`: an arrow function, a declaration, a method, a function expression).
(_ return_type: (type_annotation)
  body: (statement_block (return_statement
    [(arrow_function parameters: (formal_parameters (required_parameter pattern: (identifier) @assign.name !type)))
     (function_expression parameters: (formal_parameters (required_parameter pattern: (identifier) @assign.name !type)))] @assign.returned)))
; `export const devtools = devtoolsImpl as unknown as Devtools`: the name holds what it asserts
(variable_declarator name: (identifier) @assign.name
  value: [(as_expression . [(identifier) (member_expression)] @assign.alias)
          (as_expression . (as_expression . [(identifier) (member_expression)] @assign.alias))
          (satisfies_expression . [(identifier) (member_expression)] @assign.alias)])

((comment) @doc . [(abstract_class_declaration) (interface_declaration) (method_signature)
                   (abstract_method_signature) (public_field_definition)] @documented
  (#match? @doc "^/[*][*]"))

(class_heritage (extends_clause value: (_) @reference.base))
(class_heritage (implements_clause (_) @reference.implements))
(interface_declaration (extends_type_clause type: (_) @reference.base))

(required_parameter pattern: (identifier) @param type: (type_annotation (_) @reference.param_type))
(optional_parameter pattern: (identifier) @param type: (type_annotation (_) @reference.param_type))
(function_declaration return_type: (type_annotation (_) @reference.return_type))
(generator_function_declaration return_type: (type_annotation (_) @reference.return_type))
(method_definition return_type: (type_annotation (_) @reference.return_type))
(method_signature return_type: (type_annotation (_) @reference.return_type))
(abstract_method_signature return_type: (type_annotation (_) @reference.return_type))
; An arrow function's or function expression's return type belongs to the definition only
; when the function is one (a callback's would be taken for its enclosing function's).
(variable_declarator value: (arrow_function return_type: (type_annotation (_) @reference.return_type)))
(variable_declarator value: (function_expression return_type: (type_annotation (_) @reference.return_type)))
(public_field_definition value: (arrow_function return_type: (type_annotation (_) @reference.return_type)))

; Fields (`private store: Store`, `private orders = new Map()`) and parameter properties
; (`constructor(private readonly store: Store)`): the instance attributes `this.x` calls go through.
(public_field_definition name: [(property_identifier) (private_property_identifier)] @assign.name type: (type_annotation (_) @assign.type))
(public_field_definition name: [(property_identifier) (private_property_identifier)] @assign.name value: (new_expression constructor: (_) @assign.value))
(required_parameter [(accessibility_modifier) "readonly"] @assign.member pattern: (identifier) @assign.name
  type: (type_annotation (_) @assign.type))
(optional_parameter [(accessibility_modifier) "readonly"] @assign.member pattern: (identifier) @assign.name
  type: (type_annotation (_) @assign.type))
; Typed locals: const store: Store = ...
(variable_declarator name: (identifier) @assign.name type: (type_annotation (_) @assign.type))

; A type alias is a named type with no code (an Interface node); an enum has values at run
; time (a Class node).
(type_alias_declaration name: (_) @name) @definition.interface
(enum_declaration name: (_) @name) @definition.class
((comment) @doc . [(type_alias_declaration) (enum_declaration)] @documented (#match? @doc "^/[*][*]"))
; Type parameters (<T>) name no type of the repository: recorded so annotations using them
; are not taken for unresolved references.
(type_parameter name: (type_identifier) @assign.name) @assign.type_parameter

; The element an array method's callback receives, with parenthesised parameters.
(call_expression
  function: (member_expression object: (_) @assign.elements property: (property_identifier) @_method)
  arguments: (arguments . [(arrow_function parameters: (formal_parameters . (required_parameter pattern: (identifier) @assign.name)))
                           (function_expression parameters: (formal_parameters . (required_parameter pattern: (identifier) @assign.name)))])
  (#match? @_method "^(map|forEach|filter|find|findLast|some|every|flatMap|findIndex|findLastIndex)$"))
(call_expression
  function: (member_expression object: (_) @assign.elements property: (property_identifier) @_method)
  arguments: (arguments . (arrow_function parameters: (formal_parameters . (_) . (required_parameter pattern: (identifier) @assign.name))))
  (#eq? @_method "reduce"))

; Destructured parameters typed by an object type (`({ order }: { order: Order })`, the React
; props idiom): each name gets its property's type.
(required_parameter
  pattern: (object_pattern (shorthand_property_identifier_pattern) @param)
  type: (type_annotation (object_type (property_signature name: (property_identifier) @_property
                                                          type: (type_annotation (_) @reference.param_type))))
  (#eq? @param @_property))

; Parameters by name, typed or not (see ecmascript.scm: @reference.parameter).
(required_parameter pattern: (identifier) @reference.parameter)
(optional_parameter pattern: (identifier) @reference.parameter)

; A callback's untyped parameters take their types from the parameter list of what it is passed
; to (`app.get("/", (c) => c.text("hi"))`, a handler type's `(c: Context) => Response`).
(call_expression
  function: (_) @assign.callback
  arguments: (arguments [(arrow_function parameters: (formal_parameters (required_parameter pattern: (identifier) @assign.name !type)))
                         (function_expression parameters: (formal_parameters (required_parameter pattern: (identifier) @assign.name !type)))]))
(call_expression function: (_) @assign.callback arguments: (arguments (arrow_function parameter: (identifier) @assign.name)))
; ... and given as a property of an object literal argument (`bearerAuth({ verifyToken: (token, c) => ... })`).
(call_expression
  function: (_) @assign.callback
  arguments: (arguments (object [
    (pair key: (property_identifier) @assign.key
          value: [(arrow_function parameters: (formal_parameters (required_parameter pattern: (identifier) @assign.name !type)))
                  (function_expression parameters: (formal_parameters (required_parameter pattern: (identifier) @assign.name !type)))])
    (method_definition name: (property_identifier) @assign.key
          parameters: (formal_parameters (required_parameter pattern: (identifier) @assign.name !type)))])))

; What a JSX expression's value is where the repository types its own JSX runtime: the `Element`
; its `namespace JSX` declares (an alias: the type it stands for; an interface: by name).
(internal_module name: (identifier) @assign.name
  body: (statement_block [(type_alias_declaration name: (type_identifier) @_element value: (_) @assign.jsx_element)
                          (export_statement declaration: (type_alias_declaration name: (type_identifier) @_element value: (_) @assign.jsx_element))])
  (#eq? @assign.name "JSX") (#eq? @_element "Element"))
(internal_module name: (identifier) @assign.name
  body: (statement_block [(interface_declaration name: (type_identifier) @assign.jsx_element)
                          (export_statement declaration: (interface_declaration name: (type_identifier) @assign.jsx_element))])
  (#eq? @assign.name "JSX") (#eq? @assign.jsx_element "Element"))
