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
    "birthday party",
    "dinner",
    "meal",
    "lunch",
    "breakfast",
    "brunch",
    "coffee",
    "drinks",
    "meeting",
    "appointment",
    "flight",
    "concert",
    "movie",
    "interview",
    "party",
    "wedding",
    "barbecue",
    "bbq",
    "picnic",
    "hike",
    "trip",
    "game",
    "call",
    "reservation",
    "booking",
    "table",
    "check-up",
    "checkup",
    "session",
    "class",
    "lesson",
    "review",
    "haircut",
    "service",
    "night",
    "club",
    "tickets",
    "vaccination",
    "workshop",
    "conference",
    "rehearsal",
    "practice",
    "training",
    "match",
    "show",
    "play",
    "visit",
    "exam",
    "tour",
    "recital",
    "retro",
    "standup",
    "stand-up",
    "demo",
    "meetup",
    "catch-up",
    "sync",
    "offsite",
    "retreat",
    "climbing",
    "bouldering",
    "yoga",
    "pilates",
    "swim",
    "gig",
    "festival",
    "exhibition",
    "opening",
    "vernissage",
    "premiere",
    "screening",
    "tasting",
    "ceremony",
    "funeral",
    "christening",
    "graduation",
    "reunion",
    "sleepover",
    "playdate",
    "surgery",
    "operation",
    "scan",
    "therapy",
    "physio",
    "physiotherapy",
    "massage",
    "consultation",
    "holiday",
    "vacation",
    "getaway",
    "viewing",
    "football",
    "tennis",
    "squash",
    "badminton",
    "golf",
    "opera",
    "ballet",
    "musical",
    "quiz",
    "karaoke",
    "potluck",
    "housewarming",
    "lecture",
    "seminar",
    "webinar",
    "course",
    "audition",
    "fitting",
    "barbecue",
    "checkup",
    "cookout",
    "jour fixe",
    "examination",
    "leaving party",
    "leaving drinks",
    "long run",
    "group run",
    "parkrun",
    "run club",
    "bike ride",
    "board game night",
    "game night",
]
# whom an appointment is with: "appointment with the dentist" is a dentist appointment
PROFESSIONS = {
    "dentist",
    "doctor",
    "gp",
    "dermatologist",
    "physio",
    "physiotherapist",
    "optician",
    "vet",
    "hairdresser",
    "barber",
    "therapist",
    "gynaecologist",
    "gynecologist",
    "orthodontist",
    "osteopath",
    "midwife",
    "surgeon",
    "specialist",
    "cardiologist",
    "paediatrician",
    "pediatrician",
    "psychologist",
    "chiropractor",
    "podiatrist",
    "dietitian",
    "nutritionist",
    "ophthalmologist",
    "notary",
    "lawyer",
    "accountant",
    "mechanic",
    "plumber",
    "electrician",
}
_PROFESSION_RE = re.compile(r"\b(" + "|".join(sorted(PROFESSIONS)) + r")(?:'s)?\b", re.I)
# a practice named by what it does: "Brightsmile Dental", "Oak Veterinary Clinic"
_PRACTICE = {"dental": "dentist", "veterinary": "vet"}
_PROFESSION_WORD = re.compile(r"\b(" + "|".join(sorted(PROFESSIONS | set(_PRACTICE))) +
                              r")(?:'s)?\b", re.I)
# kinds of event that are a visit to someone whose trade says which one ("check-up" at a
# dental practice is a dentist check-up)
VISITS = {"appointment", "consultation", "check-up", "checkup"}


def professions(text: str) -> set[str]:
    """The trades ``text`` (English-cued) names whom a visit is with: "Dr Marchal,
    dermatologist", "Brightsmile Dental" -> {"dermatologist"}, {"dentist"}."""
    return {_PRACTICE.get(m[1].lower(), m[1].lower()) for m in _PROFESSION_WORD.finditer(text)}
