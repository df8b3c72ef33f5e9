"""Benchmark: what an agent hook costs per call, and what the MCP server costs to start.

    python bench/hook.py [--quick] [--runs N]

Claude Code runs the `UserPromptSubmit` hook before every prompt is answered, so its
latency is felt by the user; Codex waits for `dream mcp` before a `codex exec` starts. This
measures, as separate processes on a real transcript
(`shared/data/claude_code/spotter__tool_heavy.jsonl`, copied to a temporary folder):

- `dream hook` for a UserPromptSubmit payload (what the installed hooks run; it skips
  loading the other commands);
- `dream hook` for SessionEnd, which also collects the transcript (the first call reads
  it, later ones find nothing new);
- `dream mcp` from process start to an answered `tools/list` (initialize, then list),
  interleaved with its two floors: `python -c 'import mcp'` (the SDK's import alone; the
  bound is 1.3x its median) and 0.5 s (the bound for a server of Dream's own).

Each figure is the min and the median of N runs (default 15 for hooks, 5 for the MCP
rows; --quick: 3).
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
import common  # noqa: E402  (puts <repo>/src on sys.path)


def timed(cmd: list[str], stdin: str, cwd: Path, env: dict[str, str]) -> float:
    start = time.perf_counter()
    proc = subprocess.run(cmd, input=stdin, capture_output=True, text=True, cwd=cwd, env=env,
                          timeout=120, check=False)
    elapsed = time.perf_counter() - start
    if proc.returncode != 0 or "warning" in proc.stderr:
        raise RuntimeError(f"{' '.join(cmd)} failed: {proc.stderr.strip()}")
    return elapsed


def mcp_list(cwd: Path, env: dict[str, str]) -> float:
    """Seconds from process start to the answer to tools/list (stdin kept open until then,
    as a real client does)."""
    msgs = [
        {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
            "protocolVersion": "2025-06-18", "capabilities": {},
            "clientInfo": {"name": "bench", "version": "0"}}},
        {"jsonrpc": "2.0", "method": "notifications/initialized"},
        {"jsonrpc": "2.0", "id": 2, "method": "tools/list"},
    ]
    start = time.perf_counter()
    proc = subprocess.Popen([sys.executable, "-m", "dream", "mcp"], cwd=cwd, env=env,
                            text=True, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                            stderr=subprocess.DEVNULL)
    assert proc.stdin and proc.stdout
    listed = None
    try:
        proc.stdin.write("".join(json.dumps(m) + "\n" for m in msgs))
        proc.stdin.flush()
        for line in proc.stdout:
            reply = json.loads(line)
            if reply.get("id") == 2:
                listed = reply
                break
        elapsed = time.perf_counter() - start
        proc.stdin.close()
        proc.wait(timeout=60)
    finally:
        if proc.poll() is None:
            proc.kill()
        proc.stdout.close()
    if not listed or not listed["result"]["tools"]:
        raise RuntimeError(f"dream mcp did not list tools (exit {proc.returncode})")
    return elapsed


def stats(values: list[float]) -> dict[str, float]:
    return {"runs": len(values), "min_ms": round(min(values) * 1000, 1),
            "median_ms": round(common.percentile(values, 50) * 1000, 1)}


def python_c(code: str, env: dict[str, str]) -> float:
    start = time.perf_counter()
    subprocess.run([sys.executable, "-c", code], env=env, check=True, timeout=120)
    return time.perf_counter() - start


MCP_BOUND_S = 0.5          # a stdio server of Dream's own: start to tools/list
MCP_FACTOR = 1.3           # or this many times `import mcp`


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="3 runs each; no RESULTS.md.")
    parser.add_argument("--runs", type=int, default=None, help="Runs per figure.")
    args = parser.parse_args()
    runs = args.runs or (3 if args.quick else 15)
    mcp_runs = args.runs or (3 if args.quick else 5)
    sample = common.shared_data("claude_code", "spotter__tool_heavy.jsonl")
    figures: dict[str, Any] = {"quick": args.quick, "runs": runs}
    with common.temp_home("dream-bench-hook-") as tmp:
        repo = tmp / "repo"
        repo.mkdir()
        subprocess.run(["git", "init", "-q"], cwd=repo, check=True)
        common.dream_cli("init", cwd=repo)
        transcript = tmp / "session.jsonl"
        shutil.copy(sample, transcript)
        env = {**os.environ, "PYTHONPATH": str(common.REPO / "src"),
               "DREAM_CLAUDE_DIR": str(tmp)}   # the session folder the hook may read

        def payload(event: str, n: int) -> str:
            return json.dumps({"session_id": "bench", "transcript_path": str(transcript),
                               "cwd": str(repo), "hook_event_name": event, "n": n})

        hook = [sys.executable, "-m", "dream", "hook", "--agent", "claude-code"]
        rows = {
            "dream hook UserPromptSubmit": [timed(hook, payload("UserPromptSubmit", i), repo,
                                                  env) for i in range(runs)],
            "dream hook SessionEnd (collects)": [timed(hook, payload("SessionEnd", i), repo,
                                                       env) for i in range(runs)],
        }
        mcp_rows: dict[str, list[float]] = {"dream mcp start to tools/list": [],
                                            "floor: python -c 'import mcp'": [],
                                            "floor: python -c 'pass'": []}
        for _ in range(mcp_runs):            # interleaved: each sees the same load
            mcp_rows["dream mcp start to tools/list"].append(mcp_list(repo, env))
            mcp_rows["floor: python -c 'import mcp'"].append(python_c("import mcp", env))
            mcp_rows["floor: python -c 'pass'"].append(python_c("pass", env))
        rows.update(mcp_rows)
    figures["latency"] = {name: stats(values) for name, values in rows.items()}
    mcp = figures["latency"]["dream mcp start to tools/list"]["median_ms"]
    sdk = figures["latency"]["floor: python -c 'import mcp'"]["median_ms"]
    figures["mcp_bounds"] = {
        "sdk_bound_ms": round(sdk * MCP_FACTOR, 1), "own_bound_ms": MCP_BOUND_S * 1000,
        "within_sdk_bound": mcp <= sdk * MCP_FACTOR, "within_own_bound": mcp <= MCP_BOUND_S * 1000}
    figures["load"] = os.getloadavg()[0]
    table = common.table(["call", "runs", "min ms", "median ms"],
                         [[k, v["runs"], v["min_ms"], v["median_ms"]]
                          for k, v in figures["latency"].items()])
    print("Hook and MCP start-up latency (separate processes)\n")
    print(table)
    bounds = figures["mcp_bounds"]
    print(f"\ndream mcp median {mcp} ms; bounds: {MCP_FACTOR}x import mcp = "
          f"{bounds['sdk_bound_ms']} ms ({'within' if bounds['within_sdk_bound'] else 'over'}), "
          f"{bounds['own_bound_ms']:.0f} ms ({'within' if bounds['within_own_bound'] else 'over'}); "
          f"load average {figures['load']:.2f}")
    if not args.quick:
        common.append_results("Hook and MCP start-up latency", table, figures)
    common.emit_last_json(figures)


if __name__ == "__main__":
    main()
