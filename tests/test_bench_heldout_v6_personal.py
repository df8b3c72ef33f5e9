"""The sealed held-out v6 personal set is complete and loads as the benchmark expects, and
its ideal proposals reach its gold. This test reads only structure and the scripted replay's
aggregate figures; it prints no scenario's messages, gold or misses."""

from __future__ import annotations

import sys
from pathlib import Path

from conftest import REPO_ROOT

BENCH = REPO_ROOT / "bench"
ROOT = BENCH / "heldout_v6" / "personal"


def _consolidation():
    sys.path.insert(0, str(BENCH))
    import consolidation
    return consolidation


def test_heldout_v6_personal_is_sealed_complete_and_reached_by_ideal(tmp_path: Path) -> None:
    """22+ personal scenarios, sealed, in all four native formats (mbox, Slack export, text
    chat exports, generic chat JSONL), 3+ each in German, French and Spanish, each with
    gold and not-live records, two or more days and ideal evidence quoting its own
    messages, two of them with a question as the ideal answer; the scripted provider
    replaying ideal.yaml scores precision 1.00, recall 1.00, no duplicate, no wrong-live
    record and no failed run on every one; replaying only the first day of a few leaves
    not-live records live (the checks bite)."""
    c = _consolidation()
    assert (ROOT / "SEALED").is_file() and (ROOT / "README.md").is_file()
    assert c.sealed(ROOT) and c.set_name_of(ROOT) == "heldout_v6_personal"
    scenarios = c.load_scenarios(None, ROOT)
    assert len(scenarios) >= 22
    kinds: dict[str, int] = {}
    unquoted = incomplete = 0
    for sc in scenarios:
        incomplete += not (sc.native and "[collect]" in sc.config and sc.gold and sc.not_live
                           and len(sc.days) >= 2 and len(sc.ideal) == len(sc.days))
        text = ""
        seen: set[str] = set()
        for day in sc.days:
            files = [p for p in day.rglob("*") if p.is_file()]
            incomplete += not files
            seen |= {kind for kind, _ in c.day_exports(day, tmp_path)}
            text += " ".join(p.read_text(encoding="utf-8") for p in files)
        for kind in seen:
            kinds[kind] = kinds.get(kind, 0) + 1
        flat = c._norm(text.replace("\\\"", '"').replace("\\n", "\n"))
        unquoted += sum(1 for day in sc.ideal for op in day for quote in op["evidence"]
                        if c._norm(quote) not in flat)
    assert (incomplete, unquoted) == (0, 0)
    assert set(kinds) == {"mbox", "slack", "textchat", "jsonl"}
    assert min(kinds.values()) >= 3
    lang = [sc.name.split("-")[1] for sc in scenarios]
    assert lang.count("de") >= 3 and lang.count("fr") >= 3 and lang.count("es") >= 3
    assert len(lang) - lang.count("de") - lang.count("fr") - lang.count("es") >= 10

    entry = c.provider_entry([c.run_scenario(sc, "scripted") for sc in scenarios])
    got = {k: entry[k] for k in ("precision", "recall", "duplicates", "wrong_live",
                                 "failed_runs", "unplaced_ops", "perfect_scenarios")}
    assert got == {"precision": 1.0, "recall": 1.0, "duplicates": 0, "wrong_live": 0,
                   "failed_runs": 0, "unplaced_ops": 0, "perfect_scenarios": len(scenarios)}
    assert entry["gold"] >= 60 and entry["not_live_checked"] >= 100
    # two references nobody can resolve: the ideal answer is a question, not a record
    asks = sum(1 for sc in scenarios for day in sc.ideal for op in day
               if op["op"] == "question.ask")
    assert asks >= 2 and entry["open_questions"] >= 2

    first_day_only = scenarios[:4]
    for sc in first_day_only:
        sc.ideal = sc.ideal[:1]
    stale = c.provider_entry([c.run_scenario(sc, "scripted") for sc in first_day_only])
    assert stale["wrong_live"] >= 3 and stale["recall"] < 1.0
