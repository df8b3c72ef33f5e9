"""The events a plan reader (:mod:`~dream.detect.plans`) writes at the end of a call.

Each plan followed becomes one event operation per message that said something of it
(a message's first word on a field, unless a change later in it gives another), titled by
its kind and place or first participant ("Lunch at Hoppers", "Boda – Hacienda San Rafael").
A plan is written only when its evidence can defend it (:mod:`~dream.detect.confidence`);
otherwise a question is asked instead.
"""

from __future__ import annotations

import re
from datetime import timedelta
from typing import TYPE_CHECKING

from dream.detect import confidence
from dream.detect.finding import Finding
from dream.detect.plan_words import GENERIC, NEEDS_MODIFIER, Plan, iso, professions
from dream.kinds.dates import is_date_word
from dream.kinds.records import MAX_KEY, slug_key
from dream.kinds.text import WEEKDAYS

if TYPE_CHECKING:
    from dream.detect.plans import PlanReader


def events(reader: PlanReader) -> list[Finding]:
    """The events of the plans ``reader`` followed so far. A plan without a date or time,
    or with neither a place nor anybody in it, is not an event yet; nor is a new plan
    nobody has booked, confirmed, declined or cancelled by the end of the call (a
    suggestion: a wrong "Coming up" line costs more than a missing one)."""
    reader.found = []
    titles: dict[int, str] = {}
    for plan in reader.plans:
        if plan.handle_row:
            titles[id(plan)] = plan.fields.get("title", "")
            continue
        who = plan.fields.get("place") or (plan.participants[0] if plan.participants
                                           else "")
        prep = ("to" if plan.activity in ("trip", "flight") else "at") \
            if plan.fields.get("place") else "with"
        if plan.subject:
            who, prep = plan.subject, "for"
        what = plan.activity
        if plan.fields.get("place") and what.split()[-1] not in NEEDS_MODIFIER:
            what = what.split()[-1]     # "Lunch at Hoppers": the place says which lunch
        # (a visit called by its trade as said, "Kinésithérapie", says more than the
        # subject "Confirmation de votre rendez-vous")
        about = _mail_subject(plan, reader) if what.split()[-1] in GENERIC and \
            not plan.subject and not (plan.said_as and professions(plan.activity)) else None
        if about:
            # "Annual gas safety check – Harbour Lettings": a booking of no kind is named by
            # what the mail that told of it is about
            titles[id(plan)] = f"{about} – {who}" if who else about
            continue
        if plan.said_as:
            # "Boda – Hacienda San Rafael": the kind of event in the words it was said in
            # (the record's key and activity stay English, so it is one record whatever
            # language later messages use)
            said = plan.said_as[0].upper() + plan.said_as[1:]
            titles[id(plan)] = f"{said} – {who}" if who else said
            continue
        titles[id(plan)] = f"{what[0].upper()}{what[1:]} {prep} {who}" if who else \
            what.capitalize()
    for plan in reader.plans:
        if not plan.steps:
            continue
        if not plan.handle_row and not (plan.fields.get("date") or plan.fields.get("time")):
            continue        # a plan with neither date nor time is not an event yet
        if not plan.handle_row and not (plan.fields.get("place") or plan.participants) \
                and not (plan.activity not in GENERIC and plan.fields.get("date") and
                         plan.fields.get("time") and plan.user_in):
            continue        # nor one with neither a place nor anybody in it (but the
            #                 user's own "dentist appointment on Thursday at 10:15")
        status = plan.fields.get("status")
        if not plan.handle_row and status in (None, "proposed"):
            continue        # a suggestion nobody agreed to is no plan yet
        if not plan.handle_row and status in ("cancelled", "declined") and \
                plan.steps[0][1].get("status") == status:
            continue        # cancelling or declining what was never written: nothing
        start = confidence.started_by_change(plan, reader.heard, reader.plans,
                                                 reader.rows)
        if start is not None and status not in ("cancelled", "declined"):
            reader.questions.append(confidence.change_question(
                plan, start, titles.get(id(plan)) or plan.activity))
            continue
        changed, by = confidence.unresolved(plan, reader.heard)
        if changed and status not in ("cancelled", "declined"):
            # a change said about it that was not understood: ask, do not guess
            key = next((r["key"] for r in reader.rows if r["handle"] == plan.handle_row),
                       None)
            reader.questions.append(confidence.question(
                plan, changed, by, titles.get(id(plan)) or plan.activity, key))
            if not plan.handle_row:
                continue
            plan.steps = [(h, {k: v for k, v in f.items() if k not in changed})
                          for h, f in plan.steps]
        if not plan.handle_row and not plan.fields.get("date"):
            continue        # a plan with no day is not an event yet: a time alone ("Both
            #                 12:30", "around 7?") places nothing on a calendar
        if not plan.handle_row and plan.said is not None and \
                re.fullmatch(r"\d{4}-\d\d-\d\d", plan.fields["date"]) and \
                iso(plan.fields["date"]) < plan.said.date() - timedelta(days=1) and \
                iso(plan.fields["date"]).year < plan.said.year:
            continue        # a day of an earlier year, already past when it was talked
            #                 about ("notes from our workshop on 15 December 2025",
            #                 forwarded a year on): what happened, no plan to keep (a day
            #                 of this year read as past may be next year's: kept)
        if plan.handle_row:
            name, row = None, plan.handle_row
        else:
            who = plan.subject or plan.fields.get("place") or (
                plan.participants[0] if plan.participants else "")
            title = titles[id(plan)]
            twins = [o for o in reader.plans if o is not plan and titles.get(id(o)) and
                     titles[id(o)].split(" (")[0] == title]
            if twins and plan.fields.get("date"):
                # two bookings of one thing (a cancelled one and its replacement)
                title += f" ({WEEKDAYS[iso(plan.fields['date']).weekday()].title()})"
            name = _key_name(plan.activity, who, plan.fields.get("date", ""))
            row = None
            plan.steps[0][1].setdefault("title", title)
            plan.steps[0][1]["activity"] = plan.activity
            if "status" not in plan.fields:
                plan.steps[0][1]["status"] = "proposed"
        # one message says a field once: its first word on it, unless a change said
        # later in it gives another ("private booking on Thursday, so game night is
        # Wednesday 2 Dec instead": Wednesday; a forwarded mail below the user's words
        # is older than them)
        said_by: dict[str, dict[str, str]] = {}
        for handle, fields in plan.steps:
            mine = said_by.setdefault(handle, {})
            mine.update(fields if id(fields) in reader.moves else
                        {k: v for k, v in fields.items()
                         if k not in mine or k == "participants"})   # (a growing list)
        for handle, fields in said_by.items():
            if fields:
                reader.found.append(Finding("event", dict(fields), [handle], name=name,
                                          row=row))
    asked: set[str | None] = set()
    for question in reader.questions:     # one question per record and field
        if question.name not in asked:
            asked.add(question.name)
            reader.found.append(question)
    return reader.found


