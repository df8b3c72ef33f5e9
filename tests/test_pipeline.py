"""The dream run's parts: review mode and the runs view, malformed answers, the brief's
token cap, packing, provenance, locks, and the rules provider on text."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from conftest import git
from test_scenarios import fields, records, run_json, script, stage

from dream import tokens
from dream.kinds.records import Record


def test_review_mode_leaves_the_branch_and_runs_show_its_diff(dream, repo, dream_home,
                                                              tmp_path):
    dream("init")
    stage(tmp_path, "dinner_three_streams.jsonl")
    notes = dream_home / "notes"
    head = git(notes, "rev-parse", "HEAD")
    out = run_json(dream, "--model", "rules", "--apply", "review")
    assert out["status"] == "ok" and out["branch"] == f"dream/run/{out['id']}"
    assert git(notes, "rev-parse", "HEAD") == head                 # not promoted
    assert git(notes, "rev-parse", out["branch"]) == out["commit"]
    assert not (notes / "user" / "events").exists()
    listed = json.loads(dream("runs", "--json").output)
    assert listed[0]["id"] == out["id"] and listed[0]["branch"] == out["branch"]
    for key in ("id", "mode", "status", "items", "bundles", "calls", "input_tokens",
                "output_tokens", "cached_tokens", "cost_usd", "commit", "branch", "duration_s"):
        assert key in listed[0]
    shown = json.loads(dream("runs", "show", out["id"], "--json").output)
    assert "user/events/dinner-nobu-2026-03-13.md" in shown["diff_stat"]
    text = dream("runs", "show", out["id"][:15]).output
    assert "dinner-nobu-2026-03-13.md" in text and "status:" in text
    table = dream("runs").output
    assert out["id"] in table and "dream/run/" in table


def test_a_run_left_for_review_is_promoted_or_discarded_by_a_person(dream, repo, dream_home,
                                                                     tmp_path):
    dream("init")
    stage(tmp_path, "dinner_three_streams.jsonl")
    notes = dream_home / "notes"
    out = run_json(dream, "--model", "rules", "--apply", "review")
    # the store moves on meanwhile (a note written by hand): promotion merges, not overwrites
    dream("notes", "write", "@user/scratch", "written while the run waited")
    moved = git(notes, "rev-parse", "HEAD")
    promoted = json.loads(dream("runs", "promote", out["id"], "--json").output)
    assert promoted["details"]["decision"] == "promoted"
    head = git(notes, "rev-parse", "HEAD")
    assert git(notes, "merge-base", "--is-ancestor", out["commit"], head) == ""
    assert git(notes, "merge-base", "--is-ancestor", moved, head) == ""
    assert (notes / "user" / "events" / "dinner-nobu-2026-03-13.md").exists()
    assert (notes / "user" / "scratch.md").exists()
    assert "Dream-Run: " + out["id"] in git(notes, "log", "-1", "--format=%B")
    again = dream("runs", "promote", out["id"], ok=False)
    assert again.exit_code == 1 and "already promoted" in again.output


def test_a_run_is_not_merged_into_a_store_whose_history_scrub_was_interrupted(
        dream, repo, dream_home, tmp_path):
    """Promoting a run into a store that moved merges it in a new commit: like every other
    store write it is refused, in one line, while a history scrub of the store is half-done
    (the work tree may still hold the secret); the store and the run are left as they were."""
    dream("init")
    stage(tmp_path, "dinner_three_streams.jsonl")
    notes = dream_home / "notes"
    out = run_json(dream, "--model", "rules", "--apply", "review")
    dream("notes", "write", "@user/scratch", "written while the run waited")
    moved = git(notes, "rev-parse", "HEAD")
    (notes / ".git" / "dream-scrub-pending").write_text("{}", encoding="utf-8")
    refused = dream("runs", "promote", out["id"], ok=False)
    assert refused.exit_code != 0 and "Traceback" not in refused.output
    assert "history scrub" in refused.output and "interrupted" in refused.output
    assert git(notes, "rev-parse", "HEAD") == moved
    assert json.loads(dream("runs", "show", out["id"], "--json").output)["decision"] \
        == "awaiting review"


def test_a_reverted_run_says_reverted_and_by_which_commit(dream, repo, dream_home, tmp_path):
    """After 'dream revert RUN' the runs view no longer calls the run promoted: it says
    reverted and names the commit that rolled it back (table, show, --json); a run left
    for review, promoted and then reverted says the same."""
    dream("init")
    notes = dream_home / "notes"
    stage(tmp_path, "dinner_three_streams.jsonl")
    auto = run_json(dream, "--model", "rules")
    assert json.loads(dream("runs", "show", auto["id"], "--json").output)["decision"] \
        == "promoted"
    said = dream("revert", auto["id"]).output
    back = git(notes, "rev-parse", "HEAD")
    assert f"run {auto['id']} is now marked reverted" in said
    shown = json.loads(dream("runs", "show", auto["id"], "--json").output)
    assert shown["decision"] == "reverted"
    assert list(shown["details"]["reverted_by"].values()) == [back]
    text = dream("runs", "show", auto["id"]).output
    assert "promoted" not in text
    assert "decision:       reverted" in text and f"reverted by:    {back[:12]}" in text
    row = next(line for line in dream("runs").output.splitlines() if auto["id"] in line)
    assert " reverted " in row and "promoted" not in row

    again = dream("revert", auto["id"]).output         # a second time: the same revert
    assert f"-> {back[:12]}" in again and git(notes, "rev-parse", "HEAD") == back
    # ... also after later, unrelated commits: the note written since is not named as the
    # revert, and the run keeps the commit that really reverted it
    later = json.loads(dream("notes", "write", "@user/later", "a later note",
                             "--json").output)["commit"]
    again = dream("revert", auto["id"]).output
    assert f"-> {back[:12]}" in again and later[:12] not in again
    assert git(notes, "rev-parse", "HEAD") == later
    shown = json.loads(dream("runs", "show", auto["id"], "--json").output)
    assert list(shown["details"]["reverted_by"].values()) == [back]

    stage(tmp_path, "cancel_rebook.jsonl")
    waited = run_json(dream, "--model", "rules", "--apply", "review")
    early = dream("revert", waited["id"], ok=False)   # not promoted: nothing on the main line
    assert early.exit_code == 1 and "was left for review" in early.output
    assert f"dream runs discard {waited['id']}" in early.output
    dream("runs", "promote", waited["id"])
    dream("revert", waited["id"])
    shown = json.loads(dream("runs", "show", waited["id"], "--json").output)
    assert shown["decision"] == "reverted"
    assert shown["details"]["reverted_by"] and shown["details"]["decision"] == "promoted"
    assert json.loads(dream("runs", "show", auto["id"], "--json").output)["details"][
        "reverted_by"] == {notes_id(dream_home): back}             # the first one is unchanged


def notes_id(dream_home: Path) -> str:
    text = (dream_home / "notes" / ".dream" / "store.toml").read_text()
    return next(line.split("=", 1)[1].strip().strip('"') for line in text.splitlines()
                if line.startswith("id"))


def test_a_brief_rendered_on_both_sides_is_rendered_again_when_promoting(
        dream, repo, dream_home, tmp_path):
    """A note written while a run waits for review re-renders the brief on the main line,
    and the run rendered its own: the two briefs are no conflict of content, so the merge
    renders the brief again from the merged records and notes."""
    dream("init")
    notes = dream_home / "notes"
    stage(tmp_path, "dinner_three_streams.jsonl")
    run_json(dream, "--model", "rules")                    # applied: user/brief.md exists
    dream("notes", "write", "@user/before", "written before the second run")
    stage(tmp_path, "cancel_rebook.jsonl")
    out = run_json(dream, "--model", "rules", "--apply", "review")
    dream("notes", "write", "@user/scratch", "written while the run waited")
    promoted = json.loads(dream("runs", "promote", out["id"], "--json").output)
    assert promoted["details"]["decision"] == "promoted"
    brief = (notes / "user" / "brief.md").read_text()
    assert "- written while the run waited [scratch.md]" in brief and "Nobu" in brief
    assert "- written before the second run [before.md]" in brief
    assert git(notes, "status", "--porcelain") == ""
    assert "Dream-Run: " + out["id"] in git(notes, "log", "-1", "--format=%B")


def test_promoting_over_newer_conflicting_content_is_refused(dream, repo, dream_home,
                                                            tmp_path):
    dream("init")
    stage(tmp_path, "dinner_three_streams.jsonl")
    notes = dream_home / "notes"
    out = run_json(dream, "--model", "rules", "--apply", "review")
    mine = notes / "user" / "events" / "dinner-nobu-2026-03-13.md"
    mine.parent.mkdir(parents=True)
    mine.write_text("---\ntitle: my own version\n---\nwritten by hand\n")
    git(notes, "add", "-A")
    git(notes, "commit", "-q", "-m", "hand edit")
    head = git(notes, "rev-parse", "HEAD")
    refused = dream("runs", "promote", out["id"], ok=False)
    assert refused.exit_code == 1 and "never overwritten" in refused.output
    assert git(notes, "rev-parse", "HEAD") == head
    assert git(notes, "status", "--porcelain") == ""
    assert mine.read_text().endswith("written by hand\n")
    assert not list(notes.glob(".dream.lock.*"))


def test_a_discarded_run_changes_nothing_and_keeps_its_branch(dream, repo, dream_home,
                                                              tmp_path):
    dream("init")
    stage(tmp_path, "dinner_three_streams.jsonl")
    notes = dream_home / "notes"
    head = git(notes, "rev-parse", "HEAD")
    out = run_json(dream, "--model", "rules", "--apply", "review")
    dream("runs", "discard", out["id"])
    assert git(notes, "rev-parse", "HEAD") == head
    assert git(notes, "rev-parse", out["branch"]) == out["commit"]
    assert "discarded" in dream("runs", "show", out["id"], "--json").output
    auto = run_json(dream, "--model", "rules", "--redo")
    refused = dream("runs", "promote", auto["id"], ok=False)
    assert refused.exit_code == 1 and "not waiting for review" in refused.output


def test_malformed_answer_twice_fails_the_run_and_applies_nothing(dream, repo, dream_home,
                                                                  tmp_path):
    """Every call of the run failed, so nothing was written: the run is failed and exits 1
    (a scheduled job must see it), and its items are given back for --retry."""
    dream("init")
    stage(tmp_path, "dinner_three_streams.jsonl")
    model = script(tmp_path, "bad", {"data": "malformed"}, {"data": {"ops": [{"op": "nope"}]}})
    head = git(dream_home / "notes", "rev-parse", "HEAD")
    result = dream("run", "--json", "--model", model, ok=False)
    out = json.loads(result.output)
    assert result.exit_code == 1
    assert out["status"] == "failed" and out["commit"] is None
    assert "invalid answer twice" in out["error"]
    assert git(dream_home / "notes", "rev-parse", "HEAD") == head
    # the items were given back: a later run (or --retry) reads them again
    again = run_json(dream, "--retry", out["id"], "--model", "rules")
    assert again["status"] == "ok" and again["items"] == 3
    assert list(records(dream_home, "events")) == ["dinner-nobu-2026-03-13"]


def test_provenance_is_in_the_file_and_trailers_name_the_evidence(dream, repo, dream_home,
                                                                  tmp_path):
    dream("init")
    stage(tmp_path, "coding_session.jsonl")
    out = run_json(dream, "--model", "rules")
    notes = records(dream_home, "notes")
    kinds = {n.get("type") for n in notes.values()}
    assert {"correction", "directive", "preference", "failure"} <= kinds
    failure = next(n for n in notes.values() if n.get("type") == "failure")
    assert "ModuleNotFoundError: No module named 'requests'" in failure.get("text")
    assert len(failure.fields["text"].evidence) == 2          # both tracebacks collide
    for note in notes.values():
        for fv in note.fields.values():
            assert fv.said_at.startswith("2026-03-02") and fv.run == out["id"]
            assert fv.pass_ in ("propose", "sweep") and fv.version >= 1 and fv.evidence
    # never the assistant's words
    assert not any("npm test now" in n.get("text") for n in notes.values())
    body = git(dream_home / "notes", "log", "-1", "--format=%B")
    assert "Dream-Pass: propose" in body and "Dream-Evidence:" in body


def test_brief_respects_the_token_cap(dream, repo, dream_home, tmp_path):
    dream("init")
    lines = [{"id": f"n{i}", "time": f"2026-03-0{1 + i % 9}T10:{i % 60:02d}:00Z",
              "stream": f"s{i}", "role": "user",
              "text": f"From now on always format report number {i} with the long header "
                      f"style, including section {i} and appendix {i}."} for i in range(60)]
    stage(tmp_path, "many", lines)
    run_json(dream, "--model", "rules", "--brief-tokens", "200", "--no-sweep")
    brief = (dream_home / "notes" / "user" / "brief.md").read_text()
    assert tokens.count(brief) <= 200
    assert "left out to stay within 200 tokens" in brief
    assert brief.count("[notes/") >= 3


def test_pack_tokens_from_env_sets_calls(dream, repo, dream_home, tmp_path, monkeypatch):
    dream("init")
    filler = " ".join(f"word{n}" for n in range(120))
    lines = [{"id": f"p{i}", "time": f"2026-03-{1 + i:02d}T10:00:00Z", "stream": f"t{i}",
              "role": "user", "text": f"Remember that server {i} runs on port {8000 + i}. "
                                      + filler} for i in range(7)]
    stage(tmp_path, "packed", lines)
    monkeypatch.setenv("DREAM_PACK_TOKENS", "700")     # two bundles of ~300 tokens a call
    out = run_json(dream, "--model", "rules", "--dry-run")
    assert out["bundles"] == 7 and out["calls"] == 4 + 1      # ceil(7/2) + at most a sweep
    assert out["cached_tokens"] == 0      # a prefix under 1,024 tokens is cached by no one
    out = run_json(dream, "--model", "rules", "--no-sweep")
    # the rules provider is code: it reads the whole run in one call, whatever the packing
    assert out["bundles"] == 7 and out["calls"] == 1
    monkeypatch.setenv("DREAM_PACK_TOKENS", "many")
    bad = dream("run", "--model", "rules", ok=False)
    assert bad.exit_code != 0 and "DREAM_PACK_TOKENS" in bad.output
    assert "Traceback" not in bad.output
    # past what --pack-tokens takes no model's context holds a call: refused the same way
    monkeypatch.setenv("DREAM_PACK_TOKENS", "5000000000")
    bad = dream("run", "--model", "rules", ok=False)
    assert bad.exit_code != 0 and "from 500 to 200,000" in bad.output
    assert "Traceback" not in bad.output


def test_a_run_refuses_while_an_interactive_dream_holds_the_lock(dream, repo, dream_home,
                                                                tmp_path):
    from dream.notes.dreaming import acquire_lock, release_lock

    dream("init")
    stage(tmp_path, "dinner_three_streams.jsonl")
    lock = acquire_lock(dream_home / "notes", "user", owner="test")
    result = dream("run", "--model", "rules", ok=False)
    # its holder (this process) is alive: in use, and no advice to remove the lock
    assert result.exit_code == 1 and "in use" in result.output and "rm " not in result.output
    assert "Traceback" not in result.output
    release_lock(lock)
    assert run_json(dream, "--model", "rules")["items"] == 3


def test_rounds_drain_the_spool(dream, repo, dream_home, tmp_path):
    dream("init")
    lines = [{"id": f"r{i}", "time": f"2026-03-01T1{i}:00:00Z", "stream": "s", "role": "user",
              "text": f"I prefer option {i} for the layout."} for i in range(5)]
    stage(tmp_path, "rounds", lines)
    result = dream("run", "--json", "--model", "rules", "--max-items", "2", "--rounds", "5")
    out = json.loads(result.output)
    assert out["rounds"] == 3 and out["items"] == 5 and out["status"] == "ok"
    assert [r["items"] for r in out["runs"]] == [2, 2, 1]
    assert all(r["status"] == "ok" for r in out["runs"])


def test_correct_rejects_bad_addresses_cleanly(dream, repo, dream_home, tmp_path):
    dream("init")
    for args, needle in ((["@user/events/nothing-here", "time", "20:00"], "no record"),
                         (["@user/../x", "time", "1"], "address"),
                         (["@user/random/thing", "f", "v"], "not a record")):
        result = dream("correct", *args, ok=False)
        assert result.exit_code == 1 and needle in result.output
        assert "Traceback" not in result.output


def test_unknown_model_and_missing_script_are_one_line_errors(dream, repo, tmp_path):
    dream("init")
    result = dream("run", "--model", "nonesuch", ok=False)
    assert result.exit_code == 1 and "unknown model provider" in result.output
    result = dream("run", "--model", f"scripted:{tmp_path / 'missing.jsonl'}", ok=False)
    assert result.exit_code == 1 and "does not exist" in result.output


def test_record_round_trip_and_body_rendered_from_fields():
    from dream.kinds.records import FieldValue

    rec = Record("event", "dinner-x", {
        "title": FieldValue("Dinner: x", "2026-01-01T00:00:00Z", ["a"], "r1", "propose"),
        "date": FieldValue("2026-01-02", "2026-01-01T00:00:00Z", ["a", "b"], "r1", "correct", 3),
    }, version=2)
    text = rec.dumps()
    back = Record.loads(text)
    assert back == rec and back.dumps() == text
    assert "- date: 2026-01-02" in text and text.startswith("---\nkind: event\n")
    assert Record.loads("# just markdown\n") is None


# -- the rules provider on text ------------------------------------------------------------------
def _rules(items: list[dict], rows: list[dict] | None = None) -> list[dict]:
    from dream.models.base import ModelRequest
    from dream.models.rules import RulesProvider

    for n, it in enumerate(items, 1):
        it.setdefault("handle", f"E{n}")
        it.setdefault("evidence", it.get("role") != "assistant")
        it.setdefault("kind", {"user": "statement", "assistant": "assistant",
                               "tool": "tool_result"}.get(it["role"], "message"))
        it.setdefault("said_at", "2026-03-09T10:00:00Z")
        it.setdefault("stream", "s")
        for key in ("author", "tool_name", "is_error"):
            it.setdefault(key, None)
        it.setdefault("entities", [])
    req = ModelRequest("propose", "", "", {}, payload={
        "rows": rows or [], "bundles": [{"id": "B1", "entities": [], "items": items}]})
    return RulesProvider().complete(req).data["ops"]


def test_rules_directives_preferences_and_no_noise():
    ops = _rules([
        {"role": "user", "text": "Please fix the bug in parser.py and run the tests."},
        {"role": "user", "text": "From now on, always use tabs in Makefiles."},
        {"role": "user", "text": "I prefer short answers without preamble."},
        {"role": "user", "text": "```\nnever = True\n```"},
    ])
    texts = {(o["op"], next(f["value"] for f in o["fields"] if f["name"] == "type"))
             for o in ops}
    assert texts == {("note.add", "directive"), ("note.add", "preference")}


def test_rules_correction_needs_an_assistant_turn_before_it():
    ops = _rules([
        {"role": "assistant", "text": "I'll delete the migrations folder."},
        {"role": "user", "text": "No, keep the migrations; delete only the cache."},
    ])
    assert [o["op"] for o in ops] == ["note.add"]
    assert ops[0]["evidence"] == ["E2"]
    assert {"name": "type", "value": "correction"} in ops[0]["fields"]
    assert _rules([{"role": "user", "text": "No, keep the migrations; delete only the cache."}
                   ]) == []


def test_rules_todo_open_and_close_and_facts():
    ops = _rules([
        {"role": "other", "author": "Sam", "text": "Can you send me the invoice by Thursday?"},
        {"role": "user", "text": "I'm allergic to peanuts. My timezone is Europe/Lisbon."},
        {"role": "user", "said_at": "2026-03-10T10:00:00Z", "text": "Sent the invoice to Sam."},
    ])
    opened = next(o for o in ops if o["op"] == "todo.open")
    assert {"name": "due", "value": "2026-03-12"} in opened["fields"]
    assert {"name": "title", "value": "Send me the invoice"} in opened["fields"]
    closed = next(o for o in ops if o["op"] == "todo.close")
    assert closed["name"] == opened["name"] and closed["evidence"] == ["E3"]
    facts = {f["name"]: f["value"] for o in ops if o["op"] == "standing.set"
             for f in o["fields"]}
    assert facts == {"allergies": "peanuts", "timezone": "Europe/Lisbon"}


def test_rules_failure_signatures_collide_across_paths():
    tb = "Traceback (most recent call last):\n  File \"/a/{0}.py\", line {1}\nKeyError: 'user'"
    ops = _rules([
        {"role": "tool", "tool_name": "Bash", "is_error": True, "text": tb.format("x", 3)},
        {"role": "tool", "tool_name": "Bash", "is_error": True, "text": tb.format("y", 9)},
        {"role": "tool", "tool_name": "Bash", "is_error": False, "text": "ok: 3 passed"},
    ])
    assert len(ops) == 1 and ops[0]["evidence"] == ["E1", "E2"]
    assert "KeyError: 'user'" in ops[0]["fields"][0]["value"]


@pytest.mark.parametrize("text,date,time", [
    ("Dinner on Friday at 7pm at Nobu, booked!", "2026-03-13", "19:00"),
    ("Lunch tomorrow at 12:30 at Dishoom, see you there", "2026-03-10", "12:30"),
    ("Meeting on 14 March at 9am is confirmed", "2026-03-14", "09:00"),
])
def test_rules_event_fields(text, date, time):
    ops = _rules([{"role": "other", "author": "Jordan", "text": text}])
    values = {f["name"]: f["value"] for f in ops[0]["fields"]}
    assert values["date"] == date and values["time"] == time and values["status"] == "confirmed"
    assert "Jordan" in values["participants"]


def test_demo_runs_offline_and_prints_brief_and_runs(dream_proc, tmp_path):
    proc = dream_proc("demo", "--home", str(tmp_path / "demo"), cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    out = proc.stdout
    assert "projects/shop-api/brief.md" in out and "user/brief.md" in out
    assert "Dinner at Nobu" in out and "uv run pytest" in out
    assert "Lunch at Hoppers with Alex (confirmed)" in out
    assert "ModuleNotFoundError: No module named 'stripe'" in out
    assert "dream/run/" in out and " ok " in out
    notes = tmp_path / "demo" / "home" / "notes"
    assert git(notes, "status", "--porcelain") == ""
    assert (notes / "projects" / "shop-api" / "notes").is_dir()
    # the temporary variant cleans up after itself
    proc = dream_proc("demo", cwd=tmp_path)
    assert proc.returncode == 0 and "removed now" in proc.stdout
    assert Path(proc.stdout.split("Dream demo in ")[1].split(" ")[0]).exists() is False


def test_a_plain_run_after_a_killed_one_takes_its_items(dream, dream_proc, repo, dream_home,
                                                        tmp_path, monkeypatch):
    dream("init")
    stage(tmp_path, "dinner_three_streams.jsonl")
    monkeypatch.setenv("DREAM_TEST_KILL_AT", "apply")
    assert dream_proc("run", "--model", "rules", cwd=repo).returncode == -9
    monkeypatch.delenv("DREAM_TEST_KILL_AT")
    for lock in (dream_home / "notes").glob(".dream.lock.*"):
        lock.unlink()                         # by hand, as the error message says
    out = run_json(dream, "--model", "rules")
    assert out["status"] == "ok" and out["items"] == 3
    runs = {r["id"]: r for r in json.loads(dream("runs", "--json").output)}
    killed = next(r for r in runs.values() if r["id"] != out["id"])
    assert killed["status"] == "failed" and "interrupted" in killed["error"]


def test_the_runs_view_names_a_killed_run_interrupted_with_its_fix(
        dream, dream_proc, repo, dream_home, tmp_path, monkeypatch):
    """A run killed with -9 stayed 'running running' in 'dream runs' and 'runs show' for
    ever; only 'dream doctor' told it from a live one. The views say it was interrupted
    and name 'dream run --retry RUN'."""
    dream("init")
    stage(tmp_path, "dinner_three_streams.jsonl")
    monkeypatch.setenv("DREAM_TEST_KILL_AT", "apply")
    assert dream_proc("run", "--model", "rules", cwd=repo).returncode == -9
    monkeypatch.delenv("DREAM_TEST_KILL_AT")
    killed = json.loads(dream("runs", "--json").output)[0]
    assert killed["status"] == "running" and killed["decision"] == "interrupted"
    listed = dream("runs").output
    row = next(line for line in listed.splitlines() if line.startswith(killed["id"]))
    assert " running  interrupted " in row
    assert f"requeue its items with 'dream run --retry {killed['id']}'" in listed
    shown = dream("runs", "show", killed["id"]).output
    assert "interrupted" in shown and f"dream run --retry {killed['id']}" in shown
    for lock in (dream_home / "notes").glob(".dream.lock.*"):
        lock.unlink()                         # by hand, as the error message says
    out = run_json(dream, "--retry", killed["id"], "--model", "rules")
    assert out["status"] == "ok"
    assert "requeue" not in dream("runs").output     # the killed run is 'failed' now


def test_invalid_sweep_answer_makes_the_run_partial_but_keeps_propose(dream, repo,
                                                                     dream_home, tmp_path):
    dream("init")
    stage(tmp_path, "dinner_three_streams.jsonl")
    # two new notes about Nobu could be one: something to sweep, so the sweep is called
    model = script(tmp_path, "sw", {"ops": [
        {"op": "event.upsert", "name": "dinner nobu", "evidence": ["E1"],
         "fields": fields(title="Dinner at Nobu", date="2026-03-13")},
        {"op": "note.add", "name": "nobu booking", "evidence": ["E1"],
         "fields": fields(text="Nobu takes bookings for groups of six", type="fact")},
        {"op": "note.add", "name": "nobu table", "evidence": ["E2"],
         "fields": fields(text="The table at Nobu is booked for six", type="fact")}]},
        {"purpose": "sweep", "data": "malformed"}, {"purpose": "sweep", "data": "malformed"})
    out = run_json(dream, "--model", model)
    assert out["status"] == "partial" and "sweep" in out["error"]
    assert list(records(dream_home, "events")) == ["dinner-nobu"]
    calls = [json.loads(x)["purpose"] for x in
             (tmp_path / "sw.answers.jsonl.calls.jsonl").read_text().splitlines()]
    assert calls == ["propose", "sweep", "sweep"]


def _lookalikes(tmp_path, name: str, *extra: dict) -> str:
    return script(tmp_path, name, {"ops": [
        {"op": "event.upsert", "name": "dinner with jordan", "evidence": ["E1"],
         "fields": fields(title="Dinner with Jordan", activity="dinner", date="2026-03-13",
                          participants="Jordan", status="proposed")},
        {"op": "event.upsert", "name": "jordan birthday dinner", "evidence": ["E2"],
         "fields": fields(title="Birthday dinner", activity="dinner", date="2026-03-13",
                          participants="Jordan", place="Nobu")}]}, *extra)


def test_lookalike_events_stay_apart_with_a_question(dream, repo, dream_home, tmp_path):
    dream("init")
    stage(tmp_path, "dinner_three_streams.jsonl")
    out = run_json(dream, "--model", _lookalikes(tmp_path, "la"), "--no-sweep")
    assert sorted(records(dream_home, "events")) == ["dinner-with-jordan",
                                                     "jordan-birthday-dinner"]
    qs = records(dream_home, "questions")
    assert len(qs) == 1 and "same event" in next(iter(qs.values())).get("text")
    assert out["calls"] == 2                     # propose + the merge question (kept apart)
    brief = (dream_home / "notes" / "user" / "brief.md").read_text()
    assert "## Open questions" in brief


def test_model_settles_a_near_lookalike_as_one_event(dream, repo, dream_home, tmp_path):
    dream("init")
    stage(tmp_path, "dinner_three_streams.jsonl")
    model = _lookalikes(tmp_path, "la2", {"purpose": "merge",
                                          "data": {"decisions": [{"pair": 1, "same": True}]}})
    run_json(dream, "--model", model, "--no-sweep")
    events = records(dream_home, "events")
    assert list(events) == ["dinner-with-jordan"]
    ev = events["dinner-with-jordan"]
    assert ev.get("place") == "Nobu" and len(ev.evidence()) == 2
    assert not (dream_home / "notes" / "user" / "questions").exists()


def test_unknown_runs_are_one_line_errors(dream, repo):
    dream("init")
    for args in (["run", "--retry", "nope"], ["runs", "show", "nope"]):
        result = dream(*args, ok=False)
        assert result.exit_code == 1 and "no dream run 'nope'" in result.output
        assert "Traceback" not in result.output
    empty = dream("run", "--model", "rules").output      # no run ever happened here
    assert "nothing to dream over" in empty and "since the last run" not in empty


def test_project_items_go_to_an_attached_primary_store(dream, repo, dream_home, tmp_path):
    team = tmp_path / "team-store"
    dream("stores", "attach", str(team), "--name", "team", "--create")
    dream("init", "--store", "team")
    stage(tmp_path, "mixed", [
        {"id": "p1", "time": "2026-03-02T10:00:00Z", "stream": "s1", "role": "user",
         "cwd": str(repo), "text": "From now on, always run ruff before committing."},
        {"id": "u1", "time": "2026-03-02T11:00:00Z", "stream": "notes", "role": "user",
         "text": "I'm allergic to shellfish."},
    ])
    out = run_json(dream, "--model", "rules")
    assert out["status"] == "ok" and out["items"] == 2
    assert len(out["details"]["commits"]) == 2                  # one commit per store
    notes = list((team / "projects" / "proj" / "notes").glob("*.md"))
    assert len(notes) == 1 and "ruff" in notes[0].read_text()
    assert "shellfish" in (dream_home / "notes" / "user" / "standing.md").read_text()
    assert not (dream_home / "notes" / "projects").exists()
    for store in (team, dream_home / "notes"):
        body = git(store, "log", "-1", "--format=%B")
        assert f"Dream-Run: {out['id']}" in body
    assert "Dream-Project:" in git(team, "log", "-1", "--format=%B")


def test_dry_run_prices_every_pending_item_in_run_sized_chunks(dream, repo, dream_home,
                                                               tmp_path):
    dream("init")
    lines = [{"id": f"q{i}", "time": f"2026-03-01T1{i}:00:00Z", "stream": f"s{i}",
              "role": "user", "text": f"I prefer layout {i}."} for i in range(5)]
    stage(tmp_path, "priced", lines)
    out = run_json(dream, "--model", "openai:gpt-4o-mini", "--dry-run", "--max-items", "2",
                   "--no-sweep")
    assert out["items"] == 5 and out["calls"] == 3          # three runs' worth of calls
    assert out["cost_usd"] > 0
    run_json(dream, "--model", "rules")
    assert run_json(dream, "--model", "rules", "--dry-run")["items"] == 0
    again = run_json(dream, "--model", "rules", "--dry-run", "--redo")   # what a redo costs
    assert again["items"] == 5 and again["status"] == "priced"
    assert run_json(dream, "--model", "rules", "--dry-run")["items"] == 0  # nothing un-claimed


def test_a_dry_run_with_rules_says_it_calls_no_model(dream, repo, dream_home, tmp_path):
    """'dream run --dry-run' with rules printed "2 calls, ~1882 input tokens, ~500 output
    tokens, estimated $0.0000 with rules" while the rules run itself calls no model (it
    reported 1 call and 0 tokens): the figures are what a hosted model would be sent, and
    the line now says so, with how to price one."""
    dream("init")
    stage(tmp_path, "dinner_three_streams.jsonl")
    text = dream("run", "--dry-run").output
    assert "rules runs on this machine: no model is called, no tokens, $0." in text
    assert "a hosted model would be sent 2 calls" in text and "--model openai:" in text
    assert "estimated $" not in text and "Nothing was called." in text
    assert run_json(dream, "--dry-run")["details"]["code_provider"] is True
    hosted = run_json(dream, "--model", "openai:gpt-4o-mini", "--dry-run")
    assert "code_provider" not in hosted["details"] and hosted["cost_usd"] > 0
    ran = run_json(dream, "--model", "rules")
    assert ran["input_tokens"] == ran["output_tokens"] == 0 and ran["cost_usd"] == 0


def test_an_unmanaged_folder_dreams_only_personal_items(dream, repo, dream_home, tmp_path,
                                                        monkeypatch):
    dream("init")
    stage(tmp_path, "both", [
        {"id": "a1", "time": "2026-03-02T10:00:00Z", "stream": "s1", "role": "user",
         "cwd": str(repo), "text": "From now on, always run ruff before committing."},
        {"id": "b1", "time": "2026-03-02T11:00:00Z", "stream": "notes", "role": "user",
         "text": "I'm allergic to shellfish."}])
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    monkeypatch.chdir(elsewhere)
    out = run_json(dream, "--model", "rules")
    assert out["items"] == 1 and out["project_key"] is None
    assert not (dream_home / "notes" / "projects" / "proj" / "notes").exists()
    monkeypatch.chdir(repo)                              # the project's own run takes it
    assert run_json(dream, "--model", "rules")["items"] == 1
    assert (dream_home / "notes" / "projects" / "proj" / "notes").is_dir()


def test_sweep_reads_state_and_tonights_diffs_not_traffic(dream, repo, dream_home, tmp_path):
    from dream.models import scripted

    dream("init")
    stage(tmp_path, "day1", [{"id": "s1", "time": "2026-03-09T18:00:00Z", "stream": "sms",
                              "role": "other", "author": "Jordan",
                              "text": "Dinner at Nobu on Friday at 7pm, booked."}])
    run_json(dream, "--model", "rules")
    assert len(records(dream_home, "events")) == 1      # R1 of the next run
    stage(tmp_path, "day2", [{"id": "s2", "time": "2026-03-10T09:00:00Z", "stream": "sms",
                              "role": "other", "author": "Jordan",
                              "text": "Let's make the dinner at Nobu 8pm instead, secret-word"}])
    seen = []
    original = scripted.ScriptedProvider.complete

    def spy(self, request):
        seen.append(request)
        return original(self, request)

    scripted.ScriptedProvider.complete = spy
    try:
        scripted.clear()
        # the time moves, and a second plan that evening could clash: something to sweep
        scripted.enqueue({"ops": [{"op": "event.upsert", "row": "R1", "evidence": ["E1"],
                                   "fields": fields(time="20:00")},
                                  {"op": "event.upsert", "name": "drinks at nobu",
                                   "evidence": ["E1"],
                                   "fields": fields(title="Drinks at Nobu",
                                                    date="2026-03-13", time="22:00")}]})
        run_json(dream, "--model", "scripted")
    finally:
        scripted.ScriptedProvider.complete = original
        scripted.clear()
    sweep_request = next(r for r in seen if r.purpose == "sweep")
    assert "TONIGHT'S DIFFS" in sweep_request.body
    assert "time: '19:00' -> '20:00'" in sweep_request.body
    assert "secret-word" not in sweep_request.body + sweep_request.prefix   # never raw traffic


def test_bundles_and_calls_stay_bounded_on_huge_tool_output():
    from dream.items import Item
    from dream.pipeline.bundle import MAX_BUNDLE_CHARS, make_bundles, shown_chars
    from dream.pipeline.prompt import PACK_TOKENS, pack_calls

    items = [Item(seq=i, id=f"i{i}", source="claude_code", ref=f"f:{i}", stream="one-session",
                  project_key="p", author=None, role="tool", said_at=f"2026-03-01T10:{i:02d}:00Z",
                  text="x" * 20_000 + f" run {i}", tool_name="Bash", is_error=False,
                  kind="tool_result", evidence=True) for i in range(60)]
    bundles = make_bundles(items)
    assert sum(len(b.items) for b in bundles) == 60 and len(bundles) > 1
    assert all(sum(shown_chars(i) for i in b.items) <= MAX_BUNDLE_CHARS for b in bundles)
    calls = pack_calls(bundles, PACK_TOKENS)
    # within the token budget (a bundle bigger than it would get a call of its own); a
    # successful tool result is shown as the end of its output, not 20,000 x's (each
    # output ends differently: a repeated successful call would not be shown again)
    assert all(c.tokens <= PACK_TOKENS or len(c.bundles) == 1 for c in calls)
    assert all(len(c.body) < 1000 * len(c.handles) for c in calls)
    assert [b.id for c in calls for b in c.bundles] == [b.id for b in bundles]
    assert len(pack_calls(bundles, 500)) > len(calls)     # a smaller budget, more calls


def test_a_run_with_nothing_here_names_the_projects_whose_items_wait(dream, repo, make_repo,
                                                                     tmp_path):
    dream("init")
    other = make_repo("elsewhere")
    stage(tmp_path, "other", [
        {"id": "o1", "time": "2026-03-02T10:00:00Z", "stream": "s9", "role": "user",
         "cwd": str(other), "text": "From now on, always pin the dependencies."}])
    out = dream("run", "--model", "rules").output
    assert "nothing to dream over" in out
    assert "1 collected items belong to other projects: elsewhere-" in out
    assert "dream init" in out


def test_a_run_whose_model_calls_failed_says_its_items_were_given_back(dream_proc, repo,
                                                                         dream_home, tmp_path,
                                                                         monkeypatch):
    """Items a failed call gave back are not 'more items wait (a run takes at most
    5,000)': the run says they were given back and how to take them again."""
    import socket

    assert dream_proc("init", cwd=repo).returncode == 0
    log = tmp_path / "chat.jsonl"
    log.write_text("".join(json.dumps({"stream": "sms:sam", "role": "other", "author": "Sam",
                                       "text": f"Note {i}: the boiler needs a check.",
                                       "time": f"2026-03-0{i + 1}T09:00:00Z"}) + "\n"
                           for i in range(3)))
    assert dream_proc("collect", "--source", "jsonl", str(log), cwd=repo).returncode == 0
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-not-a-real-key-000")
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))             # bound, never listening: refused
        port = sock.getsockname()[1]
        config = dream_home / "config.toml"
        config.write_text(config.read_text().replace(
            "[model]\n", f'[model]\nopenai_base_url = "http://127.0.0.1:{port}/v1"\n'
                         "max_retries = 0\n", 1))
        proc = dream_proc("run", "--model", "openai:gpt-4o-mini", cwd=repo)
    run_id = proc.stdout.split()[1]
    assert "more items wait" not in proc.stdout, proc.stdout
    assert (f"3 items were given back (their model calls failed, see the problems above): "
            f"'dream run --retry {run_id}' takes them again") in proc.stdout, proc.stdout


