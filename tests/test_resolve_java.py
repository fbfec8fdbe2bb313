"""Resolution of Java, without any database: the javashop fixture's exact nodes and edges
(confirmed by javac: tests/fixtures/confirm_with_javac.py), and the lookup rules one by one."""

from __future__ import annotations

import pytest
from expected_javashop import EDGES, FILES, MUST_NOT, SYMBOLS, UNRESOLVED
from graph_view import edges_of_subgraphs, references_of, resolve_sources, symbols_of_subgraphs, unresolved_of_subgraphs

from branchgraph.core.extract import extract
from branchgraph.core.languages.java import (
    clean_docstring,
    is_generated_file,
    is_support_file,
    is_test_file,
    module_name,
)
from branchgraph.ingest.http_endpoints import java_endpoints
from branchgraph.ingest.resolve_java import JavaResolver
from branchgraph.ingest.subgraphs import ParsedSource

ROOT = "src/main/java/"


@pytest.fixture
def javashop_graph(javashop_sources):
    return resolve_sources(javashop_sources, "javashop")


def _graph(sources: dict[str, str]):
    return resolve_sources({ROOT + p: t.encode() for p, t in sources.items()}, "app")


def _edges(sources: dict[str, str]) -> set[tuple[str, str, str, bool]]:
    return edges_of_subgraphs(_graph(sources))


def test_symbols_and_files(javashop_graph):
    assert symbols_of_subgraphs(javashop_graph) == SYMBOLS
    files = {n.path: n.props["qualname"] for s in javashop_graph for n in s.nodes if n.label == "File"}
    assert files == FILES


def test_every_edge_exactly(javashop_graph):
    assert edges_of_subgraphs(javashop_graph) == EDGES


def test_no_edge_a_name_only_matcher_would_draw(javashop_graph):
    drawn = {(a, t, b) for a, t, b, _ in edges_of_subgraphs(javashop_graph)}
    assert not drawn & MUST_NOT


def test_dangling_targets_keep_raw_and_reason(javashop_graph):
    assert unresolved_of_subgraphs(javashop_graph) == UNRESOLVED


def test_names_docs_signatures_and_tests(javashop_graph):
    nodes = {(n.label, n.props["qualname"]): n for s in javashop_graph for n in s.nodes if n.label != "File"}
    place = nodes[("Method", "com.shop.service.OrderService.place")]
    assert (place.props["name"], place.props["signature"]) == ("place", "public long place(Order order)")
    assert (
        nodes[("Class", "com.shop.model.Order")].props["docstring"] == "An order: its lines and their total, in cents."
    )
    paid = nodes[("Class", "com.shop.model.OrderStatus.PAID")]  # an enum constant with a body
    assert (paid.props["name"], paid.props["signature"]) == ("PAID", "PAID")
    assert paid.props["docstring"] == "Paid for: refundable until it ships."
    tests = sorted(q for (label, q), n in nodes.items() if n.props["is_test"])
    assert tests == [
        "com.shop.service.OrderServiceTest.linesMultiply",  # @ParameterizedTest
        "com.shop.service.OrderServiceTest.paidOrdersMoveOn",  # @Test
        "com.shop.service.OrderServiceTest.placeStoresAndTotals",  # @Test
    ]


def test_a_call_picks_the_overload_of_its_arity(javashop_sources):
    graph = resolve_sources(javashop_sources, "javashop")
    nodes = {n.id: n for s in graph for n in s.nodes}
    app = next(s for s in graph if s.path.endswith("App.java"))
    lines = sorted(nodes[e.dst].props["start_line"] for e in app.edges if e.raw.endswith("addLine"))
    # `new Order("o-1").addLine("apple", 2, 50)` is the three-argument overload (line 20), the
    # chained `.addLine(new Order.Line(...))` the one taking a Line (line 24).
    assert lines == [20, 24]


def test_conventions():
    assert module_name("src/main/java/com/shop/Order.java") == "com.shop"
    assert module_name("service/src/test/java/com/shop/OrderTest.java") == "com.shop"
    assert module_name("tools/Gen.java") == "tools"
    assert is_test_file("src/test/java/com/shop/OrderServiceTest.java")
    assert not is_test_file("src/test/java/com/shop/Fixtures.java") and is_support_file(
        "src/test/java/com/shop/Fixtures.java"
    )
    assert not is_test_file("src/main/java/com/shop/TestData.java")
    assert is_generated_file("target/generated-sources/annotations/com/shop/Order_.java")
    assert clean_docstring("/**\n * Places orders.\n * @param x the x\n */") == "Places orders.\n@param x the x"


