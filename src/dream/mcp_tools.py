"""MCP tools backed by other parts of Dream: memory (dream.api), history (the spool's
history search), review (prepare and proposals), questions and projects (dream.core). Registered on import by
:mod:`dream.mcp_server`; a tool whose module is missing is not listed."""

from __future__ import annotations

import importlib
from typing import Any

from dream.errors import BadInput
from dream.mcp_server import PAGE, PER_PAGE, DreamTools, ToolSpec, _obj, tool


def _api():
    return importlib.import_module("dream.api")


def _where(t: DreamTools) -> dict[str, Any]:
    return {"path": t.app.cwd, "home": t.app.home.root}


def memory_search(t: DreamTools, a: dict[str, Any]) -> Any:
    hits = _api().search(a["query"], limit=a.get("limit", 8), **_where(t))
    return {"query": a["query"], "hits": [h.as_dict() for h in hits]}


def memory_read(t: DreamTools, a: dict[str, Any]) -> Any:
    doc = _api().read(a["path"], a.get("commit", "HEAD"), store_id=a.get("store_id"),
                      **_where(t))
    return doc.as_dict()


def memory_context(t: DreamTools, a: dict[str, Any]) -> Any:
    snap = _api().snapshot(a["objective"], max_docs=a.get("max_docs", 8),
                           max_chars=a.get("max_chars", 64_000),
                           authority=a.get("authority", "advisory"), **_where(t))
    return snap.as_dict()


tool(ToolSpec(
    "memory_search", "Search the current repository's Primary Store (reviewed memory, never "
    "another store); hits carry path, title, score, commit and sha256.",
    _obj({"query": {"type": "string", "description": "What to look for."},
          "limit": {"type": "integer", "minimum": 1, "maximum": 100, "default": 8}},
         ("query",)),
    memory_search, read_only=True, idempotent=True, requires=("dream.api",)))
tool(ToolSpec(
    "memory_read", "Read one document's exact content at a commit of a store (default: the "
    "Primary Store at HEAD), with its content hash.",
    _obj({"path": {"type": "string", "description": "Document path inside the store."},
          "commit": {"type": "string", "default": "HEAD",
                     "description": "Commit sha from a search hit."},
          "store_id": {"type": "string", "description": "Store id; default Primary Store."}},
         ("path",)),
    memory_read, read_only=True, idempotent=True, requires=("dream.api",)))
tool(ToolSpec(
    "memory_context", "Build a bounded context snapshot for an objective: one search, each "
    "selected document read at its exact commit (at most 8 documents, 64,000 characters).",
    _obj({"objective": {"type": "string", "description": "The goal, in a few words."},
          "max_docs": {"type": "integer", "minimum": 1, "maximum": 8, "default": 8},
          "max_chars": {"type": "integer", "minimum": 1, "maximum": 64000, "default": 64000},
          "authority": {"type": "string", "enum": ["advisory", "binding"],
                        "default": "advisory"}}, ("objective",)),
    memory_context, read_only=True, idempotent=True, requires=("dream.api",)))


# -- history ------------------------------------------------------------------------------------
HISTORY = "dream.spool.history"


def _history():
    return importlib.import_module(HISTORY)


def history_search(t: DreamTools, a: dict[str, Any]) -> Any:
    t.app.home.require()
    project = a.get("project")
    if project == "current":
        project = t.app.project().key
    result = _history().search(t.app.db, a["query"], page=a.get("page", 1),
                               page_size=a.get("per_page", 10), project_key=project,
                               evidence_only=a.get("evidence_only", False))
    result["has_more"] = result["page"] < result["pages"]
    return result


def history_show(t: DreamTools, a: dict[str, Any]) -> Any:
    t.app.home.require()
    result = _history().show(t.app.db, a["session"], page=a.get("page", 1),
                             page_size=a.get("per_page", 20))
    result["has_more"] = result["page"] < result["pages"]
    return result


tool(ToolSpec(
    "history_search", "Search past agent sessions collected into Dream's spool (user "
    "statements, tool results; secrets redacted), one page at a time.",
    _obj({"query": {"type": "string", "description": "Words to search for."},
          "project": {"type": "string", "description":
                      "A project key, or 'current' for this repository; default all."},
          "evidence_only": {"type": "boolean", "default": False,
                            "description": "Only user statements and tool results."},
          "page": PAGE, "per_page": PER_PAGE}, ("query",)),
    history_search, read_only=True, idempotent=True, requires=(HISTORY,)))
tool(ToolSpec(
    "history_show", "Page through one past session's messages in order.",
    _obj({"session": {"type": "string", "description": "Session (stream) id from a hit."},
          "page": PAGE, "per_page": {**PER_PAGE, "default": 20}}, ("session",)),
    history_show, read_only=True, idempotent=True, requires=(HISTORY,)))


