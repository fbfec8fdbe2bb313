; Go tag query. Capture names are the contract of core/extract.py (see python.scm); Go adds
; @reference.receiver: a method's receiver type (its class), and the receiver's name as @param.

; ----- definitions: functions, methods (top level; their class is the receiver), named types,
; interfaces and their method signatures
(function_declaration name: (identifier) @name) @definition.function
(method_declaration name: (field_identifier) @name) @definition.function
(type_spec name: (type_identifier) @name type: (interface_type)) @definition.interface
(type_spec name: (type_identifier) @name type: (_)) @definition.class
(method_elem name: (field_identifier) @name) @definition.function

; ----- uses: calls and composite literals (a struct built: its constructor)
; (A call of a function literal or a parenthesized conversion such as `(*T)(x)` names nothing.)
(call_expression function: [(identifier) (selector_expression) (index_expression) (generic_type)] @reference.call)
(composite_literal type: [(type_identifier) (qualified_type) (generic_type)] @reference.call)
; `[]*T{{...}, {...}}`, `map[K]T{k: {...}}`: an element written without its type builds a T
(composite_literal
  type: (slice_type element: [(type_identifier) (qualified_type) (generic_type) (pointer_type)] @reference.call)
  body: (literal_value . (literal_element (literal_value))))
(composite_literal
  type: (array_type element: [(type_identifier) (qualified_type) (generic_type) (pointer_type)] @reference.call)
  body: (literal_value . (literal_element (literal_value))))
(composite_literal
  type: (map_type value: [(type_identifier) (qualified_type) (generic_type) (pointer_type)] @reference.call)
  body: (literal_value . (keyed_element value: (literal_element (literal_value)))))
; `type Routes []RouteInfo`, `type Index map[string]*Entry`: the elements of a named collection
(type_spec type: (slice_type element: (_) @reference.elements))
(type_spec type: (array_type element: (_) @reference.elements))
(type_spec type: (map_type value: (_) @reference.elements))
; `PathValues{{Name: "id"}}`: an element written without its type, of a named collection
(composite_literal
  type: [(type_identifier) (qualified_type)] @reference.element_call
  body: (literal_value . [(literal_element (literal_value)) (keyed_element value: (literal_element (literal_value)))]))
; `ParseValue[int](s)` parses as a conversion to a generic type: a call of a generic function
(type_conversion_expression type: (generic_type) @reference.call)
; A function or method named as a value (`getCommand(NoDuplicateArgs, false)`,
; `mux.HandleFunc("/", s.serve)`, `Route{Handler: handle}`, `h := handler`): it runs where what it
; is handed to calls it. Mostly these name variables, which the resolver leaves out.
(argument_list [(identifier) (selector_expression)] @reference.value)
(literal_value (literal_element [(identifier) (selector_expression)] @reference.value))
(keyed_element value: (literal_element [(identifier) (selector_expression)] @reference.value))
(short_var_declaration right: (expression_list [(identifier) (selector_expression)] @reference.value))
(assignment_statement right: (expression_list [(identifier) (selector_expression)] @reference.value))
(var_spec value: (expression_list [(identifier) (selector_expression)] @reference.value))

; Embedding: a struct's anonymous field, an interface's embedded interface.
(struct_type (field_declaration_list (field_declaration !name type: (_) @reference.base)))
(interface_type (type_elem . (_) @reference.base .))

