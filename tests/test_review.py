"""dream review start|show|accept|reject|close end to end: real collect, real git, real
SQLite, the CLI in-process and as a real process."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest
from conftest import git
from review_fixtures.sessions import plant

from dream.app import App


@pytest.fixture
def planted(dream, repo, tmp_path):
    def _plant(only: list[str] | None = None) -> tuple[str, dict[str, Path]]:
        key = json.loads(dream("init", "--json").output)["project_key"]
        paths = plant(tmp_path / "transcripts", str(repo), only)
        dream("collect", *map(str, paths.values()), "--json")
        return key, paths

    return _plant


def _start(dream, *args: str) -> dict:
    return json.loads(dream("review", "start", "--json", *args).output)


def _by_pass(review: dict) -> dict[str, list[dict]]:
    out: dict[str, list[dict]] = {}
    for p in review["proposals"]:
        out.setdefault(p["pass"], []).append(p)
    return out


def _notes(dream_home: Path) -> Path:
    return dream_home / "notes"


def test_review_start_proposes_with_learned_lines_and_journal(dream, planted):
    key, _paths = planted()
    review = _start(dream)
    assert review["run"]["status"] == "running"          # open until decided
    assert review["run"]["project_key"] == key
    assert len(review["learned"]) == 3
    assert all(0 < len(line) <= 200 for line in review["learned"])
    assert any("requests" in line for line in review["learned"])
    counts = {name: len(ps) for name, ps in _by_pass(review).items()}
    assert counts == {"memory": 2, "failures": 1, "tools": 1, "corrections": 1, "codify": 2,
                      "project": 1}
    for p in review["proposals"]:
        assert set(p) >= {"slug", "pass", "title", "size", "risk", "evidence", "replaces",
                          "status"}
        assert p["status"] == "proposed" and p["size"] in "SML"
        assert p["risk"] in ("low", "medium", "high")
        assert any(e.startswith("session:") for e in p["evidence"])
        assert any(":" in e and not e.startswith("session:") for e in p["evidence"])
    journal = review["journal"]
    assert set(journal) == {"memory", "failures", "tools", "corrections", "codify", "project"}
    assert journal["failures"]["looked_at"]["failing"] == 3
    assert journal["tools"]["tools"]["Bash"]["calls"] == 25
    assert review["run"]["handoff"]["missing"].startswith("no prepared handoff")
    # a review changes nothing by itself
    log = git(_notes(Path(App.from_env().home.root)), "log", "--format=%s")
    assert "Review" not in log


def test_second_review_is_refused_while_one_is_open(dream, planted):
    planted()
    first = _start(dream)
    refused = dream("review", "start", ok=False)
    assert refused.exit_code == 1
    assert first["run"]["id"] in refused.output and "still open" in refused.output
    assert "Traceback" not in refused.output
    closed = json.loads(dream("review", "close", "--json").output)
    assert closed["run"]["status"] == "ok"
    # the watermark moved: nothing new since, so the next review finds nothing
    again = _start(dream)
    assert again["proposals"] == [] and again["run"]["status"] == "ok"
    assert again["run"]["items"] == 0
    assert any("Little evidence" in line for line in again["learned"])


def test_accept_memory_promotes_exactly_that_change(dream, planted, dream_home):
    key, _paths = planted()
    review = _start(dream)
    [corr] = _by_pass(review)["corrections"]
    notes = _notes(dream_home)
    before = git(notes, "rev-parse", "HEAD")
    out = json.loads(dream("review", "accept", corr["slug"], "--json").output)
    assert out[0]["status"] == "accepted"
    sha = out[0]["commit"]
    assert git(notes, "rev-parse", "HEAD") == sha and git(notes, "rev-parse", "HEAD^") == before
    changed = git(notes, "show", "--name-only", "--format=", sha).split()
    note_path = corr["change"]["path"]
    assert sorted(changed) == sorted([note_path, "projects/proj/brief.md"])
    body = git(notes, "log", "-1", "--format=%B", sha)
    assert f"Dream-Run: {review['run']['id']}" in body
    assert "Dream-Pass: review:corrections" in body
    assert body.count("Dream-Evidence: ") == 2 and f"Dream-Project: {key}" in body
    assert (notes / note_path).read_text() == corr["change"]["content"]
    brief = (notes / "projects/proj/brief.md").read_text()
    assert "logging" in brief and note_path.split("/", 2)[2] in brief
    # the index knows the promoted note
    found = json.loads(dream("search", "logging module", "--json").output)
    assert note_path in [hit["path"] for hit in found["hits"]]
    shown = json.loads(dream("review", "show", "--json").output)
    assert {p["slug"]: p["status"] for p in shown["proposals"]}[corr["slug"]] == "accepted"
    # accepted twice: refused, with the commit that undoes it
    again = dream("review", "accept", corr["slug"], ok=False).output
    assert "already accepted" in again and f"'dream revert {sha[:12]}'" in again


def test_accept_code_and_instruction_exports_work_items(dream, planted, dream_home, repo):
    planted()
    review = _start(dream)
    by = _by_pass(review)
    slugs = [by["failures"][0]["slug"], by["project"][0]["slug"],
             next(p["slug"] for p in by["codify"] if "-rule-" in p["slug"])]
    out = json.loads(dream("review", "accept", *slugs, "--json").output)
    assert [o["status"] for o in out] == ["exported"] * 3
    run = review["run"]["id"]
    for slug in slugs:
        md = dream_home / "exports" / run / f"{slug}.md"
        text = md.read_text()
        assert "## Evidence" in text and "session:" in text
    # the failure work item has no patch; script and rule patches apply to the repository
    assert not (dream_home / "exports" / run / f"{slugs[0]}.patch").exists()
    for slug in slugs[1:]:
        patch = dream_home / "exports" / run / f"{slug}.patch"
        check = subprocess.run(["git", "apply", "--check", str(patch)], cwd=repo,
                               capture_output=True, text=True, check=False)
        assert check.returncode == 0, check.stderr
    # Dream applied nothing itself
    assert not (repo / "AGENTS.md").exists() and not (repo / "scripts").exists()
    # exported, then rejected: refused, naming the file to delete rather than a revert
    refused = dream("review", "reject", slugs[0], ok=False).output
    assert "already exported" in refused and "revert" not in refused
    assert str(dream_home / "exports" / run / f"{slugs[0]}.md") in refused
    assert git(repo, "status", "--porcelain") == ""


def test_reject_sticks_for_the_same_evidence(dream, planted):
    planted()
    review = _start(dream)
    [fail] = _by_pass(review)["failures"]
    out = json.loads(dream("review", "reject", fail["slug"], "--why", "known, fixed upstream",
                           "--json").output)
    assert out[0]["status"] == "rejected"
    dream("review", "close")
    again = _start(dream, "--all")               # the same evidence once more
    assert fail["slug"] not in [p["slug"] for p in again["proposals"]]
    dropped = again["journal"]["failures"]["dropped"]
    assert dropped == [{"slug": fail["slug"], "reason": "rejected before for the same evidence"}]
    # the other proposals of the first review come back (they were never decided)
    assert len(again["proposals"]) == len(review["proposals"]) - 1
    accepted_again = dream("review", "accept", fail["slug"], "--run", review["run"]["id"],
                           ok=False)
    assert accepted_again.exit_code == 1 and "was rejected" in accepted_again.output
    assert "known, fixed upstream" in accepted_again.output


def test_unknown_slug_is_a_one_line_error(dream, planted, dream_home):
    planted()
    review = _start(dream)
    first = review["proposals"][0]["slug"]
    head = git(_notes(dream_home), "rev-parse", "HEAD")
    result = dream("review", "accept", first, "no-such-slug", ok=False)
    assert result.exit_code == 1
    assert result.output.strip().count("\n") == 0 and "unknown proposal 'no-such-slug'" in \
        result.output
    # nothing was accepted, not even the valid slug given with it
    shown = json.loads(dream("review", "show", "--json").output)
    assert all(p["status"] == "proposed" for p in shown["proposals"])
    assert git(_notes(dream_home), "rev-parse", "HEAD") == head
    assert dream("review", "reject", "nope", ok=False).exit_code == 1


def test_update_of_a_note_and_version_conflict(dream, planted, dream_home):
    dream("init")
    dream("notes", "write", "@projects/proj/tooling.md", "Use npm to install packages.\n")
    planted(only=["s4"])
    review = _start(dream)
    [update] = [p for p in review["proposals"] if p["replaces"]]
    assert update["replaces"] == ["@projects/proj/tooling.md"]
    assert update["pass"] == "memory" and update["risk"] == "medium"
    head_then = git(_notes(dream_home), "rev-parse", "HEAD")
    assert f"commit:{head_then}" in update["evidence"]      # the note as it was read
    assert "pnpm" in update["change"]["content"] and "npm to install" not in \
        update["change"]["content"].split("---", 2)[2]
    # the note moves on after the proposal was made: accepting must not overwrite it
    dream("notes", "update", "@projects/proj/tooling.md",
          "Use npm to install packages.\nThe API lives in src/api.\n")
    notes = _notes(dream_home)
    head = git(notes, "rev-parse", "HEAD")
    result = dream("review", "accept", update["slug"], ok=False)
    assert result.exit_code == 1 and "changed after review" in result.output
    assert "src/api" in (notes / "projects/proj/tooling.md").read_text()
    assert git(notes, "rev-parse", "HEAD") == head
    # a fresh review proposes against the current note, and that one is accepted
    dream("review", "close")
    again = _start(dream, "--all")
    [update2] = [p for p in again["proposals"] if p["replaces"]]
    dream("review", "accept", update2["slug"])
    body = (notes / "projects/proj/tooling.md").read_text().split("---", 2)[2]
    assert "use pnpm, not npm" in body.lower() and "Use npm to install" not in body
    assert "The API lives in src/api." in body          # what else the note knew is kept


def test_revert_restores_after_promotion(dream, planted, dream_home):
    planted()
    review = _start(dream)
    memory = _by_pass(review)["memory"]
    slugs = [p["slug"] for p in memory]
    notes = _notes(dream_home)
    dream("review", "accept", *slugs)
    paths = [p["change"]["path"] for p in memory]
    assert all((notes / p).exists() for p in paths)
    out = json.loads(dream("revert", review["run"]["id"], "--json").output)
    assert len(out["reverts"]) == 2 and out["proposals_reverted"] == 2
    assert not any((notes / p).exists() for p in paths)
    assert git(notes, "status", "--porcelain") == ""
    shown = json.loads(dream("review", "show", review["run"]["id"], "--json").output)
    statuses = {p["slug"]: p["status"] for p in shown["proposals"]}
    assert all(statuses[s] == "reverted" for s in slugs)
    # a person may change their mind again: a reverted proposal can be accepted anew
    dream("review", "accept", slugs[0], "--run", review["run"]["id"])
    assert (notes / paths[0]).exists()


def test_review_json_from_a_real_process(dream_proc, dream, planted, repo):
    planted()
    proc = dream_proc("review", "start", "--json", cwd=repo)
    assert proc.returncode == 0, proc.stderr
    review = json.loads(proc.stdout)
    assert len(review["proposals"]) == 8
    shown = dream_proc("review", "show", review["run"]["id"], "--json", cwd=repo)
    assert json.loads(shown.stdout)["proposals"] == review["proposals"]
    bad = dream_proc("review", "show", "review-nope", cwd=repo)
    assert bad.returncode == 1 and bad.stderr.startswith("error: no review run")
    assert "Traceback" not in bad.stderr


def test_accept_waits_for_an_open_interactive_dream(dream, planted, dream_home):
    planted()
    review = _start(dream)
    [corr] = _by_pass(review)["corrections"]
    dream("begin")
    refused = dream("review", "accept", corr["slug"], ok=False)
    assert refused.exit_code == 1 and "dream is already open" in refused.output
    dream("end")
    assert json.loads(dream("review", "accept", corr["slug"], "--json").output)[0]["commit"]


@pytest.mark.shared_data
def test_real_claude_code_sessions_through_the_cli(dream, repo):
    from conftest import SHARED_DATA

    dream("init")
    dream("collect", str(SHARED_DATA / "claude_code"))
    app = App.from_env()
    key = app.db.execute("SELECT project_key FROM items WHERE stream IN (SELECT stream FROM "
                         "items WHERE ref LIKE '%spotter__tool_heavy.jsonl:%') LIMIT 1"
                         ).fetchone()[0]
    review = _start(dream, "--project", key)
    # four short real sessions: two rejected tool uses, two sibling errors and one EISDIR,
    # none repeated across sessions, no correction said twice: nothing to propose
    assert review["proposals"] == [] and review["run"]["status"] == "ok"
    failures = review["journal"]["failures"]
    assert failures["looked_at"]["failing"] == 5 and failures["repeated_groups"] == 0
    # a refused call and one cancelled because its sibling errored never failed themselves:
    # only the EISDIR is a failure group
    assert {g["signature"] for g in failures["groups"]} == {
        "EISDIR: illegal operation on a directory, read"}
    assert review["journal"]["tools"]["tools"]["Bash"]["failures"] == 2
    assert len(review["learned"]) == 3 and review["learned"][0].startswith("Little evidence")


def test_promotion_needs_a_store_that_manages_the_project(dream, repo, tmp_path):
    from review_fixtures.sessions import plant as plant_sessions

    dream("init")
    other = tmp_path / "elsewhere"               # sessions of a project no store manages
    paths = plant_sessions(tmp_path / "t", str(other), only=["s2"])
    dream("collect", *map(str, paths.values()))
    key = App.from_env().db.execute("SELECT DISTINCT project_key FROM items").fetchone()[0]
    review = _start(dream, "--project", key)
    [memory] = [p for p in review["proposals"] if p["pass"] == "memory"]
    refused = dream("review", "accept", memory["slug"], ok=False)
    assert refused.exit_code == 1 and "no store manages project" in refused.output
    assert "dream init" in refused.output


def test_review_without_a_home_is_a_clear_error(dream, repo, dream_home):
    result = dream("review", "start", ok=False)
    assert result.exit_code == 1 and "no Dream home" in result.output
    assert not dream_home.exists()


def test_a_review_reads_open_until_decided_and_closing_it_again_is_no_error(dream, planted):
    """'dream review show' says a review is open (never the run row's 'running') and how many
    proposals wait; deciding the last one closes it, and 'dream review close' afterwards
    says it is closed already and exits 0, changing nothing."""
    planted()
    review = _start(dream)
    slugs = [p["slug"] for p in review["proposals"]]
    assert review["run"]["open"] is True and len(slugs) >= 2
    head = dream("review", "show").output.splitlines()[0]
    assert ": open, " in head and f"{len(slugs)} of {len(slugs)} proposals undecided" in head
    assert "running" not in head
    dream("review", "reject", *slugs[:-1], "--why", "not now")
    assert f"1 of {len(slugs)} proposals undecided" in dream("review", "show").output
    dream("review", "reject", slugs[-1])                 # the last decision closes it
    shown = json.loads(dream("review", "show", "--json").output)
    assert shown["run"]["open"] is False and shown["run"]["status"] == "ok"
    assert dream("review", "show").output.splitlines()[0].endswith(": closed, "
                                                                   f"{review['run']['items']} items")
    again = dream("review", "close")
    assert again.exit_code == 0
    assert again.output.startswith(f"review {review['run']['id']} is already closed: ")
    as_json = json.loads(dream("review", "close", "--json").output)
    assert as_json["already_closed"] is True and as_json["run"]["status"] == "ok"
    assert [p["status"] for p in as_json["proposals"]] == ["rejected"] * len(slugs)


def test_review_show_prints_a_proposal_without_terminal_escape_codes(capsys) -> None:
    """A proposal's title, what was learned and why one was dropped are said in the
    transcripts, which the spool keeps as collected: an OSC sequence there ('ESC ] 0 ; ...
    BEL' retitles the terminal, 'ESC ] 52 ; c ; ...' writes its clipboard) acted on the
    terminal of whoever ran 'dream review show'. The words stay; the codes go."""
    from dream.cli.review import _print

    osc = "\x1b]52;c;cm0gLXJmIH4=\x07"
    _print({"run": {"id": "r1", "project_key": "p-1", "status": "review", "items": 3},
            "learned": [f"the user wants{osc} tests first"],
            "proposals": [{"status": "proposed", "slug": "codify-tests", "pass": "codify",
                           "kind": "work_item", "size": 1, "risk": "low",
                           "title": "Codify: run\x1b]0;pwned\x07 the tests first",
                           "replaces": [], "evidence": ["i1"]}],
            "journal": {"codify": {"dropped": [{"slug": "x", "reason": f"said once{osc}"}]}}})
    out = capsys.readouterr().out
    assert "\x1b" not in out and "\x07" not in out and "pwned" not in out
    assert "Codify: run the tests first" in out and "the user wants tests first" in out
    assert "said once" in out
