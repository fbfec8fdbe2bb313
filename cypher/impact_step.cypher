// One step of an upstream walk: the direct callers, subclasses and holders (REFERENCES: code that
// hands the symbol on as a value, a callback or a view) of a set of symbols by id
// (`branchgraph impact` climbs level by level with it, so a wide graph costs one query a hop).
// An override is also run by the callers of the in-repo method it overrides, in any ancestor
// class or interface (`state.read(t, r)` typed by the base runs each state's `read`): those are
// its users too, `through` naming the overridden method (null for a direct use). A constructor
// overrides nothing: building the base does not run it.
// param ids: node ids of functions, methods or classes (a list)
UNWIND $ids AS id
CALL (id) {
  MATCH (t:Function {id: id}) RETURN t UNION MATCH (t:Method {id: id}) RETURN t
  UNION MATCH (t:Class {id: id}) RETURN t
}
CALL (t) {
  MATCH (t)<-[r:CALLS|INHERITS_FROM|REFERENCES]-(user)
  RETURN r, user, null AS through
  UNION
  MATCH (c)-[:DEFINES]->(t:Method)
  WHERE (c:Class OR c:Interface) AND c.name <> t.name
    AND NOT t.name IN ['__init__', '__new__', '__post_init__', '__init_subclass__', '__class_getitem__']
  MATCH (c)-[:INHERITS_FROM|IMPLEMENTS*1..8]->(ancestor)-[:DEFINES]->(base:Method {name: t.name})
  WHERE ancestor:Class OR ancestor:Interface
  MATCH (base)<-[r:CALLS]-(user)
  RETURN r, user, base.qualname AS through
}
RETURN DISTINCT id AS target, type(r) AS edge, user.id AS id, labels(user)[0] AS kind, user.qualname AS qualname,
       user.path AS path, user.start_line AS start_line, user.end_line AS end_line,
       coalesce(user.is_test, false) AS is_test, coalesce(r.lines, [r.line]) AS lines, through
