"""Resolution of Go, without any database: the goshop fixture's exact nodes and edges
(confirmed by go/types: tests/fixtures/confirm_with_go_types.py), and the lookup rules one
by one."""

from __future__ import annotations

import pytest
from expected_goshop import EDGES, FILES, MUST_NOT, SYMBOLS, UNRESOLVED
from graph_view import edges_of_subgraphs, references_of, resolve_sources, symbols_of_subgraphs, unresolved_of_subgraphs

from branchgraph.core.languages.go import clean_docstring, is_generated_file, is_support_file, module_name
from branchgraph.ingest.resolve_go import _package_name

GO_MOD = b"module example.com/app\n\ngo 1.22\n"


@pytest.fixture
def goshop_graph(goshop_sources):
    return resolve_sources(goshop_sources, "goshop")


def _edges(sources: dict[str, str]) -> set[tuple[str, str, str, bool]]:
    return edges_of_subgraphs(resolve_sources({"go.mod": GO_MOD} | {p: t.encode() for p, t in sources.items()}, "app"))


def test_symbols_and_files(goshop_graph):
    assert symbols_of_subgraphs(goshop_graph) == SYMBOLS
    files = {n.path: n.props["qualname"] for s in goshop_graph for n in s.nodes if n.label == "File"}
    assert files == FILES


def test_every_edge_exactly(goshop_graph):
    assert edges_of_subgraphs(goshop_graph) == EDGES


def test_no_edge_a_name_only_matcher_would_draw(goshop_graph):
    drawn = {(a, t, b) for a, t, b, _ in edges_of_subgraphs(goshop_graph)}
    assert not drawn & MUST_NOT


def test_dangling_targets_keep_raw_and_reason(goshop_graph):
    assert unresolved_of_subgraphs(goshop_graph) == UNRESOLVED


def test_names_docs_and_tests(goshop_graph):
    nodes = {n.props["qualname"]: n for s in goshop_graph for n in s.nodes if n.label != "File"}
    total = nodes["internal/orders.Order.Total"]
    assert (total.label, total.props["name"], total.props["signature"]) == (
        "Method",
        "Total",
        "func (o *Order) Total() int",
    )
    assert (
        nodes["internal/notify.Notifier"].props["docstring"]
        == "Notifier sends messages; it logs through its embedded Logger."
    )
    assert sorted(q for q, n in nodes.items() if n.props["is_test"]) == [
        "internal/orders.TestEach",
        "internal/orders.TestEachShadowed",
        "internal/orders.TestPlace",
    ]


def test_a_method_in_another_file_than_its_type_is_defined_by_its_file():
    edges = _edges(
        {
            "shop/order.go": "package shop\n\ntype Order struct{}\n",
            "shop/total.go": "package shop\n\nfunc (o Order) Total() int { return 0 }\n",
        }
    )
    assert ("shop", "DEFINES", "shop.Order.Total", True) in edges
    assert not any(t == "DEFINES" and b == "shop.Order.Total" and a == "shop.Order" for a, t, b, _ in edges)


def test_aliases_dot_and_blank_imports_package_variables_and_external_modules():
    edges = _edges(
        {
            "store/store.go": (
                "package store\n\ntype DB struct{}\n\nfunc (d *DB) Get(k string) string { return k }\n\n"
                "func Open() *DB { return &DB{} }\n\nvar Default = Open()\n"
            ),
            "api/api.go": (
                'package api\n\nimport (\n\tdb "example.com/app/store"\n\t_ "example.com/app/metrics"\n'
                '\t"github.com/go-chi/chi/v5"\n)\n\n'
                'func Handle() string {\n\tr := chi.NewRouter()\n\tr.Get()\n\treturn db.Default.Get("x")\n}\n'
            ),
            "metrics/metrics.go": "package metrics\n",
        }
    )
    assert ("api.Handle", "CALLS", "store.DB.Get", True) in edges  # through a package variable's type
    assert ("api.Handle", "CALLS", "github.com/go-chi/chi/v5.NewRouter", False) in edges  # chi, not v5
    assert ("api", "IMPORTS", "store", True) in edges
    assert ("api", "IMPORTS", "metrics", True) in edges  # a blank import binds no name, but imports
    assert ("api.Handle", "CALLS", "github.com/go-chi/chi/v5.NewRouter().Get", False) in edges  # a library's value


