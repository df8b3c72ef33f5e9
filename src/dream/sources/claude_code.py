"""Claude Code transcripts: ``~/.claude/projects/<cwd with / and . as ->/<session>.jsonl``.

One JSON record a line. ``user`` and ``assistant`` records carry ``message.content`` (a
string or blocks: text, thinking, tool_use, tool_result, image); ``system`` records carry
local commands, hook summaries and ``compact_boundary`` markers; ``summary`` records carry
a generated session title. ``progress`` records of type ``agent_progress`` wrap the
messages of a subagent (a sidechain); subagent files under ``<session>/subagents/`` hold
sidechain records directly (``isSidechain: true``).

Gate-relevant choices (see docs/formats.md):

* a user record typed by the person is a statement, except injected text (``isMeta``,
  ``isCompactSummary``, ``<command-name>``/``<local-command-*>`` wrappers,
  ``<system-reminder>`` and interruption markers), which is meta;
* in a sidechain the "user" is the main agent prompting the subagent, so that text is the
  assistant's own prose (never evidence); sidechain tool results are still tool results;
* thinking blocks are not kept; tool calls are kept as assistant items naming the tool.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator
from typing import Any

from dream.sources.base import (
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

KIND = "claude_code"
_IGNORED = {"file-history-snapshot", "queue-operation", "last-prompt", "custom-title",
            "tag", "agent-name", "pr-link", "attachment"}
_INJECTED_PREFIXES = ("<command-name>", "<command-message>", "<local-command-",
                      "<system-reminder>", "[Request interrupted by user",
                      "Caveat: The messages below were generated", "<bash-input>",
                      "<bash-stdout>", "<bash-stderr>", "<user-prompt-submit-hook>")
_MAX_TOOLS = 256


def _injected(text: str) -> bool:
    return text.lstrip().startswith(_INJECTED_PREFIXES)


def _tool_input(value: Any) -> str:
    if isinstance(value, dict):
        for key in ("command", "file_path", "pattern", "path", "query", "url", "prompt"):
            if isinstance(value.get(key), str):
                return value[key]
    return json.dumps(value, ensure_ascii=False)[:2000]


class ClaudeCode:
    kind = KIND

    def parse_lines(self, lines: Iterable[tuple[int, bytes]],
                    ctx: FileContext) -> Iterator[Message | Skip]:
        tools: dict[str, str] = ctx.state.setdefault("tools", {})
        for entry in json_objects(lines, ctx):
            if isinstance(entry, Skip):
                yield entry
                continue
            number, record = entry
            kind = record.get("type")
            if kind in _IGNORED:
                continue
            if kind == "progress":
                data = record.get("data")
                if isinstance(data, dict) and data.get("type") == "agent_progress" and \
                        isinstance(data.get("message"), dict):
                    inner = dict(data["message"])
                    inner.setdefault("cwd", record.get("cwd"))
                    inner.setdefault("sessionId", record.get("sessionId"))
                    inner.setdefault("timestamp", record.get("timestamp"))
                    inner["isSidechain"] = True
                    inner["agentId"] = record.get("agentId") or data.get("agentId") or \
                        record.get("parentToolUseID") or "agent"
                    yield from self._record(inner, number, ctx, tools)
                continue
            if kind in ("user", "assistant", "system", "summary"):
                yield from self._record(record, number, ctx, tools)
                continue
            yield ctx.skip(number, f"unknown record type {kind!r}")
        if len(tools) > _MAX_TOOLS:
            for key in list(tools)[: len(tools) - _MAX_TOOLS]:
                del tools[key]

    def _record(self, record: dict[str, Any], number: int, ctx: FileContext,
                tools: dict[str, str]) -> Iterator[Message | Skip]:
        kind = record.get("type")
        session = record.get("sessionId") or ctx.state.get("session") or ctx.path.stem
        ctx.state["session"] = session
        sidechain = bool(record.get("isSidechain"))
        stream = session
        if sidechain:
            agent = record.get("agentId") or ctx.path.stem.removeprefix("agent-")
            stream = f"{session}/agent-{agent}"
        cwd = record.get("cwd")
        if cwd:
            ctx.state["cwd"] = cwd  # stored redacted: the key is made from the raw folder
            ctx.state["project"] = project_key_for(cwd)
        project = project_of(ctx.state)
        said_at = said_at_of(record.get("timestamp"))
        uuid = record.get("uuid")

        def msg(block: int, role: str, text: str, **extra: Any) -> Message:
            return Message(stream=stream, ref=ctx.ref(number, block), role=role, text=text,
                           said_at=said_at, project_key=project,
                           key=f"{uuid}#{block}" if uuid else None, **extra)

        if kind == "summary":
            text = record.get("summary")
            if isinstance(text, str) and text.strip():
                yield Message(stream=stream, ref=ctx.ref(number), role="system",
                              text=text, meta=True, project_key=project,
                              key=f"summary:{record.get('leafUuid')}" if
                              record.get("leafUuid") else None)
            return
        if kind == "system":
            text = record.get("content")
            if record.get("subtype") == "compact_boundary":
                text = text or "Conversation compacted"
            if isinstance(text, str) and text.strip():
                yield msg(0, "system", text, meta=True)
            return
        message = record.get("message")
        if not isinstance(message, dict):
            yield ctx.skip(number, f"{kind} record without a message")
            return
        content = message.get("content")
        if kind == "assistant":
            model = message.get("model")
            for index, block in content_blocks(content):
                btype = block.get("type")
                if btype == "text" and str(block.get("text", "")).strip():
                    yield msg(index, "assistant", block["text"], author=model)
                elif btype == "tool_use":
                    name = str(block.get("name") or "tool")
                    if block.get("id"):
                        tools[str(block["id"])] = name
                    yield msg(index, "assistant", f"{name}: {_tool_input(block.get('input'))}",
                              author=model, tool_name=name)
            return
        # user records: typed text, tool results, injected context
        meta = bool(record.get("isMeta") or record.get("isCompactSummary")
                    or record.get("isVisibleInTranscriptOnly"))
        blocks = [{"type": "text", "text": content}] if isinstance(content, str) else content
        if not isinstance(blocks, list):
            yield ctx.skip(number, "user record with unreadable content")
            return
        for index, block in enumerate(blocks):
            if not isinstance(block, dict):
                continue
            btype = block.get("type")
            if btype == "tool_result":
                name = tools.get(str(block.get("tool_use_id")))
                error = block.get("is_error")
                yield msg(index, "tool", text_of(block.get("content")) or "(no output)",
                          tool_name=name, is_error=bool(error) if error is not None else False)
            elif btype in ("text", "image"):
                text = text_of([block])
                if not text.strip():
                    continue
                if sidechain:
                    yield msg(index, "assistant", text, meta=meta or _injected(text))
                else:
                    yield msg(index, "user", text, meta=meta or _injected(text))


source = ClaudeCode()
