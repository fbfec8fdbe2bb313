"""An update resolves from undecoded parses (``DeferredSource``) as a fresh resolution of the
commit would, and decodes only the files its change reaches: no database, the shop fixture
resolved once, a file changed, then resolved again from the first resolution's records."""

from __future__ import annotations

import dataclasses
import hashlib

from branchgraph.core.extract import encode_parsed, extract
from branchgraph.core.languages import language_for_path
from branchgraph.ingest.incremental import PreviousResolution
from branchgraph.ingest.resolvers import resolve_update
from branchgraph.ingest.subgraphs import DeferredSource, ParsedSource

CHANGED = "tests/test_invoice.py"


def _parsed(sources: dict[str, bytes]) -> list[ParsedSource]:
    files = []
    for path, data in sorted(sources.items()):
        spec = language_for_path(path)
        if spec is not None:
            files.append(ParsedSource(path, hashlib.sha1(data).hexdigest(), extract(spec.name, data)))
    return files


def _stored(files: list[ParsedSource]) -> PreviousResolution:
    first = resolve_update("shop", "main", files)
    records = first.records

    def dependents(keys):
        return {path for path, record in records.items() if record.reads and set(record.reads) & set(keys)}

    # A record read back from the stores has no read list: `dependents` queries them.
    kept = {path: dataclasses.replace(r, reads=[]) for path, r in records.items()}
    return PreviousResolution({f.path: f.blob_sha for f in files}, kept, dependents)


def test_an_update_from_undecoded_parses_equals_a_fresh_resolution(shop_sources):
    before = _parsed(shop_sources)
    previous = _stored(before)
    after_sources = {**shop_sources, CHANGED: shop_sources[CHANGED] + b"\n\ndef test_more():\n    assert True\n"}
    after = _parsed(after_sources)
    # What the pipeline hands an update: the unchanged files' parses still encoded.
    unchanged = {f.path for f in before} - {CHANGED}
    deferred = [
        DeferredSource(f.path, f.blob_sha, encode_parsed(f.parsed), f.parsed.parse_errors, False, bool(f.parsed.calls))
        if f.path in unchanged
        else f
        for f in after
    ]
    update = resolve_update("shop", "main", deferred, previous=previous)
    fresh = resolve_update("shop", "main", after)

    fresh_graphs = {s.path: s for s in fresh.subgraphs}
    stored_graphs = {s.path: s for s in resolve_update("shop", "main", before).subgraphs}
    updated = {**stored_graphs, **{s.path: s for s in update.subgraphs}}
    assert updated == fresh_graphs
    assert {p: r.facts for p, r in update.records.items()} == {p: fresh.records[p].facts for p in update.records}
    assert update.counts == fresh.counts
    # The change reached the test file and what it imports, not every file.
    undecoded = {f.path for f in deferred if isinstance(f, DeferredSource) and not f.is_decoded}
    assert CHANGED in {s.path for s in update.subgraphs}
    assert undecoded, "every parse was decoded"
    assert not undecoded & {s.path for s in update.subgraphs}
