"""Inferred HTTP edges across languages: routes (Flask, FastAPI, Starlette, Django, Express)
and client calls (fetch, axios, requests, httpx, test clients) matched by method and path."""

from __future__ import annotations

import json

import pytest
from expected_fullstack import DANGLING, INFERRED, MUST_NOT
from gitrepo import commit_files, init_repo
from graph_view import inferred_of_subgraphs, parse_sources, resolve_sources, unresolved_of_subgraphs
from test_incremental import assert_equals_fresh_ingest

from branchgraph import api
from branchgraph.core.model import branch_prefix
from branchgraph.ingest import resolvers
from branchgraph.ingest.http_facts import FileEndpoints
from branchgraph.ingest.http_paths import PARAM, ClientPath, client_path, fit, regex_route, route_path
from branchgraph.ingest.resolve_python import FIXTURE_VIA


def _inferred(sources: dict[str, bytes]) -> set[tuple]:
    """The inferred edges HTTP matching made (not those to the pytest fixtures tests take)."""
    return {e for e in inferred_of_subgraphs(resolve_sources(sources, "web")) if e[4] != FIXTURE_VIA}


def _calls(sources: dict[str, bytes]) -> dict[tuple[str, str], tuple[str | None, float | None]]:
    """(caller, handler or raw URL) -> (via, confidence) of the inferred CALLS edges."""
    return {(a, b): (via, conf) for a, t, b, _ok, via, conf in _inferred(sources) if t == "CALLS"}


def _text(files: dict[str, str]) -> dict[str, bytes]:
    return {path: text.encode() for path, text in files.items()}


# ----- the fullstack fixture ---------------------------------------------------------------


@pytest.mark.parametrize("fixture", ["fullstack_sources", "webshop_sources"])
def test_a_files_routes_and_calls_survive_its_stored_record(fixture, request):
    """What an update takes from a file's record instead of scanning it again
    (``FileEndpoints.to_json``) is what the scan found, on any branch it is read back for."""
    files, project = parse_sources(request.getfixturevalue(fixture))
    by_family: dict[str, list] = {}
    for f in files:
        by_family.setdefault(resolvers._family_of_path(f.path), []).append(f)
    kept = 0
    for family, group in by_family.items():
        spec = resolvers.RESOLVERS[family]
        for branch in ("main", "feature/x"):
            resolver = spec.resolver("web", branch, group, project, None)
            resolver.build()
            for path, found in resolver.scan(spec.endpoints).items():
                stored = json.loads(json.dumps(found.to_json()))
                assert FileEndpoints.from_json(stored, branch_prefix("web", branch), path) == found
                kept += bool(stored)
    assert kept, "no file of the fixture has routes or client calls"


def test_fullstack_inferred_edges_are_exactly_the_expected_ones(fullstack_sources):
    found = _inferred(fullstack_sources)
    resolved = {(a, t, b, via, conf) for a, t, b, ok, via, conf in found if ok}
    assert resolved == INFERRED
    dangling = {(a, t, b, via) for a, t, b, ok, via, _conf in found if not ok}
    assert dangling == {(a, t, b, via) for a, t, b, via, _reason in DANGLING}
    reasons = unresolved_of_subgraphs(resolve_sources(fullstack_sources, "web"))
    assert all(reasons[raw] == reason for _a, _t, raw, _via, reason in DANGLING)


def test_fullstack_must_not_edges_are_absent(fullstack_sources):
    pairs = {(a, b) for a, _t, b, _ok, _via, _conf in _inferred(fullstack_sources)}
    assert not pairs & MUST_NOT


# ----- paths -------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("declared", "normalized"),
    [
        ("/orders/<int:order_id>", "/orders/{param}"),  # Flask, Django path()
        ("/orders/<order_id>/", "/orders/{param}"),
        ("/orders/{order_id}", "/orders/{param}"),  # FastAPI, Spring, Go 1.22
        ("/orders/{id:[0-9]+}", "/orders/{param}"),
        ("/orders/:id", "/orders/{param}"),  # Express, gin
        ("/files/*path", "/files/{*}"),
        ("/files/{*path}", "/files/{*}"),
        ("", "/"),
        ("orders//v<int:n>.json", "/orders/{param}"),
    ],
)
def test_route_templates_normalize(declared, normalized):
    assert route_path(declared) == normalized


