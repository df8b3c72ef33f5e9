"""A run (a dream run or a review dream) and the queries over the ``runs`` table.

This module owns the table: every other layer reads and writes runs through it and works
with :class:`Run`, never with the row. ``details`` is the run's JSON bag; the fields the
code relies on are typed in :class:`RunDetails`, anything else is kept in ``extra`` so a
round trip loses nothing.
"""

from __future__ import annotations

import json
import sqlite3
from dataclasses import dataclass, field, fields
from typing import Any

from dream.db import utcnow
from dream.errors import BadInput

KINDS = ("dream", "review")


@dataclass
class RunDetails:
    """What a run records beyond its figures."""

    scopes: dict[str, dict[str, Any]] = field(default_factory=dict)  # root -> summary
    commits: dict[str, str] = field(default_factory=dict)            # store id -> commit
    apply_mode: str | None = None                                    # auto | review
    decision: str | None = None                                      # promoted | discarded
    decided_at: str | None = None
    reverted_by: dict[str, str] = field(default_factory=dict)        # store id -> revert commit
    reverted_at: str | None = None
    promoted_heads: dict[str, str] = field(default_factory=dict)
    dropped: dict[str, int] = field(default_factory=dict)
    apply: dict[str, int] = field(default_factory=dict)
    errors: list[str] = field(default_factory=list)
    cost_note: str | None = None
    project_root: str | None = None                                  # review dreams
    project_name: str | None = None
    failed_passes: list[str] = field(default_factory=list)
    remaining: int | None = None          # items still waiting after the run (dream runs)
    extra: dict[str, Any] = field(default_factory=dict)
    present: frozenset[str] = field(default_factory=frozenset, repr=False, compare=False)

    @classmethod
    def from_json(cls, text: str | None) -> RunDetails:
        try:
            data = json.loads(text or "{}")
        except ValueError:
            data = {}
        return cls.from_dict(data if isinstance(data, dict) else {})

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> RunDetails:
        known = {f.name for f in fields(cls)} - {"extra", "present"}
        kw = {k: v for k, v in data.items() if k in known and v is not None}
        return cls(**kw, extra={k: v for k, v in data.items() if k not in known},
                   present=frozenset(kw))

    def as_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = dict(self.extra)
        for f in fields(self):
            if f.name in ("extra", "present"):
                continue
            value = getattr(self, f.name)
            if value not in (None, {}, []) or f.name in self.present:
                out[f.name] = value
        return out

    def get(self, key: str, default: Any = None) -> Any:
        """Read an untyped entry (review journals, evidence counts)."""
        return self.as_dict().get(key, default)


@dataclass
class Run:
    id: str
    kind: str
    mode: str
    status: str
    project_key: str | None
    model: str | None
    started_at: str
    finished_at: str | None
    items: int
    bundles: int
    calls: int
    input_tokens: int
    output_tokens: int
    cached_tokens: int
    cost_usd: float
    duration_s: float
    commit: str | None
    branch: str | None
    error: str | None
    details: RunDetails

    @classmethod
    def from_row(cls, row: sqlite3.Row) -> Run:
        return cls(
            id=row["id"], kind=row["kind"], mode=row["mode"], status=row["status"],
            project_key=row["project_key"], model=row["model"], started_at=row["started_at"],
            finished_at=row["finished_at"], items=row["items"], bundles=row["bundles"],
            calls=row["calls"], input_tokens=row["input_tokens"],
            output_tokens=row["output_tokens"], cached_tokens=row["cached_tokens"],
            cost_usd=round(row["cost_usd"] or 0.0, 6),
            duration_s=round(row["duration_s"] or 0.0, 3), commit=row["commit_sha"],
            branch=row["branch"], error=row["error"],
            details=RunDetails.from_json(row["details"]))

    @property
    def waiting_for_review(self) -> bool:
        """A dream run left for review (``--apply review``) that wrote a commit and has no
        decision yet: what promote and discard require."""
        d = self.details
        return self.kind == "dream" and d.apply_mode == "review" and bool(d.commits) \
            and not d.decision

    @property
    def decision(self) -> str:
        """What became of the run: ``reverted`` once ``dream revert`` rolled its commit
        back; else awaiting review, promoted or discarded (``--apply review``), promoted
        (``--apply auto``), or why there is nothing to decide (dry run, running, failed,
        no changes)."""
        d = self.details
        if self.status in ("priced", "running", "failed"):
            return {"priced": "dry run"}.get(self.status, self.status)
        if not self.commit:
            return "no changes"
        if d.reverted_by:
            return "reverted"
        if d.apply_mode == "review":
            return d.decision or "awaiting review"
        return "promoted"

    def as_dict(self) -> dict[str, Any]:
        """The run as ``--json`` prints it."""
        return {
            "id": self.id, "kind": self.kind, "mode": self.mode, "status": self.status,
            "items": self.items, "bundles": self.bundles, "calls": self.calls,
            "input_tokens": self.input_tokens, "output_tokens": self.output_tokens,
            "cached_tokens": self.cached_tokens, "cost_usd": self.cost_usd,
            "commit": self.commit, "branch": self.branch, "duration_s": self.duration_s,
            "model": self.model, "project_key": self.project_key,
            "started_at": self.started_at, "finished_at": self.finished_at,
            "error": self.error, "decision": self.decision, "details": self.details.as_dict(),
        }


# -- queries -----------------------------------------------------------------------------------
def insert(conn: sqlite3.Connection, run_id: str, mode: str, status: str,
           project_key: str | None, model: str, kind: str = "dream",
           details: RunDetails | None = None) -> None:
    conn.execute("INSERT INTO runs(id, kind, mode, status, project_key, model, started_at,"
                 " details) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                 (run_id, kind, mode, status, project_key, model, utcnow(),
                  json.dumps((details or RunDetails()).as_dict(), sort_keys=True)))