# -- review ---------------------------------------------------------------------------------------
HANDOFF = "dream.review.handoff"
REVIEW = "dream.review.service"


def review_prepare(t: DreamTools, a: dict[str, Any]) -> Any:
    learned = a["learned"]
    if not all(isinstance(x, str) for x in learned):
        raise BadInput("learned lines must be strings",
                       "pass learned as a list of three strings of at most 200 characters")
    service = importlib.import_module(REVIEW)
    ref = service.resolve_project(t.app, a.get("project"))
    result = importlib.import_module(HANDOFF).prepare(t.app.db, ref.key, list(learned),
                                                      a["handoff"])
    return {**result, "project": ref.name}


def review_proposals(t: DreamTools, a: dict[str, Any]) -> Any:
    return importlib.import_module(REVIEW).show(t.app, a.get("run"), a.get("project"))


tool(ToolSpec(
    "review_prepare", "Prepare the next review dream: exactly three learned lines (at most "
    "200 characters each) and a handoff (at most 12,000 characters: open work, decisions, "
    "user corrections, memory slugs, next steps). Replaces any earlier prepared handoff.",
    _obj({"learned": {"type": "array", "items": {"type": "string", "maxLength": 200},
                      "minItems": 3, "maxItems": 3, "description": "Three learned lines."},
          "handoff": {"type": "string", "maxLength": 12000, "description": "Handoff text."},
          "project": {"type": "string", "description": "Project key; default current."}},
         ("learned", "handoff")),
    review_prepare, requires=(HANDOFF, REVIEW)))
tool(ToolSpec(
    "review_proposals", "List a review run's proposals (slug, pass, title, size, risk, "
    "evidence, replaces, status) and its learned lines; default the latest run.",
    _obj({"run": {"type": "string", "description": "Run id; default the latest review."},
          "project": {"type": "string", "description": "Project name or key; default "
                                                      "the current repository."}}),
    review_proposals, read_only=True, idempotent=True, requires=(REVIEW,)))


# -- questions ------------------------------------------------------------------------------------
ANSWERS = "dream.pipeline.answers"


def questions_list(t: DreamTools, a: dict[str, Any]) -> Any:
    answers = importlib.import_module(ANSWERS)
    scopes, _key = answers.app_scopes(t.app)
    return {"questions": answers.open_questions(scopes)}


def questions_answer(t: DreamTools, a: dict[str, Any]) -> Any:
    return importlib.import_module(ANSWERS).answer_question(t.app, a["key"], a["answer"])


tool(ToolSpec(
    "questions_list", "List the open questions Dream's runs asked (this repository and "
    "@user/): key, text, ask (same: answer yes or no; value: one of the options or a typed "
    "value), the records they are about.",
    _obj({}), questions_list, read_only=True, idempotent=True, requires=(ANSWERS,)))
tool(ToolSpec(
    "questions_answer", "Answer one open question as the user said it, now: yes merges two "
    "records into the older one, no keeps them apart for good, a value sets the field. One "
    "commit; later runs respect it. Only pass an answer the user gave.",
    _obj({"key": {"type": "string", "description": "Question key (or address) from "
                                                    "questions_list."},
          "answer": {"type": "string", "description": "yes, no, or the field's value."}},
         ("key", "answer")),
    questions_answer, destructive=True, requires=(ANSWERS,)))


# -- projects -------------------------------------------------------------------------------------
PROJECTS = "dream.core.projects"


def projects_list(t: DreamTools, a: dict[str, Any]) -> Any:
    rows = importlib.import_module(PROJECTS).list_projects(t.app)
    return {"projects": [r.as_dict() for r in rows]}


def projects_move(t: DreamTools, a: dict[str, Any]) -> Any:
    return importlib.import_module(PROJECTS).move_items(t.app, a["from"], a["to"]).as_dict()


tool(ToolSpec(
    "projects_list", "List the project keys Dream knows (from stores and collected items): "
    "name, managing stores, the folders items were recorded in, item counts, and which "
    "one is this repository ('here').",
    _obj({}), projects_list, read_only=True, idempotent=True, requires=(PROJECTS,)))
tool(ToolSpec(
    "projects_move", "Move every collected item of one project to another (names or keys, "
    "as projects_list shows them), e.g. sessions recorded on another machine that belong "
    "to this repository. Nothing is deleted; a later run or review in the target sees them.",
    _obj({"from": {"type": "string", "description": "Project name or key the items carry."},
          "to": {"type": "string", "description": "Project name or key to move them to."}},
         ("from", "to")),
    projects_move, requires=(PROJECTS,)))