@pytest.mark.parametrize(
    ("pattern", "normalized"),
    [
        (r"^orders/(?P<pk>\d+)/$", "/orders/{param}"),
        (r"^orders/(\d+)/items/$", "/orders/{param}/items"),
        (r"^about/?$", "/about"),
        (r"^(?:a|b)/(\w+)$", "/{param}/{param}"),  # a group stands for one value
        (r"^a/|^b/$", None),  # more than a path: no route
    ],
)
def test_django_regex_routes(pattern, normalized):
    assert regex_route(pattern) == normalized


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        ('"/api/orders"', ClientPath("/api/orders")),
        ("f\"/api/orders/{order['id']}?full=1\"", ClientPath("/api/orders/{param}")),
        ("`/api/orders/${id}/lines`", ClientPath("/api/orders/{param}/lines")),
        ('"/api/orders/" + str(order_id)', ClientPath("/api/orders/{param}")),
        ("BASE_URL + '/api/orders'", ClientPath("/api/orders", dynamic_base=True)),
        ("`${API}/api/orders`", ClientPath("/api/orders", dynamic_base=True)),
        ('"http://localhost:5000/api/orders"', ClientPath("/api/orders", host="localhost:5000")),
        ('"https://api.github.com/repos"', ClientPath("/repos", host="api.github.com")),
        ('"/books/%s/%d/" % (slug, pk)', ClientPath("/books/{param}/{param}")),
        ('"/books/{}/edit/".format(pk)', ClientPath("/books/{param}/edit")),
        ('self.live_server_url + reverse("admin:index")', None),  # no literal path at all
        ('"orders"', None),  # a relative name, no URL
        ("url", None),  # a variable alone
    ],
)
def test_client_urls_normalize(raw, expected):
    assert client_path(raw) == expected


def test_literal_segments_fit_better_than_parameters():
    search = fit(ClientPath("/products/search"), "/products/search")
    by_sku = fit(ClientPath("/products/search"), f"/products/{PARAM}")
    assert search is not None and by_sku is not None and search.score > by_sku.score
    computed = fit(ClientPath(f"/products/{PARAM}"), "/products/search")
    assert computed is not None and computed.score < fit(ClientPath(f"/products/{PARAM}"), f"/products/{PARAM}").score
    assert fit(ClientPath("/products"), "/products/search") is None
    assert fit(ClientPath("/api/v2/products", dynamic_base=False), "/v2/products") is None
    assert fit(ClientPath("/v2/products", dynamic_base=True), "/api/v2/products") is not None
    assert fit(ClientPath("/files/a/b.txt"), "/files/{*}") is not None


# ----- frameworks ----------------------------------------------------------------------------


def test_django_url_tables_with_include_and_class_views():
    calls = _calls(
        _text(
            {
                "site/urls.py": 'from django.urls import include, path\n\nurlpatterns = [path("shop/", include("shop.urls"))]\n',
                "shop/urls.py": (
                    "from django.urls import path, re_path\n\nfrom shop import views\n\n"
                    "urlpatterns = [\n"
                    '    path("orders/<int:pk>/", views.order_detail, name="order"),\n'
                    '    re_path(r"^orders/(?P<pk>\\d+)/invoice/$", views.InvoiceView.as_view()),\n'
                    "]\n"
                ),
                "shop/views.py": (
                    "def order_detail(request, pk):\n    return pk\n\n\n"
                    "class InvoiceView:\n    def get(self, request, pk):\n        return pk\n"
                ),
                "shop/client.py": (
                    "import requests\n\n\ndef order(pk):\n"
                    '    requests.post(f"/shop/orders/{pk}/")\n'
                    '    return requests.get(f"/shop/orders/{pk}/invoice/")\n'
                ),
            }
        )
    )
    # Django's view decides the method: any method matches, at a lower confidence.
    assert calls[("shop.client.order", "shop.views.order_detail")] == ("POST /shop/orders/{param}", 0.9)
    assert calls[("shop.client.order", "shop.views.InvoiceView")] == ("GET /shop/orders/{param}/invoice", 0.9)


