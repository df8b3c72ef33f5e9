"""The four evaluation benchmarks (issue 7) run with --quick as real processes, so they
cannot rot: each prints a table and then one JSON object as its last line."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
import yaml
from conftest import GIT_IDENTITY, REPO_ROOT, SHARED_DATA

BENCH = REPO_ROOT / "bench"


def own_sections(name: str) -> int:
    """Sections this benchmark appended (other helpers' scripts share the file and may
    append while a test runs, so only this script's own headings are compared)."""
    path = BENCH / "RESULTS.md"
    text = path.read_text(encoding="utf-8") if path.exists() else ""
    return sum(1 for line in text.splitlines()
               if line.startswith("## ") and f"(bench/{name}.py)" in line)


def run_bench(name: str, *args: str, timeout: float = 120) -> dict:
    env = {**os.environ, **GIT_IDENTITY, "PYTHONPATH": str(REPO_ROOT / "src"),
           "DREAM_SHARED": str(SHARED_DATA.parent)}
    env.pop("DREAM_HOME", None)     # each benchmark makes its own throw-away homes
    before = own_sections(name)
    proc = subprocess.run([sys.executable, str(BENCH / f"{name}.py"), "--quick", *args],
                          cwd=REPO_ROOT, capture_output=True, text=True, env=env,
                          timeout=timeout, check=False)
    assert proc.returncode == 0, proc.stderr[-3000:]
    lines = proc.stdout.strip().splitlines()
    assert len(lines) > 2, proc.stdout                # a table comes first
    figures = json.loads(lines[-1])
    assert figures["quick"] is True
    assert own_sections(name) == before, "--quick must not append to bench/RESULTS.md"
    return figures


needs_locomo = pytest.mark.skipif(not (SHARED_DATA / "locomo10.json").exists(),
                                  reason="LoCoMo is not in the shared data")


@needs_locomo
def test_locomo_retrieval_quick() -> None:
    f = run_bench("locomo_retrieval")
    assert f["benchmark"] == "locomo_retrieval"
    assert f["conversations"] == 1 and f["questions"] == 60
    assert f["missing"] == {}
    for system in ("bm25", "bm25_stemmed", "fts5", "history", "history_or", "memory"):
        overall = f["systems"][system]["overall"]
        assert overall["n"] == 60
        for metric in ("turn@5", "turn@10", "session@5", "session@10"):
            assert 0.0 <= overall[metric] <= 1.0
        assert overall["turn@5"] <= overall["turn@10"]
        assert overall["session@5"] <= overall["session@10"]
    # a plain BM25 over the turns must find a fair share of the evidence
    assert f["systems"]["bm25"]["overall"]["session@10"] > 0.5
    # the gains are stated against the strongest baseline (stemmed, like Dream's index)
    assert set(f["vs_bm25_stemmed"]) == {"history", "history_or", "memory"}
    # the quirk handling of conversation 1: 'D8:6; D9:17' split, category 5 left out
    assert f["quirks"]["evidence_fields_split"] == 1
    assert f["quirks"]["questions_category5_excluded"] == 47
    assert f["memory_store"]["runs"] == 19            # one rules dream per session


@needs_locomo
def test_cost_quick() -> None:
    f = run_bench("cost")
    assert f["benchmark"] == "cost" and f["missing"] == {}
    locomo = f["datasets"]["locomo"]
    assert locomo["messages"] == 58 and locomo["dream_runs"] == 3
    base = locomo["per_1000_messages"]["baseline"]
    dream = locomo["per_1000_messages"]["dream"]
    # one call per exchange: 29 exchanges in 58 two-person turns
    assert base["calls"] == pytest.approx(500.0)
    assert dream["calls"] < base["calls"] and dream["input_tokens"] < base["input_tokens"]
    assert locomo["ratios"]["baseline/dream"]["calls"] > 1
    # answers are realistic: the baseline's memory and Dream's state grow, output tokens
    # are measured (a planted fact per exchange is longer than an empty list)
    per = locomo["per_1000_messages"]
    assert per["baseline+facts"]["output_tokens"] > per["baseline"]["output_tokens"]
    assert per["dream-weekly"]["calls"] <= per["dream"]["calls"]
    assert locomo["input_tokens_per_run_by_run_number"]["1"]["runs"] == 1
    for source in ("claude_code", "pi", "codex"):
        per = f["datasets"][source]["per_1000_messages"]
        assert set(per) >= {"baseline", "baseline+facts", "baseline+tools", "per-session",
                            "dream"}
        assert per["dream"]["calls"] > 0 and per["baseline"]["input_tokens"] > 0
        # the floor of the call ratio: one call per exchange against nights and
        # project-nights on which Dream called the model
        info = f["datasets"][source]
        n = info["messages"]
        assert info["exchanges"] == round(per["baseline"]["calls"] * n / 1000)
        assert 1 <= info["days_with_calls"] <= info["days"]
        assert info["project_days_with_calls"] >= info["days_with_calls"]
        # the shared-prefix target has a row for every source: a share, or said plainly
        # that every run made one call (nothing to share), never left out
        (row,) = [t for t in f["targets"]
                  if t["what"] == f"{source}: shared-prefix share of multi-call runs"]
        single = not info["multi_call_runs"].get("runs")
        assert (row["met"] is None) == single
        assert row["measured"] == ("no multi-call run" if single
                                   else info["multi_call_runs"]["shared_prefix_share"])


def test_cost_price_of_a_half_shared_prefix() -> None:
    sys.path.insert(0, str(BENCH))
    import cost

    # two calls sharing 200 tokens each and 600 tokens of their own: half is shared with
    # three calls (3 x 200 = 600), which send 200 more prompt tokens
    assert cost.half_shared_price([(2, 1000, 400)]) == {
        "calls_for_half_shared": 3, "prompt_tokens_for_half_shared": 1200}
    # already half shared: nothing changes
    assert cost.half_shared_price([(2, 1000, 600)]) == {
        "calls_for_half_shared": 2, "prompt_tokens_for_half_shared": 1000}


def test_consolidation_quick() -> None:
    f = run_bench("consolidation")
    assert f["benchmark"] == "consolidation" and f["scenarios"] == 8
    scripted = f["providers"]["scripted"]
    # the ideal proposals isolate the engine: anything below 100% is an engine bug
    assert scripted["precision"] == 1.0 and scripted["recall"] == 1.0
    assert scripted["duplicates"] == 0 and scripted["imperfect"] == []
    assert scripted["unplaced_ops"] == 0
    rules = f["providers"]["rules"]
    assert 0.0 <= rules["precision"] <= 1.0 and 0.0 <= rules["recall"] <= 1.0
    assert rules["failed_runs"] == 0
    # one run reports the three sets: the tuned 32, the held-out 15, the personal streams
    assert list(f["sets"]) == ["scenarios", "scenarios_heldout", "scenarios_heldout_personal"]
    assert f["sets"]["scenarios"]["providers"] == f["providers"]
    for name, entry in f["sets"].items():
        assert entry["scenarios"] == 8, name
        scripted = entry["providers"]["scripted"]
        assert scripted["precision"] == 1.0 and scripted["recall"] == 1.0, name
        assert scripted["wrong_live"] == 0 and scripted["imperfect"] == [], name
        assert scripted["failed_runs"] == 0 and scripted["unplaced_ops"] == 0, name
        rules = entry["providers"]["rules"]
        assert rules["failed_runs"] == 0 and rules["wrong_live"] >= 0, name
    personal = f["sets"]["scenarios_heldout_personal"]["providers"]["scripted"]
    assert personal["not_live_checked"] > 0 and personal["true_positives"] > 0


def test_consolidation_scoring() -> None:
    """The matcher: ``lacks``, records that must not be live, a question asked instead of a
    record (a miss for recall, no error for precision), and a record that is one gold
    record's true positive is no duplicate of another."""
    sys.path.insert(0, str(BENCH))
    import consolidation as c

    def ev(key: str, **fields: str) -> c.Produced:
        ident = " ".join([key.replace("-", " "), *fields.values()]).lower()
        return c.Produced("event", ident, fields, f"event/{key}")

    old = ev("dinner-bella-vista", date="2026-06-20", status="cancelled")
    new = ev("dinner-osteria", date="2026-06-20", status="confirmed", participants="Dan")
    gold = [{"kind": "event", "match": ["dinner"], "fields": {"status": "cancelled"}},
            {"kind": "event", "match": ["dinner"], "fields": {"status": "confirmed"},
             "lacks": {"participants": ["birthday"]}}]
    s = c.score(gold, [old, new], [], [{"kind": "event", "match": ["bella vista"]}])
    assert (s.tp, s.duplicates, s.wrong_live, s.extra) == (2, 0, [], [])
    # the cancelled booking left live is counted once as wrong-live
    live_old = ev("dinner-bella-vista", date="2026-06-20", status="confirmed")
    s = c.score(gold[1:], [live_old], [], [{"kind": "event", "match": ["bella vista"]}])
    assert s.tp == 1 and len(s.wrong_live) == 1 and "bella vista" in s.wrong_live[0]
    # a booking name among the participants fails ``lacks``
    named = ev("dinner-osteria", status="confirmed", participants="Maya's birthday, Dan")
    s = c.score(gold[1:], [named], [])
    assert s.tp == 0 and "wrong fields" in s.wrong[0]
    # a question instead of the record: a miss, not a produced record
    s = c.score([{"kind": "todo", "match": ["cake"]}], [], ["who orders the cake?"])
    assert (s.tp, s.produced, s.questions, s.asked_instead) == (0, 0, 1, 1)
    assert ev("x", status="declined").live is False and ev("x", status="proposed").live


def test_personal_heldout_corpus_is_complete(tmp_path: Path) -> None:
    """At least 20 personal-stream scenarios in native formats (mail, Slack, text chat,
    JSONL), five or more not in English, each with the user's identity, gold records,
    records that must not be live, and ideal evidence that quotes its own messages."""
    sys.path.insert(0, str(BENCH))
    import consolidation as c

    root = BENCH / "scenarios_heldout_personal"
    scenarios = c.load_scenarios(None, root)
    assert len(scenarios) >= 20 and (root / "README.md").exists()
    kinds: set[str] = set()
    for sc in scenarios:
        assert sc.native and "[collect]" in sc.config and sc.gold and sc.not_live, sc.name
        text = ""
        for day in sc.days:
            files = [p for p in day.rglob("*") if p.is_file()]
            assert files, (sc.name, day)
            kinds |= {kind for kind, _ in c.day_exports(day, tmp_path)}
            text += " ".join(p.read_text(encoding="utf-8") for p in files)
        flat = c._norm(text.replace("\\\"", '"'))
        for day in sc.ideal:
            for op in day:
                for quote in op["evidence"]:
                    assert c._norm(quote) in flat, (sc.name, quote)
        for record in sc.gold + sc.not_live:
            assert record["kind"] in ("event", "todo", "note", "standing"), sc.name
    assert kinds == {"mbox", "slack", "textchat", "jsonl"}
    assert sum(1 for sc in scenarios if sc.name.split("-")[1] in ("de", "fr", "es")) >= 5


@pytest.mark.shared_data
def test_throughput_quick() -> None:
    f = run_bench("throughput")
    assert f["benchmark"] == "throughput"
    search = f["search"]["1000"]
    assert 0 < search["p50_ms"] <= search["p95_ms"]
    assert f["read_at_commit"]["documents"] == 200
    for part in ("collect", "engine"):
        assert (f[part] is not None) != (part in f["missing"])


def test_scenario_corpus_is_complete() -> None:
    """At least 30 scenarios, each with messages, gold and ideal proposals that cite only
    messages it has, covering every situation the issue names."""
    folders = sorted(p for p in (BENCH / "scenarios").iterdir() if p.is_dir())
    assert len(folders) >= 30
    covered: set[str] = set()
    for folder in folders:
        days = sorted(folder.glob("day*.jsonl"))
        assert days, folder
        ids = set()
        for day in days:
            for line in day.read_text().splitlines():
                msg = json.loads(line)
                assert msg["text"] and msg["role"] in ("user", "other", "assistant", "tool")
                ids.add(msg["id"])
        gold = yaml.safe_load((folder / "gold.yaml").read_text())
        ideal = yaml.safe_load((folder / "ideal.yaml").read_text())
        covered |= set(gold["covers"])
        assert len(ideal["days"]) <= len(days), folder
        for day in ideal["days"]:
            for op in day["ops"]:
                assert set(op["evidence"]) <= ids, (folder, op)
        for record in gold["gold"]:
            assert record["kind"] in ("event", "todo", "note", "standing") and record["match"]
    assert covered >= {"cross-stream duplicates", "cancellations and rebookings",
                       "late older evidence", "user corrections", "assistant mistakes",
                       "mentions spread over days"}


def test_results_page_shows_plots(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    sys.path.insert(0, str(BENCH))
    import common

    monkeypatch.setattr(common, "PLOTS", tmp_path / "plots")
    monkeypatch.setattr(common, "RESULTS_HTML", tmp_path / "results.html")
    monkeypatch.setattr(common, "RESULTS_MD", tmp_path / "RESULTS.md")
    common.bar_plot(common.PLOTS / "demo_recall.png", "demo", ["a", "b"],
                    {"x": [0.5, 0.7], "y": [0.2, 0.9]}, "recall")
    common.save_figures("demo", {"recall": 0.7})
    page = common.write_results_html().read_text()
    assert "plots/demo_recall.png" in page and "&quot;recall&quot;: 0.7" in page
    assert (common.PLOTS / "demo_recall.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    common.append_results("Demo", "| a |\n|---|", {"recall": 0.7})
    common.append_results("Demo", "| b |\n|---|", {"recall": 0.8})
    text = common.RESULTS_MD.read_text()
    assert text.count("## Demo") == 2 and "- commit: `" in text and "nproc" in text


def test_consolidation_heldout_quick() -> None:
    """The held-out set (bench/scenarios_heldout, never used to tune a provider) runs through
    the same benchmark; the ideal proposals must score 100% there too (engine check)."""
    f = run_bench("consolidation", "--scenarios", "bench/scenarios_heldout")
    assert f["benchmark"] == "consolidation" and f["set"] == "scenarios_heldout"
    assert f["scenarios"] == 8
    scripted = f["providers"]["scripted"]
    assert scripted["precision"] == 1.0 and scripted["recall"] == 1.0
    assert scripted["duplicates"] == 0 and scripted["imperfect"] == []
    assert scripted["unplaced_ops"] == 0 and scripted["failed_runs"] == 0
    rules = f["providers"]["rules"]
    assert 0.0 <= rules["precision"] <= 1.0 and 0.0 <= rules["recall"] <= 1.0
    assert rules["failed_runs"] == 0


@pytest.mark.skipif(not (SHARED_DATA / "longmemeval").exists(),
                    reason="the LongMemEval sample is not in the shared data")
def test_longmemeval_retrieval_quick() -> None:
    f = run_bench("longmemeval_retrieval")
    assert f["benchmark"] == "longmemeval_retrieval" and f["questions"] == 4
    # the second question's answer ('volleyball league') occurs in one turn
    assert f["ceiling"] == 1
    for system in ("history", "fts5", "bm25_stemmed", "bm25"):
        hits = f["systems"][system]
        assert 0 <= hits["hit@1"] <= hits["hit@3"] <= hits["hit@5"] <= f["ceiling"]
    assert [q["answer_in_some_turn"] for q in f["per_question"]] == [False, True, False, False]
