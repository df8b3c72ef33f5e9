"""Which project collected items belong to, and how a person steers it.

An agent transcript records the folder it ran in; collect keys its items to that folder's
project (``sources.base.project_key_for``). The rules here, applied as items are written:

1. ``--project NAME|KEY`` (``Placement.forced``) puts every item that belongs to some
   project into that one; personal streams (no recorded folder) stay personal.
2. A recorded folder that does not exist on this machine, whose folder name matches the
   repository collect runs in, or whose recorded git remote is one of that repository's
   remotes (Codex records it in ``session_meta.git.repository_url``; HTTPS and SSH
   spellings compare equal), is placed in that repository (``Placement.attributed`` says
   which folders, and ``Placement.matched`` by what). Session logs copied from another
   machine land where a person would look for them.
3. Any other folder missing on this machine is kept under its own key and reported as
   unplaced (``Placement.unplaced``), with ``--project`` as the way to place it.
4. A missing folder whose items were placed before (``move``, ``--project``: its row in
   ``project_folders`` names another key) keeps that placement as its session grows.

Every folder seen is recorded in ``project_folders`` under the key its items got, so
``dream projects`` lists keys with their folders; ``move`` re-keys items already
collected, without a wipe.
"""

from __future__ import annotations

import re
import sqlite3
from collections import Counter
from dataclasses import dataclass, field
from typing import Any

from dream.db import utcnow
from dream.errors import BadInput
from dream.secrets import redact
from dream.store.project import ProjectId, folder_name, remotes, slug
from dream.store.store import Store


@dataclass
class Placement:
    """Decides the project key of collected items, and counts what it decided."""

    here: ProjectId | None = None          # the repository collect runs in, when in git
    forced: str | None = None              # --project: every project item goes here
    keys: dict[str, str] = field(default_factory=dict)        # item key -> final key
    folders: dict[str, tuple[str, bool]] = field(default_factory=dict)  # folder -> (key, exists)
    attributed: Counter[str] = field(default_factory=Counter)   # foreign folder -> items
    matched: dict[str, str] = field(default_factory=dict)   # foreign folder -> 'folder name'
    #                                                           or 'git remote'
    _remotes: set[str] | None = None        # here's remotes, normalised (read on first need)
    unplaced: Counter[str] = field(default_factory=Counter)     # foreign folder -> items
    moved: int = 0                          # items already collected, re-keyed by --project
    _foreign: dict[str, str] = field(default_factory=dict)  # key of a missing folder -> folder
    # folder -> the keys project_folders records for it ('dream projects move', --project)
    recorded: dict[str, set[str]] = field(default_factory=dict)

    @classmethod
    def of(cls, conn: sqlite3.Connection, here: ProjectId | None,
           forced: str | None = None) -> Placement:
        """A placement that remembers where each folder's items were put before."""
        recorded: dict[str, set[str]] = {}
        for key, folder in conn.execute("SELECT project_key, folder FROM project_folders"
                                        " WHERE on_this_machine = 0"):
            recorded.setdefault(folder, set()).add(key)
        return cls(here=here, forced=forced, recorded=recorded)

    def learn(self, seen: dict[str, tuple[str, bool, str | None]]) -> None:
        """Folders a parser keyed (folder -> (key, exists on this machine, the git remote
        the transcript recorded, normalised, or None))."""
        for raw, (key, exists, remote) in seen.items():
            folder = redact(raw)[0]  # recorded and reported: never a secret in a path
            if folder in self.folders:
                continue
            final, why = self._decide(raw, key, exists, remote)
            placed = self.recorded.get(folder, set()) - {key}
            if final == key and not exists and not self.forced and len(placed) == 1:
                # its items were moved (or collected with --project) before: the lines the
                # session adds since go where those went
                final, why = placed.pop(), "earlier placement"
            self.folders[folder] = (final, exists)
            self.keys.setdefault(key, final)
            if why:
                self.matched[folder] = why
            if not exists and not self.forced:
                self._foreign[key] = folder

    def _decide(self, folder: str, key: str, exists: bool,
                remote: str | None) -> tuple[str, str | None]:
        """The key the folder's items get, and what matched it to here (or None)."""
        if self.forced:
            return self.forced, None
        if exists or self.here is None or not self.here.in_git:
            return key, None
        name = folder_name(folder)      # POSIX or Windows spelling, any case
        if name and slug(name) == self.here.name:
            return self.here.key, "folder name"
        if remote is not None:
            if self._remotes is None:
                self._remotes = remotes(self.here.root)
            if remote in self._remotes:
                return self.here.key, "git remote"
        return key, None

    def place(self, key: str | None) -> str | None:
        """The final key of an item the parser keyed ``key`` (None: a personal stream)."""
        if key is None:
            return None
        final = self.keys.get(key) or self.forced or key
        folder = self._foreign.get(key)
        if folder is not None:
            if self.here is not None and final == self.here.key:
                self.attributed[folder] += 1
            elif final == key:
                self.unplaced[folder] += 1
        return final

    def record(self, conn: sqlite3.Connection) -> None:
        """Remember each folder under the key its items got (inside the caller's
        transaction, or on its own)."""
        now = utcnow()
        conn.executemany(
            "INSERT INTO project_folders (project_key, folder, on_this_machine, seen_at)"
            " VALUES (?, ?, ?, ?) ON CONFLICT (project_key, folder) DO UPDATE"
            " SET on_this_machine=excluded.on_this_machine, seen_at=excluded.seen_at",
            [(key, folder, int(exists), now) for folder, (key, exists) in self.folders.items()])

    def as_dict(self) -> dict[str, Any]:
        return {"project": self.forced or (self.here.key if self.here else None),
                "attributed": dict(self.attributed),
                "matched": {f: self.matched[f] for f in self.attributed if f in self.matched},
                "unplaced": dict(self.unplaced), "moved": self.moved}


