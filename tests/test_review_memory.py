"""The memory pass against existing notes: already known, crumple on "forget", the memory
about the user preserved, older evidence never revising a newer note; and the watermark,
a broken pass and two reviews started at the same moment."""

from __future__ import annotations

import json
import threading
from pathlib import Path

from conftest import git
from review_fixtures.sessions import Session

import dream.passes.tools as tools_pass


def _session(tmp_path: Path, repo: Path, name: str, day: int, *said: str) -> Path:
    s = Session(f"{name}-{day}", str(repo), day)
    for text in said:
        s.user(text)
    return s.write(tmp_path / "t")


def _review(dream, *args: str) -> dict:
    return json.loads(dream("review", "start", "--json", *args).output)


def test_known_memory_is_not_proposed_and_forget_crumples(dream, repo, tmp_path, dream_home):
    dream("init")
    dream("notes", "write", "@projects/proj/staging.md",
          "The staging database listens on port 5433.\n")
    path = _session(tmp_path, repo, "a", 7, "Remember that the staging database listens on "
                    "port 5433.", "Forget that the staging database listens on port 5433.")
    dream("collect", str(path))
    review = _review(dream)
    memory = [p for p in review["proposals"] if p["pass"] == "memory"]
    assert [p["change"]["op"] for p in memory] == ["crumple"]
    assert review["journal"]["memory"]["already_known"]
    [crumple] = memory
    assert crumple["replaces"] == ["@projects/proj/staging.md"] and crumple["risk"] == "medium"
    dream("review", "accept", crumple["slug"])
    shown = json.loads(dream("notes", "show", "@projects/proj/staging.md", "--json").output)
    assert shown["status"] == "crumpled"
    assert "5433" in shown["body"]                  # soft delete: still there to read


def test_memory_about_the_user_is_updated_never_crumpled(dream, repo, tmp_path):
    dream("init")
    dream("notes", "write", "@user/tools.md", "I use vim for editing.\nI work in Berlin.\n")
    path = _session(tmp_path, repo, "b", 8, "Forget that I use vim for editing.",
                    "From now on I use helix instead of vim.")
    dream("collect", str(path))
    review = _review(dream)
    memory = [p for p in review["proposals"] if p["pass"] == "memory"]
    assert "crumple" not in [p["change"]["op"] for p in memory]
    assert review["journal"]["memory"]["user_notes_kept"] == ["@user/tools.md"]
    [update] = [p for p in memory if p["change"]["op"] == "update"]
    body = update["change"]["content"].split("---", 2)[2]
    assert "helix" in body and "I work in Berlin." in body and "I use vim" not in body


def test_older_evidence_cannot_revise_a_newer_note(dream, repo, tmp_path):
    dream("init")
    dream("notes", "write", "@projects/proj/pm.md", "--",
          "---\nsaid_at: '2026-12-01T00:00:00.000Z'\n---\nUse npm to install packages.\n")
    path = _session(tmp_path, repo, "c", 9, "Use pnpm, not npm, for packages.")
    dream("collect", str(path))
    review = _review(dream)
    assert not [p for p in review["proposals"] if p["replaces"]]


def test_a_pitfall_is_contradicted_only_by_rejecting_its_fix(dream, repo, tmp_path):
    """A pitfall reports a failing command and the error it printed, and advises its fix:
    "use pnpm, not npm" revises the pitfall whose fix runs npm, not the one that only
    quotes npm's error, nor a rule that already says not to use npm."""
    dream("init")
    dream("notes", "write", "@projects/proj/fix-npm.md", "--", "`pnpm test` fails with: "
          "Error: Cannot find module 'vitest'. Fix: run `npm install`.\n")
    dream("notes", "write", "@projects/proj/quotes-npm.md", "--", "`pnpm build` fails with: "
          "npm ERR! missing script: build. Fix: run `pnpm run compile`.\n")
    dream("notes", "write", "@projects/proj/rule.md", "--", "Never use npm in this repo; "
          "it breaks the lockfile.\n")
    dream("collect", str(_session(tmp_path, repo, "p", 9,
                                  "From now on use pnpm, not npm, to install packages.")))
    review = _review(dream)
    updated = [p["replaces"] for p in review["proposals"] if p["replaces"]]
    assert updated == [["@projects/proj/fix-npm.md"]]
    assert not any("contradicts" in line and "quotes-npm" in line
                   for line in review["learned"])


def test_the_demo_review_finds_no_contradiction_where_there_is_none(dream_proc, tmp_path,
                                                                   monkeypatch):
    """The demo's stripe pitfall ("No module named 'stripe'. Fix: run `uv sync --extra
    payments`") and the user's rule "Don't add stripe to the main dependencies" agree: the
    review proposes no update of the pitfall and learns no contradiction."""
    assert dream_proc("demo", "--home", str(tmp_path / "demo"), cwd=tmp_path).returncode == 0
    monkeypatch.setenv("DREAM_HOME", str(tmp_path / "demo" / "home"))
    proc = dream_proc("review", "start", "--json", cwd=tmp_path / "demo" / "shop-api")
    assert proc.returncode == 0, proc.stderr
    review = json.loads(proc.stdout)
    assert review["run"]["items"] > 0
    assert not [p for p in review["proposals"] if p["replaces"]]
    assert not any("contradicts" in line for line in review["learned"])


def test_watermark_reads_only_new_evidence(dream, repo, tmp_path):
    dream("init")
    dream("collect", str(_session(tmp_path, repo, "d", 10, "Remember that CI runs on arm64.")))
    first = _review(dream)
    assert first["run"]["items"] == 1 and len(first["proposals"]) == 1
    dream("review", "reject", first["proposals"][0]["slug"])
    dream("collect", str(_session(tmp_path, repo, "e", 11, "Remember that releases are on "
                                  "Fridays.")))
    second = _review(dream)
    assert second["run"]["items"] == 1
    assert second["run"]["from_seq"] == first["run"]["to_seq"]
    assert [p["title"] for p in second["proposals"]] == \
        ["Remember: Releases are on Fridays."]


def test_a_broken_pass_is_named_and_the_others_still_propose(dream, repo, tmp_path,
                                                           monkeypatch):
    dream("init")
    dream("collect", str(_session(tmp_path, repo, "f", 12, "Remember that CI runs on arm64.")))

    def broken(ev):
        raise RuntimeError("statistics table exploded")

    monkeypatch.setattr(tools_pass, "run", broken)
    review = _review(dream)
    assert review["journal"]["tools"]["status"] == "failed"
    assert "statistics table exploded" in review["journal"]["tools"]["error"]
    assert [p["pass"] for p in review["proposals"]] == ["memory"]
    dream("review", "accept", review["proposals"][0]["slug"])
    shown = json.loads(dream("review", "show", "--json").output)
    assert shown["run"]["status"] == "partial"


def test_two_reviews_started_together_one_wins(dream_proc, dream, repo, tmp_path):
    dream("init")
    dream("collect", str(_session(tmp_path, repo, "g", 13, "Remember that CI runs on arm64.")))
    results = []

    def start() -> None:
        results.append(dream_proc("review", "start", "--json", cwd=repo))

    threads = [threading.Thread(target=start) for _ in range(2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    codes = sorted(r.returncode for r in results)
    assert codes == [0, 1], [r.stderr for r in results]
    loser = next(r for r in results if r.returncode == 1)
    winner = json.loads(next(r for r in results if r.returncode == 0).stdout)
    assert winner["run"]["id"] in loser.stderr and "still open" in loser.stderr
    assert git(repo, "status", "--porcelain") == ""
