"""Incremental indexing, proven against the equivalence oracle: after any update, branch-off,
rename, deletion or force-push, the branch's graph and vector rows equal a fresh full ingest
of the same commit under another branch name."""

from __future__ import annotations

import itertools
import threading
from pathlib import Path

import pytest
from gitrepo import commit_files, init_repo
from graph_view import snapshot

from branchgraph import api

pytestmark = [pytest.mark.neo4j, pytest.mark.postgres]

_oracle_names = itertools.count()


def assert_equals_fresh_ingest(repo_dir: Path, branch: str, config, graph_store, pg_store) -> None:
    """The oracle: a fresh full ingest of the branch's indexed commit under another name."""
    state = next(s for s in api.status(repo_dir, config=config) if s.branch == branch)
    oracle = f"oracle-{next(_oracle_names)}"
    fresh = api.ingest(repo_dir, branch=oracle, rev=state.indexed_commit, full=True, config=config)
    assert fresh.strategy == "bulk"
    try:
        incremental = snapshot(graph_store, pg_store, repo_dir.name, branch)
        expected = snapshot(graph_store, pg_store, repo_dir.name, oracle)
        assert incremental["nodes"] == expected["nodes"]
        assert incremental["edges"] == expected["edges"]
        assert incremental["vectors"] == expected["vectors"]
    finally:
        graph_store.delete_branch(repo_dir.name, oracle)
        pg_store.delete_branch(repo_dir.name, oracle)


def edge_of(graph_store, repo: str, branch: str, src_qualname: str, raw: str):
    rows = graph_store.read_query(
        "MATCH (a {repo: $repo, branch: $branch, qualname: $q})-[r:CALLS {raw: $raw}]->(b) "
        "RETURN r.resolved AS resolved, coalesce(b.qualname, b.raw) AS target",
        {"repo": repo, "branch": branch, "q": src_qualname, "raw": raw},
    )
    assert len(rows) == 1, rows
    return rows[0]


APP = {
    "app/__init__.py": "",
    "app/core.py": "def helper():\n    return 1\n\n\ndef compute(x):\n    return helper() + x\n",
    "app/api.py": "from app.core import compute, helper\n\n\ndef handle():\n    return compute(helper())\n",
    "tests/test_api.py": "from app.api import handle\n\n\ndef test_handle():\n    assert handle() == 2\n",
}


def test_update_rewrites_only_what_changed_and_callers_of_deleted_symbols_dangle(
    repo_dir, config, graph_store, pg_store
):
    repo = init_repo(repo_dir)
    commit_files(repo, APP)
    first = api.ingest(repo_dir, config=config)
    assert first.strategy == "bulk"

    changed = {**APP, "app/core.py": "def compute(x):\n    return x\n"}  # helper() deleted
    commit_files(repo, changed)
    update = api.ingest(repo_dir, config=config)
    assert update.strategy == "update"
    assert update.changes == {"added": 0, "modified": 1, "deleted": 0, "renamed": 0}
    assert update.work["files_parsed"] == 1
    # api.py did not change, but its call to helper() now dangles: it was re-resolved.
    assert update.work["files_written"] == 2 and update.work["files_re_resolved"] == 1
    assert update.work["nodes_deleted"] == 1  # helper()
    assert update.work["edges_deleted"] >= 2  # its DEFINES edge and the call into it from api.py
    assert edge_of(graph_store, repo_dir.name, "main", "app.api.handle", "helper") == {
        "resolved": False,
        "target": "helper",
    }
    assert_equals_fresh_ingest(repo_dir, "main", config, graph_store, pg_store)


def test_dangling_edges_are_rebound_when_their_target_appears(repo_dir, config, graph_store, pg_store):
    repo = init_repo(repo_dir)
    commit_files(repo, {**APP, "app/core.py": "def compute(x):\n    return x\n"})
    api.ingest(repo_dir, config=config)
    assert edge_of(graph_store, repo_dir.name, "main", "app.api.handle", "helper")["resolved"] is False
    commit_files(repo, APP)
    update = api.ingest(repo_dir, config=config)
    assert update.work["files_re_resolved"] == 1
    assert edge_of(graph_store, repo_dir.name, "main", "app.api.handle", "helper") == {
        "resolved": True,
        "target": "app.core.helper",
    }
    assert_equals_fresh_ingest(repo_dir, "main", config, graph_store, pg_store)


