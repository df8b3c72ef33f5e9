"""Answers to questions (``dream questions answer KEY ANSWER``, MCP ``questions_answer``).

An answer is recorded like a correction: a spool item (source ``dream-answer``, kind
``statement``, role ``user``, evidence) said at the moment it was typed, whose ``ref`` is
the question's path and whose ``text`` is the answer in its stored form. A realtime run
of that one item applies it by code, never by a model, in one commit:

- the question gets ``status: answered`` and ``answer``;
- *same thing?* answered ``yes``: the older record (earliest evidence) keeps its key and
  takes the fields it lacks from the other; the other is retired (an event ``declined``,
  a to-do ``done``) with ``same_as`` pointing at the kept record. Two notes are two
  statements, and the later one changes the earlier (that is what the question asks): the
  newer note is kept and the older one ``crumpled``;
- *same thing?* answered ``no``: nothing else changes; the answered question keeps its
  stable key, so no later run asks it again (``apply`` leaves answered questions alone);
- *which value?*: the field is set to the answer, with the answer as its evidence.

Said now, the answer wins precedence like a correction: older messages cannot undo it.
"""

from __future__ import annotations

import hashlib
import json
import sqlite3
from collections import Counter
from typing import Any

from dream.db import utcnow
from dream.errors import BadInput, NoteNotFound
from dream.items import Item
from dream.kinds.questions import ASK_SAME, ASK_VALUE, YES, check_answer, parse
from dream.kinds.records import Record, kind_of_path, record_path
from dream.pipeline.resolve import ResolvedOp
from dream.pipeline.state import Scope, State, load_state
from dream.secrets import redact

ANSWER_SOURCE = "dream-answer"
RETIRED = {"event": ("status", "declined"), "todo": ("status", "done"),
           "note": ("status", "crumpled")}


def open_questions(scopes: list[Scope]) -> list[dict[str, Any]]:
    """Every open question of ``scopes`` at their stores' HEAD, in key order (only the
    ``questions/`` folder is read, so listing stays cheap in a large store)."""
    out = []
    for scope in scopes:
        state = load_state(scope, scope.store.repo.head(), kind="question")
        for rec in state.of_kind("question"):
            values = rec.values()
            if values.get("status", "open") != "open":
                continue
            q = parse(values)
            out.append({"key": rec.key, "address": f"{scope.address_prefix}/"
                        f"{record_path('question', rec.key)}",
                        "text": values.get("text", ""),
                        "ask": q.ask if q else "free", "about": q.about if q else [],
                        "field": q.field if q else "", "options": q.options if q else []})
    return out


def find_question(scopes: list[Scope], key: str) -> tuple[Scope, State, Record]:
    """The scope, state and record of question ``key`` (a key, or an address such as
    ``@user/questions/KEY``, which picks its scope), or :class:`NoteNotFound`."""
    key = key.strip()
    if key.startswith("@"):
        prefix = key.removesuffix(".md").rsplit("/questions/", 1)[0]
        scopes = [s for s in scopes if s.address_prefix == prefix]
    key = key.removeprefix("questions/").removesuffix(".md").rsplit("/", 1)[-1]
    for scope in scopes:
        state = load_state(scope, scope.store.repo.head())
        rec = state.get("question", key)
        if rec is not None:
            return scope, state, rec
    raise NoteNotFound(f"no question '{key}' here", "list the open ones with 'dream questions'")


def record_answer(conn: sqlite3.Connection, scopes: list[Scope], key: str,
                  answer: str) -> tuple[Scope, str, str]:
    """Check ``answer`` against question ``key`` and spool it; (scope, item id, stored
    answer). :class:`BadInput` (one line, what would be accepted) when it does not fit."""
    scope, state, rec = find_question(scopes, key)
    q = parse(rec.values())
    if q is None:
        raise BadInput(f"question '{rec.key}' names no record to settle",
                       "answer it by editing the records, then 'dream correct' its status")
    if q.status != "open":
        raise BadInput(f"question '{rec.key}' is already answered ({q.answer or 'closed'})",
                       "list the open ones with 'dream questions'")
    gone = [p for p in q.about if state.get(*(kind_of_path(p) or ("", ""))) is None]
    if gone:
        raise BadInput(f"question '{rec.key}' is about {', '.join(gone)}, which is gone",
                       f"close it with 'dream correct {scope.address_prefix}/"
                       f"{record_path('question', rec.key)} status answered'")
    stored = check_answer(q, redact(answer)[0])
    said_at = utcnow()
    relpath = f"{scope.root.rstrip('/')}/{record_path('question', rec.key)}"
    digest = hashlib.sha256(f"{relpath}\x00{stored}\x00{said_at}".encode()).hexdigest()
    item_id = f"answer-{digest[:20]}"
    conn.execute(
        "INSERT OR IGNORE INTO items(id, source, source_path, ref, stream, project_key, author,"
        " role, said_at, text, kind, evidence, entities, collected_at)"
        " VALUES (?, ?, 'dream questions answer', ?, 'dream-answer', ?, 'user', 'user', ?, ?,"
        " 'statement', 1, ?, ?)",
        (item_id, ANSWER_SOURCE, relpath, scope.project_key, said_at, stored,
         json.dumps([]), utcnow()))
    return scope, item_id, stored


