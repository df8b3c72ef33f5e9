"""Preferences and things to remember.

A **preference** is what a person says they like or want ("I prefer aisle seats", "I'd
rather ...", "my favourite X is ...", "I want you to ...", "use X instead of Y"; in a
conversation with nobody else also "I like to ...", "I don't like ...", "I hate ...").
A preference said again is the same preference; one said with a revision cue ("actually",
"from now on", "instead", "no longer", "changed my mind", "these days", "now") replaces the
older ones about the same thing (:func:`revision`), and so does, whatever its wording, a
later one that contradicts a live one (:func:`stance`, :func:`contradict`: "I prefer
window seats" after "I prefer aisle seats").

A **memory** sentence asks to be remembered or states something about the person
("remember that ...", "keep in mind", "note that", "call me ...", "my name is ...").
"""

from __future__ import annotations

import re

from dream.detect.prose import stems

PREFERENCE = re.compile(r"\b(i prefer|i'?d prefer|i'?d rather|my favou?rite \w+ (?:is|are)|"
                        r"i want you to|use \S+ instead of)\b", re.I)
PREFERENCE_LOOSE = re.compile(r"\b(i like (?:to|it when|using)|i don'?t like|i hate)\b", re.I)
_PREFERS = re.compile(r"\b(?:prefer(?:s|red)?|rather have|rather|favou?rite \w+ (?:is|are)|like)\s+"
                      r"([^.;!?\n]{2,80})", re.I)
REVISED = re.compile(r"\b(?:actually|from now on|instead|any ?more|no longer|changed my mind|"
                     r"these days|now)\b", re.I)
MEMORY = re.compile(
    r"\b(?:remember(?: that)?|keep in mind|note that|for future reference|from now on"
    r"|i prefer|i'd prefer|i would prefer|i like|i don'?t like|my preference|i always|i never"
    r"|my (?:name|email|timezone|role|team) is|call me)\b",
    re.IGNORECASE,
)
ABOUT_USER = re.compile(r"\b(?:i prefer|i'd prefer|i would prefer|i like|i don'?t like"
                        r"|my preference|i always|i never|my (?:name|email|timezone|role|team)"
                        r" is|call me)\b", re.IGNORECASE)


def is_preference(sentence: str, social: bool = False) -> bool:
    return bool(PREFERENCE.search(sentence) or
                (not social and PREFERENCE_LOOSE.search(sentence)))


def is_memory(sentence: str) -> bool:
    """A sentence asking to be remembered that states something ("remember that the API
    is versioned"), not one that only points at a thing ("remember the refactor.md file")."""
    if sentence.endswith("?"):
        return False
    m = MEMORY.search(sentence)
    if not m:
        return False
    if not m[0].lower().startswith(("remember", "keep in mind", "note that", "for future")):
        return True
    rest = sentence[m.end():]
    return bool(_CLAIM.search(rest)) or len(rest.split()) >= 5


_CLAIM = re.compile(r"\b(?:is|are|was|were|must|should|always|never|use[sd]?|run[s]?|prefer|"
                    r"like[sd]?|want|need[s]?|has|have|do|does|don'?t|doesn'?t|can'?t|cannot|"
                    r"will|lives?|works?|goes|belongs?|means?)\b"
                    r"|\b(?:we|they|you|i|it)\s+[a-z]{3,}", re.I)


def preferred(text: str) -> set[str]:
    """What a preference prefers ("I prefer aisle seats" -> {aisle, seat}); empty when the
    text states no preference."""
    m = _PREFERS.search(text)
    return stems(m[1]) - {"prefer", "always", "usual", "rather"} if m else set()


def revision(text: str, item_id: str, liked: list[tuple[str, str]],
             rows: list[dict]) -> list[str] | None:
    """How a new preference relates to older ones (found earlier in this call: ``liked``;
    live notes: ``rows``). None: it says an older one again and adds nothing. Otherwise the
    handles of the live notes it replaces (empty when it replaces nothing)."""
    wanted = preferred(text)
    older = list(liked) + [
        (r["handle"], r["fields"].get("text", "")) for r in rows
        if r["kind"] == "note" and r["fields"].get("status", "live") == "live"
        and r["fields"].get("type") in ("preference", "directive", "fact")]
    revised = bool(REVISED.search(text))
    same = [h for h, t in older if preferred(t) and (
        wanted <= preferred(t) or preferred(t) <= wanted)]
    mine = stance(text)
    # a later preference that contradicts an older one replaces it, whatever its wording
    against = [h for h, t in older if h.startswith("R") and mine is not None and
               (theirs := stance(t)) is not None and contradict(mine, theirs)]
    if against:
        return against
    if same and not revised:
        return None
    if not revised:
        return []
    # "actually, I prefer black coffee now": the older preference is replaced
    return [handle for handle, t in older if handle.startswith("R") and preferred(t) & wanted]


