"""Store benchmarks (issue 2): search latency, reads at a pinned commit, a 10,000-note
dream written as one commit, and reindex (first build and a re-run that skips by checksum);
(issue 13) the latency of writing one note at 1,000, 10,000 and 100,000 notes next to
``git add && git commit`` of one file on the same store in the same run, and of one note
written in an open dream and committed by ``dream end`` (the dream's journal, no scan).

    python bench/store.py [--quick] [--sizes 10000,100000] [--no-record]
    python bench/store.py --latency-only [--latency-sizes 1000,10000,100000] [--repeats 5]

--quick uses 1,000 notes everywhere (for the test suite) and records nothing. Without it
the figures are appended as a dated section to bench/RESULTS.md. The last line of output
is one JSON object with every figure.

Notes are synthetic but shaped like real memory: a title, two to six sentences drawn with a
Zipf-like distribution from a vocabulary of engineering and everyday words, YAML front
matter like Dream's own. Queries are two to four words drawn the same way, so common words
match tens of thousands of notes at 100,000.
"""

from __future__ import annotations

import argparse
import itertools
import json
import os
import platform
import random
import resource
import shlex
import statistics
import subprocess
import sys
import tempfile
import time
from datetime import UTC, datetime
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "src"))

from dream import db, index
from dream.index import query
from dream.notes.dreaming import DreamSession
from dream.notes.service import NotesService
from dream.store.store import Store

WORDS = """
build test deploy release branch merge commit rebase review pipeline cache docker image
container kubernetes cluster node pod service ingress secret token rotation credential
database migration schema index query latency timeout retry backoff queue worker job
scheduler cron nightly backup restore snapshot replica primary failover postgres sqlite
redis kafka stream consumer producer partition offset watermark spool gate evidence
python rust typescript javascript golang compiler linter formatter ruff mypy pytest fixture
mock fake stub benchmark profile memory leak allocation garbage collector thread async
await future promise callback handler middleware router endpoint request response header
cookie session login logout password oauth saml certificate tls proxy nginx caddy dns
domain email mailbox calendar meeting standup retro planning sprint ticket issue bug fix
feature flag rollout canary metric alert dashboard grafana prometheus log trace span
error exception panic crash stack frame debugger breakpoint editor vim emacs vscode
terminal shell bash zsh alias dotfiles config yaml toml json csv parquet arrow pandas
numpy model training inference embedding vector search ranking bm25 tokenizer prompt
agent tool transcript compaction context window handoff dream note project user team
coffee tea breakfast lunch dinner restaurant booking flight hotel train trip holiday
birthday gift family friend sister brother parent doctor dentist appointment gym run
walk bike swim yoga music concert movie book podcast garden plant dog cat walkies
morning evening weekend monday tuesday wednesday thursday friday saturday sunday
prefers always never usually sometimes dislikes likes wants needs asked said decided
agreed moved cancelled confirmed declined postponed scheduled finished started blocked
""".split()  # noqa: SIM905


STOP = """the a to of and in is it for that on with as was at by this be are from or
have not but we you they he she i""".split()  # noqa: SIM905
_SYLLABLES = [c + v for c in "bcdfghklmnprstvz" for v in ("a", "e", "i", "o", "u", "ar",
                                                            "en", "il", "on", "us")]


def _tail(n: int, seed: int = 5) -> list[str]:
    """Rare words (names, identifiers, jargon) that make up the long tail of real text."""
    rng = random.Random(seed)
    seen: dict[str, None] = {}
    while len(seen) < n:
        seen["".join(rng.choices(_SYLLABLES, k=rng.randint(2, 4)))] = None
    return list(seen)


# Zipf over ranks: stopwords first, then everyday and engineering words, then a long tail
# of 20,000 rare words, as in real English text.
VOCAB = STOP + WORDS + _tail(20_000)
WEIGHTS = [1.0 / (r + 1) for r in range(len(VOCAB))]
CUMULATIVE = list(itertools.accumulate(WEIGHTS))
CONTENT_CUMULATIVE = list(itertools.accumulate([0.0] * len(STOP) + WEIGHTS[len(STOP):]))