def test_a_run_says_how_many_items_wait_and_how_to_take_them(dream_proc, repo, dream_home,
                                                              tmp_path):
    """A run claims at most --max-items: it says how many items still wait and how to take
    them (another run, or --rounds), and --json carries 'remaining'."""
    assert dream_proc("init", cwd=repo).returncode == 0
    log = tmp_path / "chat.jsonl"
    log.write_text("".join(json.dumps({"stream": "sms:sam", "role": "other", "author": "Sam",
                                       "text": f"Note {i}: the boiler needs a check.",
                                       "time": f"2026-03-0{i + 1}T09:00:00Z"}) + "\n"
                           for i in range(5)))
    assert dream_proc("collect", "--source", "jsonl", str(log), cwd=repo).returncode == 0
    proc = dream_proc("run", "--max-items", "2", cwd=repo)
    assert proc.returncode == 0, proc.stderr
    assert "3 more items wait (a run takes at most 2): 'dream run' again takes the next 2, " \
           "'dream run --rounds 2' takes them all" in proc.stdout
    proc = dream_proc("run", "--max-items", "2", "--json", cwd=repo)
    assert json.loads(proc.stdout)["remaining"] == 1
    proc = dream_proc("run", "--max-items", "2", "--rounds", "2", "--json", cwd=repo)
    out = json.loads(proc.stdout)
    assert out["items"] == 1 and out["remaining"] == 0
    proc = dream_proc("run", cwd=repo)
    assert "more items wait" not in proc.stdout


