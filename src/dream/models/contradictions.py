"""The rules sweep's contradiction check: two live memory notes that state opposite or
different preferences about one thing become a *same thing?* question (see
``dream.kinds.questions``), never a silent choice.

A note states a preference when it says what someone likes, prefers, hates or no longer
wants ("I prefer aisle seats", "I don't like spicy food any more"): its *stance* is a
polarity (for or against) and the content words of what it is about. Two stances
contradict when they share a content word and either their polarity differs ("I like
oat milk" / "I don't like oat milk") or each names something the other does not ("I
prefer aisle seats" / "I prefer window seats"). One that only adds detail to the other
("I like coffee" / "I like strong coffee") does not. A pair is asked about only when one of
them changed in this run, so a standing disagreement is asked once.
"""

from __future__ import annotations

import re
from typing import Any

from dream.kinds.questions import same_question
from dream.kinds.records import record_path

_FOR = re.compile(r"\b(?:i|we)\s+(?:(?:really|still|now|actually)\s+)?(?:prefer|like|love|enjoy|"
                  r"(?:'d|would) rather(?: have)?)\s+(.{2,80})|\bmy favou?rite\s+(\w+)\s+"
                  r"(?:is|are)\s+(.{2,60})", re.I)
_AGAINST = re.compile(r"\b(?:i|we)\s+(?:(?:really|now|actually)\s+)?(?:don'?t|do not|no longer|"
                      r"can'?t|cannot|never)\s+(?:\w+\s+)?(?:like|love|enjoy|want|stand|eat|"
                      r"drink|prefer)\s+(.{2,80})|\b(?:i|we)\s+(?:hate|dislike|avoid)\s+(.{2,80})",
                      re.I)
_STOP = {"the", "a", "an", "to", "of", "and", "or", "in", "on", "for", "with", "it", "that",
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
        return True, _words(m[1] if m[1] else f"{m[2]} {m[3]}")
    return None


def contradict(a: tuple[bool, frozenset[str]], b: tuple[bool, frozenset[str]]) -> bool:
    (pa, wa), (pb, wb) = a, b
    if not wa & wb:
        return False
    if pa != pb:
        return True
    return bool(wa - wb) and bool(wb - wa)


def contradiction_ops(rows: list[dict[str, Any]], changed: set[str],
                      op: Any) -> list[dict[str, Any]]:
    """Questions (diff ops built with ``op``) about pairs of live notes whose stances
    contradict, at least one of them changed in this run."""
    notes = []
    for row in rows:
        f = row["fields"]
        if row["kind"] != "note" or f.get("status", "live") != "live" or \
                f.get("type") not in STANCE_TYPES:
            continue
        st = stance(f.get("text", ""))
        if st is not None:
            notes.append((row, st))
    asked = {r["key"] for r in rows if r["kind"] == "question"}
    out = []
    for i, (a, sa) in enumerate(notes):
        for b, sb in notes[i + 1:]:
            if a["handle"] not in changed and b["handle"] not in changed:
                continue
            if not contradict(sa, sb):
                continue
            ta, tb = a["fields"].get("text", ""), b["fields"].get("text", "")
            key, question = same_question(
                record_path("note", a["key"]), record_path("note", b["key"]),
                f"These two notes disagree: '{_clip(ta)}' and '{_clip(tb)}'. Is one a change"
                " of the other (yes: keep only the newer), or do both hold (no)?")
            if key in asked:
                continue
            out.append(op("question.ask", [a["handle"], b["handle"]], question.fields(),
                          name=key))
    return out


def _words(text: str) -> frozenset[str]:
    text = re.split(r"[.;!?\n]|,\s*(?:but|and|so)\b|\bbut\b", text)[0]
    out = set()
    for w in re.findall(r"[a-z]{3,}", text.lower()):
        if w in _STOP:
            continue
        out.add(w[:-1] if w.endswith("s") and not w.endswith("ss") and len(w) > 3 else w)
    return frozenset(out)


def _clip(text: str, limit: int = 90) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 1] + "…"