def test_same_package_static_and_fully_qualified_names_this_and_super():
    edges = _edges(
        {
            "com/a/Base.java": "package com.a;\n\npublic class Base {\n    public void hello() {}\n}\n",
            "com/a/Util.java": (
                "package com.a;\n\npublic class Util {\n    public static int twice(int x) { return 2 * x; }\n"
                "    public static int half(int x) { return x / 2; }\n}\n"
            ),
            "com/a/Child.java": (
                "package com.a;\n\nimport static com.a.Util.*;\n\npublic class Child extends Base {\n"
                "    private Child next;\n"
                "    @Override\n    public void hello() {\n        super.hello();\n        this.next.hello();\n"
                "        twice(1);\n        Util.half(2);\n        com.a.Util.twice(3);\n        unknown(4);\n    }\n}\n"
            ),
        }
    )
    calls = {(b, ok) for a, t, b, ok in edges if a == "com.a.Child.hello" and t == "CALLS"}
    assert calls == {
        ("com.a.Base.hello", True),  # super.hello()
        ("com.a.Child.hello", True),  # this.next.hello(): a field typed Child
        ("com.a.Util.twice", True),  # a static on-demand import; and fully qualified
        ("com.a.Util.half", True),  # the package's type, no import
        ("unknown", False),
    }
    assert ("com.a.Child", "INHERITS_FROM", "com.a.Base", True) in edges


def test_a_method_reference_names_its_method_or_its_class():
    """`Parse::number`, `this::keep`, `Item::new`: what a stream or a callback is handed runs
    where it is called; a library's method (`String::valueOf`) is no edge."""
    references = references_of(
        _edges(
            {
                "app/Parse.java": (
                    "package app;\n\npublic class Parse {\n"
                    "    public static int number(String s) { return Integer.parseInt(s); }\n}\n"
                ),
                "app/Item.java": "package app;\n\npublic class Item {\n    public Item(int n) {}\n}\n",
                "app/Loader.java": (
                    "package app;\n\nimport java.util.List;\n\npublic class Loader {\n"
                    "    void keep(Item item) {}\n\n"
                    "    public void load(List<String> rows) {\n"
                    "        rows.stream().map(Parse::number).map(Item::new).forEach(this::keep);\n"
                    "        rows.stream().map(String::valueOf);\n"
                    "    }\n}\n"
                ),
            }
        )
    )
    assert references == {
        ("app.Loader.load", "app.Parse.number"),
        ("app.Loader.load", "app.Item"),
        ("app.Loader.load", "app.Loader.keep"),
    }


def test_a_field_typed_by_a_library_class_beats_what_a_library_base_is_assumed_to_have():
    edges = _edges(
        {
            "com/io/Varying.java": (
                "package com.io;\n\nimport static org.junit.jupiter.api.Assertions.*;\n\n"
                "import java.io.InputStream;\n\n"
                "class Varying extends InputStream {\n    final InputStream in;\n\n"
                "    Varying(InputStream in) {\n        this.in = in;\n    }\n\n"
                "    public int read() {\n        return in.read();\n    }\n}\n"
            ),
        }
    )
    calls = {(b, ok) for a, t, b, ok in edges if a == "com.io.Varying.read" and t == "CALLS"}
    # `in` is the field (an InputStream), not a member the library base might have, nor a
    # name of the static on-demand import.
    assert calls == {("java.io.InputStream.read", False)}


