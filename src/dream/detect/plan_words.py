"""The words of plans: kinds of events, status cues, places, venues and dates.

:func:`activity` names the kind of event a clause talks about ("budget review", "board game
night"); the cue patterns say whether a clause cancels, declines, confirms or only proposes
a plan, and whether it tells of the past; :func:`venues` and :func:`place` read where.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from datetime import date as _date
from typing import Any

from dream.kinds.text import MONTHS, WEEKDAYS

ACTIVITIES = [
    "birthday party", "dinner", "lunch", "breakfast", "brunch", "coffee", "drinks", "meeting",
    "appointment", "flight", "concert", "movie", "interview", "party", "wedding", "barbecue",
    "bbq", "picnic", "hike", "trip", "game", "call", "reservation", "booking", "table",
    "check-up", "checkup", "session", "class", "lesson", "review", "haircut", "service",
    "night", "club", "tickets", "vaccination", "workshop", "conference", "rehearsal",
    "practice", "training", "match", "show", "play", "visit", "exam", "tour", "recital",
    "retro", "standup", "stand-up", "demo", "meetup", "catch-up", "sync",
]
_ACT_RE = re.compile(r"\b(" + "|".join(re.escape(a) for a in ACTIVITIES) + r")s?\b", re.I)
BOOKING_WORDS = {"reservation", "booking", "table"}
# heads that name an event only with a word in front ("car service", "game night")
NEEDS_MODIFIER = {"service", "night", "club", "show", "play", "match", "review", "session",
                   "class", "tour", "practice", "training", "visit", "lesson"}
GENERIC = BOOKING_WORDS | {"appointment", "plan", "tickets"}
# words that cannot be the first part of a compound activity ("budget review", "team lunch")
_NOT_MODIFIER = {
    "a", "an", "the", "my", "your", "our", "his", "her", "their", "its", "this", "that", "these",
    "those", "next", "last", "new", "first", "same", "other", "another", "any", "some", "no",
    "of", "to", "for", "at", "on", "in", "with", "by", "from", "and", "or", "but", "is", "are",
    "was", "were", "be", "been", "have", "has", "had", "having", "go", "going", "went", "do",
    "doing", "did", "get", "getting", "got", "make", "making", "made", "book", "booked",
    "booking", "cancel", "cancelled", "canceled", "moved", "move", "confirmed", "confirm",
    "reminder", "invitation", "update", "re", "fwd", "i", "we", "you", "they", "he", "she",
    "it", "me", "us", "them", "what", "when", "where", "which", "who", "how", "about", "after",
    "before", "big", "small", "quick", "nice", "great", "good", "fun", "today",
    "tonight", "tomorrow", "yesterday", "weekly", "daily", "usual", "regular", "planned",
    "upcoming", "attend", "attending", "join", "joining", "skip", "miss", "enjoy", "enjoyed",
    "tickets", "ticket", "dear", "hi", "hello", "hey", "yes", "ok", "okay", "so",
    "all", "also", "just", "still", "then", "up", "out", "one", "two", "late", "early",
    "morning", "evening", "afternoon", "please", "can", "could", "will", "would", "should",
    "must", "let", "lets", "let's", "not", "don't", "didn't", "won't", "can't", "really",
    "very", "whole", "entire", "annual", "yearly", "monthly", "each", "every", "free",
    # words that judge an event rather than name its kind ("an awesome night")
    "awesome", "amazing", "wonderful", "lovely", "fantastic", "incredible", "special",
    "perfect", "beautiful", "crazy", "wild", "relaxing", "long", "short", "busy", "quiet",
    "favorite", "favourite", "fave", "best", "worst", "cool", "epic", "huge", "little", "real",
    "different", "similar", "own", "kind", "sort", "memorable", "unforgettable", "fun-filled",
    "successful", "exciting", "boring", "final", "last-minute", "such", "more", "most",
    "love", "loved", "like", "liked", "hate", "want", "wanted", "need", "needed", "try",
    "tried", "see", "saw", "seen", "watch", "watched", "host", "hosted", "hosting", "organise",
    "organize", "organised", "organized", "plan", "set", "schedule", "scheduled",
    "second", "third", "fourth", "fifth", "sixth", "bought", "took", "playing", "watching", "taking", "missing", "skipping", "enjoying",
    "loving", "trying", "mind", "lost", "won", "left", "kept", "felt", "thought",
    # articles and possessives of German, French and Spanish ("der Termin", "la cena")
    "der", "die", "das", "den", "dem", "ein", "eine", "einen", "mein", "meine", "unser",
    "le", "la", "les", "un", "une", "mon", "ma", "notre", "el", "los", "las", "una", "mi",
    "nuestra", "nuestro", "del", "au", "al", "zum", "zur", "beim",
} | set(WEEKDAYS) | set(MONTHS)
_WORD = re.compile(r"[A-Za-z][A-Za-z'-]*")


def _head(word: str) -> str | None:
    w = word.lower()
    if w in ACTIVITIES:
        return w
    if w.endswith("s") and w[:-1] in ACTIVITIES and w[:-1] not in NEEDS_MODIFIER:
        return w[:-1]       # "dance classes", "movie nights": a habit, not one event
    return None


def activity_of(clause: str) -> str | None:
    """The clause's activity: a known event noun with up to two nouns in front of it
    ("budget review", "board game night", "parent-teacher meeting"). A specific activity
    wins over a generic one ("appointment", "booking"); heads like "service" or "night"
    count only with a word in front."""
    words = list(_WORD.finditer(clause))
    found: list[str] = []
    for i, m in enumerate(words):
        head = _head(m[0])
        if head is None or (head == "call" and re.match(r"\s+off\b", clause[m.end():], re.I)):
            continue
        nxt = words[i + 1] if i + 1 < len(words) else None
        nxt_word = nxt[0].lower() if nxt is not None else ""
        if nxt is not None and clause[m.end():nxt.start()].strip() == "" and (
                (_head(nxt_word) and _head(nxt_word) not in GENERIC) or
                nxt_word.rstrip("s") in NEEDS_MODIFIER):
            continue        # "game" in "game night": the later noun is the head
        mods: list[str] = []
        j, end = i - 1, m.start()
        while j >= 0 and len(mods) < 2:
            w = words[j]
            gap = clause[w.end():end]
            lw = w[0].lower()
            verb_ok = lw == "book" and head in NEEDS_MODIFIER and not mods    # "book club"
            if gap.strip() != "" or (lw in _NOT_MODIFIER and not verb_ok) or "'" in lw or \
                    len(lw) < 3 or lw.endswith("ed"):       # "booked", "missed": verbs
                break
            before = clause[:w.start()].rstrip()
            if w[0][0].isupper() and before and before[-1] not in ".!?:;,(\"'":
                break       # a name in front ("Jordan dinner") is a participant, not a kind
            mods.insert(0, lw)
            end, j = w.start(), j - 1
        if head in NEEDS_MODIFIER and not mods:
            continue
        found.append(" ".join([*mods, head]))
    if not found:
        return None
    specific = [a for a in found if a.split()[-1] not in GENERIC]
    return (specific or found)[0]


def same_activity(a: str | None, b: str | None) -> bool:
    """"team lunch" and "lunch" are one activity; "birthday party" and "birthday lunch" not."""
    if not a or not b:
        return False
    return a == b or a.endswith(" " + b) or b.endswith(" " + a)
CANCEL = re.compile(r"\b(cancel(?:l?ed|ling|s)?|call(?:ed|ing)? (?:it |that )?off|"
                     r"not happening|postpone[ds]?|will not take place|won'?t take place|"
                     r"is off\b|fell through|didn'?t work out|no longer (?:possible|available))\b",
                     re.I)
# "reply C to cancel", "we may have to cancel": not a cancellation (yet)
CANCEL_NOT = re.compile(r"\b(?:reply|text|click|tap|press|call|visit|log in|here)\b[^.!?]{0,30}"
                         r"\bto cancel\b|\b(?:may|might|could|if|whether|in case)\b[^.!?]{0,20}"
                         r"\bcancel", re.I)
CONFIRM = re.compile(r"\b(booked|confirmed|reserved|it'?s a date|see you (?:then|there|at|on)|"
                      r"works for me|sounds (?:good|great|perfect)|i'?m in\b|count me in|"
                      r"locked in|all set|got (?:us )?a table|made a reservation|"
                      r"i'?ll be (?:there|at)\b|(?:is|that'?s) perfect|accepted\b|"
                      r"(?:put|add)\b[^.!?]{0,60}\b(?:in|to|into|on) my calendar)", re.I)
DECLINE = re.compile(r"^(?:sorry,?\s+)?(?:i\s+)?can'?t\s*(?:[,.!]|$)|"
                      r"\b(can'?t (?:come|join|go|make it)|won'?t make it|no thanks|i'?ll pass|"
                      r"not (?:coming|joining))\b", re.I)
# a proposal or a question, not an announcement of something fixed
TENTATIVE = re.compile(r"\?\s*$|\b(?:should|could|would|shall|maybe|perhaps|how about|what about|"
                        r"want to|wanna|let'?s|might|may|if|any chance|are you|do you|"
                        r"thinking of|planning to|hoping to|would you)\b", re.I)
FULL_DATE = re.compile(
    r"\b(?:mon|tue|wed|thu|fri|sat|sun)[a-z]*,?\s+(?:\d{1,2}(?:st|nd|rd|th)?\s+(?:of\s+)?"
    r"(?:jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)|(?:jan|feb|mar|apr|may|jun|jul|aug|"
    r"sep|oct|nov|dec)[a-z]*\.?\s+\d{1,2}\b)|\b20\d\d-\d\d-\d\d\b|"
    r"\b\d{1,2}(?:st|nd|rd|th)?\s+(?:jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)[a-z]*"
    r"\.?,?\s+20\d\d\b", re.I)
TICKETS_FOR = re.compile(r"\b(?i:tickets?)\s*(?:(?i:for|to)|:)\s*(?:(?i:the)\s+)?"
                          r"([A-Z][\w'&-]*(?:\s+[A-Z][\w'&-]*){0,4})")
PAST = re.compile(r"\b(?:went|was|were|had|did|took|saw|got|ago|yesterday|last (?:week|month|"
                   r"year|weekend|night|time|monday|tuesday|wednesday|thursday|friday|saturday|"
                   r"sunday)|used to|i'?ve been|we'?ve been)\b", re.I)
FUTURE = re.compile(r"\b(?:will|'ll|going to|gonna|tomorrow|tonight|next|upcoming|soon|"
                     r"plan(?:ning)? to|can'?t wait|looking forward)\b", re.I)
# a clause that says something is not so ("I can't make 7", "ich schaff es nicht")
NEGATED = re.compile(r"\b(?:not|never|n't|nicht|kein(?:e|en)?|pas|jamais|no|nunca)\b|n't\b", re.I)
# a question asking for a change ("could we move it to 14:00?", "how about Sunday?")
ASK_CHANGE = re.compile(r"^(?:\w+,\s+)?(?:could|can|shall|should|may) (?:we|you|i)\b|"
                         r"\b(?:how|what) about\b|\bis it possible\b|\bwould\b.*\bwork\b", re.I)
_VENUE_NOUNS = (r"room|studio|court|hall|gate|platform|terminal|track|field|floor|building|"
                r"office|suite|stage|pitch|lane")
# "room Kepler", "studio Lotus" -> the name; "court 5", "gate B12" -> the whole
_VENUE = re.compile(r"\b(?i:(" + _VENUE_NOUNS + r"))\s+(?:([A-Z][\w'&-]+(?:\s+[A-Z][\w'&-]+)?)|"
                    r"(\d+[A-Z]?|[A-Z]\d+))\b")
_PLACE_KINDS = (r"trailhead|station|airport|park|entrance|library|museum|stadium|cafe|café|"
                r"hotel|restaurant|gym|campus|church|square|beach|bar|pub|clinic|hospital|"
                r"market|theatre|theater|cinema|pool|lake|bridge|tower|garden|gardens|centre|"
                r"center|arena|club|office|school")
PLACE = re.compile(r"\b(?:at|to|in|booked|reserved|switched to|moved to)\s+"
                    r"((?:the\s+)?[A-Z][\w'&-]*(?:\s+(?:(?:de|del|la|le|du|des|of|the|da|di|"
                    r"von|zum|zur|am|y)\s+)?[A-Z][\w'&-]*){0,3}"
                    r"(?:\s+(?:" + _PLACE_KINDS + r")\b)?)")
CLAUSE_RE = re.compile(r"(?<=[.!?;])(?<!\b\d\.)(?<!\b\d\d\.)\s+|\n+|\s+but\s+|,\s+(?=(?:and|but|so|then|i|we|they|"
                        r"he|she|you)\b)", re.I)
_REPLACE = re.compile(r"\b(instead|new booking|new reservation|new appointment|rebooked|"
                      r"switched to|moved (?:it )?to)\b", re.I)
# a change of an existing plan: "now at 10", "pushed to Friday", "moved to 14:00"
MOVE = re.compile(r"\b(?:now (?:at|on|starts?|begins?|is|from)|we now start|"
                  r"(?:pushed|moved|shifted|changed|rescheduled|postponed|bumped|delayed)"
                  r"(?: back| forward| it| the \w+)? (?:to|until|till|for|by)|new (?:time|date|"
                  r"start)|instead|starts? later|starts? earlier)\b", re.I)
# not a plan: deadlines, to-dos, reminders, expiry dates, deliveries, sales, bills
NOT_PLAN = re.compile(
    r"\b(?:deadline|due (?:date|by|on|at)|is due|are due|expir(?:es|ed|y|ation)|valid (?:until|"
    r"till|through)|renewal|deliver(?:y|ed|ies)|parcel|package|shipment|shipped|tracking|"
    r"dispatched|order (?:#|number|no\b)|invoice|payment|bill is|on sale|sale (?:starts|ends)|"
    r"submit|submission|remind(?:er)? (?:me )?to|newsletter|unsubscribe|opening hours|"
    r"closes at|opens at|office hours|frist|lieferung|paket|abgabe|fällig|échéance|livraison|"
    r"colis|date limite|fecha l[ií]mite|entrega|paquete|vence)\b", re.I)
# a clause that refers to the plan being talked about ("see you then", "it's at 8 now")
REFER = re.compile(r"\b(?:it|that|this|then|there|same|see you|works|ok(?:ay)?|sure|sounds|"
                   r"deal|perfect|great|yes|yep|yeah|let'?s|we|us|ja|oui|sí|vale|d'accord|"
                   r"passt|genau)\b", re.I)
# a booking made under a name: the name is not a participant
BOOKING_NAME = re.compile(r"\b(?:under(?: the name(?: of)?)?|in the name of|name:|auf den "
                          r"namen|au nom de|a nombre de)\s+([A-Z][\w'-]+(?:\s+[A-Z][\w'-]+)?)")
# a mail signature and what follows it is not the message
SIGNATURE = re.compile(r"\n\s*(?:--\s*\n|(?:best(?: regards| wishes)?|kind regards|regards|"
                       r"cheers|thanks|many thanks|sent from my|mit freundlichen grüßen|"
                       r"viele grüße|liebe grüße|cordialement|bien à vous|saludos|un saludo|"
                       r"atentamente)\b[^\n]{0,40}(?:\n|$))", re.I)
REBOOK = re.compile(r"\b(new (?:booking|reservation|appointment|date)|rebook(?:ed)?)\b", re.I)


@dataclass
class Plan:
    activity: str
    handle_row: str | None = None
    fields: dict[str, str] = field(default_factory=dict)
    steps: list[tuple[str, dict[str, str]]] = field(default_factory=list)   # (evidence, fields)
    participants: list[str] = field(default_factory=list)
    stream: str | None = None
    said: Any = None
    subject: str | None = None      # what tickets are for ("Tickets for Hamlet")


def near(a, b, hours: int = 12) -> bool:
    if a is None or b is None:
        return True
    return abs((b - a).total_seconds()) <= hours * 3600


def iso(value: str) -> _date:
    try:
        return _date.fromisoformat(value)
    except ValueError:
        return _date(2000, 1, 1)


def weekday_of(value: str | None) -> int | None:
    return iso(value).weekday() if value else None


VENUE_WORD = re.compile(r"(?:" + _VENUE_NOUNS + r")\b", re.I)


def venues(clause: str) -> list[str]:
    out = []
    for m in _VENUE.finditer(clause):
        if m[2] and m[2].split()[0].lower() in _NOT_PLACE:
            continue
        out.append(m[2] if m[2] else f"{m[1].lower()} {m[3]}")
    return out


_NOT_PLACE = {"the", "a", "an", "my", "your", "our", "his", "her", "their", "this", "that",
              "monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday",
              "january", "february", "march", "april", "may", "june", "july", "august",
              "september", "october", "november", "december", "noon", "i", "it", "least",
              "all", "first", "last", "next", "home", "work", "case", "time", "order"}


def same_place(a: str | None, b: str | None) -> bool:
    """"Trattoria Da Mario" and "Da Mario" are one place; "the Red Lion" and "Red Lion"."""
    if not a or not b:
        return False
    wa = [w for w in re.findall(r"\w+", a.lower()) if w not in ("the", "a")]
    wb = [w for w in re.findall(r"\w+", b.lower()) if w not in ("the", "a")]
    if not wa or not wb:
        return False
    if wa == wb:
        return True
    short, long_ = (wa, wb) if len(wa) < len(wb) else (wb, wa)
    n = len(short)
    return any(long_[i:i + n] == short for i in range(len(long_) - n + 1)) and \
        any(len(w) > 3 for w in short)


_CONNECTORS = {"de", "del", "la", "le", "du", "des", "of", "the", "da", "di", "von", "zum",
               "zur", "am", "y"}


def place_name(raw: str) -> str | None:
    words = []
    for word in raw.removeprefix("the ").split():
        if word.lower() in _NOT_PLACE:
            break
        words.append(word)
    while words and words[-1] in _CONNECTORS:
        words.pop()                 # "Café de Flore de": a connector ends no name
    return " ".join(words) or None