def test_renames_are_recorded_and_followed(repo_dir, config, graph_store, pg_store):
    repo = init_repo(repo_dir)
    commit_files(repo, APP)
    api.ingest(repo_dir, config=config)
    moved = {k: v for k, v in APP.items() if k != "app/core.py"}
    moved["app/engine.py"] = APP["app/core.py"]
    moved["app/api.py"] = APP["app/api.py"].replace("app.core", "app.engine")
    commit_files(repo, moved)
    update = api.ingest(repo_dir, config=config)
    assert update.changes["renamed"] == 1
    # Both functions of the moved file keep their vectors: no embedding call for a rename.
    assert update.embeddings["carried"] == 2 and update.embeddings["computed"] == 0
    record = pg_store.branch_record(repo_dir.name, "main")
    assert record.rename_map == {"app/core.py": "app/engine.py"}
    assert edge_of(graph_store, repo_dir.name, "main", "app.api.handle", "compute")["target"] == "app.engine.compute"
    assert_equals_fresh_ingest(repo_dir, "main", config, graph_store, pg_store)


def test_a_symbol_that_only_moved_keeps_its_embedding(repo_dir, config, graph_store, pg_store):
    repo = init_repo(repo_dir)
    commit_files(repo, APP)
    api.ingest(repo_dir, config=config)
    shifted = {**APP, "app/core.py": "\n\n\n" + APP["app/core.py"]}
    commit_files(repo, shifted)
    update = api.ingest(repo_dir, config=config)
    assert update.embeddings == {"computed": 0, "reused": 2, "carried": 0}
    lines = graph_store.read_query(
        "MATCH (f:Function {repo: $repo, branch: 'main', qualname: 'app.core.helper'}) RETURN f.start_line AS s",
        {"repo": repo_dir.name},
    )
    assert lines == [{"s": 4}]
    assert_equals_fresh_ingest(repo_dir, "main", config, graph_store, pg_store)


def _main_indexed_then_feature_committed(repo_dir: Path, config) -> None:
    """APP indexed as main, then a branch feature/x off it that adds a function to core.py."""
    repo = init_repo(repo_dir)
    main = commit_files(repo, APP)
    api.ingest(repo_dir, config=config)
    feature = {**APP, "app/core.py": APP["app/core.py"] + "\n\ndef extra():\n    return helper()\n"}
    commit_files(repo, feature, branch="feature/x", parents=[main.encode()])


def test_a_new_branch_is_cloned_from_its_base_and_then_updated(repo_dir, config, graph_store, pg_store):
    _main_indexed_then_feature_committed(repo_dir, config)
    branched = api.ingest(repo_dir, branch="feature/x", config=config)
    assert (branched.strategy, branched.base) == ("branch-off", "main")
    assert branched.work["files_written"] == 1 and branched.work["files_parsed"] == 1
    assert branched.embeddings["computed"] <= 1
    assert_equals_fresh_ingest(repo_dir, "feature/x", config, graph_store, pg_store)
    # main is untouched by the branch.
    assert not graph_store.read_query(
        "MATCH (f:Function {repo: $repo, branch: 'main', name: 'extra'}) RETURN f", {"repo": repo_dir.name}
    )
    assert_equals_fresh_ingest(repo_dir, "main", config, graph_store, pg_store)


