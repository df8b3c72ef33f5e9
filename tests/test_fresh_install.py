"""A fresh install keeps passing: no deprecated API of the newest click, the shared data
skips with one line when it is missing, and the fresh-venv check is a working script."""

from __future__ import annotations

import os
import re
import subprocess
import sys

import pytest
from conftest import REPO_ROOT

# deprecated in click 8.5, removed in click 9 (click/__init__.py __getattr__)
DEPRECATED_CLICK = ("get_binary_stream", "get_text_stream", "BaseCommand", "MultiCommand",
                    "OptionParser", "protected_args")


def test_no_deprecated_click_api_in_dream() -> None:
    used = []
    for path in (REPO_ROOT / "src" / "dream").rglob("*.py"):
        text = path.read_text(encoding="utf-8")
        used += [f"{path.name}: {name}" for name in DEPRECATED_CLICK
                 if re.search(rf"\b{name}\b", text)]
    assert used == []


def test_missing_shared_data_skips_with_one_line(tmp_path) -> None:
    env = {**os.environ, "DREAM_SHARED": str(tmp_path / "nowhere"),
           "PYTHONPATH": str(REPO_ROOT / "src")}
    proc = subprocess.run([sys.executable, "-m", "pytest", "-p", "no:cacheprovider",
                           "tests/test_sources.py"], cwd=REPO_ROOT, env=env,
                          capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stdout[-2000:]
    hint = [line for line in proc.stdout.splitlines() if "tests skipped: needs the shared" in line]
    assert len(hint) == 1 and "DREAM_SHARED" in hint[0]
    assert re.search(r"\d+ passed, \d+ skipped", proc.stdout)


def test_fresh_venv_check_is_a_valid_documented_script() -> None:
    script = REPO_ROOT / "scripts" / "fresh-venv-check"
    assert subprocess.run(["bash", "-n", str(script)]).returncode == 0
    assert "pip list --outdated" in script.read_text()
    assert "scripts/fresh-venv-check" in (REPO_ROOT / "README.md").read_text()


def test_pyproject_caps_only_majors_dream_calls_deeply() -> None:
    import tomllib

    project = tomllib.loads((REPO_ROOT / "pyproject.toml").read_text())["project"]
    deps = project["dependencies"] + project["optional-dependencies"]["test"]
    capped = sorted(re.split(r"[<>=]", d)[0] for d in deps if "<" in d)
    assert capped == ["anthropic", "click", "mcp", "openai", "pydantic"]


def test_license_is_an_spdx_string_as_the_newest_setuptools_wants() -> None:
    """A license table builds with a deprecation warning today and fails from 2027."""
    import tomllib

    data = tomllib.loads((REPO_ROOT / "pyproject.toml").read_text())
    assert data["project"]["license"] == "MIT"
    assert "setuptools>=77" in data["build-system"]["requires"]


def _externally_managed_python() -> str | None:
    """A system Python on this machine marked externally managed (PEP 668), or None."""
    import shutil

    for name in ("/usr/bin/python3", shutil.which("python3") or ""):
        if name and os.path.exists(name):
            proc = subprocess.run([name, "-c", (
                "import os, sys, sysconfig; sys.exit(0 if os.path.exists(os.path.join("
                "sysconfig.get_path('stdlib'), 'EXTERNALLY-MANAGED')) and "
                "sys.prefix == sys.base_prefix else 1)")], capture_output=True)
            if proc.returncode == 0:
                return name
    return None


def test_the_test_command_uses_a_venv_where_pip_may_not_install(tmp_path) -> None:
    """scripts/test installs with the Python scripts/python-for-install names: the given
    one, or for an externally managed system Python a virtual environment made once."""
    script = REPO_ROOT / "scripts" / "python-for-install"
    assert "scripts/python-for-install" in (REPO_ROOT / "scripts" / "test").read_text()
    plain = subprocess.run(["bash", str(script), sys.executable], capture_output=True,
                           text=True, timeout=60)
    if sys.prefix == sys.base_prefix and _externally_managed_python() == sys.executable:
        pytest.skip("the test runs in an externally managed Python")
    assert plain.returncode == 0 and plain.stdout.strip() == sys.executable
    managed = _externally_managed_python()
    if managed is None:
        pytest.skip("no externally managed system Python on this machine (PEP 668)")
    env = {**os.environ, "DREAM_VENV": str(tmp_path / "venv")}
    made = subprocess.run(["bash", str(script), managed], capture_output=True, text=True,
                          timeout=300, env=env)
    assert made.returncode == 0, made.stderr
    assert made.stdout.strip() == f"{tmp_path / 'venv'}/bin/python"
    assert "is externally managed (PEP 668)" in made.stderr
    pip = subprocess.run([made.stdout.strip(), "-m", "pip", "--version"], capture_output=True,
                         text=True, timeout=120)
    assert pip.returncode == 0 and str(tmp_path / "venv") in pip.stdout
    again = subprocess.run(["bash", str(script), managed], capture_output=True, text=True,
                           timeout=60, env=env)
    assert again.stdout == made.stdout and again.stderr == ""      # made once


def test_the_quickstart_says_what_to_do_where_pip_refuses() -> None:
    readme = (REPO_ROOT / "README.md").read_text()
    quick = readme.split("## Quickstart", 1)[1].split("\n## ", 1)[0]
    assert "python3 -m pip install . && python3 -m dream demo" in quick
    assert "externally managed" in quick and "python3 -m venv .venv" in quick
    assert "pipx install ." in quick and "bash scripts/test" in quick
