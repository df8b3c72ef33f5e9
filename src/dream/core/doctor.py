"""``dream doctor``: check every part of a home and say how to fix what is wrong.

Checks, each with a status (``ok``, ``warn``, ``fail``), a one-line message and, unless it
is ok, the fix:

- config: ``config.toml`` parses and its values have the types Dream relies on;
- every store: it loads, ``git fsck`` is clean, HEAD is a commit on a branch, no
  ``index.lock`` is left behind, no write lock is held by a process that is gone;
- the database: ``PRAGMA integrity_check`` and every migration applied;
- the search index: each store's indexed commit is its HEAD and the indexed documents are
  the Markdown files at HEAD (drift says: run ``dream reindex``);
- dream locks: in use, open from the command line, or stale (with the ``rm`` that clears
  it);
- orphaned runs: runs still marked running whose process is gone.
"""

from __future__ import annotations

import sqlite3
import subprocess
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from dream import db, runs
from dream.app import App
from dream.config import Config, unknown_settings
from dream.errors import DreamError
from dream.index.sync import indexable
from dream.notes.dreaming import held_locks, lock_state, read_lock
from dream.store.git import SCRUB_PENDING
from dream.store.lock import clear_command, describe, read_holder
from dream.store.registry import load_attached
from dream.store.store import Store


@dataclass
class Check:
    name: str
    target: str
    status: str            # ok | warn | fail
    message: str
    fix: str = ""

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)


