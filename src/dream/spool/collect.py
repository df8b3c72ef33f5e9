"""Collect: read sources into the spool through the gate and redaction, behind the watermark.

``collect(app, paths=None, source=None, progress=None)`` is the one entry point (the CLI,
hooks and the demo call it). With no paths it discovers the current repository's agent
transcripts. No model is called. Each chunk of a file is inserted together with the
file's advanced watermark (a savepoint of a transaction that groups chunks up to
``ROWS_PER_COMMIT`` rows), so an interrupted collect never loses or
duplicates an item: the next one resumes at the last committed chunk, and item ids are
stable (hash of source kind and the source's own message id, or its exact reference), so
``INSERT OR IGNORE`` drops anything already spooled.

Speed: with more than ``PARALLEL_MIN_BYTES`` to read and two or more CPUs, line files are
parsed, gated and redacted in worker processes (``_Workers``) while this process finds
entities and writes, in the same order and with the same transactions as alone.
"""

from __future__ import annotations

import hashlib
import json
import multiprocessing
import os
import pickle
import signal
import stat
import sys
import threading
import time
import traceback
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from itertools import chain, islice
from pathlib import Path
from typing import Any

from dream.app import App
from dream.db import utcnow
from dream.errors import BadInput
from dream.sources import (
    LINE_SOURCES,
    SOURCE_KINDS,
    FileContext,
    Message,
    Skip,
    detect,
    get,
    of_kind,
)
from dream.sources.base import (
    SEEN_FOLDERS,
    UNREADABLE_TIME,
    looks_binary,
    parse_guarded,
    parse_json,
)
from dream.sources.discovery import discover
from dream.spool import watermark
from dream.spool.entities import EntityFinder
from dream.spool.gate import gate
from dream.spool.history import index_new_items
from dream.spool.projects import Placement
from dream.spool.redact import redact

LINE_MAX = 64 << 20     # a longer line is skipped (counted), never held in memory
CHUNK_BYTES = 4 * 1024 * 1024
ROWS_PER_TRANSACTION = 2000  # rows of a whole-file source per chunk
ROWS_PER_COMMIT = 50_000  # chunks are committed together (fewer commits and index merges)
MAX_SKIPS_LISTED = 200
MAX_TEXT = 32_000  # longer texts (pastes, long messages) keep their head and tail
MAX_BULK_TEXT = 8_000  # tool output and injected context: head and tail (errors sit at the end)
_SKIP_DIRS = {".git", "node_modules", "__pycache__", ".venv"}
# a folder named to collect with more files than this is no folder of transcripts (a home,
# /tmp, a disk): stop before walking all of it and detecting each file's kind
MAX_FOLDER_FILES = 50_000
# Line files are parsed and redacted in worker processes (the main process gates entities
# and writes) when there is this much to read and more than one CPU; DREAM_COLLECT_WORKERS
# sets the number of workers (0: read in the main process).
PARALLEL_MIN_BYTES = 8 * 1024 * 1024
MAX_WORKERS = 3

Progress = Callable[[int, int, str], None]  # (bytes done, bytes total, current file)

# sources whose format promises one message per id within a stream (docs/formats.md)
ONE_MESSAGE_PER_ID = ("jsonl",)

_INSERT = (
    "INSERT OR IGNORE INTO items(id, source, source_path, ref, stream, project_key, author,"
    " role, said_at, text, tool_name, is_error, kind, evidence, entities, collected_at,"
    " channel) VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)"
)


# the message exports whose senders are told apart by config.toml's [collect] me
_SENDER_SOURCES = frozenset({"mbox", "slack", "textchat"})


