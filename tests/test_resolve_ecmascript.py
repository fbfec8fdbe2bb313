"""Resolution of TypeScript, TSX and JavaScript, without any database: the webshop fixture's
exact nodes and edges (confirmed by tsc: tests/fixtures/confirm_with_tsc.py), and the module
lookup, export forms and conventions one by one."""

from __future__ import annotations

import pytest
from expected_webshop import EDGES, FILES, MUST_NOT, SYMBOLS, UNRESOLVED
from graph_view import edges_of_subgraphs, references_of, resolve_sources, symbols_of_subgraphs, unresolved_of_subgraphs

from branchgraph.core.languages.ecmascript import clean_docstring, is_generated_file, is_support_file, is_test_file
from branchgraph.ingest.ecmascript_modules import External, ModuleMap, package_name, parse_jsonc


def resolve(sources: dict[str, bytes], branch: str = "main"):
    return resolve_sources(sources, "webshop", branch)


def calls(graph) -> dict[str, tuple[str, bool]]:
    """raw callee -> (target, resolved), for a graph where each raw text has one target."""
    names = {n.id: n.props.get("qualname") or n.props["raw"] for s in graph for n in [*s.nodes, *s.unresolved]}
    return {e.raw: (names[e.dst], e.resolved) for s in graph for e in s.edges if e.type == "CALLS"}


def calls_by_caller(graph) -> dict[tuple[str, str], tuple[str, bool]]:
    """(caller, raw callee) -> (target, resolved)."""
    names = {n.id: n.props.get("qualname") or n.props["raw"] for s in graph for n in [*s.nodes, *s.unresolved]}
    return {(names[e.src], e.raw): (names[e.dst], e.resolved) for s in graph for e in s.edges if e.type == "CALLS"}


def dangling_reason(graph, caller: str, raw: str) -> str | None:
    """Why ``caller``'s call ``raw`` dangles (external, dynamic, unresolved); None when it resolves."""
    target, resolved = calls_by_caller(graph)[(caller, raw)]
    return None if resolved else unresolved_of_subgraphs(graph)[target]


@pytest.fixture
def webshop_graph(webshop_sources):
    return resolve(webshop_sources)


def test_symbols_and_files(webshop_graph):
    assert symbols_of_subgraphs(webshop_graph) == SYMBOLS
    files = {n.path: n.props["qualname"] for s in webshop_graph for n in s.nodes if n.label == "File"}
    assert files == FILES


def test_every_edge_exactly(webshop_graph):
    assert edges_of_subgraphs(webshop_graph) == EDGES


def test_no_edge_a_name_only_matcher_would_draw(webshop_graph):
    drawn = {(a, t, b) for a, t, b, _ in edges_of_subgraphs(webshop_graph)}
    assert not drawn & MUST_NOT


def test_dangling_targets_keep_raw_and_reason(webshop_graph):
    assert unresolved_of_subgraphs(webshop_graph) == UNRESOLVED


def test_languages_and_tests_are_recorded(webshop_graph):
    languages = {n.path: n.props["language"] for s in webshop_graph for n in s.nodes if n.label == "File"}
    assert languages["src/legacy/tax.js"] == "javascript" and languages["src/index.ts"] == "typescript"
    assert languages["src/ui/OrderBadge.tsx"] == "tsx"
    tests = {n.props["name"] for s in webshop_graph for n in s.nodes if n.props.get("is_test")}
    assert tests == {"OrderService", "places an order", "quickOrder", "totals one line"}
    docs = {n.props["qualname"]: n.props["docstring"] for s in webshop_graph for n in s.nodes if n.label == "Class"}
    assert docs["src/models/order.Order"] == "An order: lines and their total."


def test_tested_by_is_owned_by_the_test_file(webshop_graph):
    owners = {s.path for s in webshop_graph for e in s.edges if e.type == "TESTED_BY"}
    assert owners == {"src/services/__tests__/orderService.test.ts"}


# ----- module lookup ----------------------------------------------------------------------


def test_a_method_a_typescript_class_surely_lacks_through_this_is_unresolved():
    graph = resolve(
        {
            "package.json": b'{"name": "x"}',
            "src/store.ts": (
                b"export class Repo {\n  find() { return 1 }\n}\n\n"
                b"interface Merged { extra(): void }\nclass Merged {}\n\n"
                b"export class Store {\n  repo: Repo = new Repo()\n  merged = new Merged()\n"
                b"  get() {\n    this.fetchIt()\n    this.repo.findAll()\n    this.merged.extra2()\n"
                b"    return this.toString()\n  }\n}\n\n"
                b"export function use(s: Store) {\n  s.fetchIt()\n}\n"
            ),
            "src/legacy.js": b"export class Old {\n  run() { this.later() }\n}\n",
        }
    )
    reasons = unresolved_of_subgraphs(graph)
    # Store and Repo declare every method they have; through `this`, the receiver is certain.
    assert reasons["this.fetchIt"] == reasons["this.repo.findAll"] == "unresolved"
    # An interface merged into the class adds members; Object.prototype's are everyone's; a
    # local's binding may be another block's; a JavaScript class gains methods at run time.
    for raw in ("this.merged.extra2", "this.toString", "s.fetchIt", "this.later"):
        assert reasons[raw] == "external", raw


