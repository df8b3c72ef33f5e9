"""The ``rules`` provider: deterministic, offline extraction; the embedded default.

It reads the structured input of a request (``ModelRequest.payload``: the packed bundles
with their item handles, and the current rows with theirs) and answers with the same typed
keyed diff a hosted model would. What it finds:

- **directives and preferences** in genuine user statements ("always", "never", "from now
  on", "I prefer", "remember", "don't ..."), as memory notes;
- **corrections of the assistant** ("no, ...", "that's wrong", "actually ...") right after
  an assistant turn, as correction notes quoting the user (never the assistant's words);
- **plans**: activity, date, time, place and participants of events, with their status
  (proposed, confirmed, declined, cancelled); a cancelled booking next to a new one is
  declined and the new one confirmed;
- **to-dos** ("remind me to", "I need to", "can you ... by Friday") and their completion;
- **standing facts** ("my X is Y", "I live in", "I'm allergic to") and **wiki slots** for
  people ("Jordan's birthday is ...", "Jordan works at ...");
- **failure signatures** from failed tool results, normalised so repeats collide.

Only items marked as evidence are cited; assistant prose is read as context for
corrections and never cited. The sweep purpose crumples duplicate and junk notes and asks
about contradictory events.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from datetime import date as _date
from typing import Any

from dream.kinds.records import slug_key
from dream.kinds.text import (
    MONTHS,
    WEEKDAYS,
    find_date,
    find_time,
    names,
    parse_when,
    sentences,
    weekday_only,
)
from dream.models.base import ModelRequest, ModelResponse

CODING_SOURCES = {"claude_code", "pi", "codex"}
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
_BOOKING_WORDS = {"reservation", "booking", "table"}
# heads that name an event only with a word in front ("car service", "game night")
_NEEDS_MODIFIER = {"service", "night", "club", "show", "play", "match", "review", "session",
                   "class", "tour", "practice", "training", "visit", "lesson"}
_GENERIC = _BOOKING_WORDS | {"appointment", "plan", "tickets"}
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
} | set(WEEKDAYS) | set(MONTHS)
_WORD = re.compile(r"[A-Za-z][A-Za-z'-]*")


def _head(word: str) -> str | None:
    w = word.lower()
    if w in ACTIVITIES:
        return w
    if w.endswith("s") and w[:-1] in ACTIVITIES and w[:-1] not in _NEEDS_MODIFIER:
        return w[:-1]       # "dance classes", "movie nights": a habit, not one event
    return None


def _activity(clause: str) -> str | None:
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
                (_head(nxt_word) and _head(nxt_word) not in _GENERIC) or
                nxt_word.rstrip("s") in _NEEDS_MODIFIER):
            continue        # "game" in "game night": the later noun is the head
        mods: list[str] = []
        j, end = i - 1, m.start()
        while j >= 0 and len(mods) < 2:
            w = words[j]
            gap = clause[w.end():end]
            lw = w[0].lower()
            verb_ok = lw == "book" and head in _NEEDS_MODIFIER and not mods    # "book club"
            if gap.strip() != "" or (lw in _NOT_MODIFIER and not verb_ok) or "'" in lw or \
                    len(lw) < 3 or lw.endswith("ed"):       # "booked", "missed": verbs
                break
            before = clause[:w.start()].rstrip()
            if w[0][0].isupper() and before and before[-1] not in ".!?:;,(\"'":
                break       # a name in front ("Jordan dinner") is a participant, not a kind
            mods.insert(0, lw)
            end, j = w.start(), j - 1
        if head in _NEEDS_MODIFIER and not mods:
            continue
        found.append(" ".join([*mods, head]))
    if not found:
        return None
    specific = [a for a in found if a.split()[-1] not in _GENERIC]
    return (specific or found)[0]


def _same_activity(a: str | None, b: str | None) -> bool:
    """"team lunch" and "lunch" are one activity; "birthday party" and "birthday lunch" not."""
    if not a or not b:
        return False
    return a == b or a.endswith(" " + b) or b.endswith(" " + a)
_CANCEL = re.compile(r"\b(cancel(?:l?ed|ling|s)?|call(?:ed|ing)? (?:it |that )?off|"
                     r"not happening|postpone[ds]?|will not take place|won'?t take place|"
                     r"is off\b)\b", re.I)
# "reply C to cancel", "we may have to cancel": not a cancellation (yet)
_CANCEL_NOT = re.compile(r"\b(?:reply|text|click|tap|press|call|visit|log in|here)\b[^.!?]{0,30}"
                         r"\bto cancel\b|\b(?:may|might|could|if|whether|in case)\b[^.!?]{0,20}"
                         r"\bcancel", re.I)
_CONFIRM = re.compile(r"\b(booked|confirmed|reserved|it'?s a date|see you (?:then|there|at|on)|"
                      r"works for me|sounds (?:good|great|perfect)|i'?m in\b|count me in|"
                      r"locked in|all set|got (?:us )?a table|made a reservation|"
                      r"i'?ll be (?:there|at)\b|(?:is|that'?s) perfect|accepted\b|"
                      r"(?:put|add)\b[^.!?]{0,60}\b(?:in|to|into|on) my calendar)", re.I)
_DECLINE = re.compile(r"^(?:sorry,?\s+)?(?:i\s+)?can'?t\s*(?:[,.!]|$)|"
                      r"\b(can'?t (?:come|join|go|make it)|won'?t make it|no thanks|i'?ll pass|"
                      r"not (?:coming|joining))\b", re.I)
# a proposal or a question, not an announcement of something fixed
_TENTATIVE = re.compile(r"\?\s*$|\b(?:should|could|would|shall|maybe|perhaps|how about|what about|"
                        r"want to|wanna|let'?s|might|may|if|any chance|are you|do you|"
                        r"thinking of|planning to|hoping to|would you)\b", re.I)
_FULL_DATE = re.compile(
    r"\b(?:mon|tue|wed|thu|fri|sat|sun)[a-z]*,?\s+(?:\d{1,2}(?:st|nd|rd|th)?\s+(?:of\s+)?"
    r"(?:jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)|(?:jan|feb|mar|apr|may|jun|jul|aug|"
    r"sep|oct|nov|dec)[a-z]*\.?\s+\d{1,2}\b)|\b20\d\d-\d\d-\d\d\b|"
    r"\b\d{1,2}(?:st|nd|rd|th)?\s+(?:jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)[a-z]*"
    r"\.?,?\s+20\d\d\b", re.I)
_TICKETS_FOR = re.compile(r"\b(?i:tickets?)\s*(?:(?i:for|to)|:)\s*(?:(?i:the)\s+)?"
                          r"([A-Z][\w'&-]*(?:\s+[A-Z][\w'&-]*){0,4})")
_PAST = re.compile(r"\b(?:went|was|were|had|did|took|saw|got|ago|yesterday|last (?:week|month|"
                   r"year|weekend|night|time|monday|tuesday|wednesday|thursday|friday|saturday|"
                   r"sunday)|used to|i'?ve been|we'?ve been)\b", re.I)
_FUTURE = re.compile(r"\b(?:will|'ll|going to|gonna|tomorrow|tonight|next|upcoming|soon|"
                     r"plan(?:ning)? to|can'?t wait|looking forward)\b", re.I)
# a question asking for a change ("could we move it to 14:00?", "how about Sunday?")
_ASK_CHANGE = re.compile(r"^(?:\w+,\s+)?(?:could|can|shall|should|may) (?:we|you|i)\b|"
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
_PLACE = re.compile(r"\b(?:at|to|in|booked|reserved|switched to|moved to)\s+"
                    r"((?:the\s+)?[A-Z][\w'&-]*(?:\s+[A-Z][\w'&-]*){0,3}"
                    r"(?:\s+(?:" + _PLACE_KINDS + r")\b)?)")
_CLAUSE_RE = re.compile(r"(?<=[.!?;])\s+|\n+|\s+but\s+|,\s+(?=(?:and|but|so|then|i|we|they|"
                        r"he|she|you)\b)", re.I)
_REPLACE = re.compile(r"\b(instead|new booking|new reservation|new appointment|rebooked|"
                      r"switched to|moved (?:it )?to)\b", re.I)
_REBOOK = re.compile(r"\b(new (?:booking|reservation|appointment|date)|rebook(?:ed)?)\b", re.I)

_INSTRUCTION_VERBS = (
    r"use|run|write|add|put|call|commit|push|pull|format|ask|check|include|keep|reply|answer|"
    r"respond|book|send|remind|tell|mention|start|test|deploy|merge|rebase|delete|drop|edit|"
    r"touch|change|create|install|update|rename|document|log|print|wrap|sort|name|prefer|"
    r"open|close|print|explain|show|give|write|read|copy|move|skip|leave|store|save|import")
# strong markers: a standing instruction whatever the sentence looks like
_STRONG = re.compile(r"\b(from now on|going forward|from here on|in (?:the )?future,|for future|"
                     r"please remember|remember to always|note for next time)\b", re.I)
# an imperative about how to work: "Always run ...", "Never drop ...", "Make sure to ..."
_IMPERATIVE = re.compile(
    r"^(?:please\s+|and\s+|also,?\s+|great\.?\s+|ok(?:ay)?,?\s+)?(?:(?:always|never)\s+(?:"
    + _INSTRUCTION_VERBS + r")\b|(?:don'?t|do not|avoid)\s+(?:ever\s+)?(?:" + _INSTRUCTION_VERBS
    + r")\b|make sure (?:to|you)\b|remember that\b)", re.I)
_RULE = re.compile(r"\b(?:must|should)\s+(?:always|never)\b|\b(?:always|never)\s+(?:"
                   + _INSTRUCTION_VERBS + r")\b|"
                   # "you have to start the db before the tests": a standing order of steps
                   r"\byou (?:have to|need to|must|should) \w+\b[^?]{0,100}\b(?:before|first|"
                   r"every time|each time|whenever)\b", re.I)
_PREFERENCE = re.compile(r"\b(i prefer|i'?d prefer|i'?d rather|my favou?rite \w+ (?:is|are)|"
                         r"i want you to|use \S+ instead of)\b", re.I)
_PREFERENCE_LOOSE = re.compile(r"\b(i like (?:to|it when|using)|i don'?t like|i hate)\b", re.I)
_CORRECTION = re.compile(r"^(?:no[,.!:]|nope\b|no that|wrong\b|that'?s (?:wrong|not right|"
                         r"incorrect|not what)|actually[, ]|not quite|incorrect|you'?re wrong|"
                         r"i said\b|i meant\b|that is (?:wrong|not))", re.I)
_TODO_USER = re.compile(r"\b(?:remind me to|i need to|i have to|i must|don'?t forget to|"
                        r"remember to|todo:|to-do:|note to self:?)\s+(.{3,160})", re.I)
_TODO_SURE = re.compile(r"\b(?:remind me to|todo:|to-do:|note to self)", re.I)
_TASK_VERBS = re.compile(
    r"^(?:send|call|book|pick up|bring|buy|pay|sign|review|email|text|renew|file|submit|"
    r"schedule|cancel|return|order|fix|finish|prepare the|print|post|reply|write|check|update|"
    r"confirm|invite|collect|drop off|clean|ship|deploy|merge|upload|share)\b", re.I)
_TODO_OTHER = re.compile(r"\b(?:can you|could you(?: please)?|please|don'?t forget to|"
                         r"remember to)\s+(.{3,160})", re.I)
_DONE = re.compile(r"\b(done|finished|completed|sent|submitted|paid|fixed|did it|took care of)\b",
                   re.I)
_IRREGULAR = {"buy": "bought", "pay": "paid", "send": "sent", "bring": "brought",
              "pick": "picked", "write": "wrote", "get": "got", "take": "took", "make": "made",
              "do": "did", "give": "gave", "find": "found", "sell": "sold", "tell": "told",
              "call": "called", "drop": "dropped", "sign": "signed", "ship": "shipped"}
_RELATIONS = (r"sister|brother|mother|mom|mum|father|dad|wife|husband|partner|boyfriend|"
              r"girlfriend|son|daughter|boss|manager|roommate|flatmate|dog|cat|best friend")
_NAME_WORDS = r"[A-Z][a-z]+(?: [A-Z][a-z]+)?"
_CAPS = r"[A-Z][\w&.'-]*(?:\s+[A-Z][\w&.'-]*){0,3}"
_STANDING = [
    (re.compile(r"\bmy ((?:\w+ ){0,2}?(?:name|birthday|address|email|phone|number|job|role|"
                r"employer|team|timezone|time zone|editor|shell|os|language|partner|wife|"
                r"husband|dog|cat|diet|allergy|manager|boss))(?: (?:at|from) [A-Z][\w&-]*)?"
                r"\s+is\s+([^.,;!?\n]{2,80})", re.I), None),
    # "my sister Mia", "my sister is called Maya", "my boss is named Lee Chen"
    (re.compile(r"\b[Mm]y (" + _RELATIONS + r")(?:'s name is| is called| is named| named| "
                r"called|,)? (" + _NAME_WORDS + r")\b"), None),
    # "I moved to Berlin", "I've just moved to Lisbon"
    (re.compile(r"\b[Ii](?:'ve| have)? (?:just |recently )?moved to (" + _CAPS + r")"), "home"),
    # "I started a new job at Acme", "I joined Acme as a designer"
    (re.compile(r"\b(?:[Ii] (?:just |recently )?(?:started|start|began|am starting|'m starting)|"
                r"[Ss]tarted|[Ss]tarting) (?:a |my )?(?:new )?(?:job|position|role) (?:at|with) ("
                + _CAPS + r")"), "employer"),
    (re.compile(r"\b[Ii](?:'ve| have)? (?:just )?joined (" + _CAPS + r") as\b"), "employer"),
    (re.compile(r"\bi(?:'m| am) allergic to ([^.,;!?\n]{2,60})", re.I), "allergies"),
    (re.compile(r"\bi live in ([A-Z][\w .'-]{1,60}?)(?=[.,;!?\n]|$| and | with )"), "home"),
    (re.compile(r"\bi work (?:at|for) ([A-Z][\w&.' -]{1,60}?)(?=[.,;!?\n]|$| and | as )"),
     "employer"),
    (re.compile(r"\bi(?:'m| am) (?:a |an )?(vegetarian|vegan|pescatarian)\b", re.I), "diet"),
]
_NOT_NAME_VALUE = {w.lower() for w in ("is", "was", "and", "has", "had", "will", "would",
                                       "said", "says", "thinks", "wants", "Monday", "Tuesday",
                                       "Wednesday", "Thursday", "Friday", "Saturday", "Sunday",
                                       "I", "The", "He", "She", "It", "We", "They", "And")}
_WIKI = [
    re.compile(r"\b([A-Z][a-z]+)'s (email|phone|number|address|birthday|wife|husband|partner|"
               r"son|daughter|kids?|dog|cat|job|favou?rite \w+) is ([^.,;!?\n]{2,80})"),
]
_WIKI_VERB = re.compile(r"\b([A-Z][a-z]+) (works at|works for|lives in|moved to|is allergic to)"
                        r" ([A-Z]?[\w&' -]{2,60}?)(?=[.,;!?\n]|$| and )")
_ERROR_LINE = re.compile(
    r"((?:[A-Z]\w*(?:Error|Exception))\b[^\n]{0,160}|(?:(?:error|fatal|FAILED|Failed)\b:?|"
    r"Error:)[^\n]{0,160}|"
    r"[^\n]{0,80}(?:command not found|No such file or directory|Permission denied|"
    r"not found|timed out)[^\n]{0,60}|exit code \d+)")
# a tool result that says its command failed, when the source records no error flag
_EXITED = re.compile(r"\b(?:exited|exit(?:ed)? (?:with )?(?:code|status))\s+[1-9]\d*\b|"
                     r"\bcommand failed with exit code [1-9]", re.I)
_NOISE_START = ("<", "```", "{", "[", "/", "$ ", "#!", "diff --git", "Caveat:")


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


def _near(a, b, hours: int = 12) -> bool:
    if a is None or b is None:
        return True
    return abs((b - a).total_seconds()) <= hours * 3600


def _clean(text: str) -> str:
    return " ".join(text.split())


def _is_prose(sentence: str) -> bool:
    s = sentence.strip()
    if not s or s.startswith(_NOISE_START) or len(s) > 300:
        return False
    letters = sum(c.isalpha() or c == " " for c in s)
    return letters / max(1, len(s)) > 0.8


def _op(op: str, evidence: list[str], fields: dict[str, str], name: str | None = None,
        row: str | None = None) -> dict[str, Any]:
    out: dict[str, Any] = {"op": op, "fields": [{"name": k, "value": v} for k, v in fields.items()
                                                if v],
                           "evidence": evidence}
    if row:
        out["row"] = row
    elif name:
        out["name"] = name
    return out


class RulesProvider:
    name = "rules"
    model = "rules"

    def complete(self, request: ModelRequest) -> ModelResponse:
        if request.purpose == "sweep":
            return ModelResponse(data={"ops": sweep_ops(request.payload)}, calls=1)
        if request.purpose == "merge":       # never claims two look-alikes are the same
            return ModelResponse(data={"decisions": []}, calls=1)
        if request.purpose != "propose":
            return ModelResponse(data={"ops": []}, calls=1)
        ops: list[dict[str, Any]] = []
        rows = request.payload.get("rows", [])
        # one call reads its bundles together, as a model would: a plan, a to-do or a note
        # named in two bundles of the call is one record
        shared = Shared()
        bundles = request.payload.get("bundles", [])
        # names written mid-sentence anywhere in the call are names at a sentence start too
        shared.known_names = {n.lower() for b in bundles for i in b["items"]
                              if i["role"] in ("user", "other") and i.get("evidence")
                              for n in names(i.get("text") or "")}
        last = None
        for bundle in bundles:
            last = Extractor(bundle, rows, shared)
            ops += last.run(flush=False)
        if last is not None:
            last.ops = []
            last.flush_plans()
            ops += last.ops
        return ModelResponse(data={"ops": ops}, calls=1)


@dataclass
class Shared:
    plans: list[Plan] = field(default_factory=list)
    notes_seen: set[str] = field(default_factory=set)
    notes: list[tuple[str, set[str], str]] = field(default_factory=list)   # kind, stems, name
    opened: list[tuple[str, str]] = field(default_factory=list)
    known_names: set[str] = field(default_factory=set)
    liked: list[tuple[str, str]] = field(default_factory=list)     # preference notes: name, text


class Extractor:
    def __init__(self, bundle: dict[str, Any], rows: list[dict[str, Any]],
                 shared: Shared | None = None) -> None:
        shared = shared or Shared()
        self.bundle = bundle
        self.rows = rows
        self.ops: list[dict[str, Any]] = []
        self.shared = shared
        self.plans = shared.plans
        self.notes_seen = shared.notes_seen
        self.opened = shared.opened
        self.social_streams = {i.get("stream") for i in bundle["items"] if i["role"] == "other"}
        self.known_names = shared.known_names or {
            n.lower() for i in bundle["items"] if i["role"] in ("user", "other") and
            i.get("evidence") for n in names(i.get("text") or "")}

    def run(self, flush: bool = True) -> list[dict[str, Any]]:
        items = self.bundle["items"]
        failures: dict[str, list[str]] = {}
        prev = None
        for item in items:
            if not item["evidence"]:
                prev = item
                continue
            if item["kind"] == "tool_result" or item["role"] == "tool":
                sig = failure_signature(item)
                if sig:
                    failures.setdefault(sig, []).append(item["handle"])
                prev = item
                continue
            text = item["text"] or ""
            coding = item.get("stream", "") and item.get("tool_name") is None and \
                self._coding(item)
            if item["role"] == "user":
                self.notes(item, prev)
                self.standing(item)
            if item["role"] in ("user", "other"):
                self.wiki(item)
                if not coding:
                    self.todos(item)
                    self.events(item, text)
            prev = item
        for sig, handles in failures.items():
            tool, _, message = sig.partition("\x00")
            self.ops.append(_op("note.add", handles[:5],
                                {"text": f"`{tool}` failed: {message}", "type": "failure"},
                                name=f"failure {tool} {message[:48]}"))
        if flush:
            self.flush_plans()
        return self.ops

    def _coding(self, item: dict[str, Any]) -> bool:
        return bool(item.get("source") in CODING_SOURCES or
                    str(item.get("stream", "")).startswith(("claude", "pi-", "codex")))

    # -- memory notes ----------------------------------------------------------------------
    def notes(self, item: dict[str, Any], prev: dict[str, Any] | None) -> None:
        # in a conversation with other people, imperatives are said to them, not to an agent
        social = item.get("stream") in self.social_streams
        after_assistant = prev is not None and (prev["role"] == "assistant" or
                                                not prev["evidence"])
        sents = sentences(item["text"])
        for n, sent in enumerate(sents[:40]):
            if not _is_prose(sent):
                continue
            kind = None
            if n == 0 and after_assistant and _CORRECTION.search(sent):
                kind = "correction"
                rest = [s for s in sents[1:3] if _is_prose(s)]
                sent = " ".join([sent, *rest])
            elif _PREFERENCE.search(sent) or (not social and _PREFERENCE_LOOSE.search(sent)):
                kind = "preference"
            elif _STRONG.search(sent) or (not social and len(sent.split()) <= 30 and (
                    _IMPERATIVE.search(sent) or _RULE.search(sent))):
                kind = "directive"
            if kind is None or len(sent.split()) < 3:
                continue
            text = _clean(sent)
            words = [w for w in re.findall(r"[a-z0-9]+", text.lower())
                     if w not in _STOP and len(w) > 1][:7]
            name = f"{kind} {' '.join(words)}"
            if slug_key(name) in self.notes_seen:
                continue
            self.notes_seen.add(slug_key(name))
            liked = _preferred(text)
            if liked:
                older = [(n, t) for n, t in self.shared.liked] + [
                    (r["handle"], r["fields"].get("text", "")) for r in self.rows
                    if r["kind"] == "note" and r["fields"].get("status", "live") == "live"
                    and r["fields"].get("type") in ("preference", "directive", "fact")]
                revised = bool(_REVISED.search(text))
                same = [h for h, t in older if _preferred(t) and (
                    liked <= _preferred(t) or _preferred(t) <= liked)]
                if same and not revised:
                    continue        # "I prefer the aisle" again: already noted
                if revised:
                    # "actually, I prefer black coffee now": the older preference is replaced
                    for handle, t in older:
                        if handle.startswith("R") and _preferred(t) & liked:
                            self.ops.append(_op("note.crumple", [item["handle"]],
                                                {"status": "crumpled"}, row=handle))
                self.shared.liked.append((name, text))
            self.ops.append(_op("note.add", [item["handle"]], {"text": text, "type": kind},
                                name=name))

    def standing(self, item: dict[str, Any]) -> None:
        for rx, fact in _STANDING:
            for m in rx.finditer(item["text"]):
                if fact is None:
                    key, value = m[1].lower(), m[2]
                    if value.split()[0].lower() in _NOT_NAME_VALUE or (
                            re.fullmatch(_RELATIONS, key) and not value[:1].isupper()):
                        continue        # "my dog is so cute" names nobody
                else:
                    key, value = fact, m[1]
                value = re.sub(r"\s+(?:as well|too|now|though)$", "", _clean(value), flags=re.I)
                self.ops.append(_op("standing.set", [item["handle"]],
                                    {slug_key(key).replace("-", "_"): value}))

    def wiki(self, item: dict[str, Any]) -> None:
        text = item["text"]
        for rx in _WIKI:
            for m in rx.finditer(text):
                self.ops.append(_op("wiki.fill", [item["handle"]],
                                    {"name": m[1], slug_key(m[2]).replace("-", "_"):
                                     _clean(m[3])}, name=m[1]))
        for m in _WIKI_VERB.finditer(text):
            slot = {"works at": "work", "works for": "work", "lives in": "home",
                    "moved to": "home", "is allergic to": "allergies"}[m[2]]
            self.ops.append(_op("wiki.fill", [item["handle"]],
                                {"name": m[1], slot: re.sub(r"\s+(?:now|too|as well)$", "",
                                                            _clean(m[3]))}, name=m[1]))

    # -- to-dos ----------------------------------------------------------------------------
    def todos(self, item: dict[str, Any]) -> None:
        said = parse_when(item["said_at"])
        rx = _TODO_USER if item["role"] == "user" else _TODO_OTHER
        for sent in sentences(item["text"])[:20]:
            m = rx.search(sent)
            if m and not sent.rstrip().endswith("?") or (m and item["role"] == "other"):
                task = re.split(r"[.!?\n]", m[1])[0].strip(" ,")
                task = re.sub(r"^(?:please|me)\s+", "", task, flags=re.I)
                if len(task.split()) < 2:
                    continue
                due = find_date(sent, said)
                if not (_TODO_SURE.search(sent) or due or _TASK_VERBS.search(task)):
                    continue        # "can you tell me more" is conversation, not a task
                task = re.sub(r"\s+(?:by|before|on|until)\s+(?:next\s+|this\s+)?(?:"
                              r"today|tonight|tomorrow|monday|tuesday|wednesday|thursday|"
                              r"friday|saturday|sunday|\d[\w ]*)$", "", task, flags=re.I)
                task = re.sub(r",?\s+(?:sorry|please|thanks|thank you|ok|okay)$", "", task,
                              flags=re.I)
                task = re.sub(r"\s+(?:(?:this|next) (?:week|month|weekend)|soon|asap|later|"
                              r"today|tonight|tomorrow)$", "", task, flags=re.I)
                title = task[0].upper() + task[1:]
                fields = {"title": title, "due": due or ""}
                if item["role"] == "other" and item.get("author"):
                    fields["from"] = item["author"]
                name = " ".join(title.split()[:8])
                twin = self._same_todo(title)
                if twin is not None:        # said again: the same to-do, more evidence
                    row, name = twin
                    if row:
                        continue
                    fields["title"] = next(t for n, t in self.opened if n == name)
                else:
                    self.opened.append((name, title))
                self.ops.append(_op("todo.open", [item["handle"]], fields, name=name))
                continue
            if not _DONE.search(sent) and not re.search(r"\b(?:not|never|yet|still|didn'?t|"
                                                        r"haven'?t|will|'ll|to)\b", sent, re.I):
                # "Renewed the car insurance": the to-do's own verb, done
                row, name = self._todo_by_past_verb(sent)
                if row or name:
                    self.ops.append(_op("todo.close", [item["handle"]], {"status": "done"},
                                        row=row, name=name))
                    continue
            if _DONE.search(sent):
                row, name = self._matching_todo(sent)
                if not (row or name) and len(item["text"]) <= 300:
                    # "Attached is the tax form. Done on my side.": the item says what is done
                    row, name = self._matching_todo(item["text"])
                if row or name:
                    self.ops.append(_op("todo.close", [item["handle"]], {"status": "done"},
                                        row=row, name=name))

    def _todo_by_past_verb(self, sent: str) -> tuple[str | None, str | None]:
        low = sent.lower()
        candidates = [(row["handle"], None, row["fields"].get("title", ""))
                      for row in self.rows if row["kind"] == "todo"
                      and row["fields"].get("status", "open") == "open"]
        candidates += [(None, name, title) for name, title in self.opened]
        for handle, name, title in candidates:
            words = title.lower().split()
            if not words:
                continue
            verb = words[0]
            forms = {_IRREGULAR.get(verb, ""), verb + "ed", verb + "d", verb[:-1] + "ied"} - {""}
            if not any(re.search(r"\b" + re.escape(f) + r"\b", low) for f in forms):
                continue
            rest = _stems(" ".join(words[1:]))
            needed = len(rest) if len(rest) <= 2 else -(-2 * len(rest) // 3)
            if rest and len(rest & _stems(sent)) >= needed:
                return handle, name
        return None, None

    def _same_todo(self, title: str) -> tuple[str | None, str | None] | None:
        """An open to-do (row handle, or name opened in this call) saying the same task."""
        words = _stems(title)
        candidates = [(row["handle"], None, row["fields"].get("title", ""))
                      for row in self.rows if row["kind"] == "todo"
                      and row["fields"].get("status", "open") == "open"]
        candidates += [(None, name, t) for name, t in self.opened]
        for handle, name, other in candidates:
            tw = _stems(other)
            overlap = len(words & tw)
            if overlap >= 2 and overlap >= 0.6 * min(len(words), len(tw)):
                return handle, name
        return None

    def _matching_todo(self, sent: str) -> tuple[str | None, str | None]:
        """(row handle, or name of a to-do opened in this bundle) the sentence closes."""
        words = {w for w in re.findall(r"[a-z]{3,}", sent.lower())} - _STOP
        candidates = [(row["handle"], None, row["fields"].get("title", ""))
                      for row in self.rows if row["kind"] == "todo"
                      and row["fields"].get("status", "open") == "open"]
        candidates += [(None, name, title) for name, title in self.opened]
        best, best_score = (None, None), 0.0
        for handle, name, title in candidates:
            tw = {w for w in re.findall(r"[a-z]{3,}", title.lower())} - _STOP
            if not tw:
                continue
            overlap = len(words & tw)
            score = overlap / len(tw)
            if (overlap >= 2 or score >= 0.5 and overlap >= 1) and score > best_score:
                best, best_score = (handle, name), score
        return best

    # -- events ----------------------------------------------------------------------------
    def events(self, item: dict[str, Any], text: str) -> None:
        said = parse_when(item["said_at"])
        author = item.get("author") if item["role"] == "other" else None
        for clause in _CLAUSE_RE.split(text):
            clause = clause.strip()
            if not clause or len(clause) > 400:
                continue
            activity = _activity(clause)
            date = find_date(clause, said)
            clock = find_time(clause)
            places = _venues(clause)
            places += [p for p in (_place(m[1]) for m in _PLACE.finditer(clause))
                       if p and p not in places]
            known = {e.lower() for e in item.get("entities", [])} | self.known_names
            found = names(clause, known=known)
            for kp in sorted(self._known_places()):
                m = re.search(r"\b" + re.escape(kp) + r"\b", clause, re.I)
                if m and not any(kp == p.lower() for p in places):
                    places.append(m[0])
            place = places[0] if places else None
            status = None
            if _CANCEL.search(clause) and not _CANCEL_NOT.search(clause):
                status = "cancelled"
            elif _DECLINE.search(clause):
                status = "declined"
            elif _CONFIRM.search(clause):
                status = "confirmed"
            people = [n for n in found if n not in places and
                      not any(n in p or p in n for p in places) and
                      n.lower() not in ACTIVITIES and not _VENUE_WORD.match(n)]
            if author and not any(p in author or author in p for p in places):
                people = [author, *[p for p in people if p != author]]
            if activity is None:
                # a clause without an activity only continues the plan being talked about
                # in the same thread, shortly after
                last = self.plans[-1] if self.plans else None
                if last is None or not (date or clock or status or place) or \
                        _TODO_OTHER.search(clause) or _TODO_USER.search(clause) or \
                        last.stream != item.get("stream") or not _near(last.said, said):
                    continue
            wd = weekday_only(clause)
            n_plans = len(self.plans)
            plan = self._target_plan(activity, place, status, people, date,
                                     item.get("stream"), wd)
            if plan is None:
                continue
            if len(self.plans) > n_plans and not plan.handle_row and status is None and \
                    _PAST.search(clause) and not _FUTURE.search(clause):
                self.plans.remove(plan)     # "we went on a hike last Friday": a memory, no plan
                continue
            had = plan.fields.get("date")
            # "on Friday" about a plan already on a Friday (said within the week before it)
            # names that day, not the next Friday after it was said
            if date and had and wd is not None and said is not None:
                ahead = (_iso(had) - said.date()).days
                if _iso(had).weekday() == wd and -1 <= ahead <= 13:
                    date = had
            # a new booking after a cancelled one is another event, not a move
            if status != "cancelled" and date and had and date != had and (
                    plan.fields.get("status") in ("cancelled", "declined") or
                    _REBOOK.search(clause)):
                old = plan
                plan = self._new_plan(old.activity)
                plan.participants = list(old.participants)
                if old.fields.get("place") and not place:
                    place = old.fields["place"]
            # a question ("could we move it to 14:00?") proposes; it does not move a plan
            question = clause.rstrip().endswith("?") and _ASK_CHANGE.search(clause)
            if question and status is None and (plan.handle_row or plan.steps):
                date = date if date == had else None
                clock = place = None
            # someone else announcing a fixed date ("Budget review on Monday at 15:00")
            # (a fixed appointment is written with its full date, "Thursday 12 March", not
            # "tomorrow" or "on Friday" as a suggestion between friends is)
            if status is None and author and not _TENTATIVE.search(clause) and \
                    _FULL_DATE.search(clause) and (clock or plan.fields.get("time")) and \
                    plan.fields.get("status", "proposed") == "proposed":
                status = "confirmed"
            if activity and plan.activity.split()[-1] in _GENERIC and \
                    activity.split()[-1] not in _GENERIC and not plan.handle_row:
                plan.activity = activity        # "booking" first, "flight" later
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
                if p not in plan.participants:
                    plan.participants.append(p)
            if people:
                fields["participants"] = ", ".join(plan.participants)
            sub = _TICKETS_FOR.search(clause)
            if sub and plan.activity == "tickets" and not plan.subject:
                plan.subject = _place(sub[1])
                people = [p for p in people if p != plan.subject]
            if not fields:
                continue
            plan.fields.update(fields)
            plan.steps.append((item["handle"], fields))
            plan.stream, plan.said = item.get("stream"), said

    def _known_places(self) -> set[str]:
        out = {p.fields.get("place", "").lower() for p in self.plans}
        out |= {r["fields"].get("place", "").lower() for r in self.rows if r["kind"] == "event"}
        return out - {""}

    def _target_plan(self, activity: str | None, place: str | None, status: str | None,
                     people: list[str], date: str | None = None,
                     stream: str | None = None, weekday: int | None = None) -> Plan | None:
        if activity and activity.split()[-1] in _BOOKING_WORDS:
            # "the booking", "your table": the plan talked about (at that place), if any
            for plan in reversed(self.plans):
                if (place and plan.fields.get("place", "").lower() == place.lower()) or \
                        (not place and plan.stream == stream):
                    return plan
            if not place:
                row = self._row_for(None, None, people, date, weekday)
                if row is not None:
                    return row
            activity = "reservation" if " " not in activity else activity
        if place:
            for plan in reversed(self.plans):
                if plan.fields.get("place", "").lower() == place.lower():
                    return plan
            row = self._row_for(activity, place, people, date, weekday)
            if row is not None:
                return row
            same = [p for p in self.plans if activity is None or
                    _same_activity(p.activity, activity)]
            if same and status != "cancelled" and \
                    same[-1].fields.get("status") not in ("cancelled", "declined") and (
                    not same[-1].fields.get("place") or not date or
                    same[-1].fields.get("date") == date):
                return same[-1]     # the place of a plan, or its new place
            # another place: a new plan (a new booking replacing the old one, or another one)
            return self._new_plan(activity or (same[-1].activity if same else "plan"))
        if activity is None:
            return self.plans[-1] if self.plans else None
        for plan in reversed(self.plans):
            if _same_activity(plan.activity, activity) and (
                    not date or not plan.fields.get("date") or plan.fields["date"] == date or
                    plan.stream == stream or _weekday_of(plan.fields["date"]) == weekday):
                return plan
        row = self._row_for(activity, None, people, date, weekday)
        return row if row is not None else self._new_plan(activity)

    def _new_plan(self, activity: str) -> Plan:
        plan = Plan(activity=activity, fields={"activity": activity})
        self.plans.append(plan)
        return plan

    def _row_for(self, activity: str | None, place: str | None,
                 people: list[str], date: str | None = None,
                 weekday: int | None = None) -> Plan | None:
        wanted = {p.lower() for p in people}
        events = [r for r in self.rows if r["kind"] == "event"]
        for plan in self.plans:
            if plan.handle_row:
                events = [r for r in events if r["handle"] != plan.handle_row]

        def usable(row: dict[str, Any], how: str) -> bool:
            f = row["fields"]
            if how == "place":
                return bool(place) and f.get("place", "").lower() == place.lower()
            if how == "day":     # the same kind of event on the same day
                return bool(date) and (f.get("date") == date or
                                       _weekday_of(f.get("date")) == weekday) and \
                    (activity is None or _same_activity(f.get("activity"), activity))
            if f.get("status") in ("declined", "cancelled") or place:
                return False
            if activity and not _same_activity(f.get("activity"), activity):
                return False
            parts = {p.strip().lower() for p in f.get("participants", "").split(",") if p}
            return not (wanted and parts and not (wanted & parts))

        for how in ("place", "day", "any"):
            for row in events:
                if not usable(row, how):
                    continue
                f = row["fields"]
                plan = Plan(activity=f.get("activity", activity or "plan"),
                            handle_row=row["handle"], fields=dict(f),
                            participants=[p.strip() for p in f.get("participants", "").split(",")
                                          if p.strip()])
                self.plans.append(plan)
                return plan
        return None

    def flush_plans(self) -> None:
        active = [p for p in self.plans if p.fields.get("status") != "cancelled"]
        titles: dict[int, str] = {}
        for plan in self.plans:
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
            if plan.fields.get("place") and what.split()[-1] not in _NEEDS_MODIFIER:
                what = what.split()[-1]     # "Lunch at Hoppers": the place says which lunch
            titles[id(plan)] = f"{what[0].upper()}{what[1:]} {prep} {who}" if who else \
                what.capitalize()
        for plan in self.plans:
            if not plan.steps:
                continue
            if not plan.handle_row and not (plan.fields.get("date") or plan.fields.get("time")):
                continue        # a plan with neither date nor time is not an event yet
            if not plan.handle_row and not (plan.fields.get("place") or plan.participants):
                continue        # nor one with neither a place nor anybody in it
            status = plan.fields.get("status")
            replaced = status == "cancelled" and any(
                o is not plan and _same_activity(o.activity, plan.activity) and o.steps
                for o in active)
            if plan.handle_row:
                name, row = None, plan.handle_row
            else:
                who = plan.subject or plan.fields.get("place") or (
                    plan.participants[0] if plan.participants else "")
                title = titles[id(plan)]
                twins = [o for o in self.plans if o is not plan and titles.get(id(o)) and
                         titles[id(o)].split(" (")[0] == title]
                if twins and plan.fields.get("date"):
                    # two bookings of one thing (a cancelled one and its replacement)
                    title += f" ({WEEKDAYS[_iso(plan.fields['date']).weekday()].title()})"
                name = f"{plan.activity} {who} {plan.fields.get('date', '')}".strip()
                row = None
                plan.steps[0][1].setdefault("title", title)
                plan.steps[0][1]["activity"] = plan.activity
                if "status" not in plan.fields:
                    plan.steps[0][1]["status"] = "proposed"
            for handle, fields in plan.steps:
                fields = dict(fields)
                if replaced and fields.get("status") == "cancelled":
                    fields["status"] = "declined"
                if fields:
                    self.ops.append(_op("event.upsert", [handle], fields, name=name, row=row))


def _iso(value: str) -> _date:
    try:
        return _date.fromisoformat(value)
    except ValueError:
        return _date(2000, 1, 1)


def _weekday_of(value: str | None) -> int | None:
    return _iso(value).weekday() if value else None


_VENUE_WORD = re.compile(r"(?:" + _VENUE_NOUNS + r")\b", re.I)


def _venues(clause: str) -> list[str]:
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
_STOP = {"the", "a", "an", "to", "of", "and", "or", "in", "on", "for", "with", "is", "it",
         "be", "that", "this", "you", "i", "me", "my", "we", "our", "please", "always",
         "never", "don", "t", "do", "not", "from", "now", "just", "use", "can", "are", "at",
         "as", "by", "if", "so", "but", "when", "what", "should", "would", "will", "make",
         "sure", "remember", "prefer", "like", "no", "yes", "actually", "done", "finished",
         "sent", "completed", "need", "have", "has", "had", "was", "were"}


_PREFERS = re.compile(r"\b(?:prefer(?:s|red)?|rather have|rather|favou?rite \w+ (?:is|are)|like)\s+"
                      r"([^.;!?\n]{2,80})", re.I)
_REVISED = re.compile(r"\b(?:actually|from now on|instead|any ?more|no longer|changed my mind|"
                      r"these days|now)\b", re.I)


def _preferred(text: str) -> set[str]:
    """What a preference prefers ("I prefer aisle seats" -> {aisle, seat}); empty when the
    text states no preference."""
    m = _PREFERS.search(text)
    return _stems(m[1]) - {"prefer", "always", "usual", "rather"} if m else set()


def _stems(text: str) -> set[str]:
    """Content words, plural -s dropped: "aisle seats" and "an aisle seat" share two."""
    out = set()
    for w in re.findall(r"[a-z]{3,}", text.lower()):
        if w in _STOP:
            continue
        out.add(w[:-1] if w.endswith("s") and not w.endswith("ss") and len(w) > 3 else w)
    return out


def _place(raw: str) -> str | None:
    words = []
    for word in raw.removeprefix("the ").split():
        if word.lower() in _NOT_PLACE:
            break
        words.append(word)
    return " ".join(words) or None


def failure_signature(item: dict[str, Any]) -> str | None:
    text = item.get("text") or ""
    failed = item.get("is_error") is True or "Traceback (most recent call last)" in text or (
        item.get("is_error") is None and bool(_EXITED.search(text[:300])))
    if not failed:
        return None
    m = None
    for line in text.splitlines()[:80]:
        m2 = _ERROR_LINE.search(line)
        if m2:
            m = m2
            if re.search(r"(Error|Exception)\b", m2[1]):
                break
    if m is None or "Sibling tool call errored" in text[:300]:
        return None         # Claude Code cancelled a parallel call: not a failure of its own
    sig = m[1].strip()
    sig = re.sub(r"(/[\w.@~-]+)+", "<path>", sig)
    sig = re.sub(r"0x[0-9a-f]+|\b\d+\b", "N", sig)
    sig = re.sub(r"\s+", " ", sig)[:160].strip(" :")
    if len(sig) < 6:
        return None
    return f"{item.get('tool_name') or 'tool'}\x00{sig}"


# -- sweep -------------------------------------------------------------------------------------
def sweep_ops(payload: dict[str, Any]) -> list[dict[str, Any]]:
    rows = payload.get("rows", [])
    changed = set(payload.get("changed", []))
    ops: list[dict[str, Any]] = []
    notes = [r for r in rows if r["kind"] == "note" and
             r["fields"].get("status", "live") == "live"]
    seen: dict[str, dict[str, Any]] = {}
    for row in sorted(notes, key=lambda r: r["key"]):
        text = row["fields"].get("text", "")
        norm = " ".join(re.findall(r"[a-z0-9]+", text.lower()))
        if len(norm.split()) < 3 and row["handle"] in changed:
            ops.append(_op("note.crumple", [row["handle"]], {"status": "crumpled"},
                           row=row["handle"]))
            continue
        twin = seen.get(norm)
        if twin is not None and row["handle"] in changed:
            ops.append(_op("note.crumple", [row["handle"], twin["handle"]],
                           {"status": "crumpled"}, row=row["handle"]))
            continue
        seen.setdefault(norm, row)
    events = [r for r in rows if r["kind"] == "event" and
              r["fields"].get("status") == "confirmed" and r["fields"].get("date")]
    for i, a in enumerate(events):
        for b in events[i + 1:]:
            fa, fb = a["fields"], b["fields"]
            if a["handle"] not in changed and b["handle"] not in changed:
                continue
            if fa["date"] == fb["date"] and fa.get("time") and fa.get("time") == fb.get("time") \
                    and fa.get("place", "") != fb.get("place", ""):
                ops.append(_op("question.ask", [a["handle"], b["handle"]], {
                    "text": f"Two confirmed plans at {fa['date']} {fa['time']}: "
                            f"'{fa.get('title', a['key'])}' and '{fb.get('title', b['key'])}'."
                            " Which one stands?",
                    "about": f"events/{a['key']}.md, events/{b['key']}.md"},
                    name=f"clash {a['key']} {b['key']}"))
    return ops


def make(arg: str, settings: dict[str, Any]) -> RulesProvider:
    return RulesProvider()