@dataclass
class CollectReport:
    files: int = 0             # files examined
    files_read: int = 0        # files with new material read
    files_unchanged: int = 0   # decided from stat alone
    files_replaced: int = 0    # replaced or truncated: read again from the start
    files_failed: int = 0      # nothing readable in them
    new_items: int = 0
    duplicates: int = 0        # messages already in the spool
    evidence: int = 0          # new items the gate admitted as evidence
    redacted: int = 0          # secrets replaced by placeholders
    skipped: int = 0
    skips: list[dict[str, Any]] = field(default_factory=list)
    repeated: int = 0          # lines repeating an earlier message (same id, same words)
    id_reused: int = 0         # messages kept under their line: their id named another
    repeats: list[dict[str, Any]] = field(default_factory=list)
    changed: int = 0           # read again under a collected id, with other words (not kept)
    changes: list[dict[str, Any]] = field(default_factory=list)
    retimed: int = 0           # kept with a neighbour's time: theirs was none or in the future
    retimes: list[dict[str, Any]] = field(default_factory=list)
    notes: list[dict[str, Any]] = field(default_factory=list)  # read, but with a guess
    # message exports read now with others' messages and none the user's: who "me" is
    # (config.toml [collect] me) names no sender of theirs, so every message is someone
    # else's and a run finds nothing the user said, agreed or booked
    not_yours: list[str] = field(default_factory=list)
    bytes_read: int = 0
    seconds: float = 0.0
    by_source: dict[str, int] = field(default_factory=dict)
    placement: Placement = field(default_factory=Placement)

    def failed(self, path: str, line: int | None, reason: str) -> None:
        """A file read for nothing: counted read and failed, and why listed."""
        self.files_read += 1
        self.files_failed += 1
        self.skip(Skip(path, line, reason))

    def skip(self, item: Skip) -> None:
        self.skipped += 1
        if len(self.skips) < MAX_SKIPS_LISTED:
            self.skips.append({"file": item.path, "line": item.line, "where": item.where(),
                               "reason": item.reason})

    def repeat(self, where: str, first: str, kept: bool) -> None:
        if kept:
            self.id_reused += 1
        else:
            self.repeated += 1
        if len(self.repeats) < MAX_SKIPS_LISTED:
            self.repeats.append({"where": where, "same_id_as": first,
                                 "kept": kept, "reason": (
                                     "its id names a different message: kept under its line"
                                     if kept else "repeats that message word for word: "
                                     "skipped")})

    def retime(self, item: Skip) -> None:
        self.retimed += 1
        if len(self.retimes) < MAX_SKIPS_LISTED:
            self.retimes.append({"file": item.path, "line": item.line, "where": item.where(),
                                 "reason": item.reason})

    def note(self, path: str, text: str) -> None:
        if len(self.notes) < MAX_SKIPS_LISTED:
            self.notes.append({"file": path, "note": text})

    @property
    def nothing_readable(self) -> bool:
        """True when material was there but none of it could be read."""
        return self.files_failed > 0 and self.files_failed == self.files_read

    def as_dict(self) -> dict[str, Any]:
        return {
            "new_items": self.new_items, "evidence": self.evidence,
            "duplicates": self.duplicates, "redacted": self.redacted,
            "skipped": self.skipped, "skipped_items": self.skips,
            "repeated_ids": {"skipped": self.repeated, "kept": self.id_reused,
                             "items": self.repeats},
            "changed": self.changed, "changed_items": self.changes,
            "retimed": self.retimed, "retimed_items": self.retimes,
            "notes": self.notes,
            "not_yours": self.not_yours,
            "files": self.files, "files_read": self.files_read,
            "files_unchanged": self.files_unchanged, "files_replaced": self.files_replaced,
            "files_failed": self.files_failed, "bytes_read": self.bytes_read,
            "seconds": round(self.seconds, 3),
            "mb_per_s": round(self.bytes_read / 1e6 / self.seconds, 1) if self.seconds else None,
            "by_source": self.by_source,
            "projects": self.placement.as_dict(),
        }


def item_id(source: str, message: Message) -> str:
    return hashlib.sha256(f"{source}\0{message.key or message.ref}".encode(
        "utf-8", "surrogatepass")).hexdigest()[:32]


# rows (entities still "[]"), each with its participants and whether it is a person's
# words; the skips; the number of messages; the number of secrets redacted; the recorded
# folders keyed so far (folder -> (key, exists on this machine)); the lines kept with a
# replaced time
Prepared = tuple[list[tuple[tuple[Any, ...], list[str], bool]], list[Skip], int, int,
                 dict[str, tuple[str, bool]], list[Skip]]

FUTURE_SLACK = timedelta(days=1)   # a time further ahead of the collect's clock is wrong
_LAST_TIME = "last_said_at"        # the file's last good time, kept in its state


def settle_times(messages: Iterable[Message | Skip], path: str, now: str,
                 state: dict[str, Any], retimed: list[Skip]) -> Iterator[Message | Skip]:
    """Messages whose time can be believed; nothing is dropped.

    A time a record gives that is no time (``garbage-time``) or that lies more than a day
    past the collect's clock (``2099-...``: a wrong clock or an edited file) would date the
    evidence wrongly and make a brief read "As of 2099". Such a message is kept with the
    time of the line before it in the same file (``state`` carries that time from chunk to
    chunk and collect to collect), or, at the head of a file, with the file's modification
    time (never past ``now``); the line is appended to ``retimed`` with the reason. A
    message without any time stays without one."""
    limit = (datetime.strptime(now[:19], "%Y-%m-%dT%H:%M:%S").replace(tzinfo=UTC)
             + FUTURE_SLACK).strftime("%Y-%m-%dT%H:%M:%S.999Z")
    for message in messages:
        said_at = message.said_at if type(message) is Message else None
        if not said_at:
            yield message
            continue
        if said_at.startswith(UNREADABLE_TIME):
            why = f"timestamp {said_at[len(UNREADABLE_TIME):]!r} is not a time"
        elif said_at > limit:
            why = f"timestamp {said_at} is more than a day in the future"
        else:
            state[_LAST_TIME] = said_at
            yield message
            continue
        fallback = state.get(_LAST_TIME)
        source = "the time of the line before"
        if not fallback:
            fallback, source = _file_time(path, now), "the file's modification time"
        message.said_at = fallback
        retimed.append(Skip(path, _line_of(message.ref, path),
                            f"{why}; kept with {source} ({fallback})"))
        yield message


def _file_time(path: str, now: str) -> str:
    """The file's modification time in the spool's format, or ``now`` if that is earlier
    (or the file cannot be read)."""
    try:
        mtime = datetime.fromtimestamp(os.stat(path.split("!", 1)[0]).st_mtime, UTC)
    except (OSError, ValueError, OverflowError):
        return now[:23] + "Z"
    return min(mtime.strftime("%Y-%m-%dT%H:%M:%S.") + f"{mtime.microsecond // 1000:03d}Z",
               now[:23] + "Z")


def _line_of(ref: str, path: str) -> int | None:
    """The line number a reference ``path:line[#block]`` names, or None."""
    if ref.startswith(path + ":"):
        number = ref[len(path) + 1:].split("#", 1)[0]
        if number.isdigit():
            return int(number)
    return None