def test_interfaces_embed_and_types_satisfy_them_by_method_set():
    edges = _edges(
        {
            "io2/io.go": (
                "package io2\n\ntype Reader interface { Read(p []byte) (int, error) }\n"
                "type Closer interface { Close() error }\n"
                "type ReadCloser interface {\n\tReader\n\tCloser\n}\n\n"
                "type File struct{}\n\nfunc (f *File) Read(p []byte) (int, error) { return 0, nil }\n"
                "func (f *File) Close() error { return nil }\n\n"
                "type Pipe struct{}\n\nfunc (p Pipe) Read() int { return 0 }\n"
                "func (p Pipe) Close() error { return nil }\n\n"
                "func Use(rc ReadCloser) { rc.Close() }\n"
            )
        }
    )
    implements = {(a, b) for a, t, b, _ in edges if t == "IMPLEMENTS"}
    # Pipe.Read takes no parameter: it covers Closer only.
    assert implements == {
        ("io2.File", "io2.Reader"),
        ("io2.File", "io2.Closer"),
        ("io2.File", "io2.ReadCloser"),
        ("io2.Pipe", "io2.Closer"),
    }
    assert ("io2.ReadCloser", "INHERITS_FROM", "io2.Reader", True) in edges
    assert ("io2.Use", "CALLS", "io2.Closer.Close", True) in edges  # promoted from the embedded interface


def test_calls_through_results_fields_and_unknown_receivers():
    edges = _edges(
        {
            "svc/svc.go": (
                "package svc\n\ntype Client struct{ base string }\n\nfunc (c *Client) Send() error { return nil }\n\n"
                "func Dial() (*Client, error) { return &Client{}, nil }\n\n"
                "type Svc struct{ client *Client }\n\n"
                "func (s *Svc) Run(x interface{ Send() error }) {\n"
                "\ts.client.Send()\n\tc, _ := Dial()\n\tc.Send()\n\tDialOnly().Send()\n\tx.Send()\n\tunknown.Frobnicate()\n}\n\n"
                "func DialOnly() *Client { return nil }\n"
            )
        }
    )
    calls = {(b, ok) for a, t, b, ok in edges if t == "CALLS" and a == "svc.Svc.Run"}
    assert ("svc.Client.Send", True) in calls
    assert ("svc.DialOnly", True) in calls
    # An anonymous interface's method: named in the repository, so not external, but unresolved.
    assert ("x.Send", False) in calls
    assert ("unknown.Frobnicate", False) in calls


def test_calling_a_value_of_a_function_type_is_dynamic():
    graph = resolve_sources(
        {
            "go.mod": GO_MOD,
            "srv/srv.go": (
                b"package srv\n\ntype Server struct {\n\tonStart func()\n\tcheck   func(string) error\n}\n\n"
                b"func (s *Server) Run() error {\n\ts.onStart()\n"
                b"\thandler := func(name string) error { return s.check(name) }\n"
                b'\treturn handler("x")\n}\n'
            ),
        },
        "app",
    )
    reasons = unresolved_of_subgraphs(graph)
    # What runs is whatever function the field or the local holds: decided at run time.
    assert {raw: reasons[raw] for raw in ("s.onStart", "s.check", "handler")} == dict.fromkeys(
        ("s.onStart", "s.check", "handler"), "dynamic"
    )


def test_a_function_named_as_a_value_is_referenced():
    """`mux.HandleFunc("/", s.serve)`, `Route{Handler: index}`, `h := util.Wrap`: what is handed on
    runs where the receiver calls it; a variable, a parameter or a field key named like a
    function is not that function."""
    references = references_of(
        _edges(
            {
                "util/util.go": "package util\n\nfunc Wrap(f func()) func() { return f }\n",
                "web/web.go": (
                    'package web\n\nimport "example.com/app/util"\n\n'
                    "type Route struct {\n\tHandler func()\n}\n\n"
                    "type Server struct{}\n\n"
                    "func (s *Server) serve() {}\n\n"
                    "func index() {}\n\n"
                    "func Handler() {}\n\n"
                    "func register(f func()) {}\n\n"
                    "func (s *Server) Routes() []Route {\n"
                    "\tregister(s.serve)\n"
                    "\th := util.Wrap\n"
                    "\tvar named = index\n"
                    "\t_, _ = h, named\n"
                    "\treturn []Route{{Handler: index}}\n}\n\n"
                    "func Local(index func()) {\n\tregister(index)\n\tserve := func() {}\n\tregister(serve)\n}\n"
                ),
            }
        )
    )
    assert references == {
        ("web.Server.Routes", "web.Server.serve"),
        ("web.Server.Routes", "util.Wrap"),
        ("web.Server.Routes", "web.index"),
    }


