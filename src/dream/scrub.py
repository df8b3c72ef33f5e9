"""Scrub: remove a secret that slipped through from everywhere Dream put it.

``scrub(app, value=None, pattern=None, history=False)``:

* **the database**: every text column of every table (the spool, entity names, watermark
  state, runs, journal, proposals, the store index) has the value replaced by
  ``[REDACTED:scrubbed:<8 hex>]``; the full-text indexes are rebuilt and merged, the WAL
  checkpointed and the file vacuumed, so no old page keeps it;
* **files** under DREAM_HOME outside the stores (logs);
* **store history**, only with ``history=True`` (the caller has asked the user): each
  store whose objects hold the value is rewritten locally, commit by commit. A commit
  whose tree and message do not hold the value keeps its content; its sha changes only
  when a parent's did. Every ref (branches, run branches ``dream/run/*``) moves to its new
  commit, old objects are pruned, and the old->new map is kept in the store's git
  directory (``dream-commit-map``), so ``--at OLD`` still resolves; run rows and other
  database text naming an old sha are updated. A store with a remote is never pushed: the
  report carries the exact command and what it does to other clones.

The report lists what was changed, commit by commit, and always says to rotate the secret.
"""

from __future__ import annotations

import json
import re
import sqlite3
import tomllib
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from dream.app import App
from dream.errors import BadInput
from dream.secrets import placeholder
from dream.store.document import Document
from dream.store.document import parse as parse_document
from dream.store.git import COMMIT_MAP, SCRUB_PENDING, Repo, run_git
from dream.store.lock import write_locks

MIN_VALUE = 6  # shorter values would scrub ordinary words
# how to narrow a --pattern that matches more than a secret
_NARROW = ("make it match the whole secret only, such as its prefix and length: "
           "'ghp_[A-Za-z0-9]{36}'")

# columns Dream fills itself with ids, hashes, fixed words and times, never with anything
# said or read: a secret cannot be in them, and scrubbing them breaks the database
# ('--pattern [a-z]+' scrubbed _migrations.name, and every later command failed to migrate;
# '[0-9a-f]{32}' would rewrite every item id and the evidence links to them)
OWN_COLUMNS = frozenset({
    "id", "seq", "kind", "mode", "status", "role", "source", "scope", "home", "pass",
    "size", "risk", "agent", "fingerprint", "creation_key", "blob", "sha256", "head_sha256",
    "commit_sha", "branch", "claimed_by", "processed_by", "project_key", "project",
    "run_id", "store_id", "root", "day"})
OWN_TABLES = frozenset({"_migrations", "watermarks"})


def _own(table: str, column: str) -> bool:
    return table in OWN_TABLES or column in OWN_COLUMNS or column.endswith("_at")


@dataclass
class StoreRewrite:
    store: str
    path: str
    commits: list[dict[str, str]] = field(default_factory=list)  # old, new, subject
    refs: list[str] = field(default_factory=list)
    remote: str | None = None
    push: str | None = None       # the command the user may run, never run by Dream
    warning: str | None = None


@dataclass
class ScrubReport:
    what: str                     # the placeholder the value became (never the value)
    rows: dict[str, int] = field(default_factory=dict)   # table.column -> rows changed
    files: list[str] = field(default_factory=list)
    stores_holding: list[str] = field(default_factory=list)  # before a history rewrite
    rewrites: list[StoreRewrite] = field(default_factory=list)
    rotate: str = ("rotate the secret now: revoke it where it was issued and make a new "
                   "one; scrubbing copies does not make a leaked secret safe again")

    def as_dict(self) -> dict[str, Any]:
        return {"replaced_with": self.what, "rows": self.rows, "files": self.files,
                "stores_holding": self.stores_holding,
                "rewrites": [r.__dict__ for r in self.rewrites], "rotate": self.rotate}


