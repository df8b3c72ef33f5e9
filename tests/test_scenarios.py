"""End-to-end scenarios through the CLI: the dream run's promises, each with the scripted
provider and, where it can, the rules provider. Inputs are generic JSONL chat files in
tests/scenarios/, collected through the real collector."""

from __future__ import annotations

import json
import shutil
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from conftest import git

from dream.kinds.records import Record

SCENARIOS = Path(__file__).parent / "scenarios"


def collect(path: Path) -> None:
    """``dream collect --source jsonl PATH`` through the CLI, like a user would."""
    from conftest import Dream

    out = json.loads(Dream()("collect", "--source", "jsonl", str(path), "--json").output)
    assert out["new_items"] >= 1, out


def stage(tmp_path: Path, name: str, lines: list[dict] | None = None) -> Path:
    """Copy a scenario file (or write ``lines``) into the test's folder and collect it."""
    target = tmp_path / "inbox" / (name if name.endswith(".jsonl") else name + ".jsonl")
    target.parent.mkdir(parents=True, exist_ok=True)
    if lines is None:
        shutil.copy(SCENARIOS / name, target)
    else:
        target.write_text("".join(json.dumps(x) + "\n" for x in lines), encoding="utf-8")
    collect(target)
    return target


def script(tmp_path: Path, name: str, *answers: dict) -> str:
    path = tmp_path / f"{name}.answers.jsonl"
    path.write_text("".join(json.dumps(a) + "\n" for a in answers), encoding="utf-8")
    return f"scripted:{path}"


def records(home: Path, folder: str) -> dict[str, Record]:
    out = {}
    for p in sorted((home / "notes" / "user" / folder).glob("*.md")):
        rec = Record.loads(p.read_text(encoding="utf-8"))
        assert rec is not None, p
        out[rec.key] = rec
    return out


def store_bytes(home: Path) -> dict[str, bytes]:
    root = home / "notes"
    return {str(p.relative_to(root)): p.read_bytes() for p in sorted(root.rglob("*"))
            if p.is_file() and ".git" not in p.relative_to(root).parts}


def run_json(dream, *args: str, ok: bool = True) -> dict:
    result = dream("run", "--json", *args, ok=ok)
    return json.loads(result.output)


def fields(**kw: str) -> list[dict]:
    return [{"name": k, "value": v} for k, v in kw.items()]


# -- three messages about one dinner across three streams make one event -----------------------
def test_dinner_across_three_streams_is_one_event_rules(dream, repo, dream_home, tmp_path):
    dream("init")
    stage(tmp_path, "dinner_three_streams.jsonl")
    out = run_json(dream, "--model", "rules")
    assert out["status"] == "ok" and out["items"] == 3 and out["bundles"] == 1
    events = records(dream_home, "events")
    assert list(events) == ["dinner-nobu-2026-03-13"]
    ev = events["dinner-nobu-2026-03-13"]
    assert ev.get("date") == "2026-03-13" and ev.get("time") == "19:00"
    assert ev.get("place") == "Nobu" and ev.get("status") == "confirmed"
    assert "Jordan" in ev.get("participants")
    assert len(ev.evidence()) == 3            # all three messages are cited
    brief = (dream_home / "notes" / "user" / "brief.md").read_text()
    assert "[events/dinner-nobu-2026-03-13.md]" in brief
    log = git(dream_home / "notes", "log", "-1", "--format=%B")
    assert f"Dream-Run: {out['id']}" in log and log.count("Dream-Evidence:") == 3


def test_dinner_across_three_streams_is_one_event_scripted(dream, repo, dream_home, tmp_path):
    dream("init")
    stage(tmp_path, "dinner_three_streams.jsonl")
    # two ops for one dinner (as two bundles might propose it) collide on the key
    model = script(tmp_path, "dinner", {"ops": [
        {"op": "event.upsert", "name": "dinner jordan 2026-03-13",
         "fields": fields(title="Dinner with Jordan", date="2026-03-13", time="19:00",
                          place="Nobu", participants="Jordan", status="proposed"),
         "evidence": ["E1", "E2"]},
        {"op": "event.upsert", "name": "Dinner Jordan 2026-03-13",
         "fields": fields(status="confirmed"), "evidence": ["E3"]},
        {"op": "note.add", "name": "invented", "fields": fields(text="made up"),
         "evidence": ["E9"]},
    ]})
    out = run_json(dream, "--model", model, "--no-sweep")
    events = records(dream_home, "events")
    assert list(events) == ["dinner-jordan-2026-03-13"]
    assert events["dinner-jordan-2026-03-13"].get("status") == "confirmed"
    assert out["details"]["dropped"] == {"unknown_evidence": 1}
    assert not (dream_home / "notes" / "user" / "notes").exists()


