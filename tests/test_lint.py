"""The code stays lint-clean (ruff, with the rules chosen in pyproject.toml)."""

from __future__ import annotations

import shutil
import subprocess

from conftest import REPO_ROOT


def test_ruff_finds_nothing():
    ruff = shutil.which("ruff")
    assert ruff, "ruff is a test dependency: pip install -e '.[test]'"
    proc = subprocess.run([ruff, "check", "src", "tests", "bench"], cwd=REPO_ROOT,
                          capture_output=True, text=True, check=False)
    assert proc.returncode == 0, proc.stdout + proc.stderr
