-- PostgreSQL schema: embeddings keyed by content, joined to graph nodes by id; branch metadata.
-- Idempotent: run at every connection by PgStore.ensure_schema().
CREATE EXTENSION IF NOT EXISTS vector;

-- One row per distinct embedded text and model: storage grows with content, not branches.
-- The column has no fixed dimension so several models can coexist; each (model, dims) gets
-- its own partial HNSW index over a cast to its dimension (created on first use).
CREATE TABLE IF NOT EXISTS embeddings (
    content_key text PRIMARY KEY,      -- hash(enriched text, model id, dims)
    model       text NOT NULL,
    dims        integer NOT NULL,
    embedding   vector NOT NULL,
    created_at  timestamptz NOT NULL DEFAULT now()
);

-- Which node of which branch carries which embedded content, plus its lexical text.
CREATE TABLE IF NOT EXISTS node_embeddings (
    repo        text NOT NULL,
    branch      text NOT NULL,
    node_id     text NOT NULL,
    label       text NOT NULL,
    path        text NOT NULL,
    qualname    text NOT NULL,
    content_key text NOT NULL REFERENCES embeddings (content_key),
    lexical     text NOT NULL,         -- identifier-split text for full-text search
    lexical_tsv tsvector,              -- to_tsvector('simple', lexical), written with the row
    PRIMARY KEY (repo, branch, node_id)
);
CREATE INDEX IF NOT EXISTS node_embeddings_content ON node_embeddings (content_key);
-- The symbol's source hash: a renamed file's unchanged symbols find their vectors by it.
ALTER TABLE node_embeddings ADD COLUMN IF NOT EXISTS symbol_hash text;
CREATE INDEX IF NOT EXISTS node_embeddings_symbol ON node_embeddings (repo, branch, path, symbol_hash);
-- Stores made before 2026-12-05 generated lexical_tsv; a plain column lets a branch-off copy it
-- as it is instead of computing it again (a quarter of copying django's rows). Its values stay.
ALTER TABLE node_embeddings ALTER COLUMN lexical_tsv DROP EXPRESSION IF EXISTS;
CREATE INDEX IF NOT EXISTS node_embeddings_lexical ON node_embeddings USING gin (lexical_tsv);

-- Per-branch index metadata; indexed_commit advances only after every write succeeded.
CREATE TABLE IF NOT EXISTS branches (
    repo            text NOT NULL,
    branch          text NOT NULL,
    repo_path       text NOT NULL,
    indexed_commit  text NOT NULL,
    indexed_at      timestamptz NOT NULL DEFAULT now(),
    embedder        text NOT NULL,
    counts          jsonb NOT NULL,
    unresolved_rate double precision,
    PRIMARY KEY (repo, branch)
);
-- Columns added after the first release; ADD COLUMN IF NOT EXISTS upgrades older stores.
ALTER TABLE branches ADD COLUMN IF NOT EXISTS base_branch text;
ALTER TABLE branches ADD COLUMN IF NOT EXISTS rename_map jsonb NOT NULL DEFAULT '{}';
ALTER TABLE branches ADD COLUMN IF NOT EXISTS conflict_files jsonb NOT NULL DEFAULT '[]';

-- An ingest that started writing and has not recorded its branch yet. A row left behind
-- means a crashed run: the graph may hold part of the branch, so the next run replaces file
-- by file instead of bulk-creating.
CREATE TABLE IF NOT EXISTS ingest_runs (
    repo        text NOT NULL,
    branch      text NOT NULL,
    target      text NOT NULL,         -- the commit being indexed
    started_at  timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (repo, branch)
);

-- Parsed files by git blob: a blob parsed once is never parsed again, on any branch.
CREATE TABLE IF NOT EXISTS parse_cache (
    blob_sha          text NOT NULL,
    language          text NOT NULL,
    extractor_version integer NOT NULL,
    parsed            bytea NOT NULL,      -- zlib-compressed JSON (ingest/extract.py)
    created_at        timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (blob_sha, language, extractor_version)
);

-- What the graph holds for each file of a branch: the fingerprint of the file's subgraph
-- (branch-independent). NULL marks a file whose rewrite began and may not have finished.
CREATE TABLE IF NOT EXISTS file_states (
    repo        text NOT NULL,
    branch      text NOT NULL,
    path        text NOT NULL,
    blob_sha    text NOT NULL,
    fingerprint text,
    PRIMARY KEY (repo, branch, path)
);

-- What resolving each file read of the rest of the commit (ingest/read_log.py; NULL: its
-- resolver logs none) and the rest of its record (facts, counts, links: ingest/incremental.py),
-- so an update resolves again only the files a change reaches.
ALTER TABLE file_states ADD COLUMN IF NOT EXISTS reads text[];
ALTER TABLE file_states ADD COLUMN IF NOT EXISTS resolution jsonb;

-- Recency by days (recent_paths) gave way to recency by commits (path_recency).
DROP TABLE IF EXISTS recent_paths;

-- How many commits ago each path changed is derived from path_changes now.
DROP TABLE IF EXISTS path_recency;

-- Per commit, the paths each of its newest `depth` commits changed: retrieval's recency (how
-- many commits ago a file changed) and co-change (files that change together) signals.
CREATE TABLE IF NOT EXISTS path_changes (
    repo        text NOT NULL,
    commit      text NOT NULL,
    depth       integer NOT NULL,
    changes     jsonb NOT NULL,
    PRIMARY KEY (repo, commit, depth)
);

