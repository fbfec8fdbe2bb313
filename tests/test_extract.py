"""Extraction: the generic capture loop over the Python tag query."""

from branchgraph.core.extract import extract

SOURCE = b'''"""Module doc."""
import os.path as osp
from .sibling import thing as other, more
from ..up import *


@decorate
@app.route("/x")
class Outer(Base, metaclass=Meta):
    """Outer doc."""

    def method(self, a: int, b: "Outer" = None) -> Outer:
        """Method doc."""
        def inner():
            return helper()
        value = Outer()
        return inner()


def top(x):
    return x
'''


def by_name(parsed):
    return {d.name: d for d in parsed.definitions}


def test_definitions_spans_nesting_and_docs():
    parsed = extract("python", SOURCE)
    defs = by_name(parsed)
    assert set(defs) == {"Outer", "method", "inner", "top"}
    outer, method, inner = defs["Outer"], defs["method"], defs["inner"]
    # A decorated definition's lines start at its first decorator.
    assert (outer.kind, outer.start_line, outer.end_line) == ("class", 7, 17)
    assert (method.start_line, method.end_line) == (12, 17)
    assert parsed.definitions[method.parent] is outer
    assert parsed.definitions[inner.parent] is method
    assert defs["top"].parent is None
    assert outer.docstring == "Outer doc."
    assert method.docstring == "Method doc."
    assert parsed.docstring == "Module doc."
    assert outer.decorators == ["decorate", 'app.route("/x")']
    assert method.signature == 'def method(self, a: int, b: "Outer" = None) -> Outer'
    assert outer.signature == "class Outer(Base, metaclass=Meta)"


def test_references_carry_scope_and_kind():
    parsed = extract("python", SOURCE)
    defs = parsed.definitions
    refs = {(r.kind, r.raw, defs[r.scope].name if r.scope is not None else None) for r in parsed.references}
    assert ("call", "helper", "inner") in refs
    assert ("call", "Outer", "method") in refs
    assert ("call", "inner", "method") in refs
    assert ("call", "decorate", None) in refs  # decorators run in the enclosing scope
    assert ("call", "app.route", None) in refs
    assert ("base", "Base", "Outer") in refs
    assert not any(r.kind == "base" and "Meta" in r.raw for r in parsed.references)  # keyword, not a base
    assert ("param_type", "int", "method") in refs
    assert ("param_type", '"Outer"', "method") in refs
    assert ("return_type", "Outer", "method") in refs
    params = {r.param for r in parsed.references if r.kind == "param_type"}
    assert params == {"a", "b"}


def test_imports_and_assignments():
    parsed = extract("python", SOURCE)
    imports = {(i.module, i.name, i.alias) for i in parsed.imports}
    assert imports == {
        ("os.path", None, "osp"),
        (".sibling", "thing", "other"),
        (".sibling", "more", None),
        ("..up", "*", None),
    }
    assert [(a.name, a.callee, a.kind) for a in parsed.assignments if a.name != "return"] == [
        ("self", "self", "parameter"),  # untyped parameters (typed ones are param_type references)
        ("value", "Outer", "call"),
        ("x", "x", "parameter"),
    ]
    # What functions return or yield, when it is a call or a name, is an assignment to "return".
    returns = [(a.callee, a.kind) for a in parsed.assignments if a.name == "return"]
    assert returns == [("helper", "call"), ("inner", "call"), ("x", "alias")]


def test_content_hash_ignores_position():
    a = extract("python", b"def f():\n    return 1\n").definitions[0]
    b = extract("python", b"\n\n\ndef f():\n    return 1\n").definitions[0]
    c = extract("python", b"def f():\n    return 2\n").definitions[0]
    assert a.content_hash == b.content_hash != c.content_hash
    assert b.start_line == 4


def test_broken_source_is_parsed_with_errors_counted():
    parsed = extract("python", b"def ok():\n    pass\n\ndef broken(:\n    return (\n\nclass Fine:\n    pass\n")
    assert parsed.parse_errors > 0
    assert "ok" in by_name(parsed)


def test_deeply_nested_source_does_not_crash():
    depth = 300
    source = "".join("    " * i + f"def f{i}():\n" for i in range(depth)) + "    " * depth + "pass\n"
    parsed = extract("python", source.encode())
    defs = parsed.definitions
    assert len(defs) == depth
    names = by_name(parsed)
    for i in range(1, depth):
        assert defs[names[f"f{i}"].parent].name == f"f{i - 1}"


def test_parse_cache_encoding_round_trips():
    from branchgraph.core.extract import decode_parsed, encode_parsed

    parsed = extract("python", SOURCE + b"<<<<<<< HEAD\nx = 1\n=======\nx = 2\n>>>>>>> b\n")
    again = decode_parsed(encode_parsed(parsed))
    assert again == parsed
    assert again.conflict_lines == [22, 24, 26]
