"""bench/hook.py runs (--quick) and ends with one JSON line of figures."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest
from conftest import REPO_ROOT

pytestmark = pytest.mark.shared_data


def test_hook_benchmark_quick():
    proc = subprocess.run([sys.executable, str(REPO_ROOT / "bench" / "hook.py"), "--quick",
                           "--runs", "2"], cwd=REPO_ROOT, capture_output=True, text=True,
                          timeout=300, check=False)
    assert proc.returncode == 0, proc.stderr
    figures = json.loads(proc.stdout.strip().splitlines()[-1])
    assert figures["quick"] is True and figures["runs"] == 2
    latency = figures["latency"]
    assert set(latency) == {"dream hook UserPromptSubmit", "dream hook SessionEnd (collects)",
                            "dream mcp start to tools/list", "floor: python -c 'import mcp'",
                            "floor: python -c 'pass'"}
    for row in latency.values():
        assert row["runs"] == 2 and 0 < row["min_ms"] <= row["median_ms"]
    bounds = figures["mcp_bounds"]
    assert bounds["own_bound_ms"] == 500 and bounds["sdk_bound_ms"] > 0
    assert "median ms" in proc.stdout and "import mcp" in proc.stdout