# activities of more than one word, read before single words ("jour fixe")
_PHRASE_ACTS = [a for a in ACTIVITIES if " " in a and a.split()[0] not in ("birthday",)]
# a table that is a booking: "a table for 6", "got us a table at", "booked a table"
TABLE_BOOKED = re.compile(
    r"\btables? (?:for|at|is|was|has|now)\b|\b(?:book(?:ed)?|reserv(?:e|ed)|"
    r"got|get|have|grab(?:bed)?)\b[^.!?]{0,12}\btable\b",
    re.I,
)
_ACT_RE = re.compile(r"\b(" + "|".join(re.escape(a) for a in ACTIVITIES) + r")s?\b", re.I)
BOOKING_WORDS = {"reservation", "booking", "table"}
# heads that name an event only with a word in front ("car service", "game night")
NEEDS_MODIFIER = {
    "service",
    "night",
    "club",
    "show",
    "play",
    "match",
    "review",
    "session",
    "class",
    "tour",
    "practice",
    "training",
    "visit",
    "lesson",
}
GENERIC = BOOKING_WORDS | {"appointment", "plan", "tickets"}
# words that cannot be the first part of a compound activity ("budget review", "team lunch")
_NOT_MODIFIER = (
    {
        "a",
        "an",
        "the",
        "my",
        "your",
        "our",
        "his",
        "her",
        "their",
        "its",
        "this",
        "that",
        "these",
        "those",
        "next",
        "last",
        "new",
        "first",
        "same",
        "other",
        "another",
        "any",
        "some",
        "no",
        "of",
        "to",
        "for",
        "at",
        "on",
        "in",
        "with",
        "by",
        "from",
        "and",
        "or",
        "but",
        "is",
        "are",
        "was",
        "were",
        "be",
        "been",
        "have",
        "has",
        "had",
        "having",
        "go",
        "going",
        "went",
        "do",
        "doing",
        "did",
        "get",
        "getting",
        "got",
        "make",
        "making",
        "made",
        "book",
        "booked",
        "booking",
        "cancel",
        "cancelled",
        "canceled",
        "moved",
        "move",
        "confirmed",
        "confirm",
        "reminder",
        "invitation",
        "update",
        "re",
        "fwd",
        "i",
        "we",
        "you",
        "they",
        "he",
        "she",
        "it",
        "me",
        "us",
        "them",
        "what",
        "when",
        "where",
        "which",
        "who",
        "how",
        "about",
        "after",
        # modal verbs and pronouns of German, French and Spanish ("on pourrait déjeuner",
        # "podríamos cenar": no "pourrait lunch")
        "pourrait",
        "pourrions",
        "pourriez",
        "peut",
        "peux",
        "veux",
        "voulez",
        "allons",
        "vais",
        "faire",
        "nous",
        "vous",
        "ensemble",
        "podríamos",
        "podemos",
        "puedes",
        "quieres",
        "vamos",
        "hacer",
        "juntos",
        "könnten",
        "können",
        "wollen",
        "sollen",
        "sollten",
        "machen",
        "gehen",
        "wir",
        "uns",
        # more articles and possessives ("meinen Friseurtermin"; the common ones are below)
        "meinen",
        "meinem",
        "meiner",
        "unserem",
        "des",
        "einem",
        "einer",
        "mes",
        "mis",
        "uno",
        "before",
        "big",
        "small",
        "quick",
        "nice",
        "great",
        "good",
        "fun",
        "today",
        "tonight",
        "tomorrow",
        "yesterday",
        "weekly",
        "daily",
        "usual",
        "regular",
        "planned",
        "upcoming",
        "attend",
        "attending",
        "join",
        "joining",
        "skip",
        "miss",
        "enjoy",
        "enjoyed",
        "tickets",
        "ticket",
        "dear",
        "hi",
        "hello",
        "hey",
        "yes",
        "ok",
        "okay",
        "so",
        "all",
        "also",
        "just",
        "still",
        "then",
        "up",
        "out",
        "one",
        "two",
        "late",
        "early",
        "morning",
        "evening",
        "afternoon",
        "please",
        "can",
        "could",
        "will",
        "would",
        "should",
        "must",
        "let",
        "lets",
        "let's",
        "not",
        "don't",
        "didn't",
        "won't",
        "can't",
        "really",
        "very",
        "whole",
        "entire",
        "annual",
        "yearly",
        "monthly",
        "each",
        "every",
        "free",
        # words that judge an event rather than name its kind ("an awesome night")
        "awesome",
        "amazing",
        "wonderful",
        "lovely",
        "fantastic",
        "incredible",
        "special",
        "perfect",
        "beautiful",
        "crazy",
        "wild",
        "relaxing",
        "long",
        "short",
        "busy",
        "quiet",
        "favorite",
        "favourite",
        "fave",
        "best",
        "worst",
        "cool",
        "epic",
        "huge",
        "little",
        "real",
        "different",
        "similar",
        "own",
        "kind",
        "sort",
        "memorable",
        "unforgettable",
        "fun-filled",
        "successful",
        "exciting",
        "boring",
        "final",
        "last-minute",
        "such",
        "more",
        "most",
        "love",
        "loved",
        "like",
        "liked",
        "hate",
        "want",
        "wanted",
        "need",
        "needed",
        "try",
        "tried",
        "see",
        "saw",
        "seen",
        "watch",
        "watched",
        "host",
        "hosted",
        "hosting",
        "organise",
        "organize",
        "organised",
        "organized",
        "plan",
        "set",
        "schedule",
        "scheduled",
        "second",
        "third",
        "fourth",
        "fifth",
        "sixth",
        "bought",
        "took",
        "playing",
        "watching",
        "taking",
        "missing",
        "skipping",
        "enjoying",
        "loving",
        "trying",
        "mind",
        "lost",
        "won",
        "left",
        "kept",
        "felt",
        "thought",
        # articles and possessives of German, French and Spanish ("der Termin", "la cena")
        "der",
        "die",
        "das",
        "den",
        "dem",
        "ein",
        "eine",
        "einen",
        "mein",
        "meine",
        "unser",
        "le",
        "la",
        "les",
        "un",
        "une",
        "mon",
        "ma",
        "notre",
        "el",
        "los",
        "las",
        "una",
        "mi",
        "nuestra",
        "nuestro",
        "del",
        "au",
        "al",
        "zum",
        "zur",
        "beim",
        # and their other little words ("votre rendez-vous", "tengo cita", "Lust auf Abendessen")
        "votre",
        "vos",
        "ton",
        "ta",
        "tes",
        "son",
        "sa",
        "ses",
        "leur",
        "nos",
        "cette",
        "ce",
        "pour",
        "avec",
        "chez",
        "tengo",
        "tienes",
        "tiene",
        "tenemos",
        "su",
        "sus",
        "tu",
        "tus",
        "este",
        "esta",
        "ese",
        "esa",
        "para",
        "con",
        "ihr",
        "ihre",
        "ihren",
        "ihrem",
        "dein",
        "deine",
        "deinen",
        "unsere",
        "unseren",
        "euer",
        "eure",
        "ist",
        "hab",
        "habe",
        "haben",
        "hat",
        "wird",
        "wurde",
        "für",
        "auf",
        "lust",
        "mit",
        "bei",
        "nach",
        "vom",
    }
    | set(WEEKDAYS)
    | set(MONTHS)
)
_WORD = re.compile(r"[A-Za-z][A-Za-z'-]*")


def _head(word: str) -> str | None:
    w = word.lower()
    if w in ACTIVITIES:
        return w
    if w.endswith("s") and w[:-1] in ACTIVITIES and w[:-1] not in NEEDS_MODIFIER:
        return w[:-1]  # "dance classes", "movie nights": a habit, not one event
    return None


_IDIOM_BEFORE = re.compile(r"\bof\s+$", re.I)
# kinds of event that also name a kind of place: written capitalised after a name they
# are that place ("Northgate Surgery: your appointment with Dr Shah" is at a GP practice,
# no operation); "my surgery is on Monday" is the event
_ALSO_A_PLACE = {"surgery"}


# "call" said as how to reach someone, no call planned: "Call or text us", "call us on
# 0117 496 0000", "call or email the office"
_CONTACT_US = re.compile(r"\s+(?:us\b|or\s+(?:text|email|e-mail|message|whatsapp|write)\b)",
                         re.I)