(method_declaration receiver: (parameter_list (parameter_declaration name: (identifier)? @param type: (_) @reference.receiver)))
(function_declaration parameters: (parameter_list (parameter_declaration name: (identifier)? @param type: (_) @reference.param_type)))
(method_declaration parameters: (parameter_list (parameter_declaration name: (identifier)? @param type: (_) @reference.param_type)))
(method_elem parameters: (parameter_list (parameter_declaration name: (identifier)? @param type: (_) @reference.param_type)))
; A result list's types, named results (`(n int, err error)`) or not; else the one result type.
(function_declaration result: (parameter_list (parameter_declaration type: (_) @reference.return_type)))
(method_declaration result: (parameter_list (parameter_declaration type: (_) @reference.return_type)))
(method_elem result: (parameter_list (parameter_declaration type: (_) @reference.return_type)))
(function_declaration result: (_) @reference.return_type (#not-match? @reference.return_type "^[(]"))
(method_declaration result: (_) @reference.return_type (#not-match? @reference.return_type "^[(]"))
(method_elem result: (_) @reference.return_type (#not-match? @reference.return_type "^[(]"))

; ----- documentation: the comment lines right before a declaration
((comment)+ @doc . [(function_declaration) (method_declaration) (type_declaration)] @documented)

; ----- imports: `import "path"`, `import alias "path"` (alias `.` or `_` included)
(import_spec name: (_)? @import.alias path: (interpreted_string_literal (interpreted_string_literal_content) @import.module))

; ----- what names hold: `x := New()`, `x := &T{}`, `var x T`, struct fields `f T`
(short_var_declaration left: (expression_list . (identifier) @assign.name)
  right: (expression_list . (call_expression function: (_) @assign.value)) (#not-eq? @assign.value "new"))
(short_var_declaration left: (expression_list . (identifier) @assign.name)
  right: (expression_list . (composite_literal type: (_) @assign.value)))
(short_var_declaration left: (expression_list . (identifier) @assign.name)
  right: (expression_list . (unary_expression operand: (composite_literal type: (_) @assign.value))))
(var_spec name: (identifier) @assign.name type: (_) @assign.type)
(var_spec name: (identifier) @assign.name !type value: (expression_list . (call_expression function: (_) @assign.value))
  (#not-eq? @assign.value "new"))
(short_var_declaration left: (expression_list . (identifier) @assign.name)
  right: (expression_list . (type_conversion_expression type: (generic_type) @assign.value)))
; `ctx, cancel := context.WithCancel(parent)`: a later name holds the result in its place
(short_var_declaration left: (expression_list (_) . (identifier) @assign.name)
  right: (expression_list . (call_expression function: (_) @assign.unpacked_call) .))
; `node := r.tree`, `p := &cfg`: what another name holds
(short_var_declaration left: (expression_list . (identifier) @assign.name)
  right: (expression_list . [(identifier) (selector_expression)] @assign.alias))
(short_var_declaration left: (expression_list . (identifier) @assign.name)
  right: (expression_list . (unary_expression operator: "&" operand: [(identifier) (selector_expression)] @assign.alias)))
(var_spec name: (identifier) @assign.name !type value: (expression_list . [(identifier) (selector_expression)] @assign.alias))
; `x := new(T)`, `var x = new(T)`: a *T
(short_var_declaration left: (expression_list . (identifier) @assign.name)
  right: (expression_list . (call_expression function: (identifier) @_new arguments: (argument_list . (_) @assign.type .)))
  (#eq? @_new "new"))
(var_spec name: (identifier) @assign.name !type
  value: (expression_list . (call_expression function: (identifier) @_new arguments: (argument_list . (_) @assign.type .)))
  (#eq? @_new "new"))
(var_spec name: (identifier) @assign.name !type
  value: (expression_list . (unary_expression operand: (composite_literal type: (_) @assign.value))))
(short_var_declaration left: (expression_list . (identifier) @assign.name)
  right: (expression_list . (type_assertion_expression type: (_) @assign.type)))
(field_declaration name: (field_identifier) @assign.name type: (_) @assign.type)
; `handler := func(c *Context) error { ... }`: a value of a function type, as a `func` field is
; (only the keyword is kept: the resolver reads no more of it)
(short_var_declaration left: (expression_list . (identifier) @assign.name)
  right: (expression_list . (func_literal "func" @assign.type)))
; A function literal's typed parameters (`func(c *Context) { c.JSON(...) }`) are names of the
; function around it: the literal is no definition of its own.
(func_literal parameters: (parameter_list (parameter_declaration name: (identifier) @assign.name type: (_) @assign.type)))
; `for _, line := range o.Lines`: an element of what is ranged over
(range_clause left: (expression_list (_) (identifier) @assign.name) right: (_) @assign.elements)

(source_file (var_declaration (var_spec name: (identifier) @global)))

; ----- call sites whose arguments matter (@site.*: see core/extract.CallSite): route
; registrations of net/http (`mux.HandleFunc("GET /orders/{id}", h)`), gin and echo
; (`r.GET("/x", h)`, `r.Group("/api")`) and chi (`r.Get("/x", h)`, `r.Mount("/api", sub)`), and
; HTTP clients (`http.Get(url)`, `http.NewRequest("POST", url, body)`, `httptest.NewRequest`).
; The callee's last name is matched with any-of (cheap) before anything else.
((call_expression
   function: (selector_expression field: (field_identifier) @_verb) @site.callee
   arguments: (argument_list) @site.args)
  (#any-of? @_verb "HandleFunc" "Handle" "GET" "POST" "PUT" "PATCH" "DELETE" "HEAD" "OPTIONS" "Any"
    "Get" "Post" "Put" "Patch" "Delete" "Head" "Options" "Group" "Route" "Mount" "PostForm"
    "NewRequest" "NewRequestWithContext"))
(short_var_declaration left: (expression_list . (identifier) @site.assigned)
  right: (expression_list . (call_expression
    function: (selector_expression field: (field_identifier) @_name) @site.callee
    arguments: (argument_list) @site.args))
  (#any-of? @_name "Group"))
