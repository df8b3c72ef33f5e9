"""The held-out v7 personal set (sealed in session 8, dev (seen) since session 9) is complete,
loads as the benchmark expects, and its ideal proposals reach its gold."""

from __future__ import annotations

from pathlib import Path

from conftest import REPO_ROOT
from heldout_sets import assert_ideal_replay, assert_personal_shape

BENCH = REPO_ROOT / "bench"
ROOT = BENCH / "heldout_v7" / "personal"


def test_heldout_v7_personal_is_unsealed_complete_and_reached_by_ideal(tmp_path: Path) -> None:
    """22+ personal scenarios, unsealed, in all four native formats (mbox, Slack export, text
    chat exports, generic chat JSONL), 3+ each in German, French and Spanish, each with
    gold and not-live records, two or more days and ideal evidence quoting its own
    messages, two or more of them with a question as the ideal answer; the scripted provider
    replaying ideal.yaml scores precision 1.00, recall 1.00, no duplicate, no wrong-live
    record and no failed run on every one; replaying only the first day of a few leaves
    not-live records live (the checks bite)."""
    found = assert_personal_shape(ROOT, tmp_path, "heldout_v7_personal", scenarios=22,
                                  per_format=3, english=10)

    assert_ideal_replay(found, gold=60, not_live=100, questions=2)
