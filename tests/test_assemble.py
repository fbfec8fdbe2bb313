"""Assembly of candidates into items, without the stores: which definitions of one name are
one item."""

from branchgraph.retrieval.assemble import Candidate, merge_overloads
from branchgraph.retrieval.source import Span


def _candidate(id_: str, start: int, end: int, score: float = 0.5, qualname: str = "m.f") -> Candidate:
    return Candidate(id_, "Function", qualname, "m.py", Span(start, end), score, "search match", None, False, [])


def test_overload_declarations_join_the_implementation_they_precede():
    # @overload stubs (one line each, two blank lines and a decorator apart) and the body.
    stubs = [_candidate("a", 5, 5, 0.9), _candidate("b", 9, 10)]
    body = _candidate("c", 14, 30, 0.3)
    candidates = {c.id: c for c in [*stubs, body]}
    merge_overloads(candidates)
    assert list(candidates) == ["c"]
    assert candidates["c"].span == Span(5, 30)  # the declarations are shown, not lost
    assert candidates["c"].score == 0.9


def test_definitions_with_code_of_their_own_stay_items():
    # A property's getter and setter (one decorator line apart), Java overloads, the two
    # versions of a function under `if sys.version_info`: each is read on its own.
    getter, setter = _candidate("get", 436, 443), _candidate("set", 445, 452)
    far = _candidate("other", 600, 640)
    candidates = {c.id: c for c in [getter, setter, far]}
    merge_overloads(candidates)
    assert sorted(candidates) == ["get", "other", "set"]
    assert candidates["get"].span == Span(436, 443) and candidates["set"].span == Span(445, 452)


def test_a_short_getter_is_shown_with_its_setter():
    getter, setter = _candidate("get", 10, 11), _candidate("set", 13, 20)
    candidates = {c.id: c for c in [setter, getter]}
    merge_overloads(candidates)
    assert list(candidates) == ["set"] and candidates["set"].span == Span(10, 20)


def test_short_definitions_far_apart_or_of_other_names_stay_apart():
    a, b = _candidate("a", 10, 11), _candidate("b", 30, 31)
    other = _candidate("o", 12, 13, qualname="m.g")
    candidates = {c.id: c for c in [a, b, other]}
    merge_overloads(candidates)
    assert sorted(candidates) == ["a", "b", "o"]


def test_what_hung_from_a_declaration_hangs_from_its_implementation():
    stub, body = _candidate("stub", 1, 1), _candidate("body", 4, 9)
    callee = Candidate("x", "Function", "m.g", "m.py", Span(20, 25), 0.2, "callee of m.f", "stub", False, [])
    candidates = {c.id: c for c in [stub, body, callee]}
    merge_overloads(candidates)
    assert candidates["x"].parent == "body"