def activity_of(clause: str) -> str | None:
    """The clause's activity: a known event noun with up to two nouns in front of it
    ("budget review", "board game night", "parent-teacher meeting"). A specific activity
    wins over a generic one ("appointment", "booking"); heads like "service" or "night"
    count only with a word in front."""
    for phrase in _PHRASE_ACTS:
        if re.search(r"\b" + re.escape(phrase) + r"\b", clause, re.I):
            return phrase
    words = list(_WORD.finditer(clause))
    found: list[str] = []
    for i, m in enumerate(words):
        head = _head(m[0])
        if head is None or (
            head == "call"
            and re.match(r"\s+(?:it |this |that |the \w+ )?off\b", clause[m.end() :], re.I)
        ) or (head == "call" and _CONTACT_US.match(clause[m.end():])):
            continue    # "Call or text us", "call us on 0117...": how to reach them
        if head == "table" and not TABLE_BOOKED.search(clause):
            continue  # "can someone bring a folding table?": furniture, no booking
        if head in _ALSO_A_PLACE and m[0][:1].isupper() and \
                re.search(r"\b[A-Z][\w'’&-]*\s+$", clause[: m.start()]):
            continue  # "Northgate Surgery", "Riverside Surgery": a GP practice, a place
        if m[0].lower() == "course" and (_IDIOM_BEFORE.search(clause[: m.start()]) or (
                not clause[: m.start()].strip() and re.match(r"\s*[,!.]", clause[m.end():]))):
            continue  # "of course", "bien sûr", "course, see you Fri": an adverb, no course
        if m[0][:1].isupper() and m[0][1:].islower() and \
                re.search(r"\b(?:the|my|our|his|her|their)\s+$", clause[: m.start()]) and \
                not re.match(r"\s+[A-Z]", clause[m.end():]):
            continue  # "MOT for the Golf", "tickets for the Crucible": a name, no kind
        nxt = words[i + 1] if i + 1 < len(words) else None
        nxt_word = nxt[0].lower() if nxt is not None else ""
        if (
            nxt is not None
            and clause[m.end() : nxt.start()].strip() == ""
            and (
                (_head(nxt_word) and _head(nxt_word) not in GENERIC)
                or nxt_word.rstrip("s") in NEEDS_MODIFIER
            )
        ):
            continue  # "game" in "game night": the later noun is the head
        mods: list[str] = []
        j, end = i - 1, m.start()
        while j >= 0 and len(mods) < 2:
            w = words[j]
            gap = clause[w.end() : end]
            lw = w[0].lower()
            verb_ok = lw == "book" and head in NEEDS_MODIFIER and not mods  # "book club"
            if (
                gap.strip() != ""
                or (lw in _NOT_MODIFIER and not verb_ok)
                or "'" in lw
                or len(lw) < 3
                or lw.endswith("ed")
            ):  # "booked", "missed": verbs
                break
            before = clause[: w.start()].rstrip()
            if w[0][0].isupper() and before and before[-1] not in ".!?:;,(\"'":
                break  # a name in front ("Jordan dinner") is a participant, not a kind
            mods.insert(0, lw)
            end, j = w.start(), j - 1
        if head in NEEDS_MODIFIER and not mods:
            continue
        found.append(" ".join([*mods, head]))
    if not found:
        return None
    specific = [a for a in found if a.split()[-1] not in GENERIC]
    chosen = (specific or found)[0]
    if chosen == "appointment":
        who = _PROFESSION_RE.search(clause)
        if who:  # "an appointment with the dermatologist", "dentist appointment"
            return f"{who[1].lower()} appointment"
    return chosen


def same_activity(a: str | None, b: str | None) -> bool:
    """ "team lunch" and "lunch" are one activity; "birthday party" and "birthday lunch" not."""
    if not a or not b:
        return False
    a, b = _same_head(a), _same_head(b)
    return a == b or a.endswith(" " + b) or b.endswith(" " + a)


_HEADS = {"lesson": "class", "course": "class", "checkup": "check-up", "bbq": "barbecue"}


def _same_head(activity: str) -> str:
    """ "yoga lesson" and "yoga class" name one kind of event."""
    words = activity.split()
    return " ".join([*words[:-1], _HEADS.get(words[-1], words[-1])])


CANCEL = re.compile(
    r"\b(cancel(?:l?ed|ling|s)?|call(?:ed|ing)? (?:it |that )?off|"
    r"not happening|postpone[ds]?|will not take place|won'?t take place|"
    r"is off\b(?! sick| ill| work| today| tomorrow)|fell through|didn'?t work out|no longer (?:possible|available|"
    r"operates?)|will no longer operate|scrap(?:ped|ping)?|"
    # a cancellation confirmed ("Cancellation confirmed", "we confirm your cancellation"):
    # the confirming is of the cancellation, not of the booking
    r"cancellation (?:is |has been )?confirmed|"
    r"confirm(?:s|ed|ing)?(?: of)? (?:the |your |this )?cancellation|"
    r"confirmation of (?:the |your |this )?cancellation)\b",
    re.I,
)
# "reply C to cancel", "we may have to cancel": not a cancellation (yet); nor is the
# instruction said the other way round ("To cancel reply CANCEL", "to cancel, call us")
CANCEL_NOT = re.compile(
    r"\b(?:reply|text|click|tap|press|call|visit|log in|here)\b[^.!?]{0,30}"
    r"\bto cancel\b|(?:^|[.!?:(\n]\s*)to cancel\b,?\s+(?:please\s+)?(?:reply|text|click|"
    r"tap|press|call|visit|log in|go to|use)\b|"
    r"\b(?:(?<!\d\s)may(?!\s+\d)|might|could|if|whether|in case)\b"
    r"[^.!?]{0,20}"
    r"\bcancel",
    re.I,
)
CONFIRM = re.compile(
    r"\b((?:re)?booked|confirmed|reserved|it'?s a date|see you (?:then|there|at|on)|"
    # a booking's own confirmation mail: "This confirms Biscuit's appointment"
    r"(?:this|we) (?:hereby )?confirms?\b|(?<!awaiting )(?<!pending )confirmation\b|"
    r"works for me|(?:fine|good|ok|okay|great) (?:by|with|for) (?:me|us)\b|sounds (?:good|great|perfect)|i'?m in\b|count me in|"
    r"locked in|all set|got (?:us )?a table|made a reservation|"
    r"i'?ll be (?:there|at)\b|(?:yes|yeah|yep|ooh)[,!]? i'?m there\b|"
    r"(?:is|that'?s) perfect|accepted\b|"
    r"(?:put|add)\b[^.!?]{0,60}\b(?:in|to|into|on) my calendar|"
    r"wouldn'?t miss it|won'?t miss it|we'?re in\b|count us in|i'?m down\b|"
    r"i'?m up for|up for it|i'?m game\b|(?:is|are|sounds) fine\b|suits (?:me|us)|"
    r"(?:that|this|it|\w+day|\d(?:am|pm)|\d:\d\d) works\b|"
    r"we'?ll be there|see you (?:tomorrow|tonight|soon|monday|tuesday|"
    r"wednesday|thursday|friday|saturday|sunday)|got (?:them|the tickets|"
    r"tickets|us tickets)|bought (?:the |our |two |2 )?tickets|"
    r"(?:in|on) (?:the|my) (?:calendar|diary)|^(?:deal|in)\b(?!\s+\w+\s+\w)|"
    r"can'?t wait\b|^\W*(?:\w+day|tonight|tomorrow) it is\b)|"
    # a whole reply that is a yes ("👍 yes!", "Yes, perfect!")
    r"^\W*(?:yes+|yay|yep|yeah|absolutely|definitely|of course|obviously|"
    r"for sure|oui|sí|ja|klar|"
    r"claro)\W*$|^\W*(?:(?:yes|yep|yeah|sure|ok|okay|oui|sí|ja)\W+)?(?:perfect|"
    r"great|lovely|awesome|brilliant|super|excellent|wonderful)\W*$",
    re.I,
)
DECLINE = re.compile(
    r"^(?:sorry,?\s+)?(?:i\s+)?can'?t\s*(?:[,.!]|$)|"
    # being somewhere else on the day talked about: "I'm in Valencia that weekend", "We're
    # at Lucy's parents in Norwich that weekend"
    r"\b(?:i'?m|we'?re|i am|we are|i'?ll be|we'?ll be) (?:away|in|at)\b[^.!?]{0,60}?"
    r"\bthat (?:day|weekend|week|night|evening|morning|afternoon)\b|"
    # the day said first, "make" left without its object: "ah Wednesday I can't make"
    r"\bi can'?t make(?:\s+(?:after all|any ?more|then|now))?\s*(?:[,.!;]|$)|"
    # the day said after it: "can't do Boxing Day", "can't make Tuesday", "can't do the 12th"
    r"(?:^\W*(?:\w+\W+)?|\b(?:i|we)\s+)can'?t (?:do|make) (?:the |that )?"
    r"(?:(?:mon|tue|wed|thu|fri|sat|sun)[a-z]*\b|[A-Z][a-z]+ Day\b)"
    r"(?!\s*(?:,\s*)?(?:but|or|though|either)\b)|"
    r"\b(can'?t (?:come|join|go|make it|do (?:it|that|then)|(?:make )?(?:that|this|next) (?:day|"
    r"week|weekend|date|time|night|evening|one))|won'?t make it|no thanks|i'?ll pass|"
    r"not (?:coming|joining)|i'?m out|count me out|i'?ll sit this one out|"
    r"(?:i'?ll|i will|i'?m going to|i'?m gonna) (?:have to )?miss (?!you\b))\b",
    re.I,
)
# the one who cannot is someone else: "Shame you can't make it", "he can't come after
# all", "Grace won't make it": their no, told or answered, not the writer's
# (a name after other words: "Sadly can't make it" opens with an adverb, not a name)
_DAY_NAME = re.compile(r"(?:mon|tue|tues|wed|thu|thur|thurs|fri|sat|sun)(?:day)?|"
                       r"(?:tues|wednes|thurs|satur)day|today|tonight|tomorrow", re.I)
