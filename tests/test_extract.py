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


# TypeScript's own parser inserts the `;` between these members; tree-sitter's grammar does
# not, and without help the interface and what follows it do not parse.
GENERIC_SIGNATURES = b"""export interface RouteInterface<E = {}> {
  <P extends string>(path: P): Router<E>
  <P extends string, R = unknown>(
    path: P,
    handler: Handler<R>
  ): Router<E>
}

const template = `
  <div>kept as written</div>
`

export interface After {
  run(): void
}

export function register(router: Router<{}>) {
  return router.add(template)
}
"""


def test_typescript_generic_call_signatures_on_new_lines_are_members_not_an_error():
    from branchgraph.core.extract import _parse
    from branchgraph.core.model import content_hash

    parsed = extract("typescript", GENERIC_SIGNATURES)
    assert parsed.parse_errors == 0
    assert {"RouteInterface", "After", "register"} <= {d.name for d in parsed.definitions}
    assert [r.raw for r in parsed.references if r.kind == "call"] == ["router.add"]
    route = next(d for d in parsed.definitions if d.name == "RouteInterface")
    text = GENERIC_SIGNATURES[route.start_byte : route.end_byte].decode()
    assert content_hash(text) == route.content_hash  # the file's bytes, not the repaired ones
    repaired = _parse("typescript", GENERIC_SIGNATURES).root_node.text or b""
    assert len(repaired) == len(GENERIC_SIGNATURES)
    second = GENERIC_SIGNATURES.index(b"  <P extends string, R")
    assert repaired[second : second + 1] == b";"  # a separator between members
    inside_template = GENERIC_SIGNATURES.index(b"  <div>")
    assert repaired[inside_template : inside_template + 2] == b"  "  # a template's text is left alone


def test_a_typescript_file_that_parses_is_never_repaired():
    from branchgraph.core.extract import _parse

    source = b"const a = 1\nconst lower = a\n  < 2\nexport const t = `\n  <b>x</b>\n`\n"
    assert _parse("typescript", source).root_node.text == source
    assert extract("typescript", source).parse_errors == 0


def test_a_repaired_typescript_definition_keeps_its_header_as_written():
    source = b"export type Router = {\n  <A>(x: A): B\n  <C>(y: C): D\n}\n"
    (router,) = extract("typescript", source).definitions
    assert router.signature == "type Router = { <A>(x: A): B <C>(y: C): D }"  # no separator read in


def test_parsing_on_every_core_gives_each_file_what_parsing_in_process_does():
    """Above the pool's threshold, children send each parse as its cache encoding: what the
    parent decodes is the in-process parse, and the encoding is the one the cache stores."""
    from branchgraph.core.extract import _PARALLEL_MIN_BYTES, decode_parsed, encode_parsed, extract_all

    jobs = [
        ("python", SOURCE + f"\ndef extra_{i}(x):\n    return helper(x) + {i}\n".encode())
        for i in range(_PARALLEL_MIN_BYTES // len(SOURCE) + 10)
    ]
    jobs.append(("typescript", b"export function f(a: number): number { return g(a) }\n"))
    results = list(extract_all(jobs, workers=2))
    assert len(results) == len(jobs)
    for (language, data), (parsed, encoded) in zip(jobs, results, strict=True):
        assert parsed == extract(language, data)
        assert decode_parsed(encoded) == parsed
        assert encoded == encode_parsed(parsed)
