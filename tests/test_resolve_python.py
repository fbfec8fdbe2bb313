"""Resolution of the shop fixture, without any database: exact nodes and edges."""

from __future__ import annotations

import pytest
from expected_shop import EDGES, FILES, SYMBOLS, UNRESOLVED
from graph_view import edges_of_subgraphs, resolve_sources, symbols_of_subgraphs, unresolved_of_subgraphs


def resolve(sources: dict[str, bytes], branch: str = "main", repo: str = "shop"):
    return resolve_sources(sources, repo, branch)


def calls_of(graph) -> dict[tuple[str, str], bool]:
    """(caller, callee or raw text) -> whether the CALLS edge resolved."""
    return {(a, b): ok for a, t, b, ok in edges_of_subgraphs(graph) if t == "CALLS"}


def call_lines(graph) -> dict[tuple[str, str], set[int]]:
    """(caller, callee qualname or raw text) -> the lines of its calls."""
    nodes = {n.id: n for s in graph for n in [*s.nodes, *s.unresolved]}
    lines: dict[tuple[str, str], set[int]] = {}
    for s in graph:
        for e in s.edges:
            if e.type == "CALLS":
                dst = nodes[e.dst].props
                key = (nodes[e.src].props["qualname"], dst.get("qualname") or dst["raw"])
                lines.setdefault(key, set()).update(e.lines or (e.line,))
    return lines


@pytest.fixture
def shop_graph(shop_sources):
    return resolve(shop_sources)


def test_symbols_and_files(shop_graph):
    assert symbols_of_subgraphs(shop_graph) == SYMBOLS
    files = {n.path: n.props["qualname"] for s in shop_graph for n in s.nodes if n.label == "File"}
    assert files == FILES


def test_every_edge_exactly(shop_graph):
    assert edges_of_subgraphs(shop_graph) == EDGES


def test_dangling_targets_keep_raw_and_reason(shop_graph):
    assert unresolved_of_subgraphs(shop_graph) == UNRESOLVED
    raws = {e.raw for s in shop_graph for e in s.edges if not e.resolved}
    # The edge keeps what was written; the node names the external symbol it stands for.
    assert "self.assertEqual" in raws and "decimal.Decimal(amount).quantize" in raws


def test_ids_are_deterministic_and_branch_scoped(shop_sources):
    first, again, other = resolve(shop_sources), resolve(shop_sources), resolve(shop_sources, branch="feature")
    ids = lambda graph: sorted(n.id for s in graph for n in s.nodes)  # noqa: E731
    assert ids(first) == ids(again)
    assert not set(ids(first)) & set(ids(other))


def test_tested_by_is_owned_by_the_test_file(shop_graph):
    for s in shop_graph:
        for e in s.edges:
            if e.type == "TESTED_BY":
                assert s.path.startswith("tests/")


def test_every_reference_becomes_an_edge():
    sources = {
        "pkg/__init__.py": b"",
        "pkg/a.py": b"import numpy as np\n\ndef f(x):\n    np.array(x)\n    g(x)\n    x.method()\n    (lambda: 1)()\n    (x or g)(1)\n",
    }
    graph = resolve(sources)
    calls = {(e.raw, e.resolved) for s in graph for e in s.edges if e.type == "CALLS"}
    # A lambda called where it is written is the caller's own code: no reference to anything.
    # What a choice between values calls is decided at run time.
    assert calls == {("np.array", False), ("g", False), ("x.method", False), ("(x or g)", False)}
    reasons = unresolved_of_subgraphs(graph)
    assert reasons["numpy.array"] == "external"
    assert reasons["g"] == "unresolved"
    assert reasons["(x or g)"] == "dynamic"


def test_duplicate_definitions_get_distinct_ids():
    graph = resolve({"m.py": b"if X:\n    def f():\n        pass\nelse:\n    def f():\n        pass\n"})
    functions = [n for s in graph for n in s.nodes if n.label == "Function"]
    assert len(functions) == 2 and functions[0].id != functions[1].id
    assert {n.props["qualname"] for n in functions} == {"m.f"}


def test_sibling_module_import_from_a_test_directory():
    graph = resolve(
        {
            "tests/helpers.py": b"def build():\n    return 1\n",
            "tests/test_x.py": b"from helpers import build\n\ndef test_build():\n    build()\n",
        }
    )
    assert ("tests.test_x.test_build", "CALLS", "tests.helpers.build", True) in edges_of_subgraphs(graph)
    assert ("tests.helpers.build", "TESTED_BY", "tests.test_x.test_build", True) in edges_of_subgraphs(graph)


TYPED_ATTRIBUTES = {
    "pkg/__init__.py": b"",
    "pkg/store.py": (
        b"class Store:\n    def save(self, x):\n        return x\n\n\n"
        b"class Cache:\n    def save(self, x):\n        return x\n\n\n"
        b"def build() -> Store:\n    return Store()\n\n\n"
        b"def anything():\n    return Store()\n\n\n"
        b"def either(flag):\n    if flag:\n        return Store()\n    return Cache()\n\n\n"
        b"class Client:\n    @classmethod\n    def create(cls) -> 'Self':\n        return cls()\n\n"
        b"    def send(self):\n        return 1\n\n"
        b"    @property\n    def store(self) -> Store:\n        return Store()\n"
    ),
    "pkg/app.py": b"""from dataclasses import dataclass

from .store import Cache, Client, Store, anything, build, either


@dataclass
class Settings:
    store: Store

    def load(self):
        self.store.save(1)


class App:
    settings: Settings

    def __init__(self, store: Store):
        self.store = store
        self.made = Store()
        self.either = Store()

    def other(self):
        self.either = Cache()

    def run(self):
        self.store.save(1)
        self.made.save(2)
        self.settings.load()
        build().save(3)
        self.either.save(4)
        self.unknown.save(5)
        anything().save(6)
        either(1).save(8)
        Client.create().send()
        Client().store.save(7)
""",
}


def test_types_flow_through_instance_attributes_fields_and_return_annotations():
    edges = edges_of_subgraphs(resolve(TYPED_ATTRIBUTES))
    resolved = {(src, dst) for src, kind, dst, ok in edges if kind == "CALLS" and ok}
    assert {
        ("pkg.app.Settings.load", "pkg.store.Store.save"),  # a dataclass field: `store: Store`
        ("pkg.app.App.run", "pkg.store.Store.save"),  # `self.store = store` (annotated), `= Store()`, `build()`
        ("pkg.app.App.run", "pkg.app.Settings.load"),  # an annotated class attribute
    } <= resolved
    calls = {e.raw: e.resolved for s in resolve(TYPED_ATTRIBUTES) for e in s.edges if e.type == "CALLS"}
    assert calls["self.store.save"] and calls["self.made.save"] and calls["build().save"]
    # A classmethod constructor annotated `-> Self`, and a property's annotated result.
    assert calls["Client.create().send"] and calls["Client().store.save"]
    assert ("pkg.app.App.run", "pkg.store.Client.send") in resolved
    # An unannotated function whose every return is one class: `anything()`.
    assert calls["anything().save"]
    # A guess is never an edge: two methods disagree on `self.either`, nothing says what
    # `self.unknown` holds, and `either()` returns two classes.
    assert not calls["self.either.save"] and not calls["self.unknown.save"] and not calls["either(1).save"]


def test_an_attribute_declared_as_a_library_class_holds_what_its_assignments_make():
    sources = {
        "ctx.py": (
            b"from contextlib import ExitStack\n\n\n"
            b"class Context:\n    _exit_stack: ExitStack\n    _store: 'Store'\n\n"
            b"    def __init__(self):\n        self._exit_stack = ExitStack()\n        self._store = make()\n\n"
            b"    def close(self):\n        self._exit_stack.__exit__(None, None, None)\n        self._store.save()\n\n\n"
            b"class Store:\n    def save(self):\n        pass\n\n\n"
            b"def make():\n    return object()\n"
        ),
    }
    graph = resolve(sources)
    # The declaration names no class the resolver follows, so the assignment says: the
    # library's ExitStack (before, the call dangled, and test selection matched it to every
    # in-repo `__exit__`).
    assert unresolved_of_subgraphs(graph)["contextlib.ExitStack().__exit__"] == "external"
    # An in-repo declaration still wins over what the assignment makes.
    assert ("ctx.Context.close", "CALLS", "ctx.Store.save", True) in edges_of_subgraphs(graph)


