"""Render (code): ``brief.md`` for a scope, trimmed to a token cap.

Sections in priority order: open questions; "Coming up" (live events, that is proposed or
confirmed, from two days ago to 30 days ahead, or with no date yet); "Changed" (events
cancelled or declined in the last 7 days, so a plan that fell through is seen once rather
than silently dropped); open to-dos; standing facts; "Later" (confirmed plans 30 to 365
days ahead); the memory notes (in a project's brief first how to work here (commands),
rules (directives and corrections), decisions (the user's answers to the agent's questions),
known pitfalls (failures) and open threads, then the notes written with the notes tools
(live ones, newest first), then every other note). A preference or rule said in the first
person is shown as the user's ("I prefer X" -> "The user prefers X", :mod:`dream.kinds.voice`):
the brief is read by an agent in a later session, for whom "I" would be itself. So are to-do
titles ("Renew my passport" -> "Renew the user's passport"; one another person asked for is
theirs: "Send me the invoice" from Sam -> "Send Sam the invoice"), standing facts and fact
notes; the records keep the words as said. An event line never repeats in its "with ..."
part a participant or place its title already names. Every line ends with a link to the record it comes
from (``[events/<key>.md]``), so it can be traced. Lines are added in priority order while
the brief stays within ``max_tokens`` (counted with :func:`dream.tokens.count`). The brief's
"now" is the latest ``said_at`` of what was read (``State.read_as_of``: messages, sessions),
so rendering the same state gives the same bytes, and a change a person typed through Dream
(a correction, a crumple, an answer; said when typed) neither moves the "As of" line nor the
windows of "Coming up" and "Later"; the head line says when such a change came after, and
"Changed" shows an event cancelled by hand after the latest message.
"""

from __future__ import annotations

import re
from datetime import timedelta

from dream import tokens
from dream.kinds.records import Record, one_line
from dream.kinds.text import parse_when
from dream.kinds.voice import the_users
from dream.pipeline.state import State, WrittenNote

NEAR_BEFORE = timedelta(days=2)
NEAR_AFTER = timedelta(days=30)
LATER_AFTER = timedelta(days=365)
CHANGED_WITHIN = timedelta(days=7)
LIVE = ("proposed", "confirmed")
NOTE_PRIORITY = {"correction": 0, "directive": 1, "preference": 2, "failure": 3, "fact": 4}
# notes that hold the user's own words (a decision also quotes the agent's question)
USERS_WORDS = ("preference", "directive", "correction", "fact")


def _link(rec: Record) -> str:
    return f"[{rec.path}]"


