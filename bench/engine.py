"""Engine benchmark for the dream run (issue 4).

1. Engine overhead: N synthetic items (personal messages, coding-session statements, tool
   results, assistant prose over many streams and days) go through all six stages with the
   zero-latency ``scripted:zero`` provider, in runs of 5,000 items (``--rounds`` until the
   spool drains). Each size runs in its own process so peak RSS is per size; memory is flat
   when the peak does not grow with N. Each size runs ``--repeats`` times (3), in fresh
   processes; seconds are shown as min / median.
2. Model cost per run on LoCoMo: every LoCoMo session is one day's traffic (collected, then
   one dream run). The rules provider answers, wrapped so that each request is measured as
   a hosted model would bill it: input tokens (prefix + body, counted with Dream's
   tokenizer), cached-prefix tokens (the prefix of every call after the first in a run) and
   output tokens (the JSON answer). Figures per 1,000 items, priced with Dream's table.

    python bench/engine.py            # 10,000 and 100,000 items, all of LoCoMo
    python bench/engine.py --quick    # ~1,000 items, two LoCoMo conversations
"""

from __future__ import annotations

import argparse
import json
import os
import random
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path

BENCH = Path(__file__).resolve().parent
sys.path.insert(0, str(BENCH.parent / "src"))
sys.path.insert(0, str(BENCH))

import common  # noqa: E402

PEOPLE = ["Jordan", "Sam", "Alex", "Priya", "Marco", "Lena", "Tomas", "Aiko", "Ravi", "Nora"]
PLACES = ["Nobu", "Dishoom", "Hoppers", "Zuma", "Padella", "Barrafina"]
PERSONAL = [
    "Dinner on {day} at {h}pm at {place}?", "Can you send me the {thing} by {day}?",
    "Sounds good, see you there.", "I booked {place} instead for {day} at {h}pm.",
    "Remind me to renew the {thing} before {day}.", "Sent the {thing}, check your inbox.",
    "{person}'s birthday is {d} June.", "Lunch tomorrow at 12:30 at {place}, you in?",
]
CODING = [
    "Always run the tests with uv run pytest -q, never npm.",
    "No, keep the {thing} module as it is and fix the caller.",
    "I prefer small commits with a one-line summary.",
    "Please look at the failing {thing} test.",
]
THINGS = ["invoice", "passport", "report", "parser", "billing", "cache", "slides", "contract"]
DAYS = ["Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday"]


def synthetic_items(n: int, seed: int = 7) -> list[tuple]:
    rng = random.Random(seed)
    start = datetime(2026, 1, 1, 8, tzinfo=UTC)
    rows = []
    now = common.datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%S.000Z")
    for i in range(n):
        said = start + timedelta(minutes=7 * i)
        fill = dict(day=rng.choice(DAYS), h=rng.randint(6, 9), place=rng.choice(PLACES),
                    thing=rng.choice(THINGS), person=rng.choice(PEOPLE), d=rng.randint(1, 28))
        r = rng.random()
        project = None
        if r < 0.45:
            person = rng.choice(PEOPLE)
            role, kind, ev, author = ("other", "message", 1, person) if rng.random() < 0.6 \
                else ("user", "statement", 1, "me")
            text, stream, tool, err = rng.choice(PERSONAL).format(**fill), \
                f"sms-{person.lower()}", None, None
            ents = [person.lower()]
        else:
            project = "bench-0000abcd"
            stream = f"session-{i // 400}"
            ents = []
            if r < 0.65:
                role, kind, ev, author, tool, err = "user", "statement", 1, "me", None, None
                text = rng.choice(CODING).format(**fill)
            elif r < 0.8:
                role, kind, ev, author, tool, err = "tool", "tool_result", 1, None, "Bash", 1
                text = (f"Traceback (most recent call last):\n  File \"/src/{fill['thing']}.py\","
                        f" line {rng.randint(1, 400)}\nKeyError: '{fill['thing']}'")
            else:
                role, kind, ev, author, tool, err = "assistant", "assistant", 0, "assistant", \
                    None, None
                text = f"I'll look at the {fill['thing']} code and run the tests. " * 3
        rows.append((f"bench-{i:07d}", "jsonl", "bench", f"bench:{i}", stream, project, author,
                     role, said.strftime("%Y-%m-%dT%H:%M:%S.000Z"), text, tool, err, kind, ev,
                     json.dumps(ents), now))
    return rows


