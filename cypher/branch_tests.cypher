// Every test function and method of a branch (what a coverage context can name).
// param repo: repository name
// param branch: branch name
MATCH (t:Function {repo: $repo, branch: $branch}) WHERE t.is_test
RETURN t.id AS id, 'Function' AS kind, t.qualname AS qualname, t.path AS path
UNION ALL
MATCH (t:Method {repo: $repo, branch: $branch}) WHERE t.is_test
RETURN t.id AS id, 'Method' AS kind, t.qualname AS qualname, t.path AS path
