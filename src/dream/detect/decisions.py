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


def decisions(items: Sequence[SpoolItem]) -> list[Finding]:
    out = []
    for item in items:
        if not (item.evidence and item.kind == "tool_result") or \
                not _ANSWERED.search((item.text or "")[:200]):
            continue
        for question, answer in _PAIR.findall(item.text):
            question, answer = " ".join(question.split()), " ".join(answer.split())
            out.append(Finding("decision", {
                "text": f"{question} The user chose: {answer.rstrip('.')}.",
                "type": "decision"}, [item.id],
                name=f"decision {' '.join(question.lower().split()[:8])}"))
    return out
