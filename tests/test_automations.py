"""Automations fire once per threshold crossing, never duplicate an entry, survive restarts."""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta

import pytest

from dream.app import App
from dream.automations import Automations, Report, creation_key, journal_key
from dream.errors import BadInput

T0 = datetime(2026, 11, 30, 9, 0, tzinfo=UTC)


@pytest.fixture(autouse=True)
def agent_folders(tmp_path, monkeypatch):
    """The test's transcripts live in tmp_path: it is the agents' session folder here."""
    monkeypatch.setenv("DREAM_CLAUDE_DIR", str(tmp_path))


@pytest.fixture
def app(repo) -> App:
    app = App.from_env()
    app.ensure_home()
    yield app
    app.close()


def rep(frac, at=T0, user=False, key=None, session="s1"):
    return Report(agent="claude-code", session_id=session, at=at, context_fraction=frac,
                  user_input=user, key=key, event="UserPromptSubmit" if user else "Stop")


def entries(app):
    return [dict(r) for r in app.db.execute(
        "SELECT kind, key, data FROM journal WHERE kind='dream.requested' ORDER BY id")]


def test_two_automations_per_session_and_creation_key_recovers_receipt(app):
    autos = Automations(app.db)
    first = autos.ensure("claude-code", "s1", "proj-1")
    again = autos.ensure("claude-code", "s1", "proj-1")
    assert [a.name for a in first] == ["Dream before compaction", "Dream after a pause"]
    assert [a.id for a in first] == [a.id for a in again]          # no duplicate
    assert [a.threshold for a in first] == [0.70, 0.50]
    assert autos.by_creation_key(creation_key("claude-code", "s1", "after_pause")).id \
        == first[1].id
    assert len(autos.list()) == 2
    autos.ensure("claude-code", "s2")
    assert len(autos.list()) == 4


def test_fires_once_per_crossing_and_rearms_after_compaction(app):
    autos = Automations(app.db)
    assert autos.report(rep(0.40)) == []
    fires = autos.report(rep(0.71, T0 + timedelta(minutes=1)))
    assert [(f.name, f.fire) for f in fires] == [("Dream before compaction", 1)]
    # still above: same crossing, no second fire
    assert autos.report(rep(0.80, T0 + timedelta(minutes=2))) == []
    assert autos.report(rep(0.95, T0 + timedelta(minutes=3))) == []
    # compaction drops the context: re-armed; the next crossing fires #2
    assert autos.report(rep(0.20, T0 + timedelta(minutes=4))) == []
    fires = autos.report(rep(0.75, T0 + timedelta(minutes=5)))
    assert [f.fire for f in fires] == [1 + 1]
    rows = entries(app)
    before = autos.ensure("claude-code", "s1")[0]
    assert [r["key"] for r in rows] == [journal_key(before.id, 1), journal_key(before.id, 2)]
    data = json.loads(rows[0]["data"])
    assert data["automation"] == "Dream before compaction" and data["passive"] is True
    assert data["context_fraction"] == 0.71


def test_exactly_at_threshold_does_not_fire(app):
    assert Automations(app.db).report(rep(0.70)) == []


def test_replayed_report_adds_nothing(app):
    autos = Automations(app.db)
    autos.report(rep(0.75, key="r1"))
    autos.report(rep(0.10, T0 + timedelta(minutes=1), key="r2"))   # re-arms
    # the first report arrives again (a replay): it is ignored, not a new crossing
    assert autos.report(rep(0.75, key="r1")) == []
    assert len(entries(app)) == 1


def test_after_pause_needs_eight_idle_hours_above_half(app):
    autos = Automations(app.db)
    autos.report(rep(0.55, T0, user=True))
    # seven hours later: not yet
    assert autos.report(rep(0.55, T0 + timedelta(hours=7), user=True)) == []
    # the user typed at +7h; eight hours after that, with context at 55%: fires
    fires = autos.report(rep(0.55, T0 + timedelta(hours=15), user=True))
    assert [f.name for f in fires] == ["Dream after a pause"]
    # the user is back: the next report a minute later neither fires nor duplicates
    assert autos.report(rep(0.56, T0 + timedelta(hours=15, minutes=1), user=True)) == []
    # a long pause with little context does not fire
    assert autos.report(rep(0.30, T0 + timedelta(hours=30), user=True)) == []
    assert [json.loads(r["data"])["kind"] for r in entries(app)] == ["after_pause"]


def test_paused_and_deleted_automations_do_not_fire(app):
    autos = Automations(app.db)
    before, pause = autos.ensure("claude-code", "s1")
    autos.set_status(before.id, "paused")
    assert autos.report(rep(0.9)) == []
    autos.set_status(before.id[:10], "active")          # a unique prefix is enough
    assert [f.fire for f in autos.report(rep(0.91, T0 + timedelta(seconds=1)))] == [1]
    autos.set_status(pause.id, "deleted")
    assert [a.id for a in autos.list()] == [before.id]
    assert len(autos.list(include_deleted=True)) == 2
    autos.ensure("claude-code", "s1")                    # a later report does not revive it
    assert autos.get(pause.id).status == "deleted"
    with pytest.raises(BadInput):
        autos.set_status(pause.id, "active")
    with pytest.raises(BadInput):
        autos.get("auto-nope")


