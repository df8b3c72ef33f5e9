"""Steering the memory from ``dream serve``: the questions page with its answer forms, the
actions behind the correct and crumple forms, and the data of the pictures page.

Every action calls exactly what the command line calls: an answer goes through
:func:`dream.pipeline.answers.answer_question` (``dream questions answer``), a correction
through :func:`dream.core.dreams.correct` (``dream correct``), crumpling through
:func:`dream.core.notes.crumple` (``dream notes crumple``). So what is typed is redacted
before it is stored, becomes evidence said at the moment it was typed, and is applied by one
realtime run in one commit; anything the command line refuses is refused here with the same
one-line error, and nothing changes. Actions hold the page's lock (one SQLite connection and
the git readers are shared by the server's threads); the server checks the CSRF token of
every form before an action runs (:mod:`dream.review.web`). A form may name the page to go
back to (``back``, a path on this server); anything else goes back to the questions page.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any
from urllib.parse import parse_qsl, urlencode, urlsplit

from dream import runs as run_records
from dream.errors import BadInput, DreamError
from dream.kinds.records import Record
from dream.pipeline.state import Scope
from dream.review import steer_pages

if TYPE_CHECKING:
    from dream.review.web import RunsView

HTML = "text/html; charset=utf-8"
WEB_OWNER = "dream serve"        # never the command line's own open dream
ACTIONS = ("/questions/answer", "/records/correct", "/records/crumple")
Reply = tuple[int, str, str, str | None]      # status, content type, body, redirect


def safe_back(back: str, default: str) -> str:
    """``back`` when it is a path on this server, else ``default`` (no open redirects)."""
    back = back.strip()
    if not back.startswith("/") or back.startswith("//") or "\\" in back or \
            any(ord(c) < 32 for c in back):
        return default
    return back


def with_done(back: str, done: str, anchor: str = "") -> str:
    """``back`` with ``done=...`` (the flash line) in its query."""
    parts = urlsplit(back)
    query = [(k, v) for k, v in parse_qsl(parts.query) if k != "done"] + [("done", done)]
    return parts.path + "?" + urlencode(query) + (anchor or
                                                  ("#" + parts.fragment if parts.fragment else ""))


@dataclass
class Steering:
    """The steering half of the page; shares the runs view's app and lock."""

    view: RunsView

    def __post_init__(self) -> None:
        from dream.review.pictures import Pictures

        self.pictures = Pictures(self.view)
        self._summaries: dict[tuple[str, str, str], dict[str, Any]] = {}

    @property
    def app(self):
        return self.view.app

    # -- reading -------------------------------------------------------------------------------
    def questions(self) -> list[dict[str, Any]]:
        """Open questions of every project a store manages and of @user/, each with its
        scope and a summary of the records it is about."""
        from dream.pipeline.answers import every_scope, open_questions
        from dream.review.memory_pages import record_link

        with self.view.lock:
            out = []
            for scope in every_scope(self.app):
                head = scope.store.repo.head()
                for q in open_questions([scope]):
                    q["scope"] = scope.address_prefix
                    q["link"] = record_link(scope.store.id, q["address"][1:])
                    q["records"] = [self._summary(scope, head, path) for path in q["about"]]
                    out.append(q)
            return out

    def _summary(self, scope: Scope, head: str | None, path: str) -> dict[str, Any]:
        """:func:`record_summary`, kept per (store, HEAD, path): a commit never changes."""
        key = (scope.store.id, head or "", f"{scope.root}/{path}")
        if key not in self._summaries:
            if len(self._summaries) > 2000:
                self._summaries.clear()
            self._summaries[key] = record_summary(scope, path, head)
        return self._summaries[key]

    def waiting(self) -> dict[str, list[dict[str, Any]]]:
        """Other decisions waiting for a person: dream runs left for review, and review
        runs with undecided proposals (with how many)."""
        from dream.review import proposals

        with self.view.lock:
            recent = run_records.recent(self.app.db, 200, kind=None)
            counts = proposals.open_counts(self.app.db)
        runs = [r.as_dict() for r in recent if r.waiting_for_review]
        reviews = [{**r.as_dict(), "open": counts[r.id]} for r in recent
                   if r.kind == "review" and counts.get(r.id)]
        return {"runs": runs, "reviews": reviews}

    # -- acting (the CLI's own functions) ------------------------------------------------------
    def answer(self, address: str, answer: str) -> dict[str, Any]:
        from dream.pipeline.answers import answer_question

        if not address:
            raise BadInput("no question chosen", "press an answer button under a question")
        if not answer.strip():
            raise BadInput("no answer given",
                           "press yes or no, pick an offered value, or type one")
        with self.view.lock:
            return answer_question(self.app, address, answer)

    def correct(self, address: str, field: str, value: str, store: str = ""):
        from dream.core import dreams

        if not address:
            raise BadInput("no record chosen", "use the form on a record's page")
        with self.view.lock:
            self._check_store(address, store, crumple=False)
            return dreams.correct(self.app, address, field, value)

    def crumple(self, address: str, store: str = ""):
        from dream.core import notes

        if not address:
            raise BadInput("no note chosen", "press Crumple on a note's page")
        with self.view.lock:
            self._check_store(address, store, crumple=True)
            return notes.crumple(self.app, address, owner=WEB_OWNER)

    def _check_store(self, address: str, store_id: str, crumple: bool) -> None:
        """A form on a record's page names the store it was shown from: refuse when the
        address would act on another store (a project whose Primary Store is elsewhere),
        rather than change a record the person did not see. Free notes live in the notes
        home, so a crumple from there is always the one shown."""
        from dream.core.dreams import scope_of
        from dream.errors import NotManaged

        if not store_id:
            return
        try:
            acting = scope_of(self.app, address)[0].store
        except (BadInput, NotManaged):
            acting = self.app.notes_store()
        if store_id == acting.id or (crumple and store_id == self.app.notes_store().id):
            return
        raise BadInput(f"{address} is kept in store {acting.name}, not in the store this page "
                       "showed", f"open it from store {acting.name}'s memory page")

    def record_forms(self, rec: Any, query: dict[str, list[str]], csrf: str) -> str:
        """The Correct and Crumple forms for a record's page (a
        :class:`dream.core.memory.RecordView`), with the flash line of the last action.
        Called while the page's lock is held: it reads nothing."""
        from dream.kinds.questions import parse
        from dream.review.memory_pages import record_link

        typed = bool(rec.fields)
        values = {f.name: f.value for f in rec.fields}
        status = values.get("status", "") if typed else str(rec.meta.get("status") or "live")
        back = record_link(rec.store_id, rec.path)
        question = parse(values) if rec.kind == "question" else None
        ask = None
        if question is not None and question.status == "open":
            ask = {"address": "@" + rec.path, "ask": question.ask, "field": question.field,
                   "options": question.options}
        return steer_pages.record_forms(
            "@" + rec.path, rec.store_id, rec.kind, list(values), status, typed, csrf, back,
            (query.get("done") or [""])[0], ask)

    # -- HTTP ----------------------------------------------------------------------------------
    def get(self, path: str, query: dict[str, list[str]], csrf: str
            ) -> tuple[int, str, str] | None:
        """The page at ``path``, or None when it is not one of ours."""
        done = (query.get("done") or [""])[0]
        if path in ("/questions", "/questions/"):
            return 200, HTML, steer_pages.questions_page(self.questions(), self.waiting(),
                                                         csrf, done)
        if path in ("/pictures", "/pictures/"):
            return 200, HTML, self.pictures.page(query)
        return None

    def post(self, path: str, form: dict[str, list[str]]) -> Reply:
        """Run one action (the CSRF token was checked by the server)."""

        def one(name: str) -> str:
            return (form.get(name) or [""])[0]

        back = safe_back(one("back"), "/questions")
        try:
            if path == "/questions/answer":
                done = self.answer(one("question"), one("typed").strip() or one("answer"))
                text = (f"answered {done['question']} = {done['answer']!r} "
                        f"(evidence {done['item']}, run {done['id']})")
            elif path == "/records/correct":
                fixed = self.correct(one("address"), one("field"), one("value"),
                                     one("store"))
                text = (f"corrected {fixed.address} {fixed.field} = {fixed.value!r} "
                        f"(evidence {fixed.item}, run {fixed.run.id})")
            else:
                change = self.crumple(one("address"), one("store"))
                text = f"crumpled {change.address}" + (
                    f" -> {change.commit[:12]}" if change.commit else "")
        except DreamError as exc:
            return 409, HTML, steer_pages.error_page(409, exc.one_line(), back), None
        return 303, "text/plain", "", with_done(
            back, text, "#steer" if back.startswith("/memory/") else "")


def record_summary(scope: Scope, path: str, head: str | None) -> dict[str, Any]:
    """A record a question is about, at commit ``head`` of its store: address, kind, key
    and field values (``missing`` when it is gone)."""
    from dream.review.memory_pages import record_link

    address = f"{scope.address_prefix}/{path}"
    relpath = f"{scope.root.rstrip('/')}/{path}"
    data = scope.store.repo.read_at(head, relpath) if head else None
    rec = Record.loads(data.decode("utf-8", "replace")) if data else None
    if rec is None:
        return {"address": address, "path": path, "missing": True, "fields": {}, "link": ""}
    return {"address": address, "path": path, "missing": False, "kind": rec.kind,
            "key": rec.key, "fields": rec.values(),
            "link": record_link(scope.store.id, relpath)}