def prepare(source: str, path: str, messages: Iterable[Message | Skip],
            now: str, state: dict[str, Any] | None = None) -> Prepared:
    """Gate, truncate and redact messages into rows: no database, so it runs in a worker.
    ``state``: the file's state, where :func:`settle_times` keeps its last good time."""
    rows: list[tuple[tuple[Any, ...], list[str], bool]] = []
    skips: list[Skip] = []
    retimed: list[Skip] = []
    hits = 0
    fields = _Fields()
    field = fields.redact
    for message in settle_times(messages, path, now, {} if state is None else state,
                                retimed):
        if isinstance(message, Skip):
            skips.append(message)
            continue
        kind, evidence = gate(message)
        raw = message.text
        limit = MAX_BULK_TEXT if kind in ("tool_result", "meta") else MAX_TEXT
        if len(raw) > limit:
            half = limit // 2
            raw = (f"{raw[:half]}\n[... {len(raw) - limit} characters not kept; "
                   f"see {message.ref} ...]\n{raw[-half:]}")
        text, found = redact(raw)
        hits += found
        # every other field too: names, streams, tools and paths repeat, so each distinct
        # value is redacted once per chunk (the item id is made from the raw key first)
        rows.append(((item_id(source, message), source, field(path), fields.ref(message.ref, path),
                      field(message.stream), message.project_key, field(message.author),
                      message.role, message.said_at, text, field(message.tool_name),
                      None if message.is_error is None else int(message.is_error), kind,
                      evidence, "[]", now, field(message.channel)),
                     [field(p) for p in message.participants],
                     kind in ("statement", "message")))
    for item in retimed:      # the reason quotes the record: redacted like the rest
        item.reason = redact(item.reason)[0]
    return (rows, skips, len(rows), hits + sum(fields.found.values()), dict(SEEN_FOLDERS),
            retimed)


class _Fields:
    """Redacts the short fields of a chunk's messages, each distinct value once."""

    def __init__(self) -> None:
        self.seen: dict[str, str] = {}
        self.found: dict[str, int] = {}  # secrets per distinct value, counted once

    def redact(self, value: str | None) -> str | None:
        if not value:
            return value
        out = self.seen.get(value)
        if out is None:
            if len(self.seen) > 4096:
                self.seen.clear()
            out, hits = redact(value)
            self.seen[value] = out
            if hits:
                self.found[value] = hits
        return out

    def ref(self, ref: str, path: str) -> str:
        """A reference is mostly the file's path and a line number: only the rest is read."""
        if ref.startswith(path) and ref[len(path):len(path) + 1] == ":" and \
                self.redact(path) == path:
            return ref if ref[len(path) + 1:].replace("#", "").isdigit() else \
                path + redact(ref[len(path):])[0]
        return self.redact(ref) or ref