def test_express_routes_mounted_on_an_app_and_an_axios_call_that_is_no_route():
    calls = _calls(
        _text(
            {
                "server/routes/orders.ts": (
                    'import { Router } from "express";\n\n'
                    "const router = Router();\n\n"
                    "export function showOrder(req: any, res: any) {\n  res.json({});\n}\n\n"
                    'router.get("/:id", showOrder);\n'
                    'router.post("/", (req: any, res: any) => res.json({}));\n\n'
                    "export default router;\n"
                ),
                "server/app.ts": (
                    'import express from "express";\nimport orders from "./routes/orders";\n\n'
                    'const app = express();\napp.use("/api/orders", orders);\n'
                ),
                "web/load.ts": (
                    'import axios from "axios";\n\n'
                    "export async function load(id: string) {\n"
                    "  const config = { timeout: 5 };\n"
                    "  await axios.post(`/api/orders`, config);\n"
                    "  return axios.get(`/api/orders/${id}`, config);\n"
                    "}\n"
                ),
            }
        )
    )
    assert calls[("web/load.load", "server/routes/orders.showOrder")] == ("GET /api/orders/{param}", 1.0)
    # An inline handler is no definition: the edge reaches the file that registers it.
    assert calls[("web/load.load", "server/routes/orders")] == ("POST /api/orders", 1.0)
    # axios.post(url, config) with a non-function last argument is a client call, not a route.
    assert not any(target == "web/load" for _caller, target in calls)


def test_python_clients_with_base_urls_and_explicit_methods():
    calls = _calls(
        _text(
            {
                "api/app.py": (
                    "from fastapi import FastAPI\n\napp = FastAPI()\n\n\n"
                    '@app.api_route("/v1/items/{item_id}", methods=["PUT", "PATCH"])\n'
                    "def update_item(item_id: int):\n    return item_id\n\n\n"
                    '@app.get("/v1/items/{item_id}")\ndef read_item(item_id: int):\n    return item_id\n'
                ),
                "cli/sync.py": (
                    "import httpx\n\n"
                    'client = httpx.Client(base_url="http://localhost:8000/v1")\n\n\n'
                    "def sync(item_id, method):\n"
                    '    client.get(f"/items/{item_id}")\n'
                    '    httpx.request("PATCH", f"http://localhost:8000/v1/items/{item_id}")\n'
                ),
            }
        )
    )
    assert calls[("cli.sync.sync", "api.app.read_item")] == ("GET /v1/items/{param}", 1.0)
    assert calls[("cli.sync.sync", "api.app.update_item")][0] == "PATCH /v1/items/{param}"
    # A method only known at run time fits both handlers: each edge gets half the confidence.
    found = _inferred(
        _text(
            {
                "api/app.py": (
                    "from fastapi import FastAPI\n\napp = FastAPI()\n\n\n"
                    '@app.put("/items/{item_id}")\ndef update_item(item_id: int):\n    return item_id\n\n\n'
                    '@app.get("/items/{item_id}")\ndef read_item(item_id: int):\n    return item_id\n'
                ),
                "cli/sync.py": "import httpx\n\n\ndef sync(item_id, m):\n    httpx.request(m, f'/items/{item_id}')\n",
            }
        )
    )
    assert {(b, via, conf) for _a, _t, b, _ok, via, conf in found} == {
        ("api.app.update_item", "PUT /items/{param}", 0.4),
        ("api.app.read_item", "GET /items/{param}", 0.4),
    }


def test_calls_to_other_hosts_or_from_a_repository_serving_nothing_are_external():
    only_client = _text({"web/api.ts": 'export function load() {\n  return fetch("/api/orders");\n}\n'})
    reasons = unresolved_of_subgraphs(resolve_sources(only_client, "web"))
    assert reasons['"/api/orders"'] == "external"
    with_server = only_client | _text(
        {
            "web/other.ts": 'export function gh() {\n  return fetch("https://api.github.com/orders");\n}\n',
            "srv/app.py": 'from flask import Flask\n\napp = Flask(__name__)\n\n\n@app.get("/api/users")\ndef users():\n    return []\n',
        }
    )
    reasons = unresolved_of_subgraphs(resolve_sources(with_server, "web"))
    assert reasons['"/api/orders"'] == "unresolved"  # this repository serves HTTP, not this route
    assert reasons['"https://api.github.com/orders"'] == "external"