# -- cancel one booking, make another ---------------------------------------------------------
def test_cancel_and_rebook_rules(dream, repo, dream_home, tmp_path):
    dream("init")
    stage(tmp_path, "cancel_rebook.jsonl")
    run_json(dream, "--model", "rules")
    events = records(dream_home, "events")
    nobu = [e for e in events.values() if e.get("place") == "Nobu"]
    zuma = [e for e in events.values() if e.get("place") == "Zuma"]
    assert len(nobu) == 1 and len(zuma) == 1 and len(events) == 2
    assert nobu[0].get("status") == "declined"
    assert zuma[0].get("status") == "confirmed"
    assert zuma[0].get("date") == nobu[0].get("date") == "2026-03-13"


def test_cancel_and_rebook_scripted_older_notice_cannot_undo(dream, repo, dream_home,
                                                            tmp_path):
    dream("init")
    stage(tmp_path, "cancel_rebook.jsonl")
    model = script(tmp_path, "rebook", {"ops": [
        {"op": "event.upsert", "name": "dinner nobu", "evidence": ["E1"],
         "fields": fields(title="Dinner at Nobu", date="2026-03-13", status="confirmed")},
        {"op": "event.upsert", "name": "dinner nobu", "evidence": ["E2"],
         "fields": fields(status="declined")},
        {"op": "event.upsert", "name": "dinner zuma", "evidence": ["E2"],
         "fields": fields(title="Dinner at Zuma", date="2026-03-13", status="confirmed")},
    ]})
    run_json(dream, "--model", model, "--no-sweep")
    events = records(dream_home, "events")
    assert events["dinner-nobu"].get("status") == "declined"
    assert events["dinner-zuma"].get("status") == "confirmed"
    # an older notice (said before the rebooking) collected later cannot revive Nobu
    stage(tmp_path, "late_notice", [{
        "id": "late", "time": "2026-03-10T09:00:00Z", "stream": "mail-nobu", "role": "other",
        "author": "Nobu", "text": "Reminder: your table at Nobu on Friday is confirmed."}])
    model2 = script(tmp_path, "late", {"ops": [
        {"op": "event.upsert", "row": "R1", "evidence": ["E1"],
         "fields": fields(status="confirmed")}]})
    out = run_json(dream, "--model", model2, "--no-sweep")
    events = records(dream_home, "events")
    assert events["dinner-nobu"].get("status") == "declined"
    assert out["details"]["apply"].get("stale") == 1


# -- a correction during the day -----------------------------------------------------------------
def _future(minutes: int) -> str:
    return (datetime.now(UTC) + timedelta(minutes=minutes)).strftime("%Y-%m-%dT%H:%M:%SZ")


@pytest.mark.parametrize("provider", ["rules", "scripted"])
def test_correction_survives_older_but_not_newer_evidence(provider, dream, repo, dream_home,
                                                          tmp_path):
    dream("init")
    stage(tmp_path, "day1", [{"id": "d1", "time": "2026-03-09T18:00:00Z", "stream": "sms-jordan",
                              "role": "other", "author": "Jordan",
                              "text": "Dinner at Nobu on Friday at 7pm? I booked a table."}])
    def answers(name: str, *ops: dict) -> str:
        return script(tmp_path, name, {"ops": list(ops)})

    model = "rules" if provider == "rules" else answers("a1", {
        "op": "event.upsert", "name": "dinner nobu 2026-03-13", "evidence": ["E1"],
        "fields": fields(title="Dinner at Nobu", activity="dinner", date="2026-03-13",
                         time="19:00", place="Nobu", participants="Jordan")})
    run_json(dream, "--model", model)
    key = "dinner-nobu-2026-03-13"
    assert records(dream_home, "events")[key].get("time") == "19:00"

    out = json.loads(dream("correct", f"@user/events/{key}", "time", "20:00", "--json").output)
    assert out["status"] == "ok" and out["commit"]
    ev = records(dream_home, "events")[key]
    assert ev.get("time") == "20:00" and ev.fields["time"].evidence == [out["item"]]
    assert ev.fields["time"].pass_ == "correct"
    assert ev.fields["time"].acted_on == 1 and ev.version == 2    # the row version it acted on

    # an older message collected later cannot undo the correction ...
    stage(tmp_path, "older", [{"id": "d0", "time": "2026-03-09T18:30:00Z", "stream": "sms-jordan",
                               "role": "other", "author": "Jordan",
                               "text": "So dinner at Nobu Friday at 7pm, right?"}])
    model = "rules" if provider == "rules" else answers("a2", {
        "op": "event.upsert", "row": "R1", "evidence": ["E1"], "fields": fields(time="19:00")})
    out2 = run_json(dream, "--model", model, "--mode", "nightly")
    ev = records(dream_home, "events")[key]
    assert ev.get("time") == "20:00" and out2["details"]["apply"]["stale"] >= 1
    assert ev.fields["time"].evidence == [out["item"]]        # same identity, same evidence
    assert list(records(dream_home, "events")) == [key]

    # ... while genuinely newer evidence still can
    stage(tmp_path, "newer", [{"id": "d2", "time": _future(2), "stream": "sms-jordan",
                               "role": "other", "author": "Jordan",
                               "text": "Running late, let's do dinner at Nobu at 9pm instead."}])
    model = "rules" if provider == "rules" else answers("a3", {
        "op": "event.upsert", "row": "R1", "evidence": ["E1"], "fields": fields(time="21:00")})
    run_json(dream, "--model", model)
    assert records(dream_home, "events")[key].get("time") == "21:00"
    assert list(records(dream_home, "events")) == [key]


