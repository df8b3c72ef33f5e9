"""Confidence: a plan becomes a live record only when its evidence can defend it.

The plan reader (:mod:`~dream.detect.plans`) follows plans message by message and keeps,
for each, the messages that named it and the fields each one wrote. Before its events
are written, this module checks the plan against everything the call read about it:

- **An unresolved change.** A message that names the plan (or wrote to it) and says it
  changed ("moved to", "now at", "instead", "verschoben auf", "décalé au", "pasa al")
  gives a day or a time in its change that the plan does not have, the message wrote no
  day (or time) to the plan, and no later message set that field again: the change was
  not understood, so the plan's day or time cannot be defended. A plan written in this call is then not written at all; a record of
  the scope keeps its values (nothing changes on a guess). Either way a question is
  written instead (``which value?`` on a record of the scope; a question naming the
  plan and both values for a plan never written, which a person answers by writing or
  correcting the record).

- **A change starts no plan.** A plan first named by a message that says something
  changed ("the ceremony is now at 1:30pm", "Verschiebung Elternabend", "Change to your
  parents' evening appointment ... moved to Monday") presupposes a plan it changes; when
  the reader found none to attach it to, what it would write is a guess: it is not
  written, and a question quoting the message asks which plan it changes. After a plan
  of the conversation was declined or called off, a change is a new offer ("Sorry, I
  can't make it on the 14th" - "We moved the birthday lunch to Sunday 15 March so you
  can come!"), and "instead" names a replacement ("got us a table at Berenjak
  instead"): both start a plan.

The words of a change are the plan reader's own (``MOVE``, read after
:func:`~dream.detect.cues.english_cues`), so this adds no cue word; it only refuses to
write what the reader could not reconcile.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from dream.detect.finding import Finding
from dream.detect.plan_words import CLAUSE_RE, MOVE, UNTIL, Plan, same_activity
from dream.kinds.questions import value_question
from dream.kinds.records import record_path
from dream.kinds.text import find_date, find_time

INSTEAD = re.compile(r"instead", re.I)

_WORDS = (("date", "day"), ("time", "time"))


@dataclass
class Heard:
    """One message the plan reader read: its handle, conversation, English-cued text and
    when it was said."""

    id: str
    stream: str
    text: str
    said: Any
    author: str
    as_said: str = ""       # the text in its own words, before the cues were read as English


def _names(plan: Plan, heard: Heard) -> bool:
    if heard.id in plan.named or any(h == heard.id for h, _ in plan.steps):
        return True
    low = heard.text.lower()
    place = plan.fields.get("place")
    if place and place.lower() in low:
        return True
    head = plan.activity.split()[-1].lower()
    return len(head) > 3 and head not in ("plan", "booking", "reservation") and \
        any(same_activity(head, w) for w in low.split())


def unresolved(plan: Plan, heard: list[Heard]) -> tuple[dict[str, str], str]:
    """The fields (``date``, ``time``) a change said about ``plan`` gives a value the plan
    does not have, with no later message setting them again (field -> the changed value),
    and the handle of the message that said it."""
    order = {h.id: n for n, h in enumerate(heard)}
    written: dict[str, int] = {}
    wrote: dict[str, set[str]] = {}
    for handle, fields in plan.steps:
        for name in fields:
            written[name] = max(written.get(name, -1), order.get(handle, -1))
            wrote.setdefault(handle, set()).add(name)
    out: dict[str, str] = {}
    by = ""
    for n, h in enumerate(heard):
        if not MOVE.search(h.text) or not _names(plan, h):
            continue
        for name, value in _changed_to(h).items():
            have = plan.fields.get(name)
            # (a change the reader did write is its reading: "shifted to the 21st–23rd"
            # of an August trip is 21 August, which a bare re-reading would not know)
            if value and have and value != have and name not in wrote.get(h.id, set()) \
                    and written.get(name, -1) <= n:
                out[name], by = value, h.id
    return out, by


def _changed_to(heard: Heard) -> dict[str, str]:
    """The day and time a message's change gives: said after its change word ("moved to
    Friday"), or else in the clause of the change word ("is Wednesday 2 Dec instead")."""
    out: dict[str, str] = {}
    for clause in CLAUSE_RE.split(heard.text):
        move = MOVE.search(clause or "")
        if move is None:
            continue
        after = UNTIL.sub(" ", clause[move.start():])
        whole = UNTIL.sub(" ", clause)
        date = find_date(after, heard.said) or find_date(whole, heard.said)
        clock = find_time(after) or find_time(whole)
        if date:
            out.setdefault("date", date)
        if clock:
            out.setdefault("time", clock)
    return out


def started_by_change(plan: Plan, heard: list[Heard], others: list[Plan],
                      rows: list[dict[str, Any]]) -> Heard | None:
    """The message a plan new in this call was first named by, when it says something
    changed (not "instead", which names a replacement) and no plan of the conversation
    was called off or declined (``others``: the plans of the call; ``rows``: the scope's
    records, an event of the message's author); None otherwise."""
    if plan.handle_row:
        return None
    mine = plan.named | {h for h, _ in plan.steps}
    first = next((h for h in heard if h.id in mine), None)
    if first is None:
        return None
    changes = [m for m in MOVE.finditer(first.text) if not INSTEAD.fullmatch(m[0])]
    off = ("declined", "cancelled")
    if any(p is not plan and p.stream == first.stream and p.fields.get("status") in off
           for p in others) or \
            any(r["kind"] == "event" and r["fields"].get("status") in off and first.author and
                first.author.lower() in r["fields"].get("participants", "").lower()
                for r in rows):
        return None     # after a no in this conversation, a new offer: "we moved the
        #                 birthday lunch to Sunday so you can come"
    return first if changes else None


def change_question(plan: Plan, by: Heard, title: str) -> Finding:
    """The question asked instead of a plan a change message would have started."""
    quoted = " ".join(by.text.split())
    quoted = quoted if len(quoted) <= 90 else quoted[:89] + "…"
    who = by.author or "You"
    text = (f"{who} wrote \"{quoted}\": which plan does this change ('{title}' is not "
            "known yet)?")
    return Finding("question", {"text": text, "status": "open"}, [by.id],
                   name=f"changed {title}")


def question(plan: Plan, changed: dict[str, str], evidence: str, title: str,
             key: str | None) -> Finding:
    """The question asked instead of writing ``plan``'s disputed field."""
    name, word = next((f, w) for f, w in _WORDS if f in changed)
    when = " ".join(v for v in (plan.fields.get("date", ""), plan.fields.get("time", "")) if v)
    text = (f"A message changed '{title}'" + (f" ({when})" if when else "") +
            f" and its new {word} is unclear: is it {changed[name]} or still "
            f"{plan.fields.get(name, '')}?")
    if key:
        qkey, q = value_question(record_path("event", key), name,
                                 [changed[name], plan.fields.get(name, "")], text)
        return Finding("question", q.fields(), [evidence], name=qkey)
    return Finding("question", {"text": text, "status": "open"}, [evidence],
                   name=f"unclear {title} {name}")