def answer_ops(items: list[Item], state: State, dropped: Counter) -> list[ResolvedOp]:
    """The writes each answer item makes: close the question, settle its records."""
    ops: list[ResolvedOp] = []
    prefix = state.scope.root.rstrip("/") + "/"
    for item in items:
        found = kind_of_path(item.ref[len(prefix):]) if item.ref.startswith(prefix) else None
        rec = state.get("question", found[1]) if found and found[0] == "question" else None
        q = parse(rec.values()) if rec is not None else None
        if rec is None or q is None:
            dropped["answer_elsewhere"] += 1
            continue

        def op(kind: str, key: str, fields: dict[str, str], name: str,
               item: Item = item) -> ResolvedOp:
            cur = state.get(kind, key)
            return ResolvedOp(op=f"{kind}.{name}", kind=kind, key=key, is_new=cur is None,
                              acted_version=cur.version if cur else None, fields=fields,
                              evidence=[item.id], said_at=item.said_at, bundle="answer",
                              pass_="answer")

        ops.append(op("question", rec.key, {"status": "answered", "answer": item.text},
                      "answer"))
        targets = [kind_of_path(p) for p in q.about]
        if q.ask == ASK_VALUE and targets[0] is not None:
            kind, key = targets[0]
            ops.append(op(kind, key, {q.field: item.text}, "correct"))
        elif q.ask == ASK_SAME and item.text == YES:
            recs = [state.get(*t) for t in targets if t is not None]
            if len(recs) != 2 or None in recs:
                dropped["answer_record_gone"] += 1
                continue
            kept, dup = sorted(recs, key=lambda r: (_first_said(r), r.key))
            if kept.kind == dup.kind == "note":          # the later statement stands
                kept, dup = dup, kept
            taken = {n: v for n, v in dup.values().items()
                     if n not in kept.fields and n not in ("status", "same_as")}
            if taken:
                ops.append(op(kept.kind, kept.key, taken, "merge"))
            retire = dict([RETIRED[dup.kind]]) if dup.kind in RETIRED else {}
            ops.append(op(dup.kind, dup.key,
                          {**retire, "same_as": record_path(kept.kind, kept.key)}, "merge"))
    return ops


def _first_said(rec: Record) -> str:
    return min((fv.said_at for fv in rec.fields.values()), default="")


def app_scopes(app: Any, project: str | None = None) -> tuple[list[Scope], str | None]:
    """The current project's scope (or that of ``project``, a name or key a store knows;
    when a store manages it) and the personal scope."""
    app.home.require()
    current = app.current_project(project)      # the one resolver of the current project
    scopes = []
    key = None
    if current.store is not None:
        scopes.append(Scope(current.store, f"projects/{current.name}", current.key,
                            current.name))
        key = current.key
    scopes.append(Scope(app.notes_store(), "user", None, "user"))
    return scopes, key


def address_project(address: str) -> str | None:
    """The project an ``@projects/<name>/...`` address names (None for any other)."""
    parts = address.strip().split("/")
    return parts[1] if len(parts) > 2 and parts[0] == "@projects" and parts[1] else None


def every_scope(app: Any) -> list[Scope]:
    """Every project some store is primary for (by name), then the personal scope: what
    a page that is not run inside one project shows."""
    app.home.require()
    scopes = []
    for store in app.stores.all():
        for key, entry in store.projects.items():
            if entry.get("primary"):
                name = app.stores.name_of(key) or key
                scopes.append(Scope(store, f"projects/{name}", key, name))
    scopes.sort(key=lambda s: s.name)
    scopes.append(Scope(app.notes_store(), "user", None, "user"))
    return scopes


def answer_question(app: Any, key: str, answer: str) -> dict[str, Any]:
    """Answer question ``key`` now and apply it in one realtime run (one commit). ``key``
    may be the question's address (``@projects/<name>/questions/KEY``), which answers it
    in that project wherever the command runs."""
    from dream.pipeline.run import RunOptions, run_dream

    scopes, project_key = app_scopes(app, address_project(key))
    scope, item_id, stored = record_answer(app.db, scopes, key, answer)
    opts = RunOptions(mode="realtime", sweep=False, only_ids=[item_id],
                      brief_tokens=int(app.config.get("run", "brief_tokens", 2000)))
    rows = run_dream(app.db, app.home.notes_path, [scope], opts, project_key)
    return {**rows[-1].as_dict(), "item": item_id, "question": key, "answer": stored}
