"""Pi sessions: ``~/.pi/agent/sessions/--<cwd with / as ->--/<timestamp>_<uuid>.jsonl``.

The first line is a header ``{type: session, id, timestamp, cwd, version?}``. In the
current format (version 3) every later entry has ``id`` and ``parentId`` forming a tree
(branches share a file); the legacy v1 format has neither and is a flat list. Both carry
``message`` entries whose ``message.role`` is ``user``, ``assistant`` (blocks text,
thinking, toolCall), ``toolResult`` (toolName, isError, content) or ``bashExecution`` (a
command the person ran with ``!``: command, output, exitCode), plus ``compaction`` and
``branch_summary`` entries holding a generated summary, and settings changes.

Every branch of a v3 tree is kept: each entry is an item of its own (the tree's ids make
them unique), in file order.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Iterator
from typing import Any

from dream.sources.base import (
    UNREADABLE_TIME,
    FileContext,
    Message,
    Skip,
    content_blocks,
    json_objects,
    project_key_for,
    project_of,
    said_at_of,
    text_of,
)

KIND = "pi"
_IGNORED = {"model_change", "thinking_level_change", "label", "custom", "session_info"}


def _maker(ctx: FileContext, stream: str, number: int, said_at: str | None,
           project: str | None, entry_id: Any) -> Callable[..., Message]:
    """A Message builder for one entry (block index, role, text, extra fields)."""

    def msg(block: int, role: str, text: str, **extra: Any) -> Message:
        return Message(stream=stream, ref=ctx.ref(number, block), role=role, text=text,
                       said_at=said_at, project_key=project,
                       key=f"{stream}/{entry_id}#{block}" if entry_id else None, **extra)

    return msg


class Pi:
    kind = KIND

    def parse_lines(self, lines: Iterable[tuple[int, bytes]],
                    ctx: FileContext) -> Iterator[Message | Skip]:
        state = ctx.state
        for entry in json_objects(lines, ctx):
            if isinstance(entry, Skip):
                yield entry
                continue
            number, record = entry
            kind = record.get("type")
            if kind == "session":
                state["session"] = str(record.get("id") or ctx.path.stem)
                state["cwd"] = record.get("cwd")  # stored redacted: the key is made here
                state["project"] = project_key_for(record.get("cwd"))
                state["version"] = record.get("version", 1)
                continue
            if kind in _IGNORED:
                continue
            stream = state.get("session") or ctx.path.stem.split("_")[-1]
            project = project_of(state)
            said_at = said_at_of(record.get("timestamp"))
            entry_id = record.get("id")

            msg = _maker(ctx, stream, number, said_at, project, entry_id)

            if kind in ("compaction", "branch_summary"):
                summary = record.get("summary")
                if isinstance(summary, str) and summary.strip():
                    yield msg(0, "system", summary, meta=True)
                continue
            if kind == "custom_message":
                text = text_of(record.get("content"))
                if text.strip():
                    yield msg(0, "system", text, meta=True)
                continue
            if kind != "message":
                yield ctx.skip(number, f"unknown record type {kind!r}")
                continue
            message = record.get("message")
            if not isinstance(message, dict):
                yield ctx.skip(number, "message entry without a message")
                continue
            if said_at is None or said_at.startswith(UNREADABLE_TIME):
                inner = said_at_of(message.get("timestamp"))
                if inner is not None and (said_at is None or
                                          not inner.startswith(UNREADABLE_TIME)):
                    msg = _maker(ctx, stream, number, inner, project, entry_id)
            yield from self._message(message, msg, ctx, number)

    def _message(self, message: dict[str, Any], msg: Any, ctx: FileContext,
                 number: int) -> Iterator[Message | Skip]:
        role = message.get("role")
        content = message.get("content")
        if role == "user":
            text = text_of(content)
            if text.strip():
                yield msg(0, "user", text)
        elif role == "assistant":
            model = message.get("model")
            for index, block in content_blocks(content):
                btype = block.get("type")
                if btype == "text" and str(block.get("text", "")).strip():
                    yield msg(index, "assistant", block["text"], author=model)
                elif btype == "toolCall":
                    name = str(block.get("name") or "tool")
                    args = block.get("arguments")
                    shown = args.get("command") or args.get("path") if isinstance(
                        args, dict) else None
                    text = shown if isinstance(shown, str) else json.dumps(
                        args, ensure_ascii=False)[:2000]
                    yield msg(index, "assistant", f"{name}: {text}", author=model,
                              tool_name=name)
        elif role == "toolResult":
            yield msg(0, "tool", text_of(content) or "(no output)",
                      tool_name=message.get("toolName"), is_error=bool(message.get("isError")))
        elif role == "bashExecution":
            code = message.get("exitCode")
            text = f"$ {message.get('command', '')}\n{message.get('output', '')}".rstrip()
            yield msg(0, "tool", text, tool_name="bash",
                      is_error=bool(message.get("cancelled")) or (code not in (0, None)))
        else:
            yield ctx.skip(number, f"unknown message role {role!r}")


source = Pi()
