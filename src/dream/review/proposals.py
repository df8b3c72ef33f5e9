"""Proposals of review dreams, kept in the ``review_proposals`` table.

Proposals are operational state like runs: they are not memory until a person accepts one,
and then the promotion commit (with its trailers) or the exported work item is the durable
trail. A rejected proposal leaves its fingerprint (pass + slug + evidence item set) in
``review_rejections`` and is never proposed again for the same evidence.
"""

from __future__ import annotations

import hashlib
import json
import sqlite3
from typing import Any, Literal

from pydantic import BaseModel, Field

STATUSES = ("proposed", "accepted", "rejected", "exported", "reverted")


class Proposal(BaseModel):
    run_id: str
    slug: str
    pass_name: str = Field(alias="pass")
    kind: Literal["memory", "code", "instruction"]
    title: str
    size: Literal["S", "M", "L"]
    risk: Literal["low", "medium", "high"]
    project_key: str | None = None
    evidence: list[str]
    items: list[str]
    replaces: list[str] = Field(default_factory=list)
    change: dict[str, Any]
    fingerprint: str
    status: Literal["proposed", "accepted", "rejected", "exported", "reverted"] = "proposed"
    why: str | None = None
    decided_at: str | None = None
    commit_sha: str | None = None
    export_path: str | None = None
    created_at: str

    model_config = {"populate_by_name": True}

    def public(self) -> dict[str, Any]:
        """What ``dream review show --json`` prints for one proposal."""
        return {
            "slug": self.slug, "pass": self.pass_name, "kind": self.kind, "title": self.title,
            "size": self.size, "risk": self.risk, "evidence": self.evidence,
            "replaces": self.replaces, "status": self.status, "run": self.run_id,
            "change": self.change, "why": self.why, "decided_at": self.decided_at,
            "commit": self.commit_sha, "export": self.export_path,
        }


def fingerprint(pass_name: str, slug: str, item_ids: list[str]) -> str:
    raw = "\n".join([pass_name, slug, *sorted(set(item_ids))])
    return hashlib.sha256(raw.encode("utf-8")).hexdigest()[:32]


_JSON_FIELDS = ("evidence", "items", "replaces", "change")


def insert(conn: sqlite3.Connection, p: Proposal) -> None:
    row = p.model_dump(by_alias=True)
    for key in _JSON_FIELDS:
        row[key] = json.dumps(row[key], ensure_ascii=False, sort_keys=True)
    cols = ["run_id", "slug", "pass", "kind", "title", "size", "risk", "project_key",
            "evidence", "items", "replaces", "change", "fingerprint", "status", "why",
            "decided_at", "commit_sha", "export_path", "created_at"]
    conn.execute(
        f'INSERT INTO review_proposals ({", ".join(f"[{c}]" for c in cols)}) '
        f'VALUES ({", ".join("?" * len(cols))})',
        [row[c] for c in cols],
    )


def from_row(row: sqlite3.Row) -> Proposal:
    data = dict(row)
    for key in _JSON_FIELDS:
        data[key] = json.loads(data[key] or ("{}" if key == "change" else "[]"))
    return Proposal.model_validate(data)


def for_run(conn: sqlite3.Connection, run_id: str) -> list[Proposal]:
    rows = conn.execute("SELECT * FROM review_proposals WHERE run_id=? ORDER BY rowid",
                        (run_id,)).fetchall()
    return [from_row(r) for r in rows]


def find(conn: sqlite3.Connection, slug: str, run_id: str | None = None,
         project_key: str | None = None) -> Proposal | None:
    """The proposal with ``slug`` in ``run_id`` or else in the newest review that has it."""
    sql = "SELECT * FROM review_proposals WHERE slug=?"
    args: list[Any] = [slug]
    if run_id:
        sql += " AND run_id=?"
        args.append(run_id)
    if project_key:
        sql += " AND project_key=?"
        args.append(project_key)
    row = conn.execute(sql + " ORDER BY created_at DESC, rowid DESC LIMIT 1", args).fetchone()
    return from_row(row) if row else None


def decided_fingerprints(conn: sqlite3.Connection) -> dict[str, str]:
    """fingerprint -> 'rejected' | 'accepted' | 'exported' for everything a person decided."""
    out = {r[0]: "rejected" for r in conn.execute("SELECT fingerprint FROM review_rejections")}
    for fp, status in conn.execute(
        "SELECT fingerprint, status FROM review_proposals WHERE status IN ('accepted','exported')"
    ):
        out.setdefault(fp, status)
    return out


def mark_reverted(conn: sqlite3.Connection, reverts: dict[str, str], at: str) -> int:
    """Proposals whose promotion commit was reverted become ``reverted``; ``reverts`` maps
    each reverted commit to the commit that reverted it. Returns how many changed. A
    reverted proposal can be accepted again (its change is promoted anew)."""
    changed = 0
    for sha, by in reverts.items():
        changed += conn.execute(
            "UPDATE review_proposals SET status='reverted', decided_at=?,"
            " why=? WHERE commit_sha=? AND status='accepted'",
            (at, f"reverted by {by}", sha)).rowcount
    return changed


def set_status(conn: sqlite3.Connection, p: Proposal, status: str, *, why: str | None = None,
               commit_sha: str | None = None, export_path: str | None = None,
               at: str) -> None:
    conn.execute(
        "UPDATE review_proposals SET status=?, why=coalesce(?, why), decided_at=?,"
        " commit_sha=coalesce(?, commit_sha), export_path=coalesce(?, export_path)"
        " WHERE run_id=? AND slug=?",
        (status, why, at, commit_sha, export_path, p.run_id, p.slug),
    )
    if status == "rejected":
        conn.execute(
            "INSERT OR REPLACE INTO review_rejections (fingerprint, slug, pass, run_id, why, at)"
            " VALUES (?, ?, ?, ?, ?, ?)",
            (p.fingerprint, p.slug, p.pass_name, p.run_id, why, at),
        )


def open_counts(conn: sqlite3.Connection) -> dict[str, int]:
    """Review run id -> how many of its proposals still wait for a decision."""
    return dict(conn.execute("SELECT run_id, count(*) FROM review_proposals WHERE "
                             "status='proposed' GROUP BY run_id ORDER BY run_id").fetchall())
