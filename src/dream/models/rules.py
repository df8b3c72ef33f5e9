"""The ``rules`` provider: deterministic, offline extraction; the embedded default.

It reads the structured input of a request (``ModelRequest.payload``: the packed bundles
with their item handles, and the current rows with theirs), runs the detectors of
:mod:`dream.detect` over the items (the same detectors the review passes call) and answers
with the same typed keyed diff a hosted model would: each finding becomes one operation
citing the items it rests on (their handles).

- corrections, directives and preferences in genuine user statements become memory notes
  (:mod:`dream.detect.directives`, :mod:`dream.detect.preferences`); a revised preference
  crumples the older note; a correction that changed a record is not also a note;
- standing facts and wiki slots (:mod:`dream.detect.facts`), to-dos
  (:mod:`dream.detect.todos`) and plans (:mod:`dream.detect.plans`) from statements and
  other people's messages outside coding sessions;
- failure signatures from failed tool results (:mod:`dream.detect.failures`), as notes.

Only items marked as evidence are cited; assistant prose is read as context for
corrections and never cited. The sweep purpose crumples duplicate and junk notes and asks
about contradictory events.
"""

from __future__ import annotations

import re
from typing import Any

from dream.detect import decisions, facts, failures, howto, pitfalls, plan_todos, scripts
from dream.detect.finding import Finding, conversation
from dream.detect.plan_words import person_names
from dream.detect.plans import PlanReader
from dream.detect.prose import is_coding
from dream.detect.spelling import vocabulary
from dream.detect.statements import StatementReader
from dream.detect.todos import TodoReader
from dream.items import Item
from dream.kinds.questions import same_question
from dream.kinds.records import record_path
from dream.kinds.text import names
from dream.models.base import ModelRequest, ModelResponse
from dream.models.contradictions import contradiction_ops

OPS = {"correction": "note.add", "directive": "note.add", "preference": "note.add",
       "failure": "note.add", "command": "note.add", "thread": "note.add",
       "decision": "note.add", "event": "event.upsert",
       "todo": "todo.open", "todo_done": "todo.close", "standing": "standing.set",
       "wiki": "wiki.fill", "question": "question.ask"}


def _op(op: str, evidence: list[str], fields: dict[str, str], name: str | None = None,
        row: str | None = None) -> dict[str, Any]:
    out: dict[str, Any] = {"op": op, "fields": [{"name": k, "value": v} for k, v in fields.items()
                                                if v],
                           "evidence": evidence}
    if row:
        out["row"] = row
    elif name:
        out["name"] = name
    return out


def ops_of(finding: Finding) -> list[dict[str, Any]]:
    """The diff operations of one finding: the crumpling of what it replaces, then its own."""
    out = [_op("note.crumple", finding.evidence, {"status": "crumpled"}, row=handle)
           for handle in finding.replaces]
    out.append(_op(OPS[finding.kind], finding.evidence, finding.fields, name=finding.name,
                   row=finding.row))
    return out


def payload_items(bundle: dict[str, Any]) -> list[Item]:
    """A bundle's items as spool items whose id is their handle in this call."""
    return [Item(seq=n, id=d["handle"], source=d.get("source") or "", ref="",
                 stream=d.get("stream") or "", project_key=None, author=d.get("author"),
                 role=d["role"], said_at=d.get("said_at"), text=d.get("text") or "",
                 tool_name=d.get("tool_name"), is_error=d.get("is_error"),
                 kind=d.get("kind") or "", evidence=bool(d.get("evidence")),
                 entities=tuple(d.get("entities") or ()))
            for n, d in enumerate(bundle.get("items", []), 1)]