_OTHERS_SUBJECT = re.compile(r"(?:\b(?i:you|he|she|they)|(?<=\w\s)[A-Z][a-z]+)\s+$")


def declines(clause: str) -> bool:
    """Whether ``clause`` says its writer (or the writer's side) says no to a plan: a
    :data:`DECLINE` said of someone else ("Shame you can't make it") is their no."""
    m = DECLINE.search(clause)
    if m is None:
        return False
    if re.match(r"(?i:i|we)\b", m[0]):
        return True     # "ah Wednesday I can't make": the writer says it
    # ("ah Wednesday can't make": a day, not who cannot)
    subject = _OTHERS_SUBJECT.search(clause[:m.start()])
    return subject is None or bool(_DAY_NAME.fullmatch(subject[0].strip()))


# a yes held back ("in principle, but I don't know the programme yet; I'll let you know"):
# no yes yet, the plan stays a suggestion
HEDGED = re.compile(
    r"\b(?:in principle|not sure yet|(?:don'?t|do not) know yet|i'?ll let you know|"
    r"let you know|get back to you|we'?ll see|let'?s see|tentative(?:ly)?|no promises|"
    r"pencil(?:led)? (?:it )?in)\b",
    re.I,
)
# a proposal or a question, not an announcement of something fixed
TENTATIVE = re.compile(
    r"\?\s*$|\b(?:should|could|would|shall|maybe|perhaps|how about|what about|"
    r"want to|wanna|let'?s|might|(?<!\d\s)may(?!\s+\d)|if|any chance|are you|"
    r"do you|thinking of|planning to|hoping to|would you)\b",
    re.I,
)
FULL_DATE = re.compile(
    r"\b(?:mon|tue|wed|thu|fri|sat|sun)[a-z]*,?\s+(?:\d{1,2}(?:st|nd|rd|th)?\s+(?:of\s+)?"
    r"(?:jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)|(?:jan|feb|mar|apr|may|jun|jul|aug|"
    r"sep|oct|nov|dec)[a-z]*\.?\s+\d{1,2}\b)|\b20\d\d-\d\d-\d\d\b|"
    r"\b\d{1,2}(?:st|nd|rd|th)?\s+(?:jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)[a-z]*"
    r"\.?,?\s+20\d\d\b",
    re.I,
)
TICKETS_FOR = re.compile(
    r"\b(?i:tickets?)\s*(?:(?i:for|to)|:)\s*(?:(?i:the)\s+)?"
    r"([A-Z][\w'&-]*(?:\s+[A-Z][\w'&-]*){0,4})"
)
PAST = re.compile(
    r"\b(?:went|was|were|had|did|took|saw|got|ago|yesterday|last (?:week|month|"
    r"year|weekend|night|time|monday|tuesday|wednesday|thursday|friday|saturday|"
    r"sunday)|used to|i'?ve been|we'?ve been)\b",
    re.I,
)
FUTURE = re.compile(
    r"\b(?:will|'ll|going to|gonna|tomorrow|tonight|next|upcoming|soon|"
    r"plan(?:ning)? to|can'?t wait|looking forward)\b",
    re.I,
)
# slots offered to choose from ("we can offer Thursday at 17:30 or Friday at 8:30"): the
# plan's day is the one taken, not the ones offered
_DAYS = (
    r"monday|tuesday|wednesday|thursday|friday|saturday|sunday|montag|dienstag|mittwoch|"
    r"donnerstag|freitag|samstag|sonntag|lundi|mardi|mercredi|jeudi|vendredi|samedi|"
    r"dimanche|lunes|martes|miércoles|jueves|viernes|sábado|domingo"
)
OFFER = re.compile(
    r"\b(?:could offer|can offer|we can do|i can do|could do|can also do|"
    r"proposer|vous proposer|anbieten|ofrecer|ofrecerle|ofrecerte|"
    r"let me know which)\b|\b(?:or|ou|oder|o)\s+(?:the\s+|le\s+|el\s+|den\s+|"
    r"am\s+)?(?:following\s+)?(?:" + _DAYS + r"|\d{1,2}[:.h]\d\d|\d{1,2}\s*(?:am|pm|"
    r"uhr)\b|\d{1,2}\.?\s+(?:of\s+|de\s+)?(?:jan|feb|mar|apr|may|jun|jul|aug|sep|"
    r"oct|nov|dec|mär|mai|okt|dez|janv|févr|avr|juin|juil|août|sept|déc|ene|abr|"
    r"ago|dic)\w*)",
    re.I,
)
# a clause that says something is not so ("I can't make 7", "ich schaff es nicht")
NEGATED = re.compile(
    r"\b(?:not|never|nicht|kein(?:e|en)?|pas|jamais|no|nunca|cant|dont|wont|"
    r"didnt|doesnt|isnt|arent|wasnt|couldnt|havent)\b|\w+n['’]t\b",
    re.I,
)
# negations that say nothing is off: "can't wait", "no worries"
_BENIGN = re.compile(
    r"\b(?:can'?t wait|cannot wait|no worries|no problem|not bad|no pasa nada|"
    r"pas de souci|pas de problème|kein problem|nicht schlecht)\b",
    re.I,
)


