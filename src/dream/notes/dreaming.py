"""The interactive dream over one project, and the lock every dream takes.

A dream over project ``<name>`` holds ``<notes home>/.dream.lock.<name>``, created with one
``os.open(O_CREAT | O_EXCL | O_WRONLY)``. The lock file holds JSON: its holder (pid, host,
process start, command, time; see :mod:`dream.store.lock`), owner, project, project key, run
id, baseline commit, session. An existing lock refuses a new dream whatever its age, and so
does a lock under another name that records the same project key (a project renamed or
moved to another store keeps one lock identity). A lock is never taken over silently: the
refusal says whether its holder is alive on this host (in use: wait or end it) or gone
(stale: the error gives the ``rm`` command that clears it, as does ``dream doctor``).

:class:`DreamSession` is the interactive dream: ``begin`` takes the lock and commits a
baseline, edits inside its reach stay in the work tree, ``end`` commits them as one commit
and releases the lock, ``release`` (shutdown) drops the lock without the final commit.

Cost follows the files a dream changed, not the size of the store. Every edit a dream makes
through the notes tools is written down in its **journal** (``.git/dream-pending/<name>``,
one path a line, appended under the store's write lock); ``end`` commits exactly the
journal's paths through a scratch index (``Repo.commit_files``) and reads nothing else of
the work tree. ``begin`` commits, as its baseline, the journal an earlier dream over the
project left (a shutdown or a kill) and the hand edits in the project's reach
(``Repo.changed_under``: plumbing over the reach's folders only). A hand edit made while the
dream is open is therefore not part of the dream's commit; the next baseline (a dream's or
a run's) commits it.
The CLI keeps a dream open across commands by leaving its lock (owner ``cli``) in place;
a long-lived process calls :func:`release_on_shutdown` so SIGINT/SIGTERM release it.
The batch dream run takes the same lock around its apply stage with :func:`acquire_lock` /
:func:`release_lock` or :func:`dream_lock`.
"""

from __future__ import annotations

import atexit
import json
import os
import secrets
import signal
import sqlite3
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from dream import index
from dream.errors import BadAddress, LockHeld, NoDream, NotCrumpled, NoteNotFound, OutOfScope
from dream.notes.address import Address, parse, resolve_inside
from dream.store.document import note_status, quick_meta
from dream.store.lock import (  # noqa: F401 - read_lock, held_locks, lock_state live there
    CLI_OWNER,
    LOCK_PREFIX,
    clear_command,
    describe,
    held_locks,
    holder,
    lock_state,
    read_lock,
    write_lock,
)
from dream.store.store import Store


def lock_path(notes_path: Path, project_name: str) -> Path:
    if not project_name or "/" in project_name or "\x00" in project_name or \
            project_name.startswith(".") or len(project_name) > 128:
        raise BadAddress(f"'{project_name}' is not a usable project name for a dream lock",
                         "give the project name shown by 'dream status'")
    return Path(notes_path) / f"{LOCK_PREFIX}{project_name}"


def _now() -> str:
    return datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def new_run_id(prefix: str = "dream") -> str:
    return f"{prefix}-{datetime.now(UTC).strftime('%Y%m%dT%H%M%S')}-{secrets.token_hex(3)}"


def _exclude_locks(notes_path: Path) -> None:
    """Keep lock files out of git even in a store made before .gitignore listed them."""
    git_dir = Path(notes_path) / ".git"
    if not git_dir.is_dir():
        return
    exclude = git_dir / "info" / "exclude"
    text = exclude.read_text(encoding="utf-8") if exclude.exists() else ""
    if f"{LOCK_PREFIX}*" not in text.splitlines():
        exclude.parent.mkdir(parents=True, exist_ok=True)
        with exclude.open("a", encoding="utf-8") as fh:
            fh.write(("" if not text or text.endswith("\n") else "\n") + f"{LOCK_PREFIX}*\n")


def _settled(path: Path, wait: float = 1.0) -> dict[str, Any]:
    """A lock's content. A lock created a moment ago is empty until its holder has written
    who it is (right after the exclusive create): wait up to ``wait`` seconds for it, so a
    refusal names the holder instead of 'an unknown process'."""
    deadline = time.monotonic() + wait
    info = read_lock(path)
    while info is not None and info.get("raw") == "" and time.monotonic() < deadline:
        time.sleep(0.02)
        info = read_lock(path)
    return info or {}


# holders that are a command doing its work, not a dream someone opened and must end
_FINISHES_BY_ITSELF = frozenset({"run", "promote"})


