"""The held-out v15 coding set (sealed in session 16) is complete and loads as the benchmark
expects; it stays sealed, so the benchmark reports it by aggregates only."""

from __future__ import annotations

from conftest import REPO_ROOT
from heldout_sets import bench_module, coding_set

BENCH = REPO_ROOT / "bench"
CODING = BENCH / "heldout_v15" / "coding"


def test_heldout_v15_coding_is_sealed_and_loads_complete() -> None:
    """13+ coding scenarios, sealed, in all three transcript formats (4+ Claude Code, 4+
    Codex, 4+ Pi, and one project whose sessions come from two agents), each transcript
    valid JSON lines with one session per file, each gold in the held-out form, and 12+
    scenarios with 2 sessions carrying review items."""
    assert (CODING / "SEALED").is_file() and (CODING / "README.md").is_file()
    found = coding_set(CODING, "heldout_v15_coding")
    assert found.sealed and found.name == "heldout_v15_coding"
    assert len(found.projects) >= 13
    assert found.failing("files_and_gold", "categories", "keyword_strings", "unique_ids",
                         "must_not", "review_kinds", "json_lines", "no_empty_file",
                         "one_session_per_file", "sessions_are_files") == []
    assert found.formats == {"claude_code", "codex", "pi"}
    assert found.by_format.get("claude_code", 0) >= 4 and found.by_format.get("codex", 0) >= 4
    assert found.by_format.get("pi", 0) >= 4
    cm = bench_module("coding_memory")
    two_agents = [p for p in found.projects if len({cm.source_kind(f) for f in p.files}) == 2]
    assert len(two_agents) >= 1
    assert found.reviewed >= 12


def test_heldout_v15_coding_sessions_come_from_every_agent() -> None:
    """26 sessions: 8 Claude Code, 9 Codex and 9 Pi transcripts (a file is one session),
    rounded down a little so that replacing one wrong scenario does not break the test."""
    found = coding_set(CODING, "heldout_v15_coding")
    cm = bench_module("coding_memory")
    kinds = [cm.source_kind(f) for p in found.projects for f in p.files]
    assert len(kinds) >= 24
    assert kinds.count("claude_code") >= 7 and kinds.count("codex") >= 7
    assert kinds.count("pi") >= 7


def test_heldout_v15_coding_holds_the_counts_its_readme_states() -> None:
    """The aggregates the README promises (26 sessions; 91 gold items: 40 rule, 38 command,
    13 pitfall; 41 must_not lists; 26 review items: 13 rules and 13 failures), rounded down
    a little so that replacing one wrong scenario does not break the test."""
    found = coding_set(CODING, "heldout_v15_coding")
    gold = [g for p in found.projects for g in p.gold]
    by_category = {c: sum(g["category"] == c for g in gold) for c in ("rule", "command", "pitfall")}
    reviews = [r for p in found.projects for r in p.review]
    assert sum(p.sessions for p in found.projects) >= 24
    assert len(gold) >= 84
    assert by_category["rule"] >= 36 and by_category["command"] >= 34
    assert by_category["pitfall"] >= 12
    assert sum(len(p.must_not) for p in found.projects) >= 37
    assert len(reviews) >= 24
    assert sum(r["kind"] == "rule" for r in reviews) >= 11
    assert sum(r["kind"] == "failure" for r in reviews) >= 11
