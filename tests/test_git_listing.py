"""A commit's tracked files listed from another commit's stored listing and the trees that
differ are exactly those a whole read of its tree gives, in the same order."""

from __future__ import annotations

from pathlib import Path

from gitrepo import Gitlink, Symlink, commit_files, init_repo

from branchgraph.core import git

BASE: dict = {
    "app/models.py": "class Order: ...\n",
    "app/views.py": "from app.models import Order\n",
    "app/api/v1/routes.py": "def routes(): ...\n",
    "app-config.toml": "x = 1\n",
    "app.py": "print('app')\n",
    "docs/guide.md": "# guide\n",
    "link.py": Symlink("app/models.py"),
    "vendor/lib": Gitlink(b"1" * 40),
    b"legacy/caf\xe9.py": "x = 1\n",  # a file name that is not UTF-8
}

# Each step is the next commit's tree: modify, add, delete a directory, turn a file into a
# directory and back, change a mode, move a submodule.
STEPS: list[dict] = [
    {**BASE, "app/views.py": "from app.models import Order\n\ndef show(): ...\n", "app/forms.py": "class F: ...\n"},
    {k: v for k, v in BASE.items() if not str(k).startswith("app/api")}
    | {"docs/guide.md/index.md": "# now a folder\n"},
    {**BASE, "link.py": "x = 'no longer a link'\n", "vendor/lib": Gitlink(b"2" * 40)},
    {k: v for k, v in BASE.items() if k != "vendor/lib"} | {"vendor/lib/__init__.py": ""},
    BASE,
]


def test_a_listing_patched_by_the_trees_that_differ_is_the_whole_tree(tmp_path: Path):
    repo = init_repo(tmp_path / "repo")
    previous = commit_files(repo, BASE)
    listing = git.encode_listing(git.tree_files(repo, git.commit_object(repo, previous)))
    for files in STEPS:
        sha = commit_files(repo, files)
        commit = git.commit_object(repo, sha)
        patched = git.tree_files_since(repo, commit, previous, git.decode_listing(listing))
        assert patched == list(git.tree_files(repo, commit))
        listing, previous = git.encode_listing(patched), sha


def test_a_listing_round_trips_undecodable_names_modes_and_gitlinks(tmp_path: Path):
    repo = init_repo(tmp_path / "repo")
    files = list(git.tree_files(repo, git.commit_object(repo, commit_files(repo, BASE))))
    assert {f.path for f in files if f.is_submodule} == {"vendor/lib"}
    assert {f.path for f in files if f.is_symlink} == {"link.py"}
    assert any("\udce9" in f.path for f in files)
    assert git.decode_listing(git.encode_listing(files)) == files


def test_no_listing_comes_from_a_commit_the_repository_lacks(tmp_path: Path):
    repo = init_repo(tmp_path / "repo")
    commit = git.commit_object(repo, commit_files(repo, BASE))
    assert git.tree_files_since(repo, commit, "f" * 40, []) is None