def _matcher(value: str | None, pattern: str | None) -> tuple[Callable[[str], str], str]:
    if value is None and pattern is None:
        raise BadInput("nothing to scrub: give the secret VALUE or a --pattern",
                       "for example dream scrub 'sk-live-...' or dream scrub --pattern 'sk-[a-z0-9]+'")
    if value is not None and pattern is not None:
        raise BadInput("give a VALUE or --pattern, not both", "dream scrub VALUE")
    if value is not None:
        if len(value) < MIN_VALUE:
            raise BadInput(f"the value is shorter than {MIN_VALUE} characters",
                           "give the whole secret; a short value would scrub ordinary words")
        mark = placeholder("scrubbed", value)
        # names are slugs of what was said: the value's slug form goes too
        slugged = re.sub(r"[^a-z0-9]+", "-", value.lower()).strip("-")
        named = "scrubbed-" + mark.rsplit(":", 1)[1].rstrip("]")

        def sub_value(text: str) -> str:
            text = text.replace(value, mark)
            if len(slugged) >= MIN_VALUE and slugged in text:
                text = text.replace(slugged, named)
            return text
        return sub_value, mark
    try:
        regex = re.compile(pattern or "")
    except re.error as exc:
        raise BadInput(f"--pattern is not a regular expression ({exc})",
                       "escape special characters, e.g. 'ghp_[A-Za-z0-9]+'") from exc
    if regex.search("") is not None:
        raise BadInput("--pattern matches the empty text", "make it match the secret only")
    def sub_pattern(text: str) -> str:
        def one(match: re.Match[str]) -> str:
            if len(match.group(0)) < MIN_VALUE:
                raise _ShortMatch(match.group(0))
            return placeholder("scrubbed", match.group(0))
        return regex.sub(one, text)
    return sub_pattern, "[REDACTED:scrubbed:<hash of each match>]"


class _ShortMatch(Exception):
    """A --pattern match shorter than a VALUE may be: it would scrub ordinary words."""


def scrub(app: App, value: str | None = None, pattern: str | None = None,
          history: bool = False) -> ScrubReport:
    sub, mark = _matcher(value, pattern)
    try:
        return _scrub(app, sub, mark, "--pattern" if pattern is not None else "the value",
                      history)
    except _ShortMatch as exc:
        raise BadInput(f"--pattern matches '{exc.args[0]}', shorter than {MIN_VALUE} "
                       "characters: it would scrub ordinary words",
                       _NARROW) from None


def _scrub(app: App, sub: Callable[[str], str], mark: str, what: str,
           history: bool) -> ScrubReport:
    stores = app.stores.all() if _has_registry(app) else []
    if history and stores:
        _refuse_open_dreams(app)
        # held from the first look at the stores' blobs to the end of the rewrite: taken
        # only around the rewrite, a note written after the look (holding the value in a
        # blob the look had not seen) was left in history; and a busy store is refused
        # before the database or the logs change
        with write_locks([store.path for store in stores], "dream scrub --history"):
            return _scrub_all(app, stores, sub, mark, what, history)
    return _scrub_all(app, stores, sub, mark, what, history)


def _scrub_all(app: App, stores: list[Any], sub: Callable[[str], str], mark: str,
               what: str, history: bool) -> ScrubReport:
    report = ScrubReport(mark)
    if history:
        for store in stores:
            _finish_interrupted(app, store, report)
    # checked before anything changes: a value that is a key of Dream's documents is
    # refused with the database untouched too
    found = {store.id: _scrubbed_blobs(store.repo, sub, what) for store in stores}
    report.rows = _scrub_db(app.db, sub, refuse=what)
    for path in sorted((app.home.root / "logs").rglob("*")) \
            if (app.home.root / "logs").is_dir() else []:
        if path.is_file():
            text = path.read_text(encoding="utf-8", errors="surrogateescape")
            new = sub(text)
            if new != text:
                path.write_text(new, encoding="utf-8", errors="surrogateescape")
                report.files.append(str(path))
    for store in stores:
        repo = store.repo
        if found[store.id] or _bad_messages(repo, sub):
            report.stores_holding.append(str(store.path))
            if history:
                # under the stores' write locks (see _scrub): a note written or a run
                # applied while the commits are rewritten would be lost or left half-moved
                rewrite = rewrite_history(repo, sub, found[store.id])
                rewrite.store = store.name
                report.rewrites.append(rewrite)
                shas = {c["old"]: c["new"] for c in rewrite.commits}
                if shas:
                    _scrub_db(app.db, lambda text, shas=shas: _replace_shas(text, shas))
                clear_pending(repo)
    if report.rewrites:
        from dream import index

        # full: the commit shas in the database were mapped to the new ones above, so the
        # index looked up to date while its rows still named the old blobs ('dream doctor'
        # failed with index drift after every history scrub)
        for store in stores:
            index.sync(app.db, store, full=True)
        _compact(app.db)
    return report