def _key_name(activity: str, who: str, day: str) -> str:
    """The name a new event's key is made from: its kind, place or person, and day. The day
    is kept whole when the key is cut to its length (a cancelled booking and the one made
    in its place at the same practice differ only by it)."""
    name = f"{activity} {who} {day}".strip()
    if not day or len(slug_key(name)) < MAX_KEY:
        return name
    stem = slug_key(f"{activity} {who}")[:MAX_KEY - len(day) - 1].rstrip("-")
    return f"{stem} {day}"


_SUBJECT = re.compile(r"^Subject:[ \t]*(.+)$", re.M)
_REPLY = re.compile(r"^(?:(?:re|fwd?|aw|wg|tr|rv|rif)\s*:\s*)+", re.I)


def _mail_subject(plan: Plan, reader: PlanReader) -> str | None:
    """What the first mail that named ``plan`` is about, by its subject line: the part after
    a label ("Your booking: The Crucible - Sat 16 Jan" -> "The Crucible"), up to its first
    day, time or reference; None when the plan was not told of in a mail or the subject
    says nothing more than that it is a booking."""
    mine = plan.named | {h for h, _ in plan.steps}
    for heard in reader.heard:
        if heard.id not in mine:
            continue
        # (in the words it was written in: "Confirmation de votre rendez-vous")
        m = _SUBJECT.search(heard.as_said or heard.text)
        if m is None:
            return None
        subject = _REPLY.sub("", m[1].strip())
        subject = subject.rsplit(": ", 1)[-1]
        words = []
        for word in re.split(r"\s+", subject):
            bare = word.strip(",.;:()-–")
            if not bare or any(c.isdigit() for c in bare) or is_date_word(bare) or \
                    word in ("-", "–", "|"):
                break
            words.append(bare)
        about = " ".join(words)
        low = about.lower()
        if len(about) < 4 or re.search(r"\b(?:booking|reservation|réservation|reserva|"
                                       r"buchung|bestätigung|confirm\w*|order)\b", low) and \
                len(words) <= 3:
            return None
        return about
    return None

