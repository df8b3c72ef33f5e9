"""Shared fixtures: every test runs in its own DREAM_HOME with real git and real SQLite."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

REPO_ROOT = Path(__file__).resolve().parents[1]


def _find_shared() -> Path:
    """``$DREAM_SHARED``, else ``shared`` beside the repository, else beside the main
    checkout of a linked worktree (``git worktree add`` puts worktrees elsewhere)."""
    if os.environ.get("DREAM_SHARED"):
        return Path(os.environ["DREAM_SHARED"])
    beside = REPO_ROOT.parent / "shared"
    if beside.is_dir():
        return beside
    proc = subprocess.run(["git", "rev-parse", "--path-format=absolute", "--git-common-dir"],
                          cwd=REPO_ROOT, capture_output=True, text=True, check=False)
    if proc.returncode == 0 and proc.stdout.strip():
        main_checkout = Path(proc.stdout.strip()).parent
        if (main_checkout.parent / "shared").is_dir():
            return main_checkout.parent / "shared"
    return beside


SHARED = _find_shared()
SHARED_DATA = SHARED / "data"
SHARED_HINT = (f"needs the shared sample data, not found at {SHARED_DATA}: put the team's "
               "'shared' folder beside the repository or set DREAM_SHARED=/path/to/shared "
               "(shared/data/SOURCES.md lists each file's public origin)")
GIT_IDENTITY = {
    "GIT_AUTHOR_NAME": "Dream Test",
    "GIT_AUTHOR_EMAIL": "test@dream.invalid",
    "GIT_COMMITTER_NAME": "Dream Test",
    "GIT_COMMITTER_EMAIL": "test@dream.invalid",
}


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line("markers", "shared_data: reads the real samples in ../shared/data")


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Without ../shared, tests marked ``shared_data`` skip (one line in the summary)."""
    if SHARED_DATA.is_dir():
        return
    skip = pytest.mark.skip(reason=SHARED_HINT)
    for item in items:
        if item.get_closest_marker("shared_data"):
            item.add_marker(skip)


def pytest_terminal_summary(terminalreporter, exitstatus, config) -> None:  # noqa: ARG001
    skipped = [r for r in terminalreporter.stats.get("skipped", [])
               if SHARED_HINT in str(getattr(r, "longrepr", ""))]
    if skipped:
        terminalreporter.write_line(f"{len(skipped)} tests skipped: {SHARED_HINT}")


@pytest.fixture(autouse=True)
def dream_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A throw-away DREAM_HOME (not created: 'dream init' creates it)."""
    home = tmp_path / "dream-home"
    monkeypatch.setenv("DREAM_HOME", str(home))
    for key, value in GIT_IDENTITY.items():
        monkeypatch.setenv(key, value)
    monkeypatch.delenv("DREAM_DEBUG", raising=False)
    return home


def git(cwd: Path, *args: str) -> str:
    env = {**os.environ, **GIT_IDENTITY}
    proc = subprocess.run(["git", *args], cwd=cwd, capture_output=True, text=True, env=env)
    assert proc.returncode == 0, proc.stderr
    return proc.stdout.strip()


@pytest.fixture
def make_repo(tmp_path: Path):
    """Make a real git repository with one commit; returns its path."""

    def _make(name: str = "proj", commit: bool = True) -> Path:
        path = tmp_path / name
        path.mkdir(parents=True)
        git(path, "init", "-q", "-b", "main")
        if commit:
            (path / "README.md").write_text(f"# {name}\n")
            git(path, "add", "-A")
            git(path, "commit", "-q", "-m", "first")
        return path

    return _make


@pytest.fixture
def repo(make_repo, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A git repository that is the current directory."""
    path = make_repo()
    monkeypatch.chdir(path)
    return path


class Dream:
    """Runs the CLI in-process (click's runner) with the test's environment."""

    def __init__(self) -> None:
        self.runner = CliRunner()

    def __call__(self, *args: str, ok: bool = True, input: str | None = None):
        from dream.cli import cli

        result = self.runner.invoke(cli, list(args), input=input, catch_exceptions=False)
        if ok and result.exit_code != 0:
            raise AssertionError(
                f"dream {' '.join(args)} exited {result.exit_code}:\n{result.output}"
            )
        return result


@pytest.fixture
def dream() -> Dream:
    return Dream()


@pytest.fixture
def dream_proc():
    """Runs ``python -m dream`` as a real process (for signals, stdio servers, exit codes)."""

    def _run(*args: str, cwd: Path | None = None, input: str | None = None,
             timeout: float = 120) -> subprocess.CompletedProcess[str]:
        env = {**os.environ, "PYTHONPATH": str(REPO_ROOT / "src")}
        return subprocess.run([sys.executable, "-m", "dream", *args], cwd=cwd, input=input,
                              capture_output=True, text=True, env=env, timeout=timeout)

    return _run


@pytest.fixture
def other_project(make_repo, dream_proc):
    """Make another repository (``other`` by default) a project the home knows, as
    'dream init' in it does; returns its path."""

    def _make(name: str = "other") -> Path:
        path = make_repo(name)
        proc = dream_proc("init", cwd=path)
        assert proc.returncode == 0, proc.stderr
        return path

    return _make
