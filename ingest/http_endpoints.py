"""Web routes and HTTP client calls of one file, read from the call sites it records
(``core.extract.CallSite``) with the help of its language's resolver (what a handler name
is, which module a router variable comes from); ``ingest.http_facts`` assembles the commit's
from every file's (the prefixes routers are mounted under, the bases clients are made with).

Routes, with the prefixes they are mounted under:
- Python: Flask (``@app.route``, ``@bp.get``, ``add_url_rule``; a blueprint's ``url_prefix``
  and ``register_blueprint(bp, url_prefix=...)``, nested blueprints), FastAPI/Starlette
  (``@router.get``, ``api_route``, ``add_api_route``, ``Route``; ``APIRouter(prefix=...)`` and
  ``include_router(router, prefix=...)``), Django (``path``/``re_path``/``url`` in url tables,
  ``include("app.urls")`` mounting another table under a prefix; class views' ``as_view()``).
- TypeScript/JavaScript: Express (``app.get(path, ...handlers)``, ``router.post``,
  ``app.all``; ``app.use("/api", router)``): a call is a route when its last argument is a
  function (inline, or a name that resolves to one), else it is a client call.
- Go: net/http (``mux.HandleFunc("GET /orders/{id}", h.Show)``), gin and echo (``r.GET``,
  ``r.Group("/api")``), chi (``r.Get``, ``r.Mount``); see ``go_endpoints``.

Client calls: ``requests``/``httpx``-style ``x.get(url)``, ``x.request(method, url)``,
``Client(base_url=...)`` receivers; ``fetch(url, {method})``, axios-style ``x.post(url)`` and
``axios.create({baseURL})`` instances; Go's ``http.Get``/``NewRequest``/``httptest.NewRequest`` —
wherever the URL argument looks like a path or URL.
"""

from __future__ import annotations

import re

from branchgraph.core.extract import CallSite
from branchgraph.core.languages.java import annotation_name
from branchgraph.ingest.http_facts import FIXED, MOUNTED, TABLE, ClientCall, FileEndpoints, Origin, Route
from branchgraph.ingest.http_paths import ClientPath, client_path, join, options_method, regex_route, route_path
from branchgraph.ingest.http_paths import string_literal as literal
from branchgraph.ingest.resolution import Resolver
from branchgraph.ingest.subgraphs import ParsedSource, Target

VERBS = frozenset({"get", "post", "put", "patch", "delete", "head", "options"})
_ROUTE_DECORATORS = VERBS | {"route", "api_route"}
_PYTHON_ROUTERS = {"Blueprint": "url_prefix", "APIRouter": "prefix"}
_PYTHON_CLIENTS = ("Client", "AsyncClient", "Session")
_DJANGO_TABLES = ("django.urls.path", "django.urls.re_path", "django.conf.urls.url")
_METHOD_NAMES = re.compile(r"""["'](\w+)["']""")
_AS_VIEW = re.compile(r"\.as_view\(.*\)$")
_INCLUDE = re.compile(r"""^include\(\s*(.+?)\s*(?:,.*)?\)$""")
_FUNCTION_LITERAL = re.compile(r"^(async\s+)?(function\b|\(|[A-Za-z_$][\w$]*\s*=>)")
_KEYWORD_ARGUMENT = re.compile(r"^\w+\s*=[^=]")
_BASE_URL = re.compile(r"""\bbaseURL\s*:\s*(["'`][^"'`]*["'`])""")


def _keyword(args: list[str], name: str) -> str | None:
    for arg in args:
        key, sep, value = arg.partition("=")
        if sep and key.strip() == name:
            return value.strip()
    return None


def _positional(args: list[str]) -> list[str]:
    return [a for a in args if not _KEYWORD_ARGUMENT.match(a)]


def _receiver(callee: str) -> str:
    return callee.rsplit(".", 1)[0] if "." in callee else ""


def _last(callee: str) -> str:
    return callee.rsplit(".", 1)[-1]


