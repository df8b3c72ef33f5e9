"""Benchmark 4: throughput in one report, from the other benchmarks' own functions.

    python bench/throughput.py [--quick]

  collect     MB/s reading agent transcripts into the spool   (bench/collect.py)
  engine      items/s through all six stages, zero-latency provider (bench/engine.py)
  search      p50/p95 ms at 10,000 and 100,000 notes           (bench/store.py)
  read        ms per document read at a pinned commit           (bench/store.py)

Each section imports the function of the benchmark that owns the measurement, so the
numbers here are the same measurement, not a second implementation. A section whose
benchmark script is missing says so in the output (``missing``) instead of a number.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import os
import subprocess
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path
from types import ModuleType
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
import common

# the 100,000-note store dominates a full run (about 12 of its 14 minutes on the shared
# 2-core machine with 100 MB of collect too); bench/collect.py itself covers 100 MB and 1 GB
FULL = {"search_sizes": [10_000, 100_000], "reads": 1000, "queries": 200,
        "collect_mb": [10], "engine_items": [10_000, 100_000]}
QUICK = {"search_sizes": [1000], "reads": 200, "queries": 50, "collect_mb": [2],
         "engine_items": [1000]}


def load_bench(name: str) -> ModuleType | None:
    """bench/<name>.py as module ``bench_<name>`` (so it cannot shadow a Dream module)."""
    path = common.BENCH / f"{name}.py"
    if not path.exists():
        return None
    spec = importlib.util.spec_from_file_location(f"bench_{name}", path)
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


def section(name: str, fn: Callable[[], dict[str, Any]], missing: dict[str, str]
            ) -> dict[str, Any] | None:
    try:
        return fn()
    except MissingBench as exc:
        missing[name] = str(exc)
    return None


class MissingBench(Exception):
    pass


# -- sections --------------------------------------------------------------------------------
def store_figures(cfg: dict[str, Any]) -> dict[str, Any]:
    mod = load_bench("store")
    if mod is None or not all(hasattr(mod, f) for f in ("make_store", "bench_search",
                                                       "bench_reads")):
        raise MissingBench("bench/store.py (make_store, bench_search, bench_reads) not found")
    from dream import db, index

    out: dict[str, Any] = {"search": {}, "read": None}
    for n in cfg["search_sizes"]:
        with tempfile.TemporaryDirectory(prefix=f"throughput-store-{n}-") as tmp:
            root = Path(tmp)
            store = mod.make_store(root / "store", n)
            conn = db.connect(root / "dream.db")
            index.reindex(conn, [store], force=True)
            out["search"][str(n)] = mod.bench_search(conn, store, cfg["queries"])
            if n == cfg["search_sizes"][0]:
                reads = mod.bench_reads(store, cfg["reads"])
                reads["ms_per_document"] = round(reads["seconds"] * 1000 /
                                                 max(1, reads["documents"]), 4)
                out["read"] = reads
            conn.close()
            store.repo.close()
    return out


def collect_figures(cfg: dict[str, Any]) -> dict[str, Any]:
    mod = load_bench("collect")
    fn = getattr(mod, "bench_collect", None) if mod else None   # generates, collects, cleans
    if fn is None:
        raise MissingBench("bench/collect.py with bench_collect(size_mb) not found")
    return {str(mb): fn(mb) for mb in cfg["collect_mb"]}


def engine_figures(cfg: dict[str, Any]) -> dict[str, Any]:
    """bench/engine.py measures one size per child process (``--one N`` runs its
    ``engine_one``), so that peak memory is per size; this runs it the same way."""
    mod = load_bench("engine")
    if mod is None or not hasattr(mod, "engine_one"):
        raise MissingBench("bench/engine.py with engine_one(items) / --one N not found")
    out = {}
    env = {**os.environ, **common.GIT_IDENTITY, "PYTHONPATH": str(common.REPO / "src")}
    for n in cfg["engine_items"]:
        proc = subprocess.run([sys.executable, str(common.BENCH / "engine.py"), "--one",
                               str(n)], capture_output=True, text=True, env=env, timeout=3600,
                              check=False)
        if proc.returncode != 0:
            raise RuntimeError(f"bench/engine.py --one {n} failed: {proc.stderr[-1500:]}")
        out[str(n)] = json.loads(proc.stdout.strip().splitlines()[-1])
    return out


# -- report ----------------------------------------------------------------------------------
def pick(d: dict[str, Any] | None, *names: str) -> Any:
    for name in names:
        if d and name in d:
            return d[name]
    return None


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true",
                        help="1,000 notes, 2 MB, 1,000 items; no RESULTS.md section")
    args = parser.parse_args()
    cfg = QUICK if args.quick else FULL
    missing: dict[str, str] = {}
    figures: dict[str, Any] = {"benchmark": "throughput", "quick": bool(args.quick),
                               "missing": missing}
    figures["collect"] = section("collect", lambda: collect_figures(cfg), missing)
    figures["engine"] = section("engine", lambda: engine_figures(cfg), missing)
    store = section("store", lambda: store_figures(cfg), missing)
    figures["search"] = store["search"] if store else None
    figures["read_at_commit"] = store["read"] if store else None

    rows = []
    for size, f in (figures["collect"] or {}).items():
        rows.append(["collect", f"{size} MB", pick(f, "mb_per_s", "MB_per_s"), "MB/s"])
    for n, f in (figures["engine"] or {}).items():
        rows.append(["engine", f"{int(n):,} items", pick(f, "items_per_s"), "items/s"])
    for n, f in (figures["search"] or {}).items():
        rows.append(["search p50", f"{int(n):,} notes", f["p50_ms"], "ms"])
        rows.append(["search p95", f"{int(n):,} notes", f["p95_ms"], "ms"])
    if figures["read_at_commit"]:
        r = figures["read_at_commit"]
        rows.append(["read at commit", f"{r['documents']:,} documents",
                     r["ms_per_document"], "ms/document"])
    for name, why in missing.items():
        rows.append([name, "missing", None, why])
    text = common.table(["measure", "size", "value", "unit"], rows)
    print(text)
    if not args.quick:
        series = {}
        if figures["search"]:
            sizes = list(figures["search"])
            series = {"p50": [figures["search"][s]["p50_ms"] for s in sizes],
                      "p95": [figures["search"][s]["p95_ms"] for s in sizes]}
            common.bar_plot(common.PLOTS / "throughput_search.png", "Search latency",
                            [f"{int(s):,} notes" for s in sizes], series, "ms")
        common.publish("throughput", "Throughput (bench/throughput.py)", text, figures)
    common.emit_last_json(figures)


if __name__ == "__main__":
    main()
