"""Decisions the user made when the agent asked (Claude Code's ``AskUserQuestion`` tool).

The tool's result is the user's own answer, recorded as ``User has answered your
questions: "Which tools should we set up?"="Credo + Dialyxir + mix_audit"``. Each question
and its answer is a decision note that keeps both ("Which tools should we set up? The user
chose: Credo + Dialyxir + mix_audit.").
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from dream.detect.finding import Finding
from dream.items import Item

_ANSWERED = re.compile(r"User has answered your questions?:")
_PAIR = re.compile(r'"([^"]{3,200})"="([^"]{1,200})"')
# a question that points back into the conversation, and a name that anchors it anyway
_POINTS_BACK = re.compile(r"\b(?:these|those|this|that|it|them)\b", re.I)
_NAMES = re.compile(r"`[^`]+`|\b[\w-]+\.[a-z]{1,5}\b|[\w-]+/[\w./-]+|\b[a-z]+[A-Z]\w*")


def decisions(items: Sequence[Item]) -> list[Finding]:
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


# -- a choice among options the agent wrote in its message ------------------------------------
# an option the agent offered: "A. Silent fallback", "**B. `summarize: {...}`** | Nested ...",
# "2) keep both"
_OFFERED = re.compile(r"^(?P<label>[A-Da-d]|[1-4])[.)]\s+(?P<text>\S.{2,})$")
# the user's reply that picks one: "A.", "B, nested in ...", "I think B", "option 2 please"
_PICKED = re.compile(r"^\s*(?:(?:i think|i'?d (?:go with|say)|let'?s (?:go with|do)|go with|"
                     r"option|ok(?:ay)?,?)\s+)*(?:option\s+)?(?P<label>[A-Da-d]|[1-4])\b"
                     r"(?![\w'])[\s.,:;)!-]*(?P<rest>.*)$", re.I | re.S)
_NOT_NOW = re.compile(r"\b(?:for now|right now|this time|for this one|temporar)", re.I)


def chosen_options(items: Sequence[Item]) -> list[Finding]:
    """A question the agent asked with lettered or numbered options, answered by the user
    picking one ("A. is fine, ensure we log"): a decision note with the question, the
    option as offered and the user's own words; the user's choice is the evidence. A
    choice said to hold only for now is no decision."""
    out: list[Finding] = []
    last: dict[str, Item] = {}
    for item in items:
        if item.role == "assistant" and not item.tool_name and not item.evidence:
            last[item.stream] = item
            continue
        if not (item.evidence and item.role == "user" and item.kind == "statement"):
            if item.kind != "tool_result":
                last.pop(item.stream, None)
            continue
        asked = last.pop(item.stream, None)
        reply = " ".join((item.text or "").split())
        m = _PICKED.match(reply)
        if asked is None or m is None or len(reply.split()) > 30 or _NOT_NOW.search(reply):
            continue
        question, options = _offer(asked.text or "")
        picked = options.get(m["label"].upper())
        if not question or not picked:
            continue
        rest = re.split(r"\s*[(?]|(?<=[.!])\s", m["rest"], maxsplit=1)[0].strip(" .,;:-")
        rest = re.sub(r"^(?:is\s+)?(?:fine|ok(?:ay)?|good|great|perfect)\b[\s,.;:-]*", "", rest,
                      flags=re.I)
        said = f" (the user: {rest})" if rest else ""
        room = 225 - len(question) - len(said) - len(" Chosen: ")
        if room < 30:
            continue
        if len(picked) > room:
            picked = picked[:room].rsplit(" ", 1)[0].rstrip(" ,;:—") + "…"
        text = f"{question} Chosen: {picked.rstrip('.')}{said}"
        out.append(Finding("decision", {"text": text + ("" if text.endswith("…") else "."),
                                        "type": "decision"}, [item.id],
                           name=f"decision {' '.join(question.lower().split()[:8])}"))
    return out


def _offer(message: str) -> tuple[str, dict[str, str]]:
    """The question an agent's message asks and the options it lists under it."""
    question, options = "", {}
    for raw in message.splitlines():
        line = re.sub(r"\*\*|__", "", raw).strip(" |#>-*")
        if line.count("`") % 2:
            line = line.replace("`", "")
        line = re.sub(r"\s*\|\s*", " — ", line).strip(" —")
        if not line:
            continue
        opt = _OFFERED.match(line)
        if opt and question:
            text = re.sub(r"\s*\((?:recommended|default)\)", "", opt["text"], flags=re.I)
            options.setdefault(opt["label"].upper(), text.strip(" —"))
        elif line.endswith("?") and len(line) <= 200 and not options:
            question = re.sub(r"^(?:(?:first|next|last|one more)\s+)?(?:question|q)\s*:\s*", "",
                              line, flags=re.I)
            options = {}
    return question, options