def _finish_interrupted(app: App, store: Any, report: ScrubReport) -> None:
    """A history scrub of ``store`` killed after it moved the refs is finished first (see
    :func:`finish_pending`), and the database's shas follow its rewritten commits."""
    repo = store.repo
    shas = finish_pending(repo)
    if shas:
        _scrub_db(app.db, lambda text: _replace_shas(text, shas))
        rewrite = StoreRewrite(store=store.name, path=str(store.path))
        for old, new in shas.items():
            subject = repo.git("log", "-1", "--format=%s", new).strip()
            rewrite.commits.append({"old": old, "new": new, "files": "",
                                    "subject": f"{subject} (an interrupted scrub, finished)"})
        moved = set(shas.values())
        rewrite.refs = [ref for sha, ref in (line.split(" ", 1) for line in repo.git(
            "for-each-ref", "--format=%(objectname) %(refname)").splitlines()) if sha in moved]
        _publish(repo, rewrite)
        report.rewrites.append(rewrite)
    clear_pending(repo)


def _refuse_open_dreams(app: App) -> None:
    """A history rewrite while a run or an interactive dream holds its lock would move
    the commits it works on under it (its branch, its baseline): refused, nothing changed.
    A stale lock (its process is gone) does not stop it."""
    from dream.notes.dreaming import held_locks, lock_held_error, lock_state, read_lock

    for path in held_locks(app.home.notes_path):
        info = read_lock(path) or {}
        if lock_state(info) != "stale":
            error = lock_held_error(path, info)
            raise type(error)(f"--history would rewrite commits a dream is working on "
                              f"({error.message})",
                              f"{error.hint}; then scrub again (nothing was changed)")


def _has_registry(app: App) -> bool:
    return (app.home.notes_path / ".git").exists()


# -- the database ------------------------------------------------------------------------

def _text_columns(conn: sqlite3.Connection) -> list[tuple[str, str]]:
    out = []
    tables = [r[0] for r in conn.execute(
        "SELECT name FROM sqlite_master WHERE type='table' AND name NOT LIKE 'sqlite_%'"
        " AND sql NOT LIKE 'CREATE VIRTUAL TABLE%'")]
    virtual = [r[0] for r in conn.execute(
        "SELECT name FROM sqlite_master WHERE sql LIKE 'CREATE VIRTUAL TABLE%'")]
    for table in tables:
        if any(table.startswith(v + "_") for v in virtual):
            continue  # an index's own tables: rebuilt below
        for col in conn.execute(f'PRAGMA table_info("{table}")'):
            if (col[2] or "").upper() in ("TEXT", "") or "CHAR" in (col[2] or "").upper():
                out.append((table, col[1]))
    return out


