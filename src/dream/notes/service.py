"""The notes service: write, update, show, find, list and crumple notes in the notes home.

Outside a dream every change is one git commit (only the note's own file is staged, with
``Dream-Store`` and ``Dream-Project`` trailers) followed by an index sync. Every change
holds the store's write lock (:mod:`dream.store.lock`) from the moment it reads the note
until its commit, so two writers never act on the same version. A note's bytes reach the
work tree whole: they are written to a file under ``.git/`` first and then linked or
renamed into place, so a writer killed mid-way leaves no half-written note for a later
commit to pick up. Inside an open
dream (``dream`` given) changes within the dream's reach stay in the work tree and are
committed by :meth:`DreamSession.end`; changes outside its reach are refused, and reads
leave no access stamp. A note whose project another process is dreaming over cannot be
changed from outside that dream (its final commit would otherwise absorb the change).
"""

from __future__ import annotations

import itertools
import os
import sqlite3
import tempfile
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from dream import index
from dream.db import utcnow
from dream.errors import BadAddress, BadInput, NoteExists, NoteNotFound
from dream.index.query import require_words
from dream.kinds.records import Record, kind_of_path
from dream.notes.address import Address, parse, prefix_relpath, resolve_inside
from dream.notes.dreaming import DreamSession, held_locks, lock_held_error, read_lock
from dream.secrets import has_secret, redact
from dream.spool.history import MAX_PAGE
from dream.store.document import (
    MAX_NOTE_BYTES,
    Document,
    control_character,
    decode,
    quick_meta,
    sha256,
    title_of,
)
from dream.store.document import note_status as note_status_of
from dream.store.document import parse as parse_document
from dream.store.lock import write_lock
from dream.store.store import Store

STATUSES = ("live", "crumpled")


@dataclass
class NoteView:
    address: str
    path: str
    status: str
    title: str
    meta: dict[str, Any]
    body: str
    content: str
    sha256: str
    commit: str | None      # HEAD of the notes home when read
    committed: bool         # False when the work tree differs from HEAD (an open dream)

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)


@dataclass
class NoteChange:
    address: str
    path: str
    action: str             # write | replace | update | crumple | forget
    sha256: str | None
    commit: str | None      # the commit made, None when left for the dream's end
    pending: bool = False   # True inside an open dream

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)


@dataclass
class FindPage:
    query: str
    page: int
    per_page: int
    hits: list[dict[str, Any]] = field(default_factory=list)
    has_more: bool = False

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)


def _scratch(store_root: Path) -> Path:
    """Where a note is written before it is moved into place: inside ``.git`` (never part
    of the work tree, so never staged), on the same file system as the note."""
    git = store_root / ".git"
    return (git if git.is_dir() else store_root / ".dream") / "dream-tmp"


_SCRATCH: dict[str, Path] = {}
_SCRATCH_NAMES = itertools.count()


def _open_scratch(store_root: Path) -> tuple[int, str]:
    """A new scratch file, created exclusively with mkstemp's mode (0600), named after
    this process and a counter; its folder is found and created once per store."""
    key = os.fspath(store_root)
    folder = _SCRATCH.get(key)
    if folder is None:
        folder = _scratch(store_root)
        folder.mkdir(parents=True, exist_ok=True)
        if folder.parent.name == ".git" and os.path.isabs(key):
            _SCRATCH[key] = folder
    tmp = os.path.join(folder, f"note-{os.getpid()}-{next(_SCRATCH_NAMES)}")
    try:
        return os.open(tmp, os.O_CREAT | os.O_EXCL | os.O_WRONLY | os.O_CLOEXEC, 0o600), tmp
    except OSError:  # the folder was removed, or a killed process with this pid left the name
        folder.mkdir(parents=True, exist_ok=True)
        return tempfile.mkstemp(prefix="note-", dir=folder)


def _write_file(target: Path, data: bytes, new: bool, store_root: Path) -> None:
    """Write the whole note to a scratch file, then link it into place (a new note:
    exclusive, it must not exist) or rename it over the old one (readers see the old or
    the new content, never half of it)."""
    fd, tmp = _open_scratch(store_root)
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
        if new:
            try:
                os.link(tmp, target)
                return
            except FileExistsError:
                pass  # appeared meanwhile: replace it atomically below
        os.replace(tmp, target)
    finally:
        try:
            os.unlink(tmp)
        except FileNotFoundError:
            pass