def test_a_function_whose_type_is_asserted_is_still_a_function_and_an_asserted_name_an_alias():
    graph = resolve(
        {
            "package.json": b'{"name": "x"}',
            "src/vanilla.ts": (
                b"type Create = (init: unknown) => unknown\n"
                b"const createImpl = (init: unknown) => init\n"
                b"export const create = ((init: unknown) => createImpl(init)) as Create\n"
                b"export const checked = (function (x: number) { return x }) satisfies (x: number) => number\n"
                b"export const devtools = createImpl as unknown as Create\n"
            ),
            "src/use.ts": (
                b"import { create, checked, devtools } from './vanilla'\n\n"
                b"export function use() {\n  create(1)\n  checked(2)\n  devtools(3)\n}\n"
            ),
        }
    )
    found = calls_by_caller(graph)
    assert found[("src/use.use", "create")] == ("src/vanilla.create", True)
    assert found[("src/use.use", "checked")] == ("src/vanilla.checked", True)
    assert found[("src/use.use", "devtools")] == ("src/vanilla.createImpl", True)  # what the name holds
    assert found[("src/vanilla.create", "createImpl")] == ("src/vanilla.createImpl", True)


def test_a_returned_handler_takes_its_parameters_from_the_declared_return_type():
    graph = resolve(
        {
            "package.json": b'{"name": "x"}',
            "src/context.ts": (
                b"export class Context {\n  json(v: unknown) { return v }\n}\n"
                b"export type Next = () => Promise<void>\n"
                b"export type MiddlewareHandler = (c: Context, next: Next) => Promise<void>\n"
            ),
            "src/stream.ts": b"export const stream = (n: number, cb: (stream: number) => void) => n\n",
            "src/mw.ts": (
                b"import type { MiddlewareHandler } from './context'\nimport { stream } from './stream'\n\n"
                b"export const logger = (prefix: string): MiddlewareHandler => async (c, next) => {\n"
                b"  c.json(prefix)\n  await next()\n}\n\n"
                b"export function cors(origin: string): MiddlewareHandler {\n"
                b"  return function cors(c, next) {\n    c.json(origin)\n    return next()\n  }\n}\n\n"
                # Returned from a method's and an arrow's block.
                b"export class Guards {\n  auth(token: string): MiddlewareHandler {\n"
                b"    return async (c, next) => { c.json(token); await next() }\n  }\n}\n\n"
                b"export const timing = (): MiddlewareHandler => {\n"
                b"  return async (c, next) => { c.json(1); await next() }\n}\n\n"
                # A function type's parameter (`stream` below) is no parameter of the function.
                b"export const piped = (n: number, cb: (stream: number) => void) => stream(n, cb)\n"
            ),
        }
    )
    found = calls_by_caller(graph)
    assert found[("src/mw.logger", "c.json")] == ("src/context.Context.json", True)
    assert found[("src/mw.cors", "c.json")] == ("src/context.Context.json", True)
    assert found[("src/mw.Guards.auth", "c.json")] == ("src/context.Context.json", True)
    assert found[("src/mw.timing", "c.json")] == ("src/context.Context.json", True)
    assert dangling_reason(graph, "src/mw.logger", "next") == "dynamic"  # calling a `Next` runs what was passed
    assert found[("src/mw.piped", "stream")] == ("src/stream.stream", True)


def test_relative_specifiers_find_extensions_index_files_and_ts_behind_js():
    modules = ModuleMap(["src/a.ts", "src/b/index.tsx", "src/c.js", "src/d.mts"], {})
    assert modules.resolve("src/x.ts", "./a") == "src/a.ts"
    assert modules.resolve("src/x.ts", "./a.js") == "src/a.ts"  # ESM-style specifier of a .ts file
    assert modules.resolve("src/x.ts", "./b") == "src/b/index.tsx"
    assert modules.resolve("src/x.ts", "./c.js") == "src/c.js"
    assert modules.resolve("src/x.ts", "./d.mjs") == "src/d.mts"
    assert modules.resolve("src/deep/x.ts", "../a") == "src/a.ts"
    assert modules.resolve("src/x.ts", "./missing") is None
    assert modules.resolve("src/x.ts", "../../outside") is None
    assert modules.resolve("src/x.ts", "./styles.css") == External("./styles.css")


def test_tsconfig_paths_follow_extends_and_the_nearest_config_wins():
    project = {
        "tsconfig.base.json": b'{\n  // shared\n  "compilerOptions": {"baseUrl": ".", "paths": {"@lib/*": ["libs/*/src"],},},\n}',
        "apps/web/tsconfig.json": b'{"extends": "../../tsconfig.base.json", "compilerOptions": {"strict": true}}',
        "apps/api/jsconfig.json": b'{"compilerOptions": {"baseUrl": "src"}}',
    }
    paths = ["libs/ui/src/index.ts", "apps/web/main.ts", "apps/api/src/db/pool.js", "apps/api/main.js"]
    modules = ModuleMap(paths, project)
    assert modules.resolve("apps/web/main.ts", "@lib/ui") == "libs/ui/src/index.ts"
    assert modules.resolve("apps/api/main.js", "db/pool") == "apps/api/src/db/pool.js"
    assert modules.resolve("apps/api/main.js", "@lib/ui") == External("@lib/ui")  # not this config's alias


