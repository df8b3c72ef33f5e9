"""Decisions the user made when the agent asked (Claude Code's ``AskUserQuestion`` tool).

The tool's result is the user's own answer, recorded as ``User has answered your
questions: "Which tools should we set up?"="Credo + Dialyxir + mix_audit"``. Each question
and its answer is a decision note that keeps both ("Which tools should we set up? The user
chose: Credo + Dialyxir + mix_audit.").
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from dream.detect.finding import Finding, SpoolItem

_ANSWERED = re.compile(r"User has answered your questions?:")
_PAIR = re.compile(r'"([^"]{3,200})"="([^"]{1,200})"')
# a question that points back into the conversation, and a name that anchors it anyway
_POINTS_BACK = re.compile(r"\b(?:these|those|this|that|it|them)\b", re.I)
_NAMES = re.compile(r"`[^`]+`|\b[\w-]+\.[a-z]{1,5}\b|[\w-]+/[\w./-]+|\b[a-z]+[A-Z]\w*")


def decisions(items: Sequence[SpoolItem]) -> list[Finding]:
    out = []
    for item in items:
        if not (item.evidence and item.kind == "tool_result") or \
                not _ANSWERED.search((item.text or "")[:200]):
            continue
        for question, answer in _PAIR.findall(item.text):
            question, answer = " ".join(question.split()), " ".join(answer.split())
            question = re.sub(r"\s*\([^)]*\)", "", question).strip()
            if _POINTS_BACK.search(question) and not _NAMES.search(question):
                continue        # "Which rig do these beads belong to?": about the talk
            out.append(Finding("decision", {
                "text": f"{question} The user chose: {answer.rstrip('.')}.",
                "type": "decision"}, [item.id],
                name=f"decision {' '.join(question.lower().split()[:8])}"))
    return out