def test_a_dictionary_lookup_is_no_client_call():
    assert not _inferred(_text({"a.py": 'def f(d):\n    return d.get("orders"), d.get("key", "/default")\n'}))


def test_a_route_a_test_registers_serves_only_that_tests_requests():
    sources = _text(
        {
            "tests/test_api.py": (
                "from flask import Flask\n\n\n"
                "def test_index():\n    app = Flask(__name__)\n\n"
                '    @app.get("/")\n    @app.get("/index-only")\n    def index():\n        return "x"\n\n'
                '    app.test_client().get("/")\n\n\n'
                "def test_other():\n    app = Flask(__name__)\n\n"
                '    @app.get("/")\n    def root():\n        return "y"\n\n'
                '    app.test_client().get("/")\n\n\n'
                'def test_served_elsewhere(client):\n    client.get("/")\n    client.get("/index-only")\n'
            ),
            "srv/app.py": 'from flask import Flask\n\napp = Flask(__name__)\n\n\n@app.get("/")\ndef home():\n    return ""\n',
        }
    )
    calls = {(a, b) for a, t, b, ok, _via, _conf in _inferred(sources) if t == "CALLS" and ok}
    assert calls == {
        ("tests.test_api.test_index", "tests.test_api.test_index.index"),
        ("tests.test_api.test_other", "tests.test_api.test_other.root"),
        ("tests.test_api.test_served_elsewhere", "srv.app.home"),
    }
    # Only another test's app serves it: which app gets the request is decided at run time.
    assert unresolved_of_subgraphs(resolve_sources(sources, "web"))['"/index-only"'] == "dynamic"


# ----- Go ------------------------------------------------------------------------------------


def test_go_net_http_routes_clients_and_an_httptest_request(goweb_sources):
    """`go test ./...` passes on the fixture: its test really reaches Show through the mux."""
    calls = _calls(goweb_sources)
    assert calls[("orders.TestShow", "orders.Handler.Show")] == ("GET /orders/{param}", 0.9)
    assert calls[("client.Order", "orders.Handler.Show")][0] == "GET /orders/{param}"
    assert calls[("client.Place", "orders.Handler.Create")][0] == "POST /orders"
    tested_by = {(a, b) for a, t, b, ok, _via, _c in _inferred(goweb_sources) if t == "TESTED_BY" and ok}
    assert tested_by == {("orders.Handler.Show", "orders.TestShow")}
    reasons = unresolved_of_subgraphs(resolve_sources(goweb_sources, "web"))
    assert reasons['base + "/invoices/" + id + "/lines"'] == "unresolved"  # served HTTP, not this route
    # The inline DELETE handler belongs to Routes; no client calls it, nothing links to it.
    assert not any(b == "orders.Routes" for (_a, b) in calls)


def test_gin_echo_and_chi_routes_with_groups_and_mounts():
    sources = _text(
        {
            "go.mod": "module example.com/web\n\ngo 1.22\n",
            "web/gin.go": (
                "package web\n\nfunc list(c *Context) {}\nfunc show(c *Context) {}\nfunc any(c *Context) {}\n\n"
                "func Gin(r *Engine) {\n"
                '\tapi := r.Group("/api")\n\tv1 := api.Group("/v1")\n'
                '\tv1.GET("/orders", list)\n\tapi.Handle("GET", "/orders/:id", show)\n\tr.Any("/ping", any)\n}\n'
            ),
            "web/chi.go": (
                "package web\n\nfunc items(w ResponseWriter, r *Request) {}\nfunc create(w ResponseWriter, r *Request) {}\n\n"
                "func Chi(r Router, sub Router) {\n"
                '\tsub.Get("/items", items)\n\tsub.Post("/items", create)\n\tr.Mount("/shop", sub)\n}\n'
            ),
            "web/client.go": (
                "package web\n\nfunc Calls(c *Client) {\n"
                '\tc.Get("/api/v1/orders")\n\tc.Get("/api/orders/9")\n\tc.Head("/ping")\n'
                '\tc.Post("/shop/items", "application/json", nil)\n\tc.Get("/shop/items")\n}\n'
            ),
        }
    )
    calls = _calls(sources)
    assert calls[("web.Calls", "web.list")][0] == "GET /api/v1/orders"
    assert calls[("web.Calls", "web.show")][0] == "GET /api/orders/{param}"
    assert calls[("web.Calls", "web.any")][0] == "HEAD /ping"
    assert calls[("web.Calls", "web.create")][0] == "POST /shop/items"
    assert calls[("web.Calls", "web.items")][0] == "GET /shop/items"


