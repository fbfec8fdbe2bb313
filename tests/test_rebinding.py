"""An update resolves again only the files a change can reach (``ingest.incremental``): here a
change in one module re-binds references in files that did not change, each case checked
against the equivalence oracle, and a file the change cannot reach is never resolved again."""

from __future__ import annotations

import dataclasses

import pytest
from gitrepo import commit_files, init_repo
from test_incremental import assert_equals_fresh_ingest

from branchgraph import api
from branchgraph.ingest import incremental

pytestmark = [pytest.mark.neo4j, pytest.mark.postgres]

# In every case: no change can reach this file, so no update resolves it again.
UNRELATED = {"tools/unrelated.py": "import os\n\n\ndef tidy(path):\n    return os.path.basename(path)\n"}

STORES = {
    "pkg/__init__.py": "from pkg.one import Store\n",
    "pkg/one.py": "class Store:\n    def save(self):\n        return 1\n",
    "pkg/two.py": "class Store:\n    def save(self):\n        return 2\n",
    "app.py": "from pkg import Store\n\n\ndef run():\n    return Store().save()\n",
}

MIXIN = {
    "mixins.py": "class Finishing:\n    def run(self):\n        return self.finish()\n",
    "first.py": "from mixins import Finishing\n\n\nclass First(Finishing):\n    def finish(self):\n        return 1\n",
}

TEST_BASE = {
    "checks/base.py": "import unittest\n\n\nclass Base(unittest.TestCase):\n    pass\n",
    "app.py": "def compute():\n    return 1\n",
    "checks/test_compute.py": (
        "from app import compute\nfrom checks.base import Base\n\n\n"
        "class Checks(Base):\n    def test_compute(self):\n        compute()\n"
    ),
}

FIXTURE_USER = {
    "shop/store.py": "class Store:\n    def save(self):\n        return 1\n",
    "tests/test_store.py": "def test_save(store):\n    store.save()\n",
}
CONFTEST = {
    "tests/conftest.py": (
        "import pytest\n\nfrom shop.store import Store\n\n\n@pytest.fixture\ndef store():\n    return Store()\n"
    )
}

CLIENT = {"client.py": 'import requests\n\n\ndef items():\n    return requests.get("/api/items")\n'}
SERVER = {
    "server.py": (
        'from flask import Flask\n\napp = Flask(__name__)\n\n\n@app.get("/api/items")\n'
        "def list_items():\n    return []\n"
    )
}

CASE_LIST = {
    "lib/__init__.py": "",
    "lib/formats.py": "class Text:\n    pass\n\n\nclass Number:\n    pass\n",
    "tests/__init__.py": "",
    "tests/cases.py": "from lib.formats import Text\n\nALL = [Text]\n",
    "tests/test_formats.py": (
        "import pytest\n\nfrom tests.cases import ALL\n\n\n"
        "@pytest.mark.parametrize('cls', ALL)\ndef test_each(cls):\n    assert cls()\n"
    ),
}
CALLBACK_USER = {
    "pkg/__init__.py": "",
    "pkg/helpers.py": "def other():\n    return 0\n",
    "app.py": "from pkg import helpers\n\n\ndef run(rows):\n    return sorted(rows, key=helpers.by_name)\n",
}

ALIASED = {
    "text.py": (
        "from typing import Union\n\n\nclass Text:\n    def copy(self):\n        return 1\n\n\n"
        "class Markup:\n    def copy(self):\n        return 2\n\n\nTextType = Union[str, Text]\n"
    ),
    "use.py": "from text import TextType\n\n\ndef show(title: TextType):\n    return title.copy()\n",
}

VISITOR = {
    "lib/__init__.py": "",
    "lib/visitor.py": (
        "class NodeVisitor:\n    def get_visitor(self, node):\n"
        '        return getattr(self, f"visit_{type(node).__name__}", None)\n'
    ),
    "lib/track.py": (
        "from lib.visitor import NodeVisitor\n\n\nclass Tracker(NodeVisitor):\n"
        "    def visit_Name(self, node):\n        return 1\n"
    ),
}

