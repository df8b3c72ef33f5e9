"""Collect: read sources into the spool through the gate and redaction, behind the watermark.

``collect(app, paths=None, source=None, progress=None)`` is the one entry point (the CLI,
hooks and the demo call it). With no paths it discovers the current repository's agent
transcripts. No model is called. Each chunk of a file is inserted in one transaction
together with the file's advanced watermark, so an interrupted collect never loses or
duplicates an item: the next one resumes at the last committed chunk, and item ids are
stable (hash of source kind and the source's own message id, or its exact reference), so
``INSERT OR IGNORE`` drops anything already spooled.
"""

from __future__ import annotations

import hashlib
import json
import os
import time
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from dream.app import App
from dream.db import utcnow
from dream.errors import BadInput
from dream.sources import LINE_SOURCES, SOURCE_KINDS, FileContext, Message, Skip, detect, get
from dream.sources.base import looks_binary
from dream.sources.discovery import discover
from dream.spool import watermark
from dream.spool.entities import EntityFinder
from dream.spool.gate import gate
from dream.spool.history import index_new_items
from dream.spool.redact import redact

CHUNK_BYTES = 4 * 1024 * 1024
ROWS_PER_TRANSACTION = 2000
MAX_SKIPS_LISTED = 200
MAX_TEXT = 32_000  # longer texts (pastes, long messages) keep their head and tail
MAX_BULK_TEXT = 8_000  # tool output and injected context: head and tail (errors sit at the end)
_SKIP_DIRS = {".git", "node_modules", "__pycache__", ".venv"}

Progress = Callable[[int, int, str], None]  # (bytes done, bytes total, current file)

_INSERT = (
    "INSERT OR IGNORE INTO items(id, source, source_path, ref, stream, project_key, author,"
    " role, said_at, text, tool_name, is_error, kind, evidence, entities, collected_at,"
    " channel) VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)"
)


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
    bytes_read: int = 0
    seconds: float = 0.0
    by_source: dict[str, int] = field(default_factory=dict)

    def skip(self, item: Skip) -> None:
        self.skipped += 1
        if len(self.skips) < MAX_SKIPS_LISTED:
            self.skips.append({"file": item.path, "line": item.line, "where": item.where(),
                               "reason": item.reason})

    @property
    def nothing_readable(self) -> bool:
        """True when material was there but none of it could be read."""
        return self.files_failed > 0 and self.files_failed == self.files_read

    def as_dict(self) -> dict[str, Any]:
        return {
            "new_items": self.new_items, "evidence": self.evidence,
            "duplicates": self.duplicates, "redacted": self.redacted,
            "skipped": self.skipped, "skipped_items": self.skips,
            "files": self.files, "files_read": self.files_read,
            "files_unchanged": self.files_unchanged, "files_replaced": self.files_replaced,
            "files_failed": self.files_failed, "bytes_read": self.bytes_read,
            "seconds": round(self.seconds, 3),
            "mb_per_s": round(self.bytes_read / 1e6 / self.seconds, 1) if self.seconds else None,
            "by_source": self.by_source,
        }


def item_id(source: str, message: Message) -> str:
    return hashlib.sha256(f"{source}\0{message.key or message.ref}".encode(
        "utf-8", "surrogatepass")).hexdigest()[:32]


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

    def rows(self, source: str, path: str, messages: Iterable[Message | Skip],
             counts: dict[str, int]) -> Iterator[tuple[Any, ...]]:
        report = self.report
        for message in messages:
            if isinstance(message, Skip):
                report.skip(message)
                counts["skips"] += 1
                continue
            counts["messages"] += 1
            kind, evidence = gate(message)
            raw = message.text
            limit = MAX_BULK_TEXT if kind in ("tool_result", "meta") else MAX_TEXT
            if len(raw) > limit:
                half = limit // 2
                raw = (f"{raw[:half]}\n[... {len(raw) - limit} characters not kept; "
                       f"see {message.ref} ...]\n{raw[-half:]}")
            text, hits = redact(raw)
            author = message.author
            if author:
                author, more = redact(author)
                hits += more
            report.redacted += hits
            person = kind in ("statement", "message")
            if person and message.participants:
                self.entities.learn(message.participants)
            entities = self.entities.find(text, message.participants, scan=person)
            yield (item_id(source, message), source, path, message.ref, message.stream,
                   message.project_key, author, message.role, message.said_at, text,
                   message.tool_name,
                   None if message.is_error is None else int(message.is_error), kind,
                   evidence, json.dumps(entities, ensure_ascii=False) if entities else "[]",
                   self.now, message.channel)

    def insert(self, rows: list[tuple[Any, ...]]) -> None:
        if not rows:
            return
        added = self.conn.executemany(_INSERT, rows).rowcount  # excludes trigger rows
        self.report.new_items += added
        self.report.duplicates += len(rows) - added


def _files_from(paths: list[Path], source: str | None) -> list[tuple[str | None, Path, bool]]:
    """(kind or None to detect, file, named explicitly) for the given paths."""
    out: list[tuple[str | None, Path, bool]] = []
    for raw in paths:
        path = Path(raw).expanduser()
        if not path.exists():
            raise BadInput(f"{raw}: no such file or folder", "check the path")
        if path.is_dir():
            for root, dirs, files in os.walk(path):
                dirs[:] = sorted(d for d in dirs if d not in _SKIP_DIRS)
                for name in sorted(files):
                    out.append((source, Path(root) / name, False))
        else:
            out.append((source, path, True))
    return out