# ----- through the stores ------------------------------------------------------------------------

FLASK_APP = (
    "from flask import Flask\n\napp = Flask(__name__)\n\n\n"
    '@app.get("/api/orders/<int:order_id>")\ndef get_order(order_id):\n    return {"id": order_id}\n'
)
FRONTEND = "export async function show(id: number) {\n  return fetch(`/api/orders/${id}`);\n}\n"


@pytest.mark.neo4j
@pytest.mark.postgres
def test_callers_and_impact_cross_the_language_boundary(fullstack_repo, config, graph_store):
    api.ingest(fullstack_repo, config=config)
    rows = graph_store.read_query(
        "MATCH (c)-[r:CALLS {inferred: true}]->(h:Function {repo: $repo, branch: 'main', qualname: $q}) "
        "RETURN c.qualname AS caller, r.via AS via, r.confidence AS confidence, r.resolved AS resolved",
        {"repo": fullstack_repo.name, "q": "shop.orders.get_order"},
    )
    assert {(r["caller"], r["via"], r["confidence"], r["resolved"]) for r in rows} == {
        ("frontend/src/api/orders.fetchOrder", "GET /api/orders/{param}", 1.0, True),
        ("backend.tests.test_orders.test_place_and_read_order", "GET /api/orders/{param}", 1.0, True),
        ("backend.tests.test_orders.test_unknown_order_is_404", "GET /api/orders/{param}", 0.9, True),
    }
    report = api.impact(fullstack_repo, symbols=["shop.orders.get_order"], config=config)
    assert "frontend/src/api/orders.fetchOrder" in {i.qualname for i in report.impacted}
    assert {t.qualname for t in report.tests} >= {
        "backend.tests.test_orders.test_place_and_read_order",
        "backend.tests.test_orders.test_unknown_order_is_404",
    }


@pytest.mark.neo4j
@pytest.mark.postgres
def test_a_route_change_rebinds_clients_in_unchanged_files(repo_dir, config, graph_store, pg_store):
    repo = init_repo(repo_dir)
    files = {"srv/app.py": FLASK_APP, "web/show.ts": FRONTEND}
    commit_files(repo, files)
    api.ingest(repo_dir, config=config)
    # The route moves: the unchanged frontend file's call now dangles ...
    commit_files(repo, {**files, "srv/app.py": FLASK_APP.replace("/api/orders/", "/api/v2/orders/")})
    summary = api.ingest(repo_dir, config=config)
    assert summary.work["files_re_resolved"] == 1
    assert_equals_fresh_ingest(repo_dir, "main", config, graph_store, pg_store)
    # ... and binds again when the client follows, on a branch cloned from main.
    commit_files(
        repo,
        {
            **files,
            "srv/app.py": FLASK_APP.replace("/api/orders/", "/api/v2/orders/"),
            "web/show.ts": FRONTEND.replace("/api/", "/api/v2/"),
        },
        branch="feature",
    )
    assert api.ingest(repo_dir, branch="feature", base="main", config=config).strategy == "branch-off"
    rows = graph_store.read_query(
        "MATCH (:Function {repo: $repo, branch: 'feature', qualname: 'web/show.show'})-[r:CALLS {inferred: true}]->(h) "
        "RETURN h.qualname AS handler, r.via AS via",
        {"repo": repo_dir.name},
    )
    assert rows == [{"handler": "srv.app.get_order", "via": "GET /api/v2/orders/{param}"}]
    assert_equals_fresh_ingest(repo_dir, "feature", config, graph_store, pg_store)