def test_a_name_before_a_dot_is_a_field_never_the_method_of_the_same_name():
    edges = _edges(
        {
            "com/dom/Tag.java": 'package com.dom;\n\npublic class Tag {\n    public String namespace() { return ""; }\n}\n',
            "com/dom/Node.java": (
                "package com.dom;\n\npublic class Node {\n    Node parentNode;\n\n"
                "    public Node parentNode() { return parentNode; }\n    void addChild(Node n) {}\n}\n"
            ),
            "com/dom/Element.java": (
                "package com.dom;\n\npublic class Element extends Node {\n    Tag tag;\n\n"
                "    public Element tag() { return this; }\n\n"
                "    String space() {\n        parentNode.addChild(this);\n        return tag.namespace();\n    }\n"
                "    Element self() {\n        return tag();\n    }\n"
                "    Object cast(Object o) {\n        getClass();\n        return ((Tag) o).namespace();\n    }\n"
                "    void library(com.w3c.Document d) {\n        d.getFirstChild();\n"
                '        "p".equals(d);\n        tag.toString();\n    }\n}\n'
            ),
        }
    )
    calls = {(b, ok) for a, t, b, ok in edges if a == "com.dom.Element.space" and t == "CALLS"}
    # `tag` is the Tag field, not the method tag(); `parentNode` the field a base declares.
    assert calls == {("com.dom.Tag.namespace", True), ("com.dom.Node.addChild", True)}
    assert ("com.dom.Element.self", "CALLS", "com.dom.Element.tag", True) in edges
    # A member of a cast's type; an Object method called bare is the JDK's.
    assert ("com.dom.Element.cast", "CALLS", "com.dom.Tag.namespace", True) in edges
    assert ("com.dom.Element.cast", "CALLS", "java.lang.Object.getClass", False) in edges
    # A fully qualified library type beside the repository's own `com.dom`; a string literal's method.
    assert ("com.dom.Element.library", "CALLS", "com.w3c.Document.getFirstChild", False) in edges
    assert ("com.dom.Element.library", "CALLS", "java.lang.String.equals", False) in edges
    assert ("com.dom.Element.library", "CALLS", "java.lang.Object.toString", False) in edges


def test_a_chain_tells_overloads_apart_by_their_number_of_arguments():
    edges = _edges(
        {
            "com/net/Connection.java": (
                "package com.net;\n\npublic interface Connection {\n"
                "    Connection data(String key, String value);\n    KeyVal data(String key);\n"
                "    Connection header(String name, String value);\n    String get();\n}\n"
            ),
            "com/net/KeyVal.java": "package com.net;\n\npublic interface KeyVal {\n    String value();\n}\n",
            "com/net/Use.java": (
                "package com.net;\n\nclass Use {\n    String run(Connection c) {\n"
                '        c.data("k").value();\n'
                '        return c.data("k", "v")\n            .header("a", "b")\n            .get();\n    }\n}\n'
            ),
        }
    )
    calls = {(b, ok) for a, t, b, ok in edges if a == "com.net.Use.run" and t == "CALLS"}
    assert {
        ("com.net.KeyVal.value", True),
        ("com.net.Connection.header", True),
        ("com.net.Connection.get", True),
    } <= calls


def test_overloads_are_told_apart_by_arity_then_by_argument_types_else_they_dangle():
    graph = _graph(
        {
            "com/b/Printer.java": (
                "package com.b;\n\npublic class Printer {\n"
                "    public void print(int x) {}\n"  # line 4
                "    public void print(String s) {}\n"  # line 5
                "    public void print(Printer p) {}\n"  # line 6
                "    public void log(String format, Object... args) {}\n"  # line 7
                "    public void log(String message) {}\n"
                "    public void use(Special special) {\n"
                "        print(1);\n"
                '        print("a" + 1);\n'
                "        print(special);\n"
                "        print(source.next());\n"
                '        log("a", 1, 2);\n'
                "    }\n}\n"
            ),
            "com/b/Special.java": "package com.b;\n\npublic class Special extends Printer {}\n",
        }
    )
    nodes = {n.id: n for s in graph for n in s.nodes}
    printer = next(s for s in graph if s.path.endswith("Printer.java"))
    targets = {
        e.line: nodes[e.dst].props["start_line"] if e.resolved else None
        for e in printer.edges
        if e.type == "CALLS" and e.raw in ("print", "log")
    }
    # An int literal, a concatenation (String), a subclass of Printer; varargs take the rest.
    assert targets == {10: 4, 11: 5, 12: 6, 13: None, 14: 7}


