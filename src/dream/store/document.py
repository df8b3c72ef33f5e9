"""Documents: UTF-8 Markdown with optional YAML front matter.

    ---
    status: live
    created: 2026-11-30T12:00:00Z
    ---
    # Title

    Body text.
"""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass, field
from datetime import date, datetime
from typing import Any

import yaml

from dream.errors import BadInput, NotUtf8
from dream.terminal import CONTROL_RE as _CONTROL_RE

_Loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


class _Dumper(getattr(yaml, "CSafeDumper", yaml.SafeDumper)):  # type: ignore[misc]
    """Writes a value used twice in full, never as an anchor and alias (&id001 / *id001),
    which a read refuses beyond a few (see :func:`_unsafe`)."""

    def ignore_aliases(self, data: Any) -> bool:
        return True


def sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


@dataclass
class Document:
    meta: dict[str, Any] = field(default_factory=dict)
    body: str = ""

    def render(self) -> str:
        body = self.body if self.body.endswith("\n") or not self.body else self.body + "\n"
        if not self.meta:
            return body
        head = _flat_yaml(self.meta)
        if head is None:
            head = yaml.dump(self.meta, Dumper=_Dumper, sort_keys=False, allow_unicode=True,
                             default_flow_style=False)
        return f"---\n{head}---\n{body}"

    def to_bytes(self) -> bytes:
        return self.render().encode("utf-8")


_PLAIN_RE = re.compile(r"^[A-Za-z_][A-Za-z0-9_.-]*$")
_YAML_WORDS = frozenset("true false yes no on off null y n".split())  # noqa: SIM905


def _flat_yaml(meta: dict[str, Any]) -> str | None:
    """Front matter of plain keys and scalar values, written without the YAML emitter
    (which costs more than the rest of a note write); None when a value needs it."""
    lines = []
    for key, value in meta.items():
        if not isinstance(key, str) or not _PLAIN_RE.match(key) or key.lower() in _YAML_WORDS:
            return None
        if isinstance(value, bool):
            lines.append(f"{key}: {'true' if value else 'false'}")
        elif isinstance(value, int) or (isinstance(value, str) and _PLAIN_RE.match(value)
                                        and value.lower() not in _YAML_WORDS):
            lines.append(f"{key}: {value}")
        elif isinstance(value, str) and value.isprintable() and value.strip() == value:
            quoted = value.replace("'", "''")
            lines.append(f"{key}: '{quoted}'")
        else:
            return None
    return "\n".join(lines) + "\n"


# control characters other than tab and line ends: no Markdown holds them, and an escape
# sequence written into a note or a field reached the brief, which 'dream brief' prints to
# a terminal (ESC ] 0 ; ... BEL retitles it, others hide text or write the clipboard)
_CONTROL_NAMES = {"\x1b": "ESC", "\x00": "NUL", "\x07": "BEL", "\x08": "backspace",
                  "\x0c": "form feed", "\x7f": "DEL"}


def control_character(text: str) -> str | None:
    """The first control character in ``text`` described for an error ("ESC (\\x1b) on
    line 2"), or None. Tabs and line ends are text."""
    found = _CONTROL_RE.search(text)
    if found is None:
        return None
    char = found.group(0)
    code = f"\\x{ord(char):02x}"
    name = _CONTROL_NAMES.get(char)
    line = text.count("\n", 0, found.start()) + 1
    return f"{name} ({code}) on line {line}" if name else f"{code} on line {line}"


def decode(data: bytes, where: str) -> str:
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise NotUtf8(
            f"{where} is not UTF-8 (byte {exc.start})",
            "re-save the file as UTF-8, or remove it from the store",
        ) from exc


def _split(text: str) -> tuple[str | None, str]:
    if not text.startswith("---"):
        return None, text
    first_nl = text.find("\n")
    if first_nl < 0 or text[:first_nl].strip() != "---":
        return None, text
    end = text.find("\n---", first_nl)
    while end >= 0:
        after = text.find("\n", end + 1)
        line = text[end + 1: after if after >= 0 else len(text)]
        if line.strip() == "---":
            return text[first_nl + 1: end + 1], text[after + 1:] if after >= 0 else ""
        end = text.find("\n---", end + 1)
    return None, text


# the most a note write takes ('dream notes write', the MCP tool, the web page), and so the
# most of a document the index reads (a bigger file committed by hand is found by its start)
MAX_NOTE_BYTES = 1_000_000
MAX_DEPTH = 32      # front matter holds keys, lists and small tables, never this deep


MAX_ALIASES = 16    # '*name' references; each may stand for a whole anchored list