def _scrub_db(conn: sqlite3.Connection, sub: Callable[[str], str],
              refuse: str | None = None) -> dict[str, int]:
    """Scrub every text column. ``refuse`` (what the user gave, for the error): refuse, with
    nothing changed, when ``sub`` would change one of Dream's own columns (ids, hashes,
    fixed words, times); without it (commit shas after a history rewrite) those change too.
    A _ShortMatch raised by ``sub`` rolls everything back."""
    raised: list[BaseException] = []

    def call(text: object) -> object:
        if not isinstance(text, str):
            return text
        try:
            return sub(text)
        except _ShortMatch as exc:     # SQLite would report only 'user-defined function
            raised.append(exc)         # raised exception'
            raise

    conn.create_function("dream_scrub", 1, call, deterministic=True)
    changed: dict[str, int] = {}
    columns = _text_columns(conn)
    conn.execute("BEGIN IMMEDIATE")
    try:
        hits = [f"{table}.{col}" for table, col in columns if refuse and _own(table, col)
                and conn.execute(f'SELECT 1 FROM "{table}" WHERE typeof("{col}") = \'text\' '
                                 f'AND dream_scrub("{col}") IS NOT "{col}" LIMIT 1').fetchone()]
        if hits:
            named = ", ".join(hits[:3]) + (f" and {len(hits) - 3} more" if len(hits) > 3 else "")
            pattern = refuse == "--pattern"
            raise BadInput(f"{refuse} also {'matches' if pattern else 'appears in'} Dream's "
                           f"own ids and names ({named}); scrubbing them would break the "
                           "database, so nothing was changed",
                           _NARROW if pattern else
                           "give the whole secret, exactly as it leaked")
        for table, col in columns:
            if refuse and _own(table, col):
                continue
            cur = conn.execute(f'UPDATE "{table}" SET "{col}" = dream_scrub("{col}") '
                               f'WHERE typeof("{col}") = \'text\' AND dream_scrub("{col}") '
                               f'IS NOT "{col}"')
            if cur.rowcount:
                changed[f"{table}.{col}"] = cur.rowcount
        if changed:
            _rebuild_indexes(conn)
        conn.execute("COMMIT")
    except BaseException as exc:
        conn.execute("ROLLBACK")
        if raised and isinstance(exc, sqlite3.OperationalError):
            raise raised[0] from None
        raise
    if changed:
        _compact(conn)
    return changed


def _rebuild_indexes(conn: sqlite3.Connection) -> None:
    """Both full-text indexes from their tables, merged, so no segment keeps old terms.
    Each is emptied with FTS5's 'delete-all', which reads nothing: a DELETE on an
    external-content index reads the rows' current (scrubbed) text to find the terms to
    remove, which no longer match what was indexed (SQLite then reports corruption)."""
    done = conn.execute("SELECT seq FROM watermarks WHERE name = 'items_fts'").fetchone()
    conn.execute("INSERT INTO items_fts(items_fts) VALUES ('delete-all')")
    conn.execute("INSERT INTO items_fts(rowid, text) SELECT seq, text FROM items WHERE seq <= ?",
                 (done[0] if done else 0,))
    conn.execute("INSERT INTO items_fts(items_fts) VALUES ('optimize')")
    conn.execute("INSERT INTO documents_fts(documents_fts) VALUES ('delete-all')")
    conn.execute("INSERT INTO documents_fts(rowid, title, body) SELECT id, title, body"
                 " FROM documents")
    conn.execute("INSERT INTO documents_fts(documents_fts) VALUES ('optimize')")


def _compact(conn: sqlite3.Connection) -> None:
    """Write freed pages over: checkpoint the WAL into the file, then vacuum both."""
    conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    conn.execute("VACUUM")
    conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")


def _replace_shas(text: str, shas: dict[str, str]) -> str:
    if not any(old in text for old in shas):
        return text
    for old, new in shas.items():
        text = text.replace(old, new)
    return text


# -- store history -----------------------------------------------------------------------

def _objects(repo: Repo, kind: str) -> list[str]:
    out = repo.git("cat-file", "--batch-all-objects", "--batch-check=%(objectname) %(objecttype)")
    return [line.split()[0] for line in out.splitlines() if line.endswith(" " + kind)]


def _scrubbed_blobs(repo: Repo, sub: Callable[[str], str], refuse: str) -> dict[str, bytes]:
    """blob sha -> its scrubbed bytes, for every blob holding the value; nothing written.
    Refused (BadInput) when scrubbing would change a key of a document Dream reads by
    its structure: a note's or record's front matter, store.toml, a JSON file.
    'dream scrub --history --yes updated' turned every note's 'updated:' line into
    '[REDACTED:...]:', and every later read of those notes failed on malformed YAML."""
    out = {}
    blobs = _objects(repo, "blob")
    for sha, data in zip(blobs, repo.read_blobs(blobs), strict=True):
        text = data.decode("utf-8", "surrogateescape")
        new = sub(text)
        if new == text:
            continue
        keys = _keys(text)
        if keys:
            after = _keys(new)
            gone = keys - after if after is not None else {k for k in keys if sub(k) != k}
            if gone or after is None:
                # the outermost keys the value touches ('projects', not also its children)
                lost = sorted(k for k in gone if k.rpartition(".")[0] not in gone)
                shown = (f"the key{'s' if len(lost) > 1 else ''} "
                         + ", ".join(f"'{k}'" for k in lost[:3]) if lost else "the structure")
                verb = "matches" if refuse == "--pattern" else "appears in"
                raise BadInput(f"{refuse} also {verb} the keys of documents Dream writes "
                               f"({shown} of a document in store {repo.path}); scrubbing it "
                               "would break them, so nothing was changed",
                               _NARROW if refuse == "--pattern" else
                               "give the whole secret, exactly as it leaked")
        out[sha] = _values_kept(text, new, sub).encode("utf-8", "surrogateescape")
    return out