def zipf_words(rng: random.Random, n: int, content: bool = False) -> list[str]:
    return rng.choices(VOCAB, cum_weights=CONTENT_CUMULATIVE if content else CUMULATIVE, k=n)


def note_text(rng: random.Random, i: int) -> tuple[str, str]:
    title = " ".join(w.capitalize() for w in zipf_words(rng, rng.randint(2, 4), content=True))
    sentences = []
    for _ in range(rng.randint(2, 6)):
        words = zipf_words(rng, rng.randint(8, 18))
        sentences.append(" ".join(words).capitalize() + ".")
    body = f"# {title} {i}\n\n" + " ".join(sentences) + "\n"
    return title, body


def front(body: str) -> str:
    return ("---\nstatus: live\ncreated: '2026-11-30T00:00:00Z'\n"
            "updated: '2026-11-30T00:00:00Z'\n---\n" + body)


def make_store(root: Path, n: int, seed: int = 7) -> Store:
    """A store with ``n`` notes under projects/bench/ in one commit, written with
    ``git fast-import`` (``git add`` of 100,000 files takes minutes on a small machine).
    The work tree is not checked out: search, reindex and reads use git objects only."""
    store = Store.create(root, "bench", "user")
    store.repo.git("config", "gc.auto", "0")  # no background gc racing the clean-up
    store.add_project("bench-00000000", "bench", primary=True)
    store.save()
    parent = store.repo.require_head()
    rng = random.Random(seed)
    proc = subprocess.Popen(["git", "fast-import", "--quiet", "--force"], cwd=root,
                            stdin=subprocess.PIPE)
    assert proc.stdin
    write = proc.stdin.write
    for i in range(n):
        data = front(note_text(rng, i)[1]).encode("utf-8")
        write(b"blob\nmark :%d\ndata %d\n%s\n" % (i + 1, len(data), data))
    message = f"{n} synthetic notes\n\nDream-Store: {store.id}\n".encode()
    write(b"commit refs/heads/main\ncommitter Dream Bench <bench@dream.invalid> "
          b"1700000000 +0000\ndata %d\n%s\nfrom %s\n" % (len(message), message,
                                                            parent.encode()))
    for i in range(n):
        write(b"M 100644 :%d projects/bench/d%03d/n%06d.md\n" % (i + 1, i // 1000, i))
    write(b"\n")
    proc.stdin.close()
    if proc.wait() != 0:
        raise RuntimeError("git fast-import failed")
    return store


def cpu() -> float:
    """CPU seconds of this process and its finished children (git): on a shared machine
    wall time includes waiting for a core, CPU time does not."""
    own = resource.getrusage(resource.RUSAGE_SELF)
    kids = resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + kids.ru_utime + kids.ru_stime


def load() -> float:
    return round(os.getloadavg()[0], 2)


def percentile(values: list[float], p: float) -> float:
    ordered = sorted(values)
    k = (len(ordered) - 1) * p / 100
    lo, hi = int(k), min(int(k) + 1, len(ordered) - 1)
    return ordered[lo] + (ordered[hi] - ordered[lo]) * (k - lo)


def min_median(values: list[float], digits: int = 2) -> tuple[float, float]:
    return round(min(values), digits), round(statistics.median(values), digits)


def bench_search(conn, store: Store, queries: int, seed: int = 11,
                 runs: int = 3) -> dict[str, float]:
    """The same queries ``runs`` times in this process: p50 and p95 of each run, reported
    as min / median over the runs; the agreement with exhaustive ranking (the price of the
    pruning) is a property of the results, not of a run, and is computed once."""
    rng = random.Random(seed)
    qs = [" ".join(zipf_words(rng, rng.randint(2, 4), content=True)) for _ in range(queries)]
    index.search(conn, store, qs[0], limit=8, project_key="bench-00000000")  # warm
    p50s, p95s, cpu50s, cpu95s, maxes = [], [], [], [], []
    hits, results = 0, []
    for run in range(runs):
        times, cpus = [], []
        for q in qs:
            t, c = time.perf_counter(), time.process_time()
            found = index.search(conn, store, q, limit=8, project_key="bench-00000000")
            times.append((time.perf_counter() - t) * 1000)
            cpus.append((time.process_time() - c) * 1000)
            if run == 0:
                hits += len(found)
                results.append({h.path for h in found})
        p50s.append(percentile(times, 50))
        p95s.append(percentile(times, 95))
        cpu50s.append(percentile(cpus, 50))
        cpu95s.append(percentile(cpus, 95))
        maxes.append(max(times))
    overlap = agreement_with_exhaustive(conn, store, qs, results)
    t = time.perf_counter()
    for _ in range(20):
        index.sync(conn, store)
    sync_ms = (time.perf_counter() - t) * 1000 / 20
    (p50_min, p50), (p95_min, p95) = min_median(p50s), min_median(p95s)
    return {"queries": queries, "runs": runs, "p50_ms": p50, "p50_min_ms": p50_min,
            "p95_ms": p95, "p95_min_ms": p95_min, "p95_runs_ms": [round(x, 2) for x in p95s],
            "max_ms": round(max(maxes), 2),
            "cpu_p50_ms": min_median(cpu50s)[1], "cpu_p95_ms": min_median(cpu95s)[1],
            "mean_hits": round(hits / queries, 2), "sync_noop_ms": round(sync_ms, 2),
            "top8_agreement": overlap}


def agreement_with_exhaustive(conn, store: Store, qs: list[str],
                              results: list[set[str]]) -> float:
    """Share of the top 8 that the exhaustive bm25 ranking (every word scored, no
    common-word pruning) also puts in its top 8: the price of the pruning."""
    saved = query.SCORE_BUDGET
    query.SCORE_BUDGET = 10**12
    try:
        shared = total = 0
        for q, got in zip(qs, results, strict=True):
            full = {h.path for h in index.search(conn, store, q, limit=8,
                                                 project_key="bench-00000000")}
            shared += len(got & full)
            total += len(full)
    finally:
        query.SCORE_BUDGET = saved
    return round(shared / total, 3) if total else 1.0


def bench_reads(store: Store, n: int, runs: int = 3) -> dict[str, float]:
    """``n`` documents read at one pinned commit, ``runs`` times: seconds min / median."""
    repo = store.repo
    commit = repo.require_head()
    paths = [p for p, _ in repo.list_files(commit) if p.endswith(".md")][:n]
    repo.read_at(commit, paths[0])  # start the reader
    took = []
    for _ in range(runs):
        t = time.perf_counter()
        total = 0
        for p in paths:
            data = repo.read_at(commit, p)
            assert data is not None
            total += len(data)
        took.append(time.perf_counter() - t)
    fastest, seconds = min_median(took, 3)
    return {"documents": len(paths), "runs": runs, "seconds": seconds,
            "seconds_min": fastest, "bytes": total}


def bench_reindex(conn, store: Store, runs: int = 3) -> dict[str, float]:
    """A forced full build then a re-run that skips by checksum, ``runs`` times each:
    seconds min / median."""
    builds, cpus, reruns = [], [], []
    for _ in range(runs):
        t, c = time.perf_counter(), cpu()
        first = index.reindex(conn, [store], force=True)[0]
        builds.append(time.perf_counter() - t)
        cpus.append(cpu() - c)
        t = time.perf_counter()
        again = index.reindex(conn, [store])[0]
        reruns.append(time.perf_counter() - t)
        assert again.indexed == 0 and again.skipped == first.indexed, (first, again)
    (build_min, build), (rerun_min, rerun) = min_median(builds), min_median(reruns)
    return {"documents": first.indexed, "runs": runs, "build_s": build,
            "build_min_s": build_min, "build_cpu_s": min_median(cpus)[1],
            "rerun_s": rerun, "rerun_min_s": rerun_min,
            "rerun_skipped": again.skipped, "rerun_indexed": again.indexed}


def bench_dream_writes(root: Path, n: int, runs: int = 3) -> dict[str, float]:
    """``n`` notes in one dream, into ``runs`` fresh stores: seconds min / median."""
    done = [bench_dream_write(root / f"dream-write-{r}", n) for r in range(runs)]
    fastest, seconds = min_median([d["seconds"] for d in done])
    return {**done[0], "runs": runs, "seconds": seconds, "seconds_min": fastest,
            "cpu_s": min_median([d["cpu_s"] for d in done])[1]}


def bench_dream_write(root: Path, n: int) -> dict[str, float]:
    root.mkdir(parents=True, exist_ok=True)
    store = Store.create(root / "dreamstore", "notes", "user")
    store.repo.git("config", "gc.auto", "0")
    conn = db.connect(root / "dream-write.db")
    rng = random.Random(3)
    texts = [note_text(rng, i)[1] for i in range(n)]
    t, c = time.perf_counter(), cpu()
    session = DreamSession.begin(store, conn, "bench-00000000", "bench", "bench")
    service = NotesService(store, conn, dream=session)
    for i, text in enumerate(texts):
        service.write(f"@projects/bench/d{i // 1000:03d}/n{i:06d}", text)
    written = time.perf_counter() - t
    sha = session.end()
    total = time.perf_counter() - t
    cpu_s = cpu() - c
    parent = store.repo.git("rev-parse", f"{sha}~1").strip()
    files = store.repo.git("show", "--name-only", "--format=", sha).split()
    assert parent == session.baseline and len(files) == n, (len(files), n)
    conn.close()
    store.repo.close()
    return {"notes": n, "seconds": round(total, 2), "write_s": round(written, 2),
            "end_s": round(total - written, 2), "cpu_s": round(cpu_s, 2), "commits": 1}


def checked_out(root: Path, n: int) -> Store:
    """A store of ``n`` notes with its work tree and index checked out, as a user's notes
    home is (``git commit`` then stats every tracked file)."""
    store = make_store(root, n)
    store.repo.git("reset", "-q", "--hard")
    return store


def bench_write_latency(root: Path, sizes: list[int], repeats: int) -> dict[str, dict]:
    """One note written the way ``dream notes write`` writes it (a fresh Store and notes
    service per write, as each command has; the store write lock, the commit of exactly
    that file and the index sync), next to ``git add FILE && git commit`` of one new file on
    the same store in the same run, alternating, ``repeats`` times each."""
    out: dict[str, dict] = {}
    for n in sizes:
        path = root / f"latency{n}"
        checked_out(path, n).repo.close()
        conn = db.connect(root / f"latency{n}.db")
        index.sync(conn, Store.load(path))          # the index exists before the writes
        rng = random.Random(17)
        dream_s, git_s, end_s = [], [], []
        env = {**os.environ, "GIT_AUTHOR_NAME": "Bench", "GIT_AUTHOR_EMAIL": "b@x.invalid",
               "GIT_COMMITTER_NAME": "Bench", "GIT_COMMITTER_EMAIL": "b@x.invalid"}
        for r in range(repeats):
            text = note_text(rng, n + r)[1]
            t = time.perf_counter()
            store = Store.load(path)
            NotesService(store, conn).write(f"@projects/bench/w/dream-{r}", text)
            dream_s.append(time.perf_counter() - t)
            store.repo.close()
            rel = f"projects/bench/w/git-{r}.md"
            (path / rel).write_text(front(text), encoding="utf-8")
            t = time.perf_counter()
            subprocess.run(["git", "add", rel], cwd=path, check=True, env=env)
            subprocess.run(["git", "commit", "-q", "-m", f"one note {r}"], cwd=path,
                           check=True, env=env)
            git_s.append(time.perf_counter() - t)
        files = Store.load(path).repo.git("show", "--name-only", "--format=", "HEAD~1")
        assert files.split() == [f"projects/bench/w/dream-{repeats - 1}.md"], files
        for r in range(repeats):
            # one note in an open dream, then its end: the commit of exactly the dream's
            # journal (begin, with its baseline, is not timed)
            store = Store.load(path)
            session = DreamSession.begin(store, conn, "bench-00000000", "bench", "bench")
            text = note_text(rng, n + repeats + r)[1]
            t = time.perf_counter()
            NotesService(store, conn, dream=session).write(f"@projects/bench/w/end-{r}", text)
            sha = session.end()
            end_s.append(time.perf_counter() - t)
            shown = store.repo.git("show", "--name-only", "--format=", sha or "HEAD")
            assert shown.split() == [f"projects/bench/w/end-{r}.md"], shown
            store.repo.close()
        conn.close()
        out[str(n)] = {
            "notes": n, "repeats": repeats,
            "dream_min_s": round(min(dream_s), 3),
            "dream_median_s": round(statistics.median(dream_s), 3),
            "git_min_s": round(min(git_s), 3), "git_median_s": round(statistics.median(git_s), 3),
            "ratio_median": round(statistics.median(dream_s) / statistics.median(git_s), 2),
            "dream_end_min_s": round(min(end_s), 3),
            "dream_end_median_s": round(statistics.median(end_s), 3),
            "end_ratio_median": round(statistics.median(end_s) / statistics.median(git_s), 2)}
    return out


def machine() -> dict[str, str]:
    mem = ""
    try:
        for line in Path("/proc/meminfo").read_text().splitlines():
            if line.startswith("MemTotal"):
                mem = line.split(":", 1)[1].strip()
    except OSError:
        pass
    return {"uname": " ".join(platform.uname()), "nproc": str(os.cpu_count()), "memory": mem,
            "python": platform.python_version()}


def git_commit() -> str:
    proc = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=REPO,
                          capture_output=True, text=True, check=False)
    return proc.stdout.strip() or "unknown"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="1,000 notes; record nothing")
    parser.add_argument("--sizes", default="10000,100000", help="store sizes for search")
    parser.add_argument("--write", type=int, default=10_000, help="notes written in one dream")
    parser.add_argument("--reads", type=int, default=1000, help="documents read at a commit")
    parser.add_argument("--queries", type=int, default=300)
    parser.add_argument("--no-record", action="store_true", help="do not append RESULTS.md")
    parser.add_argument("--latency-sizes", default="1000,10000,100000",
                        help="store sizes for one-note write latency")
    parser.add_argument("--repeats", type=int, default=5,
                        help="writes per size for the latency figures (at least 3)")
    parser.add_argument("--latency-only", action="store_true",
                        help="measure only one-note write latency against git")
    parser.add_argument("--runs", type=int, default=3,
                        help="runs of search, reads, reindex and the dream write in this "
                             "process, shown as min / median (at least 3)")
    args = parser.parse_args(argv)
    runs = 1 if args.quick else max(3, args.runs)
    sizes = [1000] if args.quick else [int(s) for s in args.sizes.split(",") if s]
    write_n = 1000 if args.quick else args.write
    queries = 50 if args.quick else args.queries
    figures: dict[str, object] = {"quick": args.quick, "search": {}, "reindex": {},
                                  "load_start": load()}
    rows = []
    with tempfile.TemporaryDirectory(prefix="dream-bench-store-",
                                     ignore_cleanup_errors=True) as tmp:
        root = Path(tmp)
        lat_sizes = [1000] if args.quick else [int(x) for x in args.latency_sizes.split(",")]
        latency = bench_write_latency(root, lat_sizes, max(3, args.repeats))
        figures["write_latency"] = latency
        for n, lat in latency.items():
            rows.append((f"write one note, {int(n):,} notes (min / median of {lat['repeats']})",
                         f"{lat['dream_min_s']} / {lat['dream_median_s']} s; git add && commit"
                         f" {lat['git_min_s']} / {lat['git_median_s']} s "
                         f"({lat['ratio_median']}x)", "within 2x of git"))
            rows.append((f"one note in a dream, then dream end, {int(n):,} notes",
                         f"{lat['dream_end_min_s']} / {lat['dream_end_median_s']} s "
                         f"({lat['end_ratio_median']}x git add && commit)", ""))
        for n in [] if args.latency_only else sizes:
            t = time.perf_counter()
            store = make_store(root / f"store{n}", n)
            setup = time.perf_counter() - t
            conn = db.connect(root / f"index{n}.db")
            reidx = bench_reindex(conn, store, runs)
            search = bench_search(conn, store, queries, runs=runs)
            figures["search"][str(n)] = search  # type: ignore[index]
            figures["reindex"][str(n)] = reidx  # type: ignore[index]
            rows.append((f"search p50 / p95 ({n:,} notes), min / median of {runs} runs",
                         (f"p50 {search['p50_min_ms']} / {search['p50_ms']} ms, "
                          f"p95 {search['p95_min_ms']} / {search['p95_ms']} ms "
                          f"(CPU median {search['cpu_p50_ms']} / {search['cpu_p95_ms']}), "
                          f"top-8 agreement {search['top8_agreement']}"),
                         "p95 < 20 ms at 100,000"))
            rows.append((f"reindex first build ({n:,}), min / median",
                         f"{reidx['build_min_s']} / {reidx['build_s']} s "
                         f"(CPU {reidx['build_cpu_s']} s)", ""))
            rows.append((f"reindex re-run, nothing changed ({n:,}), min / median",
                         f"{reidx['rerun_min_s']} / {reidx['rerun_s']} s, "
                         f"{reidx['rerun_skipped']:,} skipped", ""))
            rows.append((f"  (setup: write + commit {n:,} files)", f"{setup:.1f} s", ""))
            if n == max(sizes):
                reads = bench_reads(store, args.reads, runs)
                figures["reads"] = {**reads, "store_notes": n}
                rows.append((f"read {reads['documents']:,} docs at a pinned commit, "
                             "min / median",
                             f"{reads['seconds_min']} / {reads['seconds']} s", "< 1 s"))
            conn.close()
            store.repo.close()
        if not args.latency_only:
            write = bench_dream_writes(root, write_n, runs)
            figures["dream_write"] = write
            rows.append((f"write {write_n:,} notes in one dream (one commit), min / median",
                         f"{write['seconds_min']} / {write['seconds']} s "
                         f"(CPU {write['cpu_s']} s)", "< 10 s"))
    figures["load_end"] = load()
    rows.append(("load average (1 min) at start / end",
                 f"{figures['load_start']} / {figures['load_end']}", ""))
    width = max(len(r[0]) for r in rows)
    print(f"{'measure':<{width}}  {'result':<56}  target")
    for name, value, target in rows:
        print(f"{name:<{width}}  {value:<56}  {target}")
    figures["machine"] = machine()
    figures["commit"] = git_commit()
    if not args.quick and not args.no_record:
        command = "python bench/store.py " + " ".join(shlex.quote(a) for a in (argv or sys.argv[1:]))
        with (REPO / "bench" / "RESULTS.md").open("a", encoding="utf-8") as fh:
            fh.write(f"\n## Store benchmark, {datetime.now(UTC):%Y-%m-%d %H:%M UTC}\n\n")
            m = figures["machine"]
            fh.write(f"- machine: `{m['uname']}`, {m['nproc']} cores, {m['memory']}, "  # type: ignore[index]
                     f"Python {m['python']}\n")  # type: ignore[index]
            fh.write(f"- git commit: {figures['commit']}\n- command: `{command.strip()}`\n\n")
            fh.write("| measure | result | target |\n|---|---|---|\n")
            for name, value, target in rows:
                fh.write(f"| {name.strip()} | {value} | {target} |\n")
    print(json.dumps(figures))
    return 0


if __name__ == "__main__":
    sys.exit(main())
