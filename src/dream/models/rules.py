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
from typing import Any

from dream.kinds.records import slug_key
from dream.kinds.text import find_date, find_time, names, parse_when, sentences
from dream.models.base import ModelRequest, ModelResponse

CODING_SOURCES = {"claude_code", "pi", "codex"}
ACTIVITIES = [
    "birthday party", "dinner", "lunch", "breakfast", "brunch", "coffee", "drinks", "meeting",
    "appointment", "flight", "concert", "movie", "interview", "party", "wedding", "barbecue",
    "bbq", "picnic", "hike", "trip", "game", "call", "reservation", "booking", "table",
]
_ACT_RE = re.compile(r"\b(" + "|".join(re.escape(a) for a in ACTIVITIES) + r")s?\b", re.I)
_BOOKING_WORDS = {"reservation", "booking", "table"}
_CANCEL = re.compile(r"\b(cancel(?:l?ed|ling|s)?|call(?:ed|ing)? (?:it |that )?off|can'?t make it|"
                     r"won'?t make it|not happening|postpone[ds]?)\b", re.I)
_CONFIRM = re.compile(r"\b(booked|confirmed|reserved|it'?s a date|see you (?:then|there|at|on)|"
                      r"works for me|sounds good|i'?m in\b|count me in|locked in|all set|"
                      r"got (?:us )?a table|made a reservation)\b", re.I)
_DECLINE = re.compile(r"\b(can'?t (?:come|join|go)|no thanks|i'?ll pass|not (?:coming|joining))\b",
                      re.I)
_PLACE = re.compile(r"\b(?:at|to|in|booked|reserved|switched to|moved to)\s+"
                    r"((?:the\s+)?[A-Z][\w'&-]*(?:\s+[A-Z][\w'&-]*){0,3})")
_CLAUSE_RE = re.compile(r"(?<=[.!?;])\s+|\n+|\s+but\s+|,\s+(?=(?:and|but|so|then|i|we|they|"
                        r"he|she|you)\b)", re.I)
_REPLACE = re.compile(r"\b(instead|new booking|rebooked|switched to|moved (?:it )?to)\b", re.I)

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
                   + _INSTRUCTION_VERBS + r")\b", re.I)
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
_STANDING = [
    (re.compile(r"\bmy ((?:\w+ ){0,2}?(?:name|birthday|address|email|phone|number|job|role|"
                r"employer|team|timezone|time zone|editor|shell|os|language|partner|wife|"
                r"husband|dog|cat|diet|allergy))\s+is\s+([^.,;!?\n]{2,80})", re.I), None),
    (re.compile(r"\bi(?:'m| am) allergic to ([^.,;!?\n]{2,60})", re.I), "allergies"),
    (re.compile(r"\bi live in ([A-Z][\w .'-]{1,60}?)(?=[.,;!?\n]|$| and | with )"), "home"),
    (re.compile(r"\bi work (?:at|for) ([A-Z][\w&.' -]{1,60}?)(?=[.,;!?\n]|$| and | as )"),
     "employer"),
    (re.compile(r"\bi(?:'m| am) (?:a |an )?(vegetarian|vegan|pescatarian)\b", re.I), "diet"),
]
_WIKI = [
    re.compile(r"\b([A-Z][a-z]+)'s (email|phone|number|address|birthday|wife|husband|partner|"
               r"son|daughter|kids?|dog|cat|job|favou?rite \w+) is ([^.,;!?\n]{2,80})"),
]
_WIKI_VERB = re.compile(r"\b([A-Z][a-z]+) (works at|works for|lives in|moved to|is allergic to)"
                        r" ([A-Z]?[\w&' -]{2,60}?)(?=[.,;!?\n]|$| and )")
