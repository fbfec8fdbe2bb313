// One step of the walk that selects the tests to run for a change: from a set of symbols, what
// runs them. Callers and subclasses (CALLS, INHERITS_FROM), the tests that call them
// (TESTED_BY), callers whose dangling call names them (`x.save()` may run any `save`: the
// graph could not tell which), the function a nested function is defined in, and the class of
// a method that runs without being called by name (`__init__`, `__call__`, `__enter__`, other
// dunders the language calls, properties): it runs whenever its class is used.
// param repo: repository name
// param branch: branch name
// param ids: node ids of functions, methods or classes (a list)
// param implicit: method names the language calls by itself (a list) [default: []]
UNWIND $ids AS id
CALL (id) {
  MATCH (t:Function {id: id}) RETURN t UNION MATCH (t:Method {id: id}) RETURN t
  UNION MATCH (t:Class {id: id}) RETURN t
}
CALL (t) {
  MATCH (t)<-[:CALLS|INHERITS_FROM]-(u) RETURN u
  UNION
  MATCH (t)-[:TESTED_BY]->(u) RETURN u
  UNION
  MATCH (d:Unresolved {repo: $repo, branch: $branch, name: t.name})<-[:CALLS]-(u)
  WHERE t:Function OR t:Method
  RETURN u
  UNION
  MATCH (u)-[:DEFINES]->(t)
  WHERE (t:Function AND (u:Function OR u:Method))
     OR (t:Method AND u:Class AND (t.name IN $implicit OR any(d IN coalesce(t.decorators, [])
         WHERE d CONTAINS 'property' OR d ENDS WITH '.setter' OR d ENDS WITH '.getter')))
  RETURN u
}
// One row per symbol reached (many paths lead to a busy one), with the ids it was reached from.
WITH u, collect(DISTINCT id) AS targets
RETURN targets, u.id AS id, labels(u)[0] AS kind, u.qualname AS qualname, u.name AS name,
       u.path AS path, u.start_line AS start_line, u.end_line AS end_line, coalesce(u.is_test, false) AS is_test
