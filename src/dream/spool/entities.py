"""Entities found by code, so a later stage can bundle one person's or thing's evidence
across streams.

Every entity is a normalised name: lower case, surrounding space and a leading ``@``
removed, inner space collapsed. From a participant ``Jordan Lee <jordan@example.com>`` come
``jordan lee``, ``jordan`` (the first name) and ``jordan@example.com``; from a mention
``@jordan`` comes ``jordan``; so 'Jordan', '@jordan' and the address with display name
Jordan meet on ``jordan``.

Sources of entities:

* participants a source names (authors, senders, recipients, mentioned users);
* e-mail addresses and ``@mentions`` in a person's own words (statements and messages);
* names already known: the ``entity_names`` table (authors and participants seen before)
  and the titles of wiki documents in the store index (``documents`` rows whose path
  contains ``wiki/``, ``people/`` or ``entities/``), matched as whole words.

Tool results, tool calls and assistant prose carry only their participants: scanning tool
output for names is slow and mostly noise.
"""

from __future__ import annotations

import re
import sqlite3
from collections.abc import Iterable

from dream.db import utcnow

_EMAIL_RE = re.compile(r"\b[A-Za-z0-9._%+\-]+@[A-Za-z0-9.\-]+\.[A-Za-z]{2,}\b")
_MENTION_RE = re.compile(r"(?<![\w@.])@([A-Za-z][\w.\-]{1,40}[A-Za-z0-9_])")
_ADDRESS_RE = re.compile(r"^(?P<name>.*?)\s*<(?P<addr>[^<>@\s]+@[^<>\s]+)>$")
_SPACE_RE = re.compile(r"\s+")
_NOT_PEOPLE = {"user", "assistant", "system", "tool", "unknown", "me", "you", "here",
               "channel", "everyone"}
_MAX_KNOWN = 5000


def normalise(name: str) -> str:
    return _SPACE_RE.sub(" ", name.strip().strip("\"'").lstrip("@").strip()).lower()


def names_of(participant: str) -> list[str]:
    """Entity names for one participant string (a name, a handle or 'Name <address>')."""
    participant = participant.strip()
    if not participant:
        return []
    out: list[str] = []
    match = _ADDRESS_RE.match(participant)
    if match:
        out.append(match["addr"].lower())
        participant = match["name"]
    elif "@" in participant.lstrip("@"):
        return [participant.lower()]
    name = normalise(participant)
    if name and name not in _NOT_PEOPLE:
        out.append(name)
        first = name.split(" ")[0]
        if " " in name and len(first) > 2:
            out.append(first)
    return out


class EntityFinder:
    """Finds entities in messages; learns new participant names as it goes."""

    def __init__(self, conn: sqlite3.Connection) -> None:
        self.conn = conn
        self.known: dict[str, str] = {}  # display form -> normalised
        for row in conn.execute("SELECT name, display FROM entity_names LIMIT ?",
                                (_MAX_KNOWN,)):
            self.known[row["display"]] = row["name"]
        try:
            rows = conn.execute(
                "SELECT title FROM documents WHERE path LIKE '%wiki/%' OR path LIKE '%people/%'"
                " OR path LIKE '%entities/%' LIMIT ?", (_MAX_KNOWN,)).fetchall()
        except sqlite3.OperationalError:  # no store index yet
            rows = []
        for row in rows:
            if row["title"]:
                self.known.setdefault(row["title"], normalise(row["title"]))
        self.new: dict[str, tuple[str, str]] = {}
        self._pattern: re.Pattern[str] | None = None
        self._dirty = True

    def _known_re(self) -> re.Pattern[str] | None:
        if self._dirty:
            names = sorted((d for d in self.known if len(d) >= 3 and d.strip()),
                           key=len, reverse=True)
            self._pattern = re.compile(
                r"(?<!\w)(?:" + "|".join(re.escape(d) for d in names) + r")(?!\w)"
            ) if names else None
            self._dirty = False
        return self._pattern

    def learn(self, participants: Iterable[str]) -> None:
        for participant in participants:
            match = _ADDRESS_RE.match(participant.strip())
            display = (match["name"] if match else participant).strip().strip("\"'")
            if not display or "@" in display or len(display) < 3:
                continue
            norm = normalise(display)
            if norm in _NOT_PEOPLE or display in self.known:
                continue
            self.known[display] = norm
            self.new[norm] = (display, "participant")
            self._dirty = True

    def find(self, text: str, participants: Iterable[str], scan: bool) -> list[str]:
        found: list[str] = []
        for participant in participants:
            found += names_of(participant)
        if scan and text:
            found += [m.lower() for m in _EMAIL_RE.findall(text)]
            found += [m.lower().rstrip(".") for m in _MENTION_RE.findall(text)]
            pattern = self._known_re()
            if pattern is not None:
                found += [self.known[m] for m in pattern.findall(text) if m in self.known]
        seen: dict[str, None] = {}
        for name in found:
            if name and name not in _NOT_PEOPLE:
                seen.setdefault(name, None)
        return list(seen)

    def save(self) -> None:
        """Remember newly seen names (inside the caller's transaction)."""
        if self.new:
            now = utcnow()
            self.conn.executemany(
                "INSERT OR IGNORE INTO entity_names(name, display, origin, seen_at) "
                "VALUES (?, ?, ?, ?)",
                [(n, d, o, now) for n, (d, o) in self.new.items()])
            self.new.clear()