def test_a_copy_split_into_id_parts_holds_exactly_its_source(repo_dir, config, graph_store, pg_store, monkeypatch):
    """A large group of nodes or edges is copied in parts by the id digits after the branch
    prefix (16, 256 or 4,096); with a tiny part size every group of this repository is split, and
    the copy (before any re-resolution could mend it) holds exactly what its source does,
    every property included. A branch-off through it reads as a fresh ingest."""
    from branchgraph.core.model import BRANCH_PREFIX_LEN
    from branchgraph.graph import neo4j_writes

    monkeypatch.setattr(neo4j_writes, "_BULK_ROWS", 1)
    assert neo4j_writes._id_parts("p", 4) == ["p"] and len(neo4j_writes._id_parts("p", 5)) == 16
    assert len(neo4j_writes._id_parts("p", 65)) == 256 and len(set(neo4j_writes._id_parts("p", 10**9))) == 16**3
    repo = init_repo(repo_dir)
    # Enough nodes and edges that every first digit occurs among their ids.
    many = {
        f"pkg/m{i}.py": "".join(f"def f{j}(x):\n    return f{j + 1}(x) + len(str(x))\n\n" for j in range(12))
        + "def f12(x):\n    return x\n"
        for i in range(6)
    }
    main = commit_files(repo, {**APP, **many})
    api.ingest(repo_dir, config=config)
    commit_files(
        repo,
        {**APP, **many, "app/core.py": APP["app/core.py"] + "\n\ndef extra():\n    return helper()\n"},
        branch="feature/x",
        parents=[main.encode()],
    )
    graph_store.clone_branch(repo_dir.name, "main", "copy")
    try:

        def everything(branch: str) -> tuple[list, list]:
            params = {"repo": repo_dir.name, "branch": branch, "cut": BRANCH_PREFIX_LEN}
            nodes = graph_store.read_query(
                "MATCH (n {repo: $repo, branch: $branch}) "
                "RETURN substring(n.id, $cut) AS id, labels(n) AS labels, properties(n) AS props",
                params,
                limit=100_000,
            )
            edges = graph_store.read_query(
                "MATCH (a {repo: $repo, branch: $branch})-[r]->(b) "
                "RETURN substring(a.id, $cut) AS a, type(r) AS t, substring(b.id, $cut) AS b, properties(r) AS props",
                params,
                limit=100_000,
            )
            for row in nodes:
                del row["props"]["id"], row["props"]["branch"]
            for row in edges:
                del row["props"]["branch"]
            return sorted(repr({**row, "props": sorted(row["props"].items())}) for row in nodes), sorted(
                repr({**row, "props": sorted(row["props"].items())}) for row in edges
            )

        source, copied = everything("main"), everything("copy")
        assert len(source[0]) > 64 and len(source[1]) > 64
        assert copied == source
    finally:
        graph_store.delete_branch(repo_dir.name, "copy")
    branched = api.ingest(repo_dir, branch="feature/x", config=config)
    assert (branched.strategy, branched.base) == ("branch-off", "main")
    assert_equals_fresh_ingest(repo_dir, "feature/x", config, graph_store, pg_store)


def test_a_branch_off_waits_for_an_update_of_its_base(repo_dir, config, graph_store, pg_store):
    _main_indexed_then_feature_committed(repo_dir, config)
    done: list = []
    # An update of main holds its lock: the branch-off must not read main's files meanwhile.
    with pg_store.ingest_lock(repo_dir.name, "main"):
        worker = threading.Thread(target=lambda: done.append(api.ingest(repo_dir, branch="feature/x", config=config)))
        worker.start()
        worker.join(timeout=3)
        assert worker.is_alive() and not done
    worker.join(timeout=120)
    assert done and (done[0].strategy, done[0].base) == ("branch-off", "main")
    assert_equals_fresh_ingest(repo_dir, "feature/x", config, graph_store, pg_store)


def test_a_base_the_graph_lost_is_never_cloned(repo_dir, config, graph_store, pg_store):
    _main_indexed_then_feature_committed(repo_dir, config)
    graph_store.delete_branch(repo_dir.name, "main")  # PostgreSQL still remembers main
    branched = api.ingest(repo_dir, branch="feature/x", config=config)
    assert (branched.strategy, branched.base) == ("bulk", None)
    assert_equals_fresh_ingest(repo_dir, "feature/x", config, graph_store, pg_store)


def test_a_force_push_is_just_another_diff(repo_dir, config, graph_store, pg_store):
    repo = init_repo(repo_dir)
    root = commit_files(repo, APP)
    commit_files(repo, {**APP, "app/extra.py": "def x():\n    pass\n"})
    api.ingest(repo_dir, config=config)
    # Rewrite history: main now points at a sibling of its old tip.
    rewritten = commit_files(repo, {**APP, "app/core.py": "def helper():\n    return 2\n"}, parents=[root.encode()])
    update = api.ingest(repo_dir, config=config)
    assert update.commit == rewritten
    assert update.changes["deleted"] == 1 and update.changes["modified"] == 1
    assert_equals_fresh_ingest(repo_dir, "main", config, graph_store, pg_store)