def _sites(f: ParsedSource) -> list[CallSite]:
    # `has_sites` is known without decoding an update's undecoded parses.
    return f.parsed.calls if f.has_sites else []


def python_endpoints(resolver: Resolver, f: ParsedSource) -> FileEndpoints:
    found = FileEndpoints()
    sites = _sites(f)
    for site in sites:
        name = _last(site.callee)
        if site.assigned and name in _PYTHON_ROUTERS:
            prefix = _keyword(site.args, _PYTHON_ROUTERS[name])
            found.prefixes[site.assigned] = (literal(prefix) if prefix else None) or ""
        elif site.assigned and name in _PYTHON_CLIENTS:
            base = _keyword(site.args, "base_url")
            base_path = client_path(base) if base else None
            if base_path is not None:
                found.bases[site.assigned] = base_path
        elif name in ("register_blueprint", "include_router") and site.args:
            child = resolver.origin(f.path, site.scope, site.args[0])
            if child is not None:
                prefix = _keyword(site.args, "url_prefix" if name == "register_blueprint" else "prefix")
                parent = resolver.origin(f.path, site.scope, _receiver(site.callee))
                found.mounts.append((child, parent, literal(prefix) if prefix else None, name == "register_blueprint"))
    for site in sites:
        name = _last(site.callee)
        positional = _positional(site.args)
        if site.decorates is not None and name in _ROUTE_DECORATORS:
            template = literal(positional[0]) if positional else None
            if template is None or not _is_route_template(template):
                continue  # `@mock.patch("pkg.name")` is no route
            methods = _decorator_methods(name, _keyword(site.args, "methods"))
            router = resolver.origin(f.path, site.scope, _receiver(site.callee))
            handler = resolver.symbol_target(f.path, site.decorates)
            found.routes.append(_route(resolver, f, site, methods, route_path(template), handler, MOUNTED, router))
        elif name in ("add_url_rule", "add_api_route") and positional:
            template = literal(positional[0])
            view = _keyword(site.args, "view_func" if name == "add_url_rule" else "endpoint")
            view = view or (positional[2] if name == "add_url_rule" and len(positional) > 2 else None)
            view = view or (positional[1] if name == "add_api_route" and len(positional) > 1 else None)
            view_target = resolver.callable_target(f.path, site.scope, view) if view else None
            if template is None or view_target is None:
                continue
            methods = _decorator_methods("route", _keyword(site.args, "methods"))
            router = resolver.origin(f.path, site.scope, _receiver(site.callee))
            found.routes.append(_route(resolver, f, site, methods, route_path(template), view_target, MOUNTED, router))
        elif name in ("path", "re_path", "url", "Route") and len(positional) >= 2:
            external = resolver.external_name(f.path, site.scope, site.callee) or _imported_name(f, site.callee)
            if external in _DJANGO_TABLES:
                _django_entry(resolver, f, site, external, found)
            elif external.endswith("routing.Route"):  # Starlette
                template = literal(positional[0])
                endpoint = resolver.callable_target(f.path, site.scope, positional[1])
                if template is not None and endpoint is not None:
                    methods = _decorator_methods("route", _keyword(site.args, "methods"))
                    found.routes.append(_route(resolver, f, site, methods, route_path(template), endpoint, FIXED))
        elif site.decorates is None and (name in VERBS or name == "request"):
            call = _python_client(resolver, f, site)
            if call is not None:
                found.clients.append(call)
    return found


def _route(
    resolver: Resolver,
    f: ParsedSource,
    site: CallSite,
    methods: frozenset[str] | None,
    path: str,
    handler: Target,
    mount: str,
    router: Origin | None = None,
) -> Route:
    test = resolver.test_holding(f.path, site.line)
    return Route(methods, path, handler, f.path, site.line, test, mount, router)


def _is_route_template(template: str) -> bool:
    return template.startswith("/") or template == ""


def _imported_name(f: ParsedSource, name: str) -> str:
    """The dotted name a ``from module import name`` in the file gives ``name`` (the library's
    own modules are in the repository when the library itself is indexed)."""
    for imp in f.parsed.imports:
        if imp.name is not None and (imp.alias or imp.name) == name:
            return f"{imp.module}.{imp.name}"
    return ""


