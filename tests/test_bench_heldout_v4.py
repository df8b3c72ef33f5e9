"""The held-out v4 sets (sealed in session 5, dev (seen) since session 6) are complete and
load as the benchmarks expect, and the personal set's ideal proposals reach its gold."""

from __future__ import annotations

from pathlib import Path

from conftest import REPO_ROOT
from heldout_sets import assert_ideal_replay, assert_personal_shape, coding_set

BENCH = REPO_ROOT / "bench"
V4 = BENCH / "heldout_v4"


def test_heldout_v4_coding_is_unsealed_and_loads_complete() -> None:
    """12+ coding scenarios, unsealed, in all three transcript formats (4+ Claude Code, 4+
    Codex, 3+ Pi, one mixing all three), each transcript valid JSON lines, each gold in the
    held-out form, and 6+ scenarios with 2-3 sessions carrying review items."""
    coding = V4 / "coding"
    assert not (coding / "SEALED").exists() and (coding / "README.md").is_file()
    found = coding_set(coding, "heldout_v4_coding")
    assert not found.sealed and found.name == "heldout_v4_coding"
    assert len(found.projects) >= 12
    assert found.failing("files_and_gold", "categories", "keywords", "must_not", "json_lines",
                         "sessions_are_files") == []
    assert found.by_format.get("claude_code", 0) >= 4 and found.by_format.get("codex", 0) >= 4
    assert found.by_format.get("pi", 0) >= 3 and found.mixed >= 1
    assert found.reviewed >= 6


def test_heldout_v4_personal_is_unsealed_complete_and_reached_by_ideal(tmp_path: Path) -> None:
    """20+ personal scenarios in all four native formats (3+ each German, French, Spanish),
    each with gold and not-live records and ideal evidence quoting its own messages; the
    scripted provider replaying ideal.yaml scores precision 1.00, recall 1.00, no duplicate
    and no wrong-live record on every one; replaying only the first day of a few leaves
    not-live records live (the checks bite). The set is a dev (seen) set since session 6."""
    root = V4 / "personal"
    found = assert_personal_shape(root, tmp_path, "heldout_v4_personal", scenarios=20)

    assert_ideal_replay(found, gold=50, not_live=60)
