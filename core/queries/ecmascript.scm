; The tag query TypeScript, TSX and JavaScript share (typescript.scm and javascript.scm add
; what only one grammar has). Capture names are the contract of core/extract.py (see
; python.scm); ECMAScript adds:
;   @definition.test                 a describe/it/test call whose callback is a test node
;   @doc + @documented               a JSDoc comment and the declaration it precedes
;   @import.default                  the local name of a default import
;   @import.reexport / @import.export  a re-export (`export ... from`) / a local export
;   @import.as_default               the export is the module's default (or `module.exports`)
;   @assign.member                   a constructor parameter that is also a field

; ----- definitions
(class_declaration name: (_) @name) @definition.class
(function_declaration name: (_) @name) @definition.function
(generator_function_declaration name: (_) @name) @definition.function
(class_body (method_definition name: (_) @name) @definition.function)
(variable_declarator name: (identifier) @name value: [(arrow_function) (function_expression)]) @definition.function
(variable_declarator name: (identifier) @name
  value: (parenthesized_expression [(arrow_function) (function_expression)])) @definition.function
; CommonJS: exports.vat = function () {...}
(assignment_expression
  left: (member_expression object: (_) @_exports property: (property_identifier) @name)
  right: [(arrow_function) (function_expression)]
  (#match? @_exports "^(module[.])?exports$")) @definition.function
; jest, vitest and mocha: describe("Cart", () => {...}), it("adds", async () => {...})
(call_expression
  function: [(identifier) (member_expression object: (identifier))] @_runner
  arguments: (arguments . (string) @name . [(arrow_function) (function_expression)])
  (#match? @_runner "^(describe|it|test|suite|context)([.](only|skip|concurrent|todo|failing))?$")) @definition.test

; ----- uses
(call_expression function: (_) @reference.call)
(new_expression constructor: (_) @reference.call)
(decorator (identifier) @reference.call)
(decorator (member_expression) @reference.call)
; A function, method or class named as a value (`app.get("/orders", listOrders)`,
; `items.map(format)`, `{ onSave: save }`, `{ handler }`, `const run = main`): it runs where what
; it is handed to calls it. Mostly these name variables, which the resolver leaves out.
(arguments [(identifier) (member_expression)] @reference.value)
(pair value: [(identifier) (member_expression)] @reference.value)
(object (shorthand_property_identifier) @reference.value)
(array [(identifier) (member_expression)] @reference.value)
(assignment_expression right: [(identifier) (member_expression)] @reference.value)
(variable_declarator value: [(identifier) (member_expression)] @reference.value)

; ----- documentation
((comment) @doc . [(class_declaration) (function_declaration) (generator_function_declaration)
                   (lexical_declaration) (variable_declaration) (export_statement) (method_definition)
                   (expression_statement)] @documented
  (#match? @doc "^/[*][*]"))
((program . (comment) @doc) (#match? @doc "^/[*][*]"))

; ----- imports and exports
(import_statement (import_clause (identifier) @import.default) source: (string (string_fragment) @import.from))
(import_statement
  (import_clause (named_imports (import_specifier name: (_) @import.name alias: (_)? @import.alias)))
  source: (string (string_fragment) @import.from))
(import_statement (import_clause (namespace_import (identifier) @import.alias)) source: (string (string_fragment) @import.module))
(import_statement . (string (string_fragment) @import.module))
(export_statement "*" @import.wildcard source: (string (string_fragment) @import.from)) @import.reexport
(export_statement (namespace_export (_) @import.alias) source: (string (string_fragment) @import.module)) @import.reexport
(export_statement
  (export_clause (export_specifier name: (_) @import.name alias: (_)? @import.alias))
  source: (string (string_fragment) @import.from)) @import.reexport
(export_statement (export_clause (export_specifier name: (_) @import.name alias: (_)? @import.alias)) !source) @import.export
(export_statement "default" @import.as_default value: (identifier) @import.name) @import.export
(export_statement "default" @import.as_default declaration: (_ name: (_) @import.name)) @import.export
; CommonJS: require() bindings, module.exports and exports.x
(variable_declarator
  name: (identifier) @import.alias
  value: (call_expression function: (identifier) @_require arguments: (arguments . (string (string_fragment) @import.module)))
  (#eq? @_require "require"))
(variable_declarator
  name: (object_pattern (shorthand_property_identifier_pattern) @import.name)
  value: (call_expression function: (identifier) @_require arguments: (arguments . (string (string_fragment) @import.from)))
  (#eq? @_require "require"))
(variable_declarator
  name: (object_pattern (pair_pattern key: (_) @import.name value: (identifier) @import.alias))
  value: (call_expression function: (identifier) @_require arguments: (arguments . (string (string_fragment) @import.from)))
  (#eq? @_require "require"))
; A dynamic import (`import('./m')`) imports its module; awaited into names, it binds them:
; `const m = await import('./m')`, `const { a } = await import('./m')`.
(call_expression function: (import) arguments: (arguments . (string (string_fragment) @import.module)))
(variable_declarator
  name: (identifier) @import.alias
  value: (await_expression (call_expression function: (import) arguments: (arguments . (string (string_fragment) @import.module)))))
(variable_declarator
  name: (object_pattern (shorthand_property_identifier_pattern) @import.name)
  value: (await_expression (call_expression function: (import) arguments: (arguments . (string (string_fragment) @import.from)))))
(variable_declarator
  name: (object_pattern (pair_pattern key: (_) @import.name value: (identifier) @import.alias))
  value: (await_expression (call_expression function: (import) arguments: (arguments . (string (string_fragment) @import.from)))))
(assignment_expression
  left: (member_expression object: (identifier) @_module property: (property_identifier) @import.as_default)
  right: (identifier) @import.name
  (#eq? @_module "module") (#eq? @import.as_default "exports")) @import.export
(assignment_expression
  left: (member_expression object: (identifier) @_module property: (property_identifier) @_exports)
  right: (object [(shorthand_property_identifier) @import.name (pair key: (property_identifier) @import.alias value: (identifier) @import.name)])
  (#eq? @_module "module") (#eq? @_exports "exports")) @import.export
(assignment_expression
  left: (member_expression object: (_) @_exports property: (property_identifier) @import.alias)
  right: (identifier) @import.name
  (#match? @_exports "^(module[.])?exports$")) @import.export

; ----- what names hold
(variable_declarator name: (identifier) @assign.name value: (new_expression constructor: (_) @assign.value))
(variable_declarator name: (identifier) @assign.name value: (call_expression function: (_) @assign.value)
  (#not-eq? @assign.value "require"))
; `const reply = await send()`: what the promise the call returns holds.
(variable_declarator name: (identifier) @assign.name value: (await_expression (call_expression function: (_) @assign.awaited)))
; `const css = defaultContext.css`, `const verify = Jwt.verify`: another name for the same thing.
(variable_declarator name: (identifier) @assign.name value: [(member_expression) (identifier)] @assign.alias)
(assignment_expression left: (member_expression object: (this) @assign.object property: [(property_identifier) (private_property_identifier)] @assign.name)
  right: (new_expression constructor: (_) @assign.value))
; A name put on the global object (`window.axios = axios`), which every script then reads bare.
(assignment_expression left: (member_expression object: (identifier) @assign.global property: (property_identifier) @assign.name)
  right: [(identifier) (member_expression)] @assign.alias
  (#match? @assign.global "^(window|globalThis|global)$"))
(assignment_expression left: (member_expression object: (identifier) @assign.global property: (property_identifier) @assign.name)
  right: [(call_expression function: (_) @assign.value) (new_expression constructor: (_) @assign.value)]
  (#match? @assign.global "^(window|globalThis|global)$"))
(assignment_expression left: (member_expression object: (this) @assign.object property: [(property_identifier) (private_property_identifier)] @assign.name)
  right: (call_expression function: (_) @assign.value))
(assignment_expression left: (member_expression object: (this) @assign.object property: [(property_identifier) (private_property_identifier)] @assign.name)
  right: (identifier) @assign.alias)
(return_statement (new_expression constructor: (_) @return.value))
(return_statement (call_expression function: (_) @return.value) (#not-eq? @return.value "import"))
(return_statement (await_expression (call_expression function: (_) @return.value)))
(return_statement [(identifier) (this)] @return.name)
(variable_declarator value: (arrow_function body: (new_expression constructor: (_) @return.value)))
(variable_declarator value: (arrow_function body: (call_expression function: (_) @return.value))
  (#not-eq? @return.value "import"))
; A function that loads a module (`const load = () => import('./m')`) returns its namespace.
(variable_declarator value: (arrow_function body: (call_expression function: (import)
  arguments: (arguments . (string (string_fragment) @return.module)))))
(return_statement (call_expression function: (import) arguments: (arguments . (string (string_fragment) @return.module))))

(program [(lexical_declaration (variable_declarator name: (identifier) @global))
          (variable_declaration (variable_declarator name: (identifier) @global))
          (export_statement declaration: (lexical_declaration (variable_declarator name: (identifier) @global)))])

; The element an array method's callback receives (`lines.map((line) => line.total())`):
; the callback's first parameter (reduce's second) is an element of the receiver.
(call_expression
  function: (member_expression object: (_) @assign.elements property: (property_identifier) @_method)
  arguments: (arguments . (arrow_function parameter: (identifier) @assign.name))
  (#match? @_method "^(map|forEach|filter|find|findLast|some|every|flatMap|findIndex|findLastIndex)$"))
; Parenthesised parameters differ between the grammars: typescript.scm, javascript.scm.

; An object literal of functions used as a namespace (`export const Jwt = { sign, verify }`):
; each property names what it holds.
(variable_declarator name: (identifier) @assign.property_of
  value: (object (shorthand_property_identifier) @assign.name @assign.property))
(variable_declarator name: (identifier) @assign.property_of
  value: (object (pair key: (property_identifier) @assign.name value: [(identifier) (member_expression)] @assign.property)))

; A call's result destructured into names: `const { data, error } = useQuery()`, `{ a: b }` too.
(variable_declarator name: (object_pattern (shorthand_property_identifier_pattern) @assign.name)
  value: [(call_expression function: (_) @assign.destructured) (await_expression (call_expression function: (_) @assign.destructured))]
  (#not-match? @assign.destructured "^(require|import)$"))
(variable_declarator name: (object_pattern (pair_pattern key: (property_identifier) @assign.key value: (identifier) @assign.name))
  value: [(call_expression function: (_) @assign.destructured) (await_expression (call_expression function: (_) @assign.destructured))]
  (#not-match? @assign.destructured "^(require|import)$"))

; A call's result unpacked into an array pattern: `const [count, setCount] = useState(0)`.
(variable_declarator name: (array_pattern (identifier) @assign.name) value: (call_expression function: (_) @assign.unpacked))
(variable_declarator name: (array_pattern (identifier) @assign.name)
  value: (await_expression (call_expression function: (_) @assign.unpacked)))


; ----- call sites whose arguments matter (@site.*: see core/extract.CallSite): Express routes and
; their mounting, fetch/axios-style client calls with a URL-like first argument, axios instances
; and Express routers by the name they are assigned to. The callee's last name is matched with
; any-of (cheap) before any regex runs.
((call_expression
   function: [(identifier) @_verb (member_expression property: (property_identifier) @_verb)] @site.callee
   arguments: (arguments . (_) @_url) @site.args)
  (#any-of? @_verb "get" "post" "put" "patch" "delete" "head" "options" "all" "use" "fetch")
  (#match? @_url "^((\"|'|`)(/|https?:|[$][{]|\"|'|`)|[A-Za-z_$][A-Za-z0-9_$.]*[ ]*[+])"))
(variable_declarator name: (identifier) @site.assigned
  value: (call_expression
    function: [(identifier) @_name (member_expression property: (property_identifier) @_name)] @site.callee
    arguments: (arguments) @site.args)
  (#any-of? @_name "express" "Router" "create"))

; ----- parameters (@reference.parameter): calling one (`next()`, `resolve(value)`) runs whatever
; function the caller passed, decided at run time. A bare arrow parameter here; the
; parenthesised ones in typescript.scm / javascript.scm.
(arrow_function parameter: (identifier) @reference.parameter)