@dataclass(frozen=True)
class KnownProject:
    """A project key with what Dream knows of it."""

    key: str
    name: str | None          # the name a store gave it ('dream init'), else None
    stores: tuple[str, ...]   # stores that manage it (primary first)
    folders: tuple[str, ...]  # recorded folders its items came from
    items: int                # collected items keyed to it
    pending: int              # items a run would still claim (not meta, not processed)

    def as_dict(self) -> dict[str, Any]:
        return {"key": self.key, "name": self.name, "stores": list(self.stores),
                "folders": list(self.folders), "items": self.items, "pending": self.pending}


def known(conn: sqlite3.Connection, stores: list[Store]) -> list[KnownProject]:
    """Every project key a store manages or an item carries, busiest first."""
    counts = {k: (n, p) for k, n, p in conn.execute(
        "SELECT project_key, count(*), sum(processed_by IS NULL AND claimed_by IS NULL"
        " AND kind != 'meta') FROM items WHERE project_key IS NOT NULL GROUP BY project_key")}
    folders: dict[str, list[str]] = {}
    for key, folder in conn.execute(
            "SELECT project_key, folder FROM project_folders ORDER BY folder"):
        folders.setdefault(key, []).append(folder)
    names: dict[str, str] = {}
    managed: dict[str, list[str]] = {}
    for store in stores:
        for key, entry in store.projects.items():
            names.setdefault(key, entry.get("name") or key)
            where = managed.setdefault(key, [])
            where.insert(0, store.name) if entry.get("primary") else where.append(store.name)
    rows = [KnownProject(key, names.get(key), tuple(managed.get(key, ())),
                         tuple(folders.get(key, ())), counts.get(key, (0, 0))[0],
                         int(counts.get(key, (0, 0))[1] or 0))
            for key in set(counts) | set(names)]
    return sorted(rows, key=lambda r: (-r.items, r.key))


