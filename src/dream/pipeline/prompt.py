"""The prompt of a run's model calls: its run prefix, its calls and what they show of an item.

Every call of a run (propose, merge, sweep) opens with the same **run prefix**: the
instructions, then the rows of the current state the run's bundles touch
(``State.touched``). Only the task and its material differ, and they come after it, so a
provider's prompt cache can hold the prefix for the run. The answer schema travels as the
provider's structured-output schema (OpenAI ``response_format``, Anthropic's tool), not
repeated in the prompt.

Calls pack consecutive bundles up to ``pack_tokens`` tokens of rendered items (a bigger
bundle gets a call of its own). Rows are shown by short handles (``R1``...) and items by
``E1``... (``dream.pipeline.resolve`` maps an answer's handles back).

What a model reads of an item (``render_bundle``): one line ``E<n> HH:MM who: text`` under
its bundle's ``## B<n> YYYY-MM-DD`` line, only what the model needs (``prompt_text``): the
assistant's prose only where the user answers it, tool results as their command, outcome
and a digest (``tool_digest``: a successful call's output only as its end), without the
notes an agent's harness appends for the agent, text already shown in the call as
``(= E<n>)``, a successful call the call already showed (same command, same output) not
again. Code providers read the structured payload, which keeps every item as it was.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from dream import tokens
from dream.items import Item
from dream.kinds.records import Record
from dream.pipeline.bundle import Bundle
from dream.pipeline.state import State

CONTEXT_CHARS = 400        # assistant prose is shown (truncated) as context, never evidence
PAYLOAD_CONTEXT_CHARS = 2000   # ... and given to code providers a little longer (the options
                               # a question offered, which the user's answer picks from)
ITEM_CHARS = 4000
PACK_TOKENS = 12000        # rendered items per call (a bundle over it gets a call alone)
COMMAND_CHARS = 200        # a failed tool call's command, shown with its result
OK_COMMAND_CHARS = 60      # a successful one's
TIME_GAP_MINUTES = 30      # an item's time is shown after this much quiet

INSTRUCTIONS = """You keep a person's typed memory from their messages and their agents' sessions.
Answer only with JSON {"ops": [...]} in the answer schema; never free-form memories.
An op changes one row: "row" is its handle (R<n>); for a new row leave "row" empty and give
"name" (its key is made from it). "fields" is [{"name", "value"}]: events title, activity,
date (YYYY-MM-DD), time (HH:MM), place, participants, status (proposed|confirmed|declined|
cancelled); to-dos title, status (open|done|dropped: its plan was called off), due, event
(the key of the event row it was taken on for); wiki: the entity page's named slots;
standing: one field per fact; notes text, type (directive|preference|correction|failure|
fact); questions text, ask ("same": are two rows one thing? about "R1, R2"; "value": which
value holds? about one row, field, options as a JSON list). "evidence" lists the handles of
what says it.
Decline a cancelled booking and confirm its replacement as a new row. Compare every op with
the rows shown and the rest of your answer: what a shown row says updates that row, never a
second row; crumple a shown note your items make a duplicate; two ops saying one thing are
one op; write no note without something durable to say; unsure whether two are one: keep
them apart and ask. Under "SCOPE <name>" lines (a project, the personal streams) an op
cites items of one scope, names only its rows and carries nothing from another scope.
Items read "E<n> HH:MM who: text" under a bundle line "## B<n> YYYY-MM-DD" ("# YYYY-MM-DD"
starts a new day; a time is left out within half an hour of the last shown). who: "user" (the
person, maybe with their name), another person's name, "assistant" (the agent's prose:
context, never evidence nor a correction) or a tool with its outcome and command, as
"Bash ok (pytest -q)", its output cut to its end (failed: head, error lines, tail).
"(= E<n>)": the same text as E<n>."""


PROPOSE_TASK = "TASK: the ops the items below say, citing items (E<n>).\n"


@dataclass
class Call:
    index: int
    bundles: list[Bundle]
    handles: dict[str, Item] = field(default_factory=dict)
    body: str = ""
    payload_bundles: list[dict[str, Any]] = field(default_factory=list)
    tokens: int = 0


@dataclass
class RunPrefix:
    """What every call of one run opens with: the instructions and the touched rows (of
    every scope of the run, each under its heading: ``scope_of`` maps a row's handle to
    its scope's position in the run, all 0 for a run of one scope)."""

    text: str
    rows: dict[str, Record]
    as_of: str
    scope_of: dict[str, int] = field(default_factory=dict)

    def in_scope(self, index: int) -> dict[str, Record]:
        """The rows of one scope, by handle."""
        return {h: r for h, r in self.rows.items() if self.scope_of.get(h, 0) == index}

    def payload(self) -> list[dict[str, Any]]:
        return rows_payload(self.rows)


def row_handles(rows: list[Record], start: int = 1) -> dict[str, Record]:
    return {f"R{i + start}": rec for i, rec in enumerate(rows)}


def row_line(handle: str, rec: Record) -> str:
    vals = "; ".join(f"{k}={_clip(v, 160)}" for k, v in rec.values().items())
    return f"{handle} {rec.kind} {rec.key} v{rec.version}: {vals}"


def state_lines(rows: dict[str, Record], as_of: str, heading: str = "") -> list[str]:
    """The state section of a prefix (``heading``: a scope's, in a run of several)."""
    lines = [f"{heading}CURRENT STATE (as of {as_of or 'empty'}):"]
    if not rows:
        lines.append("(no rows yet)")
    return lines + [row_line(h, rec) for h, rec in rows.items()]


def render_prefix(rows: dict[str, Record], as_of: str) -> str:
    return "\n".join([INSTRUCTIONS, "", *state_lines(rows, as_of)]) + "\n"


def run_prefix(state: State, bundles: list[Bundle]) -> RunPrefix:
    rows = row_handles(state.touched(bundles))
    as_of = state.as_of()
    return RunPrefix(render_prefix(rows, as_of), rows, as_of)


def rows_payload(rows: dict[str, Record]) -> list[dict[str, Any]]:
    return [{"handle": h, "kind": r.kind, "key": r.key, "version": r.version,
             "fields": r.values()} for h, r in rows.items()]


@dataclass
class _Rendered:
    lines: list[str]
    handles: dict[str, Item]
    payload: dict[str, Any]
    seen: dict[str, str]          # text first shown in this bundle -> its handle


def pack_calls(bundles: list[Bundle], pack_tokens: int = PACK_TOKENS,
               headings: dict[str, str] | None = None) -> list[Call]:
    """Consecutive bundles per call while their rendered items stay within
    ``pack_tokens`` tokens; a bundle that does not fit starts the next call (alone when it
    is bigger than the budget). With ``headings`` (a bundle id -> its scope's heading line,
    for a run of several scopes) a call's bundles come under their scope's heading, and
    text is never shown as ``(= E<n>)`` of another scope's item."""
    calls: list[Call] = []
    seen: dict[str, str] = {}
    current: list[str | None] = [None]      # the heading the last call's last bundle had

    def head(b: Bundle, call: Call) -> str:
        line = (headings or {}).get(b.id)
        if line is None or (call.bundles and line == current[0]):
            return ""
        return line + "\n"

    for b in bundles:
        call = calls[-1] if calls else None
        if call is not None:
            line = head(b, call)
            if line:
                seen = {}
            r = render_bundle(b, len(call.handles) + 1, seen)
            cost = tokens.count(line + "\n".join(r.lines))
            if call.tokens + cost > pack_tokens:
                call = None
        if call is None:
            call = Call(index=len(calls), bundles=[])
            calls.append(call)
            seen = {}
            line = head(b, call)
            r = render_bundle(b, 1, seen)
            cost = tokens.count(line + "\n".join(r.lines))
        call.bundles.append(b)
        call.handles.update(r.handles)
        call.payload_bundles.append(r.payload)
        seen.update(r.seen)
        call.body += line + "\n".join(r.lines) + "\n"
        call.tokens += cost
        current[0] = (headings or {}).get(b.id)
    for call in calls:
        call.body = PROPOSE_TASK + call.body
    return calls


def render_bundle(b: Bundle, first: int, seen: dict[str, str]) -> _Rendered:
    """A bundle's prompt lines (handles from ``E<first>``) and its structured payload."""
    out = _Rendered([], {}, {"id": b.id, "entities": b.entities, "items": []}, {})
    streams = {s: f"s{i + 1}" for i, s in enumerate(b.streams)} if len(b.streams) > 1 else {}
    day = _day(b.items[0].said_at) if b.items else ""
    head = f"## {b.id} {day}".rstrip()
    if b.entities:
        head += f" ({', '.join(b.entities)})"
    if streams:
        head += " streams: " + ", ".join(f"{t}={_clip(s, 40)}" for s, t in streams.items())
    out.lines.append(head)
    calls: dict[str, list[Item]] = {}      # a stream's tool calls waiting for their result
    last_time: int | None = None           # minute of the day of the last time shown
    for pos, it in enumerate(b.items):
        handle = f"E{first + pos}"
        out.handles[handle] = it
        context = not it.evidence
        out.payload["items"].append({
            "handle": handle, "role": it.role, "author": it.author, "kind": it.kind,
            "said_at": it.said_at, "evidence": it.evidence,
            # code providers read the text as it was said, its lines kept
            "text": _clip_lines(it.text, PAYLOAD_CONTEXT_CHARS if context else ITEM_CHARS),
            "tool_name": it.tool_name, "is_error": it.is_error, "stream": it.stream,
            "source": it.source, "entities": it.entities,
        })
        if it.role == "assistant" and it.tool_name:
            calls.setdefault(it.stream, []).append(it)
            continue
        command = None
        if it.tool_name and it.role == "tool":
            waiting = calls.get(it.stream, [])
            match = next((c for c in waiting if c.tool_name == it.tool_name), None)
            if match is not None:
                waiting.remove(match)
                command = _command(match, COMMAND_CHARS if it.is_error else OK_COMMAND_CHARS)
        shown = prompt_text(it, answered_by_user(b.items, pos))
        if shown is None or _repeats_success(it, command, shown, seen, out.seen, handle):
            continue
        first_seen = (seen.get(shown) or out.seen.get(shown)) if len(shown) > 12 else None
        if first_seen:
            shown = f"(= {first_seen})"
        else:
            out.seen[shown] = handle
            if it.evidence and (it.tool_name or it.kind == "tool_result"):
                shown = _without_seen_lines(it, shown, seen, out.seen, handle)
        when = _day(it.said_at)
        if when and when != day:
            out.lines.append(f"# {when}")
            day, last_time = when, None
        minute = _minutes(it.said_at)
        time = ""
        if minute is not None and (last_time is None or minute - last_time >= TIME_GAP_MINUTES
                                   or minute < last_time):
            time, last_time = it.said_at[11:16] + " ", minute
        tag = f"{streams[it.stream]} " if it.stream in streams else ""
        out.lines.append(f"{handle} {tag}{time}{who(it, command)}: {shown}")
    return out


def _repeats_success(item: Item, command: str | None, shown: str, seen: dict[str, str],
                     mine: dict[str, str], handle: str) -> bool:
    """True for a successful tool call the call already showed: the same tool, the same
    command as shown (clipped) and the same output (a second ``git status``, an agent
    re-saving its to-do list). Its line would say nothing the first did not, so it is left
    out (its handle still maps to the item). A failed call is always shown."""
    if item.is_error or not (item.tool_name or item.kind == "tool_result"):
        return False
    key = f"\0ok {item.tool_name}\0{command or ''}\0{shown}"
    if key in seen or key in mine:
        return True
    mine[key] = handle
    return False


REPEAT_LINE_CHARS = 20     # a tool output line this long, shown before in the call, is dropped


def _without_seen_lines(item: Item, shown: str, seen: dict[str, str],
                        mine: dict[str, str], handle: str) -> str:
    """A tool result's digest without the lines an earlier result of the call showed (a
    warning every ssh call prints, a banner): the digest of what is new, and how many
    lines were dropped."""
    fresh, repeated = [], 0
    for line in tool_output(item).splitlines():
        key = "\0line " + line.strip()
        if len(line.strip()) >= REPEAT_LINE_CHARS and (key in seen or key in mine):
            repeated += 1
            continue
        if len(line.strip()) >= REPEAT_LINE_CHARS:
            mine.setdefault(key, handle)
        fresh.append(line)
    if not repeated:
        return shown
    digest = tool_digest("\n".join(fresh), failed=bool(item.is_error))
    return (digest + " " if digest else "") + f"[{repeated} lines as above]"


def who(item: Item, command: str | None = None) -> str:
    """How a prompt names the speaker of an item (see INSTRUCTIONS)."""
    if item.role == "user":
        name = (item.author or "").strip()
        return "user" + (f" {name}" if name and name.lower() not in ("user", "me") else "")
    if item.role == "other":
        return (item.author or "someone").strip()
    if item.role == "tool" or item.tool_name:
        outcome = "failed" if item.is_error else "ok"
        return f"{item.tool_name or 'tool'} {outcome}" + (f" ({command})" if command else "")
    return item.role


def _command(call: Item, limit: int) -> str:
    text = call.text
    if call.tool_name and text.startswith(f"{call.tool_name}:"):
        text = text[len(call.tool_name) + 1:]
    return _clip(text, limit)


def _day(said_at: str) -> str:
    return said_at[:10] if re.match(r"\d{4}-\d\d-\d\d", said_at or "") else ""


def _minutes(said_at: str) -> int | None:
    """The minute of the day an ISO time names, or None."""
    m = re.match(r"\d{4}-\d\d-\d\dT(\d\d):(\d\d)", said_at or "")
    return int(m.group(1)) * 60 + int(m.group(2)) if m else None


TOOL_HEAD_CHARS = 400
TOOL_TAIL_CHARS = 300
TOOL_ERROR_LINES = 8
OK_WHOLE_CHARS = 160       # a successful result this short is shown whole ...
OK_TAIL_CHARS = 80         # ... a longer one as its end (where '5 passed' sits)
_ERROR_LINE = re.compile(r"error|fail|exception|traceback|fatal|denied|not found|"
                         r"exit (?:code|status)|cannot|panic", re.IGNORECASE)


def prompt_text(item: Item, answered: bool) -> str | None:
    """What a model is shown of an item: only what it needs, so a run sends less.

    - Assistant prose is context, never evidence: it is shown (clipped) only when the
      user's next message in the bundle answers it (a correction needs what it corrects),
      else left out. A tool call is shown as the command of its result.
    - A tool result is cut to a digest (see tool_digest): a failed one keeps more.
    - Anything else is clipped at ITEM_CHARS.
    """
    if not item.evidence:
        if item.tool_name:
            return None
        return _clip(item.text, CONTEXT_CHARS) if answered else None
    if item.tool_name or item.kind == "tool_result":
        return tool_digest(tool_output(item), failed=bool(item.is_error))
    return _clip(item.text, ITEM_CHARS)


_HARNESS_NOTE = re.compile(r"<system-reminder>.*?</system-reminder>", re.DOTALL)


def tool_output(item: Item) -> str:
    """A tool result's output without the notes the agent's harness appends to it for the
    agent (Claude Code's ``<system-reminder>`` blocks): what the tool said."""
    return _HARNESS_NOTE.sub("", item.text)


def tool_digest(text: str, failed: bool = True) -> str:
    """What a prompt shows of a tool result's output.

    - Failed: its head, the lines that name an error or an exit status, and its tail,
      about 1,300 characters at most: what went wrong is what a failure note needs.
    - Succeeded: the output whole when it is short (``OK_WHOLE_CHARS``), else only its last
      ``OK_TAIL_CHARS`` characters (where a summary such as '5 passed', 'Everything
      up-to-date' or a pipe's hidden '1 failed' sits) and how much was cut. A successful call's output is the project's
      files, the web's pages or the tool's acknowledgement, not what the person said: the
      model needs that the command worked (the command and "ok") and its last word; an
      "error" line inside a file it read or a page it fetched is the file's, not an error.
    """
    text = "\n".join(line.rstrip() for line in text.strip().splitlines() if line.strip())
    if not failed:
        if len(text) <= OK_WHOLE_CHARS:
            return text
        tail = text[len(text) - OK_TAIL_CHARS:]
        return f"…[{len(text) - OK_TAIL_CHARS} chars cut]… {tail}"
    limit = TOOL_HEAD_CHARS + TOOL_TAIL_CHARS + 600
    if len(text) <= limit:
        return text
    head, tail = text[:TOOL_HEAD_CHARS], text[-TOOL_TAIL_CHARS:]
    middle = text[TOOL_HEAD_CHARS:-TOOL_TAIL_CHARS]
    errors = [_clip(line.strip(), 150) for line in middle.splitlines()
              if _ERROR_LINE.search(line)][:TOOL_ERROR_LINES]
    cut = len(middle) - sum(len(e) for e in errors)
    return (head + f" …[{cut} chars cut]… " + " | ".join(errors)
            + (" … " if errors else "") + tail)


def answered_by_user(items: list[Item], pos: int) -> bool:
    """True when the next item of the same stream after ``pos`` is the user's."""
    stream = items[pos].stream
    for later in items[pos + 1:]:
        if later.stream == stream:
            return later.role == "user"
    return False


def _clip_lines(text: str, limit: int) -> str:
    """The text with its lines kept (spaces within a line collapsed, one blank line kept
    between paragraphs: it ends a pasted block), clipped to its head
    and its tail: a failure's cause and a pasted error often come at the end (the last
    exception of a traceback, the line above a build tool's summary)."""
    text = re.sub(r"\n{3,}", "\n\n", "\n".join(" ".join(ln.split())
                                              for ln in str(text).splitlines()).strip())
    if len(text) <= limit:
        return text
    head = limit * 3 // 10
    return text[:head] + "\n…\n" + text[len(text) - (limit - head - 3):]


def _clip(text: str, limit: int) -> str:
    text = " ".join(str(text).split())
    return text if len(text) <= limit else text[: limit - 1] + "…"
