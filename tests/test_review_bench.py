"""bench/review.py runs (--quick) and ends with its JSON figures, so it cannot rot."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest
from conftest import REPO_ROOT

pytestmark = pytest.mark.shared_data


def test_review_bench_quick_prints_figures_last(tmp_path):
    env = {**os.environ, "TMPDIR": str(tmp_path)}
    proc = subprocess.run([sys.executable, "bench/review.py", "--quick"], cwd=REPO_ROOT,
                          capture_output=True, text=True, timeout=300, env=env, check=False)
    assert proc.returncode == 0, proc.stderr
    last = json.loads(proc.stdout.strip().splitlines()[-1])
    assert last["benchmark"] == "review" and last["quick"] is True
    assert set(last["proposals_per_pass"]) == {"memory", "failures", "tools", "corrections",
                                                "codify", "project"}
    assert last["items"] == 100 and last["projects"] == 3
    assert "| project" in proc.stdout
