"""The database: spool, watermarks, runs, journal and derived indexes, in one SQLite file.

Everything here is either derived from the stores (and rebuilt by ``dream reindex``) or is
operational state (spool, runs, journal). Schema changes are named migrations, each applied
once, in order, in its own transaction. Append new migrations to ``MIGRATIONS``; never edit
one that has shipped.
"""

from __future__ import annotations

import sqlite3
from datetime import UTC, datetime
from pathlib import Path

from dream.errors import DreamError

MIGRATIONS: list[tuple[str, str]] = [
    (
        "0001_spool",
        """
        CREATE TABLE items (
            seq INTEGER PRIMARY KEY AUTOINCREMENT,
            id TEXT NOT NULL UNIQUE,          -- stable: hash of source kind + exact reference
            source TEXT NOT NULL,             -- claude_code | pi | codex | jsonl | mbox | slack | textchat | ...
            source_path TEXT NOT NULL,        -- file or folder it came from
            ref TEXT NOT NULL,                -- exact reference: 'path:line' or a message id
            stream TEXT NOT NULL,             -- session, thread or channel id
            project_key TEXT,                 -- project the stream belongs to, when known
            author TEXT,
            role TEXT NOT NULL,               -- user | assistant | tool | other | system
            said_at TEXT,                     -- ISO 8601 UTC, when the message was said
            text TEXT NOT NULL,               -- redacted text
            tool_name TEXT,
            is_error INTEGER,                 -- tool results: 1 failed, 0 ok, NULL n/a
            kind TEXT NOT NULL,               -- statement | message | tool_result | assistant | meta
            evidence INTEGER NOT NULL,        -- 1 when the gate admits it as evidence
            entities TEXT NOT NULL DEFAULT '[]',  -- JSON list of entity names found by code
            collected_at TEXT NOT NULL,
            claimed_by TEXT,                  -- run id that claimed the item
            processed_by TEXT                 -- run id that finished it
        );
        CREATE INDEX items_stream ON items(stream, said_at);
        CREATE INDEX items_project ON items(project_key, seq);
        CREATE INDEX items_claim ON items(processed_by, claimed_by);
        CREATE VIRTUAL TABLE items_fts USING fts5(
            text, content='items', content_rowid='seq', tokenize='porter unicode61'
        );
        CREATE TRIGGER items_ai AFTER INSERT ON items BEGIN
            INSERT INTO items_fts(rowid, text) VALUES (new.seq, new.text);
        END;
        CREATE TRIGGER items_ad AFTER DELETE ON items BEGIN
            INSERT INTO items_fts(items_fts, rowid, text) VALUES ('delete', old.seq, old.text);
        END;
        CREATE TABLE source_files (
            path TEXT PRIMARY KEY,
            source TEXT NOT NULL,
            size INTEGER NOT NULL,            -- bytes consumed so far (a whole-line boundary)
            mtime REAL NOT NULL,
            lines INTEGER NOT NULL DEFAULT 0, -- lines consumed so far
            head_sha256 TEXT NOT NULL,        -- hash of the first bytes: detects a replaced file
            updated_at TEXT NOT NULL
        );
        CREATE TABLE watermarks (
            name TEXT PRIMARY KEY,            -- 'run', 'review:<project_key>', ...
            seq INTEGER NOT NULL,
            updated_at TEXT NOT NULL
        );
        """,
    ),
    (
        "0002_runs_journal",
        """
        CREATE TABLE runs (
            id TEXT PRIMARY KEY,
            kind TEXT NOT NULL DEFAULT 'dream',   -- dream | review
            mode TEXT NOT NULL,
            status TEXT NOT NULL,                 -- running | ok | partial | failed | priced
            project_key TEXT,
            model TEXT,
            started_at TEXT NOT NULL,
            finished_at TEXT,
            items INTEGER NOT NULL DEFAULT 0,
            bundles INTEGER NOT NULL DEFAULT 0,
            calls INTEGER NOT NULL DEFAULT 0,
            input_tokens INTEGER NOT NULL DEFAULT 0,
            output_tokens INTEGER NOT NULL DEFAULT 0,
            cached_tokens INTEGER NOT NULL DEFAULT 0,
            cost_usd REAL NOT NULL DEFAULT 0,
            duration_s REAL NOT NULL DEFAULT 0,
            commit_sha TEXT,
            branch TEXT,
            error TEXT,
            details TEXT NOT NULL DEFAULT '{}'
        );
        CREATE TABLE journal (
            id INTEGER PRIMARY KEY AUTOINCREMENT,
            at TEXT NOT NULL,
            kind TEXT NOT NULL,                   -- dream.prepared | dream.requested | ...
            key TEXT UNIQUE,                      -- idempotency key (replays add nothing)
            project_key TEXT,
            data TEXT NOT NULL DEFAULT '{}'
        );
        CREATE TABLE note_access (
            store_id TEXT NOT NULL,
            path TEXT NOT NULL,
            accessed_at TEXT NOT NULL,
            PRIMARY KEY (store_id, path)
        );
        """,
    ),
    (
        "automations_1",
        """
        CREATE TABLE automations (
            id TEXT PRIMARY KEY,
            creation_key TEXT NOT NULL UNIQUE,    -- recovers a lost receipt without a duplicate
            kind TEXT NOT NULL,                   -- before_compaction | after_pause
            name TEXT NOT NULL,
            agent TEXT NOT NULL,
            session_id TEXT NOT NULL,
            project_key TEXT,
            threshold REAL NOT NULL,              -- context fraction, e.g. 0.70
            idle_hours REAL NOT NULL DEFAULT 0,   -- hours without user input (after_pause)
            status TEXT NOT NULL DEFAULT 'active',  -- active | paused | deleted
            armed INTEGER NOT NULL DEFAULT 1,     -- 0 after a fire until the condition clears
            fires INTEGER NOT NULL DEFAULT 0,
            last_fired_at TEXT,
            created_at TEXT NOT NULL,
            updated_at TEXT NOT NULL
        );
        CREATE INDEX automations_session ON automations(agent, session_id);
        CREATE TABLE agent_sessions (
            agent TEXT NOT NULL,
            session_id TEXT NOT NULL,
            project_key TEXT,
            cwd TEXT,
            transcript_path TEXT,
            last_user_input_at TEXT,
            last_report_at TEXT,
            context_fraction REAL,
            context_tokens INTEGER,
            context_window INTEGER,
            PRIMARY KEY (agent, session_id)
        );
        CREATE TABLE agent_reports (
            key TEXT PRIMARY KEY,                 -- identity of one hook report; replays add nothing
            at TEXT NOT NULL
        );
        """,
    ),
    (
        "review_proposals_1",
        """
        CREATE TABLE review_proposals (
            run_id TEXT NOT NULL,                 -- the review run (runs.kind = 'review')
            slug TEXT NOT NULL,
            pass TEXT NOT NULL,                   -- memory|failures|tools|corrections|codify|project
            kind TEXT NOT NULL,                   -- memory | code | instruction
            title TEXT NOT NULL,
            size TEXT NOT NULL,                   -- S | M | L
            risk TEXT NOT NULL,                   -- low | medium | high
            project_key TEXT,
            evidence TEXT NOT NULL DEFAULT '[]',  -- JSON: checked citations (session:, commit:, path:line)
            items TEXT NOT NULL DEFAULT '[]',     -- JSON: spool item ids (Dream-Evidence trailers)
            replaces TEXT NOT NULL DEFAULT '[]',  -- JSON: note addresses it replaces
            change TEXT NOT NULL DEFAULT '{}',    -- JSON: the change itself
            fingerprint TEXT NOT NULL,            -- sha256 of pass + slug + sorted evidence items
            status TEXT NOT NULL DEFAULT 'proposed',  -- proposed|accepted|rejected|exported
            why TEXT,
            decided_at TEXT,
            commit_sha TEXT,
            export_path TEXT,
            created_at TEXT NOT NULL,
            PRIMARY KEY (run_id, slug)
        );
        CREATE INDEX review_proposals_slug ON review_proposals(slug, status);
        CREATE TABLE review_rejections (
            fingerprint TEXT PRIMARY KEY,         -- never proposed again for the same evidence
            slug TEXT NOT NULL,
            pass TEXT NOT NULL,
            run_id TEXT NOT NULL,
            why TEXT,
            at TEXT NOT NULL
        );
        """,
    ),
    (
        "store_index_1",
        """
        CREATE TABLE index_stores (
            store_id TEXT PRIMARY KEY,
            store_name TEXT NOT NULL,
            scope TEXT NOT NULL,
            path TEXT NOT NULL,
            commit_sha TEXT,                      -- the store commit the index reflects
            synced_at TEXT NOT NULL
        );
        CREATE TABLE documents (
            id INTEGER PRIMARY KEY AUTOINCREMENT,
            store_id TEXT NOT NULL,
            path TEXT NOT NULL,
            blob TEXT NOT NULL,                   -- git blob id: the checksum reindex skips on
            sha256 TEXT NOT NULL,                 -- content hash given to consumers
            commit_sha TEXT NOT NULL,             -- commit at which this version was indexed
            home TEXT,                            -- projects | sessions | user | NULL
            owner TEXT,                           -- project name or session id
            project TEXT,                         -- project key from front matter
            status TEXT,                          -- live | crumpled | NULL
            title TEXT NOT NULL,
            body TEXT NOT NULL,
            UNIQUE (store_id, path)
        );
        CREATE VIRTUAL TABLE documents_fts USING fts5(
            title, body, content='documents', content_rowid='id', tokenize='porter unicode61'
        );
        CREATE TRIGGER documents_ai AFTER INSERT ON documents BEGIN
            INSERT INTO documents_fts(rowid, title, body) VALUES (new.id, new.title, new.body);
        END;
        CREATE TRIGGER documents_ad AFTER DELETE ON documents BEGIN
            INSERT INTO documents_fts(documents_fts, rowid, title, body)
                VALUES ('delete', old.id, old.title, old.body);
        END;
        CREATE TRIGGER documents_au AFTER UPDATE OF title, body ON documents BEGIN
            INSERT INTO documents_fts(documents_fts, rowid, title, body)
                VALUES ('delete', old.id, old.title, old.body);
            INSERT INTO documents_fts(rowid, title, body) VALUES (new.id, new.title, new.body);
        END;
        """,
    ),
    (
        "collect_state_1",
        """
        ALTER TABLE source_files ADD COLUMN state TEXT NOT NULL DEFAULT '{}';  -- parser state (session, cwd, open tool calls)
        ALTER TABLE items ADD COLUMN channel TEXT;  -- free label from the source: sms, email, slack...
        CREATE TABLE entity_names (
            name TEXT PRIMARY KEY,                -- normalised entity name (lower case, no '@')
            display TEXT NOT NULL,                -- as first seen
            origin TEXT NOT NULL,                 -- author | participant | store
            seen_at TEXT NOT NULL
        );
        """,
    ),
    (
        # The spool's full-text index is filled in bulk behind its own watermark
        # (dream.spool.history.index_new_items) instead of by a per-row trigger, which
        # cost five times as much. Rows indexed so far are exactly the existing ones.
        "spool_fts_bulk_1",
        """
        DROP TRIGGER items_ai;
        DROP TRIGGER items_ad;
        INSERT OR REPLACE INTO watermarks(name, seq, updated_at)
            VALUES ('items_fts', (SELECT coalesce(max(seq), 0) FROM items),
                    strftime('%Y-%m-%dT%H:%M:%fZ', 'now'));
        CREATE TRIGGER items_ad AFTER DELETE ON items
        WHEN old.seq <= (SELECT seq FROM watermarks WHERE name = 'items_fts') BEGIN
            INSERT INTO items_fts(items_fts, rowid, text) VALUES ('delete', old.seq, old.text);
        END;
        """,
    ),
    (
        # Where collected items came from: each recorded folder under the project key its
        # items got (dream.spool.projects), so 'dream projects' lists keys with folders.
        "project_folders_1",
        """
        CREATE TABLE project_folders (
            project_key TEXT NOT NULL,
            folder TEXT NOT NULL,             -- the folder a transcript recorded (its cwd)
            on_this_machine INTEGER NOT NULL, -- 1 when the folder exists here
            seen_at TEXT NOT NULL,
            PRIMARY KEY (project_key, folder)
        );
        """,
    ),
    (
        # What the memory pages list without reading git: each document's scope root
        # (user, projects/<name>, sessions), its kind (a record kind, 'note' for a free
        # note, 'brief'), its state (a record's status, a note's live/crumpled) and its day
        # (an event's date, a to-do's due date, a note's latest said_at). The rows are
        # derived, so they are dropped and rebuilt from git by the next sync.
        "documents_memory_1",
        """
        ALTER TABLE documents ADD COLUMN root TEXT;
        ALTER TABLE documents ADD COLUMN kind TEXT;
        ALTER TABLE documents ADD COLUMN state TEXT;
        ALTER TABLE documents ADD COLUMN day TEXT;
        CREATE INDEX documents_by_state ON documents(store_id, root, kind, state, day, path);
        CREATE INDEX documents_by_day ON documents(store_id, root, kind, day, path);
        DELETE FROM documents;
        DELETE FROM index_stores;
        """,
    ),
    (
        # A note record crumpled with 'dream notes crumple' keeps its status in a field,
        # which the search filter's column did not read: such notes were still found. The
        # memory column 'state' already held it.
        "documents_note_status_1",
        """
        UPDATE documents SET status = 'crumpled' WHERE kind = 'note' AND state = 'crumpled';
        """,
    ),
]


