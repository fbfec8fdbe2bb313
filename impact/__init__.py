"""Impact analysis (branchgraph.impact): what a change touches upstream in a branch's graph,
which tests reach it, and how sure the answer is."""
