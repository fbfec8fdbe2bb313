// The most frequent unresolved references of a branch: where the index is blind.
// param repo: repository name
// param branch: branch name
// param reason: external or unresolved [default: "unresolved"]
// param limit: how many rows [default: 25]
MATCH (u:Unresolved {repo: $repo, branch: $branch, reason: $reason})<-[r]-(src)
RETURN u.raw AS raw, count(r) AS uses, collect(DISTINCT src.path)[0..5] AS example_paths
ORDER BY uses DESC, raw
LIMIT $limit