def test_a_method_an_in_repo_struct_surely_lacks_is_unresolved_not_external():
    graph = resolve_sources(
        {
            "go.mod": GO_MOD,
            "kv/kv.go": (
                b'package kv\n\nimport "strings"\n\ntype Store struct{ items map[string]int }\n\n'
                b"func (s *Store) Get(k string) int { return s.items[k] }\n\n"
                b"type Cached struct{ *Store }\n\ntype Text struct{ strings.Builder }\n\ntype Level int\n\n"
                b"func Use(s *Store, c Cached, t *Text, l Level) {\n"
                b'\ts.Fetch("a")\n\tc.Fetch("a")\n\tt.Grow(1)\n\tl.Fetch()\n'
                b"\tif s != nil {\n\t\tx := Cached{}\n\t\t_ = x\n\t} else {\n\t\tx := Text{}\n\t\tx.Reset()\n\t}\n}\n"
            ),
        },
        "app",
    )
    reasons = unresolved_of_subgraphs(graph)
    # Store and Cached (embedding only Store) declare every method they have: Fetch is missing.
    assert reasons["s.Fetch"] == reasons["c.Fetch"] == "unresolved"
    # What strings.Builder promotes is the library's; a type over another may have more.
    assert reasons["strings.Builder.Grow"] == "external" and reasons["l.Fetch"] == "external"
    # `x` is declared twice (its first binding wins): which one is in force is not read.
    assert reasons["x.Reset"] == "external"


@pytest.mark.parametrize(
    ("path", "support", "generated"),
    [
        ("internal/orders/service_test.go", True, False),
        ("internal/testdata/sample.go", True, False),
        ("api/v1/orders.pb.go", False, True),
        ("internal/orders/status_string.go", False, True),
        ("pkg/apis/zz_generated.deepcopy.go", False, True),
        ("internal/orders/service.go", False, False),
    ],
)
def test_conventions(path, support, generated):
    assert is_support_file(path) is support
    assert is_generated_file(path) is generated


def test_package_names_and_docs():
    assert _package_name("github.com/go-chi/chi/v5") == "chi"
    assert _package_name("gopkg.in/yaml.v3") == "yaml"
    assert _package_name("example.com/app/internal/orders") == "orders"
    assert module_name("main.go") == "" and module_name("cmd/shop/main.go") == "cmd/shop"
    assert (
        clean_docstring("// Order is what a customer buys.\n// It has lines.")
        == "Order is what a customer buys.\nIt has lines."
    )


def test_closures_assertions_composite_receivers_and_ranges_over_results():
    edges = _edges(
        {
            "web/web.go": (
                "package web\n\ntype Context struct{}\n\nfunc (c *Context) JSON(v any) {}\n\n"
                "type Cmd struct{ subs []*Cmd }\n\nfunc (c *Cmd) Commands() []*Cmd { return c.subs }\n"
                'func (c *Cmd) Name() string { return "" }\n\n'
                "type binding struct{}\n\nfunc (binding) Bind() error { return nil }\n\n"
                "func Handle(register func(any), pool interface{ Get() any }, root *Cmd) {\n"
                "\tregister(func(c *Context) { c.JSON(nil) })\n"
                "\tctx := pool.Get().(*Context)\n\tctx.JSON(1)\n"
                "\tbinding{}.Bind()\n"
                "\tfor _, sub := range root.Commands() {\n\t\tsub.Name()\n\t}\n}\n"
            )
        }
    )
    calls = {b for a, t, b, ok in edges if t == "CALLS" and a == "web.Handle" and ok}
    assert {"web.Context.JSON", "web.binding.Bind", "web.Cmd.Commands", "web.Cmd.Name"} <= calls
    assert ("web.Handle", "PARAM_TYPE", "web.Context", True) not in edges  # the closure's parameter, not Handle's


