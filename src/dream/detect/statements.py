"""The dream run's reader of user statements: rules, preferences and directives as notes.

In a coding session a correction or directive becomes a rule (:mod:`dream.detect.rules`):
rewritten to stand on its own, grouped with its paraphrases across the call, counted. A
preference is a note of its own, checked against older ones
(:func:`dream.detect.preferences.revision`). Outside coding sessions a sentence classified
by :func:`dream.detect.directives.classify` is a note as it was said; a correction keeps
the two sentences after it (they usually say what to do instead). A finding whose name
(kind and first content words) was already found in the same call is not repeated.
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass, field

from dream.detect import directives, preferences
from dream.detect.finding import Finding
from dream.detect.prose import STOP, clean, is_coding, is_prose
from dream.detect.rules import RuleBook, said_rules, starts_session, user_words
from dream.items import Item
from dream.kinds import text as ktext
from dream.kinds.records import slug_key


@dataclass
class StatementReader:
    """Reads user statements in order (one model call)."""

    rows: list[dict] = field(default_factory=list)
    seen: set[str] = field(default_factory=set)
    liked: list[tuple[str, str]] = field(default_factory=list)   # preference name, text
    crumpled: set[str] = field(default_factory=set)     # rows replaced in this call
    rules: RuleBook = field(default_factory=RuleBook)
    opened: set[str] = field(default_factory=set)     # streams whose request was read

    def read(self, item: Item, prev: Item | None, social: bool) -> list[Finding]:
        coding = is_coding(item)
        answers = directives.after_assistant(prev)
        opening = item.stream not in self.opened
        self.opened.add(item.stream)
        if coding:
            for rule, kind in said_rules(item, answers, opening=opening,
                                         starts=opening and starts_session(item, prev)):
                self.rules.add(rule, kind, item)
        out: list[Finding] = []
        sents = ktext.sentences(item.text)
        for n, sent in enumerate(sents[:40]):
            if not is_prose(sent):
                continue
            back = None if coding else preferences.retraction(sent)
            if back is not None:
                # "scrap what I said about mornings, afternoons suit me much better now":
                # the note about mornings is crumpled, what holds now is the preference
                out += self._retraction(item, *back)
                continue
            kind = directives.classify(sent, n == 0, answers, social, coding)
            if kind is None and not coding and preferences.stance(sent) is not None and \
                    set(preferences.revision(clean(sent), item.id, [], self.rows) or ()) - \
                    self.crumpled:
                kind = "preference"     # "I'm back on coffee": it replaces a live note
            if coding and kind != "preference":
                continue            # a coding session's rules are in the rule book
            if kind == "correction" and n == 0 and answers and \
                    directives.REPLY_CORRECTION.search(sent):
                rest = [s for s in sents[1:3] if is_prose(s)]
                sent = " ".join([sent, *rest])
            if kind is None or len(sent.split()) < 3:
                continue
            text = clean(sent)
            words = [w for w in re.findall(r"[a-z0-9]+", text.lower())
                     if w not in STOP and len(w) > 1][:7]
            name = f"{kind} {' '.join(words)}"
            if slug_key(name) in self.seen:
                continue
            self.seen.add(slug_key(name))
            replaces: list[str] = []
            if not coding and not preferences.preferred(text) and \
                    preferences.stance(text) is not None:
                # "I'm back on coffee": a later stance replaces an older one it contradicts
                replaces = [h for h in preferences.revision(text, item.id, [], self.rows) or []
                            if h not in self.crumpled]
            if preferences.preferred(text):
                verdict = preferences.revision(text, item.id, self.liked, self.rows)
                if verdict is None:
                    continue        # "I prefer the aisle" again: already noted
                replaces = verdict
                self.liked.append((name, text))
            self.crumpled.update(replaces)
            out.append(Finding(kind, {"text": text, "type": kind}, [item.id], name=name,
                               replaces=replaces))
        return out

    def _retraction(self, item: Item, words: set[str], now: str) -> list[Finding]:
        replaces = [h for h in preferences.retracted(words, self.rows)
                    if h not in self.crumpled]
        if len(now.split()) < 3:
            return []       # nothing said to hold now: no note to write (nor to crumple by)
        text = clean(now)
        text = text[0].upper() + text[1:]
        name = "preference " + " ".join(
            [w for w in re.findall(r"[^\W\d_]+", text.lower()) if w not in STOP][:7])
        self.seen.add(slug_key(name))
        self.crumpled.update(replaces)
        return [Finding("preference", {"text": text, "type": "preference"}, [item.id],
                        name=name, replaces=replaces)]

    def rejection(self, item: Item) -> None:
        """A tool result holding what the user typed when rejecting the call."""
        words = user_words(item)
        if words is not None:
            for rule, kind in said_rules(item, True, words):
                self.rules.add(rule, kind, item)

    def flush(self, vocabulary: Counter[str] | None = None) -> list[Finding]:
        """The rules of the call, each with the count of times and sessions it was said
        (mistyped words spelled as ``vocabulary`` spells them)."""
        return self.rules.findings(vocabulary)
