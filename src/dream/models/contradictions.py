"""The rules sweep's contradiction check (the stances are read by
:mod:`dream.detect.preferences`): two live memory notes that state opposite or
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

from typing import Any

from dream.detect.preferences import STANCE_TYPES, contradict, stance
from dream.kinds.questions import same_question
from dream.kinds.records import record_path


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


def _clip(text: str, limit: int = 90) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 1] + "…"