def collect(app: App, paths: list[Path] | None = None, source: str | None = None,
            progress: Progress | None = None) -> CollectReport:
    """Read new material from ``paths`` (or the current repository's transcripts)."""
    if source is not None and source not in SOURCE_KINDS:
        raise BadInput(f"unknown source kind '{source}'",
                       f"use one of {', '.join(SOURCE_KINDS)}")
    started = time.perf_counter()
    report = CollectReport()
    if paths:
        targets = _files_from(list(paths), source)
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
        key = str(file.resolve())
        mark = marks.get(key)
        report.files += 1
        if watermark.unchanged(mark, st):
            report.files_unchanged += 1
            continue
        todo.append((kind, file, explicit, st, mark))
    total = sum(t[3].st_size - (t[4][0] if t[4] and t[4][0] <= t[3].st_size else 0)
                for t in todo)
    done = 0
    for kind, file, explicit, st, mark in todo:
        path = file.resolve()
        if kind is None:
            kind = mark[2] if mark else detect(path)
            if kind is None:
                if explicit:
                    report.files_read += 1
                    report.files_failed += 1
                    report.skip(Skip(str(path), None, "not a format Dream reads "
                                     "(binary or unrecognised; name it with --source)"))
                else:
                    report.files -= 1  # a stray file in a folder: not ours, not an error
                done += st.st_size
                continue
        report.files_read += 1
        try:
            if kind in LINE_SOURCES:
                read = _collect_lines(writer, kind, path, st, report, progress, done, total)
            else:
                read = _collect_file(writer, kind, path, st, report)
        except OSError as exc:
            report.skip(Skip(str(path), None, f"cannot read ({exc.strerror or exc})"))
            report.files_failed += 1
            continue
        report.by_source[kind] = report.by_source.get(kind, 0) + read["new"]
        if read["messages"] == 0 and (read["skips"] > 0 or read["failed"]):
            report.files_failed += 1
        done += max(0, st.st_size - (mark[0] if mark and mark[0] <= st.st_size else 0))
        if progress:
            progress(done, total, str(path))
    if writer.entities.new:
        app.db.execute("BEGIN IMMEDIATE")
        writer.entities.save()
        app.db.execute("COMMIT")
    if report.new_items:
        report.evidence = app.db.execute(
            "SELECT count(*) FROM items WHERE collected_at=? AND evidence=1",
            (writer.now,)).fetchone()[0]
    report.seconds = time.perf_counter() - started
    return report


def _transaction(writer: _Writer, rows: list[tuple[Any, ...]],
                 mark: watermark.FileMark | None, path: Path) -> int:
    conn = writer.conn
    before = writer.report.new_items
    conn.execute("BEGIN IMMEDIATE")
    try:
        writer.insert(rows)
        index_new_items(conn)
        writer.entities.save()
        if mark is not None:
            watermark.save(conn, mark, path)
        conn.execute("COMMIT")
    except BaseException:
        conn.execute("ROLLBACK")
        writer.report.new_items = before
        raise
    return writer.report.new_items - before


def _collect_lines(writer: _Writer, kind: str, path: Path, st: os.stat_result,
                   report: CollectReport, progress: Progress | None, done: int,
                   total: int) -> dict[str, int]:
    mark = watermark.load(writer.conn, str(path), kind)
    if watermark.replaced(mark, path, st):
        report.files_replaced += 1
        mark = watermark.FileMark(str(path), kind, known=True)
    mark.source = kind
    counts = {"messages": 0, "skips": 0, "new": 0, "failed": 0}
    parser = get(kind)
    ctx = FileContext(path, mark.state, writer.me)
    with open(path, "rb") as handle:
        handle.seek(mark.size)
        pending = b""
        first = mark.size == 0
        while True:
            chunk = handle.read(CHUNK_BYTES)
            if not chunk:
                break
            if first:
                first = False
                if looks_binary(chunk[:8192]):
                    report.skip(Skip(str(path), None, "binary file"))
                    counts["failed"] = 1
                    return counts
            buf = pending + chunk if pending else chunk
            cut = buf.rfind(b"\n")
            if cut < 0:
                pending = buf  # a line longer than the chunk: keep reading
                continue
            complete, pending = buf[: cut + 1], buf[cut + 1:]
            lines = complete.split(b"\n")
            lines.pop()  # empty after the final newline
            start = mark.lines
            numbered = ((start + i, line) for i, line in enumerate(lines, 1) if line.strip())
            rows = list(writer.rows(kind, str(path), parser.parse_lines(numbered, ctx), counts))
            report.bytes_read += len(complete)
            mark.size += len(complete)
            mark.lines += len(lines)
            mark.mtime = st.st_mtime if not pending and handle.tell() >= st.st_size else 0.0
            counts["new"] += _transaction(writer, rows, mark, path)
            if progress:
                progress(done + mark.size, total, str(path))
    if pending:
        # a partial last line: the file is being written; it is read once it ends.
        mark.mtime = 0.0
    return counts


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
    ctx = FileContext(path, {}, writer.me)
    rows: list[tuple[Any, ...]] = []
    for row in writer.rows(kind, str(path), get(kind).parse_file(path, ctx), counts):
        rows.append(row)
        if len(rows) >= ROWS_PER_TRANSACTION:
            counts["new"] += _transaction(writer, rows, None, path)
            rows = []
    mark.size, mark.mtime, mark.lines = st.st_size, st.st_mtime, 0
    counts["new"] += _transaction(writer, rows, mark, path)
    report.bytes_read += st.st_size
    return counts
