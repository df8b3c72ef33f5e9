"""The generic JSONL chat format, for any other agent, assistant or message export.

One JSON object a line (documented in docs/formats.md):

    {"text": "...", "time": "2026-03-01T09:30:00Z", "stream": "thread-7", "id": "m42",
     "author": "Jordan", "role": "other", "tool": null, "is_error": null,
     "cwd": "/home/me/project", "to": ["Sam"], "channel": "sms"}

Only ``text`` is required. ``stream`` defaults to the file's stem and ``id`` to the line
number. ``role`` is ``user`` (the person whose memory this is; default), ``other``
(another person), ``assistant`` (an AI assistant: never evidence), ``tool`` (a tool
result) or ``system``.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator

from dream.sources.base import (
    ROLES,
    FileContext,
    Message,
    Skip,
    json_objects,
    project_key_for,
    said_at_of,
)

KIND = "jsonl"


class Jsonl:
    kind = KIND

    def parse_lines(self, lines: Iterable[tuple[int, bytes]],
                    ctx: FileContext) -> Iterator[Message | Skip]:
        for entry in json_objects(lines, ctx):
            if isinstance(entry, Skip):
                yield entry
                continue
            number, record = entry
            text = record.get("text")
            if not isinstance(text, str):
                yield ctx.skip(number, "no 'text' string")
                continue
            role = record.get("role") or "user"
            if role not in ROLES:
                yield ctx.skip(number, f"unknown role {role!r} (use one of {', '.join(ROLES)})")
                continue
            if not text.strip():
                continue
            stream = str(record.get("stream") or ctx.path.stem)
            native = record.get("id")
            author = record.get("author")
            to = record.get("to") if isinstance(record.get("to"), list) else []
            participants = [str(p) for p in ([author] if author else []) + to if p]
            is_error = record.get("is_error")
            yield Message(
                stream=stream,
                ref=ctx.ref(number),
                role=role,
                text=text,
                said_at=said_at_of(record.get("time")),
                author=str(author) if author else None,
                tool_name=str(record["tool"]) if record.get("tool") else None,
                is_error=bool(is_error) if is_error is not None else None,
                key=f"{stream}/{native}" if native is not None else None,
                project_key=project_key_for(record.get("cwd")),
                participants=participants,
                channel=str(record["channel"]) if record.get("channel") else None,
            )


source = Jsonl()
