"""A statement said in the first person, as a line someone else reads later.

A preference is kept as the user said it ("I prefer timezone-aware timestamps"). A brief
is read at the start of a later session by an agent that did not hear it said, and there
"I" reads as the agent itself; so a brief line says whose preference it is:
:func:`the_users` turns the first person into "the user" ("The user prefers
timezone-aware timestamps"). The rule is small and general:

- the first first-person word becomes "the user" (subject: its verb is put in the third
  person, "I prefer" -> "the user prefers", "I'd rather" -> "the user would rather",
  "I'm" -> "the user is", "I don't" -> "the user doesn't") or "the user's" ("my" -> "the
  user's");
- later ones become "they", "them", "their", "theirs", "themselves" ("when I fly" ->
  "when they fly": present-tense verbs do not change after "they"; "I am"/"I was" become
  "they are"/"they were");
- code spans (between backticks) are left alone, and a text without a first-person word
  is returned unchanged ("Use pnpm instead of npm", "We squash merges").

The same rule names another speaker: a to-do someone else asked for ("Send me the
invoice", from Sam) reads ``the_users(text, "Sam")`` -> "Send Sam the invoice".

English only: a sentence in another language is returned as it is.
"""

from __future__ import annotations

import re

# words that may stand between "I" and its verb, and do not change ("I really like")
_ADVERBS = {"really", "usually", "always", "never", "still", "now", "generally", "mostly",
            "also", "actually", "just", "much", "strongly", "definitely", "normally",
            "typically", "honestly", "personally", "rather", "sometimes", "often", "only"}
# auxiliaries and contractions of "I", in the third person
_AUX = {"am": "is", "was": "was", "have": "has", "do": "does", "don't": "doesn't",
        "dont": "doesn't", "'m": "is", "'ve": "has", "'d": "would", "'ll": "will"}
_MODALS = {"can", "can't", "cannot", "could", "couldn't", "will", "won't", "would",
           "wouldn't", "should", "shouldn't", "must", "might", "may", "shall"}
_IRREGULAR = {"go": "goes", "be": "is"}
_LATER = {"i": "they", "me": "them", "my": "their", "mine": "theirs", "myself": "themselves"}
_LATER_AUX = {"am": "are", "was": "were", "'m": "'re"}
# words that never follow the pronoun: a lower-case "i" before them is something else
_NOT_VERBS = {"of", "in", "on", "at", "to", "the", "an", "and", "or", "is", "are", "for",
              "from", "with", "by", "as", "if", "th", "nd", "st"}

_CODE = re.compile(r"`[^`]*`")
# a pronoun stands between spaces or punctuation of prose: "-I", "I/O", "./my" are not one
_WORD = re.compile(r"(?<![-/\\.\w])(I|i|me|my|My|MY|mine|myself)\b((?:'|’)(?:m|ve|d|ll)\b)?"
                   r"(?![/\\.-]\w)")


def the_users(text: str, person: str = "the user") -> str:
    """``text`` with its first person said as the user's (see the module's rule), or as
    ``person``'s when someone else said it."""
    if not text:
        return text
    parts = _CODE.split(text)
    codes = _CODE.findall(text)
    out: list[str] = []
    first = True
    for n, part in enumerate(parts):
        part, first = _rewrite(part, first, at_start=(n == 0), person=person)
        out.append(part)
        if n < len(codes):
            out.append(codes[n])
    return "".join(out)


def _rewrite(part: str, first: bool, at_start: bool,
             person: str = "the user") -> tuple[str, bool]:
    pieces: list[str] = []
    pos = 0
    for m in _WORD.finditer(part):
        word, tail = m[1], (m[2] or "").replace("’", "'")
        low = word.lower()
        if low == "i" and word == "i" and not _looks_like_chat_i(part, m):
            continue
        pieces.append(part[pos:m.start()])
        after = part[m.end():]
        if first:
            if low in ("my", "mine"):
                said = person + "'s"
                consumed = 0
            elif low == "i":
                said, consumed = _subject(tail, after, person)
            else:                               # "me", "myself" before any "I"
                said, consumed = person, 0
            first = False
        else:
            said = _LATER[low]
            consumed = 0
            if low == "i":
                said, consumed = _later_subject(tail, after)
        if m.start() == 0 and at_start or _sentence_starts(part, m.start()):
            said = said[0].upper() + said[1:]
        pieces.append(said)
        pos = m.end() + consumed
    pieces.append(part[pos:])
    return "".join(pieces), first


def _looks_like_chat_i(part: str, m: re.Match[str]) -> bool:
    """A lower-case "i" is the pronoun when a verb or contraction follows it ("i prefer",
    "i'd"), not a list marker or a variable."""
    nxt = re.match(r"\s+([a-z]{2,})\b", part[m.end():])
    return bool(m[2]) or (nxt is not None and nxt[1] not in _NOT_VERBS)


def _sentence_starts(part: str, at: int) -> bool:
    before = part[:at].rstrip()
    return before == "" or before.endswith((".", "!", "?", ":"))


def _subject(tail: str, after: str, person: str = "the user") -> tuple[str, int]:
    """``person`` ("the user") and its verb in the third person; returns the words said and
    how many characters of ``after`` they replace."""
    if tail:
        return person + " " + _AUX["'" + tail.lstrip("'")], 0
    m = re.match(r"((?:\s+(?:" + "|".join(_ADVERBS) + r"))*)\s+([A-Za-z][A-Za-z']*)", after)
    if not m:
        return person, 0
    adverbs, verb = m[1], m[2]
    low = verb.lower()
    if low in _MODALS:
        third = verb
    elif low in _AUX:
        third = _AUX[low]
    else:
        third = _third_person(verb)
    return person + adverbs + " " + third, m.end()


def _later_subject(tail: str, after: str) -> tuple[str, int]:
    if tail:
        return "they" + _LATER_AUX.get("'" + tail.lstrip("'"), "'" + tail.lstrip("'")), 0
    m = re.match(r"\s+(am|was)\b", after)
    if m:
        return "they " + _LATER_AUX[m[1]], m.end()
    return "they", 0


# a verb said in the past is the same after "the user" ("I told you" -> "the user told you")
_PAST = {"told", "said", "asked", "did", "had", "made", "went", "wrote", "ran", "saw", "knew",
         "thought", "took", "gave", "found", "left", "meant", "sent", "built", "kept", "got",
         "forgot", "came", "broke", "spent", "felt", "heard", "paid", "bought", "brought"}


def _third_person(verb: str) -> str:
    low = verb.lower()
    if low in _IRREGULAR:
        return _IRREGULAR[low]
    if low in _PAST or low.endswith("ed") and not low.endswith("eed") and len(low) > 4:
        return verb             # "I told you", "I switched": the past is the same for anyone
    if low.endswith(("s", "sh", "ch", "x", "z", "o")):
        return verb + "es"
    if low.endswith("y") and len(low) > 1 and low[-2] not in "aeiou":
        return verb[:-1] + "ies"
    return verb + "s"


__all__ = ["the_users"]