URL_TABLES = {
    "site/urls.py": 'from django.urls import include, path\n\nurlpatterns = [path("shop/", include("shop.urls"))]\n',
    "shop/__init__.py": "",
    "shop/views.py": "def items(request):\n    return []\n",
    "shop/urls.py": 'from django.urls import path\n\nfrom shop.views import items\n\nurlpatterns = [path("items/", items)]\n',
    "client.py": 'import requests\n\n\ndef fetch_items():\n    return requests.get("/shop/items/")\n',
}

CASES = {
    # A visitor's dispatch by name prefix reaches a method its subclass gains (or an alias of
    # one in its class body), and a subclass that appears in another file.
    "dispatched method appears": (
        VISITOR,
        {**VISITOR, "lib/track.py": VISITOR["lib/track.py"] + "\n    def visit_Call(self, node):\n        return 2\n"},
        None,
    ),
    "dispatched alias appears": (
        VISITOR,
        {
            **VISITOR,
            "lib/track.py": VISITOR["lib/track.py"]
            + "\n    def _simple(self, node):\n        return 2\n\n    visit_Call = _simple\n",
        },
        None,
    ),
    "dispatching subclass appears": (
        VISITOR,
        {
            **VISITOR,
            "lib/deeper.py": (
                "from lib.track import Tracker\n\n\nclass Deeper(Tracker):\n"
                "    def visit_Call(self, node):\n        return 2\n"
            ),
        },
        None,
    ),
    # A type alias in another module comes to name another class: the annotated call follows.
    "type alias switched": (
        ALIASED,
        {**ALIASED, "text.py": ALIASED["text.py"].replace("Union[str, Text]", "Union[str, Markup]")},
        ("use.show", "title.copy", "text.Markup.copy"),
    ),
    # A parametrize list in another module gains a class: the test's REFERENCES follow.
    "list of cases grows": (
        CASE_LIST,
        {**CASE_LIST, "tests/cases.py": "from lib.formats import Number, Text\n\nALL = [Text, Number]\n"},
        None,
    ),
    # The function a callback names appears in the module it is looked up in.
    "callback appears": (
        CALLBACK_USER,
        {**CALLBACK_USER, "pkg/helpers.py": "def other():\n    return 0\n\n\ndef by_name(row):\n    return row\n"},
        None,
    ),
    # pkg/__init__.py re-exports another Store: app.py's call now reaches pkg.two.
    "re-export switched": (
        STORES,
        {**STORES, "pkg/__init__.py": "from pkg.two import Store\n"},
        ("app.run", "Store().save", "pkg.two.Store.save"),
    ),
    # `import pkg.extra` named a module that did not exist; it appears.
    "module appears": (
        {"pkg/__init__.py": "", "app.py": "import pkg.extra\n\n\ndef run():\n    return pkg.extra.go()\n"},
        {
            "pkg/__init__.py": "",
            "app.py": "import pkg.extra\n\n\ndef run():\n    return pkg.extra.go()\n",
            "pkg/extra.py": "def go():\n    return 1\n",
        },
        ("app.run", "pkg.extra.go", "pkg.extra.go"),
    ),
    # The mixin's `self.finish()` ran First's finish; a second subclass disagrees.
    "subclass appears": (
        MIXIN,
        {
            **MIXIN,
            "second.py": "from mixins import Finishing\n\n\nclass Second(Finishing):\n    def finish(self):\n        return 2\n",
        },
        ("mixins.Finishing.run", "self.finish", "self.finish"),
    ),
    # The test class's base stops being a TestCase: its methods are no tests any more.
    "test base changes": (TEST_BASE, {**TEST_BASE, "checks/base.py": "class Base:\n    pass\n"}, None),
    # A conftest.py gives the test's parameter a fixture: `store.save()` resolves.
    "fixture appears": (
        FIXTURE_USER,
        {**FIXTURE_USER, **CONFTEST},
        ("tests.test_store.test_save", "store.save", "shop.store.Store.save"),
    ),
    # A route appears in another file: the client's call links to its handler.
    "route appears": (CLIENT, {**CLIENT, **SERVER}, None),
    # The url table `include("shop.urls")` names moves into a package: the unchanged including
    # table's routes (kept with its record) are found again, still under its prefix.
    "included table moves": (
        URL_TABLES,
        {
            **{p: v for p, v in URL_TABLES.items() if p != "shop/urls.py"},
            "shop/urls/__init__.py": URL_TABLES["shop/urls.py"],
        },
        ("client.fetch_items", '"/shop/items/"', "shop.views.items"),
    ),
}


