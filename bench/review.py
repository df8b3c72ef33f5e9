"""Review dreams on the real agent transcripts in ../shared/data.

Collects the Claude Code, Pi and Codex samples into a throw-away home, runs one review
dream (rules provider, all evidence) per project found in them, and reports the number of
proposals per pass, the time the six passes took, and the strongest proposal as a sample.
Every proposal's citations are checked against the spool before it is kept, so the counts
are of proposals a person would actually see.

    python bench/review.py            # all samples; appends to bench/RESULTS.md
    python bench/review.py --quick    # Claude Code and the small Codex sample only
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

import common  # noqa: F401  (puts src/ on sys.path)
from common import append_results, emit_last_json, new_app, shared_data, table, temp_home

PASSES = ("memory", "failures", "tools", "corrections", "codify", "project")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="small samples only")
    args = parser.parse_args()

    from dream.review import service
    from dream.spool.collect import collect

    data = shared_data()
    if args.quick:
        # the four spotter sessions (the quick set predates the larger real sessions)
        inputs = [*sorted((data / "claude_code").glob("spotter__*.jsonl")),
                  data / "codex" / "claude-code-transcripts__sample_codex_session.jsonl"]
    else:
        inputs = [data / "claude_code", data / "pi", data / "codex"]
    rows, figures, sample = [], {}, None
    with temp_home("dream-bench-review-") as tmp:
        app = new_app(cwd=Path(tmp))
        t0 = time.perf_counter()
        report = collect(app, paths=inputs)
        collect_s = time.perf_counter() - t0
        keys = [r[0] for r in app.db.execute(
            "SELECT project_key, count(*) FROM items WHERE project_key IS NOT NULL"
            " GROUP BY project_key ORDER BY count(*) DESC")]
        totals = dict.fromkeys(PASSES, 0)
        review_s = 0.0
        for key in keys:
            t1 = time.perf_counter()
            review = service.start(app, key, "rules", all_evidence=True)
            took = time.perf_counter() - t1
            review_s += took
            counts = dict.fromkeys(PASSES, 0)
            for p in review["proposals"]:
                counts[p["pass"]] += 1
                totals[p["pass"]] += 1
            dropped = sum(len(j.get("dropped", [])) for j in review["journal"].values())
            ev = review["run"]["evidence"]
            rows.append([key, ev.get("sessions", 0), ev.get("statements", 0),
                         ev.get("tool_results", 0), *counts.values(), dropped, round(took, 3)])
            figures[key] = {"counts": counts, "evidence": ev, "dropped": dropped,
                            "seconds": round(took, 3), "learned": review["learned"]}
            for p in review["proposals"]:       # the sample: the best-evidenced proposal
                if sample is None or len(p["evidence"]) > len(sample["evidence"]):
                    sample = {k: p[k] for k in ("slug", "pass", "title", "size", "risk",
                                                "evidence", "replaces", "status")}
            if review["run"]["status"] == "running":
                service.close(app, review["run"]["id"])
        app.close()
    headers = ["project", "sessions", "statements", "tool results", *PASSES, "dropped", "s"]
    print(f"collected {report.new_items:,} items from {len(inputs)} inputs in {collect_s:.2f} s")
    print(table(headers, rows))
    print("total proposals per pass: " + ", ".join(f"{k} {v}" for k, v in totals.items()))
    if sample:
        print(f"sample: [{sample['pass']}] {sample['slug']}: {sample['title']}")
    result = {"benchmark": "review", "quick": args.quick, "items": report.new_items,
              "projects": len(keys), "proposals_per_pass": totals,
              "proposals": sum(totals.values()), "review_seconds": round(review_s, 3),
              "collect_seconds": round(collect_s, 3), "sample": sample}
    if not args.quick:
        append_results("review dreams on the real transcripts (bench/review.py)",
                       table(headers, rows) + "\n\nSample proposal: `" + (
                           f"{sample['slug']}` ({sample['pass']}): {sample['title']}"
                           if sample else "none`"),
                       {**result, "by_project": figures})
    emit_last_json(result)


if __name__ == "__main__":
    main()