def lock_held_error(path: Path, info: dict[str, Any] | None = None) -> LockHeld:
    info = info if info is not None else _settled(path)
    state = lock_state(info)
    who = describe(info) + (f" ({info['owner']})" if info.get("owner") and
                            info.get("command") else "")
    if state == "stale":
        return LockHeld(f"a stale dream lock {path} is left by {who}, which is no longer "
                        "running", f"clear it with: {clear_command(path)}")
    if state == "open":
        return LockHeld(f"a dream is already open from the command line: lock {path} "
                        f"({describe(info)})", "end it with 'dream end'; if it was "
                        f"abandoned, clear it with: {clear_command(path)}")
    if state == "in use":
        if info.get("owner") in _FINISHES_BY_ITSELF:
            return LockHeld(f"a dream is already open and in use: lock {path} is held by "
                            f"{who}", "wait for it to finish (it releases the lock itself), "
                            "then try again")
        return LockHeld(f"a dream is already open and in use: lock {path} is held by {who}",
                        "wait for it, or end it from that session with 'dream end'")
    return LockHeld(
        f"a dream is already open: lock {path} exists (held by {who})",
        "end it with 'dream end'; if no dream is running there, remove the lock by hand: "
        + clear_command(path),
    )


def _same_project(notes_path: Path, mine: Path, project_key: str | None
                  ) -> tuple[Path, dict[str, Any]] | None:
    """Another lock over the same project key (held under an older name)."""
    if not project_key:
        return None
    for other in held_locks(notes_path):
        if other == mine:
            continue
        info = read_lock(other) or {}
        if info.get("project_key") == project_key:
            return other, info
    return None


def acquire_lock(notes_path: Path, project_name: str, owner: str,
                 info: dict[str, Any] | None = None) -> Path:
    """Create the dream lock with one exclusive open, or raise LockHeld."""
    path = lock_path(notes_path, project_name)
    _exclude_locks(notes_path)
    content = {**holder(), "owner": owner, "project": project_name, **(info or {})}
    try:
        fd = os.open(path, os.O_CREAT | os.O_EXCL | os.O_WRONLY, 0o644)
    except FileExistsError:
        raise lock_held_error(path) from None
    with os.fdopen(fd, "w", encoding="utf-8") as fh:
        json.dump(content, fh)
        fh.write("\n")
    other = _same_project(notes_path, path, content.get("project_key"))
    if other is not None:
        release_lock(path)
        raise lock_held_error(*other)
    return path


def _rewrite_lock(path: Path, content: dict[str, Any]) -> None:
    fd = os.open(path, os.O_WRONLY | os.O_TRUNC)  # never creates: the lock must be ours
    with os.fdopen(fd, "w", encoding="utf-8") as fh:
        json.dump(content, fh)
        fh.write("\n")


def release_lock(path: Path) -> bool:
    """Remove a lock; True when there was one."""
    try:
        Path(path).unlink()
        return True
    except FileNotFoundError:
        return False


@contextmanager
def dream_lock(notes_path: Path, project_name: str, owner: str,
               info: dict[str, Any] | None = None) -> Iterator[Path]:
    """Hold the dream lock for the duration of a block (the batch run's apply stage)."""
    path = acquire_lock(notes_path, project_name, owner, info)
    try:
        yield path
    finally:
        release_lock(path)


def _reach_pathspecs(name: str) -> tuple[str, str]:
    return f"projects/{name}", "sessions"


JOURNAL_DIR = "dream-pending"


def journal_path(store_path: Path, project_name: str) -> Path:
    """Where the dream over ``project_name`` writes down the paths it changed."""
    git = Path(store_path) / ".git"
    return (git if git.is_dir() else Path(store_path) / ".dream") / JOURNAL_DIR / project_name


def read_journal(store_path: Path, project_name: str) -> list[str]:
    """The paths a dream over the project changed and has not committed, once each."""
    try:
        text = journal_path(store_path, project_name).read_text(encoding="utf-8")
    except OSError:
        return []
    return list(dict.fromkeys(line for line in text.splitlines() if line))