def _call_target(graph_store, repo: str, qualname: str, raw: str) -> str:
    rows = graph_store.read_query(
        "MATCH (a {repo: $repo, branch: 'main', qualname: $q})-[r:CALLS {raw: $raw}]->(b) "
        "RETURN coalesce(b.qualname, b.raw) AS target",
        {"repo": repo, "q": qualname, "raw": raw},
    )
    assert len(rows) == 1, rows
    return rows[0]["target"]


def _ingest_then_update(repo_dir, config, before: dict[str, str], after: dict[str, str], check=None):
    """Index ``before``, run ``check`` on the graph, commit ``after`` and update: the summary."""
    repo = init_repo(repo_dir)
    commit_files(repo, before)
    api.ingest(repo_dir, config=config)
    if check is not None:
        check()
    commit_files(repo, after)
    return api.ingest(repo_dir, config=config)


@pytest.mark.parametrize("case", sorted(CASES))
def test_a_change_rebinds_unchanged_files_and_leaves_the_rest(case, repo_dir, config, graph_store, pg_store):
    before, after, expected_call = CASES[case]
    update = _ingest_then_update(repo_dir, config, {**before, **UNRELATED}, {**after, **UNRELATED})
    assert update.strategy == "update"
    changed = {p for p in after if before.get(p) != after[p]}
    # The changed files and at least one unchanged file that reads them, never the unrelated one.
    assert len(changed) < update.work["files_resolved"] < len(after) + len(UNRELATED)
    if expected_call is not None:
        assert _call_target(graph_store, repo_dir.name, *expected_call[:2]) == expected_call[2]
    assert_equals_fresh_ingest(repo_dir, "main", config, graph_store, pg_store)


def test_an_update_resolves_only_the_changed_file_when_nobody_reads_what_changed(
    repo_dir, config, graph_store, pg_store
):
    repo = init_repo(repo_dir)
    commit_files(repo, {**STORES, **UNRELATED})
    api.ingest(repo_dir, config=config)
    edited = {**STORES, "app.py": STORES["app.py"] + "\n\ndef idle():\n    return None\n"}
    commit_files(repo, {**edited, **UNRELATED})
    update = api.ingest(repo_dir, config=config)
    assert update.work["files_resolved"] == 1
    assert update.work["files_written"] == 1
    assert_equals_fresh_ingest(repo_dir, "main", config, graph_store, pg_store)


def test_a_route_nobody_calls_leaves_the_clients_unresolved_again(repo_dir, config, graph_store, pg_store):
    repo = init_repo(repo_dir)
    commit_files(repo, {**CLIENT, **SERVER, **UNRELATED})
    api.ingest(repo_dir, config=config)
    admin = {"admin.py": 'from server import app\n\n\n@app.get("/admin")\ndef admin():\n    return {}\n'}
    commit_files(repo, {**CLIENT, **SERVER, **admin, **UNRELATED})
    update = api.ingest(repo_dir, config=config)
    # client.py is matched against the new routes, finds the same handler, and is not resolved again.
    assert update.work["files_resolved"] == 1
    assert _call_target(graph_store, repo_dir.name, "client.items", '"/api/items"') == "server.list_items"
    assert_equals_fresh_ingest(repo_dir, "main", config, graph_store, pg_store)


TS_PACKAGE = {
    "package.json": '{"name": "shop", "private": true}',
    "src/one.ts": "export class Store {\n  save(): number {\n    return 1;\n  }\n}\n",
    "src/two.ts": "export class Store {\n  save(): number {\n    return 2;\n  }\n}\n",
    "src/index.ts": 'export { Store } from "./one";\n',
    "src/app.ts": 'import { Store } from "./index";\n\nexport function run(): number {\n  return new Store().save();\n}\n',
    "src/tidy.ts": "export function tidy(value: string): string {\n  return value.trim();\n}\n",
}

TS_CASES = {
    # The barrel re-exports another Store: app.ts's call now reaches two.ts.
    "barrel switched": ({**TS_PACKAGE, "src/index.ts": 'export { Store } from "./two";\n'}, "src/two.Store.save"),
    # The module app.ts imports from appears where nothing was: `./index` now finds index.tsx.
    "index moves": (
        {
            **{k: v for k, v in TS_PACKAGE.items() if k != "src/index.ts"},
            "src/index.tsx": 'export { Store } from "./two";\n',
        },
        "src/two.Store.save",
    ),
}