def sections(state: State) -> list[tuple[str, list[str]]]:
    now = parse_when(state.read_as_of() or state.as_of())
    latest = parse_when(state.as_of())
    # a change made by hand after the latest message is still "Changed"
    since = latest - now if now is not None and latest is not None and latest > now \
        else timedelta(0)
    out: list[tuple[str, list[str]]] = []

    qs = [r for r in state.of_kind("question") if r.get("status", "open") == "open"]
    out.append(("Open questions", [f"- {one_line(r.get('text'))} {_link(r)}" for r in qs]))

    events = [r for r in state.of_kind("event") if (r.get("status") or "proposed") in LIVE]
    near = [r for r in events if _within(r.get("date"), now, -NEAR_BEFORE, NEAR_AFTER, True)]
    out.append(("Coming up", [_event_line(r) for r in _by_date(near)]))

    changed = [r for r in state.of_kind("event")
               if r.get("status") in ("cancelled", "declined") and
               _within(r.fields["status"].said_at, now, -CHANGED_WITHIN, since, False)]
    out.append(("Changed", [_event_line(r) for r in _by_date(changed)]))
    shown = {id(r) for r in near}
    later = [r for r in events if r.get("status") == "confirmed" and id(r) not in shown and _within(r.get("date"), now, NEAR_AFTER, LATER_AFTER, False)]

    todos = [r for r in state.of_kind("todo") if r.get("status", "open") == "open"]
    todos.sort(key=lambda r: (r.get("due") or "9999", r.key))
    out.append(("Open to-dos", [
        f"- {_todo_title(r)}{' (due ' + r.get('due') + ')' if r.get('due') else ''} {_link(r)}"
        for r in todos]))

    standing = state.standing()
    facts = []
    if standing:
        for name in standing.ordered_fields():
            facts.append(f"- {name.replace('_', ' ')}: {the_users(one_line(standing.get(name)))} "
                         f"[standing.md#{name}]")
    out.append(("Standing facts", facts))

    out.append(("Later", [_event_line(r) for r in _by_date(later)]))

    notes = [r for r in state.of_kind("note") if r.get("status", "live") == "live"]
    notes.sort(key=lambda r: (NOTE_PRIORITY.get(r.get("type"), 5),
                              _neg(r.latest_said()), r.key))
    project = state.scope.root.startswith("projects/")
    for title, types in NOTE_SECTIONS if project else []:
        mine = [r for r in notes if r.get("type") in types]
        if title == "How to work here":
            mine.sort(key=lambda r: (PURPOSE_ORDER.get(r.get("purpose"), 9), r.key))
        out.append((title, [_note_line(r) for r in mine]))
    placed = {t for _, types in NOTE_SECTIONS for t in types} if project else set()
    written = sorted((n for n in state.written.values() if n.status == "live"),
                     key=lambda n: (_neg(n.updated), n.path))
    lines = [line for n in written if (line := _written_line(n))]
    if state.written_beyond:
        lines = [f"- {state.written_beyond} notes written with the notes tools, too many to "
                 f"list here: find them with 'dream notes find' or 'dream notes list "
                 f"{state.scope.address_prefix}'"]
    out.append(("Written notes", lines))
    out.append(("Notes", [_note_line(r) for r in notes if r.get("type") not in placed]))
    return out


def _todo_title(r: Record) -> str:
    """A to-do's title as the agent reading the brief should take it: its first person is
    the user's, or the person's who asked for it (its ``from``)."""
    asked_by = one_line(r.get("from") or "").strip()
    return the_users(one_line(r.title), asked_by or "the user")


def _written_line(note: WrittenNote) -> str:
    """A written note's line: its title and text on one line, or '' when it has neither."""
    text = ": ".join(x for x in (note.title, note.text) if x)
    return f"- {_clip(text, 240)} [{note.path}]" if text else ""


def _within(value: str, now, start: timedelta, end: timedelta, undated: bool) -> bool:
    """Whether ``value`` (a date or timestamp) falls in [now + start, now + end]; a missing
    or unreadable value, or no "now", counts as ``undated``."""
    when = parse_when(value or "")
    if now is None or when is None:
        return undated
    return now + start <= when <= now + end


def _by_date(events: list[Record]) -> list[Record]:
    return sorted(events, key=lambda r: (r.get("date") or "9999", r.get("time"), r.key))


def _event_line(r: Record) -> str:
    when = " ".join(x for x in (r.get("date"), r.get("time")) if x) or "date unknown"
    title = one_line(r.title)
    where = f" at {r.get('place')}" if r.get("place") and \
        not _names(title, r.get("place")) else ""
    people = [p.strip() for p in r.get("participants").split(",") if p.strip()
              and not _names(title, p.strip()) and not _names(r.get("place"), p.strip())]
    joiner = " and " if re.search(r"\bwith\b", title, re.I) else " with "
    who = joiner + ", ".join(people) if people else ""
    status = r.get("status") or "proposed"
    return f"- {when}: {title}{where}{who} ({status}) {_link(r)}"


def _names(text: str, name: str) -> bool:
    """Whether ``text`` already names ``name`` (as whole words, any case)."""
    return bool(name) and re.search(r"(?<!\w)" + re.escape(name.lower()) + r"(?!\w)",
                                    (text or "").lower()) is not None