def _git(path: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(["git", *args], cwd=path, capture_output=True, text=True)


def check_store(store: Store) -> list[Check]:
    out: list[Check] = []
    target = f"store {store.name} ({store.path})"
    lock = store.path / ".git" / "index.lock"
    if lock.exists():
        out.append(Check("index.lock", target, "fail",
                         f"{lock} exists: a git command runs there, or one was killed",
                         f"if no git command is running in the store: rm \"{lock}\""))
    if (store.path / ".git" / SCRUB_PENDING).exists():
        out.append(Check("scrub", target, "fail",
                         "a history scrub was interrupted before it finished: the work tree "
                         "may still hold the secret, and writes to the store are refused",
                         "run the same 'dream scrub ... --history --yes' again to finish it"))
    head = _git(store.path, "rev-parse", "-q", "--verify", "HEAD^{commit}")
    if head.returncode != 0:
        ref = _git(store.path, "symbolic-ref", "-q", "HEAD").stdout.strip() or "HEAD"
        branches = _git(store.path, "for-each-ref", "--format=%(refname:short)",
                        "refs/heads").stdout.split()
        fix = (f"point HEAD at a branch that has commits: git -C \"{store.path}\" "
               f"symbolic-ref HEAD refs/heads/{branches[0]}" if branches else
               "restore the store from a clone (git clone) and attach it again")
        out.append(Check("head", target, "fail", f"HEAD ({ref}) is not a commit", fix))
    else:
        branch = _git(store.path, "symbolic-ref", "-q", "--short", "HEAD").stdout.strip()
        if not branch:
            out.append(Check("branch", target, "warn", "HEAD is detached (not on a branch)",
                             f"git -C \"{store.path}\" switch main (or the store's branch)"))
        else:
            out.append(Check("head", target, "ok", f"on {branch} at {head.stdout.strip()[:12]}"))
    fsck = _git(store.path, "fsck", "--no-dangling", "--no-progress")
    if fsck.returncode != 0:
        first = (fsck.stderr or fsck.stdout).strip().splitlines()
        out.append(Check("fsck", target, "fail",
                         f"git fsck: {first[0] if first else 'exit ' + str(fsck.returncode)}",
                         "restore the broken objects from a clone of the store (git fetch "
                         "from the team remote), or re-clone it"))
    else:
        out.append(Check("fsck", target, "ok", "git fsck is clean"))
    holder = read_holder(store.path)
    if holder:
        from dream.store.lock import holder_state

        state = holder_state(holder)
        if state == "alive":
            out.append(Check("write lock", target, "warn",
                             f"being written by {describe(holder)}",
                             "wait for that command to finish"))
    return out


def check_database(app: App) -> list[Check]:
    path = app.home.db_path
    if not path.exists():
        return [Check("database", str(path), "fail", "the database is missing",
                      "run 'dream init' (it is rebuilt; then 'dream reindex')")]
    try:
        conn = db.connect(path, apply_migrations=False)
        try:
            result = conn.execute("PRAGMA integrity_check").fetchone()[0]
            pending = db.dry_run(conn)
        finally:
            conn.close()
    except sqlite3.DatabaseError as exc:
        return [Check("database", str(path), "fail", f"cannot read the database ({exc})",
                      f"move {path} aside and run 'dream reindex'; the spool must be "
                      "collected again")]
    out = []
    if result != "ok":
        out.append(Check("integrity", str(path), "fail", f"integrity_check: {result}",
                         f"sqlite3 \"{path}\" '.recover' > dump.sql, or move it aside and "
                         "run 'dream reindex'"))
    else:
        out.append(Check("integrity", str(path), "ok", "integrity_check ok"))
    out += check_migrations(str(path), pending)
    return out


def check_migrations(path: str, pending: list[tuple[str, str | None]]) -> list[Check]:
    """Migrations not recorded as applied: the ones that apply cleanly are applied by the
    next command; one that cannot apply stops every command until it is fixed."""
    if not pending:
        return [Check("migrations", path, "ok", f"all {len(db.MIGRATIONS)} migrations applied")]
    failing = [(name, error) for name, error in pending if error]
    if not failing:
        names = [name for name, _ in pending]
        return [Check("migrations", path, "warn",
                      f"{len(names)} migration(s) not applied yet: {', '.join(names[:3])}",
                      "the next command that reads the database applies them (for example "
                      "'dream search' or 'dream collect')")]
    name, error = failing[0]
    already = error is not None and ("duplicate column" in error or "already exists" in error)
    if already:
        fix = (f"the database already has what {name} adds, but does not record it: "
               f"sqlite3 \"{path}\" \"INSERT INTO _migrations VALUES ('{name}', "
               "datetime('now'))\"; if unsure, move the database aside and run "
               "'dream reindex' (the spool is collected again)")
    else:
        fix = (f"move {path} aside and run 'dream reindex' (the spool is collected again), "
               "or restore it from a backup")
    return [Check("migrations", path, "fail",
                  f"migration {name} cannot be applied ({error}); every command stops "
                  "until it is fixed", fix)]


def check_index(conn: sqlite3.Connection, store: Store) -> Check:
    target = f"store {store.name} ({store.path})"
    head = store.repo.head()
    row = conn.execute("SELECT commit_sha FROM index_stores WHERE store_id=?",
                       (store.id,)).fetchone()
    indexed = {r[0]: r[1] for r in conn.execute(
        "SELECT path, blob FROM documents WHERE store_id=?", (store.id,))}
    files = {p: b for p, b in store.repo.list_files(head) if indexable(p)} if head else {}
    if row is None and not indexed:
        return Check("index", target, "ok", "not indexed yet (the next search indexes it)")
    drift = sum(1 for p, b in files.items() if indexed.get(p) != b) + \
        sum(1 for p in indexed if p not in files)
    if row is not None and row[0] == head and drift == 0:
        return Check("index", target, "ok", f"{len(indexed)} documents, at HEAD")
    if row is not None and row[0] != head and drift:
        return Check("index", target, "warn",
                     f"the index is behind HEAD by {drift} document(s) (the next search "
                     "catches up)", "dream reindex")
    return Check("index", target, "fail" if drift else "ok",
                 f"{drift} indexed document(s) differ from the store at HEAD" if drift else
                 f"{len(indexed)} documents", "dream reindex" if drift else "")


def check_locks(app: App) -> list[Check]:
    out = []
    for path in held_locks(app.home.notes_path):
        info = read_lock(path) or {}
        state = lock_state(info)
        if state == "stale":
            out.append(Check("lock", str(path), "fail",
                             f"stale dream lock left by {describe(info)}, which is gone",
                             clear_command(path)))
        elif state == "open":
            out.append(Check("lock", str(path), "warn",
                             f"a dream is open from the command line ({describe(info)})",
                             "end it with 'dream end'; if it was abandoned: "
                             + clear_command(path)))
        elif state == "in use":
            out.append(Check("lock", str(path), "ok", f"in use by {describe(info)}"))
        else:
            out.append(Check("lock", str(path), "warn",
                             f"held by {describe(info)} (not this host, or an older Dream)",
                             f"if no dream runs there: {clear_command(path)}"))
    return out


def interrupted_runs(app: App, conn: sqlite3.Connection) -> list[runs.Run]:
    """Dream runs still 'running' although no lock of a run is held: their process died."""
    live = {str((read_lock(p) or {}).get("run_id")) for p in held_locks(app.home.notes_path)
            if lock_state(read_lock(p) or {}) in ("in use", "unknown")}
    return [run for run in runs.running(conn, "dream") if run.id not in live]


def check_runs(app: App, conn: sqlite3.Connection) -> list[Check]:
    out = []
    for run in interrupted_runs(app, conn):
        out.append(Check("run", run.id, "warn",
                         f"run {run.id} (started {run.started_at}) is marked running but no "
                         "process holds its lock: it was interrupted",
                         f"dream run --retry {run.id}"))
    return out


def diagnose(app: App) -> list[Check]:
    """Every check of the home; nothing is changed."""
    checks: list[Check] = []
    try:
        app.home.check_folder()
    except DreamError as exc:        # a file, or a relative DREAM_HOME
        return [Check("home", str(app.home.root), "fail", exc.message, exc.hint)]
    if not app.home.exists():
        return [Check("home", str(app.home.root), "fail", "no Dream home here",
                      "run 'dream init' in a repository")]
    try:
        config = Config.load(app.home.config_path)
        checks.append(Check("config", str(app.home.config_path), "ok", "valid"))
    except DreamError as exc:
        # the line names the file already: 'PATH: PATH is not valid TOML' said it twice
        path = str(app.home.config_path)
        said = exc.message.removeprefix(f"{path}: ").removeprefix(f"{path} ")
        return [Check("config", path, "fail", said, exc.hint)]
    unknown = unknown_settings(config.data)
    if unknown:
        checks.append(Check("settings", str(app.home.config_path), "warn",
                            f"Dream reads no {', '.join(unknown[:5])}"
                            + (f" and {len(unknown) - 5} more" if len(unknown) > 5 else ""),
                            "a typo? the README's configuration table lists every key"))
    checks += check_database(app)
    conn = None
    # the index and run checks read the current schema: not before the migrations apply
    if not any(c.status != "ok" and c.name == "migrations" or
               c.status == "fail" and c.name in ("database", "integrity") for c in checks):
        # opened as it is: doctor changes nothing, not even pending migrations
        conn = db.connect(app.home.db_path, apply_migrations=False)
    stores: list[Store] = []
    for path in [app.home.notes_path, *app.config.store_paths]:
        try:
            stores.append(Store.load(path) if path == app.home.notes_path
                          else load_attached(path))
        except DreamError as exc:
            checks.append(Check("store", str(path), "fail", exc.message, exc.hint))
    for store in stores:
        found = check_store(store)
        checks += found
        if conn is not None and not any(c.status == "fail" and c.name in ("head", "fsck")
                                        for c in found):
            try:
                checks.append(check_index(conn, store))
            except DreamError as exc:
                checks.append(Check("index", store.name, "fail", exc.message, "dream reindex"))
    checks += check_locks(app)
    if conn is not None:
        checks += check_runs(app, conn)
        conn.close()
    return checks
