// Transitive callers of a symbol, nearest first: who breaks if it changes.
// param repo: repository name
// param branch: branch name
// param qualname: qualified name of the function, method or class
// param depth: how many CALLS hops to follow, 1 to 5 [default: 3]
MATCH (target {repo: $repo, branch: $branch, qualname: $qualname})
WHERE target:Function OR target:Method OR target:Class
MATCH p = (caller)-[:CALLS*1..5]->(target)
WHERE length(p) <= $depth
RETURN caller.qualname AS caller, labels(caller)[0] AS kind, caller.path AS path, min(length(p)) AS distance
ORDER BY distance, caller
