// Neo4j constraints and indexes. One statement per line-terminated block (split on ';').
// Every node is unique on (repo, branch, id). Ids are hashes of (repo, branch, path, label,
// qualname, ordinal), so a uniqueness constraint on id alone enforces that, and its
// single-property index makes every write lookup about a third cheaper than a composite key.
CREATE CONSTRAINT file_id IF NOT EXISTS FOR (n:File) REQUIRE n.id IS UNIQUE;
CREATE CONSTRAINT class_id IF NOT EXISTS FOR (n:Class) REQUIRE n.id IS UNIQUE;
CREATE CONSTRAINT function_id IF NOT EXISTS FOR (n:Function) REQUIRE n.id IS UNIQUE;
CREATE CONSTRAINT method_id IF NOT EXISTS FOR (n:Method) REQUIRE n.id IS UNIQUE;
CREATE CONSTRAINT interface_id IF NOT EXISTS FOR (n:Interface) REQUIRE n.id IS UNIQUE;
CREATE CONSTRAINT unresolved_id IF NOT EXISTS FOR (n:Unresolved) REQUIRE n.id IS UNIQUE;
// A file's subgraph is found from its File node; users look symbols up by name and qualname.
CREATE INDEX file_path IF NOT EXISTS FOR (n:File) ON (n.repo, n.branch, n.path);
CREATE INDEX class_name IF NOT EXISTS FOR (n:Class) ON (n.name);
CREATE INDEX function_name IF NOT EXISTS FOR (n:Function) ON (n.name);
CREATE INDEX method_name IF NOT EXISTS FOR (n:Method) ON (n.name);
CREATE INDEX interface_name IF NOT EXISTS FOR (n:Interface) ON (n.name);
CREATE INDEX class_qualname IF NOT EXISTS FOR (n:Class) ON (n.qualname);
CREATE INDEX function_qualname IF NOT EXISTS FOR (n:Function) ON (n.qualname);
CREATE INDEX method_qualname IF NOT EXISTS FOR (n:Method) ON (n.qualname);
CREATE INDEX unresolved_raw IF NOT EXISTS FOR (n:Unresolved) ON (n.raw);
// Test selection follows dangling calls by the bare name they call (`x.save()` may run any `save`).
CREATE INDEX unresolved_branch_name IF NOT EXISTS FOR (n:Unresolved) ON (n.repo, n.branch, n.name);