def negated(clause: str) -> bool:
    """Whether the clause says something is not so ("I can't make 7")."""
    return bool(NEGATED.search(_BENIGN.sub(" ", clause)))


# a short yes to a question ("sure", "ok", "klar", "vale", "d'accord")
ACCEPTED = re.compile(
    r"^\W*(?:sure|ok(?:ay)?|yes|yep|yeah|fine|of course|no problem|klar|ja|gerne|"
    r"passt|vale|sí|claro|oui|d'accord|ok(?:ay)?)\b",
    re.I,
)
# a question asking for a change ("could we move it to 14:00?", "how about Sunday?")
ASK_CHANGE = re.compile(
    r"^(?:\w+,\s+)?(?:could|can|shall|should|may) (?:we|you|i)\b|"
    r"\b(?:how|what) about\b|\bis it possible\b|\bwould\b.*\bwork\b|"
    r"\b(?:können|könnten) wir\b|\bon peut\b|\bpourrait-on\b|"
    r"\bon pourrait\b|\bpodemos\b|\bpodríamos\b|^\W*(?:mejor|plutôt|lieber|"
    r"rather|instead)\b",
    re.I,
)
_VENUE_NOUNS = (
    r"room|studio|court|hall|gate|platform|terminal|track|field|floor|building|"
    r"office|suite|stage|pitch|lane"
)
# "room Kepler", "studio Lotus" -> the name; "court 5", "gate B12" -> the whole
_VENUE = re.compile(
    r"\b(?i:(" + _VENUE_NOUNS + r"))\s+(?:([A-Z][\w'&-]+(?:\s+[A-Z][\w'&-]+)?)|"
    r"(\d+[A-Z]?|[A-Z]\d+))\b"
)
_PLACE_KINDS = (
    r"trailhead|station|airport|park|entrance|library|museum|stadium|cafe|café|"
    r"hotel|restaurant|gym|campus|church|square|beach|bar|pub|clinic|hospital|"
    r"market|theatre|theater|cinema|pool|lake|bridge|tower|garden|gardens|centre|"
    r"center|arena|club|office|school"
)
PLACE = re.compile(
    r"\b(?P<prep>at|to|in|(?i:(?:re)?booked|reserved)|switched to|moved to|make it|"
    r"change it to)[\s:]+"
    # (a name joined by "and" or "&" is one name: "the Crown and Anchor", "Hop & Dice café")
    r"(?:[^\w\s,.]+\s+)?(?P<name>(?:the\s+)?[A-Z][\w'&-]*(?:\s+(?:(?:de|del|la|le|du|des|of|the|da|di|"
    r"von|zum|zur|am|y|and|&|und|et)\s+){0,2}[A-Z][\w'&-]*){0,3}"
    r"(?:\s+(?:" + _PLACE_KINDS + r")\b)?)"
)
# "Lisbon is booked": the place booked; "Honest Burgers in Soho": the venue, not the area
BOOKED_PLACE = re.compile(
    r"\b([A-Z][\w'&-]+(?:\s+[A-Z][\w'&-]+){0,3})\s+(?:is|are)\s+"
    r"(?:booked|reserved|confirmed)\b"
)
VENUE_IN = re.compile(
    r"(?<![.!?]\s)(?<!^)\b([A-Z][\w'&-]+(?:\s+(?:[A-Z][\w'&-]+|de|da|del|la|"
    r"le|du))*\s+[A-Z][\w'&-]+|[A-Z][\w'&-]{3,})\s+(?:in|on)\s+([A-Z][\w'-]+)"
)
# a street and number with no other place named: "Lindenweg 12", "Calle Mayor 5"
ADDRESS = re.compile(
    r"\b((?:[A-ZÄÖÜ][\wäöüß-]*(?:straße|strasse|str\.|weg|gasse|platz|allee|"
    r"ring|damm|ufer))|(?:[Cc]alle|[Rr]ue|[Aa]venida|[Pp]laza|[Pp]aseo)\s+"
    r"(?:de\s+(?:la\s+)?|des\s+|du\s+)?[A-Z][\w'-]+)\s+\d{1,4}[a-z]?\b"
)
# (" but " is not tried one past a space or tab: the search would have found it one earlier,
# and trying it there rescanned a long run of spaces from each of its characters)
# (a weekday written short before its date, "le jeu. 10/12", "Thu. 10 Dec", "Sa. 12.12.",
# is one date, not a sentence's end; two letters only capitalised: "I'll do. 3 of us")
CLAUSE_RE = re.compile(
    r"(?<=[.!?;])(?<!\b\d\.)(?<!\b\d\d\.)(?<!\b[A-Z]\.)"
    r"(?!(?<=\b(?:mon|tue|wed|thu|fri|sat|sun|lun|mar|mer|jeu|ven|sam|dim|jue|vie|sáb|dom)\.)"
    r"\s+\d)(?!(?<=\b(?-i:Mo|Di|Mi|Do|Fr|Sa|So|Lu|Ma|Me|Je|Ve)\.)\s+\d)\s+|\n+|(?<![^\S\n])\s+but\s+|,\s+(?=(?:and|but|so|then|i|we|they|"
    r"he|she|you|et|und|y)\b)",
    re.I,
)
_REPLACE = re.compile(
    r"\b(instead|new booking|new reservation|new appointment|rebooked|"
    r"switched to|moved (?:it )?to)\b",
    re.I,
)
# a change of an existing plan: "now at 10", "pushed to Friday", "moved to 14:00"
MOVE = re.compile(
    r"\b(?:now (?:at|on|starts?|begins?|is|from)|we now start|"
    # "the inspection is now Friday 18 Dec", "Photo is now *Thu 10 Dec*", "nativity is now
    # 5:30": a day or a time right after "is now" is the new one
    # ("is now the Sunday afternoon" is the Sunday of the run talked about: not read so)
    r"(?:is|are|'s|’s) now\s+\*?(?=\d|(?:mon|tue|wed|thu|fri|sat|sun)[a-z]*\b)|"
    r"(?:pushed|moved|moving|shifted|changed|rescheduled|postponed|bumped|delayed)"
    r"(?: back| forward| it| (?:the|your|our|my|his|her|their) [\w-]+(?: [\w-]+)?)?"
    r" (?:to|until|till|for|by)|"
    r"new (?:time|date|"
    r"start)|"
    # a business's "Neuer Termin: Freitag, 11.12." / "nouveau rendez-vous :" / "nueva
    # cita:" after it had to move the one it holds: that appointment's new day
    r"(?:neue[rsn]?|nouve(?:au|l|lle)|nuev[oa]) (?:appointment|date|datum|uhrzeit|"
    r"horaire|fecha|hora|horario)\b(?=\s*:)|instead|starts? later|starts? earlier|"
    # a shift by an amount of time: "I'm coming a day later", "an hour earlier"
    r"(?:a|an|one|two|three|\d+) (?:days?|hours?|weeks?) (?:later|earlier))\b",
    re.I,
)
# a plan that has to move, not yet where to: "we have to reschedule your appointment",
# "leider müssen wir Ihren Termin verlegen", "nous devons déplacer votre rendez-vous",
# "tenemos que cambiar su cita"; the day said after it in the message is the new one
MOVE_AHEAD = re.compile(
    r"\b(?:have to|had to|need to|must|müssen|mussten|muss|devons|devoir|dû|"
    r"tenemos que|hemos tenido que|debemos)\b[^!?\n]{0,100}?\b(?:move|reschedule|"
    r"postpone|verschieben|verlegen|déplacer|reporter|décaler|changer|cambiar|mover|"
    r"aplazar|posponer)\b",
    re.I,
)
# not a plan: deadlines, to-dos, reminders, expiry dates, deliveries, sales, bills
NOT_PLAN = re.compile(
    r"\b(?:deadline|due (?:date|by|on|at)|is due|are due|expir(?:es|ed|y|ation)|valid (?:until|"
    r"till|through)|renewal|deliver(?:y|ed|ies)|parcel|package|shipment|shipped|tracking|"
    r"dispatched|order (?:#|number|no\b)|invoice|payment|bill is|on sale|sale (?:starts|ends)|"
    r"submit|submission|remind(?:er)? (?:me )?to|newsletter|unsubscribe|opening hours|"
    r"closes at|opens at|office hours|frist|lieferung|paket|abgabe|fällig|échéance|livraison|"
    r"colis|date limite|fecha l[ií]mite|entrega|paquete|vence|booking essential|book now|"
    r"book your|tickets (?:are )?available|\d+ ?% off|flash sale|every (?:day|week|weekend|"
    r"monday|tuesday|wednesday|thursday|friday|saturday|sunday|morning|evening)|"
    r"jeden (?:tag|montag|dienstag|mittwoch|donnerstag|freitag|samstag|sonntag)|"
    r"tous les (?:jours|lundis|mardis|mercredis|jeudis|vendredis|samedis|dimanches)|"
    r"todos los (?:días|lunes|martes|miércoles|jueves|viernes|sábados|domingos)|"
    # when a place is open ("Box office open Mon-Sat 10am-6pm", "Ouvert 7j/7 de 11h30 à
    # minuit", "geöffnet", "abierto de 9 a 14"): its hours, no plan's time
    r"open (?:mon|tue|wed|thu|fri|sat|sun|daily|every|7 days|24|\d)\w*|"
    r"ouverte?s? (?:7j|tous|du|de \d|le \w+ de)|geöffnet|öffnungszeiten|"
    r"horaires? d'ouverture|abiert[oa]s? (?:de|del|todos|los)|horario de apertura)\b",
    re.I,
)
# a message offering something to many ("Book now, seats are limited", "Members' preview
# ... Book now", a newsletter): an advertisement, whose dates are the sender's offer
ADVERT = re.compile(
    r"\b(?:book now|book (?:your|early)|booking essential|seats are limited|limited "
    r"(?:seats|places|spaces|availability)|tickets (?:are )?(?:now )?available|newsletter|"
    r"unsubscribe|early bird|members' (?:price|tickets?|rate)|\d+ ?% off)\b",
    re.I,
)
# a clause that refers to the plan being talked about ("see you then", "it's at 8 now")
REFER = re.compile(
    r"\b(?:it|that|this|then|there|same|see you|works|ok(?:ay)?|sure|sounds|"
    r"i'?ll book|i'?m booking|"
    r"deal|perfect|great|yes|yep|yeah|let'?s|we|us|ja|oui|sí|vale|d'accord|"
    r"passt|genau)\b",
    re.I,
)
# a booking made under a name: the name is not a participant
BOOKING_NAME = re.compile(
    r"\b(?:under(?: the name(?: of)?)?|in the name of|name(?: on (?:the )?"
    r"booking)?:?|auf den namen|au nom de|a nombre de)\s+[\"“']?"
    r"([A-Z][\w'’-]+(?:\s+[A-Z][\w'’-]+)?)"
)
REBOOK = re.compile(r"\b(new (?:booking|reservation|appointment|date)|rebook(?:ed)?)\b", re.I)


