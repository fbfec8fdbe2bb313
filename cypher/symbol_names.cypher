// Every function, method and class of a branch by bare name, with one qualified name each:
// what `branchgraph check` suggests for a misspelt or renamed reference.
// param repo: repository name
// param branch: branch name
MATCH (s {repo: $repo, branch: $branch})
WHERE s:Function OR s:Method OR s:Class
RETURN s.name AS name, min(s.qualname) AS qualname
