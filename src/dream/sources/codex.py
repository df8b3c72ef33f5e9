"""Codex CLI rollouts: ``~/.codex/sessions/YYYY/MM/DD/rollout-<time>-<uuid>.jsonl``.

Each line is ``{timestamp, type, payload}`` with ``type``:

* ``session_meta``: id, cwd, git, cli_version (the session's identity and project);
* ``response_item``: the model conversation: ``message`` (roles user, assistant,
  developer), ``function_call`` / ``custom_tool_call`` (name, arguments, call_id),
  ``function_call_output`` / ``custom_tool_call_output`` (call_id, output), ``reasoning``,
  ``web_search_call``;
* ``event_msg``: UI events: ``user_message`` (what the person typed, up to Codex 0.16x),
  ``item_completed`` (0.17x: a finished ``UserMessage``, ``AgentMessage``, ``McpToolCall``...),
  ``agent_message``, ``token_count``, task markers...;
* ``compacted`` (a generated summary replacing history) and ``turn_context``;
* ``world_state`` (the AGENTS.md and environment Codex injected) and
  ``token_usage_record`` (one per model call), both 0.17x: read and left out.

The person's words appear twice: as an event (``user_message``, or ``item_completed`` with
a ``UserMessage`` item) and as a ``response_item`` user message, and the response items
also carry injected context (AGENTS.md, environment). When a rollout has event messages,
the events are the statements and user response items are meta (a ``UserMessage`` item
repeating the ``user_message`` just before it is the same statement, read once); a rollout
without any event message (old or trimmed logs) takes its user response items as
statements, minus recognisable injected context. Assistant text is taken from response
items only (the ``agent_message`` and other ``item_completed`` events duplicate it). A
function call inside a tool ``namespace`` (0.17x MCP tools: ``mcp__dream`` +
``notes_write``) is named ``<namespace>__<name>``, as Claude Code names MCP tools.

A tool output says whether its command failed in one of three ways: JSON with
``metadata.exit_code`` (the ``shell`` tool), or a text header before ``Output:``, either
``Exit code: N`` (``shell_command``) or ``Process exited with code N`` after ``Chunk ID`` and
``Wall time`` (``exec_command``); a non-zero code is read as the result's error flag, so a
failure counts the same whichever shell tool ran it.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterable, Iterator
from typing import Any

from dream.jsontext import loads
from dream.sources.base import (
    FileContext,
    Message,
    Skip,
    parse_json,
    project_key_for,
    project_of,
    said_at_of,
    text_of,
)
from dream.store.project import normal_remote

KIND = "codex"
_INJECTED_PREFIXES = ("<environment_context>", "<user_instructions>", "# AGENTS.md",
                      "<INSTRUCTIONS>", "<permissions", "<user_shell_command>",
                      "<turn_aborted>", "<collaboration_mode>")
_CALLS = ("function_call", "custom_tool_call", "local_shell_call")
_OUTPUTS = ("function_call_output", "custom_tool_call_output")
_QUIET_ITEMS = ("reasoning", "ghost_snapshot", "other")
_QUIET_RECORDS = ("world_state", "token_usage_record")
_MAX_CALLS = 256
# what Codex sends back for a call the person declined at the approval prompt: the
# command never ran (Codex words a human "no" exactly so, for a shell call or a patch)
_DENIED = re.compile(r"(?:exec command|patch) rejected by user$")
# the exit status in the text header of a shell_command / exec_command output (before "Output:")
_EXIT_HEADER = re.compile(r"^(?:Exit code:|Process exited with code) (-?\d+)\s*$")
# a line Codex writes as {"timestamp":"...","type":"response_item","payload":{"type":"reasoning"
# (or an event_msg token_count): recognised from its first bytes, skipped without parsing
_QUIET_RE = re.compile(rb'\{"timestamp":"[^"]{10,40}","type":"(?:response_item","payload":'
                       rb'\{"type":"reasoning"|event_msg","payload":\{"type":"token_count")')


def _output(value: Any) -> tuple[str, bool]:
    """Text and error flag of a tool output (a string, JSON in a string, or a dict)."""
    error = False
    if isinstance(value, str) and value.startswith("{"):
        try:
            value = loads(value)
        except ValueError:
            pass
    if isinstance(value, dict):
        meta = value.get("metadata")
        if isinstance(meta, dict) and meta.get("exit_code") not in (0, None):
            error = True
        if value.get("success") is False:
            error = True
        text = value.get("output", value.get("content"))
        return (text_of(text) if not isinstance(text, str) else text), error
    text = text_of(value) if isinstance(value, list) else "" if value is None else str(value)
    return text, error or _exited_non_zero(text) or bool(_DENIED.match(text.strip()))


def _exited_non_zero(text: str) -> bool:
    """A text output whose header (the lines before ``Output:``, at most six) gives a
    non-zero exit code."""
    for line in text.split("\nOutput:", 1)[0].splitlines()[:6]:
        m = _EXIT_HEADER.match(line.strip())
        if m:
            return m[1] != "0"
    return False


def _typed(payload: dict[str, Any]) -> str | None:
    """What the person typed, from a ``user_message`` event or a completed ``UserMessage``
    item; None for any other event."""
    if payload.get("type") == "user_message":
        return str(payload.get("message") or "")
    item = payload.get("item")
    if payload.get("type") == "item_completed" and isinstance(item, dict) \
            and item.get("type") == "UserMessage":
        parts = [c.get("text") for c in item.get("content") or []
                 if isinstance(c, dict) and isinstance(c.get("text"), str)]
        return "\n".join(parts)
    return None


def _maker(ctx: FileContext, stream: str, number: int, said_at: str | None,
           project: str | None) -> Callable[..., Message]:
    """A Message builder for one record (block index, role, text, extra fields)."""

    def msg(block: int, role: str, text: str, **extra: Any) -> Message:
        return Message(stream=stream, ref=ctx.ref(number, block), role=role, text=text,
                       said_at=said_at, project_key=project, **extra)

    return msg


class Codex:
    kind = KIND

    def parse_lines(self, lines: Iterable[tuple[int, bytes]],
                    ctx: FileContext) -> Iterator[Message | Skip]:
        """The chunk's messages in the order of its lines. A user response item is a
        statement only in a rollout without event messages, which is known once an event
        appears or the chunk ends: from the first such item on, messages are held back (in
        order) until then, so a prompt is never moved behind the tool calls it led to."""
        held: list[Message | Skip] = []
        undecided: set[int] = set()     # ids of the held user response items
        for message in self._parse(lines, ctx):
            if isinstance(message, tuple):      # a user response item, undecided
                message = message[0]
                undecided.add(id(message))
            if ctx.state.get("events"):
                yield from _decided(held, undecided, True)
                held = []
                yield message
            elif held or id(message) in undecided:
                held.append(message)
            else:
                yield message
        yield from _decided(held, undecided, bool(ctx.state.get("events")))

    def _parse(self, lines: Iterable[tuple[int, bytes]],
               ctx: FileContext) -> Iterator[Message | Skip | tuple[Message]]:
        """Each line's messages in order; a user response item said while the rollout has
        shown no event yet comes as a 1-tuple (:meth:`parse_lines` decides it)."""
        state = ctx.state
        calls: dict[str, str] = state.setdefault("calls", {})
        for number, raw in lines:
            if _QUIET_RE.match(raw):  # reasoning blobs and token counts: not parsed at all
                state["events"] = state.get("events") or b'"event_msg"' in raw[:80]
                continue
            try:
                record = parse_json(raw)
            except ValueError:
                yield ctx.skip(number, "invalid JSON (truncated or corrupt line)")
                continue
            if not isinstance(record, dict):
                yield ctx.skip(number, "not a JSON object")
                continue
            kind = record.get("type")
            payload = record.get("payload")
            if "payload" not in record:
                # the oldest rollouts: bare items, first line the session header
                if kind is None and "id" in record:
                    kind, payload = "session_meta", record
                else:
                    kind, payload = "response_item", record
            if not isinstance(payload, dict):
                yield ctx.skip(number, f"{kind} record without a payload object")
                continue
            if kind == "session_meta":
                state["session"] = str(payload.get("id") or ctx.path.stem)
                git = payload.get("git") if isinstance(payload.get("git"), dict) else {}
                if normal_remote(git.get("repository_url")):
                    state["remote"] = normal_remote(git.get("repository_url"))
                if payload.get("cwd"):
                    state["cwd"] = payload["cwd"]  # stored redacted: the key is made here
                    state["project"] = project_key_for(payload["cwd"], state.get("remote"))
                continue
            if kind == "turn_context":
                if payload.get("cwd"):
                    state["cwd"] = payload["cwd"]
                    state["project"] = project_key_for(payload["cwd"], state.get("remote"))
                continue
            stream = state.get("session") or ctx.path.stem
            project = project_of(state)
            said_at = said_at_of(record.get("timestamp"))

            msg = _maker(ctx, stream, number, said_at, project)

            if kind == "event_msg":
                state["events"] = True
                text = _typed(payload)
                if text is not None and text.strip():
                    if payload.get("type") == "item_completed" and \
                            state.get("typed") == text:
                        continue            # the UserMessage item of the user_message above
                    state["typed"] = text
                    yield msg(0, "user", text)
                continue
            if kind in _QUIET_RECORDS:
                continue
            if kind == "compacted":
                text = str(payload.get("message") or "")
                yield msg(0, "system", text or "Conversation compacted", meta=True)
                continue
            if kind != "response_item":
                yield ctx.skip(number, f"unknown record type {kind!r}")
                continue
            ptype = payload.get("type")
            if ptype != "message" or payload.get("role") != "user":
                state.pop("typed", None)     # a new turn: the same words typed again count
            if ptype == "message":
                role = payload.get("role")
                text = text_of(payload.get("content"))
                if not text.strip():
                    continue
                if role == "user" and state.get("events"):
                    yield msg(0, "user", text, meta=True)
                elif role == "user":
                    yield (msg(0, "user", text),)
                elif role == "assistant":
                    yield msg(0, "assistant", text)
                else:
                    yield msg(0, "system", text, meta=True)
            elif ptype in _CALLS:
                action = payload.get("action") if isinstance(payload.get("action"), dict) \
                    else {}
                name = str(payload.get("name") or action.get("type") or "tool")
                namespace = payload.get("namespace")
                if isinstance(namespace, str) and namespace:
                    name = f"{namespace.rstrip('_')}__{name}"
                call_id = payload.get("call_id") or payload.get("id")
                if call_id:
                    calls[str(call_id)] = name
                args = payload.get("arguments", payload.get("input", payload.get("action")))
                shown = args if isinstance(args, str) else json.dumps(args, ensure_ascii=False)
                yield msg(0, "assistant", f"{name}: {shown[:2000]}", tool_name=name)
            elif ptype in _OUTPUTS:
                text, error = _output(payload.get("output"))
                yield msg(0, "tool", text or "(no output)",
                          tool_name=calls.get(str(payload.get("call_id"))), is_error=error)
            elif ptype == "web_search_call":
                action = payload.get("action") if isinstance(payload.get("action"), dict) else {}
                yield msg(0, "assistant", f"web_search: {action.get('query', '')}",
                          tool_name="web_search")
            elif ptype in _QUIET_ITEMS:
                continue
            else:
                yield ctx.skip(number, f"unknown response item type {ptype!r}")
        if len(calls) > _MAX_CALLS:
            for key in list(calls)[: len(calls) - _MAX_CALLS]:
                del calls[key]


def _decided(held: list[Message | Skip], undecided: set[int],
             events: bool) -> Iterator[Message | Skip]:
    """Held messages in order, each held user response item meta when the rollout has
    event messages (they are the statements) or when it is injected context."""
    for message in held:
        if id(message) in undecided and isinstance(message, Message):
            message.meta = events or message.text.lstrip().startswith(_INJECTED_PREFIXES)
        yield message


source = Codex()
