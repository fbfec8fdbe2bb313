// Structural context of entry symbols: callees to depth 2, callers at depth 1, parameter and return types, base classes, tests, and the enclosing class of a method; hard-capped.
// param repo: repository name
// param branch: branch name
// param qualnames: the entry symbols' qualified names (a list)
// param limit: most rows returned (the node cap) [default: 200]
CALL () {
  MATCH (e:Function) WHERE e.qualname IN $qualnames AND e.repo = $repo AND e.branch = $branch RETURN e
  UNION
  MATCH (e:Method) WHERE e.qualname IN $qualnames AND e.repo = $repo AND e.branch = $branch RETURN e
  UNION
  MATCH (e:Class) WHERE e.qualname IN $qualnames AND e.repo = $repo AND e.branch = $branch RETURN e
}
CALL (e) {
  MATCH p = (e)-[:CALLS*1..2]->(n) WHERE NOT n:Unresolved
  RETURN n, 'callee' AS kind, length(p) AS distance
  UNION
  MATCH (n)-[:CALLS]->(e) WHERE NOT n:File
  RETURN n, 'caller' AS kind, 1 AS distance
  UNION
  MATCH (e)-[:PARAM_TYPE|RETURNS_TYPE]->(n) WHERE n:Class OR n:Interface
  RETURN n, 'type' AS kind, 1 AS distance
  UNION
  MATCH p = (e)-[:INHERITS_FROM*1..2]->(n:Class)
  RETURN n, 'base' AS kind, length(p) AS distance
  UNION
  MATCH (e)-[:TESTED_BY]->(n)
  RETURN n, 'test' AS kind, 1 AS distance
  UNION
  MATCH (n:Class)-[:DEFINES]->(e:Method)
  RETURN n, 'enclosing class' AS kind, 1 AS distance
}
WITH e, n, kind, min(distance) AS distance
RETURN e.qualname AS entry, kind, n.qualname AS qualname, labels(n)[0] AS label, n.path AS path,
       n.start_line AS start_line, n.end_line AS end_line, distance
ORDER BY distance, entry, kind, qualname
LIMIT $limit