# -- an assistant's wrong answer ----------------------------------------------------------------
@pytest.mark.parametrize("provider", ["rules", "scripted"])
def test_wrong_assistant_answer_stays_wrong_until_real_evidence(provider, dream, repo,
                                                                dream_home, tmp_path):
    dream("init")
    stage(tmp_path, "wrong_assistant.jsonl")
    model = "rules" if provider == "rules" else script(tmp_path, "w", {"ops": [
        {"op": "event.upsert", "name": "dinner nobu 2026-03-13", "evidence": ["E1"],
         "fields": fields(title="Dinner at Nobu", activity="dinner", date="2026-03-13",
                          participants="Jordan")},
        # a model that believed the assistant: cites assistant prose, must be dropped
        {"op": "event.upsert", "name": "dinner nobu 2026-03-13", "evidence": ["E3"],
         "fields": fields(date="2026-03-12", time="18:00")},
        {"op": "note.add", "name": "correction", "evidence": ["E2", "E3"],
         "fields": fields(text="Dinner is Thursday", type="correction")},
    ]})
    out = run_json(dream, "--model", model, "--no-sweep")
    events = records(dream_home, "events")
    assert len(events) == 1
    ev = next(iter(events.values()))
    assert ev.get("date") == "2026-03-13"
    assistant_ids = {r[0] for r in _items(dream_home, "role = 'assistant'")}
    assert not (set(ev.evidence()) & assistant_ids)
    if provider == "scripted":
        assert out["details"]["dropped"]["assistant_prose"] == 2
    # reprocessing never promotes it into a correction
    run_json(dream, "--model", model, "--redo", "--no-sweep")
    assert records(dream_home, "events")[ev.key].get("date") == "2026-03-13"
    notes = records(dream_home, "notes")
    assert not any("Thursday" in n.get("text") for n in notes.values())

    stage(tmp_path, "wrong_assistant_fix.jsonl")
    model = "rules" if provider == "rules" else script(tmp_path, "w2", {"ops": [
        {"op": "event.upsert", "row": "R1", "evidence": ["E1"],
         "fields": fields(date="2026-03-14")}]})
    run_json(dream, "--model", model, "--no-sweep")
    ev = records(dream_home, "events")[ev.key]
    assert ev.get("date") == "2026-03-14"
    assert not (set(ev.evidence()) & assistant_ids)


def _items(home: Path, where: str) -> list[tuple]:
    import sqlite3

    conn = sqlite3.connect(home / "dream.db")
    try:
        return conn.execute(f"SELECT id, processed_by, claimed_by FROM items WHERE {where}"
                            ).fetchall()
    finally:
        conn.close()


# -- --redo three times --------------------------------------------------------------------------
@pytest.mark.parametrize("provider", ["rules", "scripted"])
def test_redo_three_times_is_byte_identical(provider, dream, repo, dream_home, tmp_path):
    dream("init")
    stage(tmp_path, "dinner_three_streams.jsonl")
    stage(tmp_path, "cancel_rebook.jsonl")
    stage(tmp_path, "coding_session.jsonl")
    model = "rules" if provider == "rules" else script(tmp_path, "r", {"ops": [
        {"op": "event.upsert", "name": "dinner jordan", "evidence": ["E1", "E2"],
         "fields": fields(title="Dinner with Jordan", date="2026-03-13", status="confirmed")},
        {"op": "note.add", "name": "uv pytest", "evidence": ["E3"],
         "fields": fields(text="Always use uv run pytest", type="directive")},
        {"op": "todo.open", "name": "book flowers", "evidence": ["E4"],
         "fields": fields(title="Book flowers")}]})
    first = run_json(dream, "--model", model)
    assert first["status"] == "ok"
    before = store_bytes(dream_home)
    head = git(dream_home / "notes", "rev-parse", "HEAD")
    for _ in range(3):
        out = run_json(dream, "--model", model, "--redo")
        assert out["status"] == "ok" and out["items"] == first["items"]
        assert out["commit"] is None
        assert store_bytes(dream_home) == before
    assert git(dream_home / "notes", "rev-parse", "HEAD") == head
    assert len(before) > 2