def test_a_factory_declared_to_return_a_callable_is_called_as_the_closure_it_returns():
    sources = {
        "streams.py": (
            b"import typing as t\n\n\n"
            b"def cached(src) -> t.Callable[[], int]:\n    def func():\n        return src()\n\n    return func\n\n\n"
            b"def unknown(src) -> t.Callable[[], int]:\n    return src\n\n\n"
            b"def stdout():\n    return 1\n\n\n"
            b"default_stdout = cached(stdout)\nother = unknown(stdout)\n\n\n"
            b"def echo():\n    default_stdout()\n    other()\n"
        ),
    }
    calls = calls_of(resolve(sources))
    # The annotation says only that the result is called; the returns say what it is.
    assert calls[("streams.echo", "streams.cached.func")]
    # A factory returning what it was handed gives no function of its own.
    assert not any(src == "streams.echo" and dst.startswith("streams.unknown") for src, dst in calls)


def test_a_test_parameter_is_the_value_of_the_fixture_of_that_name():
    sources = {
        "pkg/__init__.py": b"",
        "pkg/manager.py": (
            b"class Manager:\n    def register(self, x):\n        return x\n\n\n"
            b"def make():\n    if True:\n        return Manager()\n    return Manager()\n\n\n"
            b"def unsure(flag):\n    if flag:\n        return Manager()\n    return flag\n"
        ),
        "tests/conftest.py": (
            b"import pytest\n\nfrom pkg.manager import Manager, make, unsure\n\n\n"
            b"@pytest.fixture\ndef pm():\n    pm = Manager()\n    yield pm\n\n\n"
            b"@pytest.fixture(scope='module')\ndef made():\n    return make()\n\n\n"
            b"@pytest.fixture\ndef maybe():\n    return unsure(1)\n"
        ),
        "tests/unit/test_manager.py": (
            b"def test_register(pm, made, maybe):\n    pm.register(1)\n    made.register(2)\n    maybe.register(3)\n"
        ),
        "pkg/other.py": b"def not_a_test(pm):\n    pm.register(4)\n",
    }
    graph = resolve(sources)
    test_file = next(s for s in graph if s.path == "tests/unit/test_manager.py")
    calls = {e.raw: e.resolved for e in test_file.edges if e.type == "CALLS"}
    # A yield fixture and a fixture returning what an unannotated function always returns.
    assert calls["pm.register"] and calls["made.register"]
    edges = edges_of_subgraphs(graph)
    assert ("pkg.manager.Manager.register", "TESTED_BY", "tests.unit.test_manager.test_register", True) in edges
    # A function whose returns disagree has no type; fixtures exist only for tests and fixtures.
    assert not calls["maybe.register"]
    other = next(s for s in graph if s.path == "pkg/other.py")
    assert [e.resolved for e in other.edges if e.raw == "pm.register"] == [False]


def test_functions_that_return_their_own_calls_resolve_without_recursing():
    sources = {
        "m.py": (
            b"class A:\n    def go(self):\n        pass\n\n\n"
            b"def loop(n):\n    return loop(n - 1)\n\n\n"
            b"def ping(n):\n    if n:\n        return pong(n)\n    return A()\n\n\n"
            b"def pong(n):\n    return ping(n - 1)\n\n\n"
            b"def use():\n    loop(3).go()\n    ping(2).go()\n"
        )
    }
    calls = {e.raw: e.resolved for s in resolve(sources) for e in s.edges if e.type == "CALLS"}
    assert not calls["loop(3).go"]  # never returns a class
    # The cycle through pong gives no type, so ping's two returns do not agree on A.
    assert not calls["ping(2).go"]


def test_attributes_a_class_answers_through_getattr_are_dynamic():
    sources = {
        "db/__init__.py": (
            b"class ConnectionProxy:\n"
            b"    def __init__(self, name):\n        self.name = name\n\n"
            b"    def __getattr__(self, item):\n        return getattr(connect(self.name), item)\n\n"
            b"    def close(self):\n        return None\n\n\n"
            b"class Plain:\n    pass\n\n\n"
            b"def connect(name):\n    return name\n\n\n"
            b"connection = ConnectionProxy('default')\nplain = Plain()\n"
        ),
        "app.py": (
            b"from db import connection, plain\n\n\n"
            b"def work():\n    connection.close()\n    connection.cursor().execute('x')\n    plain.cursor()\n"
        ),
    }
    graph = resolve(sources)
    reasons = unresolved_of_subgraphs(graph)
    edges = calls_of(graph)
    assert edges[("app.work", "db.ConnectionProxy.close")] is True  # what it defines still resolves
    assert reasons["connection.cursor"] == "dynamic"
    assert reasons["connection.cursor().execute"] == "dynamic"  # whatever it answers, too
    assert reasons["plain.cursor"] == "unresolved"  # no __getattr__: simply not found


def test_a_partial_calls_the_function_it_wraps():
    sources = {
        "urls/__init__.py": b"",
        "urls/conf.py": (
            b"import functools\nfrom functools import partial\n\n\n"
            b"def _path(route, view, Pattern=None):\n    return route\n\n\n"
            b"path = partial(_path, Pattern='route')\nre_path = functools.partial(_path, Pattern='regex')\n"
        ),
        "app.py": b"from urls.conf import path, re_path\n\n\ndef urls():\n    return [path('a/', 1), re_path('b', 2)]\n",
    }
    edges = calls_of(resolve(sources))
    assert edges[("app.urls", "urls.conf._path")] is True


def test_members_are_found_in_c3_order_so_a_sibling_override_beats_the_shared_base():
    sources = {
        "views.py": (
            b"class View:\n    def render(self):\n        return 'base'\n\n    def setup(self):\n        return 1\n\n\n"
            b"class LoginMixin(View):\n    pass\n\n\n"
            b"class TemplateView(View):\n    def render(self):\n        return 'template'\n\n\n"
            b"class Page(LoginMixin, TemplateView):\n    def get(self):\n        self.setup()\n        return self.render()\n"
        )
    }
    edges = {pair for pair, ok in calls_of(resolve(sources)).items() if ok}
    # Depth-first would find View.render through LoginMixin; Python's MRO is Page, LoginMixin,
    # TemplateView, View.
    assert ("views.Page.get", "views.TemplateView.render") in edges
    assert ("views.Page.get", "views.View.render") not in edges
    assert ("views.Page.get", "views.View.setup") in edges


DECLARED_TYPES = {
    "pkg/__init__.py": b"",
    "pkg/hooks.py": b"""\
from __future__ import annotations

import typing_extensions as te
from typing import TYPE_CHECKING, Final, Optional


class Caller:
    def add(self, x):
        return x

    @classmethod
    def make(cls) -> te.Self:
        return cls()

    def __call__(self, name: str) -> Caller:
        return self


class Other:
    def add(self, x):
        return x


class Relay:
    if TYPE_CHECKING:

        def __getattr__(self, name: str) -> Caller: ...


class Manager:
    def __init__(self):
        self.hook: Final = Relay()

    def register(self, relay: Relay, kind: type[Caller], either: Caller | Other, many: list[Caller]):
        hook: Caller | None = getattr(relay, "x", None)
        hook.add(1)
        self.hook.anything.add(2)
        kind.make().add(3)
        kind().add(4)
        either.add(5)
        many.append(6)
        maybe: Optional["Caller"] = None
        maybe.add(7)


def build_other():
    return Other()


current: Caller = build_other()


def use():
    current.add(8)
    Caller.make()("name").add(9)
""",
    "tests/__init__.py": b"",
    "tests/test_store.py": b"""\
from pkg.hooks import Caller, Other


class StorageTests:
    storage_class = Caller

    def test_add(self):
        self.storage_class().add(1)

    def test_cls(self):
        cls = self.storage_class
        cls().add(2)
""",
}


def test_declared_types_flow_and_a_guess_stays_dangling():
    graph = resolve(DECLARED_TYPES)
    by_line = {
        (s.path, e.line): (e.resolved, e.dst)
        for s in graph
        for e in s.edges
        if e.type == "CALLS" and e.raw.endswith((".add", ".append"))
    }
    names = {n.id: n.props.get("qualname") for s in graph for n in [*s.nodes, *s.unresolved]}
    add = "pkg.hooks.Caller.add"

    def target(path: str, text: str) -> str | None:
        line = next(i for i, row in enumerate(DECLARED_TYPES[path].decode().splitlines(), 1) if text in row)
        resolved, dst = by_line[(path, line)]
        return names[dst] if resolved else None

    hooks = "pkg/hooks.py"
    assert target(hooks, "hook.add(1)") == add  # `Caller | None` on a local
    assert target(hooks, "self.hook.anything.add(2)") == add  # bare Final; typed __getattr__
    assert target(hooks, "kind.make().add(3)") == add  # type[Caller], `-> te.Self`
    assert target(hooks, "kind().add(4)") == add
    assert target(hooks, "maybe.add(7)") == add  # Optional["Caller"]
    assert target(hooks, "current.add(8)") == add  # the declaration beats the value
    assert target(hooks, 'Caller.make()("name").add(9)') == add  # an instance called: __call__
    # A union of two classes and a container are no type of their own.
    assert target(hooks, "either.add(5)") is None
    assert target(hooks, "many.append(6)") is None
    tests = "tests/test_store.py"
    assert target(tests, "self.storage_class().add(1)") == add  # a class attribute holding a class
    assert target(tests, "cls().add(2)") == add  # a local `cls` is not the enclosing class