class _Writer:
    """Turns messages into rows (gate, redaction, entities) and inserts them."""

    def __init__(self, app: App, report: CollectReport) -> None:
        self.conn = app.db
        self.report = report
        self.entities = EntityFinder(self.conn)
        me = app.config.get("collect", "me", []) or []
        self.me = frozenset(str(m).lower().strip() for m in (
            [me] if isinstance(me, str) else me))
        self.now = utcnow()
        self.pending = 0  # rows written since the last commit
        self.learned: dict[str, dict[str, Any]] = {}  # by source: what its files taught

    def lessons(self, source: str) -> dict[str, Any]:
        """What earlier files of ``source`` taught (see :mod:`dream.sources.base`), kept up
        to date as this collect reads more of them."""
        if source not in self.learned:
            self.learned[source] = watermark.learned(self.conn, source)
        return self.learned[source]

    def rows(self, source: str, path: str, messages: Iterable[Message | Skip],
             counts: dict[str, int], state: dict[str, Any] | None = None
             ) -> list[tuple[Any, ...]]:
        prepared = prepare(source, path, messages, self.now, state)
        return self.finish(prepared, counts)

    def finish(self, prepared: Prepared, counts: dict[str, int]) -> list[tuple[Any, ...]]:
        """Rows of a prepared chunk: entities found here, in collection order (names
        learned from one file are found in the next), skips and counts reported."""
        rows, skips, messages, hits, folders, retimed = prepared
        report = self.report
        placement = report.placement
        placement.learn(folders)
        for item in skips:
            report.skip(item)
        for item in retimed:
            report.retime(item)
        counts["skips"] += len(skips)
        counts["messages"] += messages
        report.redacted += hits
        entities = self.entities
        out = []
        for row, participants, person in rows:
            if row[12] in ("statement", "message"):
                counts[row[12]] = counts.get(row[12], 0) + 1
            if row[5] is not None:
                key = placement.place(row[5])
                if key != row[5]:
                    row = (*row[:5], key, *row[6:])
            if person and participants:
                entities.learn(participants)
            if participants or person:
                found = entities.find(row[9], participants, scan=person)
                if found:
                    row = (*row[:14], json.dumps(found, ensure_ascii=False), *row[15:])
            out.append(row)
        return out

    def commit(self) -> None:
        """Commit the chunks written so far, with their full-text index and new names."""
        conn = self.conn
        if conn.in_transaction:
            try:
                index_new_items(conn)
                self.entities.save()
            except BaseException:
                conn.execute("ROLLBACK")
                raise
            conn.execute("COMMIT")
        self.pending = 0

    def insert(self, rows: list[tuple[Any, ...]]) -> None:
        if not rows:
            return
        if any(row[1] in ONE_MESSAGE_PER_ID for row in rows):
            rows = self.settle_repeated_ids(rows)
        added = self.conn.executemany(_INSERT, rows).rowcount  # excludes trigger rows
        self.report.new_items += added
        self.report.duplicates += len(rows) - added
        if added < len(rows):
            self.note_changed(rows)

    def note_changed(self, rows: list[tuple[Any, ...]]) -> None:
        """Messages read again under an id the spool holds, with other words (a transcript
        edited or rewritten after it was collected): the spool keeps the first words, as
        item ids are stable, and the report says so; they were dropped without a word."""
        texts: dict[str, str] = {}
        for start in range(0, len(rows), 500):
            part = [row[0] for row in rows[start:start + 500]]
            texts.update(self.conn.execute(
                f"SELECT id, text FROM items WHERE id IN ({','.join('?' * len(part))})",
                part).fetchall())
        report = self.report
        for row in rows:
            held = texts.get(row[0])
            if held is not None and held != row[9]:
                texts[row[0]] = row[9]      # one report per id and wording
                report.changed += 1
                if len(report.changes) < MAX_SKIPS_LISTED:
                    report.changes.append({"where": row[3], "id": row[0]})


    def settle_repeated_ids(self, rows: list[tuple[Any, ...]]) -> list[tuple[Any, ...]]:
        """A message whose id another line of the stream already used (the format promises
        one message per id, exports break it). Word for word the same message (text, time,
        role, author): the line is skipped and reported. A different message: it is kept
        under the id its line reference gives (stable, so reading the file again adds
        nothing) and reported, so nothing that differs is lost. The same line read again
        (a replaced file) is neither: it is already collected."""
        def by_ref(row: tuple[Any, ...]) -> str:
            return hashlib.sha256(f"{row[1]}\0{row[3]}".encode(
                "utf-8", "surrogatepass")).hexdigest()[:32]

        ids = {i for row in rows if row[1] in ONE_MESSAGE_PER_ID
               for i in (row[0], by_ref(row))}
        known: dict[str, tuple[Any, ...]] = {}
        listed = sorted(ids)
        for start in range(0, len(listed), 500):
            part = listed[start:start + 500]
            for found in self.conn.execute(
                    "SELECT id, ref, text, said_at, role, author FROM items WHERE id IN "
                    f"({','.join('?' * len(part))})", part):
                known[found[0]] = tuple(found[1:])
        out = []
        for row in rows:
            if row[1] not in ONE_MESSAGE_PER_ID:
                out.append(row)
                continue
            mine = (row[3], row[9], row[8], row[7], row[6])
            first = known.get(row[0])
            if first is None or first[0] == row[3]:
                known.setdefault(row[0], mine)
                out.append(row)
            elif first[1:] == mine[1:]:
                self.report.repeat(row[3], first[0], kept=False)
            else:
                own = by_ref(row)
                if own not in known:          # not this very line collected before
                    self.report.repeat(row[3], first[0], kept=True)
                    known[own] = mine
                out.append((own, *row[1:]))
        return out


_DENIED = "check its permissions"


def _files_from(paths: list[Path], source: str | None, report: CollectReport
                ) -> list[tuple[str | None, Path, bool]]:
    """(kind or None to detect, file, named explicitly) for the given paths; a folder
    inside them that cannot be read is reported and left out."""
    out: list[tuple[str | None, Path, bool]] = []

    def closed(exc: OSError) -> None:
        report.skip(Skip(str(exc.filename), None, "cannot read this folder (permission "
                         f"denied): {_DENIED}" if isinstance(exc, PermissionError) else
                         f"cannot read this folder ({exc.strerror})"))

    for raw in paths:
        path = Path(raw).expanduser()
        try:
            os.stat(path)
        except FileNotFoundError:
            raise BadInput(f"{raw}: no such file or folder", "check the path") from None
        except PermissionError:
            raise BadInput(f"{raw}: cannot be read (permission denied)",
                           f"{_DENIED} and those of its folders") from None
        except OSError as exc:
            raise BadInput(f"{raw}: cannot be read ({exc.strerror})", "check the path") \
                from None
        if path.is_dir():
            seen = 0
            for root, dirs, files in os.walk(path, onerror=closed):
                dirs[:] = sorted(d for d in dirs if d not in _SKIP_DIRS)
                seen += len(files)
                if seen > MAX_FOLDER_FILES:
                    raise BadInput(f"{raw}: holds more than {MAX_FOLDER_FILES:,} files, too many "
                                   "for a folder of transcripts or exports",
                                   "name the folder that holds them, or the files themselves")
                for name in sorted(files):
                    file = Path(root) / name
                    if not file.is_file():
                        continue    # a pipe, socket or device in a folder: not ours
                    # --source reads a folder's files of that kind, not its README
                    if source is None or of_kind(file, source):
                        out.append((source, file, False))
        else:
            out.append((source, path, True))
    return out


