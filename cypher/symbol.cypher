// Find symbols by exact name: where they are defined and how they are declared.
// param repo: repository name
// param branch: branch name
// param name: the bare name, e.g. refund
MATCH (s {repo: $repo, branch: $branch, name: $name})
WHERE s:Function OR s:Method OR s:Class OR s:Interface
RETURN s.qualname AS qualname, labels(s)[0] AS kind, s.path AS path, s.start_line AS start_line,
       s.end_line AS end_line, s.signature AS signature
ORDER BY qualname
