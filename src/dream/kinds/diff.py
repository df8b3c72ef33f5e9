"""The typed, keyed diff a model returns, validated with pydantic.

A model never writes free-form memories. It answers with operations against keys: it
refers to existing rows by the short handles it was shown (``R1``, ``R2``...) and to
evidence by item handles (``E1``, ``E2``...). Code maps handles back to record keys and item
ids, so a model cannot invent either. A new row gets its key from ``name`` by code.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator

from dream.terminal import strip_control

OpName = Literal[
    "event.upsert",     # insert or update an event (status proposed|confirmed|declined|cancelled)
    "todo.open",        # open (or update) a to-do
    "todo.close",       # close a to-do (status done)
    "wiki.fill",        # fill named slots on an entity's wiki page
    "standing.set",     # set standing facts (each field is one fact)
    "note.add",         # add a memory note (fields: text, type)
    "note.update",      # update a memory note
    "note.crumple",     # soft-delete a memory note (still visible to a dream)
    "question.ask",     # ask the user something (fields: text, about)
]
OP_KIND = {
    "event.upsert": "event", "todo.open": "todo", "todo.close": "todo", "wiki.fill": "wiki",
    "standing.set": "standing", "note.add": "note", "note.update": "note",
    "note.crumple": "note", "question.ask": "question",
}


class FieldSet(BaseModel):
    model_config = ConfigDict(extra="forbid")
    name: str = Field(min_length=1, max_length=64)
    value: str = Field(max_length=2000)

    @field_validator("value")
    @classmethod
    def _plain(cls, value: str) -> str:
        """No terminal escape codes or control characters: an answer's value reached the
        brief as it was, and the SessionStart hook, 'dream brief' and 'cat brief.md' print
        it (an OSC sequence sets the terminal's title or clipboard). A note typed by a
        person with one is refused; a model's value (or a colour code pasted into a
        transcript and quoted) is kept without it."""
        return strip_control(value)


class Op(BaseModel):
    model_config = ConfigDict(extra="forbid")
    op: OpName
    row: str | None = Field(default=None, description="handle (R<n>) of an existing row")
    name: str | None = Field(default=None, max_length=200,
                             description="for a new row: a short name its key is made from")
    fields: list[FieldSet] = Field(default_factory=list)
    evidence: list[str] = Field(default_factory=list,
                                description="handles (E<n>) of the items that say this")


class Diff(BaseModel):
    model_config = ConfigDict(extra="forbid")
    ops: list[Op] = Field(default_factory=list)


def diff_schema() -> dict:
    """The answer schema sent to providers, in the strict form OpenAI's structured output
    accepts: every object lists all its properties as required (optional ones are
    nullable) and closes them; no defaults or length keywords. Validation of the answer
    is the (more lenient) pydantic model."""
    return strict_schema(Diff.model_json_schema())


def strict_schema(schema: Any) -> Any:
    if isinstance(schema, list):
        return [strict_schema(v) for v in schema]
    if not isinstance(schema, dict):
        return schema
    out = {k: strict_schema(v) for k, v in schema.items()
           if k not in ("default", "minLength", "maxLength", "title")}
    if out.get("type") == "object" or "properties" in out:
        props = out.get("properties", {})
        out["additionalProperties"] = False
        out["required"] = list(props)
    return out
