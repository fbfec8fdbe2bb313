// What a symbol calls, transitively, nearest first; dangling calls show their raw text.
// param repo: repository name
// param branch: branch name
// param qualname: qualified name of the function, method or class
// param depth: how many CALLS hops to follow, 1 to 5 [default: 2]
MATCH (source {repo: $repo, branch: $branch, qualname: $qualname})
WHERE source:Function OR source:Method OR source:Class
MATCH p = (source)-[:CALLS*1..5]->(callee)
WHERE length(p) <= $depth
RETURN coalesce(callee.qualname, callee.raw) AS callee, labels(callee)[0] AS kind, callee.reason AS reason,
       min(length(p)) AS distance
ORDER BY distance, callee