def test_conflict_markers_flag_the_file_and_the_symbols_that_hold_them(repo_dir, config, graph_store, pg_store):
    repo = init_repo(repo_dir)
    conflicted = (
        "def clean():\n    return 0\n\n\n"
        "def torn():\n<<<<<<< HEAD\n    return 1\n=======\n    return 2\n>>>>>>> other\n"
    )
    commit_files(repo, {"m.py": conflicted})
    summary = api.ingest(repo_dir, config=config)
    assert summary.conflict_files == ["m.py"]
    rows = graph_store.read_query(
        "MATCH (n {repo: $repo, branch: 'main'}) WHERE n:File OR n:Function RETURN coalesce(n.name, n.path) AS n, n.has_conflict AS c",
        {"repo": repo_dir.name},
    )
    flags = {r["n"]: r["c"] for r in rows}
    assert flags["m.py"] is True and flags["clean"] is False
    assert pg_store.branch_record(repo_dir.name, "main").conflict_files == ["m.py"]


def test_a_mixed_language_history_matches_fresh_ingests(
    repo_dir, config, graph_store, pg_store, shop_sources, webshop_sources
):
    """Python beside a TypeScript/JavaScript monorepo: updates that change only a project file
    (tsconfig.json), an export others import, a deleted re-export target and a branch-off
    each end exactly where a fresh ingest of the commit does."""
    repo = init_repo(repo_dir)
    tree = {**shop_sources, **{f"web/{path}": data for path, data in webshop_sources.items()}}
    commit_files(repo, tree)
    api.ingest(repo_dir, config=config)
    place = "web/src/services/orderService.OrderService.place"
    assert (
        edge_of(graph_store, repo_dir.name, "main", place, "order.total")["target"]
        == "web/src/models/order.Order.total"
    )
    assert_equals_fresh_ingest(repo_dir, "main", config, graph_store, pg_store)

    # Only tsconfig.json changes: the `@app/*` alias now leads nowhere, so the unchanged
    # orderService.ts loses its Order type.
    tsconfig = tree["web/tsconfig.json"].replace(b'"@app/*": ["src/*"]', b'"@app/*": ["lib/*"]')
    assert tsconfig != tree["web/tsconfig.json"]
    tree = {**tree, "web/tsconfig.json": tsconfig}
    commit_files(repo, tree)
    update = api.ingest(repo_dir, config=config)
    assert update.work["files_parsed"] == 0
    assert edge_of(graph_store, repo_dir.name, "main", place, "order.total")["resolved"] is False
    assert_equals_fresh_ingest(repo_dir, "main", config, graph_store, pg_store)

    # An export others call is renamed and a re-exported module is deleted.
    money = "web/packages/shared/src/money.ts"
    tree = {**tree, money: tree[money].replace(b"  add(other: Money)", b"  plus(other: Money)")}
    del tree["web/packages/shared/src/format.ts"]
    commit_files(repo, tree)
    api.ingest(repo_dir, config=config)
    assert edge_of(graph_store, repo_dir.name, "main", place, "format")["resolved"] is False
    assert_equals_fresh_ingest(repo_dir, "main", config, graph_store, pg_store)

    # A branch changes JavaScript and Python; main stays as it was.
    feature = {
        **tree,
        "web/src/legacy/tax.js": tree["web/src/legacy/tax.js"] + b"\nexports.zero = function zero() { return 0; };\n",
        "src/shop/billing/tax.py": tree["src/shop/billing/tax.py"] + b"\n\ndef zero():\n    return 0\n",
    }
    commit_files(repo, feature, branch="feature")
    assert api.ingest(repo_dir, branch="feature", config=config).strategy == "branch-off"
    assert_equals_fresh_ingest(repo_dir, "feature", config, graph_store, pg_store)
    assert_equals_fresh_ingest(repo_dir, "main", config, graph_store, pg_store)