# -- stances: what a preference is for or against ------------------------------------
_FOR = re.compile(r"\b(?:i|we)\s+(?:(?:really|still|now|actually)\s+)?(?:prefer|like|love|enjoy|"
                  r"(?:'d|would) rather(?: have)?)\s+(.{2,80})|\bmy favou?rite\s+(\w+)\s+"
                  r"(?:is|are)\s+(.{2,60})|"
                  # "I'm back on coffee", "I drink coffee again": a habit taken up again
                  r"\b(?:i'?m|i am|we'?re|we are) back (?:on|to)\s+(.{2,60})|"
                  r"\b(?:i|we) (?:drink|eat|have|take|use|do) (.{2,40}?) again\b", re.I)
_AGAINST = re.compile(r"\b(?:i|we)\s+(?:(?:really|now|actually)\s+)?(?:don'?t|do not|no longer|"
                      r"can'?t|cannot|never)\s+(?:\w+\s+)?(?:like|love|enjoy|want|stand|eat|"
                      r"drink|prefer)\s+(.{2,80})|\b(?:i|we)\s+(?:hate|dislike|avoid)\s+(.{2,80})",
                      re.I)
_STANCE_STOP = {"the", "a", "an", "to", "of", "and", "or", "in", "on", "for", "with", "it", "that",
         "this", "my", "our", "any", "more", "anymore", "longer", "now", "please", "always",
         "very", "much", "really", "them", "those", "these", "some", "when", "than", "over",
         "instead", "actually", "just", "still", "days", "again", "rather", "have"}
STANCE_TYPES = ("preference", "fact", "directive")


def stance(text: str) -> tuple[bool, frozenset[str]] | None:
    """(for, content words) of the preference a text states, or None."""
    m = _AGAINST.search(text)
    if m:
        return False, _words(m[1] or m[2])
    m = _FOR.search(text)
    if m:
        said = m[1] or m[4] or m[5] or f"{m[2]} {m[3]}"
        return True, _words(said)
    return None


def contradict(a: tuple[bool, frozenset[str]], b: tuple[bool, frozenset[str]]) -> bool:
    (pa, wa), (pb, wb) = a, b
    if not wa & wb:
        return False
    if pa != pb:
        return True
    return bool(wa - wb) and bool(wb - wa)


def _words(text: str) -> frozenset[str]:
    text = re.split(r"[.;!?\n]|,\s*(?:but|and|so)\b|\bbut\b", text)[0]
    out = set()
    for w in re.findall(r"[a-z]{3,}", text.lower()):
        if w in _STANCE_STOP:
            continue
        out.add(w[:-1] if w.endswith("s") and not w.endswith("ss") and len(w) > 3 else w)
    return frozenset(out)


# -- taking back what was said -------------------------------------------------------------
# "scrap what I said about mornings", "forget what I told you about the window seat",
# "olvida lo de las mañanas", "vergiss das mit den Vormittagen", "oublie ce que j'ai dit sur
# les matins": the live note about that thing no longer holds
_RETRACT = re.compile(
    r"\b(?:scrap|forget|ignore|disregard|drop)\s+(?:what i (?:said|told you|wrote)|the bit)\s+"
    r"(?:about|re|on|regarding)\s+(?P<en>[^,.;:!?\n]{2,40})|"
    r"\bolv[ií]da(?:te)?\s+(?:lo\s+(?:de|que te dije (?:de|sobre))|eso de)\s+(?P<es>[^,.;:!?\n]{2,40})|"
    r"\bvergiss\s+(?:das mit|was ich (?:über|zu))\s+(?P<de>[^,.;:!?\n]{2,40})|"
    r"\boublie\s+(?:ce que (?:je t'ai|j'ai) dit (?:sur|à propos de|pour)|l'histoire d(?:es?|u))\s+"
    r"(?P<fr>[^,.;:!?\n]{2,40})", re.I)


def retraction(sentence: str) -> tuple[set[str], str] | None:
    """What a sentence takes back (its words, as five-letter stems) and what it says
    holds now (the rest of the sentence), or None."""
    m = _RETRACT.search(sentence)
    if m is None:
        return None
    thing = next(g for g in m.groups() if g)
    words = {w.lower()[:5] for w in re.findall(r"[^\W\d_]{4,}", thing)}
    return words, sentence[m.end():].strip(" ,:;-–—")


def retracted(words: set[str], rows: list[dict]) -> list[str]:
    """The live notes (row handles) about the thing taken back: a word of theirs shares
    its first five letters with a word of the thing ("mornings" and "morning")."""
    return [r["handle"] for r in rows if r["kind"] == "note" and
            r["fields"].get("status", "live") == "live" and
            r["fields"].get("type") in STANCE_TYPES and
            words & {w.lower()[:5] for w in re.findall(r"[^\W\d_]{4,}",
                                                       r["fields"].get("text", ""))}]