# -- a run killed in the middle of apply ---------------------------------------------------------
def test_run_killed_in_apply_leaves_store_and_can_be_retried(dream, dream_proc, repo,
                                                             dream_home, tmp_path, monkeypatch):
    dream("init")
    stage(tmp_path, "dinner_three_streams.jsonl")
    notes = dream_home / "notes"
    head = git(notes, "rev-parse", "HEAD")
    monkeypatch.setenv("DREAM_TEST_KILL_AT", "apply")
    proc = dream_proc("run", "--model", "rules", cwd=repo)
    assert proc.returncode == -9, proc.stderr
    monkeypatch.delenv("DREAM_TEST_KILL_AT")
    assert git(notes, "rev-parse", "HEAD") == head
    assert git(notes, "branch", "--list", "dream/run/*") == ""
    assert git(notes, "status", "--porcelain") == ""
    assert not (notes / "user" / "events").exists()
    runs = json.loads(dream("runs", "--json").output)
    assert runs[0]["status"] == "running"
    killed = runs[0]["id"]
    # the lock of the dead run refuses a new one and says how to clear it
    refused = dream_proc("run", "--retry", killed, cwd=repo)
    assert refused.returncode == 1 and "rm " in refused.stderr and "Traceback" not in refused.stderr
    for lock in notes.glob(".dream.lock.*"):
        lock.unlink()
    done = dream_proc("run", "--retry", killed, "--json", cwd=repo)
    assert done.returncode == 0, done.stderr
    out = json.loads(done.stdout)
    assert out["status"] == "ok" and out["items"] == 3 and out["commit"]
    assert list(records(dream_home, "events")) == ["dinner-nobu-2026-03-13"]
    statuses = {r["id"]: r["status"] for r in json.loads(dream("runs", "--json").output)}
    assert statuses[killed] == "failed"


# -- a dry run ----------------------------------------------------------------------------------
def test_dry_run_calls_nothing_and_writes_only_its_run_row(dream, repo, dream_home, tmp_path):
    dream("init")
    stage(tmp_path, "dinner_three_streams.jsonl")
    model = script(tmp_path, "dry", {"ops": []})
    notes = dream_home / "notes"
    head = git(notes, "rev-parse", "HEAD")
    before = store_bytes(dream_home)
    out = run_json(dream, "--model", model, "--dry-run")
    assert out["status"] == "priced" and out["items"] == 3 and out["bundles"] == 1
    assert out["calls"] == 2 and out["input_tokens"] > 0 and out["commit"] is None
    assert not (tmp_path / "dry.answers.jsonl.calls.jsonl").exists()   # no call was made
    assert git(notes, "rev-parse", "HEAD") == head and store_bytes(dream_home) == before
    assert all(p is None and c is None for _, p, c in _items(dream_home, "1"))
    runs = json.loads(dream("runs", "--json").output)
    assert [r["status"] for r in runs] == ["priced"]
    # with a hosted model's price the estimate has a cost
    out = run_json(dream, "--model", "openai:gpt-4o-mini", "--dry-run")
    assert out["cost_usd"] > 0


# -- editing a record by hand is a correction too --------------------------------------------
def test_hand_edit_survives_older_evidence(dream, repo, dream_home, tmp_path):
    dream("init")
    stage(tmp_path, "day1", [{"id": "h1", "time": "2026-03-09T18:00:00Z", "stream": "sms-jordan",
                              "role": "other", "author": "Jordan",
                              "text": "Dinner at Nobu on Friday at 7pm? I booked a table."}])
    run_json(dream, "--model", "rules")
    key = "dinner-nobu-2026-03-13"
    path = dream_home / "notes" / "user" / "events" / f"{key}.md"
    path.write_text(path.read_text().replace("- time: 19:00", "- time: 20:30"))
    stage(tmp_path, "older", [{"id": "h0", "time": "2026-03-09T18:30:00Z", "stream": "sms-jordan",
                               "role": "other", "author": "Jordan",
                               "text": "So dinner at Nobu Friday at 7pm, right?"}])
    out = run_json(dream, "--model", "rules")
    ev = records(dream_home, "events")[key]
    assert ev.get("time") == "20:30" and ev.fields["time"].pass_ == "edit"
    assert ev.fields["time"].evidence[0].startswith("commit:")
    assert out["details"]["apply"]["stale"] >= 1
    assert git(dream_home / "notes", "status", "--porcelain") == ""
    log = git(dream_home / "notes", "log", "-1", "--format=%B")
    assert "Dream-Pass: edit" in log and "Dream-Evidence: commit:" in log
    # and the next run leaves it alone (byte-identical without new items)
    before = path.read_bytes()
    run_json(dream, "--model", "rules", "--redo")
    assert path.read_bytes() == before
