"""init and status: make the current project known, and say where it stands; the project
keys collected items carry, and moving items between them (``dream projects``)."""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from dream.app import App
from dream.errors import BadInput, DreamError, LockHeld
from dream.store.lock import held_locks, lock_state, read_lock, write_lock, write_locks
from dream.store.project import lost_letters, name_folder, slug
from dream.store.store import STORE_FILE, Store


@dataclass
class Initialised:
    key: str
    name: str
    in_git: bool
    root: str
    store: dict[str, Any]
    home: str
    # the project's notes in the store that was primary before ({"store", "path", "files",
    # "moved"}): moved to the new store (--move-notes) or left; None when there were none
    notes: dict[str, Any] | None = None
    # the folder name when the project's new name had to leave out its letters (another
    # script than Latin: a note address holds ASCII only); None otherwise
    lost_from: str | None = None

    def as_dict(self) -> dict[str, Any]:
        return {"project_key": self.key, "project_name": self.name, "in_git": self.in_git,
                "root": self.root, "store": self.store, "home": self.home,
                "earlier_notes": self.notes, "name_lost_letters_of": self.lost_from}


def _locks_of(app: App, key: str, names: set[str]) -> list[tuple[Any, dict[str, Any]]]:
    """Dream locks held over the project, found by its key or any of its names."""
    found = []
    for path in held_locks(app.home.notes_path):
        info = read_lock(path) or {}
        if info.get("project_key") == key or path.name.split(".dream.lock.", 1)[-1] in names:
            found.append((path, info))
    return found


_PROJECT_NAME_RE = re.compile(r"[A-Za-z0-9_][A-Za-z0-9._-]{0,127}")


def _check_name(name: str) -> None:
    """A project's name is the <name> of ``@projects/<name>/`` and of its dream lock."""
    if _PROJECT_NAME_RE.fullmatch(name):
        return
    offered = slug(name.replace("/", "-"))
    raise BadInput(f"'{name[:80]}' cannot be a project name (it names the folder of "
                   "@projects/<name>/ addresses and the dream lock)",
                   "use letters, digits, '.', '-' and '_', starting with a letter or digit"
                   + (f", e.g. --name {offered}" if name.strip() and offered != "project"
                      else ""))


def _rename(store: Store, old: str, new: str) -> None:
    """Move a renamed project's notes and records (``projects/<old>/``) to
    ``projects/<new>/`` with the store's new entry, in one commit: the brief, search and
    every address follow the name. Never merged into a folder that already holds notes."""
    source, target = store.path / "projects" / old, store.path / "projects" / new
    if target.exists():
        raise BadInput(f"projects/{new} already holds notes in store '{store.name}'",
                       "choose another --name, or move that folder away first")
    tracked = store.repo.git("ls-files", "-z", "--", f"projects/{old}").split("\0")
    moved = [path for path in tracked if path]
    if source.is_dir():
        source.rename(target)
    store.save(commit=False)
    store.repo.commit_files(
        f"Rename project {old} to {new}",
        [STORE_FILE.as_posix(), *moved,
         *(f"projects/{new}/{path[len(f'projects/{old}/'):]}" for path in moved)],
        trailers={"Dream-Store": store.id})


def _tracked(store: Store, name: str) -> list[str]:
    """The committed files of a project's folder in a store."""
    listed = store.repo.git("ls-files", "-z", "--", f"projects/{name}").split("\0")
    return [path for path in listed if path]


def _move_notes(app: App, source: Store, old: str, target: Store, new: str,
                files: list[str]) -> None:
    """Move a project's notes (``projects/<old>/``) from the store that was its primary to
    its new Primary Store (``projects/<new>/``). The copy is committed in the new store
    before the old files are removed in their own commit, so a failure half-way leaves the
    notes in both stores, never in none; each commit names the other store."""
    with write_locks([source.path, target.path], "init --move-notes"):
        copied = []
        for path in files:
            src = source.path / path
            if not src.is_file():           # deleted by hand and not yet committed: skip
                continue
            dest = f"projects/{new}/{path[len(f'projects/{old}/'):]}"
            (target.path / dest).parent.mkdir(parents=True, exist_ok=True)
            (target.path / dest).write_bytes(src.read_bytes())
            copied.append((path, dest))
        target.repo.commit_files(
            f"Move project {new}'s notes here from store {source.name}",
            [dest for _, dest in copied], trailers={"Dream-Store": target.id})
        for path, _ in copied:
            (source.path / path).unlink()
        source.repo.commit_files(
            f"Move project {old}'s notes to store {target.name}",
            [path for path, _ in copied], trailers={"Dream-Store": source.id})
    from dream import index

    for store in (source, target):
        index.sync(app.db, store)