def collect(app: App, paths: list[Path] | None = None, source: str | None = None,
            progress: Progress | None = None, project: str | None = None) -> CollectReport:
    """Read new material from ``paths`` (or the current repository's transcripts).

    ``project`` (a project key) places every project item read, and items already
    collected from the same files, in that project (see ``dream.spool.projects``)."""
    if source is not None:
        source = source.replace("-", "_")
    if source is not None and source not in SOURCE_KINDS:
        raise BadInput(f"unknown source kind '{source}'",
                       f"use one of {', '.join(SOURCE_KINDS)}")
    started = time.perf_counter()
    report = CollectReport()
    here = app.project()
    report.placement = Placement.of(app.db, here if here.in_git else None, project)
    if paths:
        targets = _files_from(list(paths), source, report)
    else:
        targets = [(kind, file, False) for kind, file in
                   discover(app.cwd, [source] if source else None)]
    marks = watermark.load_all(app.db)
    writer = _Writer(app, report)
    todo: list[tuple[str | None, Path, bool, os.stat_result, tuple | None]] = []
    for kind, file, explicit in targets:
        try:
            st = file.stat()
        except OSError as exc:
            report.skip(Skip(str(file), None, f"cannot read ({exc.strerror})"))
            continue
        if stat.S_ISREG(st.st_mode) and not os.access(file, os.R_OK):
            report.files += 1
            report.failed(str(file), None, f"cannot read (permission denied): {_DENIED}")
            continue
        if not stat.S_ISREG(st.st_mode):
            # opening a named pipe waits for a writer: never open one
            if explicit:
                report.files += 1
                report.failed(str(file), None, "not a regular file (a pipe, socket or "
                              "device): copy it to a file and collect that")
            continue
        key = str(file.resolve())
        mark = marks.get(watermark.row_key(key))
        report.files += 1
        if kind is None and explicit and mark:
            # a file named on the command line is looked at (its head only): one read
            # before as another kind, by a wrong --source, is read again as what it is
            found = detect(file.resolve())
            kind = found if found and found != mark[2] else None
        if watermark.unchanged(mark, st) and not (kind and mark and mark[2] != kind):
            report.files_unchanged += 1
            continue
        todo.append((kind, file, explicit, st, mark))
    total = sum(t[3].st_size - (t[4][0] if t[4] and t[4][0] <= t[3].st_size else 0)
                for t in todo)
    workers = _Workers.start(writer, todo, total)
    done = 0
    try:
        for number, (kind, file, explicit, st, mark) in enumerate(todo):
            path = file.resolve()
            if kind is None:
                kind = mark[2] if mark else detect(path)
                if kind is None:
                    if st.st_size == 0 and explicit:
                        # (a session file its agent has only just made): no format to tell
                        report.skip(Skip(str(path), None, "empty file: nothing to read yet"))
                    elif st.st_size == 0:
                        report.files -= 1  # an empty file in a folder: nothing, no error
                    elif explicit:
                        report.failed(str(path), None, "not a format Dream reads "
                                      "(binary or unrecognised; name it with --source)")
                    elif path.suffix.lower() == ".jsonl":
                        # a JSON-lines file in a folder of sessions: say why it was not read
                        report.failed(str(path), 1, "not a chat format Dream reads "
                                      "(name it with --source jsonl to read it)")
                    else:
                        report.files -= 1  # a stray file in a folder: not ours, not an error
                    done += st.st_size
                    continue
            report.files_read += 1
            # popped: a file's watermark (and parser state) is not kept once it is written
            job = workers.jobs.pop(number, None) if workers else None
            events = workers.events(number, job[1]) if workers and job else None
            try:
                if kind in LINE_SOURCES:
                    read = _collect_lines(writer, kind, path, st, report, progress, done,
                                          total, events and (job[0], events))
                    if events:
                        _drain(events)
                else:
                    read = _collect_file(writer, kind, path, st, report)
            except OSError as exc:
                if events:
                    _drain(events)
                report.skip(Skip(str(path), None, f"cannot read ({exc.strerror or exc})"))
                report.files_failed += 1
                continue
            report.by_source[kind] = report.by_source.get(kind, 0) + read["new"]
            if kind in _SENDER_SOURCES and read.get("message") and not read.get("statement") \
                    and len(report.not_yours) < MAX_SKIPS_LISTED:
                report.not_yours.append(str(path))
            if read["messages"] == 0 and (read["skips"] > 0 or read["failed"]):
                report.files_failed += 1
            done += max(0, st.st_size - (mark[0] if mark and mark[0] <= st.st_size else 0))
            if progress:
                progress(done, total, str(path))
    except BaseException:
        if workers:
            workers.stop(abort=True)
        writer.commit()  # the chunks written completely (each with its watermark)
        raise
    if workers:
        workers.stop()
    writer.commit()
    if writer.entities.new:
        app.db.execute("BEGIN IMMEDIATE")
        writer.entities.save()
        app.db.execute("COMMIT")
    _place_collected(app, report, targets)
    if report.new_items:
        report.evidence = app.db.execute(
            "SELECT count(*) FROM items WHERE collected_at=? AND evidence=1",
            (writer.now,)).fetchone()[0]
    report.seconds = time.perf_counter() - started
    return report


def _place_collected(app: App, report: CollectReport,
                     targets: list[tuple[str | None, Path, bool]]) -> None:
    """Record where each folder's items went; with --project, re-key items collected
    earlier from the same files (collecting them again adds nothing new)."""
    placement = report.placement
    if placement.folders:
        app.db.execute("BEGIN IMMEDIATE")
        placement.record(app.db)
        app.db.execute("COMMIT")
    if placement.forced and targets:
        from dream.spool.projects import move

        files = [str(file.resolve()) for _kind, file, _explicit in targets]
        for start in range(0, len(files), 500):
            placement.moved += move(app.db, placement.forced,
                                    source_paths=files[start:start + 500])