def test_spring_routes_and_java_clients_across_languages():
    sources = _text(
        {
            "orders/src/main/java/com/shop/web/OrderController.java": (
                "package com.shop.web;\n\n"
                '@RestController\n@RequestMapping("/api/orders")\npublic class OrderController {\n'
                '    @GetMapping("/{id}")\n    public String show(String id) { return id; }\n\n'
                "    @PostMapping\n    public String create(String body) { return body; }\n}\n"
            ),
            "billing/src/main/java/com/shop/billing/OrdersClient.java": (
                "package com.shop.billing;\n\npublic class OrdersClient {\n"
                "    private RestTemplate rest;\n    private WebClient web;\n\n"
                '    public String fetch(String id) {\n        return rest.getForObject("/api/orders/{id}", String.class, id);\n    }\n\n'
                "    public String place() {\n"
                '        return web.post().uri("/api/orders").retrieve().bodyToMono(String.class).block();\n    }\n\n'
                "    public void remove(String id) {\n"
                '        rest.exchange("/api/orders/" + id, HttpMethod.DELETE, null, Void.class);\n    }\n}\n'
            ),
            "frontend/src/api.ts": (
                "export async function order(id: string) {\n  return fetch(`/api/orders/${id}`);\n}\n"
            ),
        }
    )
    calls = _calls(sources)
    assert (
        calls[("com.shop.billing.OrdersClient.fetch", "com.shop.web.OrderController.show")][0]
        == "GET /api/orders/{param}"
    )
    assert (
        calls[("com.shop.billing.OrdersClient.place", "com.shop.web.OrderController.create")][0] == "POST /api/orders"
    )
    assert (
        calls[("frontend/src/api.order", "com.shop.web.OrderController.show")][0] == "GET /api/orders/{param}"
    )  # TS to Spring
    # DELETE is served by nobody: the call dangles with its URL.
    assert not any(a == "com.shop.billing.OrdersClient.remove" and b.startswith("com.shop.web") for a, b in calls)
    assert unresolved_of_subgraphs(resolve_sources(sources, "web"))['"/api/orders/" + id'] == "unresolved"


def test_the_route_index_finds_exactly_the_routes_a_scan_of_all_would():
    """The index (routes by length and last segment) is an optimisation only: for any client
    path, the best routes it finds, and their confidences, are those a scan of every route finds."""
    from hypothesis import given, settings
    from hypothesis import strategies as st

    from branchgraph.ingest.http_facts import ClientCall, Route
    from branchgraph.ingest.http_links import _best_routes, _RouteIndex
    from branchgraph.ingest.http_paths import REST
    from branchgraph.ingest.subgraphs import Target

    segment = st.sampled_from(["api", "orders", "users", "v1", PARAM])
    path = st.lists(segment, max_size=4).map(lambda parts: "/" + "/".join(parts))
    route = st.tuples(path, st.booleans(), st.sampled_from([None, frozenset({"GET"}), frozenset({"POST"})]))

    @settings(max_examples=300, deadline=None)
    @given(
        st.lists(route, max_size=12),
        path,
        st.booleans(),
        st.sampled_from([None, "GET", "POST"]),
    )
    def check(declared, wanted, dynamic_base, method):
        routes = [
            Route(methods, p.rstrip("/") + "/" + REST if rest else p, Target(f"h{i}", "Function"), "app.py", i)
            for i, (p, rest, methods) in enumerate(declared)
        ]
        call = ClientCall(
            method, ClientPath(wanted, dynamic_base), wanted, Target("c", "Function"), False, "client.py", 1
        )

        def by_handler(found):
            return {route.handler.id: (route, confidence) for route, confidence in found}

        assert by_handler(_best_routes(call, _RouteIndex(routes).candidates(call.url))) == by_handler(
            _best_routes(call, routes)
        )

    check()