def test_names_bound_by_with_and_for_and_a_property_with_a_setter():
    sources = {
        "app.py": b"""\
from __future__ import annotations

import contextlib
import typing as t


class Rule:
    def bind(self):
        return self


class Rules:
    def __iter__(self) -> t.Iterator[Rule]:
        return iter([])


class Builder:
    def __enter__(self) -> Builder:
        return self

    def __exit__(self, *args):
        return None

    def request(self):
        return 1

    @property
    def rule(self) -> Rule:
        return Rule()

    @rule.setter
    def rule(self, value):
        pass


@contextlib.contextmanager
def opened() -> t.Iterator[Rule]:
    yield Rule()


def rules() -> list[Rule]:
    return []


def generated():
    yield Rule()


def made():
    return Rules()


def plain():
    return Rule()


def use(b: Builder):
    with Builder() as builder:
        builder.request()
    with opened() as rule:
        rule.bind()
    for r in rules():
        r.bind()
    for g in generated():
        g.bind()
    for m in made():
        m.bind()
    for p in plain():
        p.bind()
    generated().bind()
    b.rule.bind()


class Table:
    def __init__(self, rules: list[Rule], by_name: dict[str, Rule]):
        self.order: list[Rule] = []
        self.rules = rules
        self.by_name = by_name

    def walk(self, extra: t.Sequence[Rule]):
        for o in self.order:
            o.bind()
        for x in self.rules:
            x.bind()
        for e in extra:
            e.bind()
        for n in self.by_name:
            n.bind()
""",
    }
    calls = {e.raw: e.resolved for s in resolve(sources) for e in s.edges if e.type == "CALLS"}
    assert calls["builder.request"]  # what Builder.__enter__ returns
    assert calls["rule.bind"]  # what a @contextmanager yields
    assert calls["r.bind"] and calls["g.bind"]  # an element of `-> list[Rule]`, a generator's yield
    assert calls["m.bind"]  # Rules.__iter__ -> Iterator[Rule]
    assert calls["b.rule.bind"]  # the getter's annotation, not the setter's
    # Iterating a Rule (no __iter__) and calling a generator give no Rule.
    assert not calls["p.bind"] and not calls["generated().bind"]
    # Loops over declared containers: an attribute, an attribute assigned a parameter, a parameter.
    assert calls["o.bind"] and calls["x.bind"] and calls["e.bind"]
    assert not calls["n.bind"]  # a dict's keys are no Rule


def test_a_project_inside_the_repository_imports_its_own_packages():
    sources = {
        "scripts/typing.py": b"def cast():\n    return 1\n",
        "examples/tutorial/flaskr/__init__.py": b"def create_app():\n    return 1\n",
        "examples/tutorial/flaskr/db.py": b"def get_db():\n    return 1\n",
        "examples/tutorial/tests/test_db.py": (
            b"import flaskr.db\nfrom flaskr import create_app\nfrom flaskr.db import get_db\n\n\n"
            b"def test_db():\n    create_app()\n    get_db()\n    flaskr.db.get_db()\n"
        ),
        "scripts/tools/use.py": b"import typing\n\n\ndef use():\n    typing.cast(int, 1)\n",
    }
    edges = calls_of(resolve(sources))
    test = "examples.tutorial.tests.test_db.test_db"
    assert edges[(test, "examples.tutorial.flaskr.create_app")] is True
    assert edges[(test, "examples.tutorial.flaskr.db.get_db")] is True
    # The standard library's name is never a module found up the tree.
    assert edges[("scripts.tools.use.use", "typing.cast")] is False


def test_a_function_decorated_with_a_wraps_wrapper_is_still_the_function_called():
    sources = {
        "m.py": b"""\
import functools


def logged(f):
    @functools.wraps(f)
    def wrapper(*args, **kwargs):
        return f(*args, **kwargs)

    return wrapper


class Store:
    def save(self):
        return None


@logged
def build() -> Store:
    return Store()


def use():
    build().save()
""",
    }
    edges = calls_of(resolve(sources))
    assert edges[("m.use", "m.build")] is True  # not the wrapper
    assert edges[("m.use", "m.Store.save")] is True  # and its annotation still types the result


def test_a_local_assigned_twice_holds_at_each_use_what_its_last_assignment_made():
    sources = {
        "ops.py": (
            b"class AddField:\n    def forwards(self):\n        return 1\n\n\n"
            b"class RemoveField:\n    def forwards(self):\n        return 2\n\n\n"
            b"def run():\n    op = AddField()\n    op.forwards()\n    op = RemoveField()\n    op.forwards()\n"
            b"    same = AddField()\n    same = AddField()\n    same.forwards()\n"
        )
    }
    calls = calls_of(resolve(sources))
    # Straight-line code: each use follows the assignment before it (a branch that may or may
    # not have run is a guess: see the test of what a binding surely holds).
    assert calls[("ops.run", "ops.AddField.forwards")] is True
    assert calls[("ops.run", "ops.RemoveField.forwards")] is True
    assert ("ops.run", "op.forwards") not in calls


def test_what_a_library_or_a_proxy_gives_is_theirs_not_unresolved():
    sources = {
        "db.py": (
            b"class ConnectionProxy:\n    def __getattr__(self, item):\n        return item\n\n\n"
            b"connection = ConnectionProxy()\n"
        ),
        "app.py": (
            b"from io import StringIO\n\nfrom db import connection\n\n\n"
            b"def work(rows):\n    out = StringIO()\n    out.getvalue()\n"
            b"    with open('x') as handle:\n        handle.read()\n"
            b"    with connection.cursor() as cursor:\n        cursor.execute('select 1')\n"
            b"    for row in sorted(rows):\n        row.strip()\n    unknown.thing()\n"
            b"    errors = []\n    errors.append(1)\n\n\n"
            b"def options(*args, **kwargs):\n    kwargs.get('x')\n    args.count(1)\n\n\n"
            b"def typed(*rest: int, **opts: str):\n    opts.pop('y')\n    rest.index(2)\n"
        ),
    }
    reasons = unresolved_of_subgraphs(resolve(sources))
    assert reasons["io.StringIO().getvalue"] == "external"
    assert reasons["open().__enter__().read"] == "external"
    # sorted() gives back what it was given: its elements are not known, not the library's.
    assert reasons["row.strip"] == "unresolved"
    assert reasons["cursor.execute"] == "dynamic"  # what a proxy answers is decided at run time
    assert reasons["unknown.thing"] == "unresolved"
    # A literal's, `*args`' and `**kwargs`' methods are the builtins'.
    assert reasons["list.append"] == reasons["dict.get"] == reasons["tuple.count"] == "external"
    # Annotated, they still are: the annotation types each element.
    assert reasons["dict.pop"] == reasons["tuple.index"] == "external"


def test_attributes_an_in_repo_metaclass_may_add_are_dynamic():
    sources = {
        "orm.py": (
            b"import abc\n\n\nclass ModelBase(type):\n    def __new__(cls, name, bases, attrs):\n"
            b"        return super().__new__(cls, name, bases, attrs)\n\n\n"
            b"class Model(metaclass=ModelBase):\n    def save(self):\n        return 1\n\n\n"
            b"class Author(Model):\n    pass\n\n\n"
            b"class Shape(metaclass=abc.ABCMeta):\n    pass\n\n\n"
            b"def use():\n    Author.objects.create()\n    Author().save()\n    Shape.objects.create()\n"
        )
    }
    graph = resolve(sources)
    reasons = unresolved_of_subgraphs(graph)
    assert reasons["Author.objects.create"] == "dynamic"  # ModelBase may have added `objects`
    assert reasons["Shape.objects.create"] == "unresolved"  # a library's metaclass says nothing
    edges = calls_of(graph)
    assert edges[("orm.use", "orm.Model.save")] is True  # what the classes define still resolves


