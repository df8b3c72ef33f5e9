"""A benchmark that reads the shared sample data says in one line what is missing and how
to provide it, and exits non-zero at once, when the data is not there (never a traceback,
and never after minutes of its other work)."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest
from conftest import REPO_ROOT

BENCHES = ("engine", "collect", "cost", "hook", "locomo_retrieval", "longmemeval_retrieval",
           "review", "coding_memory", "throughput")


def run_bench(name: str, shared, *args: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": str(REPO_ROOT / "src"), "DREAM_SHARED": str(shared)}
    return subprocess.run([sys.executable, f"bench/{name}.py", *args], cwd=REPO_ROOT,
                          capture_output=True, text=True, env=env, timeout=60)


@pytest.mark.parametrize("name", BENCHES)
def test_a_missing_shared_folder_is_one_line_naming_it_and_the_fix(name, tmp_path):
    missing = tmp_path / "no-shared"
    proc = run_bench(name, missing, "--quick")
    assert proc.returncode == 1, (proc.stdout[-500:], proc.stderr[-2000:])
    assert "Traceback" not in proc.stderr
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1, proc.stderr
    assert lines[0].startswith("error: the shared sample data is missing")
    assert str(missing / "data") in lines[0] and "DREAM_SHARED=" in lines[0]


def test_a_file_missing_from_the_shared_data_is_named(tmp_path):
    (tmp_path / "shared" / "data").mkdir(parents=True)
    proc = run_bench("engine", tmp_path / "shared", "--quick")
    assert proc.returncode == 1 and "Traceback" not in proc.stderr
    assert proc.stderr.strip() == (
        f"error: {tmp_path / 'shared' / 'data' / 'locomo10.json'} is missing from the shared "
        "sample data; restore it (shared/data/SOURCES.md names each file's public origin) or "
        "set DREAM_SHARED=/path/to/shared to a complete copy")
