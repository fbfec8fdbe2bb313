// Symbols of a branch by qualified name: id, kind, file and span.
// param repo: repository name
// param branch: branch name
// param qualnames: qualified names (a list)
UNWIND $qualnames AS q
MATCH (s {repo: $repo, branch: $branch, qualname: q})
WHERE s:Function OR s:Method OR s:Class
RETURN s.id AS id, labels(s)[0] AS kind, s.qualname AS qualname, s.name AS name, s.path AS path,
       s.start_line AS start_line, s.end_line AS end_line, coalesce(s.is_test, false) AS is_test