# what a coding project's brief shows first: how to work, its rules, the decisions taken, its
# pitfalls, its open threads; every other note follows under "Notes"
NOTE_SECTIONS = [("How to work here", ("command",)), ("Rules", ("correction", "directive")),
                 ("Decisions", ("decision",)), ("Known pitfalls", ("failure",)),
                 ("Open threads", ("thread",))]
PURPOSE_ORDER = {"install": 0, "configure": 1, "build": 2, "database": 3, "test": 4, "lint": 5,
                 "format": 6, "run": 7, "release": 8, "tasks": 9, "scripts": 10}


def _note_line(rec: Record) -> str:
    """A note's line: its text, then what counts for it (toolchain, times and sessions)."""
    said = rec.get("said") if not rec.get("said", "").startswith("1 time ") else ""
    extra = "; ".join(x for x in (rec.get("toolchain"), said) if x)
    text = one_line(rec.get("text") or rec.title)
    if rec.get("type") in USERS_WORDS:
        text = the_users(text)     # read later by an agent, "I prefer" would be its own
    text = _clip(text, 240 - (len(extra) + 3 if extra else 0))    # the line, count included
    return f"- {text}{f' ({extra})' if extra else ''} {_link(rec)}"


def render_brief(state: State, max_tokens: int = 2000) -> str:
    """The brief under ``max_tokens``: sections in order, each line whole. When lines do
    not fit, the last line says how many were left out (room for it is kept)."""
    title = "projects/" + state.scope.root.split("/", 1)[1] if "/" in state.scope.root \
        else state.scope.root
    head = [f"# Brief: {title}", "", as_of_line(state), ""]
    start = "\n".join(head) + "\n"
    parts = [(name, lines) for name, lines in sections(state) if lines]
    text, omitted = _fill(start, parts, max_tokens)
    if omitted:
        def tail(n: int) -> str:
            return f"_{n} more lines left out to stay within {max_tokens} tokens._\n"

        text, omitted = _fill(start, parts, max_tokens - tokens.count(tail(10 ** 6)) - 1)
        text += tail(omitted)
    return text


def as_of_line(state: State) -> str:
    """When the brief's memory was read: the latest said_at of collected evidence; a change
    a person typed later through Dream (correction, crumple, answer) is named after it, so
    the line never reads as fresher evidence than there is."""
    read, by_hand = state.read_as_of(), state.read_as_of(by_hand=True)
    line = f"As of {read or 'no evidence yet'}"
    if by_hand > read and not read:
        line += f"; changed by hand (last {by_hand})"
    elif by_hand > read:
        line += f", the latest evidence read; changed by hand since (last {by_hand})"
    return line + ". Written by Dream from the records linked on each line."


def _fill(start: str, parts: list[tuple[str, list[str]]], budget: int) -> tuple[str, int]:
    """``start`` and as many whole lines of ``parts`` as fit in ``budget`` tokens; the
    number of lines left out."""
    text = start
    used = tokens.count(text)
    omitted = 0
    for name, lines in parts:
        header = f"## {name}\n"
        header_cost = tokens.count(header) + 1
        if used + header_cost > budget:
            omitted += len(lines)
            continue
        block = header
        block_used = header_cost
        shown = 0
        for line in lines:
            cost = tokens.count(line) + 1
            if used + block_used + cost > budget:
                omitted += 1
                continue
            block += line + "\n"
            block_used += cost
            shown += 1
        if shown:
            text += block + "\n"
            used += block_used + 1
    # counted per line, a whole text can come out a token or two longer: drop lines (and
    # count them) until it fits
    while tokens.count(text) > budget and text.count("\n") > start.count("\n"):
        last = text.rstrip("\n").rsplit("\n", 1)
        if not last[1].startswith("## "):
            omitted += 1
        text = last[0] + "\n"
    return text, omitted


def _clip(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _neg(said: str) -> str:
    """Sort key that orders ISO timestamps newest first."""
    return "".join(chr(0x10FFFF - ord(c)) for c in said)
