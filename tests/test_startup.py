"""Start-up near the floor: each command imports only what it uses. Checked on the set of
modules a real process has imported when it exits (sys.modules), never on wall-clock time."""

from __future__ import annotations

import json
import os
import subprocess
import sys

from conftest import REPO_ROOT

HEAVY = ("pydantic", "yaml", "rich", "mcp", "openai", "anthropic", "orjson", "bpe_openai",
         "dream.pipeline", "dream.kinds", "dream.models", "dream.spool", "dream.sources",
         "dream.review", "dream.passes", "dream.index", "dream.notes",
         "detect_secrets", "requests")  # the secret detector: imported on a hint only


# runs `python -m MODULE ARGS` and writes the modules it imported to a file at exit
PROBE = """
import atexit, json, runpy, sys
out = sys.argv.pop(1)
atexit.register(lambda: open(out, "w").write(json.dumps(sorted(sys.modules))))
module = sys.argv.pop(1)
runpy.run_module(module, run_name="__main__", alter_sys=True)
"""


def imported(*args: str, module: str = "dream", stdin: str = "", cwd=None) -> set[str]:
    import tempfile

    env = {**os.environ, "PYTHONPATH": str(REPO_ROOT / "src")}
    with tempfile.TemporaryDirectory() as tmp:
        out = os.path.join(tmp, "modules.json")
        proc = subprocess.run([sys.executable, "-c", PROBE, out, module, *args], input=stdin,
                              capture_output=True, text=True, env=env, cwd=cwd, timeout=120)
        assert proc.returncode == 0, proc.stderr[-2000:]
        with open(out) as fh:
            return set(json.load(fh))


def heavy_in(modules: set[str]) -> list[str]:
    return sorted(m for m in modules for h in HEAVY if m == h or m.startswith(h + "."))


def test_import_dream_cli_loads_no_command_module() -> None:
    env = {**os.environ, "PYTHONPATH": str(REPO_ROOT / "src")}
    code = "import sys, json, dream.cli; print(json.dumps(sorted(sys.modules)))"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         env=env, timeout=120, check=True).stdout
    modules = set(json.loads(out))
    assert heavy_in(modules) == []
    assert sorted(m for m in modules if m.startswith("dream")) == \
        ["dream", "dream.cli", "dream.errors"]


def test_version_imports_only_click_and_dream() -> None:
    modules = imported("--version")
    assert sorted(m for m in modules if m.startswith("dream")) == \
        ["dream", "dream.cli", "dream.errors"]
    assert "click" in modules
    assert heavy_in(modules) == []


def test_status_json_never_loads_the_pipeline_or_models(repo, dream) -> None:
    dream("init")
    modules = imported("status", "--json", cwd=repo)
    assert "dream.cli.core" in modules and "dream.cli.run" not in modules
    assert heavy_in(modules) == []


def test_light_hook_never_loads_the_cli_or_the_pipeline(repo, dream) -> None:
    dream("init")
    payload = json.dumps({"session_id": "s", "cwd": str(repo),
                          "hook_event_name": "UserPromptSubmit"})
    modules = imported("hook", "--agent", "claude-code", module="dream.integrations",
                       stdin=payload, cwd=repo)
    assert "dream.integrations.hook" in modules
    assert not any(m.startswith("dream.cli") for m in modules)
    assert heavy_in(modules) == []


def test_every_registered_command_is_named_for_lazy_loading() -> None:
    """A command a module registers but COMMANDS does not name could never be run."""
    import importlib

    import click

    from dream.cli import COMMAND_MODULES, COMMANDS

    for module in COMMAND_MODULES:
        group = click.Group()
        importlib.import_module(module).register(group)
        named = {name for name, mod in COMMANDS.items() if mod == module}
        assert set(group.commands) == named, module


def test_a_command_missing_from_COMMANDS_still_runs(monkeypatch) -> None:
    import dream.cli as cli_mod

    monkeypatch.setattr(cli_mod, "COMMANDS",
                        {k: v for k, v in cli_mod.COMMANDS.items() if k != "prepare"})
    group = cli_mod.DreamGroup(name="dream")
    assert group.get_command(None, "prepare") is not None      # type: ignore[arg-type]
    assert group.get_command(None, "nosuch") is None            # type: ignore[arg-type]
    assert "prepare" in group.list_commands(None)               # type: ignore[arg-type]


def test_help_still_lists_every_command(dream) -> None:
    from dream.cli import COMMANDS

    out = dream("--help").output
    assert all(f"  {name} " in out for name in COMMANDS)


def test_startup_benchmark_quick_reports_both_floors(tmp_path) -> None:
    env = {**os.environ, "PYTHONPATH": str(REPO_ROOT / "src")}
    env.pop("DREAM_HOME", None)
    proc = subprocess.run([sys.executable, "bench/startup.py", "--quick", "--runs", "1"],
                          cwd=REPO_ROOT, capture_output=True, text=True, env=env, timeout=300)
    assert proc.returncode == 0, proc.stderr[-2000:]
    figures = json.loads(proc.stdout.strip().splitlines()[-1])
    assert figures["benchmark"] == "startup" and figures["quick"] is True
    assert set(figures["rows"]) == {"python -c pass", "python -c 'import click'",
                                    "dream --version", "dream status --json",
                                    "light hook UserPromptSubmit"}
    for row in figures["rows"].values():
        assert 0 < row["min_ms"] <= row["median_ms"] and row["x_click"] > 0
