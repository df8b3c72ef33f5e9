"""What a newcomer meets on the command line: a rerunnable demo, runs that say what became
of them, stores that refuse typos, one-line errors, honest counts and a compact context."""

from __future__ import annotations

import json
from pathlib import Path

from conftest import git
from test_scenarios import stage


# -- demo, runs, stores ----------------------------------------------------------------------
def test_demo_home_can_be_run_again_and_refuses_a_foreign_folder(dream_proc, tmp_path):
    home = tmp_path / "demo"
    first = dream_proc("demo", "--home", str(home), cwd=tmp_path)
    assert first.returncode == 0, first.stderr
    again = dream_proc("demo", "--home", str(home), cwd=tmp_path)
    assert again.returncode == 0, again.stderr
    assert again.stdout.startswith(f"Starting over: removed the previous demo in {home}")
    assert "Dinner at Nobu" in again.stdout
    assert git(home / "home" / "notes", "status", "--porcelain") == ""
    busy = tmp_path / "mine"
    busy.mkdir()
    (busy / "keep.txt").write_text("mine\n")
    refused = dream_proc("demo", "--home", str(busy), cwd=tmp_path)
    assert refused.returncode == 1 and len(refused.stderr.strip().splitlines()) == 1
    assert "holds no earlier demo" in refused.stderr and (busy / "keep.txt").exists()


def test_runs_show_the_decision_and_the_project(dream, repo, tmp_path):
    dream("init")
    stage(tmp_path, "a", [{"id": "a1", "time": "2026-03-09T18:00:00Z", "stream": "sms-jo",
                           "role": "other", "author": "Jo",
                           "text": "Dinner at Nobu on Friday at 7pm?"}])
    auto = json.loads(dream("run", "--model", "rules", "--json").output)
    stage(tmp_path, "b", [{"id": "b1", "time": "2026-03-10T18:00:00Z", "stream": "sms-jo",
                           "role": "other", "author": "Jo",
                           "text": "Lunch at Hoppers on Monday at noon?"}])
    left = json.loads(dream("run", "--model", "rules", "--apply", "review", "--json").output)
    stage(tmp_path, "c", [{"id": "c1", "time": "2026-03-11T18:00:00Z", "stream": "sms-jo",
                           "role": "other", "author": "Jo",
                           "text": "Coffee at Monmouth on Tuesday at 9am?"}])
    gone = json.loads(dream("run", "--model", "rules", "--apply", "review", "--json").output)
    dream("runs", "discard", gone["id"])
    rows = {r["id"]: r for r in json.loads(dream("runs", "--json").output)}
    assert rows[auto["id"]]["decision"] == "promoted"
    assert rows[left["id"]]["decision"] == "awaiting review"
    assert rows[gone["id"]]["decision"] == "discarded"
    table = dream("runs").output.splitlines()
    assert "decision" in table[0] and "project" in table[0]
    line = next(x for x in table if x.startswith(left["id"]))
    assert "awaiting review" in line and repo.name in line
    shown = dream("runs", "show", left["id"]).output
    assert "decision:       awaiting review" in shown


def test_stores_attach_refuses_a_missing_path_and_detach_forgets(dream, repo, tmp_path):
    dream("init")
    typo = tmp_path / "tema"
    refused = dream("stores", "attach", str(typo), ok=False)
    assert refused.exit_code == 1 and "--create" in refused.output
    assert len(refused.output.strip().splitlines()) == 1 and not typo.exists()
    made = json.loads(dream("stores", "attach", str(typo), "--create", "--json").output)
    assert (typo / ".git").is_dir() and made["name"] == "tema"
    assert "tema" in dream("stores", "list").output
    out = dream("stores", "detach", "tema").output
    assert "untouched" in out and (typo / ".git").is_dir()
    assert "tema" not in dream("stores", "list").output
    home = dream("stores", "detach", "notes", ok=False)
    assert home.exit_code == 1 and "cannot be detached" in home.output
    # a Primary Store is detached only with --force
    dream("stores", "attach", str(typo))
    dream("init", "--store", "tema")
    primary = dream("stores", "detach", "tema", ok=False)
    assert primary.exit_code == 1 and "Primary Store of" in primary.output
    dream("stores", "detach", "tema", "--force")
    assert json.loads(dream("status", "--json").output)["managed"] is False
    assert Path(typo / ".dream" / "store.toml").exists()