def test_builder_chains_across_lines_new_aliases_assertions_and_generic_calls():
    steps = "".join(f'\n\t\tInt("n{i}", &x).' for i in range(30))  # longer than a raw's usual 200 characters
    edges = _edges(
        {
            "bind/bind.go": (
                'package bind\n\nimport "context"\n\n'
                "type Binder struct{ tree *Node }\n\n"
                "func (b *Binder) Int(name string, dest *int) *Binder { return b }\n"
                "func (b *Binder) Err() error { return nil }\n\n"
                "type Node struct{ next *Node }\n\n"
                "func (n *Node) Leaf() bool { return false }\nfunc (n *Node) Last() *Node { return n }\n\n"
                'type Fail struct{}\n\nfunc (f *Fail) Unwrap() error { return nil }\nfunc (f *Fail) Error() string { return "" }\n\n'
                "func Parse[T any](s string) (T, error) { var v T; return v, nil }\n"
                "func Keep[T any](v T) *T { return &v }\n"
                "func Pair() (int, *Node) { return 0, nil }\n\n"
                "func Use(b *Binder, err error) {\n"
                "\t_, n := Pair()\n\tn.Last()\n"
                "\tctx, cancel := context.WithCancel(nil)\n\t_ = ctx\n\tcancel()\n"
                '\t_, _ = []*Node{{}, {}}, map[string]Fail{"a": {}}\n'
                f"\tx := 0\n\t_ = b.{steps}\n\t\tErr()\n"
                "\tc := new(Binder)\n\tc.Err()\n"
                "\tnode := b.tree\n\tnode.Leaf()\n"
                "\tfirst := &node\n\t_ = first\n"
                "\terr.(*Fail).Unwrap()\n"
                '\tv, _ := Parse[int]("1")\n\t_ = v\n}\n'
            )
        }
    )
    calls = {b for a, t, b, ok in edges if t == "CALLS" and a == "bind.Use" and ok}
    assert {"bind.Binder.Int", "bind.Binder.Err", "bind.Node.Leaf", "bind.Fail.Unwrap", "bind.Parse"} <= calls
    assert "bind.Node.Last" in calls  # the second result of Pair is a *Node
    assert {"bind.Node", "bind.Fail"} <= calls  # elements written without their type build one
    # A library call's results are all the library's: `cancel()` runs the library's code.
    assert ("bind.Use", "CALLS", "context.WithCancel()", False) in edges
    # A type parameter is no type of the repository, nor an unresolved one.
    types = {(a, t, b) for a, t, b, _ in edges if t in ("PARAM_TYPE", "RETURNS_TYPE")}
    assert not {b for a, _, b in types if a in ("bind.Parse", "bind.Keep")}


def test_named_collections_give_their_elements_and_a_function_may_declare_types():
    edges = _edges(
        {
            "route/route.go": (
                "package route\n\ntype Info struct{ Name string }\n\nfunc (i Info) Clone() Info { return i }\n\n"
                "type Routes []Info\n\ntype Index map[string]*Info\n\n"
                "func (r Routes) Clone() Routes {\n\tfor _, route := range r {\n\t\troute.Clone()\n\t}\n\treturn r\n}\n\n"
                'func Build() (Routes, Index) {\n\treturn Routes{{Name: "a"}}, Index{"b": {Name: "b"}}\n}\n\n'
                "func Local() {\n\ttype target struct{ n int }\n\t_ = target{n: 1}\n}\n"
            )
        }
    )
    calls = {(a, b) for a, t, b, ok in edges if t == "CALLS" and ok}
    assert ("route.Routes.Clone", "route.Info.Clone") in calls  # an element of a Routes is an Info
    assert ("route.Build", "route.Info") in calls  # `Routes{{...}}` builds Info elements
    assert ("route.Local", "route.Local.target") in calls


def test_a_changed_go_method_is_named_after_its_receiver_type(goshop_sources, goshop_graph):
    """impact maps a diff's hunks to qualnames the graph holds: a Go method's continues its type."""
    from branchgraph.impact.changes import FileVersions, changed_symbols

    path = "internal/orders/order.go"
    old = goshop_sources[path]
    new = old.replace(b"total += line.Subtotal()", b"total += line.Subtotal() + 0")
    changed = changed_symbols([FileVersions(path, old, new)])
    assert [(c.qualname, c.kind, c.change) for c in changed] == [("internal/orders.Order.Total", "Method", "modified")]
    assert ("Method", "internal/orders.Order.Total") in symbols_of_subgraphs(goshop_graph)