def test_workspace_packages_resolve_to_their_sources():
    project = {
        "packages/core/package.json": b'{"name": "@acme/core", "main": "dist/index.js", "types": "dist/index.d.ts"}',
        "packages/util/package.json": b'{"name": "acme-util", "exports": {".": {"import": "./esm/main.mjs"}}}',
        "package.json": b'{"name": "root", "workspaces": ["packages/*"]}',
    }
    paths = ["packages/core/src/index.ts", "packages/core/src/deep/thing.ts", "packages/util/src/main.mts"]
    modules = ModuleMap(paths, project)
    assert modules.resolve("app.ts", "@acme/core") == "packages/core/src/index.ts"  # dist/ -> src/
    assert modules.resolve("app.ts", "@acme/core/deep/thing") == "packages/core/src/deep/thing.ts"
    assert modules.resolve("app.ts", "acme-util") == "packages/util/src/main.mts"
    assert modules.resolve("app.ts", "react-dom/client") == External("react-dom/client")
    assert modules.resolve("app.ts", "node:fs/promises") == External("fs/promises")


def test_package_names_and_jsonc():
    assert package_name("@scope/pkg/sub/path") == "@scope/pkg"
    assert package_name("lodash/fp") == "lodash"
    assert parse_jsonc(b'{"a": "http://x", /* c */ "b": [1, 2,],}') == {"a": "http://x", "b": [1, 2]}
    assert parse_jsonc(b"{not json") is None


# ----- export forms, CommonJS, TSX --------------------------------------------------------


def test_default_namespace_and_star_exports():
    graph = resolve(
        {
            "lib/impl.ts": b"export class Engine { start(): void {} }\nexport default function boot(): Engine { return new Engine(); }\n",
            "lib/index.ts": b'export * from "./impl";\nexport * as impl from "./impl";\nexport { default as bootEngine } from "./impl";\n',
            "app.ts": (
                b'import * as lib from "./lib";\nimport { bootEngine, Engine } from "./lib";\n'
                b"function run(e: Engine) {\n  e.start();\n  lib.impl.default();\n  bootEngine().start();\n  new lib.Engine();\n}\n"
            ),
        }
    )
    assert calls(graph) == {
        "e.start": ("lib/impl.Engine.start", True),
        "lib.impl.default": ("lib/impl.boot", True),
        "bootEngine().start": ("lib/impl.Engine.start", True),
        "bootEngine": ("lib/impl.boot", True),
        "lib.Engine": ("lib/impl.Engine", True),
        "Engine": ("lib/impl.Engine", True),
    }


def test_what_a_javascript_module_exports_without_saying_is_what_its_declaration_file_declares():
    """A default export made by a factory and names destructured from it (axios' `index.js`)
    are what `index.d.ts` beside the module declares, as the checker reads them; what the
    module's own code says still wins."""
    graph = resolve(
        {
            "lib/make.js": b"export function makeClient() { return {}; }\nexport function helper() { return 1; }\n",
            "lib/client.js": (
                b'import { makeClient, helper } from "./make.js";\n'
                b"const client = makeClient();\nconst { Widget } = client;\n"
                b"export { client as default, Widget, helper };\n"
            ),
            "lib/client.d.ts": (
                b"export interface Client { fetchAll(): Promise<void>; }\n"
                b"export class Widget { constructor(name: string); render(): string; }\n"
                b"export function helper(): number;\n"
                b"declare const client: Client;\nexport default client;\n"
            ),
            "app.js": (
                b'import client, { Widget, helper } from "./lib/client.js";\n'
                b'function run() {\n  client.fetchAll();\n  new Widget("w").render();\n  helper();\n}\n'
            ),
        }
    )
    found = {raw: target for (caller, raw), target in calls_by_caller(graph).items() if caller == "app.run"}
    assert found == {
        "client.fetchAll": ("lib/client.Client.fetchAll", True),
        "Widget": ("lib/client.Widget", True),
        'new Widget("w").render': ("lib/client.Widget.render", True),  # a declared class's method
        "helper": ("lib/make.helper", True),  # the implementation the module names, not its declaration
    }


def test_commonjs_exports_and_requires():
    graph = resolve(
        {
            "lib/math.js": b"function add(a, b) { return a + b; }\nmodule.exports = { add, plus: add };\n",
            "lib/clock.js": b"class Clock { now() { return 1; } }\nmodule.exports = Clock;\n",
            "lib/util.js": b"exports.slug = (s) => s.trim();\nmodule.exports.upper = function (s) { return s; };\n",
            "main.js": (
                b'const math = require("./lib/math");\nconst { plus } = require("./lib/math");\n'
                b'const Clock = require("./lib/clock");\nconst { slug, upper: up } = require("./lib/util");\n'
                b"function main() {\n  math.add(1, 2);\n  plus(1, 2);\n  new Clock().now();\n  slug(up(' a '));\n}\n"
            ),
        }
    )
    assert {raw: target for raw, target in calls(graph).items() if raw not in ("s.trim", "require")} == {
        "math.add": ("lib/math.add", True),
        "plus": ("lib/math.add", True),
        "new Clock().now": ("lib/clock.Clock.now", True),
        "Clock": ("lib/clock.Clock", True),
        "slug": ("lib/util.slug", True),
        "up": ("lib/util.upper", True),
    }


def test_tsx_components_and_calls_through_fields_and_locals():
    graph = resolve(
        {
            "src/api.ts": b"export class Api {\n  get(path: string): Promise<string> { return fetch(path).then((r) => r.text()); }\n}\n",
            "src/Panel.tsx": (
                b'import { Api } from "./api";\n'
                b"export const Panel = ({ api }: { api: Api }) => <div onClick={() => api.get('/x')}>hi</div>;\n"
                b"export class Loader {\n  private api = new Api();\n  load() { const local: Api = this.api; return local.get('/y'); }\n}\n"
            ),
        }
    )
    found = calls(graph)
    assert found["local.get"] == ("src/api.Api.get", True)
    assert found["div"] == ("<div>", False)  # a DOM element, external
    assert found["Api"] == ("src/api.Api", True)
    kinds = {n.props["qualname"]: n.label for s in graph for n in s.nodes if n.label != "File"}
    assert kinds["src/Panel.Panel"] == "Function" and kinds["src/Panel.Loader.load"] == "Method"