def resolve(conn: sqlite3.Connection, stores: list[Store], name_or_key: str,
            here: ProjectId | None = None) -> str:
    """The key of a project named or keyed ``name_or_key`` (a store's name for it, its key,
    a key items carry, or the repository the command runs in); a clear error listing the
    known ones otherwise."""
    for store in stores:
        key = store.project_key_for_name(name_or_key)
        if key:
            return key
    if conn.execute("SELECT 1 FROM items WHERE project_key=? LIMIT 1",
                    (name_or_key,)).fetchone():
        return name_or_key
    if here is not None and name_or_key in (here.key, here.name):
        return here.key
    # a key of a folder missing here is '<folder name slug>-<8 hex>' and has no name:
    # the folder name collect printed finds it when only one key has that name
    named = {k for s in stores for k in s.projects}
    unnamed = sorted(k for (k,) in conn.execute(
        "SELECT DISTINCT project_key FROM items WHERE project_key IS NOT NULL")
        if k not in named)
    by_folder = [k for k in unnamed
                 if (m := _KEY.fullmatch(k)) and m.group(1) == name_or_key.casefold()]
    if len(by_folder) == 1:
        return by_folder[0]
    if by_folder:
        raise BadInput(f"'{name_or_key}' names several projects: {', '.join(by_folder)}",
                       "give the key of the one you mean ('dream projects' shows their "
                       "folders)")
    names = sorted({e.get("name") or k for s in stores for k, e in s.projects.items()})
    listed = names + unnamed
    raise BadInput(f"no project named or keyed '{name_or_key}'",
                   "known: " + (", ".join(listed[:8]) or "none")
                   + "; 'dream projects' lists them all, 'dream init' makes a repository known")


_KEY = re.compile(r"(.+)-[0-9a-f]{8}")


def move(conn: sqlite3.Connection, to_key: str, from_key: str | None = None,
         source_paths: list[str] | None = None) -> int:
    """Re-key collected items of ``from_key`` (or, with ``source_paths``, every project item
    collected from those files) to ``to_key``; items a running run holds stay. Returns how
    many moved."""
    if from_key == to_key or (from_key is None and not source_paths):
        return 0
    conn.execute("BEGIN IMMEDIATE")
    try:
        if source_paths is None:
            moved = conn.execute(
                "UPDATE items SET project_key=? WHERE project_key=?"
                " AND (claimed_by IS NULL OR processed_by IS NOT NULL)",
                (to_key, from_key)).rowcount
            conn.execute("UPDATE OR REPLACE project_folders SET project_key=?"
                         " WHERE project_key=?", (to_key, from_key))
        else:
            marks = ",".join("?" * len(source_paths))
            conn.execute(f"UPDATE OR REPLACE project_folders SET project_key=? WHERE folder IN"
                         f" (SELECT DISTINCT f.folder FROM project_folders f, items i WHERE"
                         f" i.project_key=f.project_key AND i.source_path IN ({marks}))",
                         (to_key, *source_paths))
            moved = conn.execute(
                f"UPDATE items SET project_key=? WHERE source_path IN ({marks})"
                " AND project_key IS NOT NULL AND project_key != ?"
                " AND (claimed_by IS NULL OR processed_by IS NOT NULL)",
                (to_key, *source_paths, to_key)).rowcount
        conn.execute("COMMIT")
    except BaseException:
        conn.execute("ROLLBACK")
        raise
    return moved


def elsewhere(conn: sqlite3.Connection, key: str | None) -> list[tuple[str, int]]:
    """Projects other than ``key`` with items a run would claim (never meta), busiest
    first: where the items a run or review here did not take went."""
    return [(k, n) for k, n in conn.execute(
        "SELECT project_key, count(*) FROM items WHERE processed_by IS NULL"
        " AND claimed_by IS NULL AND kind != 'meta' AND project_key IS NOT NULL"
        " AND project_key IS NOT ? GROUP BY project_key ORDER BY count(*) DESC, project_key",
        (key,))]
