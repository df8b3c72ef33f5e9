"""The evidence a review dream reads: spool items of one project since its review watermark.

Passes never query the database themselves; :func:`load` reads everything once and the six
passes work over the same in-memory :class:`Evidence` in parallel.

The spool (``items``, see ``dream.db``) keeps the assistant's own prose with ``evidence=0``;
it is context, never proof. Tool *calls* are kept the same way by the collector. Which
commands ran is read by :mod:`dream.detect.commands`, as in the dream run.
"""

from __future__ import annotations

import sqlite3
import threading
from dataclasses import dataclass, field

from dream.detect import commands, grouping, noise, rules, wording
from dream.detect.commands import CommandRun, by_session
from dream.items import Item


@dataclass
class Note:
    """A memory note in the project's reach (for the memory pass)."""

    address: str
    relpath: str
    text: str
    blob: str | None
    crumpled: bool = False


@dataclass
class Handoff:
    journal_id: int
    at: str
    learned: list[str]
    text: str


@dataclass
class Evidence:
    project_key: str
    project_name: str
    items: list[Item]
    from_seq: int
    to_seq: int
    notes: list[Note] = field(default_factory=list)
    handoff: Handoff | None = None
    agent_file: str = "AGENTS.md"          # where instruction patches go
    agent_file_text: str | None = None     # its current text, None when absent
    run_id: str = ""                       # the review run (recorded in note provenance)
    store_commit: str | None = None        # the store commit the notes were read at

    _groups: list[grouping.Group] | None = field(default=None, init=False, repr=False,
                                                 compare=False)
    _groups_lock: threading.Lock = field(default_factory=threading.Lock, init=False,
                                         repr=False, compare=False)

    # -- views shared by the passes ------------------------------------------------------
    @property
    def rule_groups(self) -> list[grouping.Group]:
        """:func:`rule_groups` of the items, computed once (under a lock: the passes run in
        threads): the corrections, memory and codify passes each grouped the same rules
        again, three times a review."""
        with self._groups_lock:
            if self._groups is None:
                self._groups = rule_groups(self.items)
            return self._groups

    @property
    def sessions(self) -> list[str]:
        seen: dict[str, None] = {}
        for item in self.items:
            seen.setdefault(item.stream, None)
        return list(seen)

    def statements(self) -> list[Item]:
        return [i for i in self.items if i.is_statement]

    def tool_results(self) -> list[Item]:
        return [i for i in self.items if i.is_tool_result]

    def by_session(self) -> dict[str, list[Item]]:
        out: dict[str, list[Item]] = {}
        for item in self.items:
            out.setdefault(item.stream, []).append(item)
        return out

    def commands(self) -> dict[str, list[CommandRun]]:
        """Shell commands per session, in order, each backed by a tool result."""
        return by_session(self.items)

    def counts(self) -> dict[str, int]:
        return {
            "items": len(self.items),
            "sessions": len(self.sessions),
            "statements": len(self.statements()),
            "tool_results": len(self.tool_results()),
            "tool_failures": sum(1 for i in self.tool_results() if i.is_error),
        }


# -- loading ------------------------------------------------------------------------------
def watermark_name(project_key: str) -> str:
    return f"review:{project_key}"


def watermark(conn: sqlite3.Connection, project_key: str) -> int:
    row = conn.execute("SELECT seq FROM watermarks WHERE name=?",
                       (watermark_name(project_key),)).fetchone()
    return int(row["seq"]) if row else 0


MAX_ITEMS = 200_000


def load_items(conn: sqlite3.Connection, project_key: str, after_seq: int,
               limit: int = MAX_ITEMS) -> list[Item]:
    """At most ``limit`` items after ``after_seq``; a review that hits the limit reads the
    rest next time (the watermark moves only to the last item read)."""
    rows = conn.execute(
        "SELECT seq, id, ref, stream, role, kind, evidence, said_at, collected_at, text,"
        " tool_name, is_error, source, project_key, author, entities FROM items"
        " WHERE project_key=? AND seq>? ORDER BY seq LIMIT ?",
        (project_key, after_seq, limit),
    ).fetchall()
    items = [Item.from_row(r) for r in rows]
    # one session's items in the order they were said (seq order within a file already is)
    return items


def rule_groups(items: list[Item]) -> list[grouping.Group]:
    """The rules the user said (:func:`dream.detect.rules.corrections`), grouped by what they
    say (:func:`dream.detect.grouping.group`), each with the sentences that say it again in
    other words (:func:`dream.detect.grouping.said_again`)."""
    programs = commands.programs(items)
    groups = grouping.group(rules.corrections(items), programs)
    grouping.said_again(groups, heard(items), programs, grouping.refused_offers(items))
    return groups


def heard(items: list[Item]) -> list[grouping.Sentence]:
    """Every sentence the user said: in statements, and typed when refusing a tool call."""
    out = []
    for item in items:
        said = rules.user_words(item)
        if said:
            out += [grouping.Sentence(s, item) for s in wording.split(noise.strip_paste(said))]
    return out