def findings(payload: dict[str, Any]) -> list[Finding]:
    """Everything the detectors find in one call's bundles, in the order it was said.

    One call reads its bundles together, as a model would: a plan, a to-do or a note named
    in two bundles of the call is one record; names written mid-sentence anywhere in the
    call are names at a sentence start too."""
    rows = payload.get("rows", [])
    bundles = [payload_items(b) for b in payload.get("bundles", [])]
    known = {n.lower() for items in bundles for i in items
             if i.role in ("user", "other") and i.evidence for n in names(i.text)}
    statements = StatementReader(rows=rows)
    mine = {n.lower() for items in bundles for i in items if i.role == "user"
            for n in [*(i.entities or []), i.author or ""] if n and "@" not in n}
    mine |= {part for n in mine for part in n.split() if len(part) >= 3}
    others: dict[str, set[str]] = {}
    for items in bundles:
        for i in items:
            if i.role == "other" and i.author:
                others.setdefault(conversation(i.stream), set()).add(i.author)
    speakers = {i.author.lower() for items in bundles for i in items
                if i.role == "other" and i.author}
    speakers |= {n for items in bundles for i in items if i.evidence and
                 i.role in ("user", "other") for n in person_names(i.text)}
    groups = {s for s, who in others.items() if len(who) >= 2}
    plans = PlanReader(rows=rows, known_names=known, speakers=speakers, groups=groups,
                       members=others)
    todos = TodoReader(rows=rows, groups=groups, user_names=mine - {"me", "user"})
    out: list[Finding] = []
    coding_items: list[Item] = []
    celebrated: dict[str, str | None] = {}     # conversation -> whom it last celebrated
    for items in bundles:
        # in a conversation with other people, imperatives are said to them, not to an agent
        social = {i.stream for i in items if i.role == "other"}
        prev = None
        for item in items:
            if item.evidence and item.kind == "tool_result" and is_coding(item):
                statements.rejection(item)      # the user's words when rejecting a call
            if not item.evidence or item.kind == "tool_result" or item.role == "tool":
                prev = item
                continue
            coding = bool(item.stream) and item.tool_name is None and is_coding(item)
            if item.role == "user":
                standing = facts.standing(item)
                values = [v.lower() for f in standing for v in f.fields.values() if len(v) > 2]
                # a sentence stating a standing fact is that fact, not also a note
                out += [n for n in statements.read(item, prev, item.stream in social)
                        if n.kind not in ("directive", "preference") or
                        not any(v in n.text.lower() for v in values)]
                out += standing
            if item.role in ("user", "other"):
                # "it's Birch House, not Beech House": a slot said before, set right
                out += facts.corrected(item, _pages(rows, out))
                out += facts.wiki(item)
                # "son anniversaire c'est le 9 octobre" after "les 30 ans de Camille": the
                # birthday of the one person this message, or the conversation last, celebrates
                here = facts.celebrated(item.text)
                talk = conversation(item.stream)
                out += facts.their_birthday(item, here or celebrated.get(talk))
                celebrated[talk] = here or celebrated.get(talk)
                if not coding:
                    out += todos.read(item)
                    plans.read(item, item.text)
            prev = item
        out += failures.run_findings([i for i in items if not is_coding(i)])
        coding_items += [i for i in items if is_coding(i)]
    # words of the session the user did not type: the spelling a mistyped rule is read in
    said = statements.flush(vocabulary([i.text for i in coding_items
                                        if i.kind == "tool_result" or not i.evidence]))
    out += said
    out += pitfalls.pitfalls(coding_items)
    # a command the user's rules reject ("not rubocop", "don't use npx") is no way to work
    # the scripts a project declares say how to work only when no command that ran does
    learned = howto.how_to_work(coding_items)
    out += howto.without_rejected(learned or scripts.declared(coding_items),
                                  [f for f in said if f.kind in ("correction", "directive")])
    out += decisions.decisions(coding_items)
    out += decisions.chosen_options(coding_items)
    if bundles:
        out += plans.flush()
        # a to-do taken on for a plan names it, and is dropped when the plan is called off
        out = plan_todos.linked(out, {i.id: i for items in bundles for i in items}, rows)
    return _full_names(_applied_corrections_dropped(out), bundles, rows)


def _full_names(found: list[Finding], bundles: list[list[Item]],
                rows: list[dict]) -> list[Finding]:
    """A person's page named by a first name alone ("Tom is vegetarian now") is the page of
    the one person of that first name who writes in the call or has a page ("Tom Bell"),
    not a second page for the same person; a first name two people share stays as said."""
    full = {i.author for items in bundles for i in items
            if i.role == "other" and i.author and "@" not in i.author and " " in i.author}
    full |= {r["fields"].get("name") or "" for r in rows if r["kind"] == "wiki"}
    by_first: dict[str, set[str]] = {}
    for name in full:
        if " " in name.strip():
            by_first.setdefault(name.split()[0], set()).add(name)
    for f in found:
        name = f.fields.get("name") if f.kind == "wiki" else None
        if name and " " not in name and len(by_first.get(name, ())) == 1:
            whole = next(iter(by_first[name]))
            f.fields["name"] = whole
            f.name = whole if f.name == name else f.name
    return found


