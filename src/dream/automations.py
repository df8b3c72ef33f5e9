"""Context automations: "Dream before compaction" and "Dream after a pause".

Each agent session gets two automations, created on its first report (``dream hook``):

- ``before_compaction``: fires when the context is above 70%;
- ``after_pause``: fires when the context is above 50% after eight hours without user input.

An automation fires once per threshold crossing: after a fire it is *disarmed* and re-arms
only when its condition stops holding (the context drops below the threshold again, e.g.
after a compaction; or, for the pause automation, the user typed again). Each fire adds
exactly one passive ``dream.requested`` journal entry whose key is
``dream.requested:<automation id>:<fire number>``; the fire counter and the entry are
written in one transaction, so a replayed report, a crash or a second process can never
add a second entry for the same fire. A report that carries a key (the hook derives one
from the payload and the transcript's size) is processed at most once.

A fire *wakes* the agent: the hook tells the model to hand off. Only some hooks' output
reaches the model (Claude Code ``SessionStart`` and ``UserPromptSubmit``; Codex the same two),
so a fire recorded on another event (Claude Code ``PreCompact``/``SessionEnd``, Codex
``Stop``) stays *pending* until such a hook runs for the same session: :meth:`deliver`
returns the session's pending wakes and records each as delivered (a ``dream.woke`` journal
entry keyed ``dream.woke:<automation id>:<fire number>``), so a wake is told once.

Automations are found again by a *creation key* (``<agent>:<session>:<kind>``): asking for
the same session's automations twice returns the same rows (the receipt), never a
duplicate. Pausing, resuming and deleting are stored in SQLite and survive restarts; a
deleted automation keeps its row (status ``deleted``) so a later report for the same
session does not bring it back.
"""

from __future__ import annotations

import json
import sqlite3
import uuid
from dataclasses import asdict, dataclass
from datetime import UTC, datetime, timedelta
from typing import Any

from dream.db import utcnow
from dream.errors import BadInput

KINDS: dict[str, dict[str, Any]] = {
    "before_compaction": {"name": "Dream before compaction", "threshold": 0.70, "idle_hours": 0.0},
    "after_pause": {"name": "Dream after a pause", "threshold": 0.50, "idle_hours": 8.0},
}
STATUSES = ("active", "paused", "deleted")


@dataclass
class Automation:
    id: str
    creation_key: str
    kind: str
    name: str
    agent: str
    session_id: str
    project_key: str | None
    threshold: float
    idle_hours: float
    status: str
    armed: bool
    fires: int
    last_fired_at: str | None
    created_at: str
    updated_at: str

    @classmethod
    def from_row(cls, row: sqlite3.Row) -> Automation:
        data = dict(row)
        data["armed"] = bool(data["armed"])
        return cls(**data)

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


@dataclass
class Fire:
    automation_id: str
    name: str
    fire: int
    journal_key: str
    context_fraction: float


@dataclass
class Report:
    """One context-use report from an agent hook."""

    agent: str
    session_id: str
    at: datetime
    context_fraction: float | None = None
    context_tokens: int | None = None
    context_window: int | None = None
    user_input: bool = False
    project_key: str | None = None
    cwd: str | None = None
    transcript_path: str | None = None
    event: str | None = None
    key: str | None = None


def _iso(at: datetime) -> str:
    return at.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%S.%fZ")


def _parse(text: str | None) -> datetime | None:
    if not text:
        return None
    return datetime.fromisoformat(text.replace("Z", "+00:00"))


def thresholds(config: Any | None) -> dict[str, dict[str, Any]]:
    """The two kinds with thresholds overridden by ``[automations]`` in config.toml."""
    kinds = {k: dict(v) for k, v in KINDS.items()}
    if config is None:
        return kinds
    section = config.data.get("automations", {}) if hasattr(config, "data") else {}
    if "before_compaction" in section:
        kinds["before_compaction"]["threshold"] = float(section["before_compaction"])
    if "after_pause" in section:
        kinds["after_pause"]["threshold"] = float(section["after_pause"])
    if "pause_hours" in section:
        kinds["after_pause"]["idle_hours"] = float(section["pause_hours"])
    return kinds


