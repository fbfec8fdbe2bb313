// Tests to run when a symbol changes: tests that call it or any of its transitive callers.
// param repo: repository name
// param branch: branch name
// param qualname: qualified name of the function, method or class
// param depth: how many CALLS hops to climb before looking for tests, 0 to 5 [default: 3]
MATCH (target {repo: $repo, branch: $branch, qualname: $qualname})
WHERE target:Function OR target:Method OR target:Class
MATCH p = (user)-[:CALLS*0..5]->(target)
WHERE length(p) <= $depth
MATCH (user)-[:TESTED_BY]->(test)
RETURN DISTINCT test.qualname AS test, test.path AS path, min(length(p)) AS distance
ORDER BY distance, test