def test_a_mixins_self_attribute_is_what_every_subclass_agrees_on():
    sources = {
        "checks.py": (
            b"import unittest\n\n\nclass AssertsMixin:\n    def check(self):\n        self.assertEqual(1, 1)\n"
            b"        self.helper()\n        self.own()\n\n\n"
            b"class First(AssertsMixin, unittest.TestCase):\n    def helper(self):\n        return 1\n\n"
            b"    def own(self):\n        return 1\n\n\n"
            b"class Second(AssertsMixin, unittest.TestCase):\n    def helper(self):\n        return 2\n"
        )
    }
    reasons = unresolved_of_subgraphs(resolve(sources))
    # Both subclasses get assertEqual from unittest; they disagree on helper; only one has own.
    assert reasons["unittest.TestCase.assertEqual"] == "external"
    assert reasons["self.helper"] == "unresolved" and reasons["self.own"] == "unresolved"


def test_an_untyped_parameter_shadows_and_calling_it_is_dynamic():
    sources = {
        "deco.py": (
            b"def f():\n    return 1\n\n\n"
            b"def wrap(f, handler):\n    old_f = f\n\n    def f():\n        return old_f()\n\n    handler()\n    return f\n"
        )
    }
    graph = resolve(sources)
    edges = {pair for pair, ok in calls_of(graph).items() if ok}
    # `old_f` is the parameter or the nested def: a guess, so no edge to either f.
    assert not {e for e in edges if e[0].startswith("deco.wrap")}
    assert unresolved_of_subgraphs(graph)["handler"] == "dynamic"  # runs what the caller passed


def test_a_factory_returning_a_function_calls_that_function():
    sources = {
        "functional.py": (
            b"def lazy(func, *classes):\n    def __wrapper__(*args):\n        return func(*args)\n\n    return __wrapper__\n\n\n"
            b"def gettext(message):\n    return message\n\n\n"
            b"gettext_lazy = lazy(gettext, str)\n"
        ),
        "forms.py": b"from functional import gettext_lazy as _\n\n\ndef label():\n    return _('Name')\n",
    }
    edges = calls_of(resolve(sources))
    assert edges[("forms.label", "functional.lazy.__wrapper__")] is True


def test_calling_an_instance_calls_its_classs_call_method():
    sources = {
        "markers.py": (
            b"class Marker:\n    def __call__(self, function=None, **options):\n        return function\n\n\n"
            b"class Quiet(Marker):\n    pass\n\n\n"
            b"class Plain:\n    pass\n"
        ),
        "tests/test_plugin.py": (
            b"from markers import Marker, Plain, Quiet\n\nhookimpl = Marker()\n\n\n"
            b"def test_plugin():\n    quiet = Quiet()\n    plain = Plain()\n"
            b"    hookimpl(print, tryfirst=True)\n    quiet(print)\n    plain()\n"
        ),
    }
    graph = resolve(sources)
    edges = calls_of(graph)
    assert edges[("tests.test_plugin.test_plugin", "markers.Marker.__call__")] is True
    assert call_lines(graph)[("tests.test_plugin.test_plugin", "markers.Marker.__call__")] == {9, 10}  # inherited too
    # A class without `__call__` has nothing to run: the call stays as written, dangling.
    assert edges[("tests.test_plugin.test_plugin", "plain")] is False


def test_a_subscripted_class_is_the_class_and_an_item_of_anything_else_is_not_followed():
    sources = {
        "config.py": b"class Attribute:\n    def __init__(self, name):\n        self.name = name\n\n    def get(self):\n        return 1\n",
        "app.py": (
            b"from config import Attribute\n\n\n"
            b"class App:\n    testing = Attribute[bool]('TESTING')\n\n"
            b"    def run(self, handlers):\n        key = Attribute[str]('KEY')\n        key.get()\n"
            b"        handlers['x']()\n        self.tags: dict[str, Attribute] = {}\n        self.tags[key].check()\n"
        ),
    }
    graph = resolve(sources)
    edges = calls_of(graph)
    assert edges[("app.App", "config.Attribute")] is True  # a class body's generic construction
    assert edges[("app.App.run", "config.Attribute")] is True
    assert edges[("app.App.run", "config.Attribute.get")] is True  # and what it makes
    # An item of anything else may be any in-repo object (a registry's): called, what it runs
    # is decided at run time (dynamic, not a library's, so the test walk still goes through
    # it); a method looked up on it is a name on an unknown value, unresolved.
    reasons = unresolved_of_subgraphs(graph)
    assert edges[("app.App.run", "handlers['x']")] is False and reasons["handlers['x']"] == "dynamic"
    assert reasons["self.tags[key].check"] == "unresolved"


def test_a_class_made_by_type_is_dynamic_and_a_returned_library_value_is_the_librarys():
    sources = {
        "forms.py": (
            b"import sqlite3\n\n\nclass BaseFormSet:\n    pass\n\n\n"
            b"def formset_factory(form):\n    return type(form + 'FormSet', (BaseFormSet,), {})\n\n\n"
            b"def connect():\n    return sqlite3.connect(':memory:')\n\n\n"
            b"def use():\n    FormSet = formset_factory('Article')\n    FormSet().is_valid()\n    connect().cursor()\n"
        )
    }
    reasons = unresolved_of_subgraphs(resolve(sources))
    assert reasons["FormSet().is_valid"] == "dynamic"
    assert reasons["sqlite3.connect().cursor"] == "external"


def test_a_chain_of_calls_follows_every_call_in_turn():
    sources = {
        "shop.py": (
            b"class Line:\n    def total(self):\n        return 1\n\n\n"
            b"class Invoice:\n    def line(self) -> Line:\n        return Line()\n\n"
            b"    def total(self):\n        return 2\n\n\n"
            b"def invoice() -> Invoice:\n    return Invoice()\n\n\n"
            b"def work():\n"
            b"    invoice().line().total()\n"  # Line.total, not Invoice.total: every call counts
            b"    invoice().line(\n        ).total()\n"  # a chain written over lines
            b"    invoice()[0].total()\n"  # a subscript: unknown
        ),
    }
    graph = resolve(sources)
    calls = calls_of(graph)
    assert calls[("shop.work", "shop.Line.total")] is True
    assert ("shop.work", "shop.Invoice.total") not in calls
    assert unresolved_of_subgraphs(graph)["invoice()[0].total"] == "unresolved"


def test_a_class_built_from_a_call_answers_its_missing_members_at_run_time():
    sources = {
        "managers.py": (
            b"class QuerySet:\n    def filter(self):\n        return self\n\n\n"
            b"class BaseManager:\n"
            b"    @classmethod\n    def from_queryset(cls, queryset_class):\n"
            b"        return type('Manager', (cls,), {})\n\n"
            b"    def check(self):\n        return []\n\n\n"
            b"class Manager(BaseManager.from_queryset(QuerySet)):\n    def own(self):\n        return 1\n\n\n"
            b"class Plain(BaseManager):\n    pass\n\n\n"
            b"def work(objects: Manager, plain: Plain):\n"
            b"    objects.own()\n    objects.filter()\n    plain.filter()\n"
        ),
    }
    graph = resolve(sources)
    reasons = unresolved_of_subgraphs(graph)
    assert calls_of(graph)[("managers.work", "managers.Manager.own")] is True
    assert reasons["objects.filter"] == "dynamic"  # a member of the class type() made, maybe
    assert reasons["plain.filter"] == "unresolved"  # its bases are all known: simply not found


def test_super_with_arguments_starts_after_the_class_it_names():
    sources = {
        "views.py": (
            b"class Base:\n    def setup(self):\n        return 0\n\n\n"
            b"class Middle(Base):\n    def setup(self):\n        return 1\n\n\n"
            b"class Leaf(Middle):\n    def setup(self):\n"
            b"        super().setup()\n        super(Middle, self).setup()\n"
        ),
    }
    calls = calls_of(resolve(sources))
    assert calls[("views.Leaf.setup", "views.Middle.setup")] is True  # super(): the next class
    assert calls[("views.Leaf.setup", "views.Base.setup")] is True  # super(Middle, self): after Middle


def test_super_follows_the_method_resolution_order_of_a_diamond():
    sources = {
        "shapes.py": (
            b"class Root:\n    def draw(self):\n        return 0\n\n\n"
            b"class Left(Root):\n    pass\n\n\n"
            b"class Right(Root):\n    def draw(self):\n        return 2\n\n\n"
            b"class Both(Left, Right):\n    def draw(self):\n        return super().draw()\n"
        ),
    }
    calls = calls_of(resolve(sources))
    # Both, Left, Right, Root: Right's draw comes before the shared base's.
    assert calls[("shapes.Both.draw", "shapes.Right.draw")] is True
    assert ("shapes.Both.draw", "shapes.Root.draw") not in calls


