"""The inferred HTTP edges of tests/fixtures/fullstack: a Flask backend (blueprints mounted
with prefixes, a pytest test client), a FastAPI catalog service (a router with a prefix,
included under another) and a TypeScript frontend (fetch, an axios instance with a baseURL).

Edges are (source qualname, type, target qualname or Unresolved raw, via, confidence). The
handler each one reaches is the one Flask's and FastAPI's own routers pick for that method and
path: tests/fixtures/confirm_fullstack_routes.py asks them.
"""

INFERRED = {
    ("frontend/src/api/orders.fetchOrder", "CALLS", "shop.orders.get_order", "GET /api/orders/{param}", 1.0),
    ("frontend/src/api/orders.placeOrder", "CALLS", "shop.orders.create_order", "POST /api/orders", 1.0),
    ("frontend/src/api/orders.cancelOrder", "CALLS", "shop.orders.cancel_order", "DELETE /api/orders/{param}", 1.0),
    # `${API_BASE}/api/...`: a base not known statically comes first.
    (
        "frontend/src/api/orders.customerOrders",
        "CALLS",
        "shop.customers.customer_orders",
        "GET /api/customers/{param}/orders",
        0.8,
    ),
    # axios.create({ baseURL: "/catalog" }) + "/products/..." under include_router(prefix="/catalog")
    (
        "frontend/src/api/catalog.searchProducts",
        "CALLS",
        "catalog.products.search_products",
        "GET /catalog/products/search",
        1.0,
    ),
    (
        "frontend/src/api/catalog.getProduct",
        "CALLS",
        "catalog.products.get_product",
        "GET /catalog/products/{param}",
        1.0,
    ),
    # Flask's test client in pytest tests: the handler is tested by the test.
    (
        "backend.tests.test_orders.test_place_and_read_order",
        "CALLS",
        "shop.orders.create_order",
        "POST /api/orders",
        1.0,
    ),
    (
        "shop.orders.create_order",
        "TESTED_BY",
        "backend.tests.test_orders.test_place_and_read_order",
        "POST /api/orders",
        1.0,
    ),
    (
        "backend.tests.test_orders.test_place_and_read_order",
        "CALLS",
        "shop.orders.get_order",
        "GET /api/orders/{param}",
        1.0,
    ),
    (
        "shop.orders.get_order",
        "TESTED_BY",
        "backend.tests.test_orders.test_place_and_read_order",
        "GET /api/orders/{param}",
        1.0,
    ),
    # A literal id where the route has a parameter.
    (
        "backend.tests.test_orders.test_unknown_order_is_404",
        "CALLS",
        "shop.orders.get_order",
        "GET /api/orders/{param}",
        0.9,
    ),
    (
        "shop.orders.get_order",
        "TESTED_BY",
        "backend.tests.test_orders.test_unknown_order_is_404",
        "GET /api/orders/{param}",
        0.9,
    ),
}

# A call to a route nobody serves dangles with its URL as written.
DANGLING = {("frontend/src/api/orders.listRefunds", "CALLS", '"/api/refunds"', "GET /api/refunds", "unresolved")}

# What a matcher by path alone, by name or by prefix would draw.
MUST_NOT = {
    ("frontend/src/api/orders.fetchOrder", "shop.orders.cancel_order"),  # same path, DELETE
    ("frontend/src/api/orders.cancelOrder", "shop.orders.get_order"),  # same path, GET
    ("frontend/src/api/orders.placeOrder", "shop.orders.list_orders"),  # same path, GET
    ("frontend/src/api/catalog.searchProducts", "catalog.products.get_product"),  # /search is literal
    ("frontend/src/api/catalog.getProduct", "catalog.products.search_products"),  # a computed sku
    ("frontend/src/api/orders.listRefunds", "shop.orders.list_orders"),
}

# Each expected edge as a request the frameworks can route: (method, concrete path, handler).
REQUESTS = [
    ("GET", "/api/orders/7", "shop.orders.get_order"),
    ("POST", "/api/orders", "shop.orders.create_order"),
    ("DELETE", "/api/orders/7", "shop.orders.cancel_order"),
    ("GET", "/api/customers/3/orders", "shop.customers.customer_orders"),
    ("GET", "/catalog/products/search", "catalog.products.search_products"),
    ("GET", "/catalog/products/tea", "catalog.products.get_product"),
    ("GET", "/api/orders/999", "shop.orders.get_order"),
    ("GET", "/api/refunds", None),
]