def test_rendering_a_component_is_a_use_of_it():
    graph = resolve(
        {
            "ui/Button.jsx": b"export function Button({ label }) { return <button>{label}</button>; }\n",
            "ui/index.js": b'export { Button } from "./Button";\nexport * as Layout from "./Layout";\n',
            "ui/Layout.tsx": b"export const Header = ({ title }: { title: string }) => <h1>{title}</h1>;\n",
            "App.tsx": (
                b'import { Button, Layout } from "./ui";\n'
                b'export default function App() {\n  return <Layout.Header title="x"><Button label="go" /></Layout.Header>;\n}\n'
            ),
        }
    )
    found = calls(graph)
    assert found["Button"] == ("ui/Button.Button", True)
    assert found["Layout.Header"] == ("ui/Layout.Header", True)
    assert found["button"] == ("<button>", False) and found["h1"] == ("<h1>", False)


def test_a_function_method_or_class_named_as_a_value_is_referenced():
    """A callback handed on, a handler kept in an object (shorthand too), a method value, a class
    handed to a registry: each runs where what it is handed to calls it. A parameter named like
    one is not it, nor is a variable."""
    graph = resolve(
        {
            "lib.ts": b"export function save(x: number) { return x; }\nexport class Store {}\n",
            "app.ts": (
                b'import { save, Store } from "./lib";\n'
                b"const register = (v: unknown) => v;\n"
                b"export class Form {\n"
                b"  submit() { return 1; }\n"
                b"  wire() { register(this.submit); return { onSave: save }; }\n"
                b"}\n"
                b"export function setup(rows: number[]) {\n"
                b"  const size = rows.length;\n"
                b"  register(Store);\n"
                b"  return [rows.map(save), { save }, size];\n"
                b"}\n"
                b"export function shadowed(save: (x: number) => number, rows: number[]) {\n"
                b"  return rows.map(save);\n"
                b"}\n"
            ),
        }
    )
    references = references_of(edges_of_subgraphs(graph))
    assert references == {
        ("app.Form.wire", "app.Form.submit"),
        ("app.Form.wire", "lib.save"),
        ("app.setup", "lib.Store"),
        ("app.setup", "lib.save"),
    }


def test_array_callbacks_receive_the_element_type():
    graph = resolve(
        {
            "a.ts": (
                b"export class Item { price(): number { return 1; } }\n"
                b"export function total(items: Array<Item>, more: Item[], rows) {\n"
                b"  items.forEach((item) => item.price());\n"
                b"  return more.reduce((sum, extra: Item) => sum + extra.price(), 0) + rows.map((row) => row.price());\n"
                b"}\n"
            )
        }
    )
    found = {raw: target for raw, target in calls(graph).items()}
    assert found["item.price"] == ("a.Item.price", True)
    assert found["extra.price"] == ("a.Item.price", True)
    assert found["row.price"] == ("row.price", False)  # `rows` has no type: its elements neither
    assert found["items.forEach"] == ("Array.forEach", False)


def test_a_member_no_symbol_carries_is_external_one_that_exists_stays_unresolved():
    graph = resolve(
        {
            "a.ts": b"export class Box { open(): void {} }\nexport function f(x: any, y) {\n  x.padStart(2);\n  y.open();\n}\n"
        }
    )
    reasons = unresolved_of_subgraphs(graph)
    assert reasons["x.padStart"] == "external"
    assert reasons["y.open"] == "unresolved"  # an in-repo method of that name exists: it may be it


def test_type_parameters_and_keywords_are_no_references():
    graph = resolve(
        {"a.ts": b"export function first<T>(items: T[], fallback: string | T): T | undefined { return items[0]; }\n"}
    )
    types = {e.raw for s in graph for e in s.edges if e.type in ("PARAM_TYPE", "RETURNS_TYPE")}
    assert types == set()


def test_conventions():
    assert is_test_file("src/cart.test.ts") and is_test_file("src/__tests__/cart.tsx") and is_test_file("a.spec.mjs")
    assert not is_test_file("src/testing.ts")
    assert is_support_file("src/__mocks__/api.ts") and is_support_file("test/helpers.js")
    assert is_generated_file("vendor/jquery.min.js") and is_generated_file("proto/user_pb.js")
    assert not is_generated_file("src/build.ts")
    assert (
        clean_docstring("/**\n * Adds a line.\n *\n * @param line the line\n */")
        == "Adds a line.\n\n@param line the line"
    )


@pytest.mark.parametrize("suffix", ["ts", "js"])
def test_a_called_parameter_is_dynamic_and_shadows_the_function_it_is_named_like(suffix):
    source = (
        "export function handler() { return 1 }\n\n"
        "export function run(handler, done = () => 0) { handler(); done(); return handler.name }\n\n"
        "export const middleware = async (c, next) => { await next(); return c.run('x') }\n\n"
        "export function direct() { return handler() }\n"
    )
    graph = resolve({f"src/app.{suffix}": source.encode()})
    reasons = unresolved_of_subgraphs(graph)
    found = {(a, b): ok for a, _t, b, ok in edges_of_subgraphs(graph) if _t == "CALLS"}
    assert found[("src/app.run", "handler")] is False and reasons["handler"] == "dynamic"
    assert reasons["done"] == "dynamic" and reasons["next"] == "dynamic"
    assert reasons["c.run"] == "unresolved"  # an untyped receiver: not known, not dynamic
    assert found[("src/app.direct", "src/app.handler")] is True  # outside run, the function