def test_a_function_or_class_named_as_a_value_is_referenced_by_what_holds_it():
    sources = {
        "lib/__init__.py": b"",
        "lib/formats.py": (
            b"def iso(value):\n    return str(value)\n\n\n"
            b"def rfc(value):\n    return str(value)\n\n\n"
            b"class Field:\n    FORMATS = {'iso': iso, 'plain': str}\n\n"
            b"    def format(self, value):\n        return self.FORMATS['iso'](value)\n\n"
            b"    def check(self, value):\n        return isinstance(value, Field)\n\n\n"
            b"class Text(Field):\n    pass\n\n\nPlain = Text\n"
        ),
        "lib/meta.py": (
            b"class Registry(type):\n    def __new__(mcs, name, bases, attrs):\n"
            b"        return super().__new__(mcs, name, bases, attrs)\n\n\n"
            b"class Model(metaclass=Registry):\n    pass\n"
        ),
        "tests/__init__.py": b"",
        "tests/cases.py": b"from lib import formats\n\nALL_FIELDS = [formats.Text, formats.Plain, formats.Field]\n",
        "tests/test_formats.py": (
            b"import pytest\n\nfrom lib.formats import rfc\nfrom tests.cases import ALL_FIELDS\n\n\n"
            b"@pytest.mark.parametrize('cls', ALL_FIELDS)\ndef test_each(cls):\n    assert cls()\n\n\n"
            b"def test_sorted():\n    value = 1\n    assert sorted([value], key=rfc)\n"
        ),
    }
    edges = edges_of_subgraphs(resolve(sources))
    references = {(a, b) for a, t, b, ok in edges if t == "REFERENCES"}
    assert references == {
        # A table of handlers in a class body: the class hands `iso` on; `str` is no symbol.
        ("lib.formats.Field", "lib.formats.iso"),
        # A keyword argument (a callback); a local variable is no symbol, so no edge.
        ("tests.test_formats.test_sorted", "lib.formats.rfc"),
        # A name bound to a module's list stands for its elements, an alias for what it holds;
        # a decorator is evaluated by the scope around the test (its lines tell which test).
        ("tests.test_formats", "lib.formats.Text"),
        ("tests.test_formats", "lib.formats.Field"),
        # The list's own module holds them too.
        ("tests.cases", "lib.formats.Text"),
        ("tests.cases", "lib.formats.Field"),
    }
    # `isinstance(value, Field)` tests a type: nothing is handed on. Making a class calls its
    # in-repo metaclass.
    assert ("lib.meta.Model", "CALLS", "lib.meta.Registry", True) in edges


def test_a_value_is_looked_up_only_where_the_file_may_bind_a_symbol_by_it():
    sources = {
        "app/__init__.py": b"",
        "app/models.py": (
            b"class Response:\n    @property\n    def content(self):\n        return b''\n\n\n"
            b"def make() -> Response:\n    return Response()\n\n\n"
            b"def logged(f):\n    def wrapper():\n        return f()\n\n    return wrapper\n\n\n"
            b"def handler():\n    return 1\n"
        ),
        "app/star.py": b"from app.models import *\n\n\ndef use(register):\n    register(handler)\n",
        "app/views.py": (
            b"from app.models import handler, logged, make\n\n\n"
            b"def view(request, register):\n    response = make()\n    wrapped = logged(handler)\n"
            b"    items = []\n    register(request, items, response.content, wrapped, len)\n"
        ),
    }
    references = {(a, b) for a, t, b, _ in edges_of_subgraphs(resolve(sources)) if t == "REFERENCES"}
    assert references == {
        ("app.star.use", "app.models.handler"),  # a star import may bind any name
        ("app.views.view", "app.models.handler"),  # handed to the decorator
        # A property read on a local made by a call is its getter; what the decorator returned
        # is its wrapper. The parameter, the literal and the builtin are no symbols.
        ("app.views.view", "app.models.Response.content"),
        ("app.views.view", "app.models.logged.wrapper"),
    }


def test_a_star_import_hands_on_what_the_module_binds_not_its_unimported_submodules():
    # django.contrib.gis.db.models star-imports django.db.models, whose package has a
    # `functions` submodule it never imports; its own `functions` submodule is what
    # `from django.contrib.gis.db.models import functions` gets.
    sources = {
        "core/__init__.py": b"from core.fields import Field\n",
        "core/fields.py": b"class Field:\n    pass\n",
        "core/functions/__init__.py": b"class Sum:\n    pass\n",
        "gis/__init__.py": b"from core import *\nimport gis.functions\n",
        "gis/functions.py": b"class Union:\n    pass\n",
        "app.py": (b"from gis import Field, functions\n\n\ndef query():\n    functions.Union()\n    Field()\n"),
    }
    calls = calls_of(resolve(sources))
    assert calls[("app.query", "gis.functions.Union")] is True
    assert calls[("app.query", "core.fields.Field")] is True  # what the star import does bind


def test_a_classmethod_sets_class_attributes_and_a_class_body_can_rebind_a_module_name():
    sources = {
        "engine.py": b"class Engine:\n    def from_string(self, text):\n        return text\n",
        "tests/test_render.py": (
            b"import unittest\n\nfrom engine import Engine\n\n\n"
            b"def hashed(test, path):\n    return path\n\n\n"
            b"class RenderTests(unittest.TestCase):\n"
            b"    hashed = hashed\n\n"
            b"    @classmethod\n    def setUpClass(cls):\n        cls.engine = Engine()\n\n"
            b"    def test_render(self):\n        self.engine.from_string('x')\n        self.hashed('p')\n"
        ),
    }
    calls = calls_of(resolve(sources))
    assert calls[("tests.test_render.RenderTests.test_render", "engine.Engine.from_string")] is True
    assert calls[("tests.test_render.RenderTests.test_render", "tests.test_render.hashed")] is True


def test_a_definition_below_an_import_of_its_name_is_what_the_module_holds():
    sources = {
        "lookups.py": b"class Transform:\n    pass\n",
        "functions.py": b"from lookups import Transform\n\n\nclass Transform(Transform):\n    pass\n",
        "app.py": b"import functions\n\n\ndef query():\n    functions.Transform()\n",
    }
    graph = resolve(sources)
    calls = calls_of(graph)
    assert calls[("app.query", "functions.Transform")] is True
    assert ("app.query", "lookups.Transform") not in calls
    # The class's base is the import it replaces, not itself.
    bases = {(a, b) for a, t, b, _ in edges_of_subgraphs(graph) if t == "INHERITS_FROM"}
    assert bases == {("functions.Transform", "lookups.Transform")}


def test_a_base_attribute_made_from_what_a_subclass_overrides_is_read_on_the_subclass():
    sources = {
        "engines.py": (
            b"class Strings:\n    def render(self):\n        return ''\n\n\n"
            b"class Jinja:\n    def render(self):\n        return ''\n"
        ),
        "tests/test_engines.py": (
            b"import unittest\n\nfrom engines import Jinja, Strings\n\n\n"
            b"class BaseTests(unittest.TestCase):\n    engine_class = None\n\n"
            b"    def setUp(self):\n        self.reloader = self.engine_class()\n\n\n"
            b"class StringsTests(BaseTests):\n    engine_class = Strings\n\n"
            b"    @classmethod\n    def setUpClass(cls):\n        cls.engine = cls.engine_class()\n\n"
            b"    def test_strings(self):\n        self.engine.render()\n        self.reloader.render()\n\n\n"
            b"class JinjaTests(StringsTests):\n    engine_class = Jinja\n\n"
            b"    def test_jinja(self):\n        self.engine.render()\n"
        ),
    }
    lines = call_lines(resolve(sources))
    # The subclass's engine is made from the subclass's engine_class, and so is what a base that
    # holds no class there (`engine_class = None`) makes.
    assert lines[("tests.test_engines.StringsTests.test_strings", "engines.Strings.render")] == {21, 22}
    assert lines[("tests.test_engines.JinjaTests.test_jinja", "engines.Jinja.render")] == {29}
    assert ("tests.test_engines.JinjaTests.test_jinja", "engines.Strings.render") not in lines