def test_escape_codes_in_an_answer_never_reach_the_brief(dream, repo, dream_home, tmp_path):
    """A value with a terminal escape (an OSC title or clipboard write, a colour) was
    written into the record and the brief as it was, and 'dream brief', the SessionStart
    hook and 'cat brief.md' print it. It is kept without the codes; tabs and words stay."""
    dream("init")
    stage(tmp_path, "dinner_three_streams.jsonl")
    model = script(tmp_path, "esc", {"ops": [
        {"op": "note.add", "name": "nobu", "evidence": ["E1"],
         "fields": fields(text="\x1b]0;owned\x07Nobu takes \x1b[31mgroups\x1b[0m of six"
                               "\x1b]52;c;cm0gLXJmIH4=\x1b\\\x07", type="fact")}]})
    out = run_json(dream, "--model", model, "--no-sweep")
    assert out["status"] == "ok"
    note = next(iter(records(dream_home, "notes").values()))
    assert note.get("text") == "Nobu takes groups of six"
    brief = dream("brief", "--user").output
    assert "- Nobu takes groups of six [notes/" in brief
    assert not any(ch in brief for ch in "\x1b\x07\x9b")


def _commit_a_note(store) -> None:
    """A note written and committed in the store while a run works (the store moves)."""
    (store / "user").mkdir(exist_ok=True)
    (store / "user" / "scratch.md").write_text("written while the run worked\n")
    git(store, "add", "user/scratch.md")
    git(store, "commit", "-q", "-m", "a note")