def _values_kept(text: str, new: str, sub: Callable[[str], str]) -> str:
    """``new``, or, when the placeholder changed what a front-matter value is, the
    document written again with each value scrubbed inside it: a secret that was a whole
    value ('title: pelican-7731') became 'title: [REDACTED:scrubbed:...]', which YAML reads
    as a list, so the note lost its title and the next write kept it as one."""
    if not text.startswith("---"):
        return new
    try:
        before, after = parse_document(text), parse_document(new)
    except BadInput:
        return new
    if _shape(before.meta) == _shape(after.meta):
        return new
    again = Document(_sub_values(before.meta, sub), sub(before.body)).render()
    return again if sub(again) == again else new


def _shape(value: Any) -> Any:
    """What a front-matter value is (a string, a list of ..., a table of ...), not what it
    says."""
    if isinstance(value, dict):
        return {key: _shape(inner) for key, inner in value.items()}
    if isinstance(value, list):
        return [_shape(inner) for inner in value]
    return type(value).__name__


def _sub_values(value: Any, sub: Callable[[str], str]) -> Any:
    if isinstance(value, dict):
        return {key: _sub_values(inner, sub) for key, inner in value.items()}
    if isinstance(value, list):
        return [_sub_values(inner, sub) for inner in value]
    return sub(value) if isinstance(value, str) else value


def _keys(text: str) -> set[str] | None:
    """The keys (dotted paths) of a document read by its structure: Markdown with front
    matter, TOML or a JSON object; None for any other text, or one that does not parse."""
    data: Any = None
    if text.startswith("---"):
        try:
            data = parse_document(text).meta
        except BadInput:
            return None
    else:
        try:
            data = tomllib.loads(text)
        except (tomllib.TOMLDecodeError, ValueError, RecursionError):
            try:
                data = json.loads(text)
            except (ValueError, RecursionError):
                return None
    if not isinstance(data, dict) or not data:
        return None
    out: set[str] = set()

    def walk(value: Any, prefix: str) -> None:
        if isinstance(value, dict):
            for key, inner in value.items():
                out.add(f"{prefix}{key}")
                walk(inner, f"{prefix}{key}.")
        elif isinstance(value, list):
            for inner in value:
                walk(inner, prefix)
    walk(data, "")
    return out


def _bad_blobs(repo: Repo, sub: Callable[[str], str],
               scrubbed: dict[str, bytes] | None = None) -> dict[str, str]:
    """blob sha -> the sha of its scrubbed replacement (written), for every blob holding
    the value."""
    if scrubbed is None:
        scrubbed = _scrubbed_blobs(repo, sub, "the value")
    return {sha: repo.git("hash-object", "-w", "--stdin", input=data).strip()
            for sha, data in scrubbed.items()}


def _bad_messages(repo: Repo, sub: Callable[[str], str]) -> bool:
    """True when a commit message or a file name in history holds the value."""
    log = repo.git("log", "--all", "--name-only", "--format=%B%x00", check=False)
    return sub(log) != log


