"""Named Cypher queries: one ``cypher/<name>.cypher`` file each, with a header that documents
its parameters (``// param name: description [default: JSON]``)."""

from __future__ import annotations

import functools
import json
import re
from dataclasses import dataclass
from importlib import resources
from typing import Any

from branchgraph.core.errors import UnknownQuery

_PARAM = re.compile(r"^//\s*param\s+(\w+):\s*(.*?)(?:\s*\[default:\s*(.+)\])?\s*$")


@dataclass(frozen=True, slots=True)
class QueryParam:
    name: str
    description: str
    default: Any = None
    required: bool = True


@dataclass(frozen=True, slots=True)
class NamedQuery:
    name: str
    summary: str
    params: tuple[QueryParam, ...]
    text: str

    def bind(self, given: dict[str, Any]) -> dict[str, Any]:
        """Parameters with defaults filled in; a missing or unknown one is named."""
        known = {p.name for p in self.params}
        unknown = sorted(set(given) - known)
        if unknown:
            raise UnknownQuery(
                f"query {self.name!r} has no parameter {', '.join(unknown)}; it takes {', '.join(sorted(known))}"
            )
        bound = {p.name: p.default for p in self.params if not p.required}
        bound.update(given)
        missing = [p.name for p in self.params if p.name not in bound]
        if missing:
            raise UnknownQuery(f"query {self.name!r} needs --param for {', '.join(missing)}")
        return bound


def _parse(name: str, text: str) -> NamedQuery:
    summary = ""
    params = []
    for line in text.splitlines():
        if not line.startswith("//"):
            break
        match = _PARAM.match(line)
        if match:
            pname, description, default = match.groups()
            params.append(QueryParam(pname, description, json.loads(default) if default else None, default is None))
        elif not summary:
            summary = line.lstrip("/ ").strip()
    return NamedQuery(name, summary, tuple(params), text)


@functools.cache
def _load() -> dict[str, NamedQuery]:
    # Package data does not change while the process runs; retrieval asks for ``expand`` on
    # every context.
    folder = resources.files("branchgraph.cypher")
    return {
        entry.name[: -len(".cypher")]: _parse(entry.name[: -len(".cypher")], entry.read_text("utf-8"))
        for entry in sorted(folder.iterdir(), key=lambda e: e.name)
        if entry.name.endswith(".cypher")
    }


def named_queries() -> dict[str, NamedQuery]:
    return dict(_load())


def named_query(name: str) -> NamedQuery:
    queries = named_queries()
    if name not in queries:
        raise UnknownQuery(f"no named query {name!r}; known: {', '.join(queries)}")
    return queries[name]
