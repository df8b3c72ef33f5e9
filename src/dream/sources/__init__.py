"""Sources: one module per format, each turning a file into messages (see ``base``).

``detect(path)`` names the source kind of a file from its name and first bytes, so
``dream collect PATH`` works without ``--source``.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from dream.sources import claude_code, codex, jsonl, mbox, pi, slack, textchat
from dream.sources.base import (
    LINE_SOURCES,
    SOURCE_KINDS,
    FileContext,
    Message,
    Skip,
    looks_binary,
    parse_json,
)

FIRST_LINE_MAX = 64 << 20   # a first line is read up to 64 MB to tell the format

SOURCES: dict[str, Any] = {
    "claude_code": claude_code.source,
    "pi": pi.source,
    "codex": codex.source,
    "jsonl": jsonl.source,
    "mbox": mbox.source,
    "slack": slack.source,
    "textchat": textchat.source,
}

__all__ = [
    "LINE_SOURCES",
    "SOURCES",
    "SOURCE_KINDS",
    "FileContext",
    "Message",
    "Skip",
    "detect",
    "get",
    "of_kind",
]

_CHAT_LINE = re.compile(r"^\u200e?\[?(\d{1,2}[/.]\d{1,2}[/.]\d{2,4},? \d{1,2}:\d{2}|"
                        r"\d{4}-\d{2}-\d{2}[ T]\d{1,2}:\d{2})")


def get(kind: str) -> Any:
    return SOURCES[kind]


def _kind_of_record(record: dict[str, Any]) -> str | None:
    if "payload" in record and record.get("type") in (
            "session_meta", "response_item", "event_msg", "turn_context", "compacted"):
        return "codex"
    if "sessionId" in record or record.get("type") in (
            "file-history-snapshot", "queue-operation", "summary", "progress"):
        return "claude_code"
    if record.get("type") == "session" and ("cwd" in record or "version" in record):
        return "pi"
    if record.get("type") in ("message", "model_change", "thinking_level_change",
                              "compaction") and ("message" in record or "parentId" in record
                                                 or "timestamp" in record):
        return "pi"
    if isinstance(record.get("text"), str):
        return "jsonl"
    return None


# the file names each kind is saved under (a file of another name can still be one)
SUFFIXES = {"claude_code": (".jsonl",), "pi": (".jsonl",), "codex": (".jsonl",),
            "jsonl": (".jsonl",), "mbox": (".mbox",), "slack": (".zip",),
            "textchat": (".txt",)}


def of_kind(path: Path, kind: str) -> bool:
    """Whether a file found in a folder is one to read as ``kind`` (``--source``): named
    as that kind's files are, or detected as that kind."""
    return path.name.lower().endswith(SUFFIXES.get(kind, ())) or detect(path) == kind


def detect(path: Path, head: bytes | None = None) -> str | None:
    """The source kind of ``path``, or None when it is not a format Dream reads."""
    name = path.name.lower()
    if head is None:
        try:
            with open(path, "rb") as handle:
                head = handle.read(65536)
                if b"\n" not in head and len(head) == 65536:
                    # a first line longer than the head: read that line whole (capped)
                    head += handle.readline(FIRST_LINE_MAX)
        except OSError:
            return None
    if name.endswith(".zip") or head.startswith(b"PK\x03\x04"):
        return "slack"
    if looks_binary(head):
        return None
    if name.endswith(".mbox") or head.startswith(b"From "):
        return "mbox"
    lines = head.split(b"\n")
    complete = lines[:-1] if len(lines) > 1 else lines
    for raw in complete[:20]:
        raw = raw.strip()
        if not raw.startswith(b"{"):
            continue
        try:
            record = parse_json(raw)
        except ValueError:
            continue
        if isinstance(record, dict):
            kind = _kind_of_record(record)
            if kind:
                return kind
    if name.endswith((".jsonl", ".json")):
        return None
    text = head.decode("utf-8", "replace")
    if any(_CHAT_LINE.match(line) for line in text.splitlines()[:20]):
        return "textchat"
    return None