class Automations:
    """Automations and agent sessions in the Dream database."""

    def __init__(self, conn: sqlite3.Connection, config: Any | None = None) -> None:
        self.conn = conn
        self.kinds = thresholds(config)

    # -- creation and receipts ----------------------------------------------------------
    def ensure(self, agent: str, session_id: str, project_key: str | None = None
               ) -> list[Automation]:
        """The session's two automations, created when missing (idempotent by creation key)."""
        if not agent or not session_id:
            raise BadInput("an automation needs an agent and a session id",
                           "report context use through 'dream hook' with a session_id")
        now = utcnow()
        for kind, spec in self.kinds.items():
            self.conn.execute(
                "INSERT OR IGNORE INTO automations (id, creation_key, kind, name, agent, "
                "session_id, project_key, threshold, idle_hours, created_at, updated_at) "
                "VALUES (?,?,?,?,?,?,?,?,?,?,?)",
                (f"auto-{uuid.uuid4().hex[:12]}", creation_key(agent, session_id, kind), kind,
                 spec["name"], agent, session_id, project_key, spec["threshold"],
                 spec["idle_hours"], now, now),
            )
        rows = self.conn.execute(
            "SELECT * FROM automations WHERE creation_key IN (?, ?) ORDER BY kind DESC",
            tuple(creation_key(agent, session_id, k) for k in self.kinds),
        ).fetchall()
        return [Automation.from_row(r) for r in rows]

    def by_creation_key(self, key: str) -> Automation | None:
        row = self.conn.execute("SELECT * FROM automations WHERE creation_key=?", (key,)).fetchone()
        return Automation.from_row(row) if row else None

    # -- listing and user choices ---------------------------------------------------------
    def list(self, include_deleted: bool = False, session_id: str | None = None
             ) -> list[Automation]:
        sql = "SELECT * FROM automations WHERE 1=1"
        args: list[Any] = []
        if not include_deleted:
            sql += " AND status != 'deleted'"
        if session_id:
            sql += " AND session_id = ?"
            args.append(session_id)
        sql += " ORDER BY created_at, kind DESC"
        return [Automation.from_row(r) for r in self.conn.execute(sql, args)]

    def get(self, automation_id: str) -> Automation:
        rows = self.conn.execute(
            "SELECT * FROM automations WHERE id = ? OR id LIKE ? ESCAPE '\\' ORDER BY id",
            # a start of an id, taken literally: 'automations delete %' deleted the one
            # automation there was
            (automation_id, automation_id.replace("\\", "\\\\").replace("%", "\\%")
             .replace("_", "\\_") + "%"),
        ).fetchall()
        if not rows or not automation_id:
            raise BadInput(f"no automation '{automation_id}'",
                           "list automations with 'dream automations list'")
        if len(rows) > 1:
            raise BadInput(f"'{automation_id}' matches {len(rows)} automations",
                           "give more characters of the id")
        return Automation.from_row(rows[0])

    def set_status(self, automation_id: str, status: str) -> Automation:
        if status not in STATUSES:
            raise BadInput(f"unknown status '{status}'", f"use one of {', '.join(STATUSES)}")
        auto = self.get(automation_id)
        if auto.status == "deleted" and status != "deleted":
            raise BadInput(f"automation {auto.id} was deleted",
                           "a deleted automation stays deleted; a new session gets new ones")
        self.conn.execute("UPDATE automations SET status=?, updated_at=? WHERE id=?",
                          (status, utcnow(), auto.id))
        return self.get(auto.id)

    # -- reports ----------------------------------------------------------------------------
    def report(self, rep: Report) -> list[Fire]:
        """Record a context report and fire the automations whose condition now holds."""
        self.ensure(rep.agent, rep.session_id, rep.project_key)
        fires: list[Fire] = []
        self.conn.execute("BEGIN IMMEDIATE")
        try:
            if rep.key is not None:
                cur = self.conn.execute("INSERT OR IGNORE INTO agent_reports VALUES (?, ?)",
                                        (rep.key, _iso(rep.at)))
                if cur.rowcount == 0:       # this exact report was seen before
                    self.conn.execute("COMMIT")
                    return []
            session = self._session(rep)
            last_input = _parse(session["last_user_input_at"]) if session else None
            if last_input is None:
                # the first report starts the pause clock
                last_input = rep.at
            idle = rep.at - last_input
            for auto in self._active(rep.agent, rep.session_id):
                fire = self._evaluate(auto, rep, idle)
                if fire:
                    fires.append(fire)
            self._update_session(rep, last_input)
            self.conn.execute("COMMIT")
        except BaseException:
            self.conn.execute("ROLLBACK")
            raise
        return fires

    def _session(self, rep: Report) -> sqlite3.Row | None:
        return self.conn.execute(
            "SELECT * FROM agent_sessions WHERE agent=? AND session_id=?",
            (rep.agent, rep.session_id),
        ).fetchone()

    def _active(self, agent: str, session_id: str) -> list[Automation]:
        rows = self.conn.execute(
            "SELECT * FROM automations WHERE agent=? AND session_id=? AND status='active'",
            (agent, session_id),
        ).fetchall()
        return [Automation.from_row(r) for r in rows]

    def _evaluate(self, auto: Automation, rep: Report, idle: timedelta) -> Fire | None:
        if rep.context_fraction is None:
            return None                      # nothing known about context use: no change
        above = rep.context_fraction > auto.threshold
        if auto.kind == "after_pause":
            holds = above and idle >= timedelta(hours=auto.idle_hours)
        else:
            holds = above
        if not holds:
            if not auto.armed:
                self.conn.execute("UPDATE automations SET armed=1, updated_at=? WHERE id=?",
                                  (utcnow(), auto.id))
            return None
        if not auto.armed:
            return None                      # already fired for this crossing
        number = auto.fires + 1
        key = journal_key(auto.id, number)
        at = _iso(rep.at)
        self.conn.execute(
            "UPDATE automations SET armed=0, fires=?, last_fired_at=?, updated_at=? "
            "WHERE id=? AND fires=?",
            (number, at, utcnow(), auto.id, auto.fires),
        )
        data = {
            "automation_id": auto.id,
            "automation": auto.name,
            "kind": auto.kind,
            "fire": number,
            "agent": rep.agent,
            "session_id": rep.session_id,
            "event": rep.event,
            "context_fraction": round(rep.context_fraction, 4),
            "context_tokens": rep.context_tokens,
            "context_window": rep.context_window,
            "idle_hours": round(idle.total_seconds() / 3600, 2),
            "passive": True,
        }
        self.conn.execute(
            "INSERT OR IGNORE INTO journal (at, kind, key, project_key, data) "
            "VALUES (?, 'dream.requested', ?, ?, ?)",
            (at, key, rep.project_key or auto.project_key, json.dumps(data, sort_keys=True)),
        )
        return Fire(auto.id, auto.name, number, key, rep.context_fraction)

    def _update_session(self, rep: Report, last_input: datetime) -> None:
        new_input = rep.at if rep.user_input else last_input
        self.conn.execute(
            "INSERT INTO agent_sessions (agent, session_id, project_key, cwd, transcript_path, "
            "last_user_input_at, last_report_at, context_fraction, context_tokens, "
            "context_window) VALUES (?,?,?,?,?,?,?,?,?,?) "
            "ON CONFLICT(agent, session_id) DO UPDATE SET "
            "project_key=COALESCE(excluded.project_key, project_key), "
            "cwd=COALESCE(excluded.cwd, cwd), "
            "transcript_path=COALESCE(excluded.transcript_path, transcript_path), "
            "last_user_input_at=excluded.last_user_input_at, "
            "last_report_at=excluded.last_report_at, "
            "context_fraction=COALESCE(excluded.context_fraction, context_fraction), "
            "context_tokens=COALESCE(excluded.context_tokens, context_tokens), "
            "context_window=COALESCE(excluded.context_window, context_window)",
            (rep.agent, rep.session_id, rep.project_key, rep.cwd, rep.transcript_path,
             _iso(new_input), _iso(rep.at), rep.context_fraction, rep.context_tokens,
             rep.context_window),
        )

    def pending(self, agent: str, session_id: str) -> list[dict[str, Any]]:
        """The session's fires whose wake has not reached the model yet, oldest first."""
        rows = self.conn.execute(
            "SELECT r.key, r.data FROM journal r WHERE r.kind='dream.requested' "
            "AND NOT EXISTS (SELECT 1 FROM journal w WHERE w.kind='dream.woke' "
            "AND w.key = 'dream.woke:' || substr(r.key, length('dream.requested:') + 1)) "
            "ORDER BY r.id").fetchall()
        out = []
        for row in rows:
            data = json.loads(row["data"])
            if data.get("agent") == agent and data.get("session_id") == session_id:
                out.append({"key": row["key"], **data})
        return out

    def deliver(self, agent: str, session_id: str, event: str | None,
                at: datetime | None = None) -> list[dict[str, Any]]:
        """Pending wakes of the session, marked delivered (each is returned once)."""
        woke = []
        for wake in self.pending(agent, session_id):
            key = "dream.woke:" + wake["key"].removeprefix("dream.requested:")
            cur = self.conn.execute(
                "INSERT OR IGNORE INTO journal (at, kind, key, project_key, data) "
                "VALUES (?, 'dream.woke', ?, NULL, ?)",
                (_iso(at or datetime.now(UTC)), key,
                 json.dumps({"agent": agent, "session_id": session_id, "event": event,
                             "requested": wake["key"]}, sort_keys=True)))
            if cur.rowcount:
                woke.append(wake)
        return woke

    def requested(self, session_id: str | None = None) -> list[dict[str, Any]]:
        """The ``dream.requested`` journal entries, oldest first."""
        rows = self.conn.execute(
            "SELECT at, key, project_key, data FROM journal WHERE kind='dream.requested' "
            "ORDER BY id"
        ).fetchall()
        out = []
        for row in rows:
            data = json.loads(row["data"])
            if session_id and data.get("session_id") != session_id:
                continue
            out.append({"at": row["at"], "key": row["key"], "project_key": row["project_key"],
                        **data})
        return out


def creation_key(agent: str, session_id: str, kind: str) -> str:
    return f"{agent}:{session_id}:{kind}"


def journal_key(automation_id: str, fire: int) -> str:
    return f"dream.requested:{automation_id}:{fire}"
