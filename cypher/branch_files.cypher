// Every file of a branch with its blob: two branches' lists tell which files differ.
// param repo: repository name
// param branch: branch name
MATCH (f:File {repo: $repo, branch: $branch})
WHERE f.path IS NOT NULL
RETURN f.path AS path, f.blob_sha AS blob