_ERROR_LINE = re.compile(
    r"((?:[A-Z]\w*(?:Error|Exception))\b[^\n]{0,160}|(?:error|fatal|FAILED|Failed)\b:?[^\n]{0,160}|"
    r"[^\n]{0,80}(?:command not found|No such file or directory|Permission denied|"
    r"not found|timed out)[^\n]{0,60}|exit code \d+)")
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
        for bundle in request.payload.get("bundles", []):
            ops += Extractor(bundle, rows).run()
        return ModelResponse(data={"ops": ops}, calls=1)


class Extractor:
    def __init__(self, bundle: dict[str, Any], rows: list[dict[str, Any]]) -> None:
        self.bundle = bundle
        self.rows = rows
        self.ops: list[dict[str, Any]] = []
        self.plans: list[Plan] = []
        self.notes_seen: set[str] = set()
        self.opened: list[tuple[str, str]] = []
        self.social_streams = {i.get("stream") for i in bundle["items"] if i["role"] == "other"}

    def run(self) -> list[dict[str, Any]]:
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
            self.ops.append(_op("note.add", [item["handle"]], {"text": text, "type": kind},
                                name=name))

    def standing(self, item: dict[str, Any]) -> None:
        for rx, fact in _STANDING:
            for m in rx.finditer(item["text"]):
                if fact is None:
                    key, value = m[1].lower(), m[2]
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
                title = task[0].upper() + task[1:]
                fields = {"title": title, "due": due or ""}
                if item["role"] == "other" and item.get("author"):
                    fields["from"] = item["author"]
                name = " ".join(title.split()[:8])
                self.opened.append((name, title))
                self.ops.append(_op("todo.open", [item["handle"]], fields, name=name))
                continue
            if _DONE.search(sent):
                row, name = self._matching_todo(sent)
                if row or name:
                    self.ops.append(_op("todo.close", [item["handle"]], {"status": "done"},
                                        row=row, name=name))

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
            act_m = _ACT_RE.search(clause)
            activity = act_m[1].lower() if act_m else None
            date = find_date(clause, said)
            clock = find_time(clause)
            places = [p for p in (_place(m[1]) for m in _PLACE.finditer(clause)) if p]
            known = {e.lower() for e in item.get("entities", [])}
            found = names(clause, known=known)
            for kp in sorted(self._known_places()):
                m = re.search(r"\b" + re.escape(kp) + r"\b", clause, re.I)
                if m and not any(kp == p.lower() for p in places):
                    places.append(m[0])
            place = places[0] if places else None
            status = None
            if _CANCEL.search(clause):
                status = "cancelled"
            elif _DECLINE.search(clause):
                status = "declined"
            elif _CONFIRM.search(clause):
                status = "confirmed"
            people = [n for n in found if n not in places and
                      not any(n in p or p in n for p in places) and n.lower() not in ACTIVITIES]
            if author and not any(p in author for p in places):
                people = [author, *[p for p in people if p != author]]
            if activity is None:
                # a clause without an activity only continues the plan being talked about
                # in the same thread, shortly after
                last = self.plans[-1] if self.plans else None
                if last is None or not (date or clock or status or place) or \
                        _TODO_OTHER.search(clause) or _TODO_USER.search(clause) or \
                        last.stream != item.get("stream") or not _near(last.said, said):
                    continue
            plan = self._target_plan(activity, place, status, people)
            if plan is None:
                continue
            fields: dict[str, str] = {}
            if date:
                fields["date"] = date
            if clock:
                fields["time"] = clock
            if place:
                fields["place"] = place
            if status:
                fields["status"] = status
            for p in people:
                if p not in plan.participants:
                    plan.participants.append(p)
            if people:
                fields["participants"] = ", ".join(plan.participants)
            plan.fields.update(fields)
            plan.steps.append((item["handle"], fields))
            plan.stream, plan.said = item.get("stream"), said

    def _known_places(self) -> set[str]:
        out = {p.fields.get("place", "").lower() for p in self.plans}
        out |= {r["fields"].get("place", "").lower() for r in self.rows if r["kind"] == "event"}
        return out - {""}

    def _target_plan(self, activity: str | None, place: str | None, status: str | None,
                     people: list[str]) -> Plan | None:
        if activity in _BOOKING_WORDS:
            activity = self.plans[-1].activity if self.plans else "reservation"
        if place:
            for plan in reversed(self.plans):
                if plan.fields.get("place", "").lower() == place.lower():
                    return plan
            row = self._row_for(activity, place, people)
            if row is not None:
                return row
            same = [p for p in self.plans if activity is None or p.activity == activity]
            if same and not same[-1].fields.get("place") and status != "cancelled":
                return same[-1]
            # another place: a new plan (a new booking replacing the old one, or another one)
            return self._new_plan(activity or (same[-1].activity if same else "plan"))
        if activity is None:
            return self.plans[-1] if self.plans else None
        for plan in reversed(self.plans):
            if plan.activity == activity:
                return plan
        row = self._row_for(activity, None, people)
        return row if row is not None else self._new_plan(activity)

    def _new_plan(self, activity: str) -> Plan:
        plan = Plan(activity=activity, fields={"activity": activity})
        self.plans.append(plan)
        return plan

    def _row_for(self, activity: str | None, place: str | None,
                 people: list[str]) -> Plan | None:
        wanted = {p.lower() for p in people}
        for row in self.rows:
            if row["kind"] != "event":
                continue
            f = row["fields"]
            if not place and f.get("status") in ("declined", "cancelled"):
                continue
            if place and f.get("place", "").lower() != place.lower():
                continue
            if activity and not place and f.get("activity") != activity:
                continue
            parts = {p.strip().lower() for p in f.get("participants", "").split(",") if p}
            if not place and wanted and parts and not (wanted & parts):
                continue
            plan = Plan(activity=f.get("activity", activity or "plan"), handle_row=row["handle"],
                        fields=dict(f),
                        participants=[p.strip() for p in f.get("participants", "").split(",")
                                      if p.strip()])
            self.plans.append(plan)
            return plan
        return None

    def flush_plans(self) -> None:
        active = [p for p in self.plans if p.fields.get("status") != "cancelled"]
        for plan in self.plans:
            if not plan.steps:
                continue
            if not plan.handle_row and not (plan.fields.get("date") or plan.fields.get("time")):
                continue        # a plan with neither date nor time is not an event yet
            if not plan.handle_row and not (plan.fields.get("place") or plan.participants):
                continue        # nor one with neither a place nor anybody in it
            status = plan.fields.get("status")
            replaced = status == "cancelled" and any(
                o is not plan and o.activity == plan.activity for o in active)
            if plan.handle_row:
                name, row = None, plan.handle_row
            else:
                who = plan.fields.get("place") or (plan.participants[0] if plan.participants
                                                   else "")
                prep = ("to" if plan.activity in ("trip", "flight") else "at") \
                    if plan.fields.get("place") else "with"
                title = f"{plan.activity.title()} {prep}"\
                        f" {who}".strip() if who else plan.activity.title()
                name = f"{plan.activity} {who} {plan.fields.get('date', '')}".strip()
                row = None
                plan.steps[0][1].setdefault("title", title)
                plan.steps[0][1].setdefault("activity", plan.activity)
                if "status" not in plan.fields:
                    plan.steps[0][1]["status"] = "proposed"
            for handle, fields in plan.steps:
                fields = dict(fields)
                if replaced and fields.get("status") == "cancelled":
                    fields["status"] = "declined"
                if fields:
                    self.ops.append(_op("event.upsert", [handle], fields, name=name, row=row))


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


def _place(raw: str) -> str | None:
    words = []
    for word in raw.removeprefix("the ").split():
        if word.lower() in _NOT_PLACE:
            break
        words.append(word)
    return " ".join(words) or None


def failure_signature(item: dict[str, Any]) -> str | None:
    text = item.get("text") or ""
    failed = item.get("is_error") is True or "Traceback (most recent call last)" in text
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