def _transaction(writer: _Writer, rows: list[tuple[Any, ...]],
                 mark: watermark.FileMark | None, path: Path) -> int:
    """Insert one chunk's rows together with the file's advanced watermark.

    Chunks are grouped: each is a savepoint of a transaction committed (with the full-text
    index and new entity names brought up to date) every ``ROWS_PER_COMMIT`` rows and at the
    end, so a chunk's items and its watermark are always committed together or not at all.
    """
    conn = writer.conn
    before = writer.report.new_items
    if not conn.in_transaction:
        conn.execute("BEGIN IMMEDIATE")
    conn.execute("SAVEPOINT chunk")
    try:
        writer.insert(rows)
        if mark is not None:
            watermark.save(conn, mark, path)
        conn.execute("RELEASE chunk")
    except BaseException:
        conn.execute("ROLLBACK TO chunk")
        conn.execute("RELEASE chunk")
        writer.report.new_items = before
        raise
    writer.pending += len(rows)
    if writer.pending >= ROWS_PER_COMMIT:
        writer.commit()
    return writer.report.new_items - before


Event = tuple[Any, ...]  # what reading a line file yields, chunk by chunk (below)


def _read_chunks(kind: str, path: Path, offset: int, lines_done: int, state: dict[str, Any],
                 me: frozenset[str], size: int, now: str) -> Iterator[Event]:
    """Parse, gate and redact a line file from ``offset`` (no database: runs in a worker).

    Yields ``("binary",)`` for a file that is not text, else one ``("chunk", bytes, lines,
    at_end, prepared, state)`` per chunk of complete lines; a partial last line (a file
    being written) is not consumed. ``state`` is the parser's state after the chunk.
    """
    parser = get(kind)
    ctx = FileContext(path, state, me)
    source_path = str(path)
    line_max = _line_max()
    with open(path, "rb") as handle:
        # after a final line that had no newline (see below), the newline that a
        # growing file appends next ends that line: it is no line of its own
        ends_line = offset > 0 and _byte_before(handle, offset) != b"\n"
        handle.seek(offset)
        pending = b""
        first = offset == 0
        while True:
            chunk = handle.read(CHUNK_BYTES)
            if not chunk:
                break
            if first:
                first = False
                if looks_binary(chunk[:8192]):
                    yield ("binary",)
                    return
            buf = pending + chunk if pending else chunk
            cut = buf.rfind(b"\n")
            if cut < 0:
                if len(buf) <= line_max:
                    pending = buf  # a line longer than the chunk: keep reading
                    continue
                # a line beyond any sane size: skip to its end without holding it, count it
                rest = _skip_line(handle)
                if rest < 0:
                    return  # the file ends inside the line: it is still being written
                lines_done += 1
                pending = b""
                prepared = prepare(kind, source_path, iter([ctx.skip(
                    lines_done, f"line longer than {line_max:,} bytes")]), now)
                yield ("chunk", len(buf) + rest, 1, handle.tell() >= size, prepared,
                       ctx.state)
                continue
            complete, pending = buf[: cut + 1], buf[cut + 1:]
            skip = 1 if ends_line and complete.startswith(b"\n") else 0
            ends_line = False
            lines = complete[skip:].split(b"\n")
            lines.pop()  # empty after the final newline
            yield _chunk(kind, source_path, parser, ctx, lines, lines_done, now,
                         len(complete), not pending and handle.tell() >= size, line_max)
            lines_done += len(lines)
        if pending and handle.tell() >= size and _complete_object(pending):
            # a finished file whose last line has no newline (Entire CLI checkpoints end
            # so): a whole JSON object cannot be half-written, so it is read now
            yield _chunk(kind, source_path, parser, ctx, [pending], lines_done, now,
                         len(pending), True, line_max)


def _chunk(kind: str, source_path: str, parser: Any, ctx: FileContext, lines: list[bytes],
           lines_done: int, now: str, size: int, at_end: bool, line_max: int) -> Event:
    """One chunk of complete lines, parsed; a line above ``line_max`` is a counted skip."""
    numbered = [(lines_done + i, line) for i, line in enumerate(lines, 1) if line.strip()]
    too_long = [ctx.skip(n, f"line longer than {line_max:,} bytes")
                for n, line in numbered if len(line) > line_max]
    if too_long:
        numbered = [(n, line) for n, line in numbered if len(line) <= line_max]
    prepared = prepare(kind, source_path,
                       chain(parse_guarded(parser, iter(numbered), ctx), too_long), now,
                       ctx.state)
    return ("chunk", size, len(lines), at_end, prepared, ctx.state)


def _byte_before(handle: Any, offset: int) -> bytes:
    handle.seek(offset - 1)
    return handle.read(1)


def _complete_object(line: bytes) -> bool:
    """True when ``line`` is one whole JSON object (a truncated object never parses)."""
    text = line.strip()
    if not (text.startswith(b"{") and text.endswith(b"}")):
        return False
    try:
        return isinstance(parse_json(text), dict)
    except ValueError:
        return False


def _line_max() -> int:
    """LINE_MAX, or DREAM_COLLECT_LINE_MAX (bytes) for tests that vary the size."""
    try:
        return max(1, int(os.environ.get("DREAM_COLLECT_LINE_MAX", LINE_MAX)))
    except ValueError:
        return LINE_MAX


