"""The layers point one way: a module may import only its own layer and the layers below it,
and ingest and retrieval never import each other. See the README's architecture section.

    adapters   branchgraph.cli, .http_api, .mcp_server, .hooks, .__main__ (and the package root)
    api        branchgraph.api, branchgraph.stores, branchgraph.doctor, branchgraph.service
    ingest | retrieval (impact reads the stores like retrieval does)
    stores     branchgraph.graph, .schema, .cypher
    foundation branchgraph.core (and the package root, which re-exports its errors)
"""

from __future__ import annotations

import ast
import tomllib
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent

FOUNDATION, STORES, INGEST, RETRIEVAL, API, ADAPTERS = "foundation", "stores", "ingest", "retrieval", "api", "adapters"
ALLOWED = {
    FOUNDATION: {FOUNDATION},
    STORES: {FOUNDATION, STORES},
    INGEST: {FOUNDATION, STORES, INGEST},
    RETRIEVAL: {FOUNDATION, STORES, RETRIEVAL},
    API: {FOUNDATION, STORES, INGEST, RETRIEVAL, API},
    # Adapters see the API and the exceptions the package root re-exports, nothing below.
    ADAPTERS: {API, ADAPTERS, "root"},
    "root": {FOUNDATION},
}


def layer_of(module: str) -> str:
    parts = module.split(".")
    if parts == ["branchgraph"]:
        return "root"
    second = parts[1]
    if second == "core":
        return FOUNDATION
    if second in ("graph", "schema", "cypher"):
        return STORES
    if second in ("ingest", "retrieval"):
        return second
    if second == "impact":
        return RETRIEVAL  # a reader of the stores, beside retrieval
    if second in ("api", "stores", "doctor", "service"):
        return API
    if second in ("cli", "http_api", "mcp_server", "hooks", "__main__"):
        return ADAPTERS
    raise AssertionError(f"{module} belongs to no layer: add it to tests/test_layers.py and the README")


def package_modules() -> dict[str, Path]:
    """Every module of the installed package, by import name, from pyproject's package-dir."""
    config = tomllib.loads((ROOT / "pyproject.toml").read_text("utf-8"))
    package_dir = config["tool"]["setuptools"]["package-dir"]
    modules: dict[str, Path] = {}
    for package, folder in package_dir.items():
        for path in (ROOT / folder).rglob("*.py"):
            rel = path.relative_to(ROOT / folder).with_suffix("")
            parts = [p for p in rel.parts if p != "__init__"]
            modules[".".join([package, *parts])] = path
    return modules


def imported_modules(source: str, module: str, known: set[str]) -> set[str]:
    """branchgraph modules a module's source imports (``from pkg import mod`` counts as mod)."""
    out: set[str] = set()
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            out.update(a.name for a in node.names if a.name.startswith("branchgraph"))
        elif isinstance(node, ast.ImportFrom) and node.module and node.module.startswith("branchgraph"):
            for alias in node.names:
                sub = f"{node.module}.{alias.name}"
                out.add(sub if sub in known else node.module)
    return out


def violations(modules: dict[str, str]) -> list[str]:
    """``importer -> imported`` for every import that crosses a layer the wrong way."""
    known = set(modules)
    found = []
    for module, source in sorted(modules.items()):
        here = layer_of(module)
        for target in sorted(imported_modules(source, module, known)):
            there = layer_of(target)
            if there not in ALLOWED[here]:
                found.append(f"{module} ({here}) -> {target} ({there})")
    return found


def test_every_import_points_down_the_layers():
    modules = {name: path.read_text("utf-8") for name, path in package_modules().items()}
    assert len(modules) > 40, "the package's modules were not found"
    assert violations(modules) == []


@pytest.mark.parametrize(
    ("importer", "source"),
    [
        ("branchgraph.core.config", "from branchgraph.ingest import pipeline"),
        ("branchgraph.graph.pgstore", "import branchgraph.retrieval.search"),
        ("branchgraph.retrieval.source", "from branchgraph.ingest.pipeline import ingest_branch"),
        ("branchgraph.ingest.pipeline", "from branchgraph.retrieval import context"),
        ("branchgraph.cli", "from branchgraph.graph.neo4j_store import Neo4jGraphStore"),
        ("branchgraph.mcp_server", "from branchgraph.core.config import Config"),
    ],
)
def test_the_check_catches_a_wrong_way_import(importer, source):
    modules = {name: path.read_text("utf-8") for name, path in package_modules().items()}
    modules[importer] = source
    assert any(v.startswith(importer) for v in violations(modules))
