"""Richer wording from a model provider, bounded by the evidence.

The deterministic pass is the honest core: it decides what was found and which spool items
back it. A model (``--model openai:...``) gets the pass's candidates with excerpts of their
evidence (already redacted in the spool) and the prepared handoff, and may only

- reword a candidate's title and add a short explanation, or
- drop a candidate it judges not worth a person's time.

It cannot add a candidate, change the evidence or the target of a change; answers naming an
unknown candidate are ignored and counted in the journal.
"""

from __future__ import annotations

import json
from typing import Any

from pydantic import BaseModel, Field, field_validator

from dream.models.base import ModelRequest, ModelResponse, Provider, call_validated
from dream.passes.base import Candidate, PassResult, clip
from dream.passes.evidence import Evidence
from dream.terminal import strip_control

EXCERPT = 400
MAX_ITEMS = 8

INSTRUCTIONS = """You are one read-only pass of a Dream review. Dream found the candidate
proposals below by deterministic grouping of evidence (user statements and tool results
from agent sessions). For each candidate you may reword its title (plain, specific, at most
120 characters) and write a short explanation (at most 600 characters) for the person who
will accept or reject it, or set keep=false when the candidate is not worth their time.
Use only what the evidence excerpts show. Never invent statistics, files or sessions. The
handoff is the main agent's summary: a primary input, not proof. Answer with JSON that
follows the schema."""


class Reworded(BaseModel):
    candidate: str
    keep: bool | None = True
    title: str = Field(min_length=3, max_length=500)
    explanation: str | None = Field(default="", max_length=4000)

    @field_validator("title", "explanation")
    @classmethod
    def _plain(cls, value: str | None) -> str | None:
        """No escape codes: 'dream review show' prints a proposal's title and explanation
        (and an accepted one is written into a store), as the run's values are kept."""
        return strip_control(value) if value else value


class PassAnswer(BaseModel):
    proposals: list[Reworded]


# What is sent: OpenAI-strict form (every object closed, every property required, the
# optional one nullable), so providers with strict structured output can enforce it. The
# answer is validated with the more lenient models above.
SCHEMA: dict[str, Any] = {
    "type": "object", "additionalProperties": False, "required": ["proposals"],
    "properties": {"proposals": {"type": "array", "items": {
        "type": "object", "additionalProperties": False,
        "required": ["candidate", "keep", "title", "explanation"],
        "properties": {
            "candidate": {"type": "string", "description": "the candidate's slug"},
            "keep": {"type": "boolean", "description": "false drops the candidate"},
            "title": {"type": "string", "description": "at most 120 characters"},
            "explanation": {"type": ["string", "null"],
                            "description": "at most 600 characters, for the person deciding"},
        }}}},
}


def prefix(ev: Evidence) -> str:
    """Identical for every pass of one review, so providers can cache it."""
    handoff = ev.handoff.text if ev.handoff else "(no prepared handoff)"
    schema = json.dumps(SCHEMA, sort_keys=True)
    return f"{INSTRUCTIONS}\n\nSchema:\n{schema}\n\nHandoff:\n{handoff}\n"


def body(pass_name: str, candidates: list[Candidate]) -> tuple[str, dict[str, Any]]:
    payload = {"pass": pass_name, "candidates": [
        {"candidate": c.slug, "title": c.title, "finding": c.finding, "kind": c.kind,
         "evidence": [{"session": i.stream, "ref": i.ref, "role": i.role,
                       "error": i.is_error, "text": clip(i.text, EXCERPT)}
                      for i in c.items[:MAX_ITEMS]]}
        for c in candidates]}
    return json.dumps(payload, ensure_ascii=False, indent=1), payload


def refine(result: PassResult, ev: Evidence, provider: Provider) -> None:
    """Reword (or drop) the pass's candidates in place; token counts go on the result."""
    if not result.candidates:
        return
    text, payload = body(result.name, result.candidates)
    request = ModelRequest(purpose=f"review:{result.name}", prefix=prefix(ev), body=text,
                           schema=SCHEMA, payload=payload,
                           max_output_tokens=2048)
    counted = _Counted(provider, result)
    answer, _response = call_validated(counted, request, PassAnswer.model_validate)
    by_slug = {c.slug: c for c in result.candidates}
    dropped, ignored, reworded = [], 0, 0
    for entry in answer.proposals:
        cand = by_slug.get(entry.candidate)
        if cand is None:
            ignored += 1
            continue
        if entry.keep is False:
            dropped.append(cand.slug)
            continue
        cand.title = clip(entry.title, 120)
        if entry.explanation:
            _explain(cand, clip(entry.explanation, 600))
        reworded += 1
    result.candidates = [c for c in result.candidates if c.slug not in dropped]
    result.journal["model"] = {"provider": f"{provider.name}:{provider.model}",
                               "reworded": reworded, "dropped": dropped,
                               "ignored_unknown": ignored}


class _Counted:
    """Counts every call and its tokens on the pass result, including answers that fail
    validation (they were paid for too)."""

    def __init__(self, provider: Provider, result: PassResult) -> None:
        self.provider = provider
        self.result = result
        self.name = provider.name
        self.model = provider.model

    def complete(self, request: ModelRequest) -> ModelResponse:
        self.result.calls += 1
        response = self.provider.complete(request)
        self.result.calls += response.calls - 1
        self.result.input_tokens += response.input_tokens
        self.result.output_tokens += response.output_tokens
        self.result.cached_tokens += response.cached_tokens
        return response


def _explain(cand: Candidate, explanation: str) -> None:
    """The explanation is shown to the person deciding; a note's own text stays what the
    evidence said, a work item's text gets the explanation on top."""
    cand.change["explanation"] = explanation
    if cand.change.get("type") == "work_item" and "text" in cand.change:
        cand.change["text"] = explanation + "\n\n" + cand.change["text"]
