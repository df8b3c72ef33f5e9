"""Page times of ``dream serve``'s memory pages at 10,000 and 100,000 notes (issue 17).

    python bench/serve_pages.py [--quick] [--sizes 10000,100000] [--runs 3] [--requests 40]

For each size, a notes home is filled with synthetic memory shaped like a real one: typed
records (events dated two years either side of today, open and done to-dos, people's pages,
memory notes, some crumpled, 40 open same-thing questions about two notes, a standing
record, a brief per scope) and free notes, in the personal scope and one project's, written with ``git fast-import`` as one commit, then
200 run commits (half a year of nightly runs) that each change fifty records (so a
record's history walks real git history), a runs row per commit, and 20,000 spool items (400 sessions) that the records'
fields cite as evidence.

A real ``ReviewServer`` is started on a free port and asked over HTTP for each page kind:
the front page (memory table and runs), a memory list (notes page 1, past events at a deep
page, open to-dos), a record page (a random record, with its evidence quoted and its
history), a search (memory, random two-word queries), a session page, the questions page
(every open question with the records it is about) and the pictures page (the timeline of
upcoming events, memory growth and churn per run, cost per run). After one warm-up
request per kind, ``--requests`` requests per kind are timed (wall clock, the client's
view); the p95 of each kind is taken per run, and each run starts a fresh server on the
same home. The table shows min / median over ``--runs`` runs (at least 3). The first
request of the first run (the index built from git, the runs' memory sizes read) is shown
apart as the cold start. The target is p95 <= 200 ms on an idle machine.

--quick uses 1,000 notes and 10 requests per kind and records nothing (the test suite runs
it). Without it a dated section is appended to bench/RESULTS.md. The last line of output
is one JSON object with every figure.
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import subprocess
import sys
import time
import urllib.request
from datetime import UTC, datetime, timedelta

from common import (
    append_results,
    emit_last_json,
    machine,
    percentile,
    table,
    temp_home,
)
from store import load, note_text, zipf_words

from dream.app import App
from dream.kinds.questions import same_question
from dream.kinds.records import FieldValue, Record
from dream.review.web import ReviewServer

KINDS = ("front", "list", "record", "search", "session", "questions", "pictures")
QUESTIONS = 40                # open same-thing questions per scope, about two of its notes
TARGET_MS = 200
SESSIONS = 400
PER_SESSION = 50
RUN_COMMITS = 200
CHANGED_PER_RUN = 50


def _said(rng: random.Random, now: datetime) -> str:
    return (now - timedelta(minutes=rng.randint(0, 60 * 24 * 700))).strftime(
        "%Y-%m-%dT%H:%M:%S.000Z")


def _record(rng: random.Random, i: int, now: datetime, evidence: list[str], run: str
            ) -> tuple[str, Record | str]:
    """(path below the scope root, a record or a free note's text) for document ``i``."""
    title, body = note_text(rng, i)

    def fv(value: str) -> FieldValue:
        return FieldValue(value, _said(rng, now), rng.sample(evidence, rng.randint(1, 3)),
                          run, "propose")

    roll = rng.random()
    if roll < 0.20:
        day = (now + timedelta(days=rng.randint(-730, 730))).strftime("%Y-%m-%d")
        rec = Record("event", f"event-{i}", {"title": fv(title), "date": fv(day),
                                             "place": fv(zipf_words(rng, 1, True)[0]),
                                             "status": fv(rng.choice(["proposed",
                                                                      "confirmed"]))}, 1)
    elif roll < 0.35:
        fields = {"title": fv(title), "status": fv("open" if rng.random() < 0.6 else "done")}
        if rng.random() < 0.5:
            fields["due"] = fv((now + timedelta(days=rng.randint(-60, 120))).strftime(
                "%Y-%m-%d"))
        rec = Record("todo", f"todo-{i}", fields, 1)
    elif roll < 0.40:
        rec = Record("wiki", f"person-{i}", {"name": fv(title), "about": fv(body[-200:])}, 1)
    elif roll < 0.80:
        status = "crumpled" if rng.random() < 0.1 else "live"
        rec = Record("note", f"note-{i}", {"text": fv(body.split("\n", 2)[-1].strip()),
                                           "type": fv("fact"), "status": fv(status)}, 1)
    else:
        return f"free/n{i:06}.md", ("---\nstatus: live\ncreated: '2026-11-30T00:00:00Z'\n"
                                    "---\n" + body)
    return rec.path, rec


def build_home(n: int, seed: int = 17) -> tuple[App, list[str], list[str]]:
    """A notes home with ``n`` documents, run commits, runs rows and spool items; returns
    the app, the record paths and the session ids."""
    rng = random.Random(seed)
    app = App.from_env()
    store = app.ensure_home()
    store.repo.git("config", "gc.auto", "0")
    now = datetime.now(UTC)
    conn = app.db
    items = []
    streams = [f"session-{s:04}" for s in range(SESSIONS)]
    for s, stream in enumerate(streams):
        start = now - timedelta(days=rng.randint(1, 700))
        for k in range(PER_SESSION):
            text = " ".join(zipf_words(rng, rng.randint(8, 30))).capitalize() + "."
            items.append((f"item-{s}-{k}", f"bench:{s}:{k}", stream,
                          (start + timedelta(minutes=k)).strftime("%Y-%m-%dT%H:%M:%S.000Z"),
                          text))
    conn.execute("BEGIN")
    conn.executemany(
        "INSERT INTO items(id, source, source_path, ref, stream, author, role, said_at, text,"
        " kind, evidence, entities, collected_at) VALUES (?, 'jsonl', 'bench', ?, ?, 'me',"
        " 'user', ?, ?, 'statement', 1, '[]', '2026-12-01T00:00:00Z')", items)
    conn.execute("COMMIT")
    evidence = [i[0] for i in items]
    parent = store.repo.require_head()
    branch = store.repo.current_branch()
    runs = [f"2026120{1 + r // 10}T0{r % 10}0000-bench{r:02}" for r in range(RUN_COMMITS + 1)]
    docs: dict[str, Record | str] = {}
    for i in range(n):
        root = "user" if i % 5 < 3 else "projects/bench"
        rel, doc = _record(rng, i, now, evidence, runs[0])
        docs[f"{root}/{rel}"] = doc
    for root in ("user", "projects/bench"):
        docs[f"{root}/standing.md"] = Record("standing", "standing", {
            "timezone": FieldValue("Europe/Berlin", _said(rng, now), evidence[:1], runs[0],
                                   "propose")}, 1)
        docs[f"{root}/brief.md"] = f"# Brief: {root}\n\n## Notes\n- see [standing.md]\n"
    for root in ("user", "projects/bench"):
        notes = [p for p, d in docs.items() if p.startswith(root + "/notes/")]
        for q in range(min(QUESTIONS, len(notes) // 2)):
            a, b = sorted(rng.sample(notes, 2))
            key, question = same_question(a[len(root) + 1:], b[len(root) + 1:],
                                          f"Are these two notes one thing? ({q})")
            docs[f"{root}/questions/{key}.md"] = Record(
                "question", key, {n: FieldValue(v, _said(rng, now), evidence[:1], runs[0],
                                                "sweep")
                                  for n, v in question.fields().items()}, 1)
    record_paths = [p for p, d in docs.items() if isinstance(d, Record)]
    proc = subprocess.Popen(["git", "fast-import", "--quiet", "--force"], cwd=store.path,
                            stdin=subprocess.PIPE)
    assert proc.stdin
    write = proc.stdin.write
    mark = 0

    def commit(files: dict[str, bytes], message: str, frm: str) -> None:
        nonlocal mark
        marks = []
        for data in files.values():
            mark += 1
            write(b"blob\nmark :%d\ndata %d\n%s\n" % (mark, len(data), data))
            marks.append(mark)
        msg = message.encode()
        write(b"commit refs/heads/%s\ncommitter Dream Bench <bench@dream.invalid> "
              b"%d +0000\ndata %d\n%s\n%s" % (branch.encode(), 1_700_000_000 + mark,
                                              len(msg), msg, frm.encode()))
        for path, m in zip(files, marks, strict=True):
            write(b"M 100644 :%d %s\n" % (m, path.encode()))
        write(b"\n")

    def trailers(run: str) -> str:
        return (f"\n\nDream-Run: {run}\nDream-Pass: propose\nDream-Evidence: "
                f"{evidence[0]}\nDream-Store: {store.id}\n")

    commit({p: (d.dumps() if isinstance(d, Record) else d).encode() for p, d in docs.items()},
           f"Dream run {runs[0]}: {n} documents" + trailers(runs[0]), f"from {parent}\n")
    for r, run in enumerate(runs[1:], 1):
        changed = {}
        for path in rng.sample(record_paths, min(CHANGED_PER_RUN, len(record_paths))):
            rec = docs[path]
            assert isinstance(rec, Record)
            name = next(iter(rec.fields))
            old = rec.fields[name]
            rec.fields[name] = FieldValue(old.value + f" (run {r})", _said(rng, now),
                                          rng.sample(evidence, 2), run, "propose",
                                          old.version + 1, rec.version)
            rec.version += 1
            changed[path] = rec.dumps().encode()
        commit(changed, f"Dream run {run}: {len(changed)} records" + trailers(run), "")
    proc.stdin.close()
    if proc.wait() != 0:
        raise RuntimeError("git fast-import failed")
    shas = store.repo.git("log", "--format=%H", "-n", str(len(runs))).split()[::-1]
    for run, sha in zip(runs, shas, strict=True):
        conn.execute(
            "INSERT INTO runs(id, kind, mode, status, model, started_at, finished_at, items,"
            " bundles, calls, input_tokens, output_tokens, cached_tokens, cost_usd,"
            " duration_s, commit_sha, branch, error, details) VALUES (?, 'dream', 'nightly',"
            " 'ok', 'rules', ?, ?, 50, 5, 5, 0, 0, 0, 0, 1.0, ?, ?, NULL, ?)",
            (run, run[:4] + "-12-01T00:00:00Z", run[:4] + "-12-01T00:00:01Z", sha,
             f"dream/run/{run}", json.dumps({"commits": {store.id: sha}})))
    return app, record_paths, streams


def timed_get(url: str) -> float:
    start = time.perf_counter()
    with urllib.request.urlopen(url, timeout=600) as response:
        body = response.read()
        if response.status != 200 or b"<main>" not in body:
            raise RuntimeError(f"{url} answered {response.status}")
    return (time.perf_counter() - start) * 1000


def urls(kind: str, rng: random.Random, base: str, store: str, records: list[str],
         streams: list[str], pages: int) -> str:
    if kind == "front":
        return base
    if kind == "list":
        choice = rng.choice([("user", "notes", 1), ("user", "past", max(1, pages // 2)),
                             ("projects%2Fbench", "open", 1), ("user", "upcoming", 2)])
        return f"{base}memory/{store}?scope={choice[0]}&list={choice[1]}&page={choice[2]}"
    if kind == "record":
        return f"{base}memory/{store}/{rng.choice(records)}"
    if kind == "search":
        return f"{base}search?q=" + "+".join(zipf_words(rng, 2, content=True))
    if kind == "questions":
        return f"{base}questions"
    if kind == "pictures":
        return f"{base}pictures"
    return f"{base}sessions/{rng.choice(streams)}"


def measure(app: App, records: list[str], streams: list[str], requests: int, seed: int
            ) -> tuple[dict[str, float], dict[str, float]]:
    """One run: a fresh server; (p95 ms per kind, first-request ms per kind)."""
    rng = random.Random(seed)
    server = ReviewServer(app, "127.0.0.1", 0).start()
    store = app.notes_store().id
    past = app.db.execute("SELECT count(*) FROM documents WHERE store_id=? AND kind='event'",
                          (store,)).fetchone()[0]
    try:
        first = {k: timed_get(urls(k, rng, server.url, store, records, streams, 1))
                 for k in KINDS}
        pages = max(1, past // 2 // 50)
        p95 = {}
        for kind in KINDS:
            times = [timed_get(urls(kind, rng, server.url, store, records, streams, pages))
                     for _ in range(requests)]
            p95[kind] = percentile(times, 95)
    finally:
        server.close()
    return p95, first


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="1,000 notes; record nothing")
    parser.add_argument("--sizes", default="10000,100000")
    parser.add_argument("--runs", type=int, default=3, help="fresh servers per size (>= 3)")
    parser.add_argument("--requests", type=int, default=40, help="timed requests per kind")
    args = parser.parse_args(argv)
    sizes = [1000] if args.quick else [int(s) for s in args.sizes.split(",") if s]
    runs = max(3, args.runs)
    requests = 10 if args.quick else args.requests
    figures: dict = {"quick": args.quick, "runs": runs, "requests": requests,
                     "target_p95_ms": TARGET_MS, "load_start": load(), "sizes": {}}
    rows = []
    for n in sizes:
        with temp_home("dream-bench-serve-"):
            started = time.perf_counter()
            app, records, streams = build_home(n)
            setup_s = time.perf_counter() - started
            results = [measure(app, records, streams, requests, seed=100 + r)
                       for r in range(runs)]
            app.close()
        cold = results[0][1]
        per_kind = {}
        for kind in KINDS:
            values = [r[0][kind] for r in results]
            per_kind[kind] = {"p95_min_ms": round(min(values), 1),
                              "p95_median_ms": round(statistics.median(values), 1),
                              "first_ms": round(cold[kind], 1)}
            rows.append([f"{n:,}", kind, f"{min(values):.1f} / "
                         f"{statistics.median(values):.1f}", f"{cold[kind]:.0f}",
                         "yes" if statistics.median(values) <= TARGET_MS else "no"])
        figures["sizes"][str(n)] = {"documents": n + 4 + 2 * QUESTIONS, "records": len(records),
                                    "setup_s": round(setup_s, 1), "pages": per_kind}
    figures["load_end"] = load()
    text = table(["notes", "page", f"p95 ms, min / median of {runs} runs",
                  "first request ms (cold)", f"p95 <= {TARGET_MS} ms"], rows)
    print(text)
    print(f"load average at start / end: {figures['load_start']} / {figures['load_end']}")
    figures["machine"] = machine()
    if not args.quick:
        append_results("dream serve memory pages: p95 page time",
                       text + f"\n\nload average (1 min) at start / end: "
                       f"{figures['load_start']} / {figures['load_end']}", figures)
    emit_last_json(figures)
    return 0


if __name__ == "__main__":
    sys.exit(main())
