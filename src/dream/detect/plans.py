"""Plans: events (activity, date, time, place, participants) and their status over time.

A plan is followed across the statements and messages of one model call (German, French
and Spanish cue words read as English, :mod:`~dream.detect.cues`; a mail's signature is
not read): a clause naming an activity starts or continues a plan; a clause without one
only continues the plan named in the same message, or the plan being talked about in the
same thread within 12 hours when it refers to it (a status, "it", "then", "see you") or
changes it ("now at 10", "pushed to Friday"). A change naming no activity in a later run
reaches the one live event whose participants or place it names, or nothing. Deadlines,
to-dos, reminders, expiry dates and deliveries neither start nor continue a plan. A
venue's booking or cancellation mail attaches to the plan at that place, or to the plan of
that day that had no place. Cancellations, declines and confirmations
set the status; a cancelled booking next to a new one is declined and the new one
confirmed; a question asking to move a plan does not move it; a past outing told as a story
is no new plan; someone else announcing a fixed, fully dated appointment confirms it.
Existing event records (``rows``) are continued rather than duplicated.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any

from dream.detect import confidence, facts, plan_events, todos, unclear
from dream.detect.cues import english_cues, profession_as, said_as
from dream.detect.finding import Finding, conversation
from dream.detect.mailtext import readable
from dream.detect.plan_targets import PlanTargets, same_people
from dream.detect.plan_words import (
    ACCEPTED,
    ACTIVITIES,
    ADDRESS,
    ADVERT,
    ASK_CHANGE,
    BOOKED,
    BOOKED_PLACE,
    BOOKING_NAME,
    BOOKING_WORDS,
    CANCEL,
    CANCEL_NOT,
    CLAUSE_RE,
    CONFIRM,
    DECLINE,
    EVENING,
    FULL_DATE,
    FUTURE,
    GENERIC,
    HEDGED,
    KIN_EVENT,
    MEET,
    MOVE,
    MOVE_AHEAD,
    NOT_PLAN,
    OFFER,
    PAST,
    PLACE,
    REBOOK,
    REFER,
    SAME_DAY,
    SAME_TIME,
    SHARED,
    TENTATIVE,
    THIRD_PARTY,
    TICKETS_FOR,
    UNTIL,
    VENUE_IN,
    VENUE_WORD,
    VISITS,
    Plan,
    activity_of,
    bare_hour,
    declines,
    evening,
    honorees,
    iso,
    kind_by_shape,
    known_kind,
    near,
    nearer_clock,
    negated,
    place_name,
    professions,
    relocated,
    same_activity,
    same_place,
    venues,
    with_name,
)
from dream.items import Item
from dream.kinds.dates import (
    WORD_HOUR,
    day_of_month,
    is_date_word,
    nearest_weekday_and_day,
    range_start,
)
from dream.kinds.text import find_date, find_time, names, parse_when, weekday_only

INSTEAD = re.compile(r"\binstead\b", re.I)
# a journey written with an arrow: "Paris Gare de Lyon 08:04 → Lyon Part-Dieu 10:01",
# "LHR -> JFK"; its place is where it goes
_ROUTE = re.compile(r"[A-Z][\w'.-]*(?:\s+[\w'.-]+){0,4}?\s*(?:\d{1,2}[:h.]\d\d\s*)?"
                    r"(?:→|->|⇒|➔|⟶)\s*(?P<to>[A-Z][\w'.-]*(?:\s+[A-Z][\w'.-]*){0,3})")
# "on the Tuesday night" (English): the Tuesday of a trip or week talked about before
_THE_WEEKDAY = re.compile(r"\bthe (?:monday|tuesday|wednesday|thursday|friday|saturday|"
                          r"sunday)\b", re.I)
_TODAY = re.compile(r"\b(?:today|tonight|this (?:morning|afternoon|evening)|now)\b", re.I)
_YES_FOR = re.compile(r"\b(?:count (?:me|us) in|i'?m in|we'?re in|i'?m up|up) for "
                      r"(?:the )?([^.!?,;\n]{2,40})", re.I)


def _names_plan(words: str, plan: Plan) -> bool:
    """Whether ``words`` name the plan: its kind, place, title or someone in it."""
    said = {w.lower() for w in re.findall(r"[^\W\d_]{3,}", words)}
    own = " ".join([plan.activity, plan.fields.get("place", ""), plan.fields.get("title", ""),
                    *plan.participants]).lower()
    return any(w in own for w in said)


# "le même dimanche", "the same Saturday", "el mismo sábado", "am selben Samstag": the
# day of the plan talked about, not the next such weekday
_SAME_WEEKDAY = re.compile(r"\b(?:same|même|mismo|misma|selben|gleichen)\s+(\w+)", re.I)

# the sender of a mailing: "news@", "newsletter@", "offers@", "promo@", "marketing@"
_BULK_SENDER = re.compile(r"(?:news(?:letters?)?|offers|deals|promos?|promotions|marketing|"
                          r"mailings?)@", re.I)

# "the same evening", "that same night": a new plan on the day of the one just talked about
_SAME_EVENING = re.compile(r"\b(?:the|that) same (?:evening|night|morning|afternoon|day)\b", re.I)

# "the following Thursday", "al jueves siguiente", "le jeudi suivant", "next Thursday": a
# weekday said as coming after another
_FOLLOWING = re.compile(r"\b(?:following|next|siguiente|suivant|d'après|nächsten|"
                        r"darauffolgenden|próximo|que viene)\b", re.I)

_TALKED_ABOUT = 4     # messages of a thread after which a plan is no longer the topic

# the speaker not knowing which of two it is: "can't remember if", "not sure whether", "no
# sé si", "je ne sais pas si", "ich weiß nicht, ob" (followed by an "or" in the clause)
_UNSURE = re.compile(
    r"\b(?:(?:can'?t|cannot|don'?t|do not) (?:remember|recall|tell)|not sure|no sé|no recuerdo|"
    r"je ne sais (?:pas|plus)|je sais (?:pas|plus)|weiß (?:ich )?nicht(?: mehr)?)(?:\s*,\s+|\s+)"
    r"(?:if|whether|si|ob)\b", re.I)
_EITHER = re.compile(r"\b(?:or|o|ou|oder)\b", re.I)

# "next Thursday" said on a Wednesday: tomorrow or the Thursday a week on? People say it
# both ways ("next Sunday" said on a Saturday of the Sunday eight days on); said on that
# weekday itself it is the one a week on, and with its day number it is that day
_NEXT_WEEKDAY = re.compile(r"\bnext\s+(?:mon|tues|wednes|thurs|fri|satur|sun)day\b", re.I)


# a shift that names no new day: "push the dinner back a week", "move Lucy to next week"
_SHIFT = re.compile(r"\b(?:push|move|shift|bump|put off|postpone|reschedule)\b[^.?!]{0,40}?"
                    r"\b(?:back|forward|next week|a week|a day|later|earlier)\b", re.I)


@dataclass
class PlanReader(PlanTargets):
    """Follows plans through one model call. ``rows`` are the scope's current records
    (their handles); ``known_names`` are names written mid-sentence anywhere in the call."""

    rows: list[dict[str, Any]] = field(default_factory=list)
    known_names: set[str] = field(default_factory=set)
    groups: set[str] = field(default_factory=set)       # streams where several others talk
    speakers: set[str] = field(default_factory=set)     # people who write in the call
    talking: dict[str, set[str]] = field(default_factory=dict)   # stream -> others in it
    members: dict[str, set[str]] = field(default_factory=dict)   # stream -> others in the call
    dated: dict[str, str] = field(default_factory=dict)   # stream -> last message with a when
    seen: dict[str, int] = field(default_factory=dict)    # stream -> messages read in it
    plans: list[Plan] = field(default_factory=list)
    found: list[Finding] = field(default_factory=list)
    questions: list[Finding] = field(default_factory=list)   # asked instead of a guess
    unclear: list[dict[str, Any]] = field(default_factory=list)  # rows a change could be about
    heard: list[confidence.Heard] = field(default_factory=list)   # every message read
    task_talk: dict[str, str] = field(default_factory=dict)   # stream -> a change of a to-do
    moves: set[int] = field(default_factory=set)     # the steps a change wrote (their id)
    shaped: set[str] = field(default_factory=set)    # kinds read by where they stand

    def _shift_fits(self, activity: str | None, people: list[str]) -> list[dict[str, Any]]:
        """The live events of the scope a shift naming ``activity`` or ``people`` fits."""
        named = {p.lower() for p in people}
        out = []
        for row in self.rows:
            f = row["fields"]
            if row["kind"] != "event" or f.get("status") in ("declined", "cancelled"):
                continue
            parts = {p.strip().lower() for p in f.get("participants", "").split(",") if p}
            if activity and not same_activity(f.get("activity"), activity):
                continue
            if named & parts or (activity and not named):
                out.append(row)     # ("the dinner with Tom": the dinners with Tom)
        return out

    def read(self, item: Item, text: str) -> None:
        """Follow the plans one statement or message talks about."""
        said = parse_when(item.said_at)
        author = getattr(item, "author", None) if item.role == "other" else None
        stream = conversation(item.stream)
        said_text = readable(text)
        text = english_cues(said_text)
        if author:
            self.talking.setdefault(stream, set()).add(author)
        self.seen[stream] = self.seen.get(stream, 0) + 1
        self.heard.append(confidence.Heard(item.id, stream, text, said, author or "",
                                           said_text))
        self._joins(item, stream, author, said, text)
        self._answers_announcement(item, stream, said_text)
        text = self._corrected_times(item, text, stream)
        # an advertisement ("Christmas brunch on Sunday 20 December ... Book now") offers
        # its dates to everyone: it starts no plan of the user's
        # (and so does a mailing: a mail from a newsletter or offers address)
        advert = item.role != "user" and (bool(ADVERT.search(text)) or any(
            _BULK_SENDER.match(e) for e in getattr(item, "entities", None) or ()))
        # an invitation asks ("Book club is back: Wednesday 21 Oct, 7pm ... Coming?"): its
        # date is fixed, the user's part is what they answer
        asks = item.role != "user" and text.rstrip().endswith("?")
        said_no: set[int] = set()      # plans this message says no to
        moving = False      # an earlier clause said a plan has to move, not yet where
        for clause in CLAUSE_RE.split(text):
            clause = clause.strip()
            unsure = _UNSURE.search(clause)
            if unsure and _EITHER.search(clause, unsure.end()):
                # "I can't remember if she meant 9 her time or mine", "no sé si este martes
                # o el siguiente": what this message said of its plan's time or day is a guess
                self._unsure(item, clause, said)
                continue
            if not clause or len(clause) > 400 or NOT_PLAN.search(clause) or \
                    relocated(clause) or \
                    (todos.TODO_USER.search(clause) and not CANCEL.search(clause)):
                continue        # a deadline, a to-do, a delivery, an expiry date: no plan
                #                 ("I have to call it off" is no to-do but a cancellation)
            activity = activity_of(clause) or ("meetup" if MEET.search(clause) else None)
            if activity is None:
                # a kind no word names, by where it stands ("moving day is confirmed:
                # Saturday 12th, 9am"), with the day and the time it is said to be at
                kind = kind_by_shape(clause)
                if kind and not self._person(kind) and \
                        find_date(UNTIL.sub(" ", clause), said) and \
                        find_time(UNTIL.sub(" ", clause)):
                    activity = kind
                    self.shaped.add(kind)
                elif MOVE.search(clause) or CANCEL.search(clause):
                    # (and named again by a change: "we're moving the dip to Boxing Day")
                    activity = known_kind(clause, self.shaped | {
                        r["fields"].get("activity", "") for r in self.rows
                        if r["kind"] == "event" and r["fields"].get("activity") and
                        activity_of(r["fields"]["activity"]) is None})
            if activity is None and BOOKED.search(clause) and \
                    not any(p.stream == stream for p in self.plans):
                activity = "booking"    # "Lisbon is booked": a booking, whatever its kind
            # "closed until 24 June", "refunds until 31 July": when something ends, no plan's day
            date = find_date(UNTIL.sub(" ", clause), said)
            clock = find_time(UNTIL.sub(" ", clause))
            if date and _THE_WEEKDAY.search(clause) and weekday_only(clause) is not None:
                date = None     # "on the Tuesday night": the Tuesday of something else
            # "on the 17th" of a plan on 17 January, said in November: that plan's day
            known_day = self._known_day(clause, date, said.date().isoformat(), activity) \
                if date and said is not None else None
            date = known_day or date
            if date and said is not None and _NEXT_WEEKDAY.search(clause) and \
                    0 < (iso(date) - said.date()).days < 7 and \
                    not find_date(_NEXT_WEEKDAY.sub(" ", UNTIL.sub(" ", clause)), said):
                # which of the two is meant is a guess: no day is written, a question is
                # asked when the clause names a plan or a change
                if activity or MOVE.search(clause):
                    later = (iso(date) + timedelta(days=7)).isoformat()
                    phrase = _NEXT_WEEKDAY.search(clause)[0]
                    self.questions.append(Finding(
                        "question", {"text": f"'{clause.strip()[:120]}' was said on "
                                             f"{said.strftime('%A %d %B')}: is '{phrase}' "
                                             f"{date} or {later}?", "status": "open"},
                        [item.id], name=f"which day {activity or 'plan'} {date}"))
                date = None
            places = venues(clause)
            # ("Offsite is confirmed": the event itself, no place)
            places += [p for p in (place_name(m[1]) for m in BOOKED_PLACE.finditer(clause))
                       if p and p.lower() not in self.speakers and p not in places and
                       not activity_of(p)]
            for m in VENUE_IN.finditer(clause):
                venue = place_name(m[1]) if not is_date_word(m[2]) else None
                if venue and venue.lower() not in self.speakers and \
                        not activity_of(venue) and venue not in places:
                    places.append(venue)
            loose = [(place_name(m["name"]), m["prep"]) for m in PLACE.finditer(clause)]
            places += [p for p, _ in loose
                       if p and p not in places and not any(same_place(p, q) for q in places)
                       and not any(p in q for q in places)]
            # "I'm in Hamburg that day": where someone is, not where a known plan moves
            weak = {p for p, prep in loose if prep == "in"}
            if not places:
                places = [m[0] for m in ADDRESS.finditer(clause)][:1]
            route = _ROUTE.search(clause)
            if route:   # "Paris Gare de Lyon 08:04 → Lyon Part-Dieu 10:01": where it goes
                places = [route["to"].strip()] + [p for p in places if p not in route[0]]
            known = {e.lower() for e in getattr(item, "entities", None) or []} | self.known_names
            found = names(clause, known=known)
            for kp in sorted(self._known_places()):
                m = re.search(r"\b" + re.escape(kp) + r"\b", clause, re.I)
                if m and not any(same_place(kp, p) for p in places):
                    places.append(m[0])
            place = places[0] if places else None
            status = None
            if CANCEL.search(clause) and not CANCEL_NOT.search(clause):
                status = "cancelled"
            elif declines(clause) and not ASK_CHANGE.search(text):
                status = "declined"         # "can't at 7, could we do 8?" asks to move it
            elif CONFIRM.search(clause) and not clause.rstrip().endswith("?") and \
                    not HEDGED.search(clause):
                status = "confirmed"        # "see you Thursday?" asks, it does not confirm
                #                             ("happy to in principle, but ...": not yet)
            if status is None and not (date or clock or place) and _SHIFT.search(clause):
                # "push the dinner back a week" with two dinners kept, "move Lucy to next
                # week" with two plans with a Lucy: which one moves is a guess, so ask
                fits = self._shift_fits(activity, found)
                if len(fits) > 1:
                    self.questions += unclear.which_moves(fits, author or "You", clause,
                                                          item.id)
                    continue
            group = stream in self.groups
            if group and item.role != "user" and status in ("declined", "confirmed"):
                # in a group, someone else joining or dropping out neither makes the plan
                # the user's nor calls it off; their joining counts for a plan of the user's
                joining = status == "confirmed"
                status = "joined" if joining else None
            booked_as = {m[1] for m in BOOKING_NAME.finditer(clause)}
            if booked_as:       # "under 'Platform Team'": the booking's name, no place
                places = [p for p in places if not any(p in b or b in p for b in booked_as)]
                place = places[0] if places else None
            found = [n for n in found if not any(n in b or b in n for b in booked_as) and
                     not is_date_word(n)]
            people = [n for n in found if n not in places and
                      not any(n in p or p in n for p in places) and
                      n.lower() not in ACTIVITIES and not VENUE_WORD.match(n) and
                      (n.lower() in self.speakers or with_name(clause, n))]
            if author and not any(p in author or author in p for p in places):
                people = [author, *[p for p in people if p != author]]
            # whom it is for ("Sven's leaving drinks", "le pot de départ de Julien") is in it
            people += [n for n in (honorees(clause, activity) if activity else [])
                       if n not in people and not any(n in p for p in people) and
                       not any(n in p for p in places) and self._person(n)]
            move = MOVE.search(clause)
            moved = bool(move)
            after = ""
            if move:    # "no table on Friday, so dinner moves to Saturday": the day after
                after = UNTIL.sub(" ", clause[move.start():])
                date = find_date(after, said) or date
                clock = find_time(after) or clock
            elif moving and (date or clock) and activity is None and \
                    status in (None, "confirmed") and \
                    not clause.rstrip().endswith("?"):
                # "leider müssen wir Ihren Termin am 10.12. verlegen. Wir haben Sie für
                # Montag, den 14.12., um 8:15 Uhr eingetragen": the day after the line
                # saying it has to move is where it moves (once: a later day in the mail
                # is something else's, "am Montag hätten wir noch Impftermine frei")
                moved, moving = True, False
            moving = (moving and not moved) or bool(MOVE_AHEAD.search(clause))
            if moved and status == "cancelled" and (date or clock) and \
                    re.search(r"\bpostpone", clause, re.I):
                status = None       # "postponed to Friday": moved, not cancelled
            moved = moved and status != "cancelled"
            if activity is None and (facts.tells_birthday(clause) or (
                    todos.says_done(clause) and not CONFIRM.search(clause))):
                continue        # "it's Dev's 40th on 3 November": a birthday, a fact; "Grill
                #                 ist abgeholt und steht bei mir im Flur ✅": a task done
            if activity is None:
                # a clause without an activity only continues the plan being talked about:
                # in the same thread, shortly after, and saying so (a status, a reference,
                # a change) or in the message that named it; a move may come days later
                last = self.plans[-1] if self.plans else None
                if last is None and ((moved or ASK_CHANGE.search(clause)) and
                                     (date or clock or place) or status):
                    # a change or a yes/no days later: the one live event of the people
                    # in this conversation (or of the place named), never a guess
                    # (the people of the conversation: all who write in it in this call,
                    # also after this message: "we're moving it to Sunday" opens a day)
                    last = self._moved_row(author, found + sorted(
                        self.talking.get(stream, set()) | self.members.get(stream, set())),
                        place, stream, date if moved and clock else None)
                    if last is None and status == "cancelled" and date and not place and \
                            not self.unclear:
                        # "can you cancel my Thursday evening thing?" with two plans that
                        # Thursday: which one is off is a guess, so ask (one plan that day
                        # is left as it is: the day alone does not say it is that one)
                        self.unclear = self._live_on(date)
                    if last is None and self.unclear and (
                            (moved and status is None) or status == "cancelled"):
                        # "we now start at 10" or "can't make it, sorry" with two live
                        # plans it could be about: ask, and change neither
                        change = {k: v for k, v in (("date", date), ("time", clock),
                                                    ("place", place)) if v}
                        if status == "cancelled":
                            change = {"status": "cancelled"}
                        self.questions += unclear.which_plan(
                            self.unclear, change, author or "You", clause, item.id)
                        continue
                if last is None or not (date or clock or status or place) or \
                        self._about_task(stream, moved) or \
                        ((todos.TODO_OTHER.search(clause) or todos.TODO_USER.search(clause)) and
                         status is None) or \
                        (last.stream != stream and not (moved and last.handle_row)):
                    continue
                same_message = item.id in last.named
                if not same_message and not moved and not last.handle_row and \
                        self.seen[stream] - last.last_seen > _TALKED_ABOUT and \
                        not same_place(place, last.fields.get("place")):
                    # talked about: named or changed within the last few messages of the
                    # thread, or its place named; a day said after other topics came up
                    # is not that plan's
                    continue
                answered = self.dated.get(stream)
                if status and not (moved or date or clock or place) and not same_message and \
                        answered and not last.asked and \
                        answered not in last.named | {h for h, _ in last.steps}:
                    # a yes or no answers the latest message that said a day or a time
                    # ("Stanage, Saturday 18 July, who's in?" - "in!"), not an older plan
                    continue
                if not same_message and not moved and not last.handle_row and not (
                        near(last.said, said) and (status or REFER.search(clause) or
                                              ((item.role == "user" or (author or "") == last.organiser) and
                                               date and clock))):
                    continue
                if not same_message and not moved and status is None and date and \
                        last.fields.get("date") and date != last.fields["date"] and \
                        not ASK_CHANGE.search(clause) and not REBOOK.search(clause) and \
                        (not self._offered(stream, date, item.id) or
                         (last.organiser and (author or "") != last.organiser)):
                    # another day, said without naming the plan, without a change and not
                    # one of the days offered in the thread ("ok I'll take the 18:30 on
                    # Friday 11th" of a party on Saturday 12th): something else's day
                    continue
                if group and not same_message and not moved and item.role != "user" and \
                        (last.organiser is None or (author or "") != last.organiser):
                    # in a group only whoever organises a plan changes its day, time or
                    # place; anyone else's message without the plan's name says yes or no
                    date = clock = place = None
                    # (and only whoever organised it calls it off: of a stored plan, the
                    # first one written in it, who named it - Noor, of her party)
                    host = last.organiser is None and bool(last.handle_row) and \
                        last.participants[:1] == [author or ""]
                    if status is None or (status == "cancelled" and not host):
                        continue
            named_here = self._named_here(item.id, activity) \
                if activity and not date and activity.split()[-1] not in BOOKING_WORDS else None
            wd = weekday_only(clause)
            n_plans = len(self.plans)
            if named_here is not None:
                # "Drinks, a short talk at 7.15", "RDV 8h30 au parking": part of the plan
                # this message named; it only fills what that plan does not have yet
                plan = named_here
                clock = None if plan.fields.get("time") else clock
                place = None if plan.fields.get("place") else place
            else:
                # "votre RDV du mar. 08/12 à 18h00 est déplacé au jeu. 10/12": the day and
                # time said before the move name the one live event it moves, whoever
                # booked it and whoever writes
                plan = self._moved_from(clause[:move.start()], date, said) \
                    if move and activity and date else None
                if plan is None and activity is None and status == "cancelled" and \
                        last is not None and date in (None, last.fields.get("date")):
                    # "je dois annuler le 18 : ma mère est hospitalisée à Nantes": the plan
                    # of that day is off; the place said with why is no new plan's
                    plan, place = last, None
                plan = plan or self._target_plan(activity, place, status, people, date,
                                                 stream, wd, item.id, moved, clock)
            if plan is None:
                continue
            same_wd = _SAME_WEEKDAY.search(clause)
            if activity is None and plan.fields.get("status") == "cancelled" and \
                    status != "cancelled" and not REBOOK.search(clause) and \
                    not (date and date != plan.fields.get("date") and
                         not (same_wd and is_date_word(same_wd[1]))):
                # once a plan is called off, a clause naming no plan and no other day ("À la
                # place : raclette chez moi le même dimanche à midi ?", "Oui !!") is about
                # what comes instead: it neither moves nor revives the cancelled one
                continue
            if len(self.plans) > n_plans and not plan.handle_row and (
                    advert or (item.role != "user" and KIN_EVENT.search(clause) and
                               activity and activity_of(clause[KIN_EVENT.search(clause).start():]))):
                # an advertisement, or someone telling of their cousin's wedding
                self.plans.remove(plan)
                continue
            if len(self.plans) > n_plans and not plan.handle_row and THIRD_PARTY.search(clause) \
                    and item.role != "user" and (group or status != "confirmed"):
                # "Oma's dentist is at 10:30": someone else's; but a confirmation sent to
                # the user alone ("This confirms Rex's appointment") is a booking they keep
                self.plans.remove(plan)
                continue
            if len(self.plans) > n_plans and not plan.handle_row and \
                    negated(clause) and status not in ("cancelled", "declined"):
                self.plans.remove(plan)     # "can't at 7, the meeting runs late": no new plan
                continue
            if len(self.plans) > n_plans and not plan.handle_row and (
                    INSTEAD.search(clause) or REBOOK.search(clause)):
                replaced = self._replaced(plan, stream) or \
                    self._replaced_live(plan, place, author, said, item.id)
                if replaced is not None:
                    # "got us a table at Berenjak instead, same time": the plan in place of
                    # one the user was in (its day unless another is said) is theirs too
                    date = date or replaced.fields.get("date")
                    plan.user_in = True
                    if plan.activity.split()[-1] in BOOKING_WORDS:
                        plan.activity = replaced.activity   # "a table instead": the dinner
            if activity:
                plan.named.add(item.id)
                plan.last_seen = self.seen[stream]
                if plan.said_as is None and same_activity(activity, plan.activity):
                    plan.said_as = said_as(plan.activity, said_text) or ""
                if plan.organiser is None:
                    plan.organiser = author or ""
            if len(self.plans) > n_plans and not plan.handle_row and status is None and \
                    PAST.search(clause) and not FUTURE.search(clause) and \
                    not (date and said is not None and date > said.date().isoformat()):
                self.plans.remove(plan)     # "we went on a hike last Friday": a memory, no plan
                continue                    # ("got us seats for Friday 12 June" is ahead)
            had = plan.fields.get("date")
            if not date and not plan.fields.get("date") and _SAME_EVENING.search(clause):
                # "and dinner with Imogen the same evening, 20:15" after pilates on Thursday
                # 3 Dec: the day of the plan just talked about in this conversation
                date = next((p.fields["date"] for p in reversed(self.plans)
                             if p is not plan and p.stream == stream and p.fields.get("date")
                             and p.fields.get("status") not in ("cancelled", "declined")),
                            None)
            if known_day and date == had:
                date = None     # "double booked on the 17th": its own day, said again
            if moved and date and had and date < had and said is not None:
                # "shifted to the 21st–23rd" of a trip on 14 August: the 21st of its month
                bare = range_start(after)
                if day_of_month(bare, said) == date:
                    again = day_of_month(bare, datetime(iso(had).year, iso(had).month, 1))
                    if again and again >= said.date().isoformat():
                        date = again
            if date and had and said is not None:
                # "moved it to Sunday the 14th" of a gig on Saturday 13 March: the Sunday
                # the 14th nearest the plan, not the first one after the message
                date = nearest_weekday_and_day(after or clause, date, had,
                                               said.date().isoformat())
            if moved and date and had and date <= had and _FOLLOWING.search(after) and \
                    weekday_only(after) is not None and \
                    plan.fields.get("status") not in ("cancelled", "declined"):
                # "lo del jueves lo pasamos al jueves siguiente" of a plan on Thursday 10th,
                # said on the 28th: the Thursday after the plan's or the next one from now?
                # The words say later, the next such day is earlier: ask, move nothing
                later = (iso(had) + timedelta(days=(iso(date).weekday() - iso(had).weekday())
                                              % 7 or 7)).isoformat()
                key = next((r["key"] for r in self.rows if r["handle"] == plan.handle_row),
                           None)
                self.questions.append(confidence.question(
                    plan, {"date": later}, item.id,
                    plan.fields.get("title") or plan.activity, key))
                date = None
            # "on Friday" about a plan already on a Friday (said within the week before it)
            # names that day, not the next Friday after it was said
            # (not a move: "Friday 17 is off, so it moves to Thursday 16" names a new day)
            if date and had and wd is not None and said is not None and not moved:
                ahead = (iso(had) - said.date()).days
                if iso(had).weekday() == wd and -1 <= ahead <= 13:
                    date = had
            if date and said is not None and date == said.date().isoformat() and \
                    wd is not None and not _TODAY.search(clause) and \
                    not (clock and clock > said.strftime("%H:%M")):
                date = None     # "dinner Sunday?" said on a Sunday: today or in a week
                #                 ("Meeting on Monday at 10:00" said at 9 on Monday: today)
            # nor its place: "igual voy en AVE" is how someone travels there ("on court 5,
            # not court 3" names the old place: a correction)
            old_place = plan.fields.get("place")
            if place and old_place and not same_place(place, old_place) and not moved and \
                    not REBOOK.search(clause) and plan.organiser is not None and \
                    (author or "") != plan.organiser and \
                    old_place.lower() not in clause.lower():
                place = None
            # a plan's day changes by a move, a correction or its organiser: another day in
            # someone else's message naming it ("before the offsite: my last day here is 29
            # May") is the day of something else
            if date and had and date != had and not moved and not REBOOK.search(clause) and \
                    plan.organiser is not None and (author or "") != plan.organiser and \
                    plan.fields.get("status") not in ("cancelled", "declined") and \
                    status not in ("cancelled", "declined"):
                date = None
            # a new booking after a cancelled one is another event, not a move
            # (and so is one "rebooked" for the same day: "Dishoom have cancelled our
            # booking, so I've rebooked Hoppers for the same day at 13:00")
            if status != "cancelled" and ((date and had and date != had and (
                    plan.fields.get("status") in ("cancelled", "declined") or
                    REBOOK.search(clause))) or (
                    REBOOK.search(clause) and (date or clock or place) and
                    plan.fields.get("status") in ("cancelled", "declined"))):
                old = plan
                plan = self._new_plan(old.activity)
                plan.participants = list(old.participants)
                if old.fields.get("place") and not place:
                    place = old.fields["place"]
            if place in weak and not moved and (plan.handle_row or plan.steps):
                place = None
            if status in ("declined", "cancelled") and not moved and \
                    (plan.handle_row or plan.steps):
                # "sent to Leeds, so I'll miss it on Thursday": a no moves nothing
                place = None if plan.fields.get("place") else place
                date = None if plan.fields.get("date") else date
                clock = None if plan.fields.get("time") else clock
            if OFFER.search(clause) and status is None:
                date = clock = None     # offered slots: the one taken says the day
            # a weekday said in answer to a day asked for ("Can we do Tuesday 8th instead?"
            # - "Tuesday fine by me") is that day, not the next such weekday
            asked_day = plan.asked.get("date")
            if asked_day and date and wd is not None and not moved and \
                    (author or "") != plan.asked_by and iso(asked_day).weekday() == wd:
                date = asked_day
            # a question ("could we move it to 14:00?") proposes; it does not move a plan
            # (and so does any question that does not name the plan: "¿quieres que vayamos
            # juntas en coche el viernes?" asks about a ride, it does not move the wedding)
            question = ((clause.rstrip().endswith("?") or TENTATIVE.search(clause)) and
                        ASK_CHANGE.search(clause)) or \
                (clause.rstrip().endswith("?") and activity is None and not moved and
                 item.id not in plan.named)
            if question and status is None and (plan.handle_row or plan.steps):
                asked = {k: v for k, v in (("date", date), ("time", clock), ("place", place))
                         if v and v != plan.fields.get(k)}
                if asked:
                    plan.asked, plan.asked_by = asked, author or ""
                    # (and it is now talked about here: the answer in this thread, "All
                    # done: booking HI-2 is now Saturday 19 December", is about it)
                    plan.stream, plan.said = stream, said
                date = date if date == had else None
                clock = place = None
            elif plan.asked and (author or "") != plan.asked_by and \
                    (status == "confirmed" or ACCEPTED.search(clause)):
                # "could we make it 8?" - "sure": the change asked for is agreed
                date = date or plan.asked.get("date")
                clock = clock or plan.asked.get("time")
                place = place or plan.asked.get("place")
                plan.asked = {}
            # someone else announcing a fixed date ("Budget review on Monday at 15:00")
            # (a fixed appointment is written with its full date, "Thursday 12 March", not
            # "tomorrow" or "on Friday" as a suggestion between friends is)
            if status is None and author and not TENTATIVE.search(clause) and not asks and \
                    FULL_DATE.search(clause) and (clock or plan.fields.get("time")) and \
                    plan.fields.get("status", "proposed") == "proposed":
                status = "joined" if group else "confirmed"
            # the other side fixing the time of what the user asked for ("Could I do the
            # Boxing Day parkrun instead?" - "I've put you down for the Boxing Day parkrun:
            # 9am at Riverside Park"): naming it with its time, not asking back, is a yes
            if status is None and author and plan.user_in and plan.organiser == "" and \
                    activity and same_activity(activity, plan.activity) and clock and \
                    plan.fields.get("date") and not TENTATIVE.search(clause) and \
                    not asks and not negated(clause) and \
                    plan.fields.get("status", "proposed") == "proposed":
                status = "confirmed"
            # the user telling of their own plan, with its day and time, as a fact
            # ("Meeting with Sam on Monday at 10:00"; "tengo cita el jueves a las 9:30")
            ahead = bool(date and said is not None and date > said.date().isoformat())
            # (or fixing the day and time of the plan being talked about: "Venga, sábado 7
            # a las 21h aquí en casa" after "¿cena de piso este sábado?")
            if status is None and item.role == "user" and date and clock and \
                    not TENTATIVE.search(clause) and (ahead or not PAST.search(clause)) and \
                    not negated(clause) and \
                    plan.fields.get("status", "proposed") == "proposed":
                status = "confirmed"
            if status == "cancelled" and item.role == "user":
                status = "declined"         # the user calling off their part: declined
            # a no is not taken back by a warm word in the same message ("I can't that
            # week 😩 Next one for sure!": the yes is for another time)
            if status in ("declined", "cancelled"):
                said_no.add(id(plan))
            elif status == "confirmed" and id(plan) in said_no:
                status = None
            # a yes that names what it is for ("Count me in for Lisbon") is a yes to that,
            # not to a plan of another name ("I'm up for it" names nothing)
            yes_for = _YES_FOR.search(clause)
            if status == "confirmed" and yes_for and yes_for[1][:1].isupper() and \
                    not activity_of(yes_for[1]) and \
                    not _names_plan(yes_for[1], plan):
                status = None
            if status == "cancelled" and plan.fields.get("status") == "declined":
                status = None               # the venue confirming the user's cancellation
            if item.role == "user" and status not in ("declined", "cancelled"):
                plan.user_in = True         # the user proposes, books or joins it
                plan.shared = plan.shared or bool(SHARED.search(text))
            if status == "joined":
                # someone else's yes or announcement in a group: the plan is on once it is
                # the user's too (they proposed it or said they are in)
                if not plan.user_in and plan.organiser is not None and \
                        (author or "") == plan.organiser:
                    plan.announced = True
                status = "confirmed" if plan.user_in else None
            # a time written without am/pm ("7:30", "at 7") said about a plan that has a
            # time is the one of the two readings nearer to it ("same time, 7:30" -> 19:30)
            # (the hour itself written bare: "Sat 5th Dec 10am" has a bare "5", a day)
            bare = bool(clock and (bare_hour(clause, clock) or WORD_HOUR.search(clause)))
            if clock and (int(clock[:2]) > 12 and re.search(
                    rf"(?<![\d:.]){int(clock[:2])}(?:[:.h]{clock[3:]}|\s*uhr\b)", clause, re.I)
                    or re.search(rf"(?<![\d:.]){int(clock[:2])}[:.]{clock[3:]}\s*uhr\b",
                                 clause, re.I)):
                bare = False    # "16:40", "um 17 Uhr", "um 8:15 Uhr" are written in 24
                #                 hours: they say which half
            if clock and plan.fields.get("time") and bare:
                clock = nearer_clock(clock, plan.fields["time"])
            elif clock and bare and (activity or plan.activity).split()[-1] in EVENING and \
                    not ((activity or plan.activity).split()[-1] in ("reservation", "booking")
                         and int(clock[:2]) >= 10):
                # (a booking of no named kind at "10:00" or "11:30" is a morning one: the
                # tuning, the room, the service; a table at "7:30" is dinner)
                clock = evening(clock)
            # "same day, same time": the day and time of the plan it replaces or continues
            if SAME_DAY.search(clause) and not date:
                date = self._borrowed(plan, "date")
            # "same sunday but 1pm", "el mismo jueves", "le même dimanche": the plan's own
            # day when it falls on that weekday, not the next such day from the message
            same_day_wd = weekday_only(same_wd[1]) if same_wd else None
            if same_day_wd is not None and wd == same_day_wd:
                ref = self._borrowed(plan, "date")
                if ref and iso(ref).weekday() == same_day_wd:
                    date = ref
            if SAME_TIME.search(clause) and not clock:
                clock = self._borrowed(plan, "time")
            # a message names a plan's day once: its later dates are other things (the
            # return flight, the last day to change seats)
            # (and its time once: "lunch moved to 13:00, they were full at 12:30")
            if not moved and plan.steps and plan.steps[-1][0] == item.id:
                said_here = [f for h, f in plan.steps if h == item.id]
                if any("date" in f for f in said_here):
                    date = None
                if any("time" in f for f in said_here) and \
                        (any("date" in f for f in said_here) or activity is None):
                    clock = None
                if any("place" in f for f in said_here):
                    place = None    # (and its place: "drinks at The Crown. He's off to
                    #                 Spotify in Stockholm" - Spotify is his new job's)
            if activity and plan.activity.split()[-1] in GENERIC and \
                    activity.split()[-1] not in GENERIC and not plan.handle_row:
                plan.activity = activity        # "booking" first, "flight" later
            if activity and not plan.handle_row and plan.activity.split()[-1] in VISITS and \
                    not professions(plan.activity):
                # "Votre rendez-vous est confirmé ... Dr Hélène Marchal - Dermatologue",
                # "your check-up ... at Brightsmile Dental": a visit whose message names
                # one trade is a visit to it, called by the word it was said in
                trades = professions(text)
                if len(trades) == 1:
                    trade = trades.pop()
                    plan.activity = f"{trade} {plan.activity}"
                    plan.said_as = profession_as(trade, said_text) or plan.said_as
            fields: dict[str, str] = {}
            if date:
                fields["date"] = date
            if clock:
                fields["time"] = clock
            if place:
                fields["place"] = place
            if status:
                fields["status"] = status
            own_place = (plan.fields.get("place") or place or "").lower()
            people = [p for p in people if p.lower() != own_place]
            for p in people:
                # ("Kim" of a plan with "Kim Lowe" in it: the same person)
                if not same_people({p.lower()}, {q.lower() for q in plan.participants}):
                    plan.participants.append(p)
            if people:
                fields["participants"] = ", ".join(plan.participants)
            sub = TICKETS_FOR.search(clause)
            if sub and plan.activity == "tickets" and not plan.subject:
                plan.subject = place_name(sub[1])
                people = [p for p in people if p != plan.subject]
            if not fields:
                continue
            plan.fields.update(fields)
            plan.steps.append((item.id, fields))
            if moved:
                self.moves.add(id(fields))
            plan.stream, plan.said = stream, said
            plan.last_seen = self.seen[stream]
        if find_date(UNTIL.sub(" ", text), said) or find_time(UNTIL.sub(" ", text)):
            self.dated[stream] = item.id

    def _unsure(self, item: Item, clause: str, said: Any) -> None:
        """The speaker saying they do not know which of two a plan's time (or day) is: the
        plan this message told of keeps no value of that field from this message (a stored
        one keeps its own), and a question is asked instead."""
        plan = next((p for p in reversed(self.plans)
                     if any(h == item.id for h, _ in p.steps)), None)
        if plan is None:
            return
        name = "time" if find_time(clause) or re.search(
            r"\b(?:time|hora|heure|uhrzeit)\b", clause, re.I) else \
            "date" if find_date(clause, said) or weekday_only(clause) is not None else None
        said_here = [f for h, f in plan.steps if h == item.id and name in f]
        if name is None or not said_here:
            return
        for fields in said_here:
            del fields[name]
        row = next((r for r in self.rows if r["handle"] == plan.handle_row), None)
        if row is not None and row["fields"].get(name):
            plan.fields[name] = row["fields"][name]
        else:
            plan.fields.pop(name, None)
        title = plan.fields.get("title") or plan.activity
        self.questions.append(Finding(
            "question", {"text": f"'{clause[:160]}': which {name} is meant for '{title}'?",
                         "status": "open"}, [item.id], name=f"unsure {title} {name}"))

    def _person(self, name: str) -> bool:
        """Whether ``name`` is someone's: a speaker of the call, the first name of one, or
        a name the call uses as a person's."""
        low = name.lower()
        return any(s == low or s.startswith(low + " ") for s in self.speakers)

    def _answers_announcement(self, item: Item, stream: str, text: str) -> None:
        """The user writing in a group right after its organiser fixed a plan there with its
        day and time ("Our end-of-season party is Saturday Dec 12, 4-6 PM at the gym" -
        "Thanks Dana! Plates and napkins from us 👍") is in it: the plan is on. Not when
        the message asks, says no, or says something is not so (then the user's own words
        decide, as ever), and not once other topics came up in the thread."""
        if item.role != "user" or stream not in self.groups or "?" in text or \
                negated(english_cues(text)) or DECLINE.search(english_cues(text)) or \
                CANCEL.search(english_cues(text)):
            return
        for plan in reversed(self.plans):
            if plan.stream != stream or not plan.announced or plan.user_in or \
                    plan.fields.get("status", "proposed") != "proposed" or \
                    self.seen[stream] - plan.last_seen > _TALKED_ABOUT:
                continue
            plan.user_in = True
            plan.fields["status"] = "confirmed"
            plan.steps.append((item.id, {"status": "confirmed"}))
            return

    def _offered(self, stream: str, date: str, item_id: str) -> bool:
        """Whether ``date`` was said in an earlier message of the thread ("Ersatztermine:
        Montag, 14.12. / Mittwoch, 16.12." - "dann nehme ich den Mittwoch"): a day chosen
        from those offered, not another thing's day."""
        for heard in self.heard:
            if heard.id == item_id:
                break
            if heard.stream == stream and any(
                    find_date(UNTIL.sub(" ", part), heard.said) == date
                    for part in CLAUSE_RE.split(heard.text) if part and part.strip()):
                return True
        return False

    def flush(self) -> list[Finding]:
        """The events of the plans followed so far (:func:`~dream.detect.plan_events.events`)."""
        return plan_events.events(self)
