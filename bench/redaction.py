"""Benchmark: secret redaction, coverage and false positives.

    python bench/redaction.py [--out bench/secret_redactions.md]

1. Coverage on the planted corpus (tests/secret_corpus.py): kinds caught by the maintained
   detector's plugins alone, by Dream's rules alone, and by both (what Dream runs).
2. False positives on the real transcripts in ../shared/data: every redaction, listed with
   the text around it and a verdict from bench/secret_verdicts.json (kept by hand: 'secret'
   for a credential or a test-shaped fake key, 'false' for anything else; a redaction not
   judged yet is listed as 'unjudged' and fails the run).
3. Redaction speed on the same texts: MB per CPU-second, min and median of 5 runs, with and
   without the detector.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))
import common
from secret_corpus import plants

import dream.secrets.redactor as redactor
from dream.secrets import detector, redact, use_detector
from dream.sources import LINE_SOURCES, FileContext, Message, detect, get

VERDICTS = Path(__file__).with_name("secret_verdicts.json")


def texts() -> list[tuple[str, str, str]]:
    """(file, ref, text) of every message and author of the real material."""
    out = []
    for path in sorted(common.shared_data().rglob("*")):
        kind = detect(path) if path.is_file() else None
        if kind is None:
            continue
        ctx = FileContext(path, {}, frozenset())
        if kind in LINE_SOURCES:
            lines = [(i, raw) for i, raw in enumerate(path.read_bytes().split(b"\n"), 1)
                     if raw.strip()]
            messages = get(kind).parse_lines(lines, ctx)
        else:
            messages = get(kind).parse_file(path, ctx)
        for m in messages:
            if isinstance(m, Message):
                out += [(path.name, m.ref.rsplit(":", 1)[-1], t) for t in (m.text, m.author)
                        if t]
    return out


def coverage() -> dict[str, int]:
    corpus = plants()
    caught = {"detector only": 0, "dream rules only": 0, "both (Dream)": 0}
    for plant in corpus:
        values = [v for plugin in detector.plugins()
                  for _, v in detector.find(plugin, [plant.text])]
        caught["detector only"] += any(plant.secret in v or (v in plant.secret and len(v) >= 8)
                                       for v in values)
        use_detector(False)
        caught["dream rules only"] += plant.secret not in redact(plant.text)[0]
        use_detector(True)
        caught["both (Dream)"] += plant.secret not in redact(plant.text)[0]
    return {"kinds": len(corpus), **caught}


def redactions(material: list[tuple[str, str, str]]) -> list[dict[str, str]]:
    found: list[tuple[str, str]] = []
    original = redactor.placeholder

    def spy(kind: str, secret: str) -> str:
        found.append((kind, secret))
        return original(kind, secret)

    redactor.placeholder = spy
    rows = []
    try:
        for name, ref, text in material:
            found.clear()
            redact(text)
            for kind, secret in found:
                at = text.find(secret)
                around = text[max(0, at - 60): at + len(secret) + 30]
                key = f"{kind}:{hashlib.sha256(secret.encode()).hexdigest()[:8]}"
                rows.append({"file": name, "line": ref, "kind": kind, "key": key,
                             "shown": secret[:6] + "…" if len(secret) > 8 else "…",
                             "context": " ".join(around.replace(secret, "«S»").split())[:150]})
    finally:
        redactor.placeholder = original
    return rows


def speed(material: list[tuple[str, str, str]], detector_on: bool) -> dict[str, float]:
    use_detector(detector_on)
    only = [t for _, _, t in material]
    size = sum(len(t) for t in only) / 1e6
    runs = []
    for _ in range(5):
        started = time.process_time()
        for text in only:
            redact(text)
        runs.append(time.process_time() - started)
    use_detector(True)
    return {"mb": round(size, 2), "min_mb_per_cpu_s": round(size / min(runs), 1),
            "median_mb_per_cpu_s": round(size / statistics.median(runs), 1)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--out", type=Path, default=Path(__file__).with_name(
        "secret_redactions.md"))
    args = parser.parse_args()
    material = texts()
    cover = coverage()
    rows = redactions(material)
    verdicts = json.loads(VERDICTS.read_text()) if VERDICTS.exists() else {}
    for row in rows:
        row["verdict"] = verdicts.get(row["key"], "unjudged")
    false = sum(r["verdict"] == "false" for r in rows)
    unjudged = sum(r["verdict"] == "unjudged" for r in rows)
    rate = false / len(rows) if rows else 0.0
    lines = ["# Every redaction on the real transcripts (bench/redaction.py)", "",
             f"{len(rows)} redactions in {sum(len(t) for _, _, t in material) / 1e6:.1f} MB "
             f"of message text; false positives {false} ({rate:.1%}); unjudged {unjudged}.",
             "The secret itself is never written here: «S» marks it in the context.", "",
             "| file | line | kind | starts | verdict | context |", "|---|---|---|---|---|---|"]
    lines += [f"| {r['file'][:48]} | {r['line']} | {r['kind']} | `{r['shown']}` | "
              f"{r['verdict']} | {r['context'].replace('|', '/')} |" for r in rows]
    args.out.write_text("\n".join(lines) + "\n", encoding="utf-8")
    figures = {"benchmark": "secrets", "coverage": cover, "redactions": len(rows),
               "false_positives": false, "false_positive_rate": round(rate, 4),
               "unjudged": unjudged, "speed_with_detector": speed(material, True),
               "speed_without_detector": speed(material, False),
               "load_average": __import__("os").getloadavg()[0]}
    print(json.dumps(figures, indent=2))
    if unjudged:
        sys.exit(f"{unjudged} redactions have no verdict in {VERDICTS.name}")


if __name__ == "__main__":
    main()