def test_no_context_figure_changes_nothing(app):
    autos = Automations(app.db)
    autos.report(rep(0.9))
    assert autos.report(rep(None, T0 + timedelta(minutes=1))) == []
    # unknown context does not re-arm: the next high report is the same crossing
    assert autos.report(rep(0.9, T0 + timedelta(minutes=2))) == []
    assert len(entries(app)) == 1


def _hook(dream_proc, cwd, payload, *args):
    return dream_proc("hook", *args, cwd=cwd, input=json.dumps(payload))


def test_state_survives_restarts_across_processes(repo, dream_proc, tmp_path):
    assert dream_proc("init", cwd=repo).returncode == 0
    high = tmp_path / "high.jsonl"
    high.write_text(json.dumps({"type": "assistant", "message": {"usage": {
        "input_tokens": 10, "cache_read_input_tokens": 150_000, "output_tokens": 90}}}) + "\n")
    low = tmp_path / "low.jsonl"
    low.write_text(json.dumps({"type": "assistant", "message": {"usage": {
        "input_tokens": 10, "cache_read_input_tokens": 20_000}}}) + "\n")
    payload = {"session_id": "proc-1", "transcript_path": str(high), "cwd": str(repo),
               "hook_event_name": "UserPromptSubmit"}
    first = _hook(dream_proc, repo, payload)
    assert first.returncode == 0, first.stderr
    assert "Dream before compaction" in first.stdout          # the agent is woken
    # the same report replayed by a new process: nothing new
    again = _hook(dream_proc, repo, payload, "--json")
    assert json.loads(again.stdout)["fires"] == []
    listed = json.loads(dream_proc("automations", "list", "--json", cwd=repo).stdout)
    before = next(a for a in listed if a["kind"] == "before_compaction")
    assert before["fires"] == 1 and before["armed"] is False
    # pause it in one process; a new crossing in another process does not fire
    assert dream_proc("automations", "pause", before["id"], cwd=repo).returncode == 0
    _hook(dream_proc, repo, {**payload, "transcript_path": str(low)})
    out = _hook(dream_proc, repo, {**payload, "transcript_path": str(high), "n": 2}, "--json")
    assert json.loads(out.stdout)["fires"] == []
    state = json.loads(dream_proc("automations", "list", "--json", cwd=repo).stdout)
    assert next(a for a in state if a["id"] == before["id"])["status"] == "paused"
    assert dream_proc("automations", "resume", before["id"], cwd=repo).returncode == 0
    _hook(dream_proc, repo, {**payload, "transcript_path": str(low), "n": 3})
    out = _hook(dream_proc, repo, {**payload, "transcript_path": str(high), "n": 4}, "--json")
    assert [f["fire"] for f in json.loads(out.stdout)["fires"]] == [2]
    deleted = dream_proc("automations", "delete", before["id"], "--json", cwd=repo)
    assert json.loads(deleted.stdout)[0]["status"] == "deleted"
    listed = json.loads(dream_proc("automations", "list", "--json", cwd=repo).stdout)
    assert [a["kind"] for a in listed] == ["after_pause"]
    bad = dream_proc("automations", "pause", "auto-missing", cwd=repo)
    assert bad.returncode != 0 and "dream automations list" in bad.stderr
    assert "Traceback" not in bad.stderr


def test_thresholds_come_from_config(app):
    app.config.data["automations"] = {"before_compaction": 0.9, "pause_hours": 1}
    autos = Automations(app.db, app.config)
    before, pause = autos.ensure("claude-code", "cfg")
    assert (before.threshold, pause.idle_hours) == (0.9, 1.0)
    assert autos.report(rep(0.85, session="cfg")) == []
    assert [f.name for f in autos.report(rep(0.95, T0 + timedelta(hours=2), session="cfg"))] \
        == ["Dream before compaction", "Dream after a pause"]


def test_an_id_with_like_wildcards_is_taken_literally(app):
    """'dream automations delete %' (or '_') matched every id through SQL LIKE and took
    the one automation there was; the characters are part of the id asked for."""
    autos = Automations(app.db)
    (only, _other) = autos.ensure("claude-code", "s1", "proj-1")
    for wild in ("%", "_", only.id[:5] + "%", "\\"):
        with pytest.raises(BadInput, match="no automation"):
            autos.get(wild)
    assert autos.get(only.id[:len(only.id) - 1]).id == only.id      # a real start still does
    assert [a.status for a in autos.list()] == ["active", "active"]