def _store_moves_during_the_run(monkeypatch, move) -> None:
    """Call ``move(store_path, run_commit)`` right after the run's commit is built, before
    it is promoted: as a note written (or a hand edit committed) while a run works."""
    import dream.pipeline.run as run_mod

    built = run_mod.write_run_commit

    def and_then(entry, *args, **kwargs):
        sha = built(entry, *args, **kwargs)
        if sha:
            move(entry["store"].path, sha)
        return sha

    monkeypatch.setattr(run_mod, "write_run_commit", and_then)


def test_a_note_written_while_a_run_works_does_not_keep_the_run_off_the_main_line(
        dream, repo, dream_home, tmp_path, monkeypatch, other_project):
    """A note written anywhere in the store while a run worked (here another project's,
    by a real 'dream notes write') left the whole run on its branch: 'partial', 'left for
    review', shown as 'promoted' in 'dream runs', and refused by 'dream runs promote' as
    not waiting for review. The run is now merged on top, as 'runs promote' would."""
    import os
    import subprocess
    import sys

    from conftest import REPO_ROOT

    other = other_project("other")
    dream("init")
    stage(tmp_path, "dinner_three_streams.jsonl")

    def a_note(store, sha):
        proc = subprocess.run(
            [sys.executable, "-m", "dream", "notes", "write", "@projects/other/during",
             "written while the run worked"], cwd=other, capture_output=True, text=True,
            env={**os.environ, "PYTHONPATH": str(REPO_ROOT / "src")})
        assert proc.returncode == 0, proc.stderr

    _store_moves_during_the_run(monkeypatch, a_note)
    out = run_json(dream, "--model", "rules")
    assert out["status"] == "ok" and out["decision"] == "promoted", out["error"]
    notes = dream_home / "notes"
    assert "Dinner at Nobu" in (notes / "user" / "brief.md").read_text()
    assert records(dream_home, "events")
    assert "written while the run worked" in (notes / "projects/other/during.md").read_text()
    assert git(notes, "status", "--porcelain") == ""
    assert "merged: the store moved since the run" in git(notes, "log", "-1", "--format=%s")