@dataclass
class DreamSession:
    """One open interactive dream over one project of the notes home."""

    store: Store
    conn: sqlite3.Connection
    project_key: str
    project_name: str
    owner: str
    run_id: str
    lock: Path
    baseline: str | None = None
    session_id: str | None = None
    started_at: str = field(default_factory=_now)
    closed: bool = False
    _journal: Path | None = field(default=None, init=False, repr=False, compare=False)

    # -- opening ---------------------------------------------------------------------------
    @classmethod
    def begin(cls, store: Store, conn: sqlite3.Connection, project_key: str,
              project_name: str, owner: str, session_id: str | None = None) -> DreamSession:
        """Take the lock, then commit a baseline of the project's reach."""
        run_id = new_run_id()
        lock = acquire_lock(store.path, project_name, owner,
                            {"project_key": project_key, "run_id": run_id,
                             "session": session_id})
        dream = cls(store, conn, project_key, project_name, owner, run_id, lock,
                    session_id=session_id)
        try:
            with write_lock(store.path, "dream begin"):
                left = read_journal(store.path, project_name)
                dream.baseline = store.repo.commit_files(
                    f"Dream baseline for {project_name}",
                    sorted(set(left) | set(dream.hand_edits())),
                    trailers=dream.trailers("baseline"), allow_empty=True)
                dream._clear_journal()
            _rewrite_lock(lock, dream.lock_content())
            index.sync(conn, store)
        except BaseException:
            release_lock(lock)
            raise
        return dream

    @classmethod
    def open(cls, store: Store, conn: sqlite3.Connection, project_name: str,
             owner: str | None = None) -> DreamSession | None:
        """The dream recorded in an existing lock (one ``dream begin`` left open for later
        commands), or None when there is no lock or it belongs to another owner."""
        path = lock_path(store.path, project_name)
        info = read_lock(path)
        if info is None or "run_id" not in info:
            return None
        if owner is not None and info.get("owner") != owner:
            return None
        return cls(store, conn, str(info.get("project_key", "")), project_name,
                   str(info.get("owner")), str(info["run_id"]), path,
                   baseline=info.get("baseline"), session_id=info.get("session"),
                   started_at=str(info.get("time", "")))

    def lock_content(self) -> dict[str, Any]:
        return {**holder(), "time": self.started_at, "owner": self.owner, "project": self.project_name,
                "project_key": self.project_key, "run_id": self.run_id,
                "baseline": self.baseline, "session": self.session_id}

    def trailers(self, stage: str) -> dict[str, str]:
        return {"Dream-Run": self.run_id, "Dream-Pass": stage,
                "Dream-Project": self.project_key, "Dream-Store": self.store.id}

    # -- reach -----------------------------------------------------------------------------
    def _session_project(self, relpath: str) -> str | None:
        disk = self.store.path / relpath
        if disk.is_file():
            meta, _ = quick_meta(disk.read_bytes().decode("utf-8", "replace"))
        else:  # deleted in the work tree: ask the last commit
            head = self.store.repo.head()
            data = self.store.repo.read_at(head, relpath) if head else None
            if data is None:
                return None
            meta, _ = quick_meta(data.decode("utf-8", "replace"))
        return meta.get("project") or None

    def may_edit(self, address: Address, exists: bool, note_project: str | None) -> bool:
        if address.home == "projects":
            return address.owner == self.project_name
        if address.home == "sessions":
            if exists:
                return note_project == self.project_key
            return self.session_id is not None and address.owner == self.session_id
        return False

    def check_edit(self, address: Address, exists: bool, note_project: str | None) -> None:
        if not self.may_edit(address, exists, note_project):
            raise OutOfScope(
                f"{address} is outside the open dream over project '{self.project_name}'",
                "a dream edits only that project's notes and existing session notes whose "
                "'project' names it; end the dream ('dream end') to edit other notes")

    def hand_edits(self) -> list[str]:
        """Notes in the dream's reach that differ from the last commit, whoever changed
        them (read from the reach's folders only; see ``Repo.changed_under``)."""
        files = []
        for rel in self.store.repo.changed_under(*_reach_pathspecs(self.project_name)):
            if rel.startswith("sessions/") and self._session_project(rel) != self.project_key:
                continue
            if rel.endswith(".md"):
                files.append(rel)
        return files

    def pending_files(self) -> list[str]:
        """The notes this dream changed and has not committed (its journal)."""
        return read_journal(self.store.path, self.project_name)

    def record(self, relpath: str) -> None:
        """Write down that this dream changed ``relpath`` (the caller holds the store's
        write lock, and has written or removed the file)."""
        if self._journal is None:
            self._journal = journal_path(self.store.path, self.project_name)
        line = (relpath + "\n").encode("utf-8")
        try:
            fd = os.open(self._journal, os.O_WRONLY | os.O_APPEND | os.O_CREAT | os.O_CLOEXEC,
                         0o644)
        except FileNotFoundError:
            self._journal.parent.mkdir(parents=True, exist_ok=True)
            fd = os.open(self._journal, os.O_WRONLY | os.O_APPEND | os.O_CREAT | os.O_CLOEXEC,
                         0o644)
        try:
            os.write(fd, line)   # one append: a line is never split by another writer's
        finally:
            os.close(fd)

    def _clear_journal(self) -> None:
        journal_path(self.store.path, self.project_name).unlink(missing_ok=True)

    def notes(self) -> list[dict[str, Any]]:
        """The project's notes and every session note whose ``project`` names it,
        crumpled ones included, as on disk now."""
        found = []
        root = self.store.path
        for top in (root / "projects" / self.project_name, root / "sessions"):
            if not top.is_dir():
                continue
            for file in sorted(top.rglob("*.md")):
                rel = file.relative_to(root).as_posix()
                if any(p.startswith(".") for p in rel.split("/")) or file.is_symlink() \
                        or rel == f"projects/{self.project_name}/brief.md":  # no note
                    continue
                text = file.read_bytes().decode("utf-8", "replace")
                meta, _ = quick_meta(text)
                if rel.startswith("sessions/") and meta.get("project") != self.project_key:
                    continue
                found.append({"address": "@" + rel, "path": rel,
                              "status": note_status(text, meta) or "live"})
        return found

    # -- actions ---------------------------------------------------------------------------
    def _require_open(self) -> None:
        if self.closed or read_lock(self.lock) is None:
            raise NoDream(f"the dream over '{self.project_name}' is no longer open",
                          "start one with 'dream begin'")

    def forget(self, raw_address: str) -> str:
        """Delete one crumpled note within reach for good (committed by ``end``)."""
        self._require_open()
        address = parse(raw_address)
        target = resolve_inside(self.store.path, address.relpath)
        with write_lock(self.store.path, "dream forget"):
            if not target.is_file():
                raise NoteNotFound(f"no note at {address}",
                                   "list notes with 'dream notes list'")
            text = target.read_bytes().decode("utf-8", "replace")
            meta, _ = quick_meta(text)
            self.check_edit(address, True, meta.get("project"))
            if note_status(text, meta) != "crumpled":
                raise NotCrumpled(f"{address} is live; only crumpled notes can be forgotten",
                                  f"crumple it first with 'dream notes crumple {address}'")
            target.unlink()
            self.record(address.relpath)
        return address.relpath

    def end(self, brief: Callable[[list[str]], tuple[str, bytes] | None] | None = None
            ) -> str | None:
        """Commit the dream's changes as one commit and release the lock. Returns the
        commit, or None when the dream changed nothing. ``brief``: given the changed paths,
        the project's brief re-rendered with them (path, bytes), committed along."""
        self._require_open()
        # if the commit fails the lock stays: the dream is still open and can be ended again
        with write_lock(self.store.path, "dream end"):
            files = self.pending_files()
            rendered = brief(files) if brief is not None and files else None
            if rendered is not None:
                target = self.store.path / rendered[0]
                target.parent.mkdir(parents=True, exist_ok=True)
                target.write_bytes(rendered[1])
                files = [*files, rendered[0]]
            sha = self.store.repo.commit_files(
                f"Dream over {self.project_name}", files,
                trailers=self.trailers("dream"))
            self._clear_journal()
            index.sync(self.conn, self.store)  # reads only the paths the commit changed
        self._drop_lock()
        return sha

    def release(self) -> None:
        """Shutdown: drop the lock without the final commit (edits stay in the work tree
        and are committed by the next dream's baseline)."""
        if not self.closed:
            self._drop_lock()

    def _drop_lock(self) -> None:
        self.closed = True
        info = read_lock(self.lock)
        if info is not None and info.get("run_id") == self.run_id:
            release_lock(self.lock)


def release_on_shutdown(session: DreamSession,
                        signals: tuple[int, ...] = (signal.SIGINT, signal.SIGTERM)) -> None:
    """Make a long-lived process release ``session``'s lock when it is told to stop
    (SIGINT, SIGTERM) or exits, without the final commit. Must be called from the main
    thread. After releasing, the previous handler runs (or the process exits with
    128 + signal number). A signal the process was started with ignored (a shell's
    background job ignores SIGINT) stays ignored: releasing the lock of a dream that goes
    on would let a second dream in."""
    previous = {sig: signal.getsignal(sig) for sig in signals}
    previous = {sig: prev for sig, prev in previous.items() if prev != signal.SIG_IGN}

    def handler(signum: int, frame: Any) -> None:
        session.release()
        prev = previous.get(signum)
        if prev is signal.default_int_handler:
            raise KeyboardInterrupt
        if callable(prev):
            prev(signum, frame)
        else:  # default action: die of the same signal
            signal.signal(signum, signal.SIG_DFL)
            os.kill(os.getpid(), signum)

    for sig in previous:
        signal.signal(sig, handler)
    atexit.register(session.release)