def test_a_go_history_matches_fresh_ingests(repo_dir, config, graph_store, pg_store, goshop_sources, shop_sources):
    """A Go module in a subfolder beside Python: a method moved to another file of its package
    (its DEFINES moves from the type to the file), an interface method renamed (the unchanged
    implementation stops satisfying it, the unchanged caller's call dangles), a branch-off."""
    repo = init_repo(repo_dir)
    tree = {**shop_sources, **{f"svc/{path}": data for path, data in goshop_sources.items()}}
    commit_files(repo, tree)
    api.ingest(repo_dir, config=config)
    place = "svc/internal/orders.Service.Place"
    assert edge_of(graph_store, repo_dir.name, "main", place, "s.store.Save")["target"] == (
        "svc/internal/orders.Store.Save"
    )
    assert_equals_fresh_ingest(repo_dir, "main", config, graph_store, pg_store)

    order, totals = "svc/internal/orders/order.go", "svc/internal/orders/totals.go"
    body = tree[order]
    start = body.index(b"// Total sums the lines.")
    tree = {**tree, order: body[:start], totals: b"package orders\n\n" + body[start:]}
    commit_files(repo, tree)
    api.ingest(repo_dir, config=config)
    assert_equals_fresh_ingest(repo_dir, "main", config, graph_store, pg_store)

    store = "svc/internal/orders/store.go"
    rename = (b"\tSave(order *Order) error", b"\tPut(order *Order) error")
    tree = _rename_and_dangle(repo, repo_dir, config, graph_store, tree, store, rename, place, "s.store.Save")
    implements = graph_store.read_query(
        "MATCH (:Class {repo: $repo, branch: 'main', qualname: 'svc/internal/orders.MemStore'})-[:IMPLEMENTS]->(i) "
        "RETURN i.qualname AS i",
        {"repo": repo_dir.name},
    )
    assert implements == []
    assert_equals_fresh_ingest(repo_dir, "main", config, graph_store, pg_store)

    feature = {**tree, "svc/internal/notify/notify.go": tree["svc/internal/notify/notify.go"] + b"\nfunc Quiet() {}\n"}
    commit_files(repo, feature, branch="feature")
    assert api.ingest(repo_dir, branch="feature", config=config).strategy == "branch-off"
    assert_equals_fresh_ingest(repo_dir, "feature", config, graph_store, pg_store)


def _rename_and_dangle(repo, repo_dir, config, graph_store, tree, path, rename, caller, raw):
    """Commit ``path`` with an interface method renamed (``rename``: old, new) and check that the
    unchanged caller's file was re-resolved and its call ``raw`` dangles; the new tree."""
    tree = {**tree, path: tree[path].replace(*rename)}
    commit_files(repo, tree)
    update = api.ingest(repo_dir, config=config)
    assert update.work["files_re_resolved"] >= 1  # the caller's file did not change; its call did
    assert edge_of(graph_store, repo_dir.name, "main", caller, raw)["resolved"] is False
    return tree


def test_a_java_history_matches_fresh_ingests(repo_dir, config, graph_store, pg_store, javashop_sources, shop_sources):
    """A Maven project in a subfolder beside Python: an interface method renamed (the unchanged
    caller's call dangles), an overload added to an unchanged caller's callee, an enum's method
    removed under its constants' overrides, a branch-off."""
    repo = init_repo(repo_dir)
    tree = {**shop_sources, **{f"jvm/{path}": data for path, data in javashop_sources.items()}}
    commit_files(repo, tree)
    api.ingest(repo_dir, config=config)
    place = "com.shop.service.OrderService.place"
    assert (
        edge_of(graph_store, repo_dir.name, "main", place, "store.save")["target"] == "com.shop.store.OrderStore.save"
    )
    assert_equals_fresh_ingest(repo_dir, "main", config, graph_store, pg_store)

    store = "jvm/src/main/java/com/shop/store/OrderStore.java"
    rename = (b"void save(Order order);", b"void put(Order order);")
    tree = _rename_and_dangle(repo, repo_dir, config, graph_store, tree, store, rename, place, "store.save")
    assert_equals_fresh_ingest(repo_dir, "main", config, graph_store, pg_store)

    order = "jvm/src/main/java/com/shop/model/Order.java"
    overload = (
        b"    public Order addLine(String sku, int quantity) {\n        return addLine(sku, quantity, 0);\n    }\n\n"
    )
    body = tree[order]
    at = body.index(b"    public Order addLine(Line line)")
    tree = {**tree, order: body[:at] + overload + body[at:]}
    commit_files(repo, tree)
    api.ingest(repo_dir, config=config)
    assert_equals_fresh_ingest(repo_dir, "main", config, graph_store, pg_store)

    # The enum's own `next` goes, its constants' overrides stay: the unchanged caller's
    # `status.next(order)` finds no method of OrderStatus any more.
    status = "jvm/src/main/java/com/shop/model/OrderStatus.java"
    enum_next = (
        b"    /** The state after this one; the last state stays as it is. */\n"
        b"    public OrderStatus next(Order order) {\n        return this;\n    }\n\n"
    )
    assert enum_next in tree[status]
    tree = {**tree, status: tree[status].replace(enum_next, b"")}
    commit_files(repo, tree)
    api.ingest(repo_dir, config=config)
    advance = edge_of(graph_store, repo_dir.name, "main", "com.shop.service.OrderService.advance", "status.next")
    assert advance == {"resolved": False, "target": "status.next"}
    assert_equals_fresh_ingest(repo_dir, "main", config, graph_store, pg_store)

    money = "jvm/src/main/java/com/shop/util/Money.java"
    feature = {
        **tree,
        money: tree[money].replace(b"    private Money() {}", b"    private Money() {}\n\n    static void noop() {}"),
    }
    commit_files(repo, feature, branch="feature")
    assert api.ingest(repo_dir, branch="feature", config=config).strategy == "branch-off"
    assert_equals_fresh_ingest(repo_dir, "feature", config, graph_store, pg_store)