def _skip_line(handle: Any) -> int:
    """Read past the rest of the current line; the bytes consumed including its newline,
    or -1 when the file ends first (the line is not complete yet)."""
    consumed = 0
    while True:
        block = handle.read(CHUNK_BYTES)
        if not block:
            return -1
        cut = block.find(b"\n")
        if cut >= 0:
            handle.seek(cut + 1 - len(block), os.SEEK_CUR)
            return consumed + cut + 1
        consumed += len(block)


def _collect_lines(writer: _Writer, kind: str, path: Path, st: os.stat_result,
                   report: CollectReport, progress: Progress | None, done: int,
                   total: int, job: tuple[watermark.FileMark, Iterator[Event]] | None = None
                   ) -> dict[str, int]:
    """Write a line file's chunks, each with its advanced watermark in one transaction.

    ``job``: the file's watermark and the events of a worker already reading it; without
    one the file is read here."""
    if job is None:
        mark = _line_mark(writer, kind, path, st, report)
        events: Iterator[Event] = _read_chunks(kind, path, mark.size, mark.lines, mark.state,
                                               writer.me, st.st_size, writer.now)
    else:
        mark, events = job
    counts = {"messages": 0, "skips": 0, "new": 0, "failed": 0}
    for event in events:
        if event[0] == "binary":
            report.skip(Skip(str(path), None, "binary file"))
            counts["failed"] = 1
            return counts
        _, size, lines, at_end, prepared, state = event
        rows = writer.finish(prepared, counts)
        report.bytes_read += size
        mark.size += size
        mark.lines += lines
        mark.state = state
        mark.mtime = st.st_mtime if at_end else 0.0
        counts["new"] += _transaction(writer, rows, mark, path)
        if progress:
            progress(done + mark.size, total, str(path))
    return counts


def _line_mark(writer: _Writer, kind: str, path: Path, st: os.stat_result,
               report: CollectReport) -> watermark.FileMark:
    """The watermark to read a line file from (a fresh one when the file was replaced)."""
    mark = watermark.load(writer.conn, str(path), kind)
    replaced = watermark.replaced(mark, path, st)
    report.files_replaced += replaced
    # a replaced file, or one read before as another kind (a wrong --source), is read again
    # from the start as this kind; item ids are stable, so what was kept then is not doubled
    if replaced or (mark.known and mark.source != kind):
        mark = watermark.FileMark(str(path), kind, known=True)
    mark.source = kind
    return mark


def _die_with_parent(parent: int) -> None:
    """End this worker when the collect that started it ends, however it ends (a SIGKILL
    included): on Linux the kernel sends SIGKILL when the parent dies
    (``PR_SET_PDEATHSIG``); elsewhere a thread watches the parent pid. Either way a parent
    already gone by now ends the worker at once."""
    if sys.platform.startswith("linux"):
        try:
            import ctypes

            libc = ctypes.CDLL(None, use_errno=True)
            libc.prctl(1, signal.SIGKILL, 0, 0, 0)         # PR_SET_PDEATHSIG = 1
        except (OSError, AttributeError):
            pass
    if os.getppid() != parent:
        os._exit(1)

    def watch() -> None:
        while True:
            time.sleep(1.0)
            if os.getppid() != parent:
                os._exit(1)

    threading.Thread(target=watch, daemon=True, name="dream-parent-watch").start()


def _worker(jobs: list[tuple[int, tuple[Any, ...]]], pipe: Any, parent: int = 0,
            others: tuple[Any, ...] = ()) -> None:
    """A worker process: read its files in order and send each event down its pipe, pickled
    at once (so later parser state cannot leak into it). Sending waits while the pipe (1 MB)
    is full, so a worker is at most about a chunk ahead and memory stays flat. The worker
    dies with its parent, and closes the pipe ends it inherited by fork, so a write to a
    pipe whose reader is gone fails instead of blocking."""
    if parent:
        _die_with_parent(parent)
    for end in others:
        try:
            end.close()
        except OSError:
            pass
    send = pipe.send_bytes
    jobs.reverse()
    while jobs:  # popped: a file's parser state is not kept once it is read
        number, args = jobs.pop()
        try:
            for event in _read_chunks(*args):
                send(pickle.dumps((number, event), pickle.HIGHEST_PROTOCOL))
        except OSError as exc:
            send(pickle.dumps((number, ("oserror", exc.strerror or str(exc)))))
            continue
        except BaseException as exc:  # reported by the main process, which stops
            try:
                payload = pickle.dumps((number, ("error", exc)))
            except Exception:
                payload = pickle.dumps((number, ("error", RuntimeError(
                    "".join(traceback.format_exception(exc))))))
            send(payload)
            return
        send(pickle.dumps((number, ("end",))))


