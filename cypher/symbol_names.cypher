// Every function, method and class of a branch by bare name, with its qualified name, file
// and label: what `branchgraph check` suggests for a misspelt or renamed reference.
// param repo: repository name
// param branch: branch name
MATCH (s {repo: $repo, branch: $branch})
WHERE s:Function OR s:Method OR s:Class
RETURN s.name AS name, s.qualname AS qualname, s.path AS path, labels(s)[0] AS label
