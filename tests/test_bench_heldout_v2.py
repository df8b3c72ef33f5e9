"""The sealed held-out v2 sets are complete, and the benches report a sealed set as
aggregates only (no scenario names, misses or judged lines on stdout)."""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import yaml
from conftest import REPO_ROOT
from heldout_sets import FORMATS, bench_module, coding_set, personal_set

BENCH = REPO_ROOT / "bench"
V2 = BENCH / "heldout_v2"


def test_heldout_v2_is_sealed_and_complete(tmp_path: Path) -> None:
    """16+ personal scenarios in native formats (3+ German, 2+ French, 2+ Spanish) whose
    ideal evidence quotes their own messages; 14+ coding scenarios in all three transcript
    formats, several with repeated sessions, with gold in the held-out form."""
    assert (V2 / "SEALED").is_file() and (V2 / "README.md").is_file()
    personal = personal_set(V2 / "personal", tmp_path, days=False, unescape_newlines=False)
    assert personal.sealed and personal.name == "heldout_v2_personal"
    assert len(personal.scenarios) >= 16
    assert (personal.incomplete, personal.unquoted) == (0, 0)
    assert set(personal.kinds) == {"mbox", "slack", "textchat", "jsonl"}
    lang = personal.languages()
    assert lang.count("de") >= 3 and lang.count("fr") >= 2 and lang.count("es") >= 2

    coding = coding_set(V2 / "coding", "heldout_v2_coding")
    assert len(coding.projects) >= 14 and coding.sealed
    assert coding.failing("files_and_gold", "categories", "json_lines",
                          "sessions_are_files") == []
    assert coding.formats == set(FORMATS)
    assert coding.reviewed >= 6


def _fake(name: str) -> dict:
    return {"scenario": name, "tp": 1, "produced": 2, "gold": 2, "duplicates": 0,
            "questions": 0, "asked_instead": 0, "wrong": ["event ['x'] missing"],
            "extra": ["event y"], "wrong_live": ["event ['z']"], "not_live": 1,
            "run_statuses": ["ok"], "split_ops": 0, "unplaced_ops": 0, "engine": {}}


def test_consolidation_hides_sealed_details_unless_asked(capsys) -> None:
    c = bench_module("consolidation")
    results = {"open_set": {"rules": [_fake("s-open-one")]},
               "heldout_v2_personal": {"rules": [_fake("s-sealed-one")]}}
    counts = {"open_set": 1, "heldout_v2_personal": 1}
    args = argparse.Namespace(quick=True, only=None, provider=["rules"], details=False)
    figures = c.summarise(results, {}, counts, args, frozenset({"heldout_v2_personal"}))
    out = capsys.readouterr().out
    assert "s-open-one" in out and "s-sealed-one" not in out and "heldout_v2_personal" in out
    assert figures["sets"]["heldout_v2_personal"]["providers"]["rules"]["imperfect"] == 1
    assert figures["sets"]["open_set"]["providers"]["rules"]["imperfect"] == ["s-open-one"]
    args.details = True
    c.summarise(results, {}, counts, args, frozenset({"heldout_v2_personal"}))
    assert "s-sealed-one" in capsys.readouterr().out


def test_coding_memory_sealed_set_prints_aggregates_only(tmp_path: Path) -> None:
    """--heldout DIR (the same as --scenarios DIR) on a sealed folder (here a copy of one
    dev scenario) prints the aggregate and per-category tables, never a scenario's name,
    row or judged lines."""
    root = tmp_path / "sealed" / "coding"
    shutil.copytree(BENCH / "coding_memory" / "heldout" / "cc-ingest-make", root / "one")
    (tmp_path / "sealed" / "SEALED").write_text("sealed\n", encoding="utf-8")
    env = {**os.environ, "TMPDIR": str(tmp_path)}
    proc = subprocess.run([sys.executable, "bench/coding_memory.py", "--heldout", str(root),
                           "--quick"], cwd=REPO_ROOT, capture_output=True, text=True,
                          timeout=600, env=env, check=False)
    assert proc.returncode == 0, proc.stdout[-2000:] + proc.stderr[-2000:]
    last = json.loads(proc.stdout.strip().splitlines()[-1])
    assert last["sealed"] == ["sealed_coding"] and last["sealed_coding"]["projects"] == 1
    assert last["sealed_coding"]["errors"] == 0 and "by_project" not in last
    assert "Scenario sets" in proc.stdout and "per category" in proc.stdout
    assert "per scenario" not in proc.stdout and "judged lines" not in proc.stdout
    assert "cc-ingest-make" not in proc.stdout.replace(str(root), "")
    gold = yaml.safe_load((root / "one" / "gold.yaml").read_text(encoding="utf-8"))
    assert last["sealed_coding"]["gold"] == len(gold["gold"])
    bad = subprocess.run([sys.executable, "bench/coding_memory.py", "--heldout",
                          str(tmp_path / "nothing")], cwd=REPO_ROOT, capture_output=True,
                         text=True, timeout=60, check=False)
    assert bad.returncode != 0 and "no such folder" in bad.stderr
    assert "Traceback" not in bad.stderr
