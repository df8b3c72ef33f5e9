"""Which plan a message is about, for the plan reader (:mod:`~dream.detect.plans`).

The reader decides what a clause says (a kind of event, a day, a time, a place, a status);
these methods decide which plan it says it of: the plan this message or thread named, a
record of the scope (``rows``) of the same kind, place, day or people, the one plan a
change naming no plan can be about, a plan that a correction by its old value ("not
19:00 but 19:30", "not Lakeside Lodge but The Foundry") names, the plan replaced by one
said to come "instead", and the person who joins a plan told of as shared.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

from dream.detect.plan_words import (
    BOOKING_WORDS,
    GENERIC,
    SHARED,
    Plan,
    near,
    place_name,
    same_activity,
    same_place,
    weekday_of,
)
from dream.detect.prose import stems
from dream.items import Item
from dream.kinds.dates import is_date_word
from dream.kinds.text import find_date, find_time, parse_when, weekday_only

# "on the 17th", "the 30th": a day of the month and nothing else (no month after it)
_BARE_NTH = re.compile(r"\bthe\s+(\d{1,2})(?:st|nd|rd|th)\b(?!\s+(?:of\s+)?(?:jan|feb|mar|apr|"
                       r"may|jun|jul|aug|sep|oct|nov|dec))", re.I)

# a place said with the one it replaces: "not Lakeside Lodge but The Foundry", "nicht im
# Adler, sondern in der Krone", "pas au Comptoir mais chez Sophie", "no en X sino en Y"
_NAME = r"(?:[Tt]he\s+|[Ll][ae]\s+|[Ll]'|[Ee]l\s+)?[A-ZÄÖÜÉ][\w'&-]*(?:\s+(?:de\s+|del\s+|la\s+)?[A-ZÄÖÜÉ][\w'&-]*){0,3}"
_PREP = r"(?:(?:at|in|im|in der|au|à|à la|en|en el|chez|bei|with|to)\s+)?"
_NOT_THIS_PLACE = re.compile(
    r"\b(?:not|nicht|pas|no)\s+" + _PREP + r"(?P<old>" + _NAME + r")(?:\s*,\s+|\s+)"
    r"(?:but|sondern|mais|sino)\s+" + _PREP + r"(?P<new>" + _NAME + r")")
# the time a correction says it is not: "nicht um 12:30", "not 19:00", "au lieu de 08:04"
_NOT_THIS_TIME = re.compile(
    r"(?:\b(?:not|nicht|pas|no|instead of|au lieu de|en vez de|en lugar de|statt|anstatt|"
    r"rather than)\s+)(?P<rest>(?:(?:um|at|à|a las?|at|for|de|el|la|for)\s+){0,2}"
    r"(?:\d{1,2}[:.h]\d\d|\d{1,2}\s*(?:uhr|h|am|pm)\b|halb \w+))", re.I)


def same_people(named: set[str], parts: set[str]) -> bool:
    """Whether someone ``named`` (lower case) is one of ``parts``: the same name, or a
    first name said alone of someone in it by their full name ("Kim's off sick" of a plan
    with "Kim Lowe")."""
    return bool(named & parts) or any(
        " " not in n and any(p.startswith(n + " ") for p in parts) for n in named)


def plan_of_row(row: dict[str, Any], activity: str = "plan") -> Plan:
    """A stored event record as a plan of this call: its fields copied, its participants
    read from their comma list, its handle kept so the change lands on that record."""
    f = row["fields"]
    return Plan(activity=f.get("activity", activity), handle_row=row["handle"], fields=dict(f),
                participants=[p.strip() for p in f.get("participants", "").split(",")
                              if p.strip()])


class PlanTargets:
    """The plan-finding half of :class:`~dream.detect.plans.PlanReader` (its state is the
    reader's: ``rows``, ``plans``, ``unclear``, ``groups``, ``heard``, ``task_talk``)."""

    rows: list[dict[str, Any]]
    plans: list[Plan]
    unclear: list[dict[str, Any]]
    groups: set[str]
    heard: list[Any]
    task_talk: dict[str, str]

    def _about_task(self, stream: str, moved: bool) -> bool:
        """Whether a message without a plan's kind speaks of an open to-do of the scope
        rather than of a plan: it says a change and names the to-do's thing (two of its
        content words besides days: "Update on the vendor report: let's say Monday 14th
        instead" of the to-do "get me a draft of the vendor spend report by Friday"), or it
        answers such a change in its conversation ("Monday 14th it is"). It changes the
        task, not a plan."""
        here = [h for h in self.heard if h.stream == stream]
        if not here:
            return False
        if len(here) > 1 and self.task_talk.get(stream) == here[-2].id:
            return True
        titles = [r["fields"].get("title", "") for r in self.rows if r["kind"] == "todo" and
                  r["fields"].get("status", "open") == "open"]
        said = {w for w in stems(here[-1].text) if not is_date_word(w)}
        # (the to-do's thing, not its verb: "the cupboard's done - cleared it last night"
        # names the to-do "Clear out the cupboard" only once)
        things = [re.sub(r"^\S+(?:\s+(?:out|up|off|in|back|over|away|round))?\s+", "", t)
                  for t in titles]
        if moved and any(len(said & {w for w in stems(t) if not is_date_word(w)}) >= 2
                         for t in things):
            self.task_talk[stream] = here[-1].id
            return True
        return False

    def _corrected_times(self, item: Item, text: str, stream: str) -> str:
        """A time or place said with the one it replaces ("am 14.3. erst um 13 Uhr, nicht
        um 12:30", "nicht 19 Uhr, sondern 19:30", "départ 09:04 (au lieu de 08:04)", "not
        Lakeside Lodge but The Foundry") changes the plan that has the old value: the old
        value names the plan, whoever says it, so it needs no activity. Only when one live
        plan (of this call or the scope) has that value and, if the sentence names a day,
        that day; otherwise nothing changes. The old value is taken out of the text, so no
        other reading takes it for a plan's."""
        out = text
        for sentence in re.split(r"(?<=[.!?])\s+|\n+", text):
            m = _NOT_THIS_TIME.search(sentence)
            if not m:
                continue
            old = find_time(m[0][m.start("rest") - m.start():])
            new = find_time(sentence[:m.start()] + " " + sentence[m.end():])
            out = out.replace(m[0], " ", 1)
            if not old or not new or old == new:
                continue
            self._correct(item, stream, sentence, "time", old, new)
        for sentence in re.split(r"(?<=[.!?])\s+|\n+", out):
            m = _NOT_THIS_PLACE.search(sentence)
            if m and place_name(m["old"]) and place_name(m["new"]):
                if self._correct(item, stream, sentence, "place", place_name(m["old"]),
                                 place_name(m["new"])):
                    out = out.replace(m[0], " " + m["new"], 1)
        return out

    def _correct(self, item: Item, stream: str, sentence: str, name: str, old: str,
                 new: str) -> bool:
        """Set ``name`` to ``new`` on the one live plan whose ``name`` is ``old`` (and whose
        day is the sentence's, if it names one); none or several: nothing changes."""
        def has(f: dict[str, str]) -> bool:
            return f.get(name) == old if name == "time" else same_place(f.get(name), old)

        day = find_date(sentence, parse_when(item.said_at))
        plan = self._the_one(lambda f: has(f) and
                             f.get("status") not in ("cancelled", "declined") and
                             (not day or not f.get("date") or f["date"] == day))
        if plan is None:
            return False
        plan.fields[name] = new
        plan.steps.append((item.id, {name: new}))
        plan.named.add(item.id)
        plan.stream, plan.said = stream, parse_when(item.said_at)
        return True

    def _joins(self, item: Item, stream: str, author: str | None, said: Any,
               text: str) -> None:
        """In a conversation of the user with one other person, that person answering a
        plan the user told them of as shared ("we", "our", "you and me", "your inbox too"),
        or answering it as shared themselves ("here we come"), is in it."""
        if not author or stream in self.groups or not self.plans:
            return
        plan = self.plans[-1]
        if plan.stream != stream or not plan.user_in or not near(plan.said, said, 24) or \
                author in plan.participants:
            return
        if not (plan.shared or SHARED.search(text)):
            return
        plan.participants.append(author)
        plan.steps.append((item.id, {"participants": ", ".join(plan.participants)}))

    def _replaced(self, plan: Plan, stream: str) -> Plan | None:
        """The plan a new one said to come "instead" replaces: the last one called off in
        this call, of the same kind or a booking, that the user was in (a record of the
        scope, or a plan they proposed, booked or joined)."""
        for other in reversed(self.plans):
            if other is plan or other.fields.get("status") not in ("cancelled", "declined"):
                continue
            if not (other.handle_row or other.user_in):
                continue
            if other.stream == stream or same_activity(other.activity, plan.activity) or \
                    {other.activity.split()[-1], plan.activity.split()[-1]} & BOOKING_WORDS:
                return other
        return None

    def _replaced_live(self, plan: Plan, place: str | None, author: str | None, said: Any,
                       item_id: str) -> Plan | None:
        """The live plan a booking at another place "instead" replaces ("they close on
        Saturday, so I booked Le Petit Cambodge instead"): the one live event of that kind
        (or a booking) still ahead that the speaker is in, at another place. It is called
        off by this message; none or several: nothing is replaced."""
        if not place:
            return None
        who = (author or "").lower()
        kinds = {plan.activity.split()[-1]} | BOOKING_WORDS

        def fits(activity: str, f: dict[str, str], people: list[str]) -> bool:
            return (activity.split()[-1] in kinds or same_activity(activity, plan.activity) or
                    plan.activity.split()[-1] in BOOKING_WORDS) \
                and f.get("status") not in ("cancelled", "declined") and \
                bool(f.get("place")) and not same_place(f.get("place"), place) and \
                (not who or who in {p.lower() for p in people}) and \
                (said is None or not f.get("date") or f["date"] >= said.date().isoformat())

        hits = [p for p in self.plans if p is not plan and (p.handle_row or p.user_in) and
                fits(p.activity, p.fields, p.participants)]
        loaded = {p.handle_row for p in self.plans if p.handle_row}
        for row in self.rows:
            f = row["fields"]
            people = [p.strip() for p in f.get("participants", "").split(",") if p.strip()]
            if row["kind"] == "event" and row["handle"] not in loaded and \
                    fits(f.get("activity", "plan"), f, people):
                hits.append(plan_of_row(row))
        if len(hits) != 1:
            return None
        old = hits[0]
        if old.handle_row and old not in self.plans:
            self.plans.insert(len(self.plans) - 1, old)
        old.fields["status"] = "cancelled"
        old.steps.append((item_id, {"status": "cancelled"}))
        return old

    def _named_here(self, item_id: str, activity: str) -> Plan | None:
        """The plan of another kind the message already named with a date, if any."""
        return next((p for p in reversed(self.plans) if item_id in p.named and
                     p.fields.get("date") and not same_activity(p.activity, activity)), None)

    def _borrowed(self, plan: Plan, name: str) -> str | None:
        """The field of the plan a "same day"/"same time" refers to: the plan itself, or
        the one of the same kind it replaces."""
        if plan.fields.get(name):
            return plan.fields[name]
        for other in reversed(self.plans):
            if other is not plan and other.fields.get(name) and (
                    same_activity(other.activity, plan.activity) or
                    other.activity.split()[-1] in GENERIC or plan.activity.split()[-1] in GENERIC):
                return other.fields[name]
        return None

    def _known_places(self) -> set[str]:
        out = {p.fields.get("place", "").lower() for p in self.plans}
        out |= {r["fields"].get("place", "").lower() for r in self.rows if r["kind"] == "event"}
        return out - {""}

    def _target_plan(self, activity: str | None, place: str | None, status: str | None,
                     people: list[str], date: str | None = None,
                     stream: str | None = None, weekday: int | None = None,
                     item_id: str | None = None, moved: bool = False,
                     clock: str | None = None) -> Plan | None:
        if activity and activity.split()[-1] in BOOKING_WORDS:
            # "Team dinner!! Booked Dishoom for Thursday": the plan this message named
            for plan in reversed(self.plans):
                if item_id in plan.named and not plan.fields.get("place") and \
                        not plan.fields.get("date"):
                    return plan
            # "the booking", "your table": the plan talked about (at that place), if any
            for plan in reversed(self.plans):
                if (place and same_place(plan.fields.get("place"), place)) or \
                        (not place and plan.stream == stream):
                    return plan
            if place and date:
                # the venue's own mail about a plan made without its place: same day
                for plan in reversed(self.plans):
                    if plan.fields.get("date") == date and not plan.fields.get("place") and \
                            plan.fields.get("status") not in ("cancelled", "declined"):
                        return plan
            if not place or date:
                row = self._row_for(None, None, people, date, weekday, same_day=bool(place))
                if row is not None and (not place or not row.fields.get("place") or
                                        same_place(row.fields.get("place"), place)):
                    return row
                if row is not None:
                    self.plans.remove(row)
            activity = "reservation" if " " not in activity else activity
        if place:
            for plan in reversed(self.plans):
                if same_place(plan.fields.get("place"), place):
                    return plan
            for plan in reversed(self.plans):
                # "booked Rovi for Saturday" after the mail of "Rovi Fitzrovia" confirming a
                # table: the venue that wrote about a plan is where it is
                if not plan.fields.get("place") and \
                        any(same_place(p, place) for p in plan.participants) and \
                        (not date or not plan.fields.get("date") or
                         plan.fields["date"] == date):
                    return plan
            row = self._row_for(activity, place, people, date, weekday)
            if row is not None:
                return row
            same = [p for p in self.plans if activity is None or
                    same_activity(p.activity, activity)]
            # (an appointment of no named kind on another day, not moved there, is another
            # appointment: "Termin beim Bürgeramt ist gebucht: Mittwoch, 16. Dezember" is
            # not the dentist's of the 14th)
            # (nor is the same kind named again with another day in the message that
            # named the first: "dinner with my parents on Saturday 5th, and dinner with
            # the team at Dishoom on Friday 11th" is two dinners)
            other_day = bool(activity and date and same and
                             (activity.split()[-1] in GENERIC or item_id in same[-1].named) and
                             same[-1].fields.get("date") and
                             same[-1].fields["date"] != date and not moved)
            if same and status != "cancelled" and not other_day and \
                    same[-1].fields.get("status") not in ("cancelled", "declined") and (
                    not same[-1].fields.get("place") or not date or
                    same[-1].fields.get("date") == date):
                return same[-1]     # the place of a plan, or its new place
            # another place: a new plan (a new booking replacing the old one, or another one)
            return self._new_plan(activity or (same[-1].activity if same else "plan"))
        if activity is None:
            return self.plans[-1] if self.plans else None
        if activity.split()[-1] in GENERIC:
            # "your appointment" again in the message that named the booking: that booking
            for plan in reversed(self.plans):
                if item_id in plan.named:
                    return plan
            # "your appointment on Tue 08/12 is confirmed" from whoever booked the boiler
            # service that day: that booking, not a second appointment
            wanted = {p.lower() for p in people}
            for plan in reversed(self.plans):
                if date and plan.fields.get("date") == date and \
                        plan.fields.get("status") not in ("cancelled", "declined") and \
                        (plan.stream == stream or
                         wanted & {p.lower() for p in plan.participants}):
                    return plan
        if date and activity.split()[-1] not in GENERIC and status != "cancelled":
            # "Dîner samedi 12" with "C'est réservé : samedi 12 au Bouillon Pigalle", or
            # after the venue's mail of a table that day: a kind of event said for the day
            # of the one live booking of no kind read in this call is that booking's event,
            # not a second plan (a booking of the scope is kept as it is)
            booked = [p for p in self.plans if p.activity.split()[-1] in BOOKING_WORDS and
                      not p.handle_row and p.fields.get("date") == date and
                      p.fields.get("status") not in ("cancelled", "declined")]
            if len(booked) == 1:
                return booked[0]
        if date and clock and status != "cancelled" and not moved:
            # "J'ai un rdv chez la dermato jeudi 10 à 9h15" after the booking mail of a
            # consultation on Thursday 10 at 09:15: one person at one moment is at one
            # thing, so a kind said for the day and time of a live plan of this call is
            # that plan told again in other words, not a second event
            for plan in reversed(self.plans):
                if not plan.handle_row and plan.fields.get("date") == date and \
                        plan.fields.get("time") == clock and \
                        plan.fields.get("status") not in ("cancelled", "declined"):
                    return plan
        for plan in reversed(self.plans):
            if not (date or place) and plan.stream and stream and plan.stream != stream and \
                    people and not {p.lower() for p in people} & \
                    {p.lower() for p in plan.participants}:
                continue    # a kind alone, said by someone not in the plan in another
                #             conversation ("Bitte vereinbaren Sie einen Termin" from the
                #             town hall), names none of the plans of that kind
            # (a move names the new day: "we have moved your check-up to Thursday 8
            # October" is the check-up already talked about, whatever its old day)
            if same_activity(plan.activity, activity) and (
                    not date or not plan.fields.get("date") or plan.fields["date"] == date or
                    plan.stream == stream or weekday_of(plan.fields["date"]) == weekday or
                    (moved and plan.fields.get("status") not in ("cancelled", "declined"))):
                return plan
        row = self._row_for(activity, None, people, date, weekday)
        return row if row is not None else self._new_plan(activity)

    def _moved_from(self, before: str, new_date: str, said: Any) -> Plan | None:
        """The one live event on the day and at the time ``before`` (the words ahead of a
        move: "votre RDV du mar. 08/12 à 18h00") names, when that is not the new day: a
        plan of this call or a record of the scope. Both a day and a time must be said;
        none or several such events: None."""
        day, clock = find_date(before, said), find_time(before)
        if not day or not clock or day == new_date:
            return None

        def live_at(f: dict[str, str]) -> bool:
            return f.get("date") == day and f.get("time") == clock and \
                f.get("status") not in ("cancelled", "declined")

        return self._the_one(live_at)

    def _the_one(self, fits: Callable[[dict[str, str]], bool]) -> Plan | None:
        """The one plan of this call or event record of the scope (then loaded as a plan of
        this call) whose fields ``fits``; none or several: None."""
        hits = [p for p in self.plans if fits(p.fields)]
        loaded = {p.handle_row for p in self.plans if p.handle_row}
        rows = [r for r in self.rows if r["kind"] == "event" and r["handle"] not in loaded
                and fits(r["fields"])]
        if len(hits) + len(rows) != 1:
            return None
        if hits:
            return hits[0]
        plan = plan_of_row(rows[0])
        self.plans.append(plan)
        return plan

    def _live_on(self, date: str) -> list[dict[str, Any]]:
        """The live events of the scope on ``date`` when there are two or more, else []."""
        hits = [r for r in self.rows if r["kind"] == "event" and
                r["fields"].get("date") == date and
                r["fields"].get("status") not in ("declined", "cancelled")]
        return hits if len(hits) > 1 else []

    def _moved_row(self, author: str | None, people: list[str],
                   place: str | None, stream: str | None = None,
                   date: str | None = None) -> Plan | None:
        """The one live event a change without an activity ("we now start at 10") can be
        about: the only one whose participants or place the message names, or else the
        only one on ``date``, the day a change of time names ("could I come at 1pm on the
        8th instead?": a new time on that day). None when there is none or more than one
        (the change is not guessed onto a plan)."""
        named = {p.lower() for p in [author or "", *people] if p}
        hits: list[dict[str, Any]] = []
        live = [r for r in self.rows if r["kind"] == "event" and
                r["fields"].get("status") not in ("declined", "cancelled")]
        for row in live:
            f = row["fields"]
            parts = {p.strip().lower() for p in f.get("participants", "").split(",") if p}
            if (named & parts) or (place and same_place(f.get("place"), place)):
                hits.append(row)
        if not hits and date and not place:
            hits = [r for r in live if r["fields"].get("date") == date]
        self.unclear = hits if len(hits) > 1 else []
        if len(hits) != 1:
            return None
        plan = plan_of_row(hits[0])
        plan.stream = stream      # the conversation it is now talked about in
        self.plans.append(plan)
        return plan

    def _known_day(self, clause: str, date: str, said: str,
                   activity: str | None = None) -> str | None:
        """The day of a plan a bare "on the 17th" names: a known plan's date (of this call
        or a stored event) on that day of the month, not before ``said`` (ISO), when the
        next 17th is another day ("the vicar's double booked on the 17th" of a christening
        on 17 January, said in November; "on the 30th" of a trip on 30 December, said on
        30 November); None when no plan is on that day, the clause names a weekday or a
        month, or it names a kind of event other than that plan's ("dinner on the 8th" is
        no christening's day)."""
        m = _BARE_NTH.search(clause)
        if not m or int(m[1]) != int(date[8:]) or weekday_only(clause) is not None:
            return None
        if activity and activity.split()[-1] in GENERIC:
            activity = None     # "double booked on the 17th": a booking of any kind
        known = {p.fields.get("date", "") for p in self.plans
                 if activity is None or same_activity(activity, p.activity)}
        known |= {r["fields"].get("date", "") for r in self.rows if r["kind"] == "event" and
                  (activity is None or same_activity(activity, r["fields"].get("activity")))}
        days = sorted(d for d in known if len(d) == 10 and d[8:] == date[8:] and
                      d >= said and d != date)
        return days[0] if days else None

    def _new_plan(self, activity: str) -> Plan:
        plan = Plan(activity=activity, fields={"activity": activity})
        self.plans.append(plan)
        return plan

    def _row_for(self, activity: str | None, place: str | None,
                 people: list[str], date: str | None = None,
                 weekday: int | None = None, same_day: bool = False) -> Plan | None:
        wanted = {p.lower() for p in people}
        events = [r for r in self.rows if r["kind"] == "event"]
        for plan in self.plans:
            if plan.handle_row:
                events = [r for r in events if r["handle"] != plan.handle_row]

        def usable(row: dict[str, Any], how: str) -> bool:
            f = row["fields"]
            if how == "place":
                return bool(place) and same_place(f.get("place"), place)
            if how == "day":     # the same kind of event on the same day ("your
                #                  appointment on 9 June" is the check-up booked that day)
                return bool(date) and (f.get("date") == date or
                                       weekday_of(f.get("date")) == weekday) and \
                    (activity is None or activity.split()[-1] in GENERIC or
                     same_activity(f.get("activity"), activity))
            if f.get("status") in ("declined", "cancelled") or place:
                return False
            parts = {p.strip().lower() for p in f.get("participants", "").split(",") if p}
            if activity and not same_activity(f.get("activity"), activity) and \
                    not (activity.split()[-1] in GENERIC and wanted & parts):
                return False    # "your appointment" of the salon is the booking with it
            if same_day and date and f.get("date") and f["date"] != date:
                return False    # a booking for another day is another plan
            if same_day and activity is None and not wanted:
                return False    # nothing ties the booking to this event
            parts = {p.strip().lower() for p in f.get("participants", "").split(",") if p}
            return not (wanted and parts and not same_people(wanted, parts))

        for how in ("place", "day", "any"):
            for row in events:
                if not usable(row, how):
                    continue
                plan = plan_of_row(row, activity or "plan")
                self.plans.append(plan)
                return plan
        return None