def test_a_local_bound_more_than_once_is_what_its_last_binding_surely_holds():
    sources = {
        "shapes.py": (
            b"class A:\n    def go(self):\n        return 1\n\n    def copy(self):\n        return B()\n\n\n"
            b"class B:\n    def go(self):\n        return 2\n\n\n"
            b"class C:\n    def go(self):\n        return 3\n"
        ),
        "use.py": (
            b"from shapes import A, B, C\n\n\n"
            b"def straight(flag):\n"
            b"    x = A()\n    x.go()\n"  # A: the only binding so far
            b"    x = x.copy()\n    x.go()\n"  # B: the copy's result
            b"    if flag:\n        x = C()\n        x.go()\n"  # C, inside the branch
            b"    x.go()\n"  # B or C: no guess
            b"\n\n"
            b"def looped(items):\n"
            b"    y = A()\n"
            b"    for item in items:\n        y.go()\n        y = B()\n"  # A, or B from the last round
        ),
    }
    lines = call_lines(resolve(sources))
    assert lines[("use.straight", "shapes.A.go")] == {6}
    assert lines[("use.straight", "shapes.B.go")] == {8}
    assert lines[("use.straight", "shapes.C.go")] == {11}
    assert lines[("use.straight", "x.go")] == {12}
    assert lines[("use.looped", "y.go")] == {18}
    assert ("use.looped", "shapes.A.go") not in lines


def test_a_caught_exception_a_cast_and_a_comprehension_target_hold_what_they_say():
    sources = {
        "errors.py": (
            b"class UsageError(Exception):\n    def show(self):\n        return 1\n\n\n"
            b"class Abort(Exception):\n    def show(self):\n        return 2\n"
        ),
        "params.py": (
            b"import typing as t\nfrom typing import cast\n\n\n"
            b"class Param:\n    def info(self):\n        return {}\n\n\n"
            b"class Node:\n    def children(self) -> t.List['Node']:\n        return []\n\n"
            b"    def walk(self):\n        return [node.walk() for node in self.children()]\n\n\n"
            b"def params() -> t.List[Param]:\n    return []\n"
        ),
        "use.py": (
            b"import typing as t\nfrom typing import cast\n\nfrom errors import Abort, UsageError\n"
            b"from params import Node, Param, params\n\n\n"
            b"def run(job):\n"
            b"    try:\n        job()\n"
            b"    except UsageError as e:\n        e.show()\n"  # 12: UsageError's
            b"    except Abort as e:\n        e.show()\n"  # 14: Abort's, the same name caught again
            b"    except (KeyError, ValueError) as e:\n        e.show()\n"  # 16: either: no guess
            b"\n\n"
            b"def described(value):\n"
            b"    param = t.cast(Param, value)\n    param.info()\n"  # 21
            b"    node = cast('Node', value)\n    node.walk()\n"  # 23: a forward reference
            b"    return [\n        p.info()\n        for p in params()\n    ]\n"  # 25: before its binding's line
            b"\n\n"
            b"def nodes(node: Node):\n"
            b"    return [node.walk() for node in node.children()]\n"  # 31: the children, read before
        ),
    }
    lines = call_lines(resolve(sources))
    assert lines[("use.run", "errors.UsageError.show")] == {12}
    assert lines[("use.run", "errors.Abort.show")] == {14}
    assert lines[("use.run", "e.show")] == {16}
    assert lines[("use.described", "params.Param.info")] == {21, 25}
    assert lines[("use.described", "params.Node.walk")] == {23}
    assert lines[("use.nodes", "params.Node.walk")] == {31}
    assert lines[("use.nodes", "params.Node.children")] == {31}
    assert lines[("params.Node.walk", "params.Node.walk")] == {15}


def test_a_decorated_function_has_the_attributes_of_what_its_decorator_makes_of_it():
    sources = {
        "cli/__init__.py": b"",
        "cli/core.py": (
            b"import typing as t\n\n\n"
            b"class Command:\n    def main(self):\n        return 0\n\n\n"
            b"class Group(Command):\n"
            b"    def command(self, *args) -> t.Union[t.Callable[[t.Callable[..., t.Any]], Command], Command]:\n"
            b"        return Command()\n\n"
            b"    def group(self, *args) -> t.Callable[[t.Callable[..., t.Any]], 'Group']:\n"
            b"        return Group\n\n\n"
            b"GroupType = t.TypeVar('GroupType', bound=Group)\n\n\n"
            b"def group(name=None, cls=None) -> t.Union[Group, t.Callable[[t.Callable], t.Union[Group, GroupType]]]:\n"
            b"    return Group()\n\n\n"
            b"class cached:\n    def __init__(self, f):\n        self.f = f\n\n"
            b"    def __get__(self, obj, owner):\n        return 1\n\n\n"
            b"class Registry:\n    def __init__(self, f):\n        self.f = f\n\n"
            b"    def register(self):\n        return self\n"
        ),
        "tests/test_cli.py": (
            b"from cli.core import Registry, cached, group\n\n\n"
            b"@group()\ndef cli():\n    pass\n\n\n"
            b"@cli.command('sync')\ndef sync():\n    pass\n\n\n"  # 9
            b"@cli.group()\ndef nested():\n    pass\n\n\n"  # 14
            b"@nested.command\ndef leaf():\n    pass\n\n\n"  # 19
            b"@Registry\ndef registered():\n    pass\n\n\n"
            b"class Holder:\n    @cached\n    def value(self):\n        return 1\n\n\n"
            b"def test_cli():\n"
            b"    cli.main()\n    sync.main()\n    leaf.main()\n"  # 36-38
            b"    registered.register()\n"  # 39
            b"    Holder().value.register()\n"  # 40: a descriptor gives what it gets, not itself
            b"    cli()\n"  # 41: calling the function still calls it
        ),
    }
    lines = call_lines(resolve(sources))
    assert lines[("tests.test_cli", "cli.core.Group.command")] == {9, 19}
    assert lines[("tests.test_cli", "cli.core.Group.group")] == {14}
    assert lines[("tests.test_cli.test_cli", "cli.core.Command.main")] == {36, 37, 38}
    assert lines[("tests.test_cli.test_cli", "cli.core.Registry.register")] == {39}
    assert ("tests.test_cli.test_cli", "Holder().value.register") in lines
    assert lines[("tests.test_cli.test_cli", "tests.test_cli.cli")] == {41}


def test_a_conditional_value_holds_what_both_branches_agree_on_and_a_module_importing_itself_changes_nothing():
    sources = {
        "console.py": (
            b"import typing as t\n\n\n"
            b"class Console:\n    def line(self):\n        return 1\n\n\n"
            b"def get_console() -> Console:\n    return Console()\n\n\n"
            b"class Live:\n"
            b"    def __init__(self, console: t.Optional[Console] = None, other=None):\n"
            b"        self.console = console if console is not None else get_console()\n"
            b"        self.other = Console() if other else other.pick()\n\n"  # 16: a guess
            b"    def stop(self):\n        self.console.line()\n        self.other.line()\n\n\n"  # 19, 20
            b"def pick(flag, given):\n"
            b"    c = Console() if flag else None\n    c.line()\n"  # 25: None adds nothing
            b"    e = Console() if flag else given[0]\n    e.line()\n"  # 27: a subscript says nothing
            b"    d = Console()\n    d = get_console() if flag else Console()\n    d.line()\n"  # 30: both agree
            b"\n\n"
            b"if __name__ == '__main__':\n    from console import Console as Console\n"
        ),
        "use.py": b"from console import Console\n\n\ndef run():\n    Console().line()\n",
    }
    lines = call_lines(resolve(sources))
    assert lines[("console.Live.stop", "console.Console.line")] == {19}
    assert lines[("console.Live.stop", "self.other.line")] == {20}
    assert lines[("console.pick", "console.Console.line")] == {25, 30}
    assert lines[("console.pick", "e.line")] == {27}
    assert lines[("use.run", "console.Console.line")] == {5}


def test_what_a_type_checking_block_declares_is_what_annotations_name_and_disagreeing_instances_share_methods():
    sources = {
        "app/__init__.py": b"",
        "app/client.py": (
            b"class Response:\n    def set_cookie(self):\n        return 1\n\n\n"
            b"class Redirect(Response):\n    pass\n\n\n"
            b"class Plain(Response):\n    def render(self):\n        return 2\n\n\n"
            b"class TestClient:\n    def get(self, url):\n        return Redirect() if url else Plain()\n"
        ),
        "tests/__init__.py": b"",
        "tests/types.py": (
            b"from typing import TYPE_CHECKING, Protocol\n\nfrom app.client import TestClient\n\n"
            b"if TYPE_CHECKING:\n\n"
            b"    class Factory(Protocol):\n        def __call__(self, app) -> TestClient: ...\n"
            b"else:\n\n"
            b"    class Factory:\n        __test__ = False\n"
        ),
        "tests/test_client.py": (
            b"from app.client import Plain, Redirect\nfrom tests.types import Factory\n\n\n"
            b"def test_get(factory: Factory, flag):\n"
            b"    client = factory(object())\n    response = client.get('/')\n"  # 7
            b"    response.set_cookie()\n    response.render()\n"  # 8: both inherit it; 9: only one has it
            b"    either = Redirect() if flag else Plain()\n    either.set_cookie()\n"  # 11
        ),
    }
    lines = call_lines(resolve(sources))
    assert lines[("tests.test_client.test_get", "app.client.TestClient.get")] == {7}
    assert lines[("tests.test_client.test_get", "app.client.Response.set_cookie")] == {8, 11}
    assert lines[("tests.test_client.test_get", "response.render")] == {9}