def test_a_run_whose_records_were_changed_meanwhile_waits_for_review(
        dream, repo, dream_home, tmp_path, monkeypatch):
    """When the store moved with a change to a record the run also changes, nothing newer
    is overwritten: the run waits for review as an --apply review run does, and 'dream
    runs' says so (it said 'promoted', and 'runs promote' and 'runs discard' refused it)."""
    dream("init")
    stage(tmp_path, "dinner_three_streams.jsonl")

    def a_hand_edit(store, sha):
        changed = [p for p in git(store, "diff-tree", "--no-commit-id", "--name-only", "-r",
                                  sha).splitlines() if not p.endswith("brief.md")]
        (store / changed[0]).parent.mkdir(parents=True, exist_ok=True)
        (store / changed[0]).write_text("---\nstatus: live\n---\nedited by hand meanwhile\n")
        git(store, "add", changed[0])
        git(store, "commit", "-q", "-m", "a hand edit")

    _store_moves_during_the_run(monkeypatch, a_hand_edit)
    out = run_json(dream, "--model", "rules")
    assert out["status"] == "partial" and out["decision"] == "awaiting review"
    assert f"dream runs discard {out['id']}" in out["error"]
    notes = dream_home / "notes"
    assert git(notes, "log", "-1", "--format=%s") == "a hand edit"
    assert git(notes, "status", "--porcelain") == ""
    listed = dream("runs").output
    assert next(line for line in listed.splitlines() if line.startswith(out["id"])) \
        .split()[3:5] == ["awaiting", "review"]
    dream("runs", "discard", out["id"])
    assert git(notes, "log", "-1", "--format=%s") == "a hand edit"