def test_literals_inline_functions_and_computed_callees_are_not_unresolved_names():
    source = (
        "export function trim(s) { return s }\n\n"
        "const kindOf = ((cache) => (thing) => cache[thing])(Object.create(null));\n"
        "const typeOf = (type) => (thing) => typeof thing === type;\n"
        "const isText = typeOf('string');\n\n"
        "export class Box { open() { return 1 } }\n\n"
        "export function run(parser, table, key) {\n"
        "  const ok = /^is[A-Z]/.test(key) && 'a,b'.split(',') && [1, 2].includes(2);\n"
        "  (() => { trim(key) })();\n"
        "  (function () { return 0 })();\n"
        "  const parsed = (parser || JSON.parse)(key);\n"
        "  table[key]();\n"
        "  new Box().open();\n"
        "  return isText(key) && kindOf(key) && trim(key) && ok && parsed && missing(key);\n"
        "}\n"
    )
    graph = resolve({"src/run.js": source.encode()})
    reasons = unresolved_of_subgraphs(graph)
    found = calls_by_caller(graph)
    # A literal's method is the language's own; a function written in place is the caller's
    # own code (its calls are the caller's), no reference to anything.
    assert reasons["RegExp.prototype.test"] == "external" and reasons["String.prototype.split"] == "external"
    assert reasons["Array.prototype.includes"] == "external"
    assert [raw for _caller, raw in found if raw.startswith("(")] == ["(parser || JSON.parse)"]
    assert found[("src/run.run", "trim")] == ("src/run.trim", True)
    # What an expression or a call computed is decided at run time; a name nobody binds is not.
    assert dangling_reason(graph, "src/run.run", "(parser || JSON.parse)") == "dynamic"
    assert dangling_reason(graph, "src/run.run", "table[key]") == "dynamic"
    assert dangling_reason(graph, "src/run.run", "isText") == "dynamic"
    assert dangling_reason(graph, "src/run.run", "kindOf") == "dynamic"
    assert dangling_reason(graph, "src/run.run", "missing") == "unresolved"
    assert found[("src/run.run", "new Box().open")] == ("src/run.Box.open", True)


def test_a_global_a_file_sets_on_window_is_what_other_files_name_bare():
    sources = {
        "package.json": b'{"name": "web", "main": "index.js"}',
        "index.js": b"export default function client(url) { return url }\nclient.create = () => client;\n",
        "test/helpers.js": (
            b"import _client from '../index.js';\n\n"
            b"window.client = _client;\n"
            b"globalThis.retry = (function () { return () => 1 })();\n"
        ),
        "test/specs/get.spec.js": (
            b"describe('get', () => {\n  it('calls', () => { client('/a'); retry(); nobody(); });\n});\n"
        ),
    }
    graph = resolve(sources)
    found = {raw: target for (_caller, raw), target in calls_by_caller(graph).items()}
    reasons = unresolved_of_subgraphs(graph)
    # Another file put it on the global object: a bare name reads it there.
    assert found["client"] == ("index.client", True)
    # A global holding what a call returned is decided at run time; a name nobody sets is unresolved.
    assert reasons[found["retry"][0]] == "dynamic"
    assert reasons[found["nobody"][0]] == "unresolved"


def test_calling_a_value_of_an_in_repo_type_is_dynamic():
    source = (
        "export interface Handler { (path: string): number }\n\n"
        "export class App {\n  get!: Handler\n  plain(): number { return 1 }\n}\n\n"
        "export function run(app: App) { app.get('/'); app.plain(); return app.run() }\n"
    )
    graph = resolve({"src/app.ts": source.encode()})
    reasons = unresolved_of_subgraphs(graph)
    found = {(a, b): ok for a, _t, b, ok in edges_of_subgraphs(graph) if _t == "CALLS"}
    assert reasons["app.get"] == "dynamic"  # whatever function the field holds
    assert found[("src/app.run", "src/app.App.plain")] is True
    assert reasons["app.run"] == "unresolved"  # App has no run: not found, nothing dynamic about it


