"""The held-out v12 personal set (sealed in session 13, dev (seen) since session 14) is complete,
loads as the benchmark expects, and its ideal proposals reach its gold."""

from __future__ import annotations

from pathlib import Path

from conftest import REPO_ROOT
from heldout_sets import assert_ideal_replay, assert_personal_shape

BENCH = REPO_ROOT / "bench"
ROOT = BENCH / "heldout_v12" / "personal"


def test_heldout_v12_personal_is_unsealed_complete_and_reached_by_ideal(tmp_path: Path) -> None:
    """23 personal scenarios, unsealed, in all four native formats (mbox, Slack export, text
    chat exports, generic chat JSONL; 3+ each, three scenarios mixing two formats: mail and
    SMS twice, mail and a WhatsApp export once), 3+ each in German, French and Spanish and 14
    in English, each with gold and not-live records, two days and ideal evidence quoting its
    own messages, three of them with a question as an ideal answer; the scripted provider
    replaying ideal.yaml scores precision 1.00, recall 1.00, no duplicate, no wrong-live
    record and no failed run on every one; replaying only the first day of a few leaves
    not-live records live (the checks bite)."""
    found = assert_personal_shape(ROOT, tmp_path, "heldout_v12_personal", scenarios=23,
                                  per_format=3, english=14)
    assert len(found.scenarios) == 23
    assert sum(len(sc.gold) for sc in found.scenarios) == 65
    assert sum(len(sc.not_live) for sc in found.scenarios) == 87
    mixed = [sc for sc in found.scenarios
             if len({p.suffix for day in sc.days for p in day.iterdir()}) > 1]
    assert len(mixed) == 3, len(mixed)

    assert_ideal_replay(found, gold=65, not_live=87, questions=3)