# someone else's appointment: "Oma's dentist is at 10:30", "Opa hat morgen einen Termin
# beim Zahnarzt", "Mia has her swimming lesson": theirs, not a plan of the user's
_THEIRS = (
    r"(?:appointment|dentist|doctor|check-?up|lesson|class|exam|examination|interview|"
    r"haircut|surgery|operation|vaccination|therapy|physio\w*|training|practice|recital|"
    r"dermatologist|consultation|scan)"
)
THIRD_PARTY = re.compile(
    r"\b[A-ZÄÖÜ][a-zäöüß]+(?:'s|’s|s')\s+(?:\w+\s+){0,2}" + _THEIRS + r"\b|"
    r"\b[A-ZÄÖÜ][a-zäöüß]+ (?:has|hat|a|tiene)\s+(?:\w+\s+){0,6}?" + _THEIRS + r"\b"
)
# the speaker's relative's or friend's event: "my cousin's wedding is on the 19th", "ma
# sœur a son mariage" is theirs (said by someone else, not a plan of the user's)
KIN_EVENT = re.compile(
    r"\b(?:my|his|her|their|our) (?:\w+ )?(?:cousin|sister|brother|mum|mom|mother|dad|father|"
    r"aunt|uncle|niece|nephew|grandma|grandpa|gran|granny|nan|son|daughter|kid|friend|mate|"
    r"boss|colleague|neighbou?r|partner|wife|husband|girlfriend|boyfriend|flatmate)s?(?:'s|’s|s')"
    r"\s+(?:\w+\s+){0,2}",
    re.I,
)
# "shall we meet at the café on Saturday": a meet-up
MEET = re.compile(
    r"\b(?:meet(?:ing)? up|(?:shall|should|can|could|let'?s|let us|we(?:'ll| will)?) "
    r"meet|meet (?:you|me|us) (?:at|in|on|outside|by)|meet at)\b",
    re.I,
)
# "booked Bella Vista", "Lisbon is booked": a booking, whatever its kind
BOOKED = re.compile(r"\b(?:booked|is booked|are booked|reserved)\b", re.I)
# "closed until 24 June", "valid until", "bis zum 3. Juli", "jusqu'au 5", "hasta el 9"
UNTIL = re.compile(
    r"\b(?:until|till|through|bis(?: zum)?|jusqu'(?:au|à)|hasta(?: el)?|"
    r"hasta las|bis um|"
    # when an answer is due is no plan's day either: "Kindly RSVP by 31 January", "let us
    # know by Friday", "répondez avant le 4", "Confirmad antes del lunes"
    r"rsvp(?:'?d)?(?:\s+\w+){0,3}?\s+by|(?:reply|respond|let (?:us|me|her|him|them) know)"
    r"\s+by|r[ée]pon\w+ avant(?: le)?|confirm\w* antes(?: del?)?)\s+"
    r"[^,.;:!?()\n]{0,30}?(?=\s*(?:[,.;:!?()\n]|\band\b|\bund\b|\bet\b|$))",
    re.I,
)
SAME_DAY = re.compile(r"\bsame (?:day|date)\b", re.I)
SAME_TIME = re.compile(r"\bsame time\b", re.I)
# a clock time written without am/pm: "7:30", "at 7" (not "19:30", "07:30", "7pm")
BARE_CLOCK = re.compile(
    r"(?<![\d:.])(?:[1-9]|1[0-2])(?![:.][0-5]\d\s*(?:am|pm|a\.m|p\.m))"
    r"(?:[:.h][0-5]\d)?(?!\s*(?:am|pm|a\.m|p\.m|"
    r"uhr|h\b|heures))(?![\d:])"
    # (a span ending at noon or after is written in 24 hours: "10:00-13:00" and
    # "10:30-12:30" start in the morning)
    r"(?!\s*(?:-|–|—|to|bis)\s*(?:1[2-9]|2[0-3])(?:[:.h]\d\d)?\b)",
    re.I,
)


