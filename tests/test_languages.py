"""The language registry: every registered language has a grammar, a tag query, conventions
and a resolver, and the conventions are what ingest and ranking use."""

from __future__ import annotations

import pytest

from branchgraph.core.extract import extract
from branchgraph.core.languages import LANGUAGES, is_generated_path, is_support_path, language_for_path, tag_query
from branchgraph.ingest.resolvers import RESOLVERS


@pytest.mark.parametrize("spec", LANGUAGES, ids=lambda s: s.name)
def test_a_registered_language_is_complete(spec):
    assert spec.resolver in RESOLVERS, f"{spec.name} has no resolver in branchgraph.ingest.resolvers"
    assert tag_query(spec.name).pattern_count > 0
    for ext in spec.extensions:
        assert language_for_path(f"pkg/mod{ext}") is spec


def test_extensions_belong_to_one_language():
    extensions = [ext for spec in LANGUAGES for ext in spec.extensions]
    assert len(extensions) == len(set(extensions))


def test_python_conventions_feed_extraction_and_ranking():
    parsed = extract("python", b'def f(a: int) -> str:\n    r"""Say it."""\n    return str(a)\n')
    (definition,) = parsed.definitions
    assert definition.signature == "def f(a: int) -> str"
    assert definition.docstring == "Say it."
    assert is_support_path("tests/test_api.py") and is_support_path("pkg/conftest.py")
    assert not is_support_path("pkg/testing.py")
    assert is_generated_path("pkg/service_pb2.py") and not is_generated_path("pkg/service.py")
    assert not is_support_path("README.md") and language_for_path("README.md") is None