def test_an_isinstance_test_says_what_its_subject_is_where_the_test_holds():
    sources = {
        "text.py": (
            b"class Text:\n    def copy(self):\n        return Text()\n\n\n"
            b"class Markup(Text):\n    def parse(self):\n        return 1\n"
        ),
        "use.py": (
            b"from text import Markup, Text\n\n\n"
            b"def show(value, other, shown):\n"
            b"    if isinstance(value, Text):\n        value.copy()\n"  # 6: a Text there
            b"    elif isinstance(value, (Markup, str)) and other:\n        value.parse()\n"  # 8: str has no parse
            b"    value.copy()\n"  # 9: the test holds no more
            b"    assert isinstance(other, Markup)\n    other.parse()\n"  # 11
            b"    if not isinstance(shown, Text):\n        return None\n    shown.copy()\n"  # 14: after an early exit
            b"    if isinstance(shown, Markup):\n        shown = value\n        shown.parse()\n"  # 17: bound again
            b"\n\n"
            b"class Panel:\n    def __init__(self, title):\n        self.title = title\n\n"
            b"    def render(self):\n"
            b"        if isinstance(self.title, Markup):\n            return self.title.parse()\n"  # 26
            b"        return self.title.copy()\n"  # 27: unknown outside the test
        ),
    }
    lines = call_lines(resolve(sources))
    assert lines[("use.show", "text.Text.copy")] == {6, 14}
    assert lines[("use.show", "text.Markup.parse")] == {8, 11}
    assert lines[("use.show", "value.copy")] == {9}
    assert lines[("use.show", "shown.parse")] == {17}
    assert lines[("use.Panel.render", "text.Markup.parse")] == {26}
    assert lines[("use.Panel.render", "self.title.copy")] == {27}


def test_a_type_alias_a_union_with_a_builtin_and_an_or_hold_what_they_say():
    sources = {
        "text.py": (
            b"from typing import Optional, TypeAlias, Union\n\n\n"
            b"class Text:\n    def copy(self):\n        return Text()\n\n\n"
            b"class Markup(Text):\n    pass\n\n\n"
            b'TextType = Union[str, "Text"]\nMaybeText: TypeAlias = "Optional[TextType]"\n'
        ),
        "use.py": (
            b"from text import Markup, MaybeText, Text, TextType\n\n\n"
            b"def titled(title: TextType, subtitle: MaybeText, fallback: Text | None = None):\n"
            b"    title.copy()\n"  # 5: a str has no copy: the Text's
            b"    title.upper()\n"  # 6: a str's or a Text's: no guess
            b"    subtitle.copy()\n"  # 7: an alias of an alias
            b"    chosen = fallback or Markup()\n    chosen.copy()\n"  # 9: Text's, inherited by Markup
            b"    picked = (\n        Markup()\n        if fallback\n        else fallback\n    )\n    picked.copy()\n"  # 15
        ),
    }
    lines = call_lines(resolve(sources))
    assert lines[("use.titled", "text.Text.copy")] == {5, 7, 9, 15}
    assert lines[("use.titled", "title.upper")] == {6}


def test_an_annotation_naming_a_type_alias_types_the_classes_the_alias_names():
    sources = {
        "asgi_types.py": (
            b"import sys\nfrom typing import TYPE_CHECKING, Awaitable, Callable, Literal, TypeAlias, TypedDict, Union\n\n\n"
            b"class HTTPScope(TypedDict):\n    path: str\n\n\n"
            b"class LifespanScope(TypedDict):\n    state: dict\n\n\n"
            b"Scope = Union[HTTPScope, LifespanScope]\n"
            b"Receive = Callable[[], Awaitable[Scope]]\n"  # library types around an alias: its classes
            b"Send = Callable[[dict], Awaitable[None]]\n"  # library types alone: the library's
            b'Kind = Literal["http", "lifespan"]\n'
            b'if TYPE_CHECKING:\n    Factory: TypeAlias = "type[HTTPScope]"\nelse:\n    Factory = type\n'
        ),
        "app.py": (
            b"from typing import Annotated\n\nfrom asgi_types import Factory, Kind, Receive, Scope, Send\n\n\n"
            b"def serve(scope: Scope, receive: Receive, send: Send, kind: Kind, make: Factory) -> Scope:\n"
            b'    return scope\n\n\ndef sized(n: Annotated[int, Doc("bytes")]):\n    pass\n'
        ),
    }
    graph = resolve(sources)
    types = {(a, t, b, ok) for a, t, b, ok in edges_of_subgraphs(graph) if t in ("PARAM_TYPE", "RETURNS_TYPE")}
    for edge_type in ("PARAM_TYPE", "RETURNS_TYPE"):
        for scope in ("asgi_types.HTTPScope", "asgi_types.LifespanScope"):
            assert ("app.serve", edge_type, scope, True) in types
    assert ("app.serve", "PARAM_TYPE", "asgi_types.HTTPScope", True) in types  # through Receive and Factory too
    dangling = {e.raw: e for s in graph for e in s.edges if e.type == "PARAM_TYPE" and not e.resolved}
    nodes = {n.id: n.props for s in graph for n in s.unresolved}
    # An alias of library types is external, not unresolved; a Literal's values and an
    # Annotated's metadata are no types at all.
    assert nodes[dangling["Send"].dst]["reason"] == "external"
    assert nodes[dangling["Kind"].dst]["reason"] == "external"
    assert not {"http", "lifespan", "bytes", "Doc"} & set(dangling)


def test_a_type_variable_in_an_annotation_names_no_type_and_a_bounded_one_its_bound():
    sources = {
        "generic.py": (
            b"import typing\nfrom typing import ParamSpec, TypeVar\n\n\nclass Base:\n    pass\n\n\n"
            b'T = TypeVar("T")\nB = typing.TypeVar("B", bound=Base)\nP = ParamSpec("P")\n\n\n'
            b"def first(items: list[T], base: B, hook: typing.Callable[P, T]) -> T:\n    return items[0]\n"
        ),
    }
    types = {(b, ok) for a, t, b, ok in edges_of_subgraphs(resolve(sources)) if t in ("PARAM_TYPE", "RETURNS_TYPE")}
    assert types == {("list", False), ("generic.Base", True), ("typing.Callable", False)}


def test_pep_695_type_parameters_name_no_type_and_a_type_statement_is_an_alias():
    sources = {
        "boxes.py": (
            b"class Base:\n    pass\n\n\n"
            b"def first[T, *Ts, **P](items: list[T], base: Base) -> T:\n    return items[0]\n\n\n"
            b"class Box[K: Base]:\n    def get(self, key: K) -> Base:\n        pass\n\n\n"
            b"type Pair[V] = tuple[V, Base] | None\ntype Only = Base\n\n\n"
            b"def pair(p: Pair[int], o: Only):\n    pass\n"
        ),
    }
    types = {(a, b, ok) for a, t, b, ok in edges_of_subgraphs(resolve(sources)) if t in ("PARAM_TYPE", "RETURNS_TYPE")}
    assert types == {
        ("boxes.first", "list", False),
        ("boxes.first", "boxes.Base", True),
        ("boxes.Box.get", "boxes.Base", True),  # `key: K`: the class's type parameter
        ("boxes.pair", "boxes.Base", True),  # through both aliases
        ("boxes.pair", "int", False),
    }


def test_calling_a_value_declared_callable_runs_what_was_passed():
    sources = {
        "hooks.py": (
            b"import collections.abc\nfrom typing import Awaitable, Callable, Optional\n\n"
            b"Send = Callable[[dict], Awaitable[None]]\n\n\n"
            b"class Runner:\n    on_done: Optional[Callable[[], None]] = None\n\n"
            b"    def run(self, send: Send, check: collections.abc.Callable, label: str):\n"
            b"        send({})\n        check()\n        self.on_done()\n        label.upper()\n"
        ),
    }
    graph = resolve(sources)
    nodes = {n.id: n.props for s in graph for n in s.unresolved}
    reasons = {e.raw: nodes[e.dst]["reason"] for s in graph for e in s.edges if e.type == "CALLS" and not e.resolved}
    assert reasons == {
        "send": "dynamic",
        "check": "dynamic",
        "self.on_done": "dynamic",
        "label.upper": "external",
    }


