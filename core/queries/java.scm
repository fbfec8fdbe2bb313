; Java tag query. Capture names are the contract of core/extract.py (see python.scm). Calls
; are captured whole (a method invocation, an object creation): the extractor keeps their
; callee as the raw text and counts their arguments, which tell overloads apart.

; ----- definitions: classes, records and enums (an enum constant with a body is a class of its
; own, a subclass of its enum); interfaces and annotation types; methods and constructors (a
; constructor is named after its class)
(class_declaration name: (identifier) @name) @definition.class
(record_declaration name: (identifier) @name) @definition.class
(enum_declaration name: (identifier) @name) @definition.class
(enum_constant name: (identifier) @name body: (class_body)) @definition.class
(interface_declaration name: (identifier) @name) @definition.interface
(annotation_type_declaration name: (identifier) @name) @definition.interface
(method_declaration name: (identifier) @name) @definition.function
(constructor_declaration name: (identifier) @name) @definition.function

; ----- uses: method invocations and `new T(...)`
(method_invocation) @reference.call
(object_creation_expression) @reference.call
; A method reference (`Order::total`, `this::handle`, `store::save`, `Line::new`): the method
; (or constructor) runs where what it is handed to calls it.
(method_reference) @reference.value

; `extends` a class (or, for an interface, other interfaces); `implements` interfaces.
(class_declaration superclass: (superclass (_) @reference.base))
(class_declaration interfaces: (super_interfaces (type_list (_) @reference.implements)))
(enum_declaration interfaces: (super_interfaces (type_list (_) @reference.implements)))
(record_declaration interfaces: (super_interfaces (type_list (_) @reference.implements)))
(interface_declaration (extends_interfaces (type_list (_) @reference.base)))

(formal_parameter type: (_) @reference.param_type name: (identifier) @param)
(method_declaration type: (_) @reference.return_type)

; ----- documentation: a Javadoc comment right before a declaration
((block_comment) @doc . [(class_declaration) (record_declaration) (enum_declaration) (enum_constant)
                         (interface_declaration) (annotation_type_declaration) (method_declaration)
                         (constructor_declaration)] @documented
  (#match? @doc "^/[*][*]"))

; ----- annotations (JUnit's @Test, Spring's @GetMapping) are a declaration's decorators
(method_declaration (modifiers [(marker_annotation) (annotation)] @decorator)) @decorated
(class_declaration (modifiers [(marker_annotation) (annotation)] @decorator)) @decorated

; ----- imports: `import a.b.C;` (module a.b, name C), `import static a.b.C.m;` (module a.b.C,
; name m), `import a.b.*;` and `import static a.b.C.*;` (name *)
(import_declaration (scoped_identifier scope: (_) @import.from name: (identifier) @import.name))
(import_declaration (scoped_identifier) @import.from (asterisk) @import.wildcard)

; ----- what names hold: fields and locals by their declared type (`var` by its value), the
; element of an enhanced for
(field_declaration type: (_) @assign.type declarator: (variable_declarator name: (identifier) @assign.name))
(local_variable_declaration type: (_) @assign.type declarator: (variable_declarator name: (identifier) @assign.name))
(local_variable_declaration
  declarator: (variable_declarator name: (identifier) @assign.name value: [(object_creation_expression) (method_invocation)] @assign.value))
(enhanced_for_statement type: (_) @assign.type name: (identifier) @assign.name)

; ----- HTTP clients whose URL argument looks like a path or URL (@site.*: core/extract.CallSite):
; RestTemplate (`rest.getForObject("/api/orders/{id}", Order.class, id)`, `exchange(url,
; HttpMethod.GET, ...)`), WebClient (`client.get().uri("/api/orders")`: the verb is the callee,
; the `uri(...)` arguments the site's), java.net.http (`URI.create("http://.../orders")`).
((method_invocation name: (identifier) @site.callee arguments: (argument_list . (_) @_url) @site.args)
  (#any-of? @site.callee "getForObject" "getForEntity" "postForObject" "postForEntity" "postForLocation"
    "put" "delete" "patchForObject" "exchange" "create")
  (#match? @_url "^(\"(/|https?:)|[A-Za-z_][A-Za-z0-9_.]*[ ]*[+])"))
((method_invocation
   object: (method_invocation name: (identifier) @site.callee)
   name: (identifier) @_uri
   arguments: (argument_list . (_) @_url) @site.args)
  (#eq? @_uri "uri")
  (#any-of? @site.callee "get" "post" "put" "delete" "patch" "head" "options")
  (#match? @_url "^(\"(/|https?:)|[A-Za-z_][A-Za-z0-9_.]*[ ]*[+])"))
