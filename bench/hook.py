"""Benchmark: what an agent hook costs per call, and what the MCP server costs to start.

    python bench/hook.py [--quick] [--runs N]

Claude Code runs the `UserPromptSubmit` hook before every prompt is answered, so its
latency is felt by the user. This measures, as separate processes on a real transcript
(`shared/data/claude_code/spotter__tool_heavy.jsonl`, copied to a temporary folder):

- `dream hook` (the full CLI) for a UserPromptSubmit payload;
- `python -m dream.integrations hook` (the light entry point the installer uses), same
  payload;
- the same light entry point for SessionEnd, which also collects the transcript (the
  first call reads it, later ones find nothing new);
- `dream mcp` from process start to an answered `tools/list` (initialize, then list).

Each figure is the median and the 95th percentile of N runs (default 15; --quick: 3).
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
    return {"runs": len(values), "p50_ms": round(common.percentile(values, 50) * 1000, 1),
            "p95_ms": round(common.percentile(values, 95) * 1000, 1)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="3 runs each; no RESULTS.md.")
    parser.add_argument("--runs", type=int, default=None, help="Runs per figure.")
    args = parser.parse_args()
    runs = args.runs or (3 if args.quick else 15)
    sample = common.shared_data() / "claude_code" / "spotter__tool_heavy.jsonl"
    figures: dict[str, Any] = {"quick": args.quick, "runs": runs}
    with common.temp_home("dream-bench-hook-") as tmp:
        repo = tmp / "repo"
        repo.mkdir()
        subprocess.run(["git", "init", "-q"], cwd=repo, check=True)
        common.dream_cli("init", cwd=repo)
        transcript = tmp / "session.jsonl"
        shutil.copy(sample, transcript)
        env = {**os.environ, "PYTHONPATH": str(common.REPO / "src")}

        def payload(event: str, n: int) -> str:
            return json.dumps({"session_id": "bench", "transcript_path": str(transcript),
                               "cwd": str(repo), "hook_event_name": event, "n": n})

        full = [sys.executable, "-m", "dream", "hook", "--agent", "claude-code"]
        light = [sys.executable, "-m", "dream.integrations", "hook", "--agent", "claude-code"]
        rows = {
            "dream hook UserPromptSubmit": [timed(full, payload("UserPromptSubmit", i), repo,
                                                  env) for i in range(runs)],
            "light hook UserPromptSubmit": [timed(light, payload("UserPromptSubmit", i), repo,
                                                  env) for i in range(runs)],
            "light hook SessionEnd (collects)": [timed(light, payload("SessionEnd", i), repo,
                                                       env) for i in range(runs)],
            "dream mcp start to tools/list": [mcp_list(repo, env) for _ in range(runs)],
        }
    figures["latency"] = {name: stats(values) for name, values in rows.items()}
    table = common.table(["call", "runs", "p50 ms", "p95 ms"],
                         [[k, v["runs"], v["p50_ms"], v["p95_ms"]]
                          for k, v in figures["latency"].items()])
    print("Hook and MCP start-up latency (separate processes)\n")
    print(table)
    if not args.quick:
        common.append_results("Hook and MCP start-up latency", table, figures)
    common.emit_last_json(figures)


if __name__ == "__main__":
    main()
