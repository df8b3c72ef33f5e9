"""bench/collect.py --quick runs and prints its figures as the last line (so it cannot rot)."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest
from conftest import REPO_ROOT

pytestmark = pytest.mark.shared_data


def test_collect_benchmark_quick() -> None:
    proc = subprocess.run([sys.executable, "bench/collect.py", "--quick"], cwd=REPO_ROOT,
                          capture_output=True, text=True, timeout=300,
                          env={**os.environ, "PYTHONPATH": str(REPO_ROOT / "src")}, check=False)
    assert proc.returncode == 0, proc.stderr
    lines = proc.stdout.strip().splitlines()
    figures = json.loads(lines[-1])
    assert "MB/s" in lines[0]
    run = figures["sizes"]["2"]
    assert figures["benchmark"] == "collect" and figures["quick"] is True
    assert 1_500_000 <= run["bytes"] <= 2_000_000
    # every unreadable line planted by the real samples is one counted skip, no more
    assert run["skipped"] == run["unreadable_lines_written"]
    assert run["items"] > 500 and run["mb_per_s"] > 0 and run["peak_rss_mb"] > 0
    # collecting again finds nothing new, from stat alone
    assert run["recollect_new_items"] == 0 and run["recollect_unchanged"] == run["files"]
    assert figures["mb_per_s"] == run["mb_per_s"]


def test_repeated_collects_report_the_median_and_the_best_run() -> None:
    sys.path.insert(0, str(REPO_ROOT / "bench"))
    import collect as bench_collect

    runs = [{"seconds": s, "mb_per_s": 10 / s, "cpu_s": s * 1.5, "mb_per_cpu_s": 10 / (s * 1.5),
             "recollect_s": r, "peak_rss_mb": m, "worker_peak_rss_mb": m - 1}
            for s, r, m in ((2.0, 0.01, 30), (1.0, 0.03, 33), (4.0, 0.02, 31))]
    got = bench_collect.repeated(runs)
    assert got["seconds_all"] == [2.0, 1.0, 4.0]
    assert got["seconds"] == 2.0 and got["seconds_min"] == 1.0
    assert got["mb_per_s"] == 5.0 and got["mb_per_s_best"] == 10.0
    assert got["recollect_s"] == 0.02 and got["recollect_min_s"] == 0.01
    assert got["peak_rss_mb"] == 33 and got["worker_peak_rss_mb"] == 32