@pytest.mark.parametrize("case", sorted(TS_CASES))
def test_a_typescript_change_rebinds_unchanged_files(case, repo_dir, config, graph_store, pg_store):
    after, target = TS_CASES[case]

    def calls_one() -> None:
        assert _call_target(graph_store, repo_dir.name, "src/app.run", "new Store().save") == "src/one.Store.save"

    update = _ingest_then_update(repo_dir, config, TS_PACKAGE, after, calls_one)
    # app.ts is resolved again although it did not change; tidy.ts and one.ts are not.
    assert update.work["files_resolved"] == len({p for p in after if TS_PACKAGE.get(p) != after[p]}) + 1
    assert _call_target(graph_store, repo_dir.name, "src/app.run", "new Store().save") == target
    assert_equals_fresh_ingest(repo_dir, "main", config, graph_store, pg_store)


JS_WITH_FACTORY = {
    "package.json": '{"name": "client", "private": true}',
    "lib/make.js": "export function makeClient() {\n  return {};\n}\n",
    "lib/client.js": 'import { makeClient } from "./make.js";\n\nconst client = makeClient();\nexport default client;\n',
    "app.js": 'import client from "./lib/client.js";\n\nexport function run() {\n  return client.fetchAll();\n}\n',
    "tidy.js": "export function tidy(value) {\n  return value.trim();\n}\n",
}


def test_a_declaration_file_appearing_beside_a_javascript_module_rebinds_its_importers(
    repo_dir, config, graph_store, pg_store
):
    declared = {
        "lib/client.d.ts": (
            "export interface Client {\n  fetchAll(): Promise<void>;\n}\n"
            "declare const client: Client;\nexport default client;\n"
        )
    }

    def dangles() -> None:
        assert _call_target(graph_store, repo_dir.name, "app.run", "client.fetchAll") == "client.fetchAll"

    update = _ingest_then_update(repo_dir, config, JS_WITH_FACTORY, {**JS_WITH_FACTORY, **declared}, dangles)
    assert update.work["files_resolved"] < len(JS_WITH_FACTORY) + 1  # tidy.js is not resolved again
    assert _call_target(graph_store, repo_dir.name, "app.run", "client.fetchAll") == "lib/client.Client.fetchAll"
    assert_equals_fresh_ingest(repo_dir, "main", config, graph_store, pg_store)


def test_a_global_set_on_window_in_another_file_rebinds_the_files_naming_it(repo_dir, config, graph_store, pg_store):
    before = {
        "package.json": '{"name": "web", "private": true}',
        "lib/client.js": "export default function client(url) {\n  return url;\n}\n",
        "test/helpers.js": "export const ready = true;\n",
        "test/get.spec.js": "describe('get', () => {\n  it('calls', () => client('/a') && window.client('/b'));\n});\n",
        "tidy.js": "export function tidy(value) {\n  return value.trim();\n}\n",
    }
    helpers = 'import client from "../lib/client.js";\n\nwindow.client = client;\nexport const ready = true;\n'

    def dangles() -> None:
        assert _call_target(graph_store, repo_dir.name, "test/get.spec.get.calls", "client") == "client"

    update = _ingest_then_update(repo_dir, config, before, {**before, "test/helpers.js": helpers}, dangles)
    assert update.work["files_resolved"] == 2  # the helpers and the spec naming the global; not tidy.js
    assert _call_target(graph_store, repo_dir.name, "test/get.spec.get.calls", "client") == "lib/client.client"
    assert _call_target(graph_store, repo_dir.name, "test/get.spec.get.calls", "window.client") == "lib/client.client"
    assert_equals_fresh_ingest(repo_dir, "main", config, graph_store, pg_store)


TS_JSX = {
    "package.json": '{"name": "ui", "private": true}',
    "src/nodes.ts": "export class VNode {\n  render(): string {\n    return '';\n  }\n}\n",
    "src/runtime.ts": 'import type { VNode } from "./nodes";\n\nexport namespace JSX {\n  export type Element = VNode;\n}\n',
    "src/app.tsx": "export function run() {\n  const node = <p />;\n  return node.render();\n}\n",
    "src/tidy.ts": "export function tidy(value: string): string {\n  return value.trim();\n}\n",
}


