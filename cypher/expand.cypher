// Structural context of entry symbols: callees to depth 2, callers at depth 1, parameter and return types, base classes, tests, the enclosing class of a method and the methods of a class; hard-capped.
// param repo: repository name
// param branch: branch name
// param qualnames: the entry symbols' qualified names (a list)
// param per_kind: most neighbours of one kind and depth per entry (the fan-out cap) [default: 8]
// param members: most methods of one class entry, in source order [default: 40]
// param limit: most rows returned (the node cap) [default: 400]
CALL () {
  MATCH (e:Function) WHERE e.qualname IN $qualnames AND e.repo = $repo AND e.branch = $branch RETURN e
  UNION
  MATCH (e:Method) WHERE e.qualname IN $qualnames AND e.repo = $repo AND e.branch = $branch RETURN e
  UNION
  MATCH (e:Class) WHERE e.qualname IN $qualnames AND e.repo = $repo AND e.branch = $branch RETURN e
}
// Hop caps are the fixed path lengths below; each branch keeps at most $per_kind rows so one
// hub (a helper called from 500 places) cannot crowd out the rest.
CALL (e) {
  MATCH (e)-[:CALLS]->(n) WHERE NOT n:Unresolved AND n <> e
  RETURN n, 'callee' AS kind, 1 AS distance, null AS via ORDER BY n.qualname LIMIT $per_kind
  UNION
  MATCH (e)-[:CALLS]->(m)-[:CALLS]->(n) WHERE NOT m:Unresolved AND NOT n:Unresolved AND n <> e AND m <> e
  RETURN n, 'callee' AS kind, 2 AS distance, m.id AS via ORDER BY n.qualname LIMIT $per_kind
  UNION
  MATCH (n)-[:CALLS]->(e) WHERE NOT n:File AND n <> e
  RETURN n, 'caller' AS kind, 1 AS distance, null AS via ORDER BY n.qualname LIMIT $per_kind
  UNION
  MATCH (e)-[:PARAM_TYPE|RETURNS_TYPE]->(n) WHERE n:Class OR n:Interface
  RETURN n, 'type' AS kind, 1 AS distance, null AS via ORDER BY n.qualname LIMIT $per_kind
  UNION
  MATCH (e)-[:INHERITS_FROM]->(n:Class)
  RETURN n, 'base' AS kind, 1 AS distance, null AS via ORDER BY n.qualname LIMIT $per_kind
  UNION
  MATCH (e)-[:INHERITS_FROM]->(m:Class)-[:INHERITS_FROM]->(n:Class)
  RETURN n, 'base' AS kind, 2 AS distance, m.id AS via ORDER BY n.qualname LIMIT $per_kind
  UNION
  MATCH (e)-[:TESTED_BY]->(n)
  RETURN n, 'test' AS kind, 1 AS distance, null AS via ORDER BY n.qualname LIMIT $per_kind
  UNION
  MATCH (n:Class)-[:DEFINES]->(e:Method)
  RETURN n, 'enclosing class' AS kind, 1 AS distance, null AS via
  UNION
  // A class is shown as an outline and its methods as items of their own, so a question
  // about one method of a large class brings that method, not the class's whole text.
  MATCH (e:Class)-[:DEFINES]->(n:Method)
  RETURN n, 'member' AS kind, 1 AS distance, null AS via ORDER BY n.start_line LIMIT $members
}
// The nearest path per (entry, neighbour, kind) wins.
WITH e, n, kind, distance, via ORDER BY distance
WITH e, n, kind, collect({distance: distance, via: via})[0] AS nearest
WITH e, n, kind, nearest.distance AS distance, nearest.via AS via
RETURN e.qualname AS entry, e.id AS entry_id, kind, n.id AS id, n.qualname AS qualname, labels(n)[0] AS label,
       n.path AS path, n.start_line AS start_line, n.end_line AS end_line, distance, via,
       coalesce(n.has_conflict, false) AS has_conflict,
       CASE WHEN n:Class THEN [(n)-[:DEFINES]->(m) | {start_line: m.start_line, end_line: m.end_line, signature: m.signature, name: m.name}]
       END AS members
ORDER BY distance, entry, kind, qualname
LIMIT $limit
