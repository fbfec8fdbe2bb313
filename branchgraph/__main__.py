"""``python -m branchgraph``: the same command as ``branchgraph`` (git hooks call it this way,
so they keep working without the virtual environment on PATH)."""

from branchgraph.cli import main

main()