def bare_hour(clause: str, clock: str) -> bool:
    """Whether the clause writes the hour of ``clock`` (HH:MM) without am/pm ("at 7",
    "7:30", "half 8"); another bare number ("Sat 5th", "pitch 4") is no clock."""
    hour = int(clock[:2]) % 12 or 12
    return any(int(re.match(r"\d+", m[0])[0]) == hour for m in BARE_CLOCK.finditer(clause))


# kinds of event held in the evening: their bare "7:30" is half past seven at night
EVENING = {
    "dinner",
    "drinks",
    "party",
    "concert",
    "show",
    "gig",
    "movie",
    "night",
    "club",
    "barbecue",
    "bbq",
    "reservation",
    "table",
    "booking",
    "theatre",
    "opera",
}
# a plan told as shared: "we", "our", "you and me", "your inbox too", "wir", "on", "nos"
SHARED = re.compile(
    r"\b(?:we|us|our|ours|together|both of us|you and me|you and i|your|"
    r"wir|uns|unser|zusammen|nous|on|ensemble|nosotros|nos|juntos)\b",
    re.I,
)
_WITH = re.compile(r"\b(?:with|and|&|plus)\s+$", re.I)


def with_name(clause: str, name: str) -> bool:
    """Whether ``name`` follows "with" or "and" in the clause ("dinner with Lena and Tom")."""
    for m in re.finditer(re.escape(name), clause):
        before = clause[: m.start()]
        if _WITH.search(before) or re.search(
            r"\bwith\s+(?:[A-Z][\w'-]+,?\s+)+(?:and\s+)?$", before
        ):
            return True
    return False


_PERSONISH = re.compile(
    r"\b([A-Z][a-zß-öø-ÿ]+)(?:'s|’s)(?!\s+[A-Z])|"
    r"\b(?:with|mit|avec|con|for|für|pour|para|and|und|et|take|taking|"
    r"bring|bringing|pick up|picking up|drop off|walk)\s+"
    r"([A-Z][a-zß-öø-ÿ]+)\b(?!['’]s\s+[A-Z])"
)


def person_names(text: str) -> set[str]:
    """Names the text uses as a person's (lower case): a possessive that is no place's
    ("Bruno's vaccination", not "King's Cross"), a name after "with", "for" or "and"."""
    return {(m[1] or m[2]).lower() for m in _PERSONISH.finditer(text or "")}


_OWNER_AFTER = r"\s+(?:de|du|von|di)\s+([A-ZÄÖÜÉ][a-zß-öø-ÿ]{2,})\b(?!['’]s)"


def honorees(clause: str, activity: str) -> list[str]:
    """Whom an event is for, by the shape that names it: a possessive right before its kind
    ("Sven's leaving drinks", "Mia's birthday party") or its kind followed by "de" or
    "von" and a name ("le pot de départ de Julien", read "leaving drinks de Julien"; "la
    fiesta de Paula"; "die Feier von Jonas"). Names only, as written; the caller decides
    whether they are people."""
    words = [re.escape(w) for w in activity.split()]
    kind = r"(?i:" + r"\s+".join(words[:-1] + [words[-1] + r"s?"]) + r")\b"
    out = []
    for m in re.finditer(r"\b([A-ZÄÖÜÉ][a-zß-öø-ÿ]{2,})(?:'s|’s|s')\s+(?:[a-z][\w-]*\s+){0,2}?"
                         + kind, clause):
        out.append(m[1])
    for m in re.finditer(kind + _OWNER_AFTER, clause):
        out.append(m[1])
    return out


# someone moving house: "Jas moved to Bristol last week", "I've moved to Edinburgh, 5
# Warrender Park Road": a person's new home, not a plan moved to a place
_RELOCATED = re.compile(
    r"\b(I|I'?ve|I have|I'm|I’m|[Hh]e|[Ss]he|[Tt]hey|[Hh]e'?s|[Ss]he'?s|[Tt]hey'?ve|[A-Z][a-z]{2,})"
    r"\s+(?:(?:has|have|had|just|recently|finally|actually|is|am|are|'m|’m)\s+)*"
    r"(?:moved|moving)\s+to\s+(?:the\s+)?"
    r"(?!(?:Mon|Tue|Wed|Thu|Fri|Sat|Sun)[a-z]*\b)[A-Z]")


def relocated(clause: str) -> bool:
    """Whether the clause tells of a person moving house ("Jas moved to Bristol", "she's
    moved to Leeds"), not of a plan moved ("Lunch moved to Dishoom" names a kind of event)."""
    m = _RELOCATED.search(clause)
    return bool(m) and activity_of(m[1]) is None


# what is said of a plan's kind when it is announced, right after it: "moving day is
# confirmed: Saturday 12th", "Q1 planning is booked for Wednesday 9 Dec", "the dip is ON:
# Fri 25 Dec"
# (read from the start of a run of spaces only: tried at each of its spaces, a message with
# a long run of them took a minute for 50,000, and finds no other match)
_KIND_SAID = re.compile(
    r"(?<!\s)\s+(?:is|'s|’s|has been|will be)\s+(?:(?:on|confirmed|booked|scheduled|"
    r"fixed|set|planned)\b)", re.I)
# words that say when, where or what of something, never a kind of event on their own
_NOT_KIND = {"date", "day", "time", "venue", "place", "room", "location", "slot", "address",
             "order", "delivery", "payment", "parcel", "refund", "everything", "everyone",
             "nothing", "something", "there", "here", "what", "which", "who", "start",
             "reminder", "update", "change", "news", "deadline", "rent", "price", "plan",
             "plans", "weather", "forecast", "office", "shop", "store", "i'm", "subject"}