def rewrite_history(repo: Repo, sub: Callable[[str], str],
                    scrubbed: dict[str, bytes] | None = None) -> StoreRewrite:
    """Rewrite every commit of ``repo`` whose tree or message holds the value; children
    follow. Refuses a work tree with uncommitted changes (they would be lost).
    ``scrubbed``: the blobs :func:`_scrubbed_blobs` found (found again when not given)."""
    rewrite = StoreRewrite(store="", path=str(repo.path))
    if repo.git("status", "--porcelain", "--untracked-files=no").strip():
        raise BadInput(f"{repo.path} has uncommitted changes",
                       "commit them (or end the open dream) and scrub again")
    blobs = _bad_blobs(repo, sub, scrubbed)
    order = repo.git("rev-list", "--all", "--topo-order", "--reverse", "--parents").splitlines()
    mapping: dict[str, str] = {}
    for line in order:
        sha, *parents = line.split()
        new_parents = [mapping.get(p, p) for p in parents]
        meta = repo.git("log", "-1", "--format=%an%x00%ae%x00%aI%x00%cn%x00%ce%x00%cI%x00%B",
                        sha).split("\x00", 6)
        message = meta[6]
        tree = repo.git("rev-parse", f"{sha}^{{tree}}").strip()
        entries = repo.git("ls-tree", "-r", "-z", sha).split("\x00")
        changed = [e for e in entries if e and (e.split()[2] in blobs or
                                                sub(e.split("\t", 1)[1]) != e.split("\t", 1)[1])]
        new_message = sub(message)
        if not changed and new_message == message and new_parents == parents:
            continue
        if changed:
            tree = _new_tree(repo, sha, changed, blobs, sub)
        env = {"GIT_AUTHOR_NAME": meta[0], "GIT_AUTHOR_EMAIL": meta[1],
               "GIT_AUTHOR_DATE": meta[2], "GIT_COMMITTER_NAME": meta[3],
               "GIT_COMMITTER_EMAIL": meta[4], "GIT_COMMITTER_DATE": meta[5]}
        args = ["commit-tree", tree]
        for parent in new_parents:
            args += ["-p", parent]
        new = repo.git(*args, input=new_message.encode(), env=env).strip()
        mapping[sha] = new
        rewrite.commits.append({"old": sha, "new": new,
                                "subject": sub(message.splitlines()[0] if message else ""),
                                "files": ", ".join(sub(e.split("\t", 1)[1]) for e in changed)})
    moves = []
    for line in repo.git("for-each-ref", "--format=%(objectname) %(refname)").splitlines():
        sha, ref = line.split(" ", 1)
        if sha in mapping:
            moves.append([ref, sha, mapping[sha]])
            rewrite.refs.append(ref)
    if mapping:
        _move_refs(repo, moves, mapping)
    _publish(repo, rewrite)
    return rewrite


def _publish(repo: Repo, rewrite: StoreRewrite) -> None:
    """What pushing the rewritten refs would take (never done by Dream)."""
    remotes = repo.git("remote").split()
    if remotes and rewrite.refs:
        rewrite.remote = remotes[0]
        branches = " ".join(r.removeprefix("refs/heads/") for r in rewrite.refs
                            if r.startswith("refs/heads/"))
        rewrite.push = f"git -C {repo.path} push --force-with-lease {remotes[0]} {branches}"
        rewrite.warning = (
            "Dream did not push. Pushing replaces the shared history: every other clone "
            "still holds the old commits (and the secret) until its owner re-clones or runs "
            f"'git fetch {remotes[0]} && git reset --hard {remotes[0]}/<branch>', and any "
            "work they based on the old commits must be rebased onto the new ones.")


def _move_refs(repo: Repo, moves: list[list[str]], mapping: dict[str, str]) -> None:
    """Move every ref to its rewritten commit in one transaction and finish the scrub.

    What was done is first written down (``SCRUB_PENDING`` in the git directory: the refs'
    old and new commits, HEAD's old tree): killed while the refs moved one by one, the
    scrub left some branches on the old history and the work tree holding the value as an
    uncommitted change, which the next run's baseline committed back; and the next scrub
    said to commit it. Now the refs move all at once or not at all, no writer commits while
    the marker is there (``Repo.check_index_lock``), and :func:`finish_pending`, which the
    next scrub runs first, completes what was left."""
    head = repo.git("rev-parse", "HEAD^{tree}").strip()
    marker = repo.git_dir() / SCRUB_PENDING
    tmp = marker.with_name(marker.name + ".tmp")
    tmp.write_text(json.dumps({"refs": moves, "map": mapping, "tree": head}), encoding="utf-8")
    tmp.replace(marker)
    script = "start\n" + "".join(f"update {ref} {new} {old}\n" for ref, old, new in moves) \
        + "prepare\ncommit\n"
    repo.git("update-ref", "--stdin", input=script.encode("utf-8"))
    finish_pending(repo)