def _decorator_methods(name: str, methods: str | None) -> frozenset[str] | None:
    if name in VERBS:
        return frozenset({name.upper()})
    if methods:
        return frozenset(m.upper() for m in _METHOD_NAMES.findall(methods))
    return frozenset({"GET"})  # Flask's and FastAPI's default


def _python_client(resolver: Resolver, f: ParsedSource, site: CallSite) -> ClientCall | None:
    positional = _positional(site.args)
    method: str | None
    if _last(site.callee) == "request":
        given = literal(positional[0]) if positional else _keyword(site.args, "method")
        method = given.upper() if given and given.isalpha() else None
        url_arg = positional[1] if len(positional) > 1 else _keyword(site.args, "url")
    else:
        method = _last(site.callee).upper()
        url_arg = positional[0] if positional else None
    url = client_path(url_arg) if url_arg else None
    if url is None or url_arg is None:
        return None
    return _client(resolver, f, site, method, url, url_arg, with_base=True)


def _client(
    resolver: Resolver,
    f: ParsedSource,
    site: CallSite,
    method: str | None,
    url: ClientPath,
    raw: str,
    with_base: bool,
) -> ClientCall:
    """A client call; ``with_base``: its receiver, where the language makes client objects
    with a base URL (``Client(base_url=...)``, ``axios.create({baseURL})``) that comes first."""
    receiver = _receiver(site.callee)
    origin = resolver.origin(f.path, site.scope, receiver) if with_base and receiver else None
    caller = resolver.scope_target(f.path, site.scope)
    is_test = resolver.is_test_scope(f.path, site.scope)
    test = resolver.test_holding(f.path, site.line)
    return ClientCall(method, url, raw, caller, is_test, f.path, site.line, test, origin)


def _django_entry(resolver: Resolver, f: ParsedSource, site: CallSite, external: str, found: FileEndpoints) -> None:
    """An entry of a Django url table: a view's route, or an ``include`` mounting another
    table under a prefix (a table nobody includes is the root one)."""
    positional = _positional(site.args)
    template = literal(positional[0])
    if template is None:
        return
    route = route_path(template) if external.endswith(".path") else regex_route(template)
    if route is None:
        return
    included = _INCLUDE.match(positional[1])
    if included:
        target = _included_table(resolver, f, site, included.group(1))
        if target is not None:
            found.includes.append((target, route))
        return
    handler = resolver.callable_target(f.path, site.scope, _AS_VIEW.sub("", positional[1]))
    if handler is not None:
        found.routes.append(_route(resolver, f, site, None, route, handler, TABLE))


def _included_table(resolver: Resolver, f: ParsedSource, site: CallSite, argument: str) -> str | None:
    """The file of the url table ``include(...)`` names: a dotted module string, or a module
    (or its ``urlpatterns``) by name."""
    module = literal(argument)
    if module is not None:
        return resolver.module_path(module)
    origin = resolver.origin(f.path, site.scope, argument.removesuffix(".urlpatterns") + ".urlpatterns")
    return origin[0] if origin is not None else None


