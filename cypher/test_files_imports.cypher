// The tests of a branch and what every file imports, for the fallbacks of test selection: a
// changed symbol no walk reaches a test from is tested by the test files named after its
// module, else by the test files that import its file (directly or through other files); and
// the tests that may use what a module makes at import.
// param repo: repository name
// param branch: branch name
MATCH (f:File {repo: $repo, branch: $branch})
OPTIONAL MATCH (f)-[:IMPORTS]->(imported)
WHERE NOT imported:Unresolved
WITH f, collect(DISTINCT imported.path) AS imports
OPTIONAL MATCH (f)-[:DEFINES*1..2]->(t)
WHERE (t:Function OR t:Method) AND t.is_test
RETURN f.path AS path, imports,
       collect(CASE WHEN t IS NULL THEN null ELSE {id: t.id, qualname: t.qualname, start_line: t.start_line,
               end_line: t.end_line} END) AS tests