def finish_pending(repo: Repo) -> dict[str, str]:
    """Complete a history scrub that was interrupted after it wrote ``SCRUB_PENDING``:
    once its refs moved, bring the work tree to the scrubbed HEAD, keep the old->new map,
    and prune the old objects; when they had not moved, nothing was rewritten. Returns the
    old->new map of what was rewritten (empty when nothing was), for the database's shas;
    the marker is removed by :func:`clear_pending` once those are updated."""
    marker = repo.git_dir() / SCRUB_PENDING
    try:
        data = json.loads(marker.read_text(encoding="utf-8"))
        moves, mapping, tree = data["refs"], data["map"], data["tree"]
    except FileNotFoundError:
        return {}
    except (OSError, ValueError, KeyError, TypeError) as exc:
        raise BadInput(f"{marker} is unreadable ({type(exc).__name__})",
                       f"check 'git -C {repo.path} status', then remove {marker}") from exc
    at = {ref: sha for sha, ref in (line.split(" ", 1) for line in repo.git(
        "for-each-ref", "--format=%(objectname) %(refname)").splitlines())}
    if all(at.get(ref) == old for ref, old, _new in moves):
        marker.unlink()             # killed before the refs moved: nothing was rewritten
        return {}
    if not all(at.get(ref) == new for ref, _old, new in moves):
        raise BadInput(f"the refs of store {repo.path} were moved after a history scrub "
                       "was interrupted", f"check them with 'git -C {repo.path} log --all', "
                       f"then remove {marker} and scrub again")
    # the reset never ran when the index is still the old HEAD's: it is safe to run it
    index_tree = repo.git("write-tree").strip()
    clean = run_git(repo.path, "diff-files", "--quiet", check=False).returncode == 0
    new_tree = repo.git("rev-parse", "HEAD^{tree}").strip()
    if index_tree not in (tree, new_tree) or not clean:
        raise BadInput(f"{repo.path} has changes made after a history scrub was interrupted",
                       f"save them elsewhere, run 'git -C {repo.path} reset --hard HEAD', "
                       "then scrub again")
    path = repo.git_dir() / COMMIT_MAP
    try:
        known = set(path.read_text(encoding="utf-8").splitlines())
    except FileNotFoundError:
        known = set()
    with open(path, "a", encoding="utf-8") as fh:
        fh.writelines(f"{old} {new}\n" for old, new in mapping.items()
                      if f"{old} {new}" not in known)
    repo.git("reset", "-q", "--hard", "HEAD")
    repo.git("reflog", "expire", "--expire=now", "--all")
    repo.git("gc", "-q", "--prune=now")
    return dict(mapping)


def clear_pending(repo: Repo) -> None:
    (repo.git_dir() / SCRUB_PENDING).unlink(missing_ok=True)


def _new_tree(repo: Repo, commit: str, changed: list[str], blobs: dict[str, str],
              sub: Callable[[str], str]) -> str:
    import os
    import tempfile

    with tempfile.TemporaryDirectory(prefix="dream-scrub-") as tmp:
        env = {"GIT_INDEX_FILE": os.path.join(tmp, "index")}
        repo.git("read-tree", commit, env=env)
        lines = []
        for entry in changed:  # a file named after the value is renamed too
            info, path = entry.split("\t", 1)
            mode, _, sha = info.split()
            new_path = sub(path)
            if new_path != path:
                lines.append(f"0 {'0' * 40}\t{path}")
            lines.append(f"{mode} {blobs.get(sha, sha)}\t{new_path}")
        repo.git("update-index", "--index-info", input=("\n".join(lines) + "\n").encode(),
                 env=env)
        return repo.git("write-tree", env=env).strip()
