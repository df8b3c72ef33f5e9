"""The six passes on planted sessions and on the real transcripts in ../shared/data.

Planted sessions (tests/review_fixtures/sessions.py) go through the real collector, so
the passes read exactly what they read in use.
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest
from conftest import SHARED_DATA
from review_fixtures.sessions import FAILING, FIVE_STEPS, plant

from dream.app import App
from dream.detect.commands import command_from_call
from dream.detect.failures import signature
from dream.passes import PASS_NAMES, run_all
from dream.passes.evidence import Evidence, load_items
from dream.passes.instructions import agent_file
from dream.review import citations


def _evidence(key: str, name: str = "proj", root: Path | None = None) -> Evidence:
    app = App.from_env()
    items = load_items(app.db, key, 0)
    target, text = agent_file(root)
    return Evidence(key, name, items, 0, items[-1].seq if items else 0,
                    agent_file=target, agent_file_text=text, run_id="review-test")


@pytest.fixture
def planted(dream, repo, tmp_path):
    """Init the repository, plant sessions whose cwd is the repository, collect them."""

    def _plant(only: list[str] | None = None) -> tuple[str, dict[str, Path]]:
        key = json.loads(dream("init", "--json").output)["project_key"]
        paths = plant(tmp_path / "transcripts", str(repo), only)
        out = json.loads(dream("collect", *map(str, paths.values()), "--json").output)
        assert out["new_items"] > 0 and out["skipped"] == 0
        return key, paths

    return _plant


def _streams(paths: dict[str, Path]) -> dict[str, str]:
    return {name: p.stem for name, p in paths.items()}


def test_signature_ignores_paths_numbers_and_temp_names():
    a = signature("Traceback:\n/home/a/x/tests/test_api.py:3: in <module>\n"
                  "E   ModuleNotFoundError: No module named 'requests'\n1 error in 0.3s")
    b = signature("/tmp/tmpq9/x/tests/test_api.py:12: in <module>\n"
                  "E   ModuleNotFoundError: No module named 'requests'\n1 error in 0.12s")
    assert a == b == "ModuleNotFoundError: No module named 'requests'"
    assert signature("error: cannot open /var/tmp/f8a9c3d2e1.lock at line 44") == \
        "error: cannot open <path> at line <n>"
    assert signature("") == ""


def test_command_from_collected_calls():
    assert command_from_call("Bash: make test", "Bash") == "make test"
    assert command_from_call('shell: {"command": ["bash", "-lc", "ls -la"]}', "shell") == "ls -la"
    assert command_from_call('exec_command: {"cmd": "git status"}', "exec_command") == \
        "git status"


def test_each_pass_finds_what_was_planted(planted, repo):
    key, paths = planted()
    streams = _streams(paths)
    ev = _evidence(key, root=repo)
    results = {r.name: r for r in run_all(ev)}
    assert list(results) == list(PASS_NAMES)
    assert all(r.status == "ok" for r in results.values())

    # failures: one group, the failing test command, citing the three sessions
    [fail] = results["failures"].candidates
    assert fail.change["signature"] == "ModuleNotFoundError: No module named 'requests'"
    assert fail.change["commands"] == [FAILING]
    assert {f"session:{streams[s]}" for s in ("s1", "s2", "s3")} <= set(fail.evidence())
    assert len(fail.items) == 3 and fail.kind == "code"

    # corrections: the habit corrected twice, as one memory note
    [corr] = results["corrections"].candidates
    assert corr.kind == "memory" and len(corr.items) == 2
    assert {i.stream for i in corr.items} == {streams["s1"], streams["s3"]}
    assert corr.change["address"].startswith("@projects/proj/notes/")
    assert "logging" in corr.change["content"] and "type:" in corr.change["content"]

    # tools: the five steps as a procedure, statistics only from tool results
    [proc] = results["tools"].candidates
    assert proc.change["steps"] == FIVE_STEPS
    assert {i.stream for i in proc.items} == {streams[s] for s in ("s1", "s2", "s3", "s4")}
    bash = results["tools"].journal["tools"]["Bash"]
    assert bash == {"calls": 3 + 5 * 4 + 2, "failures": 3, "sessions": 5}

    # project: one script for the same five steps
    [script] = results["project"].candidates
    assert script.change["patch"]["file"].startswith("scripts/")
    assert all(step in script.change["patch"]["diff"] for step in FIVE_STEPS)

    # codify: a standing rule from the corrections and a pitfall from the failure
    codify = {c.slug.split("-")[1]: c for c in results["codify"].candidates}
    assert set(codify) == {"rule", "pitfall"}
    assert "logging" in codify["rule"].change["lessons"][0]
    assert "requests" in codify["pitfall"].change["lessons"][0]

    # memory: the explicit request to remember and the stated preference
    texts = sorted(c.change["content"] for c in results["memory"].candidates)
    assert len(texts) == 2
    assert any("5433" in t for t in texts) and any("pnpm" in t for t in texts)


def test_the_rule_groups_are_computed_once_for_every_pass(planted, repo, monkeypatch):
    """The corrections, memory and codify passes each grouped the same rules from the same
    items: three times a review. The evidence now groups them once, for every pass."""
    import dream.passes.evidence as evidence_mod

    key, _paths = planted()
    ev = _evidence(key, root=repo)
    calls = []
    grouped = evidence_mod.rule_groups
    monkeypatch.setattr(evidence_mod, "rule_groups",
                        lambda items: calls.append(len(items)) or grouped(items))
    results = {r.name: r for r in run_all(ev)}
    assert calls == [len(ev.items)]
    assert results["corrections"].candidates and ev.rule_groups


def test_clean_session_gives_no_proposals(planted, repo):
    key, _ = planted(only=["clean"])
    ev = _evidence(key, root=repo)
    for result in run_all(ev):
        assert result.candidates == [], (result.name, [c.slug for c in result.candidates])
    assert ev.counts()["tool_results"] == 2 and ev.counts()["statements"] == 2


def test_a_single_correction_or_failure_is_not_a_pattern(planted, repo):
    key, _paths = planted(only=["s1", "clean"])
    results = {r.name: r for r in run_all(_evidence(key, root=repo))}
    assert results["failures"].candidates == []
    assert results["failures"].journal["single_failures"] == 1
    assert results["corrections"].candidates == []
    assert results["tools"].candidates == [] and results["project"].candidates == []
    assert results["codify"].candidates == []


def test_instruction_patches_apply_with_git(planted, repo):
    (repo / "AGENTS.md").write_text("# Agents\n\nRun `make test` before pushing.\n")
    subprocess.run(["git", "add", "AGENTS.md"], cwd=repo, check=True)
    key, _ = planted()
    results = {r.name: r for r in run_all(_evidence(key, root=repo))}
    for cand in results["codify"].candidates + results["tools"].candidates + \
            results["project"].candidates:
        diff = cand.change["patch"]["diff"]
        check = subprocess.run(["git", "apply", "--check", "-"], cwd=repo, input=diff,
                               check=False, text=True, capture_output=True)
        assert check.returncode == 0, (cand.slug, check.stderr, diff)


@pytest.mark.shared_data
def test_passes_on_real_transcripts_cite_only_spool_evidence(dream, repo):
    dream("init")
    out = json.loads(dream("collect", str(SHARED_DATA / "claude_code"), str(SHARED_DATA / "pi"),
                           str(SHARED_DATA / "codex"), "--json").output)
    assert out["new_items"] > 3000
    app = App.from_env()
    keys = [r[0] for r in app.db.execute("SELECT DISTINCT project_key FROM items")]
    by_project = {}
    for key in keys:
        results = run_all(_evidence(key))
        assert all(r.status == "ok" for r in results)
        for r in results:
            for c in r.candidates:
                # every citation of every candidate checks out against the spool
                assert citations.failures(app.db, c.evidence(), c.item_ids()) == [], c.slug
                assert c.items and len(c.title) <= 120
        by_project[key.rsplit("-", 1)[0]] = {r.name: len(r.candidates) for r in results}
    # pi-mono: the edit tool failed three times with one cause in one session (read off
    # pi-mono__before-compaction.jsonl lines 80, 90 and 248)
    pi = next(k for k in keys if k.startswith("pi-mono"))
    fails = {r.name: r for r in run_all(_evidence(pi))}["failures"].candidates
    assert [c.change["signature"].split(" in ")[0] for c in fails] == \
        ["Could not find the exact text"]
    assert sorted(i.ref.rsplit(":", 1)[1] for i in fails[0].items) == ["248", "80", "90"]
    # spotter (Claude Code, four short sessions): nothing repeats, nothing is proposed
    assert sum(by_project["spotter"].values()) == 0
    # no grep "no match" exits are reported as failures anywhere
    assert not any("grep" in c.change.get("signature", "")
                   for k in keys for r in run_all(_evidence(k)) for c in r.candidates)


def test_a_tool_call_the_user_refused_is_no_repeated_failure():
    """Claude Code flags a refused call as an error ("The user doesn't want to proceed with
    this tool use"); three refusals of a push are the user saying no, not a failure to fix,
    while three real failures of the same command still make a group."""
    from dream.detect.failures import groups
    from dream.items import Item

    refused = ("The user doesn't want to proceed with this tool use. The tool use was "
               "rejected (eg. if it was a file edit, the new_string was NOT written to the "
               "file). STOP what you are doing and wait for the user to tell you how to "
               "proceed.")
    denied = "remote: Permission to acme/shop.git denied to bot.\nfatal: unable to access"

    def items(text: str) -> list[Item]:
        return [Item(seq=n, id=f"s:{n}", ref=f"s.jsonl:{n}", stream="s", role="tool",
                     kind="tool_result", evidence=True, said_at=f"2026-05-01T09:0{n}:00Z",
                     text=text, tool_name="Bash", is_error=True, source="claude_code")
                for n in range(3)]

    assert groups(items(refused)) == []
    [grp] = groups(items(denied))
    assert grp.repeated and len(grp.items) == 3