RECORD_KINDS = ("event", "todo", "todo_done", "standing", "wiki")


def _pages(rows: list[dict], found: list[Finding]) -> list[tuple[str, str, str]]:
    """(person, slot, value) of the people's pages as they stand: the rows shown, then what
    this call found (a later value of a slot replaces the earlier one)."""
    slots: dict[tuple[str, str], str] = {}
    for r in rows:
        if r["kind"] == "wiki":
            person = r["fields"].get("name") or r["key"].replace("-", " ").title()
            slots.update({(person, k): v for k, v in r["fields"].items()
                          if k not in ("name", "title") and isinstance(v, str)})
    for f in found:
        if f.kind == "wiki" and f.fields.get("name"):
            slots.update({(f.fields["name"], k): v for k, v in f.fields.items() if k != "name"})
    return [(person, slot, value) for (person, slot), value in slots.items()]


def _applied_corrections_dropped(found: list[Finding]) -> list[Finding]:
    """A correction whose items all changed a record (an event's day, a standing fact) is
    that record's change: it is not also kept as a note, which would repeat the old
    dispute in every brief. A correction nothing was changed by stays a note."""
    applied = {e for f in found if f.kind in RECORD_KINDS for e in f.evidence}
    return [f for f in found if f.kind != "correction" or not set(f.evidence) <= applied]


class RulesProvider:
    name = "rules"
    model = "rules"
    reads_whole_run = True      # code: every bundle of a run in one call (see propose)

    def complete(self, request: ModelRequest) -> ModelResponse:
        if request.purpose == "sweep":
            return ModelResponse(data={"ops": sweep_ops(request.payload)}, calls=1)
        if request.purpose == "merge":       # never claims two look-alikes are the same
            return ModelResponse(data={"decisions": []}, calls=1)
        if request.purpose != "propose":
            return ModelResponse(data={"ops": []}, calls=1)
        ops = [op for f in findings(request.payload) for op in ops_of(f)]
        return ModelResponse(data={"ops": ops}, calls=1)


# -- sweep -------------------------------------------------------------------------------------
def sweep_ops(payload: dict[str, Any]) -> list[dict[str, Any]]:
    rows = payload.get("rows", [])
    changed = set(payload.get("changed", []))
    ops: list[dict[str, Any]] = []
    notes = [r for r in rows if r["kind"] == "note" and
             r["fields"].get("status", "live") == "live"]
    seen: dict[str, dict[str, Any]] = {}
    for row in sorted(notes, key=lambda r: r["key"]):
        text = row["fields"].get("text", "")
        norm = " ".join(re.findall(r"[a-z0-9]+", text.lower()))
        if len(norm.split()) < 3 and row["handle"] in changed:
            ops.append(_op("note.crumple", [row["handle"]], {"status": "crumpled"},
                           row=row["handle"]))
            continue
        twin = seen.get(norm)
        if twin is not None and row["handle"] in changed:
            ops.append(_op("note.crumple", [row["handle"], twin["handle"]],
                           {"status": "crumpled"}, row=row["handle"]))
            continue
        seen.setdefault(norm, row)
    events = [r for r in rows if r["kind"] == "event" and
              r["fields"].get("status") == "confirmed" and r["fields"].get("date")]
    for i, a in enumerate(events):
        for b in events[i + 1:]:
            fa, fb = a["fields"], b["fields"]
            if a["handle"] not in changed and b["handle"] not in changed:
                continue
            if fa["date"] == fb["date"] and fa.get("time") and fa.get("time") == fb.get("time") \
                    and fa.get("place", "") != fb.get("place", ""):
                key, question = same_question(
                    record_path("event", a["key"]), record_path("event", b["key"]),
                    f"Two confirmed plans at {fa['date']} {fa['time']}: "
                    f"'{fa.get('title', a['key'])}' and '{fb.get('title', b['key'])}'."
                    " Are they one plan (yes: merge them) or two (no)?")
                ops.append(_op("question.ask", [a["handle"], b["handle"]], question.fields(),
                               name=key))
    ops += contradiction_ops(rows, changed, _op)
    return ops


def make(arg: str, settings: dict[str, Any]) -> RulesProvider:
    return RulesProvider()