def test_a_run_whose_merge_git_refuses_waits_for_review_and_says_why(
        dream, repo, dream_home, tmp_path, monkeypatch):
    """A merge into a store that moved can fail for reasons other than a clash of records:
    a git command's index.lock (or a half-done history scrub) refused by the check every
    store write makes. That marked the whole run failed, its commit stranded on the run
    branch; it now waits for review like a clash does, the error says why and what to do,
    and once the lock is gone 'dream runs promote' merges it."""
    dream("init")
    stage(tmp_path, "dinner_three_streams.jsonl")
    notes = dream_home / "notes"

    def a_note_then_a_lock(store, sha):
        _commit_a_note(store)
        (store / ".git" / "index.lock").write_text("")

    _store_moves_during_the_run(monkeypatch, a_note_then_a_lock)
    out = run_json(dream, "--model", "rules")
    assert out["status"] == "partial" and out["decision"] == "awaiting review"
    assert "index.lock exists" in out["error"] and "rm " in out["error"]
    assert f"dream runs promote {out['id']}" in out["error"]
    assert "records the run changes" not in out["error"]
    assert git(notes, "log", "-1", "--format=%s") == "a note"
    assert git(notes, "rev-parse", out["branch"]) == out["commit"]     # nothing lost
    (notes / ".git" / "index.lock").unlink()
    dream("runs", "promote", out["id"])
    head = git(notes, "rev-parse", "HEAD")
    assert git(notes, "merge-base", "--is-ancestor", out["commit"], head) == ""
    assert (notes / "user" / "scratch.md").exists() and records(dream_home, "events")