@pytest.mark.parametrize("declared", ["removed", "changed"])
def test_a_changed_jsx_element_type_rebinds_every_jsx_value(declared, repo_dir, config, graph_store, pg_store):
    """What `<p />` is comes from the file declaring `JSX.Element`: app.tsx did not change, but
    its call on a JSX value now reaches another class, or a library's element."""
    after = {k: v for k, v in TS_JSX.items() if k != "src/runtime.ts"}
    if declared == "changed":
        after["src/nodes.ts"] = (
            TS_JSX["src/nodes.ts"] + "export class Fragment {\n  render(): string {\n    return '';\n  }\n}\n"
        )
        after["src/runtime.ts"] = TS_JSX["src/runtime.ts"].replace("VNode", "Fragment")

    def reaches_vnode() -> None:
        assert _call_target(graph_store, repo_dir.name, "src/app.run", "node.render") == "src/nodes.VNode.render"

    update = _ingest_then_update(repo_dir, config, TS_JSX, after, reaches_vnode)
    expected = "src/nodes.Fragment.render" if declared == "changed" else "JSX.Element.render"
    assert _call_target(graph_store, repo_dir.name, "src/app.run", "node.render") == expected
    assert update.work["files_resolved"] == len({p for p in after if TS_JSX.get(p) != after[p]}) + 1  # + app.tsx
    assert_equals_fresh_ingest(repo_dir, "main", config, graph_store, pg_store)


def test_a_changed_tsconfig_resolves_every_typescript_file_again(repo_dir, config, graph_store, pg_store):
    files = {
        **TS_PACKAGE,
        "tsconfig.json": '{"compilerOptions": {"baseUrl": "."}}',
        "src/app.ts": 'import { Store } from "lib/store";\n\nexport function run(): number {\n  return new Store().save();\n}\n',
        "lib/store.ts": 'export { Store } from "../src/one";\n',
    }
    repo = init_repo(repo_dir)
    commit_files(repo, files)
    api.ingest(repo_dir, config=config)
    assert _call_target(graph_store, repo_dir.name, "src/app.run", "new Store().save") == "src/one.Store.save"
    commit_files(repo, {**files, "tsconfig.json": '{"compilerOptions": {"baseUrl": "src"}}'})
    update = api.ingest(repo_dir, config=config)
    assert update.work["files_resolved"] == sum(1 for p in files if p.endswith(".ts"))
    assert_equals_fresh_ingest(repo_dir, "main", config, graph_store, pg_store)


GO_MODULE = {
    "go.mod": "module example.com/shop\n\ngo 1.22\n",
    "store/store.go": "package store\n\ntype Store struct{}\n\nfunc (s *Store) Save() int { return 1 }\n",
    # Another package nothing here imports: no change below reaches it.
    "tools/tidy.go": 'package tools\n\nimport "strings"\n\nfunc Tidy(v string) string { return strings.TrimSpace(v) }\n',
    "app/app.go": (
        'package app\n\nimport "example.com/shop/store"\n\n'
        "func Run(s *store.Store) int {\n\ts.Save()\n\treturn s.Count()\n}\n"
    ),
}

GO_CASES = {
    # Count appears in another file of store's package: app.go's call resolves (a package is
    # read as a whole, so store.go is resolved again too).
    "method in another file of the package": (
        {**GO_MODULE, "store/count.go": "package store\n\nfunc (s *Store) Count() int { return 2 }\n"},
        ("app.Run", "s.Count", "store.Store.Count"),
    ),
    # An interface appears that Store's methods satisfy: store.go gains IMPLEMENTS.
    "interface appears": (
        {**GO_MODULE, "ports/ports.go": "package ports\n\ntype Saver interface {\n\tSave() int\n}\n"},
        None,
    ),
}


@pytest.mark.parametrize("case", sorted(GO_CASES))
def test_a_go_change_rebinds_unchanged_files(case, repo_dir, config, graph_store, pg_store):
    after, expected_call = GO_CASES[case]
    update = _ingest_then_update(repo_dir, config, GO_MODULE, after)
    changed = {p for p in after if GO_MODULE.get(p) != after[p]}
    assert len(changed) < update.work["files_resolved"] < sum(1 for p in after if p.endswith(".go"))
    if expected_call is not None:
        assert _call_target(graph_store, repo_dir.name, *expected_call[:2]) == expected_call[2]
    assert_equals_fresh_ingest(repo_dir, "main", config, graph_store, pg_store)