def test_a_returned_attribute_and_a_property_returning_a_property_hold_what_they_read():
    sources = {
        "source.py": (
            b"class Char(str):\n    def is_nl(self):\n        return self == '\\n'\n\n\n"
            b"class Other:\n    def is_nl(self):\n        return False\n\n\n"
            b"class Source:\n    def __init__(self):\n        self._current = Char()\n\n"
            b"    @property\n    def current(self) -> Char:\n        return self._current\n"
        ),
        "parser.py": (
            b"from source import Other, Source\n\n\n"
            b"class Parser:\n    def __init__(self):\n        self._src = Source()\n\n"
            b"    @property\n    def _char(self):\n        return self._src.current\n\n"  # 10
            b"    def source(self):\n        return self._src\n\n"  # 13
            b"    def either(self, flag):\n        return self._src.current if flag else Other()\n\n"  # 16
            b"    def parse(self):\n"
            b"        self._char.is_nl()\n"  # 19: a property's value read through another
            b"        self.source().current.is_nl()\n"  # 20: a returned attribute
            b"        self.either(True).is_nl()\n"  # 21: the branches disagree: no guess
        ),
    }
    lines = call_lines(resolve(sources))
    assert lines[("parser.Parser.parse", "source.Char.is_nl")] == {19, 20}
    assert lines[("parser.Parser.parse", "self.either(True).is_nl")] == {21}


def test_a_chained_assignment_binds_every_name_it_lists():
    sources = {
        "pkg/__init__.py": (
            b"from pkg.make import attrs, Store\n\n"
            b"s = attributes = attrs\n"  # attrs' own package binds its API so
            b"store = shared = Store()\n"
        ),
        "pkg/make.py": (b"def attrs(cls):\n    return cls\n\n\nclass Store:\n    def save(self):\n        pass\n"),
        "use.py": (
            b"import pkg\nfrom pkg import shared\n\n\n"
            b"def build():\n"
            b"    pkg.s(object)\n"  # 6
            b"    pkg.attributes(object)\n"  # 7
            b"    shared.save()\n"  # 8
            b"    pkg.store.save()\n"  # 9
            b"    first = second = third = pkg.Store()\n"
            b"    first.save()\n    third.save()\n"  # 11, 12
        ),
    }
    lines = call_lines(resolve(sources))
    assert lines[("use.build", "pkg.make.attrs")] == {6, 7}
    assert lines[("use.build", "pkg.make.Store.save")] == {8, 9, 11, 12}


def test_tuples_bind_each_name_in_its_place_and_what_they_do_not_say_binds_to_nothing():
    sources = {
        "store.py": (
            b"class Store:\n    def save(self):\n        pass\n\n\nclass Box:\n    def open(self):\n        pass\n"
        ),
        "use.py": (
            b"from typing import List, Tuple\n"
            b"from store import Box, Store\n\n\n"
            b'def pair() -> Tuple["Store", Box]:\n    return Store(), Box()\n\n\n'  # 5
            b"class App:\n"  # 9
            b"    def build(self, middleware, pairs: List[Tuple[Box, Store]], first: Store, second: Store):\n"
            b"        s, b = Store(), Box()\n        s.save()\n        b.open()\n"  # 12, 13
            b"        if (made := Store()):\n            made.save()\n"  # 15
            b"        one, two = pair()\n        one.save()\n        two.open()\n"  # 17, 18
            b"        for box, store in pairs:\n            box.open()\n            store.save()\n"  # 20, 21
            b"        for i, item in enumerate(pairs):\n            pass\n"
            b"        for cls, args in middleware:\n            cls(args)\n"  # 25: not App
            b"        x = Store()\n        if middleware:\n            x, y = second, first\n        x.save()\n"  # 29
        ),
    }
    lines = call_lines(resolve(sources))
    assert lines[("use.App.build", "store.Store.save")] == {12, 15, 17, 21, 29}
    assert lines[("use.App.build", "store.Box.open")] == {13, 18, 20}
    assert lines[("use.App.build", "cls")] == {25}
    assert ("use.App.build", "use.App") not in lines


def test_a_declared_mappings_items_and_values_are_its_keys_and_values():
    sources = {
        "store.py": b"class Store:\n    def save(self):\n        pass\n",
        "form.py": (
            b"from typing import Mapping\nfrom store import Store\n\n\n"
            b"class Form:\n    def __init__(self) -> None:\n        self.fields: dict[str, Store] = {}\n\n"
            b"    def run(self, stores: Mapping[str, Store], plain):\n"  # 9
            b"        for name, field in self.fields.items():\n            field.save()\n"  # 11
            b"        for store in stores.values():\n            store.save()\n"  # 13
            b"        for key, value in plain.items():\n            value.save()\n"  # 15: not declared
        ),
    }
    lines = call_lines(resolve(sources))
    assert lines[("form.Form.run", "store.Store.save")] == {11, 13}
    assert lines[("form.Form.run", "value.save")] == {15}


def test_a_dispatch_by_name_prefix_and_a_method_stored_on_an_object_reference_what_they_may_run():
    sources = {
        "lib/__init__.py": b"",
        "lib/visitor.py": (
            b"class NodeVisitor:\n    def get_visitor(self, node):\n"
            b'        return getattr(self, f"visit_{type(node).__name__}", None)\n\n'
            b"    def anything(self, name):\n        return getattr(self, name)\n\n"
            b"    def visit_Base(self, node):\n        return 0\n"
        ),
        "lib/track.py": (
            b"from lib.visitor import NodeVisitor\n\n\n"
            b"class Tracker(NodeVisitor):\n"
            b"    def __init__(self, safe):\n"
            b"        self.step = self.step_one\n"
            b"        if safe:\n            self._add = self._add_safe\n"
            b"        else:\n            self._add = self._add_unsafe\n\n"
            b"    def visit_Name(self, node):\n        return self.step() + self._add(node)\n\n"
            b"    def visit_(self, node):\n        return 2\n\n"
            b"    def step_one(self):\n        return 1\n\n"
            b"    def _add_safe(self, node):\n        return 1\n\n"
            b"    def _add_unsafe(self, node):\n        return 2\n\n\n"
            b"class Deeper(Tracker):\n    def visit_Call(self, node):\n        return 4\n\n"
            b"    def _simple(self, node):\n        return 6\n\n"
            b"    visit_Block = _simple\n    visit_Size = 3\n\n\n"
            b"class Parser:\n    def parse(self, token):\n"
            b'        return getattr(self, "parse_" + token)()\n\n'
            b"    def parse_if(self):\n        return 5\n"
        ),
    }
    graph = resolve(sources)
    inferred = {(e.src, e.dst): e.via for s in graph for e in s.edges if e.inferred}
    names = {n.id: n.props["qualname"] for s in graph for n in s.nodes}
    inferred = {(names[a], names[b]): via for (a, b), via in inferred.items()}
    references = {(a, b) for a, t, b, ok in edges_of_subgraphs(graph) if ok and t == "REFERENCES"}
    # The prefix may name any method of the receiver's, its subclasses' too: each is an inferred
    # call, and so is the method a class-body alias with the prefix names (`visit_Block = _simple`;
    # `visit_Size = 3` names none). A bare prefix is no name, and a name made from nothing names nothing.
    get_visitor = "lib.visitor.NodeVisitor.get_visitor"
    assert {b: via for (a, b), via in inferred.items() if a == get_visitor} == {
        "lib.visitor.NodeVisitor.visit_Base": "getattr visit_*",
        "lib.track.Tracker.visit_Name": "getattr visit_*",
        "lib.track.Deeper.visit_Call": "getattr visit_*",
        "lib.track.Deeper._simple": "getattr visit_*",
    }
    assert not {b for a, b in inferred if a == "lib.visitor.NodeVisitor.anything"}
    assert inferred[("lib.track.Parser.parse", "lib.track.Parser.parse_if")] == "getattr parse_*"
    # A method stored on the instance is referenced where it is stored; called through the
    # attribute, it is the one stored where only one is, and each one inferred where two are.
    init = "lib.track.Tracker.__init__"
    assert {b for a, b in references if a == init} == {
        "lib.track.Tracker.step_one",
        "lib.track.Tracker._add_safe",
        "lib.track.Tracker._add_unsafe",
    }
    calls = calls_of(graph)
    assert calls[("lib.track.Tracker.visit_Name", "lib.track.Tracker.step_one")]
    assert calls[("lib.track.Tracker.visit_Name", "self._add")] is False
    assert {b: via for (a, b), via in inferred.items() if a == "lib.track.Tracker.visit_Name"} == {
        "lib.track.Tracker._add_safe": "stored method",
        "lib.track.Tracker._add_unsafe": "stored method",
    }
