"""bench/store.py runs (--quick) and ends with one JSON line of figures."""

from __future__ import annotations

import json
import subprocess
import sys

from conftest import REPO_ROOT


def test_store_benchmark_quick():
    proc = subprocess.run([sys.executable, str(REPO_ROOT / "bench" / "store.py"), "--quick"],
                          cwd=REPO_ROOT, capture_output=True, text=True, timeout=300, check=False)
    assert proc.returncode == 0, proc.stderr
    lines = proc.stdout.strip().splitlines()
    figures = json.loads(lines[-1])
    assert figures["quick"] is True
    search = figures["search"]["1000"]
    assert search["queries"] == 50 and 0 < search["p50_ms"] <= search["p95_ms"]
    assert search["mean_hits"] > 0 and 0.9 <= search["top8_agreement"] <= 1
    reindex = figures["reindex"]["1000"]
    assert reindex["documents"] == 1000 and reindex["rerun_skipped"] == 1000
    assert reindex["rerun_indexed"] == 0
    assert figures["reads"]["documents"] == 1000
    assert figures["dream_write"]["notes"] == 1000 and figures["dream_write"]["commits"] == 1
    assert "search p50 / p95" in proc.stdout
    assert 0 < search["p95_min_ms"] <= search["p95_ms"]
    assert 0 < figures["reads"]["seconds_min"] <= figures["reads"]["seconds"]
    latency = figures["write_latency"]["1000"]
    assert latency["repeats"] >= 3
    assert 0 < latency["dream_min_s"] <= latency["dream_median_s"]
    assert 0 < latency["git_min_s"] <= latency["git_median_s"]