def test_a_callback_takes_its_parameter_types_from_what_it_is_passed_to():
    # hono's shape: a field typed by an interface whose overloaded call signatures take a
    # handler type alias, itself a union of function types whose first parameter is Context.
    types = (
        "export class Context {\n"
        "  text(body: string): Response { return new Response(body) }\n"
        "  get req(): HonoRequest { return new HonoRequest() }\n"
        "}\n"
        "export class HonoRequest { param(name: string): string { return name } }\n"
        "export class Stream { write(chunk: string): void {} }\n"
        "export type Next = () => Promise<void>\n"
        "export type Handler<E> = (c: Context, next: Next) => Response\n"
        "export type Middleware<E> = (c: Context, next: Next) => Promise<void>\n"
        "export type H<E> = Handler<E> | Middleware<E>\n"
        "export interface HandlerInterface<E> {\n"
        "  <P extends string>(path: P, handler: H<E>): App\n"
        "  <P extends string>(path: P, ...handlers: [H<E>, H<E>]): App\n"
        "  (handler: H<E>): App\n"
        "}\n"
        "export class App { get!: HandlerInterface<{}> }\n"
        "export function stream(c: Context, cb: (stream: Stream) => Promise<void>): Response {"
        " return c.text('') }\n"
        "export function each(names: string[], cb: (name) => void) {}\n"
    )
    app = (
        "import { App, stream, each } from './types'\n"
        "export function routes(app: App) {\n"
        "  app.get('/', (c) => c.text('hi'))\n"
        "  app.get('/two', (c, next) => next(), async (c) => stream(c, async (s) => s.write('x')))\n"
        "  each(['a'], (name) => name.trim())\n"
        "  app.get('/a', (c) => c.text('a')).get('/b', (c) => c.req.param('id'))\n"
        "  new App()\n    .get('/c', (c) => c.text('c'))\n"
        "}\n"
        "export function mixed(app: App, rows: Row[]) {\n"
        "  app.get('/', (c) => c.text('hi'))\n"
        "  rows.map((c) => c.text())\n"
        "}\n"
        "export class Row { text(): string { return '' } }\n"
    )
    graph = resolve({"src/types.ts": types.encode(), "src/app.ts": app.encode()})
    found = calls_by_caller(graph)
    assert found[("src/app.routes", "c.text")] == ("src/types.Context.text", True)
    assert found[("src/app.routes", "s.write")] == ("src/types.Stream.write", True)  # a function's declared callback
    # A call signature's return type (App) carries a chain on; a getter stands for what it returns.
    assert found[("src/app.routes", "c.req.param")] == ("src/types.HonoRequest.param", True)
    assert unresolved_of_subgraphs(graph)["new App() .get"] == "dynamic"  # a chain over lines reads as one
    assert unresolved_of_subgraphs(graph)["next"] == "dynamic"  # a Next: whatever function it holds
    # The parameter list says nothing about `name` (untyped): no guess.
    assert found[("src/app.routes", "name.trim")][1] is False
    # Two callbacks in one scope bind `c` to a Context and to a Row: neither is a guess.
    assert found[("src/app.mixed", "c.text")][1] is False


@pytest.mark.parametrize("suffix", ["ts", "tsx"])
def test_an_array_pattern_unpacks_the_declared_tuple_a_call_returns(suffix):
    hooks = (
        "export type Setter<T> = (next: T) => void\n"
        "export class Store { save(): void {} }\n"
        "export const useState = <T>(initial: T): [T, Setter<T>] => [initial, () => {}]\n"
        "export function useStore(): [store: Store, ready: boolean] { return [new Store(), true] }\n"
    )
    app = (
        "import { useState, useStore } from './hooks'\n"
        "import { useRef } from 'react'\n"
        "export function View() {\n"
        "  const [, setCount] = useState(0)\n"
        "  const [store] = useStore()\n"
        "  const [ref] = useRef(null)\n"
        "  setCount(1)\n"
        "  store.save()\n"
        "  ref.focus()\n"
        "}\n"
    )
    graph = resolve({"src/hooks.ts": hooks.encode(), f"src/view.{suffix}": app.encode()})
    found = calls_by_caller(graph)
    reasons = unresolved_of_subgraphs(graph)
    assert reasons["setCount"] == "dynamic"  # a Setter: whatever function it holds
    assert found[("src/view.View", "store.save")] == ("src/hooks.Store.save", True)  # a labelled element
    target, resolved = found[("src/view.View", "ref.focus")]
    assert not resolved and reasons[target] == "external"  # what a library's call returns is the library's


def test_a_value_of_a_function_type_is_dynamic_to_call_and_its_result_typed():
    source = (
        "export class Result { ok(): boolean { return true } }\n"
        "export const handle = (name: string): ((event: string) => Result) => (event) => new Result()\n"
        "export class Emitter {\n"
        "  private onError: (error: Error) => void\n"
        "  constructor(onError: (error: Error) => void) { this.onError = onError }\n"
        "  fire() { this.onError(new Error('x')); this.onError.call(this) }\n"
        "}\n"
        "export function run() {\n"
        "  const handler = handle('a')\n"
        "  const result = handler('e')\n"
        "  return result.ok()\n"
        "}\n"
    )
    graph = resolve({"src/app.ts": source.encode()})
    found = calls_by_caller(graph)
    reasons = unresolved_of_subgraphs(graph)
    assert reasons["handler"] == "dynamic" and reasons["this.onError"] == "dynamic"
    assert found[("src/app.run", "result.ok")] == ("src/app.Result.ok", True)  # what the function type returns
    assert dangling_reason(graph, "src/app.Emitter.fire", "this.onError.call") == "external"  # Function.prototype.call


def test_an_object_literal_of_functions_is_a_namespace():
    jws = "export function sign(payload: string): string { return payload }\nexport function decode() {}\n"
    jwt = (
        "import { sign, decode } from './jws'\n"
        "export const verify = (token: string) => token\n"
        "export const Jwt = { sign, verify, parse: decode, version: 1 }\n"
    )
    app = "import { Jwt } from './jwt'\nexport function login() { Jwt.sign('x'); Jwt.parse(); return Jwt.refresh() }\n"
    graph = resolve({"src/jws.ts": jws.encode(), "src/jwt.ts": jwt.encode(), "src/app.ts": app.encode()})
    found = calls_by_caller(graph)
    assert found[("src/app.login", "Jwt.sign")] == ("src/jws.sign", True)
    assert found[("src/app.login", "Jwt.parse")] == ("src/jws.decode", True)
    assert found[("src/app.login", "Jwt.refresh")][1] is False  # no such property: not a guess