def _is_brief(relpath: str) -> bool:
    """Whether ``relpath`` is a scope's brief (``projects/<name>/brief.md``,
    ``user/brief.md``): rendered by Dream from the notes, not a note itself."""
    parts = relpath.split("/")
    return parts[-1] == "brief.md" and (parts[:1] == ["user"] and len(parts) == 2 or
                                        parts[:1] == ["projects"] and len(parts) == 3)


def _now() -> str:
    return utcnow()[:19] + "Z"


# given a note's path and its new bytes, the brief of the note's scope re-rendered with it
# (path, bytes), or None when no brief in this store shows the note or the brief is unchanged
BriefWith = Callable[[str, bytes], "tuple[str, bytes] | None"]


class NotesService:
    def __init__(self, store: Store, conn: sqlite3.Connection,
                 project_key: str | None = None, dream: DreamSession | None = None,
                 brief: BriefWith | None = None,
                 projects: Callable[[], dict[str, str]] | None = None) -> None:
        self.store = store
        self.conn = conn
        self.project_key = project_key   # recorded in new session notes
        self.dream = dream
        self.brief = brief               # outside a dream, committed with the note
        self.projects = projects         # the projects stores know: name -> key

    def _check_project(self, address: Address) -> None:
        """A new note under ``@projects/<name>/`` needs a project some store knows by that
        name (or a folder of notes already there): a typo or a key would make a folder
        nothing reads (no brief, no dream)."""
        if address.home != "projects" or self.projects is None or not address.owner:
            return
        if (self.store.path / "projects" / address.owner).is_dir():
            return
        known = self.projects()
        if address.owner in known:
            return
        meant = next((name for name, key in sorted(known.items())
                      if address.owner.casefold() in (name.casefold(), key.casefold())), None)
        if meant is not None:
            raise BadAddress(f"no project is named '{address.owner}'",
                             f"write to @projects/{meant}/{address.path.removesuffix('.md')}")
        listed = ", ".join(sorted(known)) if known else "none yet"
        raise BadAddress(f"no project is named '{address.owner}' (known projects: {listed})",
                         "write to one of them, or make the project known with 'dream init' "
                         "in its repository ('dream init --name NAME' names it)")

    def _given_project(self, address: Address, given: str | None,
                       old_meta: dict[str, Any]) -> str | None:
        """The project key a write's --project names (a key, or the name of a project a
        store knows), checked against the address: only a session note records a project,
        a note under ``@projects/<name>/`` belongs to that project and a ``@user/`` note to
        none, and an existing session note keeps the project it was written for. --project
        was taken and ignored in all three cases. A key no store knows is kept as given
        (a project only collected, or one from another machine)."""
        if not given:
            return None
        known = self.projects() if self.projects is not None else {}
        key = known.get(given, given)
        if address.home == "projects":
            owner = address.owner or ""
            if given == owner or key in (known.get(owner),
                                         self.store.project_key_for_name(owner)):
                return None
            raise BadInput(f"--project {given} does not match {address}: a note under "
                           f"@projects/{address.owner}/ belongs to that project",
                           "drop --project, or write the note under the other project's "
                           "@projects/<name>/")
        if address.home != "sessions":
            raise BadInput(f"--project applies only to @sessions/<id>/ notes; {address} "
                           "belongs to no project",
                           "drop --project, or write it under @projects/<name>/ to keep it "
                           "with a project")
        recorded = old_meta.get("project")
        if recorded and recorded != key:
            raise BadInput(f"{address} is recorded for project {recorded}; --project "
                           f"{given} would not move it",
                           "drop --project to replace it, or write a new session note")
        return key

    # -- helpers ---------------------------------------------------------------------------
    def _locate(self, raw: str) -> tuple[Address, Path]:
        if has_secret(raw):
            raise BadAddress("the note's address holds a secret (a file name is never made "
                             "from one)", "choose an address without it")
        address = parse(raw)
        target = resolve_inside(self.store.path, address.relpath)
        if target.is_symlink():
            raise BadAddress(f"{address} is a symlink", "notes are plain files; remove the link")
        if target.exists() and not target.is_file():
            raise BadAddress(f"{address} is a folder, not a note", "give the path of a note")
        return address, target

    @staticmethod
    def _check_not_brief(address: Address) -> None:
        """A scope's brief.md is rendered by Dream, never written as a note: replaced, every
        SessionStart hook printed the written text as the brief (an agent's notes_write
        with replace=true could steer every later session past the review), and a crumpled
        brief could be forgotten."""
        if _is_brief(address.relpath):
            scope = str(address).rsplit("/", 1)[0]
            raise BadAddress(f"{address} is the brief Dream renders from {scope}/'s records "
                             "and notes, not a note",
                             f"write a note beside it (such as {scope}/deploy), or change a "
                             "record with 'dream correct'")

    @staticmethod
    def _check_not_record(address: Address, old: bytes | None) -> None:
        """A new note where a run keeps a record (``standing.md``, ``events/<key>.md`` and
        the other record folders below a scope) was written over without a word by the
        first run that wrote that record, and the brief still listed the note; replacing
        a record dropped its fields and their evidence. A note written there before this
        check (no record) may still be replaced."""
        found = kind_of_path(address.path) if address.home != "sessions" else None
        if found is None:
            return
        kind = {"standing": "standing-facts", "note": "memory-note"}.get(found[0], found[0])
        scope = str(address)[:-len(address.path) - 1]
        if old is None:
            folder, _, name = address.path.removesuffix(".md").rpartition("/")
            elsewhere = f"{scope}/my-{folder}/{name}" if folder else f"{scope}/my-{name}"
            raise BadAddress(f"{address} is where Dream's runs keep a {kind} record, and a "
                             "run would write over a note there",
                             f"write it elsewhere, such as {elsewhere}")
        if Record.loads(old.decode("utf-8", "replace")) is not None:
            raise BadAddress(f"{address} is a {kind} record a run wrote; replacing it would "
                             "drop its fields and their evidence",
                             f"change a field with 'dream correct {address} FIELD VALUE', or "
                             "its text with 'dream notes update'")

    def _read(self, address: Address, target: Path) -> tuple[bytes, Document]:
        if not target.is_file():
            raise NoteNotFound(f"no note at {address}",
                               "list notes with 'dream notes list' or write it first")
        data = target.read_bytes()
        text = decode(data, str(address))
        return data, parse_document(text, str(address))

    def _check_not_dreamed(self, address: Address, note_project: str | None) -> None:
        """Outside a dream: refuse changes another process's dream is responsible for."""
        for lock in held_locks(self.store.path):
            info = read_lock(lock) or {}
            name = lock.name.split(".dream.lock.", 1)[-1]
            if address.home == "projects" and address.owner == name:
                raise lock_held_error(lock, info)
            if address.home == "sessions" and note_project and \
                    note_project == info.get("project_key"):
                raise lock_held_error(lock, info)

    def _check_write(self, address: Address, exists: bool, note_project: str | None) -> None:
        if self.dream is not None:
            self.dream.check_edit(address, exists, note_project)
        else:
            self._check_not_dreamed(address, note_project)

    def _save(self, address: Address, target: Path, data: bytes, action: str,
              old: bytes | None) -> NoteChange:
        data = redact(data.decode("utf-8", "surrogateescape"))[0].encode(
            "utf-8", "surrogateescape")  # every note write, from every front end
        if len(data) > MAX_NOTE_BYTES:
            raise BadInput(f"the note is larger than {MAX_NOTE_BYTES} bytes",
                           "split it into several notes")
        brief = self.brief(address.relpath, data) if self.brief and self.dream is None \
            else None
        target.parent.mkdir(parents=True, exist_ok=True)
        _write_file(target, data, new=old is None, store_root=self.store.path)
        digest = sha256(data)
        if self.dream is not None:
            self.dream.record(address.relpath)  # committed by the dream's end
            return NoteChange(str(address), address.relpath, action, digest, None, True)
        files = {address.relpath: (target, old)}
        if brief is not None:
            brief_file = resolve_inside(self.store.path, brief[0])
            before = brief_file.read_bytes() if brief_file.is_file() else None
            files[brief[0]] = (brief_file, before)
            brief_file.parent.mkdir(parents=True, exist_ok=True)
            _write_file(brief_file, brief[1], new=before is None, store_root=self.store.path)
        try:
            sha = self.store.repo.commit_files(
                f"{action.capitalize()} note {address}", list(files),
                trailers=self._trailers(address, data))
        except BaseException:
            for relpath, (path, previous) in files.items():
                if previous is None:
                    path.unlink(missing_ok=True)
                else:
                    path.write_bytes(previous)
                self.store.repo.git("update-index", "--add", "--remove", "--", relpath,
                                    check=False)
            raise
        if self.dream is None:
            index.sync(self.conn, self.store)
        return NoteChange(str(address), address.relpath, action, digest, sha, False)

    def _trailers(self, address: Address, data: bytes) -> dict[str, str]:
        trailers = {"Dream-Store": self.store.id}
        key = None
        if address.home == "projects":
            key = self.store.project_key_for_name(address.owner or "")
        elif address.home == "sessions":
            key = quick_meta(data.decode("utf-8", "replace"))[0].get("project")
        if key:
            trailers["Dream-Project"] = key
        return trailers

    @staticmethod
    def _body_from(text: str) -> Document:
        """User text may carry its own front matter (title, tags, ...)."""
        found = control_character(text)
        if found is not None:
            raise BadInput(f"the note's text holds a control character, {found}",
                           "remove it: a note is plain text, and terminal escape codes "
                           "(colours, titles) pasted into it would reach the brief")
        doc = parse_document(text, "the note text")
        for reserved in ("created", "updated"):
            doc.meta.pop(reserved, None)
        status = doc.meta.get("status", "live")
        if status not in STATUSES:
            raise BadInput(f"status '{status}' is not one of {', '.join(STATUSES)}",
                           "use 'live', or crumple the note with 'dream notes crumple'")
        return doc

    # -- commands --------------------------------------------------------------------------
    def write(self, raw: str, text: str, replace: bool = False,
              project_key: str | None = None) -> NoteChange:
        """Create a note; an existing one is refused unless ``replace``."""
        with write_lock(self.store.path, "dream notes write"):
            return self._write(raw, text, replace, project_key)

    def _write(self, raw: str, text: str, replace: bool,
               project_key: str | None) -> NoteChange:
        address, target = self._locate(raw)
        self._check_not_brief(address)
        exists = target.is_file()
        old = target.read_bytes() if exists else None
        old_meta = quick_meta(old.decode("utf-8", "replace"))[0] if old is not None else {}
        if exists and not replace:
            raise NoteExists(f"a note already exists at {address}",
                             "use 'dream notes update' to change it, or --replace to overwrite")
        self._check_not_record(address, old)
        doc = self._body_from(text)
        now = _now()
        meta: dict[str, Any] = {"status": doc.meta.pop("status", "live")}
        project_key = self._given_project(address, project_key, old_meta)
        if address.home == "sessions":
            project = (old_meta.get("project") or project_key or self.project_key
                       or (self.dream.project_key if self.dream else None))
            if project:
                meta["project"] = project
        self._check_write(address, exists, old_meta.get("project") if exists else
                          meta.get("project"))
        if not exists:
            self._check_project(address)
        meta["created"] = old_meta.get("created") or now
        meta["updated"] = now
        meta.update({k: v for k, v in doc.meta.items() if k not in meta})
        data = Document(meta, doc.body).to_bytes()
        return self._save(address, target, data, "replace" if exists else "write", old)

    def update(self, raw: str, text: str, append: bool = False) -> NoteChange:
        """Replace (or append to) the body of an existing note, keeping its front matter."""
        with write_lock(self.store.path, "dream notes update"):
            return self._update(raw, text, append)

    def _update(self, raw: str, text: str, append: bool) -> NoteChange:
        address, target = self._locate(raw)
        self._check_not_brief(address)
        old, current = self._read(address, target)
        self._check_write(address, True, current.meta.get("project"))
        new = self._body_from(text)
        body = current.body.rstrip("\n") + "\n\n" + new.body.lstrip("\n") if append else new.body
        meta = dict(current.meta)
        meta.update({k: v for k, v in new.meta.items() if k != "project"})
        meta["updated"] = _now()
        return self._save(address, target, Document(meta, body).to_bytes(), "update", old)

    def crumple(self, raw: str) -> NoteChange:
        """Mark a note crumpled: soft-deleted, still visible to a dream, forgettable."""
        with write_lock(self.store.path, "dream notes crumple"):
            return self._crumple(raw)

    def _crumple(self, raw: str) -> NoteChange:
        address, target = self._locate(raw)
        self._check_not_brief(address)
        old, current = self._read(address, target)
        self._check_write(address, True, current.meta.get("project"))
        meta = dict(current.meta)
        meta["status"] = "crumpled"
        meta["updated"] = _now()
        return self._save(address, target, Document(meta, current.body).to_bytes(),
                          "crumple", old)

    def show(self, raw: str) -> NoteView:
        """Read a note as it is on disk. Outside a dream the read stamps its access time."""
        address, target = self._locate(raw)
        data, doc = self._read(address, target)
        head = self.store.repo.head()
        committed = head is not None and self.store.repo.read_at(head, address.relpath) == data
        if self.dream is None:
            self.conn.execute(
                "INSERT INTO note_access (store_id, path, accessed_at) VALUES (?,?,?)"
                " ON CONFLICT(store_id, path) DO UPDATE SET accessed_at=excluded.accessed_at",
                (self.store.id, address.relpath, utcnow()))
        return NoteView(str(address), address.relpath,
                        note_status_of(data.decode("utf-8", "replace")) or "live",
                        title_of(doc.meta, doc.body, address.relpath), doc.meta, doc.body,
                        data.decode("utf-8"), sha256(data), head, committed)

    def accessed_at(self, raw: str) -> str | None:
        address = parse(raw)
        row = self.conn.execute("SELECT accessed_at FROM note_access WHERE store_id=? AND"
                                " path=?", (self.store.id, address.relpath)).fetchone()
        return row[0] if row else None

    def find(self, query: str, page: int = 1, per_page: int = 10,
             crumpled: bool = False) -> FindPage:
        """Search the notes home (as last committed), one page at a time."""
        require_words(query)
        if page < 1 or page > MAX_PAGE or per_page < 1 or per_page > 100:
            raise BadInput(f"page must be from 1 to {MAX_PAGE:,} and per-page between 1 and 100",
                           "for example --page 2 --per-page 10")
        index.sync(self.conn, self.store)
        hits = index.search(self.conn, self.store, query, limit=per_page + 1,
                            offset=(page - 1) * per_page, include_crumpled=crumpled)
        first = (page - 1) * per_page + 1
        rows = [{"address": "@" + h.path, "rank": first + n, **h.as_dict()}
                for n, h in enumerate(hits[:per_page])]
        return FindPage(query, page, per_page, rows, len(hits) > per_page)

    def list(self, prefix: str | None = None, status: str | None = "live") -> list[dict[str, Any]]:
        """Notes on disk under ``prefix`` (an address prefix such as ``@projects/x``),
        filtered by status (None for all)."""
        rel = prefix_relpath(prefix) if prefix else ""
        root = self.store.path
        top = resolve_inside(root, rel) if rel else root
        if not top.is_dir():
            return []
        notes = []
        for home in ("projects", "sessions", "user"):
            base = root / home
            if not base.is_dir() or not (top == root or base == top or base in top.parents):
                continue
            for file in sorted((top if top != root else base).rglob("*.md")):
                relpath = file.relative_to(root).as_posix()
                if any(p.startswith(".") for p in relpath.split("/")) or file.is_symlink() \
                        or _is_brief(relpath):
                    continue
                text = file.read_bytes().decode("utf-8", "replace")
                meta, body = quick_meta(text)
                note_status = note_status_of(text, meta) or "live"
                if status is not None and note_status != status:
                    continue
                notes.append({"address": "@" + relpath, "path": relpath,
                              "status": note_status, "title": title_of(meta, body, relpath),
                              "project": meta.get("project"), "updated": meta.get("updated")})
        return notes
