// Unresolved references made from some files of a branch: each reference the resolver could
// not bind to a symbol of the branch (reason `unresolved`; `external` ones are fine), with its
// line. `branchgraph check` keeps those on new or changed lines.
// param repo: repository name
// param branch: branch name
// param paths: file paths (a list)
UNWIND $paths AS p
MATCH (f:File {repo: $repo, branch: $branch, path: p})-[:DEFINES*0..]->(s)
MATCH (s)-[r]->(u:Unresolved {reason: 'unresolved'})
RETURN DISTINCT p AS path, r.line AS line, u.raw AS raw, type(r) AS edge, s.qualname AS user
ORDER BY path, line, raw