def insert_items(conn, rows: list[tuple]) -> None:
    conn.execute("BEGIN")
    conn.executemany(
        "INSERT INTO items(id, source, source_path, ref, stream, project_key, author, role,"
        " said_at, text, tool_name, is_error, kind, evidence, entities, collected_at)"
        " VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)", rows)
    conn.execute("COMMIT")


def manage_bench_project(app) -> str:
    """Make the synthetic items' project known to the notes home (as 'dream init' in its
    repository would); returns its name."""
    from dream.store.lock import write_lock
    from dream.store.store import Store

    with write_lock(app.home.notes_path, "bench"):
        store = Store.load(app.home.notes_path)
        store.add_project("bench-0000abcd", "bench", primary=True)
        store.save(subject="bench project")
    return "bench"


def engine_one(n: int) -> dict:
    """Run in a child process: N items through all six stages, through the core's run
    (``dream run --project bench --model scripted:zero --rounds 1000``); returns figures."""
    from dream.core import dreams

    with tempfile.TemporaryDirectory(prefix="dream-engine-") as tmp:
        os.environ["DREAM_HOME"] = str(Path(tmp) / "home")
        for k, v in common.GIT_IDENTITY.items():
            os.environ[k] = v
        app = common.new_app(cwd=Path(tmp))
        project = manage_bench_project(app)
        insert_items(app.db, synthetic_items(n))
        stage_time: dict[str, float] = {}
        last = {"stage": None, "t": time.perf_counter()}

        def progress(stage: str, done: int, total: int) -> None:
            t = time.perf_counter()
            if last["stage"]:
                stage_time[last["stage"]] = stage_time.get(last["stage"], 0) + t - last["t"]
            last.update(stage=stage, t=t)

        started = time.perf_counter()
        done, _key = dreams.run(app, progress=progress, project=project,
                                model="scripted:zero", rounds=1000, max_items=5000)
        rows = [r.as_dict() for r in done]
        seconds = time.perf_counter() - started
        files = len(app.notes_store().repo.list_files(app.notes_store().repo.head()))
        app.close()
    peak_kb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    return {"items": n, "seconds": round(seconds, 2), "items_per_s": round(n / seconds),
            "runs": len(rows), "bundles": sum(r["bundles"] for r in rows),
            "statuses": sorted({r["status"] for r in rows}),
            "processed": sum(r["items"] for r in rows), "files_in_store": files,
            "peak_rss_mb": round(peak_kb / 1024, 1),
            "stage_seconds": {k: round(v, 2) for k, v in sorted(stage_time.items())}}


def engine_repeated(n: int, repeats: int) -> dict:
    """``engine_one(n)`` in ``repeats`` fresh processes (each size's peak RSS is its own):
    the first run's figures, with seconds as min / median over the runs and the highest
    peak RSS."""
    runs = []
    for _ in range(repeats):
        env = {**os.environ, "PYTHONPATH": str(BENCH.parent / "src")}
        proc = subprocess.run([sys.executable, str(Path(__file__).resolve()), "--one", str(n)],
                              capture_output=True, text=True, env=env, timeout=3600)
        if proc.returncode != 0:
            raise SystemExit(f"engine run with {n} items failed:\n{proc.stderr[-2000:]}")
        runs.append(json.loads(proc.stdout.strip().splitlines()[-1]))
    seconds = [r["seconds"] for r in runs]
    return {**runs[0], "repeats": repeats, "seconds_all": seconds,
            "seconds_min": min(seconds), "seconds": statistics.median(seconds),
            "items_per_s": round(n / statistics.median(seconds)),
            "peak_rss_mb": max(r["peak_rss_mb"] for r in runs)}


