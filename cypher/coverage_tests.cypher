// The tests a coverage run saw execute some functions or methods: TESTED_BY edges with
// evidence 'coverage', which `branchgraph coverage` imports from a coverage.py report.
// param ids: node ids of functions or methods (a list)
UNWIND $ids AS id
CALL (id) {
  MATCH (s:Function {id: id}) RETURN s UNION MATCH (s:Method {id: id}) RETURN s
}
MATCH (s)-[r:TESTED_BY]->(t)
WHERE r.evidence = 'coverage'
RETURN id AS target, t.id AS id, t.qualname AS qualname, t.path AS path, t.start_line AS start_line,
       t.end_line AS end_line, r.covered_lines AS covered_lines