def init(app: App, store_name: str | None = None, name: str | None = None,
         move_notes: bool = False) -> Initialised:
    """Make the current project known and mark its Primary Store. Moving a project to
    another store or name while a dream holds its lock is refused: the lock would no longer
    guard the project's notes.

    When the Primary Store changes, the notes the project has in the old one stay there
    (a private store's notes are not published to a shared one unasked) and are reported;
    ``move_notes`` moves them into the new store instead."""
    if name is not None:
        _check_name(name)
    app.ensure_home()
    current = app.current_project()
    store = app.stores.by_id(store_name) if store_name else app.stores.notes_home()
    stores = app.stores.all()
    root = Path(current.root or app.cwd).resolve()
    for own in (Path(app.home.root).resolve(), *(Path(s.path).resolve() for s in stores)):
        if root == own or own in root.parents:
            raise BadInput(f"{root} is inside Dream's own home or store {own}; a store "
                           "cannot be a project of itself",
                           "run 'dream init' in your project's repository")
    taken = {e.get("name") for k, e in store.projects.items() if k != current.key}
    named = name or store.project_name(current.key)
    # the folder the name was made from: a linked worktree's name is its main checkout's
    # (the worktree's own folder named the letters of the wrong folder, or none)
    folder = name_folder(app.project())
    lost_from = folder if not named and lost_letters(folder) else None
    proj_name = named or current.name
    if proj_name in taken:
        proj_name = current.key
    moving = current.store is None or current.store.id != store.id or \
        proj_name != current.name or move_notes
    if moving:
        names = {current.name, proj_name} | {n for s in stores
                                             if (n := s.project_name(current.key))}
        held = _locks_of(app, current.key, names)
        if held:
            path, info = held[0]
            raise LockHeld(
                f"a dream over project {current.name} holds {path} "
                f"({info.get('owner', 'unknown owner')}); moving the project now would "
                "bypass that lock", "end the dream with 'dream end' (or clear a stale lock, "
                "see 'dream doctor'), then run 'dream init' again")
    earlier = next((other for other in stores
                    if other.id != store.id and other.is_primary_for(current.key)), None)
    earlier_name = earlier.project_name(current.key) if earlier is not None else None
    files = _tracked(earlier, earlier_name) if earlier is not None and earlier_name else []
    if earlier is None and move_notes:
        # the primary store changed earlier without its notes: take them from the one other
        # store that holds notes for this project
        holding = [(other, n, listed) for other in stores if other.id != store.id
                   and (n := other.project_name(current.key)) and (listed := _tracked(other, n))]
        if len(holding) > 1:
            raise BadInput(f"stores {', '.join(repr(o.name) for o, _, _ in holding)} all hold "
                           "notes of this project; --move-notes moves from one store only",
                           "detach the stores whose notes should stay, then run it again")
        if holding:
            earlier, earlier_name, files = holding[0]
    if files and move_notes and _tracked(store, proj_name):
        raise BadInput(f"projects/{proj_name} already holds notes in store '{store.name}'; "
                       f"the notes in store '{earlier.name}' were not moved",
                       "choose another --name, or run without --move-notes")
    for other in stores:
        if other.id != store.id and other.is_primary_for(current.key):
            with write_lock(other.path, "init"):
                other = type(other).load(other.path)
                other.projects[current.key]["primary"] = False
                other.save(subject=f"Primary store for {current.key} moved to {store.name}")
    with write_lock(store.path, "init"):
        store = type(store).load(store.path)
        old_name = store.project_name(current.key)
        store.add_project(current.key, proj_name, primary=True)
        if old_name and old_name != proj_name:
            _rename(store, old_name, proj_name)
        else:
            store.save(subject=f"Manage project {proj_name}")
    notes = None
    if files:
        assert earlier is not None and earlier_name is not None
        if move_notes:
            _move_notes(app, earlier, earlier_name, store, proj_name, files)
        notes = {"store": earlier.name, "path": f"projects/{earlier_name}",
                 "files": len(files), "moved": move_notes}
    return Initialised(current.key, proj_name, current.in_git, str(root), store.describe(),
                       str(app.home.root), notes, lost_from)


def status(app: App) -> dict[str, Any]:
    """The current project, its Primary Store, the dream lock over it (with who holds it
    and whether that process is alive) and the store's health (cheap checks)."""
    app.home.require()
    current = app.current_project()
    lock = None
    if current.store is not None:
        names = {current.name}
        for path, info in _locks_of(app, current.key, names):
            state = lock_state(info)
            lock = {"path": str(path), "held": True, "state": state, "holder": info,
                    "content": path.read_text(encoding="utf-8", errors="replace").strip()
                    if path.exists() else ""}
            break
    problem = quick_store_check(current.store) if current.store is not None else None
    return {
        "problem": problem,
        "home": str(app.home.root),
        "project_key": current.key,
        "project_name": current.name if current.store else None,
        "in_git": current.in_git,
        "store": current.store.describe() if current.store else None,
        "managed": current.store is not None,
        "lock": lock,
    }


def quick_store_check(store: Store) -> str | None:
    """A cheap health check for status and search (no fsck): why the store cannot be
    read, or None. ``dream doctor`` makes the thorough checks."""
    if not (store.path / ".git").exists():
        return f"store {store.name} at {store.path} is not a git repository"
    try:
        store.repo.head()
    except DreamError as exc:
        return exc.message
    return None


# -- the project keys items carry ------------------------------------------------------------
@dataclass(frozen=True)
class Listed:
    """A known project, and whether it is the repository the command runs in."""

    project: Any               # dream.spool.projects.KnownProject
    here: bool

    def as_dict(self) -> dict[str, Any]:
        return {**self.project.as_dict(), "here": self.here}


def list_projects(app: App) -> list[Listed]:
    """Every project key a store manages or a collected item carries (names, stores,
    recorded folders, item counts), busiest first."""
    from dream.spool.projects import known

    app.home.require()
    here = app.project().key
    return [Listed(row, row.key == here) for row in known(app.db, app.stores.all())]


@dataclass(frozen=True)
class Moved:
    from_key: str
    to_key: str
    moved: int

    def as_dict(self) -> dict[str, Any]:
        return {"from": self.from_key, "to": self.to_key, "moved": self.moved}


def move_items(app: App, from_project: str, to_project: str) -> Moved:
    """Move every collected item of project FROM to project TO (each a store's name for a
    project, its key, a key items carry, or the current repository's name); nothing is
    wiped, items a running run holds stay, and a later run or review in TO sees them."""
    from dream.spool.projects import move, resolve

    app.home.require()
    stores = app.stores.all()
    here = app.project()
    src = resolve(app.db, stores, from_project, here)
    dst = resolve(app.db, stores, to_project, here)
    return Moved(src, dst, move(app.db, dst, from_key=src))
