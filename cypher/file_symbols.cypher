// The functions, methods and classes some files of a branch define, with what identifies a
// version of each (content hash, signature).
// param repo: repository name
// param branch: branch name
// param paths: file paths (a list)
UNWIND $paths AS p
MATCH (:File {repo: $repo, branch: $branch, path: p})-[:DEFINES*]->(s)
WHERE s:Function OR s:Method OR s:Class
RETURN s.id AS id, labels(s)[0] AS kind, s.qualname AS qualname, s.name AS name, s.path AS path,
       s.start_line AS start_line, s.end_line AS end_line, s.content_hash AS content_hash, s.signature AS signature,
       coalesce(s.is_test, false) AS is_test
