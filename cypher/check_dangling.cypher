// Unresolved references made from some files of a branch: each reference the resolver could
// not bind to a symbol of the branch (reason `unresolved`; `external` ones are fine, and so are
// those it inferred targets for), with its line. `branchgraph check` keeps those on new or
// changed lines.
// param repo: repository name
// param branch: branch name
// param paths: file paths (a list)
UNWIND $paths AS p
MATCH (f:File {repo: $repo, branch: $branch, path: p})-[:DEFINES*0..]->(s)
MATCH (s)-[r]->(u:Unresolved {reason: 'unresolved'})
// A call the resolver inferred targets for (`self._add()` storing one of two methods) exists.
WHERE NOT EXISTS { MATCH (s)-[i:CALLS {inferred: true}]->() WHERE i.raw = r.raw }
RETURN DISTINCT p AS path, r.line AS line, u.raw AS raw, type(r) AS edge, s.qualname AS user
ORDER BY path, line, raw
