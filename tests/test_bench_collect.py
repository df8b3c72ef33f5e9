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