def test_the_same_function_type_written_in_two_files_reads_each_files_names():
    def module(kind: str) -> bytes:
        return (
            f"export class Item {{ {kind}(): void {{}} }}\n"
            f"export function run(each: (cb: (item: Item) => void) => void) {{ each((item) => item.{kind}()) }}\n"
        ).encode()

    graph = resolve({"src/a.ts": module("open"), "src/b.ts": module("close")})
    found = calls_by_caller(graph)
    assert found[("src/a.run", "item.open")] == ("src/a.Item.open", True)
    assert found[("src/b.run", "item.close")] == ("src/b.Item.close", True)


def test_a_callback_given_as_a_property_of_an_options_object_takes_the_property_type():
    auth = (
        "export class Context { text(body: string): string { return body } }\n"
        "export interface Hooks { onError: (error: Error, c: Context) => void }\n"
        "type Options = { token: string } | (Hooks & { verify: (token: string, c: Context) => boolean })\n"
        "export const auth = (options: Options) => options\n"
    )
    app = (
        "import { auth } from './auth'\n"
        "export function routes() {\n"
        "  auth({ verify: (token, c) => c.text(token) === 'ok', onError(error, ctx) { ctx.text('no') } })\n"
        "}\n"
        "export function other() { auth({ token: 'x', other: (c) => c.text('?') }) }\n"
        "export function later() {\n"
        "  auth({ verify: (token, ctx) => true })\n"
        "  const ctx = new Session()\n"
        "  return ctx.close()\n"
        "}\n"
        "export class Session { close(): void {} }\n"
    )
    graph = resolve({"src/auth.ts": auth.encode(), "src/app.ts": app.encode()})
    found = calls_by_caller(graph)
    assert found[("src/app.routes", "c.text")] == ("src/auth.Context.text", True)  # a union's alternative
    assert found[("src/app.routes", "ctx.text")] == ("src/auth.Context.text", True)  # a method, through `Hooks &`
    assert found[("src/app.other", "c.text")][1] is False  # `other` is no property: `c` is not known there
    # A declaration wins over a callback's parameter of its name, even one written before it.
    assert found[("src/app.later", "ctx.close")] == ("src/app.Session.close", True)


def test_an_awaited_call_in_brackets_is_what_its_promise_gives():
    source = (
        "export class Reply { json(): object { return {} } }\n"
        "export async function fetchReply(): Promise<Reply> { return new Reply() }\n"
        "export async function run() { return (await fetchReply()).json() }\n"
    )
    found = calls_by_caller(resolve({"src/app.ts": source.encode()}))
    assert found[("src/app.run", "(await fetchReply()).json")] == ("src/app.Reply.json", True)


def test_a_private_method_is_called_through_this():
    source = (
        "export class App {\n"
        "  #dispatch(path: string): string { return path }\n"
        "  #clone = (): App => new App()\n"
        "  #store: Store\n"
        "  #cache = new Store()\n"
        "  constructor() { this.#store = new Store() }\n"
        "  fetch(path: string) { this.#clone(); this.#store.save(); this.#cache.save(); return this.#dispatch(path) }\n"
        "}\n"
        "export class Store { save(): void {} }\n"
    )
    found = calls_by_caller(resolve({"src/app.ts": source.encode()}))
    assert found[("src/app.App.fetch", "this.#dispatch")] == ("src/app.App.#dispatch", True)
    assert found[("src/app.App.fetch", "this.#clone")] == ("src/app.App.#clone", True)
    assert found[("src/app.App.fetch", "this.#store.save")] == ("src/app.Store.save", True)  # a private field
    assert found[("src/app.App.fetch", "this.#cache.save")] == ("src/app.Store.save", True)


def test_intersections_primitives_and_field_types_give_members():
    context = (
        "export type Typed<T> = { _data: T; status?: number }\n"
        "export type Escaped = string & { isEscaped: true }\n"
        "export class Session { save(): void {} }\n"
        "interface TextRespond { <T extends string>(text: T): Response & Typed<T> }\n"
        "interface Render { (): Escaped }\n"
        "export class Context {\n"
        "  text: TextRespond = (text: string): ReturnType<TextRespond> => new Response(text) as any\n"
        "  render: Render = () => '' as Escaped\n"
        "  session(): Session & Typed<number> { return new Session() as any }\n"
        "  toString(): string { return '' }\n"
        "  headers(): void {}\n"
        "  _data(): void {}\n"
        "  replace(): void {}\n"
        "}\n"
        "export function run(c: Context, path: string) {\n"
        "  const res = c.text('hi')\n"
        "  res.headers.get('a')\n"
        "  c.render().toString()\n"
        "  c.session().save()\n"
        "  path.replace('a', 'b')\n"
        "  res._data()\n"
        "}\n"
    )
    graph = resolve({"src/context.ts": context.encode()})
    found = calls_by_caller(graph)

    def external(raw: str) -> bool:
        return dangling_reason(graph, "src/context.run", raw) == "external"

    # The field's declared type, not the arrow function's, is what callers see; its call
    # signature returns an intersection whose `headers` only the library part has.
    assert external("res.headers.get") and external("c.render().toString") and external("path.replace")
    assert found[("src/context.run", "c.session().save")] == ("src/context.Session.save", True)
    # `_data` is a property the in-repo part declares (its type written out): not a guess.
    assert found[("src/context.run", "res._data")][1] is False and not external("res._data")


