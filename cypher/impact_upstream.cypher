// Upstream impact of a change, by depth: every caller, subclass or holder (code naming it as a
// value: a callback, a view, a table of handlers) within $depth hops of the
// changed symbols, with the shortest path that reaches it (what `branchgraph impact` reports).
// param repo: repository name
// param branch: branch name
// param qualnames: qualified names of the changed functions, methods or classes (a list)
// param depth: how many CALLS / INHERITS_FROM / REFERENCES hops to climb, 1 to 5 [default: 3]
UNWIND $qualnames AS changed
MATCH (target {repo: $repo, branch: $branch, qualname: changed})
WHERE target:Function OR target:Method OR target:Class
MATCH p = (user)-[:CALLS|INHERITS_FROM|REFERENCES*1..5]->(target)
WHERE length(p) <= $depth AND NOT user.qualname IN $qualnames
WITH user, p ORDER BY length(p)
WITH user, collect(p)[0] AS nearest
RETURN user.qualname AS qualname, labels(user)[0] AS kind, user.path AS path, length(nearest) AS depth,
       CASE length(nearest) WHEN 1 THEN 'will_break' WHEN 2 THEN 'likely_affected' ELSE 'may_need_testing' END AS tier,
       [n IN nodes(nearest) | n.qualname] AS via
ORDER BY depth, qualname