@pytest.mark.parametrize("failure", ["store error", "disk full"])
def test_a_merged_run_whose_brief_fails_to_render_says_it_was_merged(
        dream, repo, dream_home, tmp_path, monkeypatch, failure):
    """After a run merged on top of a store that moved (here the brief was re-rendered
    meanwhile), rendering the brief again failing was reported as "the run could not be
    merged into it ... left for review ('dream runs promote' merges it)" while the store's
    branch held the run (a non-Dream error marked the whole run failed). The merge stands:
    the run is promoted and the problem names the brief and when it is rendered again."""
    import dream.pipeline.render as render_mod
    from dream.errors import StoreError

    dream("init")
    stage(tmp_path, "dinner_three_streams.jsonl")
    notes = dream_home / "notes"

    def a_brief_meanwhile_then_no_render(store, sha):
        (store / "user").mkdir(exist_ok=True)
        (store / "user" / "brief.md").write_text("a brief rendered meanwhile\n")
        git(store, "add", "user/brief.md")
        git(store, "commit", "-q", "-m", "a brief meanwhile")

        def fails(*_args, **_kwargs):
            if failure == "store error":
                raise StoreError("cannot read the scope's records", "check the store")
            raise OSError(28, "No space left on device")

        monkeypatch.setattr(render_mod, "render_brief", fails)

    _store_moves_during_the_run(monkeypatch, a_brief_meanwhile_then_no_render)
    out = run_json(dream, "--model", "rules")
    assert out["status"] == "ok" and out["decision"] == "promoted", out["error"]
    assert "merged; rendering user/brief.md again" in out["error"]
    assert "left for review" not in out["error"] and "runs promote" not in out["error"]
    assert git(notes, "merge-base", "--is-ancestor", out["commit"], "HEAD") == ""
    assert "merged: the store moved" in git(notes, "log", "-1", "--format=%s")
    assert git(notes, "status", "--porcelain") == ""
    assert "Dinner at Nobu" in (notes / "user" / "brief.md").read_text()   # the run's
    assert records(dream_home, "events")