def _unsafe(head: str) -> str | None:
    """Why front matter cannot be read safely, or None: lists and tables nested deeper
    than MAX_DEPTH ('a: [[[[...' 100,000 deep crashed the process inside the YAML
    library), an alias inside the very list it names (a value that contains itself: an
    internal error wherever it was printed) or more than MAX_ALIASES aliases (a few lines
    of '&a [*b, *b, ...]' stand for billions of values: 'notes show --json' never ended).
    Read from the parser's events (no values are built), and only when the text has
    enough brackets, dashes or aliases for either; it stops at the first problem."""
    if head.count("[") + head.count("{") <= MAX_DEPTH and "*" not in head and \
            " " * (2 * MAX_DEPTH) not in head and "- " * 8 not in head:
        return None         # nothing here can nest that deep or alias (records, notes)
    depth, aliases, open_anchors = 0, 0, []
    try:
        for event in yaml.parse(head, Loader=_Loader):
            if isinstance(event, yaml.CollectionStartEvent):
                depth += 1
                open_anchors.append(event.anchor)
                if depth > MAX_DEPTH:
                    return f"nested deeper than {MAX_DEPTH} levels"
            elif isinstance(event, yaml.CollectionEndEvent):
                depth -= 1
                open_anchors.pop()
            elif isinstance(event, yaml.AliasEvent):
                aliases += 1
                if event.anchor in open_anchors:
                    return f"a value that contains itself (*{event.anchor})"
                if aliases > MAX_ALIASES:
                    return f"more than {MAX_ALIASES} aliases (*name)"
    except yaml.YAMLError as exc:
        # newer libyaml (PyYAML 6.0.4's wheels) refuses 1,000 levels in its scanner, ahead
        # of the parser's events: the same refusal, in the same words
        if "maximum nesting depth" in str(exc):
            return f"nested deeper than {MAX_DEPTH} levels"
        raise
    return None


def parse(text: str, where: str = "document") -> Document:
    """Split front matter and body; malformed YAML is an error naming the document."""
    head, body = _split(text)
    if head is None:
        return Document({}, text)
    try:
        # 'a: [[[[...' nested 100,000 deep crashed the process in the YAML library (a
        # segmentation fault; 5,000 deep, a RecursionError when written back)
        unsafe = _unsafe(head)
        meta = None if unsafe else yaml.load(head, Loader=_Loader) or {}
    except yaml.YAMLError as exc:
        raise BadInput(f"{where} has malformed YAML front matter ({exc.__class__.__name__})",
                       "fix the lines between the two '---' markers") from exc
    except RecursionError:
        unsafe, meta = f"nested deeper than {MAX_DEPTH} levels", None
    if meta is None:
        raise BadInput(f"{where} has YAML front matter Dream will not read: {unsafe}",
                       "fix the lines between the two '---' markers")
    if not isinstance(meta, dict):
        raise BadInput(f"{where} front matter is not a mapping",
                       "front matter holds 'key: value' lines")
    return Document({str(k): _plain(v) for k, v in meta.items()}, body)


def _plain(value: Any) -> Any:
    if isinstance(value, datetime):
        return value.strftime("%Y-%m-%dT%H:%M:%SZ") if value.tzinfo is None else value.isoformat()
    if isinstance(value, date):
        return value.isoformat()
    return value


def quick_meta(text: str) -> tuple[dict[str, str], str]:
    """Front matter as flat ``key: value`` strings without a YAML parser (for indexing
    100,000 documents fast); nested values are ignored. Returns (meta, body)."""
    head, body = _split(text)
    meta: dict[str, str] = {}
    if head:
        for line in head.splitlines():
            if not line or line[0] in " \t#-":
                continue
            key, sep, value = line.partition(":")
            if sep:
                meta[key.strip()] = value.strip().strip("'\"")
    return meta, body


def record_fields(text: str) -> dict[str, str]:
    """The one-line values of a record's fields (``fields: <name>: value: ...``) read from
    its front matter without a YAML parser, plus ``said_at``: the latest of any field.
    Values written over several lines are left out (only short ones are listed by)."""
    end = text.find("\n---\n", 4) if text.startswith("---\n") else -1
    found: dict[str, str] = {}
    inside = False
    current = ""
    for line in text[4:end].split("\n") if end > 0 else []:
        if not line.startswith(" "):
            inside = line.startswith("fields:")
            continue
        if not inside:
            continue
        if line[2:3] != " ":
            current = line.strip().rstrip(":")
        elif line.startswith("    value: ") and current:
            found[current] = _scalar(line[11:])
        elif line.startswith("    said_at: "):
            found["said_at"] = max(found.get("said_at", ""), _scalar(line[13:]))
    return found


def _scalar(raw: str) -> str:
    raw = raw.strip()
    if len(raw) >= 2 and raw[0] == raw[-1] == "'":
        return raw[1:-1].replace("''", "'")
    if len(raw) >= 2 and raw[0] == raw[-1] == '"':
        return raw[1:-1]
    return "" if raw[:1] in ("|", ">") else raw


def note_status(text: str, meta: dict[str, str] | None = None) -> str | None:
    """A note's ``live`` or ``crumpled``: a plain note's front-matter ``status``; a note
    record's (``kind: note``, written by a run) ``status`` field, which is where 'dream
    notes crumple' and 'dream correct' put it (a record has no status on top). None for a
    record of another kind (an event, a to-do: no note). ``meta``: ``quick_meta(text)``
    when the caller has it."""
    meta = quick_meta(text)[0] if meta is None else meta
    if meta.get("kind") and meta.get("key") and "fields" in meta:
        if meta["kind"] != "note":
            return None
        return record_fields(text).get("status") or "live"
    return meta.get("status") or "live"


def title_of(meta: dict[str, Any], body: str, path: str) -> str:
    title = meta.get("title")
    if isinstance(title, str) and title.strip():
        return title.strip()
    for line in body.splitlines()[:40]:
        if line.startswith("# "):
            return line[2:].strip()
    stem = path.rsplit("/", 1)[-1]
    return stem.removesuffix(".md")
