"""What every source yields: messages, and the lines it had to skip.

A source module turns one file into a stream of :class:`Message` (one per thing said: a
user's words, another person's message, an assistant reply, a tool call or a tool result)
and :class:`Skip` (a line or member it could not read, with the reason). It never raises
for bad content: bad content is a Skip and reading goes on.

Two shapes of source:

* **line sources** (``claude_code``, ``pi``, ``codex``, ``jsonl``) implement
  ``parse_lines(lines, ctx)``: they receive complete lines with their 1-based numbers, so
  the collector can resume a grown file after the last whole line it consumed;
* **file sources** (``mbox``, ``slack``, ``textchat``) implement ``parse_file(path, ctx)``
  and are re-read whole when the file changes (stable ids keep that free of duplicates).

``ctx.state`` is a small JSON-able dict persisted per file between collects (session id,
working directory, open tool calls), so a resumed read knows what the head of the file said.
A file source may also learn something that holds for other files of the same source (a
text chat's date order, for that chat's later exports): it reads what earlier files
taught in ``ctx.learned`` and puts what this file teaches in ``ctx.state["learned"]``; the
collector keeps it with the file's watermark and hands it to the files read after it.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, Protocol

import orjson

from dream.jsontext import loads
from dream.store.project import folder_name, identify, key_slug

ROLES = ("user", "assistant", "tool", "other", "system")
SOURCE_KINDS = ("claude_code", "pi", "codex", "jsonl", "mbox", "slack", "textchat")
LINE_SOURCES = ("claude_code", "pi", "codex", "jsonl")


@dataclass(slots=True)
class Message:
    stream: str                 # session, thread or channel id
    ref: str                    # exact reference back: 'path:line' (+ '#block') or a message id
    role: str                   # user | assistant | tool | other | system
    text: str
    said_at: str | None = None  # ISO 8601 UTC
    author: str | None = None
    tool_name: str | None = None
    is_error: bool | None = None
    key: str | None = None      # the source's own message id, when it has one (stable id)
    meta: bool = False          # injected or generated (system reminders, summaries): never evidence
    project_key: str | None = None
    participants: list[str] = field(default_factory=list)  # names/addresses for entities
    channel: str | None = None  # free label: sms, email, slack, whatsapp...


@dataclass(slots=True)
class Skip:
    path: str
    line: int | None
    reason: str

    def where(self) -> str:
        return f"{self.path}:{self.line}" if self.line else self.path


@dataclass
class FileContext:
    path: Path
    state: dict[str, Any]
    me: frozenset[str] = frozenset()  # the person's own names and addresses, lower case
    learned: dict[str, Any] = field(default_factory=dict)  # taught by earlier files (read only)

    def ref(self, line: int, block: int = 0) -> str:
        return f"{self.path}:{line}" + (f"#{block}" if block else "")

    def skip(self, line: int | None, reason: str) -> Skip:
        return Skip(str(self.path), line, reason)


class LineSource(Protocol):
    def parse_lines(self, lines: Iterable[tuple[int, bytes]],
                    ctx: FileContext) -> Iterator[Message | Skip]: ...


class FileSource(Protocol):
    def parse_file(self, path: Path, ctx: FileContext) -> Iterator[Message | Skip]: ...


# what a record of the wrong shape raises in a parser (a number where a folder was, a list
# where an object was): the record is a counted skip and the lines after it are read
_SHAPE_ERRORS = (TypeError, ValueError, AttributeError, KeyError, IndexError)


def parse_guarded(parser: LineSource, lines: Iterable[tuple[int, bytes]],
                  ctx: FileContext) -> Iterator[Message | Skip]:
    """``parser.parse_lines`` that survives a record it cannot handle: the line is a skip
    naming the error, and parsing goes on from the next line with the same file state."""
    last: list[int | None] = [None]

    def fed() -> Iterator[tuple[int, bytes]]:
        for number, raw in lines:
            last[0] = number
            yield number, raw

    remaining = fed()
    failed_at: int | None = None
    while True:
        try:
            for got in parser.parse_lines(remaining, ctx):
                wrong = _wrong_field(got) if type(got) is Message else None
                yield got if wrong is None else \
                    ctx.skip(last[0], f"record of an unexpected shape ({wrong})")
            return
        except _SHAPE_ERRORS as exc:
            if last[0] is None or last[0] == failed_at:
                raise           # no line to blame: the parser itself is broken
            failed_at = last[0]
            reason = " ".join(f"{type(exc).__name__}: {exc}".split())[:160]
            yield ctx.skip(last[0], f"record of an unexpected shape ({reason})")


_TEXT_FIELDS = ("stream", "ref", "role", "text")
_OPTIONAL_TEXT_FIELDS = ("said_at", "author", "tool_name", "key", "project_key", "channel")


def _wrong_field(message: Message) -> str | None:
    """The first field of a parsed message that a source record filled with the wrong
    type (a session id that is an object), or None."""
    for name in _TEXT_FIELDS:
        if type(getattr(message, name)) is not str:
            return f"{name} is a {type(getattr(message, name)).__name__}, not text"
    for name in _OPTIONAL_TEXT_FIELDS:
        value = getattr(message, name)
        if value is not None and type(value) is not str:
            return f"{name} is a {type(value).__name__}, not text"
    if any(type(p) is not str for p in message.participants):
        return "a participant is not text"
    return None


MAX_DEPTH = 1000     # JSON nested deeper is refused before any parser sees it
_JSON_STRING_RE = re.compile(rb'"(?:[^"\\]|\\.)*"')
_BRACKET_RE = re.compile(rb"[\[\]{}]")


def too_deep(raw: bytes) -> bool:
    """True when ``raw`` nests arrays and objects deeper than MAX_DEPTH. Parsers recurse
    (the standard one raises RecursionError; orjson can crash the process), so depth is
    measured first: a count of opening brackets bounds it (the common case costs two
    ``bytes.count``), and only a line with more than MAX_DEPTH of them is scanned, with
    its strings blanked out."""
    if raw.count(b"[") + raw.count(b"{") <= MAX_DEPTH:
        return False
    depth = 0
    for match in _BRACKET_RE.finditer(_JSON_STRING_RE.sub(b'""', raw)):
        if match.group() in (b"[", b"{"):
            depth += 1
            if depth > MAX_DEPTH:
                return True
        else:
            depth -= 1
    return False


def parse_json(raw: bytes | str) -> Any:
    """Parse one JSON text: orjson (about three times faster on transcripts), falling back to
    the standard parser for the few texts only it accepts (integers beyond 64 bits, NaN),
    so no readable line is lost. Bytes that are not valid UTF-8 are decoded with
    replacement characters (the line is kept, its bad bytes become U+FFFD). Raises
    ValueError when neither parser can read it, nesting of any depth included (orjson stops
    at 1,024 levels; the standard parser's recursion error becomes a ValueError)."""
    if too_deep(raw.encode("utf-8", "replace") if isinstance(raw, str) else raw):
        raise ValueError(f"JSON nested too deeply (more than {MAX_DEPTH} levels)")
    try:
        return orjson.loads(raw)
    except orjson.JSONDecodeError as exc:
        if "recursion" in str(exc):
            raise ValueError("JSON nested too deeply") from None
        if isinstance(raw, bytes):
            try:
                raw.decode("utf-8")
            except UnicodeDecodeError:
                return parse_json(raw.decode("utf-8", "replace"))
    try:
        return loads(raw)          # orjson refuses a lone surrogate; this keeps the line
    except RecursionError:
        raise ValueError("JSON nested too deeply") from None


def json_objects(lines: Iterable[tuple[int, bytes]],
                 ctx: FileContext) -> Iterator[tuple[int, dict[str, Any]] | Skip]:
    """Each line parsed as a JSON object, or a Skip saying why it could not be."""
    for number, raw in lines:
        try:
            record = parse_json(raw)
        except ValueError as exc:
            reason = "JSON nested too deeply" if "nested" in str(exc) else \
                "invalid JSON (truncated or corrupt line)"
            yield ctx.skip(number, reason)
            continue
        if not isinstance(record, dict):
            yield ctx.skip(number, "not a JSON object")
            continue
        yield number, record


# -- small shared helpers ----------------------------------------------------------------

def iso_utc(value: Any) -> str | None:
    """Normalise a timestamp (ISO string, epoch seconds or milliseconds) to ISO 8601 UTC."""
    if value is None or value == "":
        return None
    try:
        if isinstance(value, (int, float)):
            seconds = value / 1000 if value > 1e11 else value
            dt = datetime.fromtimestamp(seconds, UTC)
        else:
            text = str(value).strip()
            if text.endswith("Z") and len(text) >= 20 and text[10] == "T" and \
                    text[19] in ".Z":
                # the common case, already UTC: keep it cheap (always milliseconds)
                frac = text[20:-1] if text[19] == "." else ""
                if frac.isdigit() or not frac:
                    return f"{text[:19]}.{(frac + '000')[:3]}Z"
            dt = datetime.fromisoformat(text)
            if dt.tzinfo is None:
                dt = dt.replace(tzinfo=UTC)
            dt = dt.astimezone(UTC)
    except (ValueError, OverflowError, OSError):
        return None
    return dt.strftime("%Y-%m-%dT%H:%M:%S") + f".{dt.microsecond // 1000:03d}Z"


# what :func:`said_at_of` returns for a time a record gives that is no time: collect keeps
# the message with a neighbour's time and reports the line (dream.spool.collect.settle_times)
UNREADABLE_TIME = "unreadable time: "


def said_at_of(value: Any) -> str | None:
    """``iso_utc(value)``, except that a value given but unreadable as a time ('garbage-time')
    comes back as ``UNREADABLE_TIME`` and the value, so collect can keep the message with a
    neighbour's time and say which line had it; a record without a time gives None."""
    said_at = iso_utc(value)
    if said_at is None and value is not None and str(value).strip():
        return UNREADABLE_TIME + " ".join(str(value).split())[:60]
    return said_at


_PROJECT_CACHE: dict[str, str] = {}
# every recorded folder this process has keyed: folder -> (key, exists on this machine,
# the git remote the transcript recorded for it, normalised, or None); collect reads it to
# record where items came from and to place folders missing on this machine
SEEN_FOLDERS: dict[str, tuple[str, bool, str | None]] = {}
def project_key_for(cwd: str | None, remote: str | None = None) -> str | None:
    """The project key of a recorded working directory (``remote``: the git remote the
    transcript recorded for it, when it did, as :func:`normal_remote` spells it).

    When the folder exists on this machine it is identified like any repository (linked
    worktrees share the key). Otherwise the key is derived from the path string the way
    ``identify`` derives a plain folder's key: ``<key_slug(name)>-<sha256(path)[:8]>``.
    """
    if not cwd:
        return None
    cached = _PROJECT_CACHE.get(cwd)
    if cached is not None:
        if remote is not None and cwd in SEEN_FOLDERS and SEEN_FOLDERS[cwd][2] is None:
            key, exists, _ = SEEN_FOLDERS[cwd]
            SEEN_FOLDERS[cwd] = (key, exists, remote)
        return cached
    path = Path(cwd)
    exists = path.is_dir()
    if exists:
        key = identify(path).key
    else:
        key = f"{key_slug(folder_name(cwd))}-{hashlib.sha256(str(path).encode()).hexdigest()[:8]}"
    _PROJECT_CACHE[cwd] = key
    SEEN_FOLDERS[cwd] = (key, exists, remote)
    return key


def project_of(state: dict[str, Any]) -> str | None:
    """The project key of a file's items from its persisted state: the key its head gave
    (made from the raw folder; the state keeps the folder redacted), re-announced in
    SEEN_FOLDERS when this process has not read that head, so a grown file read again
    is placed like its first part was."""
    key = state.get("project")
    cwd = state.get("cwd")
    if key and cwd and cwd not in SEEN_FOLDERS:
        SEEN_FOLDERS[cwd] = (key, Path(cwd).is_dir(), state.get("remote"))
    return key or project_key_for(cwd, state.get("remote"))


_BINARY_RE = re.compile(rb"[\x00-\x08\x0e-\x1a\x1c-\x1f]")


def looks_binary(head: bytes) -> bool:
    """True for content that is not text: many NUL or control bytes in the first 4 KB.

    A few stray control bytes (one corrupt line in a transcript) do not make a file binary;
    that line is skipped on its own.
    """
    sample = head[:4096]
    if not sample:
        return False
    bad = sample.count(b"\x00") + len(_BINARY_RE.findall(sample))
    return bad > max(4, len(sample) // 100)


def content_blocks(content: Any) -> Iterator[tuple[int, dict[str, Any]]]:
    """The blocks of a message's content with their index: a list of blocks, or a bare
    string taken as one text block; anything that is not a block is passed over."""
    for index, block in enumerate(content if isinstance(content, list) else [content]):
        if isinstance(block, str):
            block = {"type": "text", "text": block}
        if isinstance(block, dict):
            yield index, block


def text_of(content: Any) -> str:
    """Text of a string or a list of content blocks ({type: text, text}) as agents write."""
    if content is None:
        return ""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        parts = []
        for block in content:
            if isinstance(block, str):
                parts.append(block)
            elif isinstance(block, dict):
                kind = block.get("type")
                if kind in ("text", "input_text", "output_text") and isinstance(
                        block.get("text"), str):
                    parts.append(block["text"])
                elif kind in ("image", "input_image"):
                    parts.append("[image]")
        return "\n".join(p for p in parts if p)
    if isinstance(content, dict):
        return text_of([content])
    return str(content)