def _listed_commits(pg_store, repo: str) -> set[str]:
    with pg_store._transaction() as cur:
        cur.execute("SELECT commit FROM tree_listings WHERE repo = %s", (repo,))
        return {commit for (commit,) in cur.fetchall()}


def test_trees_are_listed_from_the_indexed_commits_listing_and_only_those_are_kept(
    repo_dir, config, graph_store, pg_store
):
    repo = init_repo(repo_dir)
    first = commit_files(repo, APP)
    api.ingest(repo_dir, config=config)
    assert _listed_commits(pg_store, repo_dir.name) == {first}
    second = commit_files(repo, {**APP, "app/extra.py": "def extra():\n    return 3\n"})
    core = APP["app/core.py"] + "\n\ndef feature():\n    return helper()\n"
    feature = commit_files(repo, {**APP, "app/core.py": core}, "feature/x", parents=[first.encode()])
    api.ingest(repo_dir, config=config)
    # The branch is listed from main's listing at `second`, which it does not descend from.
    branched = api.ingest(repo_dir, branch="feature/x", config=config)
    assert (branched.strategy, branched.base) == ("branch-off", "main")
    assert _listed_commits(pg_store, repo_dir.name) == {second, feature}
    assert_equals_fresh_ingest(repo_dir, "feature/x", config, graph_store, pg_store)
    assert_equals_fresh_ingest(repo_dir, "main", config, graph_store, pg_store)


def test_an_update_written_in_several_transactions_keeps_edges_into_later_ones(
    repo_dir, config, graph_store, pg_store, monkeypatch
):
    # One file a transaction: the test file is written before the new module it tests
    # ("app/checks" sorts before "app/widgets"), whose nodes the test's edges reach.
    from branchgraph.graph import neo4j_writes

    monkeypatch.setattr(neo4j_writes, "_ROWS_PER_TRANSACTION", 1)
    repo = init_repo(repo_dir)
    commit_files(repo, APP)
    api.ingest(repo_dir, config=config)
    added = {
        "app/checks/__init__.py": "",
        "app/checks/test_widgets.py": (
            "from app.widgets import Widget, build\n\n\ndef test_build():\n    assert build().size() == 1\n\n\n"
            "class TestWidget:\n    def test_size(self):\n        assert Widget().size() == 1\n"
        ),
        "app/widgets.py": (
            "class Widget:\n    def size(self):\n        return 1\n\n\ndef build():\n    return Widget()\n"
        ),
    }
    commit_files(repo, {**APP, **added})
    update = api.ingest(repo_dir, config=config)
    assert update.strategy == "update"
    tested = graph_store.read_query(
        "MATCH (s {repo: $repo, branch: 'main'})-[:TESTED_BY]->(t) RETURN s.qualname AS s, t.qualname AS t",
        {"repo": repo_dir.name},
    )
    assert {("app.widgets.build", "app.checks.test_widgets.test_build")} <= {(r["s"], r["t"]) for r in tested}
    assert_equals_fresh_ingest(repo_dir, "main", config, graph_store, pg_store)