def test_jdk_subtypes_and_object_methods_tell_overloads_apart():
    graph = _graph(
        {
            "com/c/Soup.java": (
                "package com.c;\n\nimport java.io.*;\nimport java.nio.file.Path;\n\npublic class Soup {\n"
                "    static String parse(String html) { return html; }\n"  # line 7
                "    static String parse(File file) { return null; }\n"  # line 8
                "    static String parse(Path path) { return null; }\n"  # line 9
                "    static String parse(InputStream in, String charset) { return null; }\n"  # line 10
                "    static String parse(Reader in, String charset) { return null; }\n"  # line 11
                "    void use(byte[] b, Object any) {\n"
                "        StringBuilder sb = new StringBuilder();\n"
                "        parse(sb.toString());\n"  # line 14: Object's toString is a String
                "        parse(any.toString());\n"
                '        parse(new ByteArrayInputStream(b), "UTF-8");\n'  # line 16: an InputStream
                '        parse(new BufferedReader(new StringReader("x")), null);\n'  # a Reader
                "        parse(sb);\n"  # line 18: a StringBuilder is none of them
                "    }\n}\n"
            ),
        }
    )
    nodes = {n.id: n for s in graph for n in s.nodes}
    [soup] = graph
    targets = {
        line: nodes[e.dst].props["start_line"] if e.resolved else None
        for e in soup.edges
        if e.type == "CALLS" and e.raw == "parse"
        for line in e.lines or [e.line]
    }
    assert targets == {14: 7, 15: 7, 16: 10, 17: 11, 18: None}


def test_a_method_an_in_repo_type_surely_lacks_is_unresolved_not_external():
    graph = _graph(
        {
            "com/d/State.java": "package com.d;\n\nenum State {\n    OPEN;\n    void read() {}\n}\n",
            "com/d/Point.java": "package com.d;\n\nrecord Point(int x, int y) {}\n",
            "com/d/Buffer.java": "package com.d;\n\nimport java.io.InputStream;\n\nabstract class Buffer extends InputStream {}\n",
            "com/d/Bean.java": "package com.d;\n\nimport lombok.Data;\n\n@Data\nclass Bean {\n    private int size;\n}\n",
            "com/d/Use.java": (
                "package com.d;\n\nclass Use {\n"
                "    void use(State state, Point point, Buffer buffer, Bean bean) {\n"
                "        state.readAll();\n"  # no such method of State, whose members are all known
                "        state.name();\n"  # java.lang.Enum's
                "        state.hashCode();\n"  # java.lang.Object's
                "        point.x();\n"  # a record's accessor, written nowhere
                "        buffer.available();\n"  # InputStream's
                "        bean.getSize();\n"  # Lombok's
                "        Runnable task = new Runnable() { public void run() { this.fire(); } };\n"
                "        if (point != null) { State s = state; }\n"
                "        if (bean != null) { Bean s = bean; s.grow(); }\n"  # `s` is bound to its first declaration
                "    }\n}\n"
            ),
        }
    )
    reasons = unresolved_of_subgraphs(graph)
    assert reasons["state.readAll"] == "unresolved"
    for raw in (
        "state.name",
        "java.lang.Object.hashCode",  # every type has Object's methods
        "point.x",
        "java.io.InputStream.available",
        "bean.getSize",
        "this.fire",
        "s.grow",  # which `s` is in force there is not read: not surely missing
    ):
        assert reasons[raw] == "external", raw


def test_spring_routes_carry_the_class_prefix_and_their_methods():
    files = [
        ParsedSource(
            ROOT + "com/c/OrderController.java",
            "blob",
            extract(
                "java",
                b'package com.c;\n\n@RestController\n@RequestMapping("/api/orders")\npublic class OrderController {\n'
                b'    @GetMapping("/{id}")\n    public String show(String id) { return id; }\n'
                b'    @PostMapping\n    public String create() { return ""; }\n'
                b'    @RequestMapping(value = "/search", method = RequestMethod.GET, produces = "application/json")\n'
                b'    public String search() { return ""; }\n}\n',
            ),
        )
    ]
    resolver = JavaResolver("app", "main", files, {})
    by_handler = {r.handler.id: (r.methods, r.path) for r in java_endpoints(resolver, files[0]).routes}
    names = {s.id: s.qualname for s in resolver.symbols.values()}
    assert {names[h]: v for h, v in by_handler.items()} == {
        "com.c.OrderController.show": (frozenset({"GET"}), "/api/orders/{param}"),
        "com.c.OrderController.create": (frozenset({"POST"}), "/api/orders"),
        "com.c.OrderController.search": (frozenset({"GET"}), "/api/orders/search"),
    }


def test_a_cycle_of_bases_ends_overload_matching():
    edges = _edges(
        {
            "com/d/A.java": "package com.d;\n\npublic class A extends B {\n    void use() { take(new A()); }\n"
            "    void take(String s) {}\n    void take(Integer i) {}\n}\n",
            "com/d/B.java": "package com.d;\n\npublic class B extends A {}\n",
        }
    )
    assert ("com.d.A.use", "CALLS", "take", False) in edges  # neither overload takes an A: no edge, no hang