def known_kind(clause: str, kinds: set[str]) -> str | None:
    """The kind of event, among ``kinds`` read before by their shape, that the clause names
    again: in full ("the theory test"), or by its last word after "the", "my", "our" or
    "your" ("moving the dip to Boxing Day" of the Christmas Day dip)."""
    for kind in sorted(kinds, key=len, reverse=True):
        if re.search(r"\b" + re.escape(kind) + r"\b", clause, re.I) or (
                len(kind.split()[-1]) >= 3 and
                re.search(r"\b(?:the|my|our|your)\s+" + re.escape(kind.split()[-1]) + r"\b",
                          clause, re.I)):
            return kind
    return None


def kind_by_shape(clause: str) -> str | None:
    """A kind of event no word list names, read from where it stands: the noun phrase (one to
    three words) said to be on, booked, confirmed or scheduled ("moving day is confirmed:
    Saturday 12th", "Christmas Day dip is ON: Fri 25 Dec"). None when that phrase is a
    pronoun or a word of when, where or what ("the date is set", "your order is
    confirmed"), or nothing is before it. (A change, "Photo is now Thu 10 Dec", starts no
    plan of an unknown kind: the plan it changes was never read.)"""
    m = _KIND_SAID.search(clause)
    if not m:
        return None
    words: list[str] = []
    for w in reversed(re.findall(r"[\w'’-]+|[^\w\s]+", clause[:m.start()])[-3:]):
        if not re.fullmatch(r"[\w'-]+", w):
            break
        words.insert(0, w)
    while words and words[0].lower() in _NOT_MODIFIER:
        words = words[1:]
    if not words or any(w.lower() in _NOT_MODIFIER or w.lower() in MONTHS or
                        w.lower() in WEEKDAYS for w in words):
        return None
    if words[-1].lower() in _NOT_KIND and not (len(words) > 1 and words[-1].lower() == "day"):
        return None     # ("moving day", "sports day": a day that is a kind of event)
    if len(words) == 1 and (len(words[0]) < 3 or not words[0][:1].isalpha()):
        return None
    return " ".join(w.lower() for w in words)


def nearer_clock(clock: str, known: str) -> str:
    """Of ``clock`` and twelve hours later, the one nearer to ``known`` (HH:MM each); an
    afternoon reading of a bare hour ("see you at 7" read 19:00) is weighed the same way."""
    h, m = (int(x) for x in clock.split(":"))
    kh, km = (int(x) for x in known.split(":"))
    if h > 12:
        h -= 12
    elif h == 12:
        return clock
    here, later, there = h * 60 + m, (h + 12) * 60 + m, kh * 60 + km
    return f"{h + 12:02d}:{m:02d}" if abs(later - there) < abs(here - there) else f"{h:02d}:{m:02d}"


def evening(clock: str) -> str:
    """A bare morning hour of an evening plan, in the evening ("dinner at 7:30")."""
    h, m = (int(x) for x in clock.split(":"))
    return f"{h + 12:02d}:{m:02d}" if 4 <= h <= 11 else clock


@dataclass
class Plan:
    activity: str
    handle_row: str | None = None
    fields: dict[str, str] = field(default_factory=dict)
    steps: list[tuple[str, dict[str, str]]] = field(default_factory=list)  # (evidence, fields)
    participants: list[str] = field(default_factory=list)
    stream: str | None = None
    said: Any = None
    subject: str | None = None  # what tickets are for ("Tickets for Hamlet")
    user_in: bool | None = None  # the user proposed, booked or joined it
    named: set[str] = field(default_factory=set)  # items with a clause naming it
    shared: bool = False  # the user told of it as theirs and someone else's
    organiser: str | None = None  # who named it first ("" for the user)
    asked: dict[str, str] = field(default_factory=dict)  # a change asked for, not agreed
    asked_by: str = ""
    last_seen: int = 0  # the stream's message count when it was last named or changed
    said_as: str | None = None  # its kind in the words of the message that named it
    announced: bool = False  # fixed by its organiser in a group, the user not yet in it


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
        if m[2]:  # "Room Elbe" is the room's name; "room Kepler" says which room
            out.append(f"{m[1]} {m[2]}" if m[1][0].isupper() else m[2])
        else:
            out.append(f"{m[1].lower()} {m[3]}")
    return out


_NOT_PLACE = {
    "the",
    "a",
    "an",
    "my",
    "your",
    "our",
    "his",
    "her",
    "their",
    "this",
    "that",
    "monday",
    "tuesday",
    "wednesday",
    "thursday",
    "friday",
    "saturday",
    "sunday",
    "january",
    "february",
    "march",
    "april",
    "may",
    "june",
    "july",
    "august",
    "september",
    "october",
    "november",
    "december",
    "noon",
    "i",
    "it",
    "least",
    "all",
    "first",
    "last",
    "next",
    "home",
    "work",
    "case",
    "time",
    "order",
}


def same_place(a: str | None, b: str | None) -> bool:
    """ "Trattoria Da Mario" and "Da Mario" are one place; "the Red Lion" and "Red Lion"."""
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
    return any(long_[i : i + n] == short for i in range(len(long_) - n + 1)) and any(
        len(w) > 3 for w in short
    )


_CONNECTORS = {
    "de",
    "del",
    "la",
    "le",
    "du",
    "des",
    "of",
    "the",
    "da",
    "di",
    "von",
    "zum",
    "zur",
    "am",
    "y",
}


_NAME_WORDS = {"last", "first", "next", "home", "time", "order", "case", "least"}


def place_name(raw: str) -> str | None:
    """The name a place phrase holds: "the Red Lion" -> "Red Lion"; "The Arch Bermondsey"
    keeps its capitalised article; a weekday or month ends it ("Zur Linde Dienstag")."""
    from dream.kinds.dates import is_date_word

    words = []
    if re.match(r"(?:Mon|Tue|Tues|Wed|Thu|Thur|Thurs|Fri|Sat|Sun)\.?(?:\s|$)", raw):
        return None  # "booked Sat 7:30": a day, no place
    for n, word in enumerate(raw.removeprefix("the ").split()):
        if (
            word.lower() in _NOT_PLACE
            and not (n == 0 and word == "The")
            and not (n > 1 and word[0].isupper() and word.lower() in _NAME_WORDS)
        ) or is_date_word(word.rstrip(",.")):
            break  # (but "The Old Blue Last", "The First Cut": part of a name)
        words.append(word)
    if words == ["The"]:
        return None
    if len(words) > 1 and words[-1] in ("Day", "Eve"):
        return None     # "Boxing Day", "Christmas Eve", "Mother's Day": a day, no place
    while words and words[-1] in _CONNECTORS:
        words.pop()  # "Café de Flore de": a connector ends no name
    return " ".join(words) or None
