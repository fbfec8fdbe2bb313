// Where instances of classes may be made: for each class, itself and its in-repo subclasses,
// and the code that names one as a value or uses one at module level — beyond the callers and
// test references the test walk follows itself. A function handed a class makes its instances
// (`command(name, cls=Group)`); a module makes one at import (`INT = IntParamType()`) or keeps
// the class in a table (`ALL_FIELDS = [fields.String, ...]`) for whoever imports it.
// param ids: node ids of classes (a list)
UNWIND $ids AS id
MATCH (c:Class {id: id})
MATCH (s:Class)-[:INHERITS_FROM*0..8]->(c)
OPTIONAL MATCH (s)<-[r:CALLS|REFERENCES]-(u)
WHERE u:File OR (type(r) = 'REFERENCES' AND (u:Function OR u:Method))
WITH id, collect(DISTINCT s.id) AS classes,
     collect(DISTINCT CASE WHEN u IS NOT NULL THEN
       {id: u.id, kind: labels(u)[0], path: u.path, is_test: coalesce(u.is_test, false)} END) AS sites
RETURN id, classes, sites
