"""Benchmark: how long a command takes to start, next to the interpreter's own floor.

    python bench/startup.py [--quick] [--runs N]

Each row is a separate process, measured in the same run and interleaved (one of each per
round), so machine load weighs on every row alike:

- `python -c pass` (the interpreter) and `python -c 'import click'` (the CLI framework):
  the two floors;
- `dream --version`; `dream status --json` in an initialised repository;
- the light hook (`python -m dream.integrations hook`, what the installer wires in) for a
  UserPromptSubmit payload, which records context use and collects nothing.

Figures are min/median of N runs (default 5; --quick: 2) in milliseconds, each command's
median as a multiple of both floors' medians, and its min as a multiple of the min of
`import click` (the figure load distorts least). Targets when the machine is idle:
`--version` within 1.5x and `status --json` within 2.5x of `import click`.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
import common  # noqa: E402  (puts <repo>/src on sys.path)

TARGETS = {"dream --version": 1.5, "dream status --json": 2.5}


def timed(cmd: list[str], cwd: Path, env: dict[str, str], stdin: str = "") -> float:
    start = time.perf_counter()
    proc = subprocess.run(cmd, input=stdin, capture_output=True, text=True, cwd=cwd, env=env,
                          timeout=120, check=False)
    elapsed = time.perf_counter() - start
    if proc.returncode != 0 or "warning" in proc.stderr:
        raise RuntimeError(f"{' '.join(cmd)} failed: {proc.stderr.strip()}")
    return elapsed


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="2 runs each; no RESULTS.md.")
    parser.add_argument("--runs", type=int, default=None, help="Runs per row (default 5).")
    args = parser.parse_args()
    runs = args.runs or (2 if args.quick else 5)
    py = sys.executable
    with common.temp_home("dream-bench-startup-") as tmp:
        repo = tmp / "repo"
        repo.mkdir()
        subprocess.run(["git", "init", "-q"], cwd=repo, check=True)
        common.dream_cli("init", cwd=repo)
        env = {**os.environ, "PYTHONPATH": str(common.REPO / "src")}
        payload = json.dumps({"session_id": "bench", "cwd": str(repo),
                              "hook_event_name": "UserPromptSubmit"})
        commands: dict[str, tuple[list[str], str]] = {
            "python -c pass": ([py, "-c", "pass"], ""),
            "python -c 'import click'": ([py, "-c", "import click"], ""),
            "dream --version": ([py, "-m", "dream", "--version"], ""),
            "dream status --json": ([py, "-m", "dream", "status", "--json"], ""),
            "light hook UserPromptSubmit": ([py, "-m", "dream.integrations", "hook",
                                             "--agent", "claude-code"], payload),
        }
        samples: dict[str, list[float]] = {name: [] for name in commands}
        for _ in range(runs):
            for name, (cmd, stdin) in commands.items():
                samples[name].append(timed(cmd, repo, env, stdin))
    floor_pass = statistics.median(samples["python -c pass"])
    floor_click = statistics.median(samples["python -c 'import click'"])
    min_click = min(samples["python -c 'import click'"])
    rows: dict[str, dict[str, Any]] = {}
    for name, values in samples.items():
        med = statistics.median(values)
        rows[name] = {"min_ms": round(min(values) * 1000, 1),
                      "median_ms": round(med * 1000, 1),
                      "x_pass": round(med / floor_pass, 2),
                      "x_click": round(med / floor_click, 2),
                      # min against min: what load adds to a run weighs least here
                      "x_click_min": round(min(values) / min_click, 2)}
        if name in TARGETS:
            rows[name]["target_x_click"] = TARGETS[name]
            rows[name]["meets_target"] = rows[name]["x_click"] <= TARGETS[name]
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else None
    figures: dict[str, Any] = {"benchmark": "startup", "quick": args.quick, "runs": runs,
                               "load_1min": load, "rows": rows}
    table = common.table(
        ["command", "min ms", "median ms", "x python", "x import click", "min x click min",
         "target (median)"],
        [[k, v["min_ms"], v["median_ms"], v["x_pass"], v["x_click"], v["x_click_min"],
          f"<= {v['target_x_click']}x {'met' if v['meets_target'] else 'MISSED'}"
          if "target_x_click" in v else ""] for k, v in rows.items()])
    print(f"Start-up, min/median of {runs} interleaved runs (1-minute load {load:.2f})\n")
    print(table)
    if not args.quick:
        common.append_results("Start-up next to the interpreter and click", table, figures)
    common.emit_last_json(figures)


if __name__ == "__main__":
    main()
