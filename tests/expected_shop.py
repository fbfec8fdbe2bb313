"""What ingesting tests/fixtures/shop must produce, checked line by line against the source.

Edges are (source qualname, type, target qualname or Unresolved raw, resolved). A file's
qualname is its module name (``src/`` is the source root).
"""

FILES = {
    "src/shop/__init__.py": "shop",
    "src/shop/billing/__init__.py": "shop.billing",
    "src/shop/billing/invoice.py": "shop.billing.invoice",
    "src/shop/billing/tax.py": "shop.billing.tax",
    "src/shop/core/__init__.py": "shop.core",
    "src/shop/core/base.py": "shop.core.base",
    "src/shop/core/money.py": "shop.core.money",
    "src/shop/payments.py": "shop.payments",
    "tests/test_invoice.py": "tests.test_invoice",
    "tests/tests_tax.py": "tests.tests_tax",
}

SYMBOLS = {
    # (label, qualname): (start_line, end_line, is_test)
    ("Class", "shop.billing.invoice.Line"): (10, 12, False),
    ("Method", "shop.billing.invoice.Line.__init__"): (11, 12, False),
    ("Class", "shop.billing.invoice.Invoice"): (15, 36, False),
    ("Method", "shop.billing.invoice.Invoice.__init__"): (18, 20, False),
    ("Method", "shop.billing.invoice.Invoice.add_line"): (22, 25, False),
    ("Method", "shop.billing.invoice.Invoice.total"): (27, 29, False),
    ("Method", "shop.billing.invoice.Invoice.render"): (31, 33, False),
    ("Method", "shop.billing.invoice.Invoice.export"): (35, 36, False),
    ("Function", "shop.billing.tax.rate"): (1, 2, False),
    ("Function", "shop.billing.tax.apply"): (5, 6, False),
    ("Class", "shop.core.base.BaseDocument"): (1, 8, False),
    ("Method", "shop.core.base.BaseDocument.validate"): (4, 5, False),
    ("Method", "shop.core.base.BaseDocument.number"): (7, 8, False),
    ("Function", "shop.core.money.format_money"): (6, 8, False),
    ("Class", "shop.payments.Payment"): (5, 16, False),
    ("Method", "shop.payments.Payment.__init__"): (6, 7, False),
    ("Method", "shop.payments.Payment.full"): (9, 11, False),  # from its decorator
    ("Method", "shop.payments.Payment.refund"): (13, 16, False),
    ("Function", "tests.test_invoice.make_invoice"): (5, 6, False),
    ("Function", "tests.test_invoice.test_total"): (9, 12, True),  # pytest function
    ("Class", "tests.test_invoice.TestPayment"): (15, 18, True),  # pytest class
    ("Method", "tests.test_invoice.TestPayment.test_refund"): (16, 18, True),
    ("Class", "tests.tests_tax.TaxTests"): (6, 11, True),  # unittest.TestCase subclass
    ("Method", "tests.tests_tax.TaxTests.test_rate"): (7, 8, True),
    ("Method", "tests.tests_tax.TaxTests.helper"): (10, 11, False),  # not named test*
}

# Targets of dangling edges: raw -> reason. `external` for stdlib, builtins and third-party;
# `unresolved` for what a static index cannot follow (attributes of instance attributes,
# results of plain function calls).
UNRESOLVED = {
    "json": "external",
    "json.dumps": "external",
    "decimal": "external",
    "decimal.Decimal": "external",
    "decimal.Decimal().quantize": "external",
    "unittest": "external",
    "unittest.TestCase": "external",
    "unittest.TestCase.assertEqual": "external",  # inherited from an external base
    "sum": "external",
    "bool": "external",
    "print": "external",
    "classmethod": "external",
    "list.append": "external",
    "self.exporter.send": "unresolved",
}