def test_typeof_and_interface_properties_give_the_declared_value():
    css = (
        "export type CssType = (strings: TemplateStringsArray) => string\n"
        "export interface CssContext { css: CssType; cx: (name: string) => string }\n"
        "export function createContext(): CssContext { return null as any }\n"
        "export const render = (name: string) => name\n"
        "export const css = createContext().css\n"
    )
    app = (
        "import type { css as cssHelper, render as renderHelper } from './css'\n"
        "export function run() {\n"
        "  let css: typeof cssHelper\n"
        "  let render: typeof renderHelper\n"
        "  css`a`\n"
        "  return render('x')\n"
        "}\n"
    )
    graph = resolve({"src/css.ts": css.encode(), "src/app.ts": app.encode()})
    assert calls_by_caller(graph)[("src/app.run", "render")] == ("src/css.render", True)
    assert dangling_reason(graph, "src/app.run", "css") == "dynamic"  # a property of a function type


def test_dynamic_imports_and_destructured_call_results_bind_names():
    index = "export const jsx = (tag: string) => tag\nexport function useContext() { return 1 }\n"
    test = (
        "const importIndex = () => import('./index')\n"
        "async function load() { return import('./index') }\n"
        "export class Store { save(): void {} }\n"
        "export function makeStore() { return { store: new Store() } }\n"
        "it('renders', async () => {\n"
        "  const { useContext, jsx: h } = await importIndex()\n"
        "  h('a'); useContext()\n"
        "  const m = await import('./index')\n"
        "  m.jsx('b')\n"
        "  const loaded = await load()\n"
        "  loaded.useContext()\n"
        "})\n"
        "export function other() { const { store } = makeStore(); const { missing } = makeStore(); missing() }\n"
    )
    graph = resolve({"src/index.ts": index.encode(), "src/iso.test.ts": test.encode()})
    found = calls_by_caller(graph)
    renders = "src/iso.test.renders"
    assert found[(renders, "h")] == ("src/index.jsx", True)
    assert found[(renders, "useContext")] == ("src/index.useContext", True)
    assert found[(renders, "m.jsx")] == ("src/index.jsx", True)
    assert found[(renders, "loaded.useContext")] == ("src/index.useContext", True)
    assert not any(raw == "import" for _, raw in found)  # loading a module is no call
    imports = {(a, b) for a, t, b, _ in edges_of_subgraphs(graph) if t == "IMPORTS"}
    assert ("src/iso.test", "src/index") in imports
    assert found[("src/iso.test.other", "missing")][1] is False


def test_a_jsx_expression_has_the_element_type_the_runtime_declares():
    html = (
        "export interface HtmlEscaped { isEscaped: true }\n"
        "export type HtmlEscapedString = string & HtmlEscaped\n"
        "export class Node { toString(): string { return '' } }\n"
    )
    runtime = (
        "import type { HtmlEscapedString } from './html'\n"
        "export namespace JSX {\n"
        "  export type Element = HtmlEscapedString | Promise<HtmlEscapedString>\n"
        "}\n"
    )
    test = (
        "it('renders', async () => {\n"
        "  const template = <h1 className='h1'>Hello</h1>\n"
        "  const wrapped = (\n    <div />\n  )\n"
        "  template.toString(); wrapped.toString()\n"
        "})\n"
    )
    sources = {"src/html.ts": html.encode(), "src/jsx.ts": runtime.encode(), "src/app.test.tsx": test.encode()}
    for declared in (True, False):  # the repository's own `JSX.Element`, or a library's
        graph = resolve(sources if declared else {k: v for k, v in sources.items() if k != "src/jsx.ts"})
        for raw in ("template.toString", "wrapped.toString"):
            assert dangling_reason(graph, "src/app.test.renders", raw) == "external", (declared, raw)
    # An element type of the repository's own is followed to its members.
    own = (
        "export class VNode { render(): string { return '' } }\nexport namespace JSX { export type Element = VNode }\n"
    )
    test = "import './vnode'\nexport function run() { const node = <p />; return node.render() }\n"
    found = calls_by_caller(resolve({"src/vnode.ts": own.encode(), "src/app.tsx": test.encode()}))
    assert found[("src/app.run", "node.render")] == ("src/vnode.VNode.render", True)


def test_awaiting_a_value_gives_what_its_promise_part_holds():
    client = (
        "export class Reply { text(): Promise<string> { return Promise.resolve('') } }\n"
        "export type ReplyPromise = { text: () => Promise<string> } & Promise<Reply>\n"
        "export interface Pending extends Promise<Reply> { cancel(): void }\n"
        "export function send(url: string): ReplyPromise { return null as any }\n"
        "export function start(url: string): Pending { return null as any }\n"
    )
    app = (
        "import { send, start } from './client'\n"
        "export async function load() {\n"
        "  const reply = await send('/a')\n"
        "  reply.text()\n"
        "  const started = await start('/b')\n"
        "  started.text()\n"
        "}\n"
        "export async function peek() {\n"
        "  return (await send('/c')).text()\n"
        "}\n"
        "export function direct() {\n"
        "  return send('/d').text()\n"
        "}\n"
    )
    graph = resolve({"src/client.ts": client.encode(), "src/app.ts": app.encode()})
    found = calls_by_caller(graph)
    # Awaited, the value is the Reply its promise part holds, as the checker reads it ...
    assert found[("src/app.load", "reply.text")] == ("src/client.Reply.text", True)
    assert found[("src/app.load", "started.text")] == ("src/client.Reply.text", True)
    assert found[("src/app.peek", "(await send('/c')).text")] == ("src/client.Reply.text", True)
    # ... not awaited, it is the object type whose `text` property someone assigns.
    assert dangling_reason(graph, "src/app.direct", "send('/d').text") == "dynamic"