def ecmascript_endpoints(resolver: Resolver, f: ParsedSource) -> FileEndpoints:
    found = FileEndpoints()
    sites = _sites(f)
    for site in sites:
        name = _last(site.callee)
        if site.assigned and name == "create" and site.args:
            configured = _BASE_URL.search(site.args[0])
            base = client_path(configured.group(1)) if configured else None
            if base is not None:
                found.bases[site.assigned] = base
        elif name == "use" and len(site.args) >= 2 and not _is_handler(resolver, f, site, site.args[-1]):
            child = resolver.origin(f.path, site.scope, site.args[-1])
            prefix = literal(site.args[0])
            if child is not None and prefix is not None:
                found.mounts.append((child, resolver.origin(f.path, site.scope, _receiver(site.callee)), prefix, False))
    for site in sites:
        name = _last(site.callee)
        if name in VERBS or name == "all":
            if len(site.args) >= 2 and _is_handler(resolver, f, site, site.args[-1]):
                template = literal(site.args[0])
                if template is None:
                    continue
                handler = resolver.callable_target(f.path, site.scope, site.args[-1])
                router = resolver.origin(f.path, site.scope, _receiver(site.callee))
                methods = None if name == "all" else frozenset({name.upper()})
                handler = handler or resolver.scope_target(f.path, site.scope)
                found.routes.append(_route(resolver, f, site, methods, route_path(template), handler, MOUNTED, router))
                continue
            if name == "all":
                continue
            method: str | None = name.upper()
        elif name == "fetch":
            method = options_method(site.args[1]) if len(site.args) > 1 else "GET"
            method = method or ("GET" if len(site.args) == 1 or "method" not in site.args[1] else None)
        else:
            continue
        url = client_path(site.args[0])
        if url is not None:
            found.clients.append(_client(resolver, f, site, method, url, site.args[0], with_base=True))
    return found


def _is_handler(resolver: Resolver, f: ParsedSource, site: CallSite, argument: str) -> bool:
    """An Express handler: an inline function, or a name that is an in-repo function."""
    if _FUNCTION_LITERAL.match(argument):
        return True
    return resolver.callable_target(f.path, site.scope, argument) is not None


# Go: gin and echo name routes by the upper-case method, chi by the capitalised one; a client
# call of `http.Get(url)` has one argument where chi's `r.Get("/x", handler)` has two.
_VERBS_UPPER = frozenset(v.upper() for v in VERBS)
_GO_ROUTE_VERBS = {verb.upper(): verb.upper() for verb in VERBS} | {verb.capitalize(): verb.upper() for verb in VERBS}
_GO_CLIENT_CALLS = {"Get": "GET", "Head": "HEAD", "Post": "POST", "PostForm": "POST"}
_GO_REQUESTS = {"NewRequest": 0, "NewRequestWithContext": 1}  # the position of the method argument
_GO_METHOD_CONSTANT = re.compile(r"^(?:\w+\.)?Method(\w+)$")
_GO_FUNCTION_LITERAL = re.compile(r"^func\s*\(")
_GO_HANDLER_WRAPPER = re.compile(r"^(?:\w+\.)?HandlerFunc\((.+)\)$")


def go_endpoints(resolver: Resolver, f: ParsedSource) -> FileEndpoints:
    """Go routes and clients. Routes: net/http's ``HandleFunc``/``Handle`` (Go 1.22 patterns
    with a method, ``"GET /orders/{id}"``), gin and echo (``r.GET``, ``r.Any``, gin's
    ``r.Handle("GET", path, h)``, ``api := r.Group("/api")``), chi (``r.Get``, ``r.Mount("/api",
    sub)``); a handler is a function literal, a function or method value, or one wrapped in
    ``http.HandlerFunc(...)``. Clients: ``http.Get``/``Head``/``Post``/``PostForm`` on the
    package or a client value, and ``http.NewRequest``/``NewRequestWithContext`` and
    ``httptest.NewRequest`` with their method."""
    found = FileEndpoints()
    sites = _sites(f)
    for site in sites:
        name, receiver = _last(site.callee), _receiver(site.callee)
        parent = resolver.origin(f.path, site.scope, receiver) if receiver else None
        if name == "Group" and site.assigned and site.args:
            prefix, child = literal(site.args[0]), resolver.origin(f.path, site.scope, site.assigned)
        elif name == "Mount" and len(site.args) == 2:
            prefix, child = literal(site.args[0]), resolver.origin(f.path, site.scope, site.args[1])
        else:
            continue
        if prefix is not None and child is not None:
            found.mounts.append((child, parent, prefix, False))
    for site in sites:
        name, receiver, args = _last(site.callee), _receiver(site.callee), site.args
        router = resolver.origin(f.path, site.scope, receiver) if receiver else None
        route = _go_route(name, args)
        if route is not None:
            methods, template, handler_raw = route
            handler = _go_handler(resolver, f, site, handler_raw)
            if handler is not None:
                found.routes.append(_route(resolver, f, site, methods, route_path(template), handler, MOUNTED, router))
            continue
        method, url_raw = _go_client(name, args)
        url = client_path(url_raw) if url_raw is not None else None
        if url is not None:
            found.clients.append(_client(resolver, f, site, method, url, url_raw or "", with_base=False))
    return found


