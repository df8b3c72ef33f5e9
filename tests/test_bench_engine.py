"""bench/engine.py --quick runs and ends with its JSON figures (so the benchmark cannot rot)."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest
from conftest import REPO_ROOT, SHARED_DATA

pytestmark = pytest.mark.shared_data


def test_engine_benchmark_quick(tmp_path):
    env = {**os.environ, "PYTHONPATH": str(REPO_ROOT / "src"), "TMPDIR": str(tmp_path),
           "DREAM_SHARED": str(SHARED_DATA.parent)}
    proc = subprocess.run([sys.executable, "bench/engine.py", "--quick"], cwd=REPO_ROOT,
                          capture_output=True, text=True, env=env, timeout=600)
    assert proc.returncode == 0, proc.stderr[-2000:]
    figures = json.loads(proc.stdout.strip().splitlines()[-1])
    assert figures["quick"] is True
    engine = figures["engine"][0]
    assert engine["items"] == engine["processed"] == 1000 and engine["statuses"] == ["ok"]
    assert engine["bundles"] > 0 and engine["peak_rss_mb"] > 0
    cost = figures["locomo"]
    assert cost["items"] > 500 and cost["calls"] >= cost["runs"] > 0
    per_k = cost["per_1000_items"]
    assert per_k["input_tokens"] > per_k["output_tokens"] > 0
    assert isinstance(cost["usd_per_1000_items"]["openai:gpt-4o-mini"], float)
    weekly = figures["locomo_weekly"]
    assert weekly["days_per_run"] == 7 and weekly["items"] == cost["items"]
    assert weekly["runs"] < cost["runs"] and weekly["cached_tokens"] > 0
    assert "Engine overhead" in proc.stdout
