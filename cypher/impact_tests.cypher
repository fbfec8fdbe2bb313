// Tests of a set of symbols: the test functions and methods that call each of them directly
// (TESTED_BY). `branchgraph impact` asks it for the changed and every impacted symbol.
// param ids: node ids of functions, methods or classes (a list)
UNWIND $ids AS id
CALL (id) {
  MATCH (t:Function {id: id}) RETURN t UNION MATCH (t:Method {id: id}) RETURN t
  UNION MATCH (t:Class {id: id}) RETURN t
}
MATCH (t)-[:TESTED_BY]->(test)
RETURN DISTINCT id AS target, test.id AS id, labels(test)[0] AS kind, test.qualname AS qualname, test.path AS path,
       test.start_line AS start_line, test.end_line AS end_line
