"""bench/coding_memory.py runs (--quick) through the CLI and ends with its JSON figures."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest
from conftest import REPO_ROOT, SHARED

# the quick run dreams the real sessions of ../shared/data
pytestmark = pytest.mark.shared_data


def test_coding_memory_bench_quick_prints_figures_last(tmp_path):
    env = {**os.environ, "TMPDIR": str(tmp_path), "DREAM_SHARED": str(SHARED)}
    proc = subprocess.run([sys.executable, "bench/coding_memory.py", "--quick"], cwd=REPO_ROOT,
                          capture_output=True, text=True, timeout=600, env=env, check=False)
    assert proc.returncode == 0, proc.stdout[-2000:] + proc.stderr[-2000:]
    last = json.loads(proc.stdout.strip().splitlines()[-1])
    assert last["benchmark"] == "coding_memory" and last["quick"] is True
    # every quick project was dreamed and scored (no step of the CLI failed)
    assert last["real"]["projects"] == 2 and last["real"]["errors"] == []
    assert last["dev"]["projects"] == 3 and last["dev"]["errors"] == []
    assert last["real"]["gold"] == 6 and last["dev"]["gold"] == 14
    assert set(last["dev"]["by_category"]) == {"rule", "command", "pitfall"}
    for figure in ("recall_memory", "recall_either"):
        assert 0.0 <= last["real"][figure] <= 1.0
    assert "| scenario" in proc.stdout and "| project" in proc.stdout
    assert "dev (seen)" in proc.stdout
    judged = tmp_path / "dream-bench-coding-judged_lines.md"
    assert judged.read_text(encoding="utf-8").startswith("# Judged brief lines")
