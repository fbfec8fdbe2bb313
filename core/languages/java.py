"""Java's conventions: pure functions of a syntax node or a path.

A symbol's qualname starts with its file's package, read from the path below the source root
(Maven and Gradle's ``src/main/java/``, ``src/test/java/``, any ``src/<set>/java/`` or
multi-release ``src/<set>/java11/``, or a ``java/`` folder; else the whole directory): ``src/main/java/com/shop/Order.java`` holds
``com.shop.Order``, its method ``com.shop.Order.total``, a nested class
``com.shop.Order.Line``; an enum constant with a body is a class nested in its enum, a subclass
of it (``com.shop.OrderStatus.PAID``, its override ``com.shop.OrderStatus.PAID.next``).
"""

from __future__ import annotations

import re

from tree_sitter import Node

_SOURCE_ROOT = re.compile(r"^(?:.*/)?(?:src/[^/]+/java\d*|java)/")  # src/main/java11/ too
_TEST_DIR = re.compile(r"(^|/)src/(test|it|integrationTest|testFixtures)/")
_TEST_NAME = re.compile(r"(^|/)(\w+Tests?|Test\w+|\w+IT|\w+TestCase)\.java$")
_GENERATED = re.compile(r"(^|/)(target|build)/generated[^/]*/|(^|/)generated-sources/|(^|/)generated/")


# A call typed by a library class runs in-repo code only through an in-repo subclass of it.
nominal_types = True


def clean_docstring(text: str) -> str:
    """A Javadoc ``/** ... */`` (or a ``//`` run) without its delimiters and leading stars."""
    text = text.strip()
    if text.startswith("/*"):
        body = text[2:].removesuffix("*/").lstrip("*")
        return "\n".join(line.strip().removeprefix("*").strip() for line in body.splitlines()).strip()
    return "\n".join(line.strip().removeprefix("//").strip() for line in text.splitlines()).strip()


def signature(node: Node, source: bytes) -> str:
    """A declaration's header up to its body, annotations left out, on one line
    (``public Order place(List<Line> lines)``, ``public class OrderService extends Base``)."""
    body = node.child_by_field_name("body")
    end = body.start_byte if body is not None else node.end_byte
    start = node.start_byte
    modifiers = next((c for c in node.children if c.type == "modifiers"), None)
    if modifiers is not None:
        annotations = [c for c in modifiers.children if c.type in ("marker_annotation", "annotation")]
        if annotations:
            start = annotations[-1].end_byte
    header = source[start:end].decode("utf-8", "replace")
    return " ".join(header.split()).rstrip("{; ")


def annotation_name(annotation: str) -> str:
    """An annotation as a decorator records it, by its bare name: ``Test``,
    ``org.junit.Test``, ``Test(expected = X.class)`` -> ``Test``."""
    return annotation.split("(", 1)[0].strip().rsplit(".", 1)[-1]


def is_test_file(path: str) -> bool:
    """A file JUnit runs tests from: under ``src/test/java/`` (or another test source set) and
    named like a test class (``OrderServiceTest.java``, ``TestOrders.java``, ``*IT.java``)."""
    return bool(_TEST_DIR.search(path)) and bool(_TEST_NAME.search(path))


def is_support_file(path: str) -> bool:
    """Tests and test-only code: everything under a test source set."""
    return bool(_TEST_DIR.search(path))


def is_generated_file(path: str) -> bool:
    """Annotation processors' and code generators' output (``target/generated-sources``)."""
    return bool(_GENERATED.search(path))


def is_declaration_file(path: str) -> bool:
    return False


def module_name(path: str) -> str:
    """A file's package, from its folders below the source root."""
    directory = path.rsplit("/", 1)[0] if "/" in path else ""
    found = _SOURCE_ROOT.match(path)
    if found:
        directory = path[found.end() :].rsplit("/", 1)[0] if "/" in path[found.end() :] else ""
    return directory.replace("/", ".")