EDGES = {
    # DEFINES
    ("shop.billing.invoice", "DEFINES", "shop.billing.invoice.Invoice", True),
    ("shop.billing.invoice", "DEFINES", "shop.billing.invoice.Line", True),
    ("shop.billing.invoice.Invoice", "DEFINES", "shop.billing.invoice.Invoice.__init__", True),
    ("shop.billing.invoice.Invoice", "DEFINES", "shop.billing.invoice.Invoice.add_line", True),
    ("shop.billing.invoice.Invoice", "DEFINES", "shop.billing.invoice.Invoice.export", True),
    ("shop.billing.invoice.Invoice", "DEFINES", "shop.billing.invoice.Invoice.render", True),
    ("shop.billing.invoice.Invoice", "DEFINES", "shop.billing.invoice.Invoice.total", True),
    ("shop.billing.invoice.Line", "DEFINES", "shop.billing.invoice.Line.__init__", True),
    ("shop.billing.tax", "DEFINES", "shop.billing.tax.apply", True),
    ("shop.billing.tax", "DEFINES", "shop.billing.tax.rate", True),
    ("shop.core.base", "DEFINES", "shop.core.base.BaseDocument", True),
    ("shop.core.base.BaseDocument", "DEFINES", "shop.core.base.BaseDocument.number", True),
    ("shop.core.base.BaseDocument", "DEFINES", "shop.core.base.BaseDocument.validate", True),
    ("shop.core.money", "DEFINES", "shop.core.money.format_money", True),
    ("shop.payments", "DEFINES", "shop.payments.Payment", True),
    ("shop.payments.Payment", "DEFINES", "shop.payments.Payment.__init__", True),
    ("shop.payments.Payment", "DEFINES", "shop.payments.Payment.full", True),
    ("shop.payments.Payment", "DEFINES", "shop.payments.Payment.refund", True),
    ("tests.test_invoice", "DEFINES", "tests.test_invoice.TestPayment", True),
    ("tests.test_invoice", "DEFINES", "tests.test_invoice.make_invoice", True),
    ("tests.test_invoice", "DEFINES", "tests.test_invoice.test_total", True),
    ("tests.test_invoice.TestPayment", "DEFINES", "tests.test_invoice.TestPayment.test_refund", True),
    ("tests.tests_tax", "DEFINES", "tests.tests_tax.TaxTests", True),
    ("tests.tests_tax.TaxTests", "DEFINES", "tests.tests_tax.TaxTests.helper", True),
    ("tests.tests_tax.TaxTests", "DEFINES", "tests.tests_tax.TaxTests.test_rate", True),
    # IMPORTS
    ("shop", "IMPORTS", "shop.billing.invoice.Invoice", True),
    ("shop.billing", "IMPORTS", "shop.billing.invoice.Invoice", True),
    ("shop.billing", "IMPORTS", "shop.billing.invoice.Line", True),
    ("shop.billing.invoice", "IMPORTS", "json", False),
    ("shop.billing.invoice", "IMPORTS", "shop.billing.tax", True),
    ("shop.billing.invoice", "IMPORTS", "shop.core.base.BaseDocument", True),
    ("shop.billing.invoice", "IMPORTS", "shop.core.money.format_money", True),
    ("shop.core.money", "IMPORTS", "decimal", False),
    ("shop.payments", "IMPORTS", "shop.billing.invoice.Invoice", True),
    ("shop.payments", "IMPORTS", "shop.core.money", True),
    ("tests.test_invoice", "IMPORTS", "shop.billing.invoice.Invoice", True),
    ("tests.test_invoice", "IMPORTS", "shop.payments.Payment", True),
    ("tests.tests_tax", "IMPORTS", "shop.billing.tax", True),
    ("tests.tests_tax", "IMPORTS", "unittest", False),
    # INHERITS_FROM
    ("shop.billing.invoice.Invoice", "INHERITS_FROM", "shop.core.base.BaseDocument", True),
    ("tests.tests_tax.TaxTests", "INHERITS_FROM", "unittest.TestCase", False),
    # CALLS
    ("shop.billing.invoice.Invoice.add_line", "CALLS", "list.append", False),
    ("shop.billing.invoice.Invoice.add_line", "CALLS", "shop.billing.invoice.Line", True),
    ("shop.billing.invoice.Invoice.export", "CALLS", "self.exporter.send", False),
    ("shop.billing.invoice.Invoice.render", "CALLS", "json.dumps", False),
    ("shop.billing.invoice.Invoice.render", "CALLS", "shop.billing.invoice.Invoice.total", True),
    ("shop.billing.invoice.Invoice.render", "CALLS", "shop.core.base.BaseDocument.validate", True),
    ("shop.billing.invoice.Invoice.render", "CALLS", "shop.core.money.format_money", True),
    ("shop.billing.invoice.Invoice.total", "CALLS", "shop.billing.tax.apply", True),
    ("shop.billing.invoice.Invoice.total", "CALLS", "sum", False),
    ("shop.billing.tax.apply", "CALLS", "shop.billing.tax.rate", True),
    ("shop.core.base.BaseDocument.validate", "CALLS", "bool", False),
    ("shop.core.base.BaseDocument.validate", "CALLS", "shop.core.base.BaseDocument.number", True),
    ("shop.core.money.format_money", "CALLS", "decimal.Decimal", False),
    ("shop.core.money.format_money", "CALLS", "decimal.Decimal().quantize", False),
    ("shop.payments.Payment", "CALLS", "classmethod", False),
    ("shop.payments.Payment.full", "CALLS", "shop.billing.invoice.Invoice.total", True),
    ("shop.payments.Payment.full", "CALLS", "shop.payments.Payment", True),
    ("shop.payments.Payment.refund", "CALLS", "print", False),
    ("shop.payments.Payment.refund", "CALLS", "shop.billing.invoice.Invoice.add_line", True),
    ("shop.payments.Payment.refund", "CALLS", "shop.core.money.format_money", True),
    ("shop.payments.Payment.refund", "CALLS", "shop.payments.Payment", True),
    ("tests.test_invoice.TestPayment.test_refund", "CALLS", "shop.billing.invoice.Invoice", True),
    ("tests.test_invoice.TestPayment.test_refund", "CALLS", "shop.payments.Payment", True),
    ("tests.test_invoice.TestPayment.test_refund", "CALLS", "shop.payments.Payment.refund", True),
    ("tests.test_invoice.make_invoice", "CALLS", "shop.billing.invoice.Invoice", True),
    # invoice = make_invoice(), which always returns Invoice(...)
    ("tests.test_invoice.test_total", "CALLS", "shop.billing.invoice.Invoice.add_line", True),
    ("tests.test_invoice.test_total", "CALLS", "shop.billing.invoice.Invoice.total", True),
    ("tests.test_invoice.test_total", "CALLS", "tests.test_invoice.make_invoice", True),
    ("tests.tests_tax.TaxTests.helper", "CALLS", "shop.billing.tax.apply", True),
    ("tests.tests_tax.TaxTests.test_rate", "CALLS", "shop.billing.tax.rate", True),
    ("tests.tests_tax.TaxTests.test_rate", "CALLS", "unittest.TestCase.assertEqual", False),
    # PARAM_TYPE
    ("shop.payments.Payment.full", "PARAM_TYPE", "shop.billing.invoice.Invoice", True),
    ("shop.payments.Payment.refund", "PARAM_TYPE", "shop.billing.invoice.Invoice", True),
    # RETURNS_TYPE
    ("shop.payments.Payment.refund", "RETURNS_TYPE", "shop.payments.Payment", True),
    # TESTED_BY
    ("shop.billing.invoice.Invoice", "TESTED_BY", "tests.test_invoice.TestPayment.test_refund", True),
    ("shop.billing.tax.rate", "TESTED_BY", "tests.tests_tax.TaxTests.test_rate", True),
    ("shop.payments.Payment", "TESTED_BY", "tests.test_invoice.TestPayment.test_refund", True),
    ("shop.payments.Payment.refund", "TESTED_BY", "tests.test_invoice.TestPayment.test_refund", True),
    ("tests.test_invoice.make_invoice", "TESTED_BY", "tests.test_invoice.test_total", True),
    ("shop.billing.invoice.Invoice.add_line", "TESTED_BY", "tests.test_invoice.test_total", True),
    ("shop.billing.invoice.Invoice.total", "TESTED_BY", "tests.test_invoice.test_total", True),
}
