// The references made from some files of a branch (every edge but DEFINES, and not the
// coverage evidence `branchgraph coverage` imports: that is no part of the code), the target
// named by its qualified name, or by its raw text when it dangles.
// param repo: repository name
// param branch: branch name
// param paths: file paths (a list)
UNWIND $paths AS p
MATCH (f:File {repo: $repo, branch: $branch, path: p})-[:DEFINES*0..]->(s)
MATCH (s)-[r]->(t)
WHERE type(r) <> 'DEFINES' AND r.evidence IS NULL
RETURN DISTINCT coalesce(s.qualname, s.path) AS source, type(r) AS type, coalesce(t.qualname, t.raw) AS target,
       t:Unresolved AS dangling