JAVA_SOURCES = {
    "src/main/java/shop/Store.java": "package shop;\n\npublic class Store {\n    public int save() { return 1; }\n}\n",
    "src/main/java/shop/App.java": (
        "package shop;\n\npublic class App {\n    public int run() {\n"
        "        Store store = new Store();\n        return store.save() + store.count();\n    }\n}\n"
    ),
    "src/main/java/tools/Tidy.java": (
        "package tools;\n\npublic class Tidy {\n    public String tidy(String v) { return v.trim(); }\n}\n"
    ),
}


def test_a_java_change_rebinds_the_same_package_without_an_import(repo_dir, config, graph_store, pg_store):
    repo = init_repo(repo_dir)
    commit_files(repo, JAVA_SOURCES)
    api.ingest(repo_dir, config=config)
    store = "package shop;\n\npublic class Store {\n    public int save() { return 1; }\n    public int count() { return 2; }\n}\n"
    commit_files(repo, {**JAVA_SOURCES, "src/main/java/shop/Store.java": store})
    update = api.ingest(repo_dir, config=config)
    assert update.work["files_resolved"] == 2  # Store.java and App.java; Tidy.java is another package
    assert _call_target(graph_store, repo_dir.name, "shop.App.run", "store.count") == "shop.Store.count"
    assert_equals_fresh_ingest(repo_dir, "main", config, graph_store, pg_store)


def test_an_upgrade_resolves_every_file_again(repo_dir, config, graph_store, pg_store, monkeypatch):
    repo = init_repo(repo_dir)
    commit_files(repo, {**STORES, **UNRELATED})
    api.ingest(repo_dir, config=config)
    # Records made by other code (before an upgrade of branchgraph) describe nothing.
    monkeypatch.setattr(incremental, "resolution_version", lambda: "the next release")
    edited = {**STORES, "app.py": STORES["app.py"] + "\n\ndef idle():\n    return None\n"}
    commit_files(repo, {**edited, **UNRELATED})
    update = api.ingest(repo_dir, config=config)
    assert update.strategy == "update"
    assert update.work["files_resolved"] == len(edited) + len(UNRELATED)
    assert update.work["files_written"] == 1  # resolved the same: only the edited file is rewritten
    again = api.ingest(repo_dir, config=config)  # the records are the new code's now
    assert again.work["files_resolved"] == 0


def test_a_commit_that_changes_no_source_file_resolves_nothing(repo_dir, config, graph_store, pg_store):
    files = {**TS_PACKAGE, "README.md": "# shop\n"}
    update = _ingest_then_update(repo_dir, config, files, {**files, "README.md": "# shop, documented\n"})
    assert update.work["files_parsed"] == 0 and update.work["files_resolved"] == 0
    assert update.work["parse_cache_hits"] == 0  # not even read from the cache
    assert_equals_fresh_ingest(repo_dir, "main", config, graph_store, pg_store)


def test_a_changed_project_file_alone_is_no_unchanged_commit(repo_dir, config, graph_store, pg_store):
    files = {**TS_PACKAGE, "tsconfig.json": '{"compilerOptions": {}}'}
    update = _ingest_then_update(
        repo_dir, config, files, {**files, "tsconfig.json": '{"compilerOptions": {"baseUrl": "src"}}'}
    )
    assert update.work["files_resolved"] == sum(1 for p in files if p.endswith(".ts"))
    assert_equals_fresh_ingest(repo_dir, "main", config, graph_store, pg_store)


def test_a_lowered_size_limit_is_no_unchanged_commit(repo_dir, config, graph_store, pg_store):
    repo = init_repo(repo_dir)
    commit_files(repo, {**STORES, **UNRELATED})
    api.ingest(repo_dir, config=config)
    smaller = dataclasses.replace(config, max_file_bytes=60)  # pkg/one.py and friends are larger
    again = api.ingest(repo_dir, config=smaller)
    assert again.skipped.get("too_large", 0) > 0 and again.files < len(STORES) + len(UNRELATED)
    assert_equals_fresh_ingest(repo_dir, "main", smaller, graph_store, pg_store)