def test_a_run_whose_merge_a_file_in_the_way_stops_says_so(dream, repo, dream_home,
                                                          tmp_path, monkeypatch):
    """When the merge stops on a file in the work tree that the run's commit would
    overwrite, the error said the run's records 'were changed there since', which was
    untrue: it now says git refused the merge and why; the run waits for review."""
    dream("init")
    stage(tmp_path, "dinner_three_streams.jsonl")
    notes = dream_home / "notes"

    def a_note_and_a_file_in_the_way(store, sha):
        _commit_a_note(store)
        added = [p for p in git(store, "diff-tree", "--no-commit-id", "--name-only", "-r",
                                "--diff-filter=A", sha).splitlines()
                 if not p.endswith("brief.md")]
        (store / added[0]).parent.mkdir(parents=True, exist_ok=True)
        (store / added[0]).write_text("a file left here, never committed\n")

    _store_moves_during_the_run(monkeypatch, a_note_and_a_file_in_the_way)
    out = run_json(dream, "--model", "rules")
    assert out["status"] == "partial" and out["decision"] == "awaiting review"
    assert "git refused the merge" in out["error"] and "untracked" in out["error"]
    assert "records the run changes" not in out["error"]
    assert f"dream runs discard {out['id']}" in out["error"]
    assert git(notes, "log", "-1", "--format=%s") == "a note"
    dream("runs", "discard", out["id"])
    assert git(notes, "log", "-1", "--format=%s") == "a note"


def test_pack_tokens_takes_the_same_bounds_from_the_flag_the_variable_and_config(
        dream, repo, dream_home, tmp_path, monkeypatch):
    """--pack-tokens, DREAM_PACK_TOKENS and [run] pack_tokens are checked against one pair
    of bounds (they were written three times, in the CLI, the run and config, free to
    drift apart): each takes the highest and refuses one more, in one line."""
    from dream.config import PACK_HIGH, PACK_LOW

    dream("init")
    stage(tmp_path, "dinner_three_streams.jsonl")
    config = dream_home / "config.toml"
    text = config.read_text()
    assert "pack_tokens = 12000" in text
    for value, ok in ((PACK_HIGH, True), (PACK_HIGH + 1, False), (PACK_LOW, True),
                      (PACK_LOW - 1, False)):
        flag = dream("run", "--model", "rules", "--dry-run", "--pack-tokens", str(value),
                     ok=ok)
        monkeypatch.setenv("DREAM_PACK_TOKENS", str(value))
        env = dream("run", "--model", "rules", "--dry-run", ok=ok)
        monkeypatch.delenv("DREAM_PACK_TOKENS")
        config.write_text(text.replace("pack_tokens = 12000", f"pack_tokens = {value}"))
        cfg = dream("run", "--model", "rules", "--dry-run", ok=ok)
        config.write_text(text)
        for result in (flag, env, cfg):
            assert (result.exit_code == 0) is ok, (value, result.output)
            assert "Traceback" not in result.output
        if not ok:
            assert f"{PACK_HIGH}" in cfg.output.replace(",", "")


def test_a_run_a_git_lock_keeps_off_a_store_that_did_not_move_waits_for_review(
        dream, repo, dream_home, tmp_path, monkeypatch):
    """The fast-forward of a store that did not move makes the same check: a git command's
    index.lock there marked the whole run failed; the run now waits for review, says why,
    and 'dream runs promote' puts it on the main line once the lock is gone."""
    dream("init")
    stage(tmp_path, "dinner_three_streams.jsonl")
    notes = dream_home / "notes"
    before = git(notes, "rev-parse", "HEAD")

    def a_lock(store, sha):
        (store / ".git" / "index.lock").write_text("")

    _store_moves_during_the_run(monkeypatch, a_lock)
    out = run_json(dream, "--model", "rules")
    assert out["status"] == "partial" and out["decision"] == "awaiting review"
    assert "did not take the run" in out["error"] and "index.lock exists" in out["error"]
    assert "moved during the run" not in out["error"]
    assert f"dream runs promote {out['id']}" in out["error"]
    assert git(notes, "rev-parse", "HEAD") != out["commit"]
    (notes / ".git" / "index.lock").unlink()
    dream("runs", "promote", out["id"])
    assert git(notes, "merge-base", "--is-ancestor", out["commit"], "HEAD") == ""
    assert git(notes, "merge-base", "--is-ancestor", before, "HEAD") == ""
    assert records(dream_home, "events")
