// One step of an upstream walk: the direct callers, subclasses and holders (REFERENCES: code that
// hands the symbol on as a value, a callback or a view) of a set of symbols by id
// (`branchgraph impact` climbs level by level with it, so a wide graph costs one query a hop).
// param ids: node ids of functions, methods or classes (a list)
UNWIND $ids AS id
CALL (id) {
  MATCH (t:Function {id: id}) RETURN t UNION MATCH (t:Method {id: id}) RETURN t
  UNION MATCH (t:Class {id: id}) RETURN t
}
MATCH (t)<-[r:CALLS|INHERITS_FROM|REFERENCES]-(user)
RETURN DISTINCT id AS target, type(r) AS edge, user.id AS id, labels(user)[0] AS kind, user.qualname AS qualname,
       user.path AS path, user.start_line AS start_line, user.end_line AS end_line,
       coalesce(user.is_test, false) AS is_test, coalesce(r.lines, [r.line]) AS lines
