"""Pure helpers: file classification, conflict markers, identifier splitting, module names."""

import numpy as np
import pytest

from branchgraph.core.embed.hashing import HashingEmbedder
from branchgraph.core.embed.text import MAX_BODY_CHARS, enriched_text
from branchgraph.core.files import (
    SKIP_BINARY,
    SKIP_LFS_POINTER,
    SKIP_NOT_UTF8,
    SKIP_TOO_LARGE,
    SourceText,
    classify,
    conflict_marker_lines,
    source_lines,
)
from branchgraph.core.languages import language_for_path
from branchgraph.core.languages.python import is_test_file as is_pytest_file
from branchgraph.core.lexical import lexical_text, split_identifier
from branchgraph.ingest.python_modules import absolute_module, module_name


@pytest.mark.parametrize(
    ("data", "verdict"),
    [
        (b"x" * 11, SKIP_TOO_LARGE),
        (b"abc\x00def", SKIP_BINARY),
        (b"caf\xe9 = 1\n", SKIP_NOT_UTF8),
        (b"version https://git-lfs.github.com/spec/v1\noid sha256:abc\nsize 12\n", SKIP_LFS_POINTER),
    ],
)
def test_classify_skips_with_a_reason(data, verdict):
    assert classify(data, max_bytes=10 if verdict == SKIP_TOO_LARGE else 1000) == verdict


def test_classify_accepts_utf8_source():
    result = classify("name = 'café'\n".encode())
    assert isinstance(result, SourceText) and result.text == "name = 'café'\n"


def test_source_lines_split_at_newlines_only_and_drop_crlf_carriage_returns():
    assert source_lines("a\nb\n") == ["a", "b"] == source_lines("a\r\nb\r\n")
    assert source_lines("a\r\nb\nc") == ["a", "b", "c"]  # mixed endings
    assert source_lines("a\x0cb\u2028c\n\nd") == ["a\x0cb\u2028c", "", "d"]  # as tree-sitter counts rows
    assert source_lines("bare\rreturn\n") == ["bare\rreturn"] and source_lines("") == []


def test_conflict_markers_need_a_full_set():
    conflicted = b"a = 1\n<<<<<<< HEAD\nb = 2\n=======\nb = 3\n>>>>>>> feature\n"
    assert conflict_marker_lines(conflicted) == [2, 4, 6]
    assert conflict_marker_lines(b'"""Title\n=======\n"""\n') == []


def test_identifier_splitting():
    assert split_identifier("parseConfigFile") == ["parse", "config", "file"]
    assert split_identifier("get_user_by_id") == ["get", "user", "by", "id"]
    assert split_identifier("HTTPServerError") == ["http", "server", "error"]
    # The whole without underscores: PostgreSQL's parser would split it at them again.
    assert lexical_text("ERR_AUTH_001") == "err auth 001 errauth001"
    assert lexical_text("get_user_by_id(x)") == "get user by id getuserbyid x"
    assert lexical_text("parse_config_file") == "parse config file parseconfigfile" == lexical_text("parseConfigFile")
    assert lexical_text("_private __init__") == "private init"


def test_module_names_and_relative_imports():
    assert module_name("src/shop/billing/__init__.py") == "shop.billing"
    assert module_name("src/shop/billing/invoice.py") == "shop.billing.invoice"
    assert module_name("tools/run.py") == "tools.run"
    assert absolute_module("src/shop/billing/invoice.py", "..core.base") == "shop.core.base"
    assert absolute_module("src/shop/billing/__init__.py", ".invoice") == "shop.billing.invoice"
    assert absolute_module("src/shop/billing/invoice.py", ".") == "shop.billing"
    assert is_pytest_file("tests/test_a.py") and is_pytest_file("a_test.py") and not is_pytest_file("tests/tests.py")


def test_language_by_extension():
    assert language_for_path("a/b.py").name == "python"
    assert language_for_path("a/b.PY").name == "python"
    assert language_for_path("Makefile") is None
    assert language_for_path("dir.py/readme") is None


def test_hashing_embedder_is_deterministic_normalised_and_named():
    embedder = HashingEmbedder(64)
    a = embedder.embed(["def get_user(id): return db.fetch(id)", "class Invoice: pass"])
    b = embedder.embed(["def get_user(id): return db.fetch(id)", "class Invoice: pass"])
    assert a.shape == (2, 64) and a.dtype == np.float32
    assert np.array_equal(a, b)
    assert np.allclose(np.linalg.norm(a, axis=1), 1.0)
    assert embedder.model_id == "feature-hashing-v1"
    near = embedder.embed(["fetch the user by id"])[0]
    assert float(near @ a[0]) > float(near @ a[1])


def test_enriched_text_has_every_part_and_truncates_the_body():
    text = enriched_text(
        path="src/a.py",
        label="Method",
        qualname="a.C.m",
        signature="def m(self)",
        docstring="Does m.",
        body="x" * (MAX_BODY_CHARS + 100),
        enclosing_class="a.C",
    )
    assert text.startswith("path: src/a.py\nmethod: a.C.m\nclass: a.C\ndef m(self)\nDoes m.\n")
    assert text.endswith("x" * MAX_BODY_CHARS)
    assert "x" * (MAX_BODY_CHARS + 1) not in text


def test_paths_by_recency_counts_commits_since_each_file_last_changed(tmp_path):
    from gitrepo import commit_files, init_repo

    from branchgraph.core import git

    repo = init_repo(tmp_path / "r")
    commit_files(repo, {"a.py": "a = 1\n", "b.py": "b = 1\n", "c.py": "c = 1\n"})
    commit_files(repo, {"a.py": "a = 2\n", "b.py": "b = 1\n", "c.py": "c = 1\n"})
    head = commit_files(repo, {"a.py": "a = 2\n", "b.py": "b = 2\n", "c.py": "c = 1\n"})
    assert git.recency_of(git.recent_changes(repo, head, 10)) == {"b.py": 0, "a.py": 1, "c.py": 2}
    assert git.recency_of(git.recent_changes(repo, head, 2)) == {"b.py": 0, "a.py": 1}


def test_path_history_says_which_files_change_together():
    from branchgraph.retrieval.ranking import PathHistory

    history = PathHistory.of_changes([["a.py", "b.py"], ["a.py"], ["a.py", "b.py", "c.py"], ["c.py"]])
    assert history.ago == {"a.py": 0, "b.py": 0, "c.py": 2}
    assert history.cochange("b.py", "a.py") == 2 / 3  # two of a.py's three commits changed b.py
    assert history.cochange("c.py", "b.py") == 1 / 2
    assert history.cochange("a.py", "a.py") == 0.0 and history.cochange("d.py", "a.py") == 0.0


def test_a_file_of_a_commit_is_looked_up_by_its_path(tmp_path):
    from gitrepo import commit_files, init_repo

    from branchgraph.core import git

    repo = init_repo(tmp_path / "r")
    head = git.commit_object(repo, commit_files(repo, {"pkg/sub/a.py": "a = 1\n", "b.py": "b = 1\n"}))
    assert git.blob_at(repo, head, "pkg/sub/a.py") == b"a = 1\n"
    assert git.blob_at(repo, head, "b.py") == b"b = 1\n"
    assert git.blob_at(repo, head, "pkg/missing.py") is None
    assert git.blob_at(repo, head, "b.py/a.py") is None  # through a file, not a folder
    assert git.blob_at(repo, head, "pkg/sub") is None  # a folder is no file