# -- LoCoMo cost ----------------------------------------------------------------------------
class Metered:
    """Wraps a provider; counts what a hosted model would be billed for each request."""

    name = "metered"

    def __init__(self, inner) -> None:
        from dream import tokens

        self.inner, self.model, self.count = inner, inner.model, tokens.count
        self.seen_prefixes: set[str] = set()

    def complete(self, request):
        response = self.inner.complete(request)
        prefix = self.count(request.prefix)
        response.input_tokens = prefix + self.count(request.body)
        response.cached_tokens = prefix if request.prefix in self.seen_prefixes else 0
        self.seen_prefixes.add(request.prefix)
        response.output_tokens = self.count(json.dumps(response.data))
        return response


def locomo_sessions(limit_convs: int | None) -> list[list[dict]]:
    data = json.loads(common.shared_data("locomo10.json").read_text())
    days = []
    for conv in data[:limit_convs]:
        c = conv["conversation"]
        a = c["speaker_a"]
        n = 1
        while f"session_{n}" in c:
            when = datetime.strptime(c[f"session_{n}_date_time"], "%I:%M %p on %d %B, %Y")
            lines = []
            for k, turn in enumerate(c[f"session_{n}"]):
                role = "user" if turn["speaker"] == a else "other"
                lines.append({"id": f"{conv['sample_id']}-{turn['dia_id']}",
                              "time": (when + timedelta(seconds=30 * k)).strftime(
                                  "%Y-%m-%dT%H:%M:%SZ"),
                              "stream": f"locomo-{conv['sample_id']}", "role": role,
                              "author": turn["speaker"], "text": turn["text"],
                              "channel": "chat"})
            days.append(lines)
            n += 1
    return days


