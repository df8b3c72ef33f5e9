"""Render (code): ``brief.md`` for a scope, trimmed to a token cap.

Sections in priority order: open questions, the near event window, open to-dos, standing
facts, the most relevant memory notes. Every line ends with a link to the record it comes
from (``[events/<key>.md]``), so it can be traced. Lines are added in priority order while
the brief stays within ``max_tokens`` (counted with :func:`dream.tokens.count`). The brief's
"now" is the state's own latest ``said_at``, so rendering the same state gives the same bytes.
"""

from __future__ import annotations

from datetime import timedelta

from dream import tokens
from dream.kinds.records import Record, one_line
from dream.kinds.text import parse_when
from dream.pipeline.state import State

NEAR_BEFORE = timedelta(days=2)
NEAR_AFTER = timedelta(days=30)
NOTE_PRIORITY = {"correction": 0, "directive": 1, "preference": 2, "failure": 3, "fact": 4}


def _link(rec: Record) -> str:
    return f"[{rec.path}]"


def sections(state: State) -> list[tuple[str, list[str]]]:
    as_of = state.as_of()
    now = parse_when(as_of)
    out: list[tuple[str, list[str]]] = []

    qs = [r for r in state.of_kind("question") if r.get("status", "open") == "open"]
    out.append(("Open questions", [f"- {one_line(r.get('text'))} {_link(r)}" for r in qs]))

    events = []
    for r in state.of_kind("event"):
        when = parse_when(r.get("date"))
        if now is not None and when is not None and not (
                now - NEAR_BEFORE <= when <= now + NEAR_AFTER):
            continue
        events.append(r)
    events.sort(key=lambda r: (r.get("date") or "9999", r.get("time"), r.key))
    ev_lines = []
    for r in events:
        when = " ".join(x for x in (r.get("date"), r.get("time")) if x) or "date unknown"
        where = f" at {r.get('place')}" if r.get("place") and \
            r.get("place").lower() not in r.title.lower() else ""
        who = f" with {r.get('participants')}" if r.get("participants") else ""
        status = r.get("status") or "proposed"
        ev_lines.append(f"- {when}: {one_line(r.title)}{where}{who} ({status}) {_link(r)}")
    out.append(("Coming up", ev_lines))

    todos = [r for r in state.of_kind("todo") if r.get("status", "open") == "open"]
    todos.sort(key=lambda r: (r.get("due") or "9999", r.key))
    out.append(("Open to-dos", [
        f"- {one_line(r.title)}{' (due ' + r.get('due') + ')' if r.get('due') else ''} {_link(r)}"
        for r in todos]))

    standing = state.standing()
    facts = []
    if standing:
        for name in standing.ordered_fields():
            facts.append(f"- {name.replace('_', ' ')}: {one_line(standing.get(name))} "
                         f"[standing.md#{name}]")
    out.append(("Standing facts", facts))

    notes = [r for r in state.of_kind("note") if r.get("status", "live") == "live"]
    notes.sort(key=lambda r: (NOTE_PRIORITY.get(r.get("type"), 5),
                              _neg(r.latest_said()), r.key))
    out.append(("Notes", [f"- {_clip(one_line(r.get('text') or r.title), 240)} {_link(r)}"
                          for r in notes]))
    return out


def render_brief(state: State, max_tokens: int = 2000) -> str:
    title = "projects/" + state.scope.root.split("/", 1)[1] if "/" in state.scope.root \
        else state.scope.root
    head = [f"# Brief: {title}", "",
            (f"As of {state.as_of() or 'no evidence yet'}. Written by Dream from the records"
             " linked on each line."), ""]
    text = "\n".join(head) + "\n"
    used = tokens.count(text)
    omitted = 0
    for name, lines in sections(state):
        if not lines:
            continue
        header = f"## {name}\n"
        header_cost = tokens.count(header) + 1
        if used + header_cost > max_tokens:
            omitted += len(lines)
            continue
        block = header
        block_used = header_cost
        shown = 0
        for line in lines:
            cost = tokens.count(line) + 1
            if used + block_used + cost > max_tokens:
                omitted += 1
                continue
            block += line + "\n"
            block_used += cost
            shown += 1
        if shown:
            text += block + "\n"
            used += block_used + 1
    if omitted:
        tail = f"_{omitted} more lines left out to stay within {max_tokens} tokens._\n"
        if used + tokens.count(tail) <= max_tokens:
            text += tail
    while tokens.count(text) > max_tokens and "\n" in text.rstrip("\n"):
        text = text.rstrip("\n").rsplit("\n", 1)[0] + "\n"
    return text


def _clip(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _neg(said: str) -> str:
    """Sort key that orders ISO timestamps newest first."""
    return "".join(chr(0x10FFFF - ord(c)) for c in said)