class MigrationFailed(DreamError):
    """A migration does not apply to the database as it is (its schema and ``_migrations``
    disagree); the database is left as it was."""


def utcnow() -> str:
    return datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%S.%fZ")


def connect(path: Path, apply_migrations: bool = True) -> sqlite3.Connection:
    """Open the database, applying any pending migrations (``dream doctor`` opens it
    without, so that it can report them and change nothing)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    conn = sqlite3.connect(path, timeout=30, isolation_level=None, check_same_thread=False)
    conn.row_factory = sqlite3.Row
    conn.execute("PRAGMA journal_mode=WAL")
    conn.execute("PRAGMA synchronous=NORMAL")
    conn.execute("PRAGMA foreign_keys=ON")
    if apply_migrations:
        try:
            migrate(conn)
        except BaseException:
            conn.close()
            raise
    return conn


def _db_path(conn: sqlite3.Connection) -> str:
    row = conn.execute("PRAGMA database_list").fetchone()
    return (row[2] if row else "") or "the database"


def migrate(conn: sqlite3.Connection) -> list[str]:
    conn.execute(
        "CREATE TABLE IF NOT EXISTS _migrations (name TEXT PRIMARY KEY, applied_at TEXT NOT NULL)"
    )
    done = {row[0] for row in conn.execute("SELECT name FROM _migrations")}
    applied = []
    for name, sql in MIGRATIONS:
        if name in done:
            continue
        conn.execute("BEGIN IMMEDIATE")
        try:
            # re-check inside the write lock: another process may have just applied it
            if conn.execute("SELECT 1 FROM _migrations WHERE name=?", (name,)).fetchone():
                conn.execute("COMMIT")
                continue
            for statement in _split(sql):
                conn.execute(statement)
            conn.execute("INSERT INTO _migrations VALUES (?, ?)", (name, utcnow()))
            conn.execute("COMMIT")
        except sqlite3.OperationalError as exc:
            conn.execute("ROLLBACK")
            if "locked" in str(exc) or "busy" in str(exc):
                raise
            # The schema disagrees with _migrations (for example a column the migration
            # adds is there, but the migration is not recorded): nothing was changed.
            raise MigrationFailed(
                f"the database {_db_path(conn)} cannot apply migration {name} ({exc})",
                "run 'dream doctor': it says how to fix it") from exc
        except BaseException:
            conn.execute("ROLLBACK")
            raise
        applied.append(name)
    return applied


def dry_run(conn: sqlite3.Connection) -> list[tuple[str, str | None]]:
    """Each migration not yet recorded, with the error applying it would raise (None when
    it applies), found by applying them in one transaction that is rolled back."""
    try:
        done = {row[0] for row in conn.execute("SELECT name FROM _migrations")}
    except sqlite3.OperationalError:
        done = set()
    pending = [(name, sql) for name, sql in MIGRATIONS if name not in done]
    if not pending:
        return []
    out: list[tuple[str, str | None]] = []
    conn.execute("BEGIN")
    try:
        for name, sql in pending:
            conn.execute("SAVEPOINT migration")
            try:
                for statement in _split(sql):
                    conn.execute(statement)
                conn.execute("RELEASE migration")
                out.append((name, None))
            except sqlite3.DatabaseError as exc:
                conn.execute("ROLLBACK TO migration")
                conn.execute("RELEASE migration")
                out.append((name, str(exc)))
    finally:
        conn.execute("ROLLBACK")
    return out


def _split(sql: str) -> list[str]:
    """Split a migration into statements, keeping trigger bodies whole."""
    statements, buf = [], []
    for line in sql.splitlines():
        code = line.split("--", 1)[0] if "--" in line else line
        buf.append(code)
        joined = "\n".join(buf).strip()
        if joined.endswith(";") and sqlite3.complete_statement(joined):
            statements.append(joined)
            buf = []
    tail = "\n".join(buf).strip()
    if tail:
        statements.append(tail)
    return statements