def _go_route(name: str, args: list[str]) -> tuple[frozenset[str] | None, str, str] | None:
    """(methods, path template, handler argument) of a route registration, else None."""
    first = literal(args[0]) if args else None
    if first is None or len(args) < 2:
        return None
    if name == "Handle" and len(args) >= 3 and first.upper() in _VERBS_UPPER:  # gin: Handle(method, path, h)
        template = literal(args[1])
        return (frozenset({first.upper()}), template, args[-1]) if template is not None else None
    if name in ("HandleFunc", "Handle"):
        method, _, rest = first.strip().partition(" ")
        if rest and method.upper() in _VERBS_UPPER:  # Go 1.22: "GET /orders/{id}"
            return frozenset({method.upper()}), _go_pattern(rest.strip()), args[-1]
        return None, _go_pattern(first), args[-1]
    if name == "Any":
        return None, first, args[-1]
    verb = _GO_ROUTE_VERBS.get(name)
    if verb is None or (name in _GO_CLIENT_CALLS and not (len(args) == 2 and _handler_like(args[1]))):
        return None
    return frozenset({verb}), first, args[-1]


def _handler_like(argument: str) -> bool:
    """What a chi route's second argument looks like: a function literal or value, never a
    URL or a body."""
    return bool(_GO_FUNCTION_LITERAL.match(argument) or _GO_HANDLER_WRAPPER.match(argument)) or bool(
        re.fullmatch(r"[A-Za-z_]\w*(\.[A-Za-z_]\w*)*", argument)
    )


def _go_pattern(pattern: str) -> str:
    """A net/http pattern's path: no host (``example.com/x``), no end anchor (``/{$}``),
    ``{name...}`` a parameter like any other."""
    if not pattern.startswith("/") and "/" in pattern:
        pattern = pattern[pattern.index("/") :]
    return pattern.replace("{$}", "").replace("...}", "}")


def _go_handler(resolver: Resolver, f: ParsedSource, site: CallSite, argument: str) -> Target | None:
    """The function a Go handler argument names: a literal belongs to the code around it."""
    wrapped = _GO_HANDLER_WRAPPER.match(argument)
    if wrapped:
        argument = wrapped.group(1).strip()
    if _GO_FUNCTION_LITERAL.match(argument):
        return resolver.scope_target(f.path, site.scope)
    return resolver.callable_target(f.path, site.scope, argument)


def _go_client(name: str, args: list[str]) -> tuple[str | None, str | None]:
    """(method, URL argument) of a client call, else (None, None)."""
    if name in _GO_REQUESTS:
        at = _GO_REQUESTS[name]
        if len(args) <= at + 1:
            return None, None
        return _go_method(args[at]), args[at + 1]
    method = _GO_CLIENT_CALLS.get(name)
    # `x.Get(url)` and `x.Head(url)` take the URL alone; `Post(url, type, body)`, `PostForm(url, values)`.
    wanted = {"Get": 1, "Head": 1, "Post": 3, "PostForm": 2}.get(name)
    if method is None or len(args) != wanted:
        return None, None
    return method, args[0]


def _go_method(argument: str) -> str | None:
    named = literal(argument)
    if named is not None:
        return named.upper() if named.upper() in _VERBS_UPPER else None
    constant = _GO_METHOD_CONSTANT.match(argument)
    return constant.group(1).upper() if constant and constant.group(1).upper() in _VERBS_UPPER else None


