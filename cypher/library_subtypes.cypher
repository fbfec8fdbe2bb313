// Which of the given methods code typed by a library class may run: those of a class that
// extends or implements a type from outside the repository, itself or through its in-repo
// bases (`stream.read()` on a java.io.InputStream runs an in-repo subclass's `read`).
// `impact` keeps external references named like such a method among its possible users.
// param repo: repository name
// param branch: branch name
// param qualnames: qualified names of methods (a list)
UNWIND $qualnames AS q
MATCH (m:Method {repo: $repo, branch: $branch, qualname: q})<-[:DEFINES]-(c)
WHERE c:Class OR c:Interface
MATCH (c)-[:INHERITS_FROM|IMPLEMENTS*0..5]->()-[:INHERITS_FROM|IMPLEMENTS]->(:Unresolved)
RETURN DISTINCT q AS qualname
