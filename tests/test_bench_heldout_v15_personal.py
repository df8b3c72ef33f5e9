"""The sealed held-out v15 personal set is complete and loads as the benchmark expects, and
its ideal proposals reach its gold. This test reads only structure and the scripted replay's
aggregate figures; it prints no scenario's messages, gold or misses."""

from __future__ import annotations

from pathlib import Path

from conftest import REPO_ROOT
from heldout_sets import assert_ideal_replay, assert_personal_shape

BENCH = REPO_ROOT / "bench"
ROOT = BENCH / "heldout_v15" / "personal"


def test_heldout_v15_personal_is_sealed_complete_and_reached_by_ideal(tmp_path: Path) -> None:
    """23 personal scenarios, sealed, in all four native formats (mbox, Slack export, text
    chat exports, generic chat JSONL; 4+ each, one scenario mixing a mail export and SMS),
    3 each in German, French and Spanish, 10 in English and one each in Italian, Portuguese,
    Czech and Finnish, each with gold and not-live records, two days and ideal evidence
    quoting its own messages, two of them with a question as an ideal answer; the scripted
    provider replaying ideal.yaml scores precision 1.00, recall 1.00, no duplicate, no
    wrong-live record and no failed run on every one; replaying only the first day of a few
    leaves not-live records live (the checks bite)."""
    found = assert_personal_shape(ROOT, tmp_path, "heldout_v15_personal", scenarios=23,
                                  per_format=4, english=14, sealed=True)
    assert len(found.scenarios) == 23
    langs = sorted(found.languages())
    assert {tag: langs.count(tag) for tag in ("en", "it", "pt", "cs", "fi")} == \
        {"en": 10, "it": 1, "pt": 1, "cs": 1, "fi": 1}
    assert sum(len(sc.gold) for sc in found.scenarios) == 52
    assert sum(len(sc.not_live) for sc in found.scenarios) == 84
    mixed = [sc for sc in found.scenarios
             if len({p.suffix for day in sc.days for p in day.iterdir()}) > 1]
    assert len(mixed) == 1, len(mixed)

    assert_ideal_replay(found, gold=52, not_live=84, questions=2)