def locomo_cost(limit_convs: int | None, days_per_run: int = 1) -> dict:
    """Collect LoCoMo session by session (a session = a day) and dream every
    ``days_per_run`` days; figures per 1,000 items."""
    from dream.models import base
    from dream.models.pricing import estimate
    from dream.models.rules import RulesProvider

    base.register_provider("metered", lambda arg, settings: Metered(RulesProvider()))
    days = locomo_sessions(limit_convs)
    with common.temp_home(prefix="dream-engine-locomo-") as _home:
        app = common.new_app()
        totals = {"items": 0, "runs": 0, "calls": 0, "input_tokens": 0, "cached_tokens": 0,
                  "output_tokens": 0, "bundles": 0}
        inbox = Path(app.home.root) / "inbox"
        inbox.mkdir()
        started = time.perf_counter()
        for n, day in enumerate(days):
            path = inbox / f"day-{n:04d}.jsonl"
            path.write_text("".join(json.dumps(x) + "\n" for x in day))
            common.collect(app, [path], "jsonl")
            if (n + 1) % days_per_run and n + 1 < len(days):
                continue
            for row in common.dream_run(app, "metered", rounds=5):
                totals["runs"] += 1
                for k in ("items", "calls", "input_tokens", "cached_tokens", "output_tokens",
                          "bundles"):
                    totals[k] += row[k]
        seconds = time.perf_counter() - started
        kinds: dict[str, int] = {}
        for rec in common.records_at_head(app):
            kinds[rec.kind] = kinds.get(rec.kind, 0) + 1
        app.close()
    per_k = {k: round(totals[k] * 1000 / max(1, totals["items"]), 1)
             for k in ("calls", "input_tokens", "cached_tokens", "output_tokens", "bundles")}
    prices = {}
    for spec in ("openai:gpt-4o-mini", "anthropic:claude-haiku-4-5"):
        try:
            prices[spec] = round(estimate(spec, per_k["input_tokens"], per_k["output_tokens"],
                                          per_k["cached_tokens"]), 5)
        except Exception as exc:  # unknown price: say so, invent nothing
            prices[spec] = f"unknown ({exc})"
    return {"sessions": len(days), "days_per_run": days_per_run, **totals, "seconds": round(seconds, 1),
            "per_1000_items": per_k, "usd_per_1000_items": prices, "records_by_kind": kinds}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="~1,000 items; 2 LoCoMo convs")
    parser.add_argument("--repeats", type=int, default=3,
                        help="fresh processes per size; seconds shown as min / median (>= 3)")
    parser.add_argument("--one", type=int, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.one:
        print(json.dumps(engine_one(args.one)))
        return
    common.shared_data("locomo10.json")   # needed by the second half: say so before the first
    sizes = [1000] if args.quick else [10_000, 100_000]
    repeats = 1 if args.quick else max(3, args.repeats)
    engine = [engine_repeated(n, repeats) for n in sizes]
    cost = locomo_cost(2 if args.quick else None)
    weekly = locomo_cost(2 if args.quick else None, days_per_run=7)
    print("Engine overhead (scripted:zero provider, runs of 5,000 items, all six stages; "
          f"seconds min / median of {repeats} processes)")
    print(common.table(
        ["items", "seconds", "items/s", "runs", "bundles", "store files", "peak RSS MB"],
        [[e["items"], f"{e['seconds_min']} / {e['seconds']}", e["items_per_s"], e["runs"],
          e["bundles"], e["files_in_store"], e["peak_rss_mb"]] for e in engine]))
    print()
    print(f"Model cost per run on LoCoMo ({cost['sessions']} sessions = days, "
          f"{cost['items']} items, {cost['runs']} runs)")
    pk = cost["per_1000_items"]
    print(common.table(["per 1,000 items", "calls", "input tokens", "cached prefix tokens",
                        "output tokens", "bundles"],
                       [["", pk["calls"], pk["input_tokens"], pk["cached_tokens"],
                         pk["output_tokens"], pk["bundles"]]]))
    print("estimated USD per 1,000 items: " + ", ".join(
        f"{k} {v}" for k, v in cost["usd_per_1000_items"].items()))
    wk = weekly["per_1000_items"]
    print(f"(a weekly pass instead, 7 sessions per run, {weekly['runs']} runs: calls {wk['calls']},"
          f" input {wk['input_tokens']}, cached prefix {wk['cached_tokens']},"
          f" output {wk['output_tokens']} per 1,000 items)")
    figures = {"quick": args.quick, "engine": engine, "locomo": cost, "locomo_weekly": weekly}
    if not args.quick:
        sections = "\n\n".join([
            f"Engine overhead (scripted:zero, runs of 5,000 items; seconds min / median of "
            f"{repeats} processes):\n\n" + common.table(
                ["items", "seconds", "items/s", "runs", "peak RSS MB"],
                [[e["items"], f"{e['seconds_min']} / {e['seconds']}", e["items_per_s"],
                  e["runs"], e["peak_rss_mb"]] for e in engine]),
            f"LoCoMo cost per 1,000 items ({cost['sessions']} sessions, {cost['items']} "
            "items, rules answers metered with Dream's tokenizer):\n\n" + common.table(
                ["pass", "calls", "input", "cached prefix", "output", "USD (gpt-4o-mini)",
                 "USD (claude-haiku-4-5)"],
                [[f"{c['days_per_run']} session(s) per run", c["per_1000_items"]["calls"],
                  c["per_1000_items"]["input_tokens"], c["per_1000_items"]["cached_tokens"],
                  c["per_1000_items"]["output_tokens"],
                  c["usd_per_1000_items"]["openai:gpt-4o-mini"],
                  c["usd_per_1000_items"]["anthropic:claude-haiku-4-5"]]
                 for c in (cost, weekly)]),
        ])
        common.append_results("Dream run engine (bench/engine.py)", sections, figures)
    common.emit_last_json(figures)


if __name__ == "__main__":
    main()
