"""bench/serve_pages.py runs (--quick) and ends with one JSON line of figures."""

from __future__ import annotations

import json
import subprocess
import sys

from conftest import REPO_ROOT


def test_serve_pages_benchmark_quick():
    proc = subprocess.run([sys.executable, str(REPO_ROOT / "bench" / "serve_pages.py"),
                           "--quick"], cwd=REPO_ROOT, capture_output=True, text=True,
                          timeout=600, check=False)
    assert proc.returncode == 0, proc.stderr
    figures = json.loads(proc.stdout.strip().splitlines()[-1])
    assert figures["quick"] is True and figures["runs"] == 3 and figures["requests"] == 10
    size = figures["sizes"]["1000"]
    assert size["documents"] == 1084 and size["records"] > 500
    assert set(size["pages"]) == {"front", "list", "record", "search", "session", "questions",
                                  "pictures"}
    for page in size["pages"].values():
        assert 0 < page["p95_min_ms"] <= page["p95_median_ms"] and page["first_ms"] > 0
    assert "p95 ms, min / median of 3 runs" in proc.stdout
