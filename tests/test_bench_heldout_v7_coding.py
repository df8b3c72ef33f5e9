"""The held-out v7 coding set (sealed in session 8, dev (seen) since session 9) is complete and
loads as the benchmark expects; unsealed, the benchmark may report its details."""

from __future__ import annotations

from conftest import REPO_ROOT
from heldout_sets import coding_set

BENCH = REPO_ROOT / "bench"
CODING = BENCH / "heldout_v7" / "coding"


def test_heldout_v7_coding_is_unsealed_and_loads_complete() -> None:
    """13+ coding scenarios, unsealed, in all three transcript formats (4+ Claude Code, 4+
    Codex, 3+ Pi, one mixing all three), each transcript valid JSON lines with one session
    per file, each gold in the held-out form, and 6+ scenarios with 2-3 sessions carrying
    review items."""
    assert not (CODING / "SEALED").exists() and (CODING / "README.md").is_file()
    found = coding_set(CODING, "heldout_v7_coding")
    assert not found.sealed and found.name == "heldout_v7_coding"
    assert len(found.projects) >= 13
    assert found.failing("files_and_gold", "categories", "keyword_strings", "unique_ids",
                         "must_not", "review_kinds", "json_lines", "no_empty_file",
                         "one_session_per_file", "sessions_are_files") == []
    assert found.formats == {"claude_code", "codex", "pi"}
    assert found.by_format.get("claude_code", 0) >= 4 and found.by_format.get("codex", 0) >= 4
    assert found.by_format.get("pi", 0) >= 3 and found.mixed >= 1
    assert found.reviewed >= 6