def java_endpoints(resolver: Resolver, f: ParsedSource) -> FileEndpoints:
    """Java routes: Spring's ``@GetMapping``/``@PostMapping``/``@PutMapping``/``@DeleteMapping``/
    ``@PatchMapping`` and ``@RequestMapping`` (its ``method``) on a method, under the
    ``@RequestMapping`` path of its class. Clients: RestTemplate's ``getForObject``,
    ``postForEntity``, ``put``, ``delete``, ``exchange(url, HttpMethod.X, ...)``, ...;
    WebClient's ``get().uri(url)``; ``URI.create(url)`` (java.net.http, method unknown) —
    Spring's URI templates (``{id}``) are parameters."""
    found = FileEndpoints()
    definitions = f.parsed.definitions
    for index, d in enumerate(definitions):
        symbol = resolver.symbols[(f.path, index)]
        if symbol.label != "Method":
            continue
        for annotation in d.decorators:
            mapping = _spring_mapping(annotation)
            if mapping is None:
                continue
            methods, paths = mapping
            owner = definitions[d.parent] if d.parent is not None else None
            prefixes = [""]
            for class_annotation in owner.decorators if owner is not None else []:
                found_mapping = _spring_mapping(class_annotation)
                if found_mapping is not None and annotation_name(class_annotation) == "RequestMapping":
                    prefixes = found_mapping[1]
            handler = Target(symbol.id, symbol.label)
            test = resolver.test_holding(f.path, d.start_line)
            found.routes.extend(
                Route(methods, join(route_path(prefix), route_path(path)), handler, f.path, d.start_line, test)
                for prefix in prefixes
                for path in paths
            )
    for site in _sites(f):
        if not site.args:
            continue
        name = _last(site.callee)
        method = _JAVA_CLIENT_METHODS.get(name) or (name.upper() if name in VERBS else None)
        if name == "exchange" and len(site.args) > 1:
            verb = re.search(r"HttpMethod\.([A-Z]+)", site.args[1])
            method = verb.group(1) if verb else None
        url = client_path(site.args[0])
        if url is not None:
            templated = ClientPath(route_path(url.path), url.dynamic_base, url.host)
            found.clients.append(_client(resolver, f, site, method, templated, site.args[0], with_base=False))
    return found


_JAVA_CLIENT_METHODS = {
    "getForObject": "GET",
    "getForEntity": "GET",
    "postForObject": "POST",
    "postForEntity": "POST",
    "postForLocation": "POST",
    "put": "PUT",
    "delete": "DELETE",
    "patchForObject": "PATCH",
}


_SPRING_MAPPINGS = {
    "GetMapping": "GET",
    "PostMapping": "POST",
    "PutMapping": "PUT",
    "DeleteMapping": "DELETE",
    "PatchMapping": "PATCH",
    "RequestMapping": None,
}
_JAVA_STRING = re.compile(r'"((?:[^"\\]|\\.)*)"')
_REQUEST_METHOD = re.compile(r"RequestMethod\.([A-Z]+)")


def _spring_mapping(annotation: str) -> tuple[frozenset[str] | None, list[str]] | None:
    """(methods, paths) of a Spring mapping annotation (``GetMapping("/orders/{id}")``,
    ``RequestMapping(value = {"/a", "/b"}, method = RequestMethod.POST)``), else None. A
    mapping without a path maps the class's own path."""
    name = annotation_name(annotation)
    if name not in _SPRING_MAPPINGS:
        return None
    arguments = annotation[len(annotation.split("(", 1)[0]) :].strip()[1:-1] if "(" in annotation else ""
    # The paths: the bare value, or `value =` / `path =`; never `produces`, `consumes`, `params`, `headers`.
    kept = re.sub(r"\b(produces|consumes|params|headers|name)\s*=\s*(\{[^}]*\}|\"(?:[^\"\\]|\\.)*\")", "", arguments)
    paths = _JAVA_STRING.findall(kept) or [""]
    verb = _SPRING_MAPPINGS[name]
    methods = frozenset({verb}) if verb else frozenset(_REQUEST_METHOD.findall(arguments)) or None
    return methods, paths
