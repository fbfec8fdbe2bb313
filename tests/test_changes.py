"""A diff read symbol by symbol, without any database: what a hunk touches on each side, with
a pure insertion placed as git places it and lines that are no code left out."""

from __future__ import annotations

from branchgraph.impact.changes import FileVersions, changed_symbols

JAVA = b"""package com.shop;

class Tokens {
    void emit(String s) {
        log(s);
    }

    void transition(int state) {
        this.state = state;
    }
}
"""

PYTHON = b'''class A:
    """Doc."""

    def one(self):
        return 1

    def two(self):
        x = 1
        return x


def f():
    def inner():
        return 2

    return inner()
'''


def _changes(path: str, old: bytes, new: bytes) -> list[tuple[str, str]]:
    return [(c.qualname, c.change) for c in changed_symbols([FileVersions(path, old, new)])]


def test_a_method_added_between_two_touches_neither_nor_its_class():
    path = "src/main/java/com/shop/Tokens.java"
    added = b"    /** Twice. */\n    void twice(int state) {\n        transition(state);\n    }\n\n"
    new = JAVA.replace(b"    void transition(", added + b"    void transition(", 1)
    # difflib would open the insertion with emit's closing brace and the blank line after it.
    assert _changes(path, JAVA, new) == [("com.shop.Tokens.twice", "added")]
    body = JAVA.replace(b"        this.state = state;\n", b"        this.state = state;\n        log(null);\n")
    assert _changes(path, JAVA, body) == [("com.shop.Tokens.transition", "modified")]


def test_python_insertions_deletions_comments_and_blank_lines():
    method = PYTHON.replace(
        b"    def two(self):", b"    def new(self):\n        return 0\n\n    # below\n    def two(self):"
    )
    assert _changes("m.py", PYTHON, method) == [("m.A.new", "added")]
    attribute = PYTHON.replace(b'    """Doc."""\n', b'    """Doc."""\n    size = 3\n')
    assert _changes("m.py", PYTHON, attribute) == [("m.A", "modified")]
    # A nested function removed changes the function it was in.
    assert _changes("m.py", PYTHON, PYTHON.replace(b"    def inner():\n        return 2\n\n", b"")) == [
        ("m.f", "modified"),
        ("m.f.inner", "deleted"),
    ]
    # A comment as a body's first line is no new signature; a blank line between methods no change.
    comment = PYTHON.replace(b"        x = 1\n", b"        # set x\n        x = 1\n")
    assert _changes("m.py", PYTHON, comment) == [("m.A.two", "modified")]
    assert _changes("m.py", PYTHON, PYTHON.replace(b"        return 1\n\n", b"        return 1\n\n\n")) == []


OVERLOADS = b"""package p;

class T {
    void emit(String s) {
        log(s);
    }

    void emit(char[] c) {
        log(new String(c));
    }
}
"""


def test_overloads_sharing_a_name_are_told_apart_by_their_headers():
    path = "src/main/java/p/T.java"
    added = OVERLOADS.replace(
        b"    void emit(char[] c) {", b"    void emit(int n) {\n        log(n);\n    }\n\n    void emit(char[] c) {"
    )
    assert [(c.change, c.start_line) for c in changed_symbols([FileVersions(path, OVERLOADS, added)])] == [
        ("added", 8)  # the new overload, not the one it was written above
    ]
    edited = OVERLOADS.replace(b"log(new String(c));", b"log(String.valueOf(c));")
    assert [(c.change, c.start_line) for c in changed_symbols([FileVersions(path, OVERLOADS, edited)])] == [
        ("modified", 8)
    ]
    # An overload's header changed is another overload: one gone, one new.
    resigned = OVERLOADS.replace(b"void emit(String s)", b"void emit(CharSequence s)")
    changes = {(c.change, c.start_line) for c in changed_symbols([FileVersions(path, OVERLOADS, resigned)])}
    assert changes == {("added", 4), ("deleted", 4)}


SUITE = b"""describe("cart", () => {
  beforeEach(() => reset());

  test("adds a line", () => {
    expect(add()).toBe(1);
  });
});
"""


def test_a_test_added_to_a_suite_changes_the_test_not_the_suite():
    """A describe block holds tests as a class holds methods: one added between them is the
    change (the suite's own code, its set-up, is still a change of the suite's)."""
    path = "src/cart.test.ts"
    added = SUITE.replace(
        b"\n});\n", b'\n\n  test("removes a line", () => {\n    expect(remove()).toBe(0);\n  });\n});\n'
    )
    assert _changes(path, SUITE, added) == [("src/cart.test.cart.removes a line", "added")]
    setup = SUITE.replace(b"reset()", b"reset(true)")
    assert _changes(path, SUITE, setup) == [("src/cart.test.cart", "modified")]