-- Each indexed commit's tracked files (core/git.py: encode_listing): an update lists its commit
-- as the listing of the commit the branch was indexed at plus the subtrees that differ. Kept
-- for the commits some branch is indexed at (record_branch prunes the rest).
CREATE TABLE IF NOT EXISTS tree_listings (
    repo        text NOT NULL,
    commit      text NOT NULL,
    listing     bytea NOT NULL,
    PRIMARY KEY (repo, commit)
);

-- A symbol's line span and conflict flag, so entry search needs no graph round trip. Rows
-- written before these columns existed hold NULL; search then asks the graph.
ALTER TABLE node_embeddings ADD COLUMN IF NOT EXISTS start_line integer;
ALTER TABLE node_embeddings ADD COLUMN IF NOT EXISTS end_line integer;
ALTER TABLE node_embeddings ADD COLUMN IF NOT EXISTS has_conflict boolean;

-- Tokens in each row's full-text document: BM25 normalises term frequency by it (NULL on rows
-- written before it was kept; ranked as an average document).
ALTER TABLE node_embeddings ADD COLUMN IF NOT EXISTS lexical_len integer;
-- A branch's node rows may be written while their vectors are still being computed, the
-- reference checked when they commit (ingest's embed stage writes both at once).
ALTER TABLE node_embeddings ALTER CONSTRAINT node_embeddings_content_key_fkey DEFERRABLE INITIALLY IMMEDIATE;

-- Indexing as a service. One row per push the git server reported: when it came, what it
-- brought, and when a worker indexed a commit that includes it (push-to-indexed lag).
CREATE TABLE IF NOT EXISTS pushes (
    repo        text NOT NULL,
    branch      text NOT NULL,
    after_commit text NOT NULL,        -- the branch head the push left
    commits     integer NOT NULL,      -- commits it brought (as the payload counts them)
    pushed_at   timestamptz NOT NULL,  -- when the webhook arrived
    indexed_at  timestamptz,           -- when an ingest that includes it finished
    indexed_commit text,
    PRIMARY KEY (repo, branch, after_commit, pushed_at)
);
CREATE INDEX IF NOT EXISTS pushes_pending ON pushes (repo, branch) WHERE indexed_at IS NULL;
CREATE INDEX IF NOT EXISTS pushes_indexed_at ON pushes (indexed_at);

-- Webhook deliveries already accepted, by the git server's delivery id: a replay is refused.
CREATE TABLE IF NOT EXISTS webhook_deliveries (
    delivery    text PRIMARY KEY,      -- "github:<X-GitHub-Delivery>", "gitlab:<X-Gitlab-Event-UUID>"
    received_at timestamptz NOT NULL DEFAULT now()
);
