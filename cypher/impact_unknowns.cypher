// Possible callers the graph could not resolve: dangling references whose raw text names one
// of the given bare names (`name` or `anything.name`), with where they are. While any exist,
// "no impact" is not an answer.
// param repo: repository name
// param branch: branch name
// param names: bare names of the changed symbols (a list)
MATCH (u:Unresolved {repo: $repo, branch: $branch})
WHERE u.raw IN $names OR any(n IN $names WHERE u.raw ENDS WITH '.' + n)
MATCH (src)-[r]->(u)
RETURN src.path AS path, src.qualname AS user, u.raw AS raw, type(r) AS edge, r.line AS line, u.reason AS reason
ORDER BY path, line
