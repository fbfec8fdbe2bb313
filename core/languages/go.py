"""Go's conventions: pure functions of a syntax node or a path.

A package is a directory, so a symbol's qualname starts with its file's directory
(``internal/orders.Service.Place``; at the repository root, the bare name).
"""

from __future__ import annotations

import re

from tree_sitter import Node

_GENERATED = re.compile(r"(\.pb|_grpc\.pb|\.pb\.gw|_gen|_generated|_string|\.gen)\.go$|(^|/)zz_generated[^/]*\.go$")
_SUPPORT_DIR = re.compile(r"(^|/)(testdata|testutil|testing)/")


def clean_docstring(text: str) -> str:
    """A ``//`` or ``/* */`` comment without its delimiters."""
    text = text.strip()
    if text.startswith("/*"):
        return text[2:].removesuffix("*/").strip()
    return "\n".join(line.strip().removeprefix("//").strip() for line in text.splitlines()).strip()


def signature(node: Node, source: bytes) -> str:
    """A definition's header up to its body, on one line (``func (s *Service) Place(o
    *Order) error``, ``type Service struct``)."""
    body = node.child_by_field_name("body")
    if node.type == "type_spec":
        kind = node.child_by_field_name("type")
        body = kind.named_children[0] if kind is not None and kind.named_children else None
    end = body.start_byte if body is not None else node.end_byte
    header = source[node.start_byte : end].decode("utf-8", "replace")
    header = " ".join(header.split()).rstrip("{ ")
    return f"type {header}" if node.type == "type_spec" else header


def is_test_file(path: str) -> bool:
    """A file ``go test`` compiles tests from: ``*_test.go``."""
    return path.endswith("_test.go")


def is_support_file(path: str) -> bool:
    """Tests and test-only code: ``_test.go`` files and ``testdata/`` or test-helper folders."""
    return is_test_file(path) or bool(_SUPPORT_DIR.search(path))


def is_generated_file(path: str) -> bool:
    """Protobuf/gRPC output, ``stringer`` and other generators' ``*_gen.go`` files."""
    return bool(_GENERATED.search(path))


def is_declaration_file(path: str) -> bool:
    return False


def module_name(path: str) -> str:
    """A file's package: its directory (empty at the repository root)."""
    return path.rsplit("/", 1)[0] if "/" in path else ""
