"""Which store protocols each backend passes: every method of the protocol exists on the
backend with the same parameters. (mypy checks the same statically in each backend module;
this test says it in one table, and a new backend gets a row here.)"""

from __future__ import annotations

import inspect

import pytest

import branchgraph
from branchgraph.core import errors
from branchgraph.graph.neo4j_store import Neo4jGraphStore
from branchgraph.graph.pgstore import PgStore
from branchgraph.graph.protocols import (
    FullTextIndex,
    GraphReader,
    GraphWriter,
    IndexState,
    IngestTarget,
    ParseCache,
    PushLog,
    RetrievalSource,
    VectorStore,
)

BACKENDS = {
    Neo4jGraphStore: (GraphWriter, GraphReader),
    PgStore: (VectorStore, FullTextIndex, ParseCache, IndexState, IngestTarget, RetrievalSource, PushLog),
}


def protocol_methods(protocol: type) -> dict[str, inspect.Signature]:
    members = {}
    for klass in protocol.__mro__:
        if klass is object or not getattr(klass, "_is_protocol", False):
            continue
        for name, value in vars(klass).items():
            if callable(value) and not name.startswith("_") and name not in members:
                members[name] = inspect.signature(value)
    return members


def mismatches(backend: type, protocol: type) -> list[str]:
    out = []
    for name, wanted in protocol_methods(protocol).items():
        found = getattr(backend, name, None)
        if found is None:
            out.append(f"{name}: missing")
            continue
        got = inspect.signature(found)
        if list(got.parameters) != list(wanted.parameters):
            out.append(f"{name}: takes {list(got.parameters)}, the protocol {list(wanted.parameters)}")
    return out


@pytest.mark.parametrize(
    ("backend", "protocol"),
    [(backend, protocol) for backend, protocols in BACKENDS.items() for protocol in protocols],
    ids=lambda v: v.__name__,
)
def test_backend_passes_protocol(backend, protocol):
    assert protocol_methods(protocol), f"{protocol.__name__} declares no methods"
    assert mismatches(backend, protocol) == []


def test_a_backend_missing_a_method_fails_the_check():
    class Partial:
        def cached_parses(self, blob_shas, language, version): ...

    assert mismatches(Partial, ParseCache) == ["put_parses: missing"]


def test_every_exception_is_in_errors_and_exported_from_the_package():
    defined = {
        name
        for name, value in vars(errors).items()
        if inspect.isclass(value) and issubclass(value, Exception) and value.__module__ == errors.__name__
    }
    assert defined <= set(branchgraph.__all__)
    assert all(getattr(branchgraph, name) is getattr(errors, name) for name in defined)