def update(conn: sqlite3.Connection, run_id: str, **values: Any) -> None:
    """Set columns of one run; ``details`` may be a RunDetails, a dict or JSON text."""
    if "details" in values:
        d = values["details"]
        if isinstance(d, RunDetails):
            d = d.as_dict()
        if not isinstance(d, str):
            values["details"] = json.dumps(d, sort_keys=True, default=_plain)
    if "commit" in values:
        values["commit_sha"] = values.pop("commit")
    cols = ", ".join(f"{k} = ?" for k in values)
    conn.execute(f"UPDATE runs SET {cols} WHERE id = ?", (*values.values(), run_id))


def _plain(value: Any) -> Any:
    if isinstance(value, set):
        return sorted(value)
    raise TypeError(f"{type(value).__name__} is not JSON serialisable")


def find(conn: sqlite3.Connection, run_id: str, kind: str | None = None) -> Run | None:
    """One run by id (or a unique id prefix), or None."""
    where, args = ("id = ?", [run_id])
    if kind:
        where += " AND kind = ?"
        args.append(kind)
    row = conn.execute(f"SELECT * FROM runs WHERE {where}", args).fetchone()
    if row is None and run_id:
        matches = _by_prefix(conn, run_id, kind)
        row = matches[0] if len(matches) == 1 else None
    return Run.from_row(row) if row else None


def _by_prefix(conn: sqlite3.Connection, run_id: str, kind: str | None) -> list[sqlite3.Row]:
    # LIKE's own characters taken literally: '%' was dropped, so 'runs discard %' took the
    # one run there was (or named them all)
    literal = run_id.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")
    like = [literal + "%"] + ([kind] if kind else [])
    return conn.execute(
        f"SELECT * FROM runs WHERE id LIKE ? ESCAPE '\\'{' AND kind = ?' if kind else ''}"
        " ORDER BY started_at DESC", like).fetchall()


def get(conn: sqlite3.Connection, run_id: str, kind: str = "dream") -> Run:
    """One run, or BadInput naming the command that lists them."""
    run = find(conn, run_id, kind)
    if run is None:
        several = _by_prefix(conn, run_id, kind) if run_id else []
        if len(several) > 1:
            shown = ", ".join(r["id"] for r in several[:5]) + (", ..." if len(several) > 5
                                                               else "")
            raise BadInput(f"'{run_id}' is the start of {len(several)} run ids ({shown})",
                           "give more of the id")
        if kind == "review":
            raise BadInput(f"no review run '{run_id}'", "list reviews with 'dream review show'")
        raise BadInput(f"no dream run '{run_id}'", "list runs with 'dream runs'")
    return run


def recent(conn: sqlite3.Connection, limit: int = 50, kind: str | None = "dream") -> list[Run]:
    """Newest first; ``kind=None`` lists dream and review runs together."""
    where = "WHERE kind = ?" if kind else ""
    args: list[Any] = [kind] if kind else []
    rows = conn.execute(f"SELECT * FROM runs {where} ORDER BY started_at DESC, rowid DESC"
                        " LIMIT ?", (*args, limit)).fetchall()
    return [Run.from_row(r) for r in rows]


def latest_review(conn: sqlite3.Connection, project_key: str | None) -> Run | None:
    sql = "SELECT * FROM runs WHERE kind='review'"
    args: list[Any] = []
    if project_key:
        sql += " AND project_key=?"
        args.append(project_key)
    row = conn.execute(sql + " ORDER BY started_at DESC, rowid DESC LIMIT 1", args).fetchone()
    return Run.from_row(row) if row else None


def open_review(conn: sqlite3.Connection, project_key: str) -> Run | None:
    row = conn.execute("SELECT * FROM runs WHERE kind='review' AND project_key=? AND "
                       "status='running' ORDER BY started_at DESC LIMIT 1",
                       (project_key,)).fetchone()
    return Run.from_row(row) if row else None


def reviews_of(conn: sqlite3.Connection, project_key: str) -> list[Run]:
    rows = conn.execute("SELECT * FROM runs WHERE kind='review' AND project_key=?",
                        (project_key,)).fetchall()
    return [Run.from_row(r) for r in rows]


def any_ran(conn: sqlite3.Connection) -> bool:
    """Whether any dream run (a dry run aside) was ever recorded."""
    return conn.execute("SELECT 1 FROM runs WHERE kind='dream' AND status != 'priced'"
                        " LIMIT 1").fetchone() is not None


def mark_reverted(conn: sqlite3.Connection, reverts: dict[str, str], at: str) -> list[str]:
    """Dream runs whose recorded commit was reverted record the commit that reverted it
    (``reverts`` maps each reverted commit to its revert), so the runs view says
    'reverted' instead of 'promoted'. Returns the ids of the runs marked."""
    marked: list[str] = []
    if not reverts:
        return marked
    rows = conn.execute("SELECT * FROM runs WHERE kind = 'dream' AND commit_sha IS NOT NULL"
                        ).fetchall()
    for row in rows:
        run = Run.from_row(row)
        hit = {store: reverts[sha] for store, sha in run.details.commits.items()
               if sha in reverts}
        if not hit and run.commit in reverts:
            hit = {"": reverts[run.commit]}
        if hit:
            run.details.reverted_by.update(hit)
            run.details.reverted_at = at
            update(conn, run.id, details=run.details)
            marked.append(run.id)
    return marked


def running(conn: sqlite3.Connection, kind: str = "dream") -> list[Run]:
    rows = conn.execute("SELECT * FROM runs WHERE status = 'running' AND kind = ?",
                        (kind,)).fetchall()
    return [Run.from_row(r) for r in rows]
