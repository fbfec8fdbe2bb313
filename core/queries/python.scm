; Python tag query. One generic capture loop (core/extract.py) turns these matches into
; records; the capture names are the contract:
;   @definition.<kind> + @name      a symbol definition and its name
;   @reference.<kind> [+ @param]    a use: call, base, metaclass, param_type, return_type, value
;   @doc                            docstring of the innermost enclosing definition (or module)
;   @decorator + @decorated         a decorator and the definition it decorates
;   @import.* / @assign.*           import bindings and typed assignments (`name = Callee(...)`,
;                                   `self.attr = ...`, `attr: Type` in a class body)
;   @return.*                       what a function returns or yields
;   @narrow.*                       an isinstance() test: what its subject is where it holds

(class_definition name: (identifier) @name) @definition.class
(function_definition name: (identifier) @name) @definition.function
; A definition in an `if TYPE_CHECKING:` block declares what the name is to the type checker.
((if_statement condition: [(identifier) (attribute)] @_condition
   consequence: (block [(class_definition) (function_definition)] @checker.declared))
  (#match? @_condition "(^|\\.)TYPE_CHECKING$"))
((if_statement condition: [(identifier) (attribute)] @_condition
   consequence: (block (decorated_definition definition: (_) @checker.declared)))
  (#match? @_condition "(^|\\.)TYPE_CHECKING$"))

(call function: (_) @reference.call)
(decorator [(identifier) (attribute)] @reference.call)

; Keyword arguments (metaclass=...) and comments are dropped by the loop, not here.
(class_definition superclasses: (argument_list (_) @reference.base))
; A metaclass may add attributes to its classes when they are made (django's ModelBase: `objects`).
((class_definition superclasses: (argument_list (keyword_argument name: (identifier) @_keyword value: (_) @reference.metaclass)))
  (#eq? @_keyword "metaclass"))

; A function, method or class named as a value, not called: handed to a call (a callback, a
; view, a parametrize case, a nested schema) or kept in a collection (a table of handlers, a
; list of cases). It runs wherever what holds it runs: a REFERENCES edge when it resolves. A
; collection bound to a name records the name (@param): using the name hands on its elements.
; Type tests and reflection (`isinstance(x, A)`, `getattr(o, name)`) hand nothing on. (The two
; call patterns stay apart: joined under one predicate, a call's arguments share one match.)
((call function: (_) @_callee arguments: (argument_list [(identifier) (attribute)] @reference.value))
  (#not-match? @_callee "^(isinstance|issubclass|super|type|getattr|hasattr|setattr|delattr|len|id|print)$"))
((call function: (_) @_callee arguments: (argument_list (keyword_argument value: [(identifier) (attribute)] @reference.value)))
  (#not-match? @_callee "^(isinstance|issubclass|super|type|getattr|hasattr|setattr|delattr|len|id|print)$"))
[(list [(identifier) (attribute)] @reference.value)
 (set [(identifier) (attribute)] @reference.value)
 (tuple [(identifier) (attribute)] @reference.value)
 (pair value: [(identifier) (attribute)] @reference.value)]
; `getattr(self, f"visit_{type(node).__name__}")`, `getattr(self, "parse_" + token)`: a call by
; a name made from a prefix (a visitor's or a parser's dispatch) may run each method of the
; receiver whose name has that prefix (@param).
((call function: (identifier) @_getattr
   arguments: (argument_list . [(identifier) (attribute)] @reference.dispatch .
     [(string (string_start) . (string_content) @param . (interpolation))
      (binary_operator left: (string (string_start) . (string_content) @param . (string_end)) operator: "+")]))
  (#eq? @_getattr "getattr"))
; Stored on an object (`self._add = self._add_safe`, `app.handler = handle`): it runs where the
; attribute is called, which a choice between two (`if safe: ... else: ...`) leaves unresolved.
(assignment left: (attribute) right: [(identifier) (attribute)] @reference.value)
; Kept by a class (`json_provider_class = DefaultJSONProvider`, `form_class = BookForm`): the class
; makes or runs it by that attribute, wherever the class is used.
(class_definition
  body: (block (expression_statement (assignment left: (identifier) right: [(identifier) (attribute)] @reference.value))))
(assignment left: (identifier) @param
  right: [(list [(identifier) (attribute)] @reference.value)
          (tuple [(identifier) (attribute)] @reference.value)
          (set [(identifier) (attribute)] @reference.value)
          (dictionary (pair value: [(identifier) (attribute)] @reference.value))
          (list (tuple [(identifier) (attribute)] @reference.value))])

(function_definition
  parameters: (parameters
    [(typed_parameter (identifier) @param type: (type) @reference.param_type)
     (typed_default_parameter name: (identifier) @param type: (type) @reference.param_type)]))
(function_definition return_type: (type) @reference.return_type)

(module . (expression_statement (string) @doc))
(class_definition body: (block . (expression_statement (string) @doc)))
(function_definition body: (block . (expression_statement (string) @doc)))

(decorated_definition (decorator) @decorator definition: (_) @decorated)

(import_statement name: (dotted_name) @import.module)
(import_statement name: (aliased_import name: (dotted_name) @import.module alias: (identifier) @import.alias))
(import_from_statement module_name: (_) @import.from name: (dotted_name) @import.name)
(import_from_statement module_name: (_) @import.from
  name: (aliased_import name: (dotted_name) @import.name alias: (identifier) @import.alias))
(import_from_statement module_name: (_) @import.from (wildcard_import) @import.wildcard)

(assignment left: (identifier) @assign.name right: (call function: (_) @assign.value))
; `path = partial(_path, Pattern=RoutePattern)`: calling `path` calls `_path` (assign.partial).
(assignment left: (identifier) @assign.name
  right: (call function: [(identifier) @_partial (attribute attribute: (identifier) @_partial)]
    arguments: (argument_list . [(identifier) (attribute)] @assign.partial))
  (#eq? @_partial "partial"))
; Instance attributes, whose types let `self.store.save()` resolve: `self.store = Store()`,
; `self.store = store` (a parameter), `self.store: Store = ...`; and annotated class attributes
; and dataclass-style fields (`store: Store`).
(assignment left: (attribute object: (identifier) @assign.object attribute: (identifier) @assign.name)
  right: (call function: (_) @assign.value))
(assignment left: (attribute object: (identifier) @assign.object attribute: (identifier) @assign.name)
  right: [(identifier) (attribute)] @assign.alias)
(assignment left: (attribute object: (identifier) @assign.object attribute: (identifier) @assign.name)
  type: (type) @assign.type)
; Annotated names anywhere (`hook: HookCaller | None = ...` in a function, `app: Flask` in a
; module or class body): the annotation is the name's type, whatever the value's is.
(assignment left: (identifier) @assign.name type: (type) @assign.type)
; A name bound to a literal or a comprehension (`errors = []`), and `*args` / `**kwargs`: a
; builtin type's value, whose methods are the builtin's.
(assignment left: (identifier) @assign.name
  right: [(list) (list_comprehension) (dictionary) (dictionary_comprehension) (set) (set_comprehension)
          (string) (concatenated_string) (integer) (float) (tuple)] @assign.literal)
(assignment left: (attribute object: (identifier) @assign.object attribute: (identifier) @assign.name)
  right: [(list) (dictionary) (set) (string) (list_comprehension) (dictionary_comprehension)] @assign.literal)
(function_definition parameters: (parameters [(list_splat_pattern (identifier) @assign.name)
                                              (dictionary_splat_pattern (identifier) @assign.name)] @assign.literal))
; Annotated ones too: `**options: t.Any` types each value; `options` is a dict all the same.
(function_definition parameters: (parameters (typed_parameter [(list_splat_pattern (identifier) @assign.name)
                                                               (dictionary_splat_pattern (identifier) @assign.name)] @assign.literal)))
; A function's untyped parameters (typed ones are bound by @reference.param_type): what a caller
; passes, decided at run time (calling one is `dynamic`).
(function_definition parameters: (parameters [(identifier) @assign.name @assign.parameter
                                              (default_parameter name: (identifier) @assign.name @assign.parameter)]))
; A name bound to another (`cls = self.storage_class`, `storage_class = MultiDict` in a class
; body): calling it calls what that holds.
(assignment left: (identifier) @assign.name right: [(identifier) (attribute)] @assign.alias)
; A chained assignment binds every name it lists to the value on its right (`s = attributes =
; attrs` in attrs' package, `a = b = Store()`), up to three names.
(assignment left: (identifier) @assign.name
  right: (assignment right: [(call function: (_) @assign.value) (identifier) @assign.alias (attribute) @assign.alias]))
(assignment left: (identifier) @assign.name
  right: (assignment right: (assignment
    right: [(call function: (_) @assign.value) (identifier) @assign.alias (attribute) @assign.alias])))
; `a, b = Store(), cache` binds each name to the value in its place (up to the third), and
; `if (user := find(uid)):` binds `user` as `user = find(uid)` would.
(assignment left: (pattern_list . (identifier) @assign.name)
  right: (expression_list . [(call function: (_) @assign.value) (identifier) @assign.alias (attribute) @assign.alias]))
(assignment left: (pattern_list . (_) . (identifier) @assign.name)
  right: (expression_list . (_) . [(call function: (_) @assign.value) (identifier) @assign.alias (attribute) @assign.alias]))
(assignment left: (pattern_list . (_) . (_) . (identifier) @assign.name)
  right: (expression_list . (_) . (_) . [(call function: (_) @assign.value) (identifier) @assign.alias (attribute) @assign.alias]))
; `before, after = segment.split_cells(n)`: each name is what the call's declared tuple
; (`-> Tuple[Segment, Segment]`) holds in its place (assign.unpacked_call).
(assignment left: (pattern_list (identifier) @assign.name) right: (call function: (_) @assign.unpacked_call))
(named_expression name: (identifier) @assign.name
  value: [(call function: (_) @assign.value) (identifier) @assign.alias (attribute) @assign.alias])
; A name a tuple binds from what is not followed (`a, b = pair`, `for k, v in d.items():`) is
; bound all the same, to something unknown (assign.opaque): it shadows outer names, and makes a
; second binding of it no sure thing. A binding of the name on that line that is followed (the
; patterns above) supersedes it.
(assignment left: [(pattern_list (identifier) @assign.name @assign.opaque) (tuple_pattern (identifier) @assign.name @assign.opaque)])
(for_statement left: [(pattern_list (identifier) @assign.name @assign.opaque) (tuple_pattern (identifier) @assign.name @assign.opaque)])
(for_in_clause left: [(pattern_list (identifier) @assign.name @assign.opaque) (tuple_pattern (identifier) @assign.name @assign.opaque)])
; `for part, data in self._parts:` with `_parts: list[tuple[Part, bytes]]`: each name is what the
; declared element tuple holds in its place (assign.unpacked_element).
(for_statement left: (pattern_list (identifier) @assign.name) right: [(identifier) (attribute)] @assign.unpacked_element)
; `for name, field in self.fields.items():` / `for field in self.fields.values():` with `fields:
; dict[str, Field]`: a key or a value as the declared mapping says (assign.mapping_items,
; assign.mapping_values).
(for_statement left: (pattern_list (identifier) @assign.name)
  right: (call function: (attribute object: [(identifier) (attribute)] @assign.mapping_items attribute: (identifier) @_items)
    arguments: (argument_list))
  (#eq? @_items "items"))
(for_statement left: (identifier) @assign.name
  right: (call function: (attribute object: [(identifier) (attribute)] @assign.mapping_values attribute: (identifier) @_values)
    arguments: (argument_list))
  (#eq? @_values "values"))
; `for i, line in enumerate(self._lines):`: `line` is an element of what enumerate is given.
(for_statement left: (pattern_list . (identifier) . (identifier) @assign.name .)
  right: (call function: (identifier) @_enumerate arguments: (argument_list
    . [(call function: (_) @assign.iterated) (identifier) @assign.iterated_name (attribute) @assign.iterated_name] .))
  (#eq? @_enumerate "enumerate"))
(for_in_clause left: (pattern_list . (identifier) . (identifier) @assign.name .)
  right: (call function: (identifier) @_enumerate arguments: (argument_list
    . [(call function: (_) @assign.iterated) (identifier) @assign.iterated_name (attribute) @assign.iterated_name] .))
  (#eq? @_enumerate "enumerate"))
; `with Builder.from_environ(env) as builder:` holds what the value's `__enter__` returns;
; `for rule in factory.get_rules(map):` holds an element of what the call returns, `for tag in
; self.order:` one of what `self.order` is declared as (`self.order: list[JSONTag] = []`).
(with_item value: (as_pattern (call function: (_) @assign.entered) alias: (as_pattern_target (identifier) @assign.name)))
(for_statement left: (identifier) @assign.name right: (call function: (_) @assign.iterated))
(for_statement left: (identifier) @assign.name right: [(identifier) (attribute)] @assign.iterated_name)
; A comprehension's target holds the same, within the comprehension.
(for_in_clause left: (identifier) @assign.name right: (call function: (_) @assign.iterated))
(for_in_clause left: (identifier) @assign.name right: [(identifier) (attribute)] @assign.iterated_name)
; `except ClickException as e:` holds an instance of the class caught (a tuple of classes says
; nothing here).
(except_clause (as_pattern [(identifier) (attribute)] @assign.caught alias: (as_pattern_target (identifier) @assign.name)))
; `x = a if cond else b`, `self.console = console if console else get_console()`: one
; assignment per branch, so that x holds what both agree on (`None` adds nothing); a branch of
; any other kind says nothing, and neither does the other then.
(assignment left: (identifier) @assign.name right: [(conditional_expression . (call function: (_) @assign.value) (_) [(call) (identifier) (attribute) (none)] .) (parenthesized_expression (conditional_expression . (call function: (_) @assign.value) (_) [(call) (identifier) (attribute) (none)] .))])
(assignment left: (identifier) @assign.name right: [(conditional_expression . [(call) (identifier) (attribute) (none)] (_) (call function: (_) @assign.value) .) (parenthesized_expression (conditional_expression . [(call) (identifier) (attribute) (none)] (_) (call function: (_) @assign.value) .))])
(assignment left: (identifier) @assign.name right: [(conditional_expression . [(identifier) (attribute)] @assign.alias (_) [(call) (identifier) (attribute) (none)] .) (parenthesized_expression (conditional_expression . [(identifier) (attribute)] @assign.alias (_) [(call) (identifier) (attribute) (none)] .))])
(assignment left: (identifier) @assign.name right: [(conditional_expression . [(call) (identifier) (attribute) (none)] (_) [(identifier) (attribute)] @assign.alias .) (parenthesized_expression (conditional_expression . [(call) (identifier) (attribute) (none)] (_) [(identifier) (attribute)] @assign.alias .))])
(assignment left: (attribute object: (identifier) @assign.object attribute: (identifier) @assign.name) right: [(conditional_expression . (call function: (_) @assign.value) (_) [(call) (identifier) (attribute) (none)] .) (parenthesized_expression (conditional_expression . (call function: (_) @assign.value) (_) [(call) (identifier) (attribute) (none)] .))])
(assignment left: (attribute object: (identifier) @assign.object attribute: (identifier) @assign.name) right: [(conditional_expression . [(call) (identifier) (attribute) (none)] (_) (call function: (_) @assign.value) .) (parenthesized_expression (conditional_expression . [(call) (identifier) (attribute) (none)] (_) (call function: (_) @assign.value) .))])
(assignment left: (attribute object: (identifier) @assign.object attribute: (identifier) @assign.name) right: [(conditional_expression . [(identifier) (attribute)] @assign.alias (_) [(call) (identifier) (attribute) (none)] .) (parenthesized_expression (conditional_expression . [(identifier) (attribute)] @assign.alias (_) [(call) (identifier) (attribute) (none)] .))])
(assignment left: (attribute object: (identifier) @assign.object attribute: (identifier) @assign.name) right: [(conditional_expression . [(call) (identifier) (attribute) (none)] (_) [(identifier) (attribute)] @assign.alias .) (parenthesized_expression (conditional_expression . [(call) (identifier) (attribute) (none)] (_) [(identifier) (attribute)] @assign.alias .))])
; `if isinstance(node, Text):` (an `elif`, or `isinstance(...) and ...` too): within the block,
; the subject (a name, or `self.x`) is an instance of the class, or of one of a tuple's
; (narrow.*); after `assert isinstance(...)` or `if not isinstance(...): return` (raise,
; continue, break), it is one in the rest of the block (narrow.after).
(if_statement
  condition: [(call function: (identifier) @_isinstance arguments: (argument_list . [(identifier) (attribute)] @narrow.subject . [(identifier) (attribute) (tuple)] @narrow.type .))
              (boolean_operator left: (call function: (identifier) @_isinstance arguments: (argument_list . [(identifier) (attribute)] @narrow.subject . [(identifier) (attribute) (tuple)] @narrow.type .)) operator: "and")]
  consequence: (block) @narrow.block
  (#eq? @_isinstance "isinstance"))
(elif_clause
  condition: [(call function: (identifier) @_isinstance arguments: (argument_list . [(identifier) (attribute)] @narrow.subject . [(identifier) (attribute) (tuple)] @narrow.type .))
              (boolean_operator left: (call function: (identifier) @_isinstance arguments: (argument_list . [(identifier) (attribute)] @narrow.subject . [(identifier) (attribute) (tuple)] @narrow.type .)) operator: "and")]
  consequence: (block) @narrow.block
  (#eq? @_isinstance "isinstance"))
((assert_statement . (call function: (identifier) @_isinstance arguments: (argument_list . [(identifier) (attribute)] @narrow.subject . [(identifier) (attribute) (tuple)] @narrow.type .))) @narrow.after
  (#eq? @_isinstance "isinstance"))
((if_statement
  condition: (not_operator argument: (call function: (identifier) @_isinstance arguments: (argument_list . [(identifier) (attribute)] @narrow.subject . [(identifier) (attribute) (tuple)] @narrow.type .)))
  consequence: (block [(return_statement) (raise_statement) (continue_statement) (break_statement)] .)) @narrow.after
  (#eq? @_isinstance "isinstance"))
; `title = self.text or Text(...)`: either side, as for a conditional (`None or` adds nothing).
(assignment left: (identifier) @assign.name right: [(boolean_operator left: (call function: (_) @assign.value) operator: "or" right: [(call) (identifier) (attribute) (none)]) (parenthesized_expression (boolean_operator left: (call function: (_) @assign.value) operator: "or" right: [(call) (identifier) (attribute) (none)]))])
(assignment left: (identifier) @assign.name right: [(boolean_operator left: [(call) (identifier) (attribute) (none)] operator: "or" right: (call function: (_) @assign.value)) (parenthesized_expression (boolean_operator left: [(call) (identifier) (attribute) (none)] operator: "or" right: (call function: (_) @assign.value)))])
(assignment left: (identifier) @assign.name right: [(boolean_operator left: [(identifier) (attribute)] @assign.alias operator: "or" right: [(call) (identifier) (attribute) (none)]) (parenthesized_expression (boolean_operator left: [(identifier) (attribute)] @assign.alias operator: "or" right: [(call) (identifier) (attribute) (none)]))])
(assignment left: (identifier) @assign.name right: [(boolean_operator left: [(call) (identifier) (attribute) (none)] operator: "or" right: [(identifier) (attribute)] @assign.alias) (parenthesized_expression (boolean_operator left: [(call) (identifier) (attribute) (none)] operator: "or" right: [(identifier) (attribute)] @assign.alias))])
(assignment left: (attribute object: (identifier) @assign.object attribute: (identifier) @assign.name) right: [(boolean_operator left: (call function: (_) @assign.value) operator: "or" right: [(call) (identifier) (attribute) (none)]) (parenthesized_expression (boolean_operator left: (call function: (_) @assign.value) operator: "or" right: [(call) (identifier) (attribute) (none)]))])
(assignment left: (attribute object: (identifier) @assign.object attribute: (identifier) @assign.name) right: [(boolean_operator left: [(call) (identifier) (attribute) (none)] operator: "or" right: (call function: (_) @assign.value)) (parenthesized_expression (boolean_operator left: [(call) (identifier) (attribute) (none)] operator: "or" right: (call function: (_) @assign.value)))])
(assignment left: (attribute object: (identifier) @assign.object attribute: (identifier) @assign.name) right: [(boolean_operator left: [(identifier) (attribute)] @assign.alias operator: "or" right: [(call) (identifier) (attribute) (none)]) (parenthesized_expression (boolean_operator left: [(identifier) (attribute)] @assign.alias operator: "or" right: [(call) (identifier) (attribute) (none)]))])
(assignment left: (attribute object: (identifier) @assign.object attribute: (identifier) @assign.name) right: [(boolean_operator left: [(call) (identifier) (attribute) (none)] operator: "or" right: [(identifier) (attribute)] @assign.alias) (parenthesized_expression (boolean_operator left: [(call) (identifier) (attribute) (none)] operator: "or" right: [(identifier) (attribute)] @assign.alias))])
; `TextType = Union[str, "Text"]` (`Optional[...]`, `Callable[...]` and the other generics of
; `typing`, `A | B`, or any value declared `: TypeAlias`) at the top of a module, or in an `if`
; there (`if TYPE_CHECKING:`, `if sys.version_info ...`), names a type that annotations use
; (assign.type_alias).
((module [(expression_statement (assignment left: (identifier) @assign.name
            right: (subscript value: [(identifier) (attribute)] @_generic) @assign.type_alias))
          (if_statement [consequence: (block (expression_statement (assignment left: (identifier) @assign.name
                           right: (subscript value: [(identifier) (attribute)] @_generic) @assign.type_alias)))
                         alternative: (else_clause body: (block (expression_statement (assignment left: (identifier) @assign.name
                           right: (subscript value: [(identifier) (attribute)] @_generic) @assign.type_alias))))])])
  (#match? @_generic "(^|\\.)(Union|Optional|Callable|Awaitable|Coroutine|Type|Dict|List|Tuple|Set|FrozenSet|Mapping|MutableMapping|Sequence|MutableSequence|Iterable|Iterator|AsyncIterable|AsyncIterator|Generator|AsyncGenerator|Literal|Annotated|type|dict|list|tuple|set|frozenset)$"))
(module [(expression_statement (assignment left: (identifier) @assign.name
          right: (binary_operator operator: "|") @assign.type_alias))
        (if_statement [consequence: (block (expression_statement (assignment left: (identifier) @assign.name
                         right: (binary_operator operator: "|") @assign.type_alias)))
                       alternative: (else_clause body: (block (expression_statement (assignment left: (identifier) @assign.name
                         right: (binary_operator operator: "|") @assign.type_alias))))])])
((module [(expression_statement (assignment left: (identifier) @assign.name type: (type) @_alias right: (_) @assign.type_alias))
          (if_statement [consequence: (block (expression_statement (assignment left: (identifier) @assign.name
                           type: (type) @_alias right: (_) @assign.type_alias)))
                         alternative: (else_clause body: (block (expression_statement (assignment left: (identifier) @assign.name
                           type: (type) @_alias right: (_) @assign.type_alias))))])])
  (#match? @_alias "(^|\\.)TypeAlias$"))
; `T = TypeVar("T")` (`ParamSpec`, `TypeVarTuple`) at the top of a module declares a type
; parameter: an annotation naming it names no type (assign.type_parameter; a bound wins).
((module (expression_statement (assignment left: (identifier) @assign.name
   right: (call function: [(identifier) @_typevar (attribute attribute: (identifier) @_typevar)]) @assign.type_parameter)))
  (#match? @_typevar "^(TypeVar|ParamSpec|TypeVarTuple)$"))
; PEP 695: a definition's own type parameters (`def first[T](items: list[T]) -> T`, `class
; Box[T: Base]`, `*Ts`, `**P`) are names its annotations use for a type of the caller's choosing
; (assign.type_parameter, scoped to the definition), and `type Pair[K] = tuple[K, K] | None` at the
; top of a module is a type alias (assign.type_alias).
([(function_definition type_parameters: (type_parameter (type [(identifier) @assign.name
                                                              (splat_type (identifier) @assign.name)
                                                              (constrained_type . (type (identifier) @assign.name))]) @assign.type_parameter))
  (class_definition type_parameters: (type_parameter (type [(identifier) @assign.name
                                                           (splat_type (identifier) @assign.name)
                                                           (constrained_type . (type (identifier) @assign.name))]) @assign.type_parameter))])
(module (type_alias_statement left: (type [(identifier) @assign.name (generic_type (identifier) @assign.name)])
  right: (type) @assign.type_alias))
; `GrpType = t.TypeVar("GrpType", bound=Group)` stands for its bound (assign.bound, before
; assign.value).
(assignment left: (identifier) @assign.name
  right: (call function: [(identifier) @_typevar (attribute attribute: (identifier) @_typevar)]
    arguments: (argument_list (keyword_argument name: (identifier) @_bound value: [(identifier) (attribute) (string)] @assign.bound)))
  (#eq? @_typevar "TypeVar") (#eq? @_bound "bound"))
; `multi = t.cast(MultiCommand, ctx.command)` holds what the cast declares (assign.cast, before
; assign.value: not what calling `cast` returns).
(assignment left: (identifier) @assign.name
  right: (call function: [(identifier) @_cast (attribute attribute: (identifier) @_cast)]
    arguments: (argument_list . [(identifier) (attribute) (string) (subscript)] @assign.cast))
  (#eq? @_cast "cast"))
; What a function returns or yields (a pytest fixture's value), when it is a call, a name or an
; attribute (`return self._src`).
(return_statement (call function: (_) @return.value))
(return_statement [(identifier) (attribute)] @return.name)
; `return a if cond else b` (`return a or b`): what both branches agree on, as for an assignment.
(return_statement (conditional_expression . (call function: (_) @return.value) (_) [(call) (identifier) (attribute) (none)] .))
(return_statement (conditional_expression . [(call) (identifier) (attribute) (none)] (_) (call function: (_) @return.value) .))
(return_statement (conditional_expression . [(identifier) (attribute)] @return.name (_) [(call) (identifier) (attribute) (none)] .))
(return_statement (conditional_expression . [(call) (identifier) (attribute) (none)] (_) [(identifier) (attribute)] @return.name .))
(return_statement (boolean_operator left: (call function: (_) @return.value) operator: "or" right: [(call) (identifier) (attribute) (none)]))
(return_statement (boolean_operator left: [(call) (identifier) (attribute) (none)] operator: "or" right: (call function: (_) @return.value)))
(return_statement (boolean_operator left: [(identifier) (attribute)] @return.name operator: "or" right: [(call) (identifier) (attribute) (none)]))
(return_statement (boolean_operator left: [(call) (identifier) (attribute) (none)] operator: "or" right: [(identifier) (attribute)] @return.name))
(expression_statement (yield (call function: (_) @return.value)) @return.yield)
(expression_statement (yield [(identifier) (attribute)] @return.name) @return.yield)

(module (expression_statement (assignment left: (identifier) @global)))
(module (expression_statement (assignment left: (pattern_list (identifier) @global))))
(module (expression_statement (assignment right: (assignment left: (identifier) @global))))
(module (expression_statement (assignment right: (assignment right: (assignment left: (identifier) @global)))))

; Call sites whose arguments matter (@site.*: core/extract.CallSite), read by ingest/http_endpoints:
; route decorators and client calls with a URL-like first argument (a path, an absolute URL, an
; f-string or a concatenation that may start with a base URL), route tables and registrations.
; The callee's last name is matched with any-of (cheap) before any regex runs.
((call function: (attribute attribute: (identifier) @_verb) @site.callee arguments: (argument_list . (_) @_url) @site.args)
  (#any-of? @_verb "get" "post" "put" "patch" "delete" "head" "options" "route" "api_route" "add_url_rule" "add_api_route")
  (#match? @_url "^([rbfuRBFU]{0,2}(\"|')+(/|https?:|[{]|\"|')|[A-Za-z_][A-Za-z0-9_.]*[ ]*[+])"))
((call function: [(identifier) @_name (attribute attribute: (identifier) @_name)] @site.callee arguments: (argument_list) @site.args)
  (#any-of? @_name "request" "Blueprint" "APIRouter" "register_blueprint" "include_router" "path" "re_path" "url" "Route"))
(decorated_definition
  (decorator (call function: (attribute attribute: (identifier) @_verb) @site.callee arguments: (argument_list) @site.args))
  definition: (_) @site.decorated
  (#any-of? @_verb "get" "post" "put" "patch" "delete" "head" "options" "route" "api_route"))
(assignment left: (identifier) @site.assigned
  right: (call function: [(identifier) @_name (attribute attribute: (identifier) @_name)] @site.callee arguments: (argument_list) @site.args)
  (#any-of? @_name "Flask" "Blueprint" "FastAPI" "APIRouter" "Client" "AsyncClient" "Session"))