class _Workers:
    """Worker processes reading line files ahead of the writer (the main process).

    Every line file of the collect goes to one worker (round robin); a worker reads its
    files in order and the writer takes their chunks in the collect's order, so entities,
    watermarks and transactions are exactly those of a collect in one process. Marks are
    loaded (and replaced files detected) here, before the workers start.
    """

    def __init__(self) -> None:
        self.jobs: dict[int, tuple[watermark.FileMark, int]] = {}
        self.procs: list[Any] = []
        self.pipes: list[Any] = []

    @classmethod
    def start(cls, writer: _Writer, todo: list[Any], total: int) -> _Workers | None:
        count = _worker_count(total)
        if count == 0:
            return None
        self = cls()
        per_worker: list[list[tuple[int, tuple[Any, ...]]]] = [[] for _ in range(count)]
        seen: set[Path] = set()
        for number, (kind, file, _explicit, st, mark) in enumerate(todo):
            path = file.resolve()
            if kind is None:
                kind = mark[2] if mark else detect(path)
                todo[number] = (kind, file, _explicit, st, mark)
            if kind not in LINE_SOURCES or path in seen:
                continue  # read in the main process (a file named twice: the second time)
            seen.add(path)
            line_mark = _line_mark(writer, kind, path, st, writer.report)
            worker = len(self.jobs) % count
            self.jobs[number] = (line_mark, worker)
            per_worker[worker].append((number, (
                kind, path, line_mark.size, line_mark.lines, line_mark.state, writer.me,
                st.st_size, writer.now)))
        # fork where it is safe and quick (Linux); spawn elsewhere (macOS, Windows)
        context = multiprocessing.get_context(
            "fork" if sys.platform.startswith("linux") else "spawn")
        for jobs in per_worker:
            reader, writer_end = context.Pipe(duplex=False)
            _widen(writer_end)
            inherited = tuple(self.pipes) + (reader,) if context.get_start_method() == \
                "fork" else ()
            proc = context.Process(target=_worker, args=(jobs, writer_end, os.getpid(),
                                                         inherited), daemon=True)
            proc.start()
            writer_end.close()
            jobs.clear()  # the worker has its copy
            self.pipes.append(reader)
            self.procs.append(proc)
        return self

    def events(self, number: int, worker: int) -> Iterator[Event]:
        pipe, proc = self.pipes[worker], self.procs[worker]
        while True:
            if not pipe.poll(1.0):
                if not proc.is_alive() and not pipe.poll(0):
                    raise RuntimeError(f"collect worker stopped (exit code {proc.exitcode})")
                continue
            try:
                payload = pipe.recv_bytes()
            except EOFError:
                raise RuntimeError(
                    f"collect worker stopped (exit code {proc.exitcode})") from None
            got, event = pickle.loads(payload)
            if got != number:
                raise RuntimeError(f"collect worker out of step ({got} != {number})")
            if event[0] == "end":
                return
            if event[0] == "oserror":
                raise OSError(event[1])
            if event[0] == "error":
                raise event[1]
            yield event

    def stop(self, abort: bool = False) -> None:
        """Wait for the workers (done by now), or end them when the collect failed."""
        for proc in self.procs:
            if proc.is_alive() and not abort:
                proc.join(timeout=5)
            if proc.is_alive():
                proc.terminate()
            proc.join()
        for pipe in self.pipes:
            pipe.close()


def _widen(pipe: Any) -> None:
    """Let a worker run up to a megabyte ahead of the writer (Linux; else 64 KB)."""
    try:
        import fcntl
        fcntl.fcntl(pipe.fileno(), getattr(fcntl, "F_SETPIPE_SZ", 1031), 1 << 20)
    except (ImportError, OSError):
        pass


def _drain(events: Iterator[Event]) -> None:
    """Consume what a worker still has for a file the writer stopped reading early."""
    try:
        for _ in events:
            pass
    except OSError:
        pass


def _worker_count(total: int) -> int:
    setting = os.environ.get("DREAM_COLLECT_WORKERS", "").strip()
    if setting:
        try:
            return max(0, int(setting))
        except ValueError:
            pass
    if total < PARALLEL_MIN_BYTES:
        return 0
    try:
        cpus = len(os.sched_getaffinity(0))
    except AttributeError:
        cpus = os.cpu_count() or 1
    # with two CPUs two workers: the writer waits on the disk part of the time
    return 0 if cpus < 2 else min(cpus, MAX_WORKERS)


def _collect_file(writer: _Writer, kind: str, path: Path, st: os.stat_result,
                  report: CollectReport) -> dict[str, int]:
    mark = watermark.load(writer.conn, str(path), kind)
    mark.source = kind
    counts = {"messages": 0, "skips": 0, "new": 0, "failed": 0}
    with open(path, "rb") as handle:
        head = handle.read(8192)
    if kind != "slack" and looks_binary(head):
        report.skip(Skip(str(path), None, "binary file"))
        counts["failed"] = 1
        return counts
    lessons = writer.lessons(kind)
    ctx = FileContext(path, {}, writer.me, dict(lessons))
    messages = get(kind).parse_file(path, ctx)
    rows = writer.rows(kind, str(path), islice(messages, ROWS_PER_TRANSACTION), counts,
                       ctx.state)
    while True:
        batch = writer.rows(kind, str(path), islice(messages, ROWS_PER_TRANSACTION), counts,
                            ctx.state)
        if not batch:
            break
        counts["new"] += _transaction(writer, rows, None, path)
        rows = batch
    mark.size, mark.mtime, mark.lines = st.st_size, st.st_mtime, 0
    taught = ctx.state.get("learned")
    if isinstance(taught, dict) and taught:
        mark.state = {**mark.state, "learned": taught}
        lessons.update(taught)
    counts["new"] += _transaction(writer, rows, mark, path)
    if ctx.state.get("note"):  # a guess the source had to make, once per file
        report.note(str(path), ctx.state["note"])
    report.bytes_read += st.st_size
    return counts
