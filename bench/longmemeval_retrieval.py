"""Benchmark: does the answer string appear in the top-k turns retrieved for a question?

    python bench/longmemeval_retrieval.py [--quick]

The LongMemEval sample in ../shared/data (16 oracle questions, reshaped: one conversation
per question, no session boundaries and no evidence ids) is the only second retrieval set
we have. Without evidence ids, the measure is the one its shape allows: a question is a hit
at k when its answer string (case-insensitive) occurs in the text of the k turns retrieved
for it. Several answers never occur verbatim in any turn (counts, "29 days", preference
descriptions); the ``ceiling`` row counts the questions whose answer does occur somewhere,
which is the best any retriever can score here. n = 16: a handful of questions, reported as
such, not a headline.

Each question's conversation is written as generic JSONL (user and assistant turns, with
their dates), collected into its own throw-away DREAM_HOME, and searched with the question:

  history       Dream's history search (``dream history search``: words OR-ed, bm25)
  fts5          a plain SQLite FTS5 index (Porter) over the same turns, none of Dream's code
  bm25_stemmed  bm25s with the Snowball English stemmer
  bm25          bm25s without stemming

History search here reads assistant turns too (it is a search over what was said, not
over evidence), as do the baselines.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
import common
from locomo_retrieval import bm25s_ranker, plain_fts5_ranker

KS = (1, 3, 5)
QUICK_QUESTIONS = 4
SYSTEMS = ("history", "fts5", "bm25_stemmed", "bm25")


def sample_path() -> Path:
    return common.shared_data("longmemeval", "hydrabuild__longmemeval_oracle_sample.json")


def load() -> list[dict[str, Any]]:
    data = json.loads(sample_path().read_text(encoding="utf-8"))
    out = []
    for entry in data["data"]:
        turns = [(f"t{i}", str(t.get("content") or ""), str(t.get("role") or "user"),
                  str(t.get("date") or "")) for i, t in enumerate(entry["conversation"], 1)]
        for q in entry["questions"]:
            out.append({"id": entry["id"], "type": entry["question_type"],
                        "question": str(q["question"]), "answer": str(q["answer"]),
                        "turns": turns})
    return out


def _iso(date: str) -> str | None:
    """'2023/05/30 (Tue) 22:10' -> '2023-05-30T22:10:00Z' (the sample's date form)."""
    parts = date.replace("/", "-").split()
    if not parts:
        return None
    clock = parts[-1] if ":" in parts[-1] else "00:00"
    return f"{parts[0]}T{clock}:00Z"


def history_ranker(turns: list[tuple[str, str, str, str]], tmp: Path):
    """Dream's history search over the conversation collected as generic JSONL."""
    from dream.spool import history

    path = tmp / "conversation.jsonl"
    with path.open("w", encoding="utf-8") as handle:
        for turn_id, text, role, date in turns:
            handle.write(json.dumps({"id": turn_id, "text": text, "time": _iso(date),
                                     "role": "assistant" if role == "assistant" else "user",
                                     "stream": "conversation"}) + "\n")
    app = common.new_app()
    common.collect(app, [path], "jsonl")
    by_ref = {int(r["ref"].rsplit(":", 1)[-1]): r["id"]
              for r in app.db.execute("SELECT id, ref FROM items")}
    line_of = {item_id: line for line, item_id in by_ref.items()}

    def rank(query: str, k: int) -> list[str]:
        hits = history.search(app.db, query, page=1, page_size=k)["hits"]
        return [turns[line_of[h["id"]] - 1][0] for h in hits if h["id"] in line_of][:k]

    return app, rank


def run(quick: bool) -> dict[str, Any]:
    questions = load()
    if quick:
        questions = questions[:QUICK_QUESTIONS]
    hits = {s: dict.fromkeys(KS, 0) for s in SYSTEMS}
    ceiling = 0
    per_question = []
    for q in questions:
        text_of = {turn_id: text for turn_id, text, _r, _d in q["turns"]}
        answer = q["answer"].lower()
        answerable = any(answer in text.lower() for text in text_of.values())
        ceiling += answerable
        docs = [(turn_id, text) for turn_id, text, _r, _d in q["turns"]]
        rankers = {"fts5": plain_fts5_ranker(docs),
                   "bm25_stemmed": bm25s_ranker(docs, stemmed=True),
                   "bm25": bm25s_ranker(docs, stemmed=False)}
        row = {"id": q["id"], "type": q["type"], "answer_in_some_turn": answerable}
        with common.temp_home(prefix="dream-bench-lme-") as tmp:
            app, rankers["history"] = history_ranker(q["turns"], tmp)
            try:
                for system in SYSTEMS:
                    for k in KS:
                        got = rankers[system](q["question"], k)
                        hit = any(answer in text_of[t].lower() for t in got)
                        hits[system][k] += hit
                        row[f"{system}@{k}"] = hit
            finally:
                app.close()
        per_question.append(row)
    n = len(questions)
    figures: dict[str, Any] = {
        "benchmark": "longmemeval_retrieval", "quick": quick, "questions": n,
        "ceiling": ceiling,
        "systems": {s: {f"hit@{k}": hits[s][k] for k in KS} for s in SYSTEMS},
        "per_question": per_question}
    rows = [[s, n, *[f"{hits[s][k]}/{n}" for k in KS]] for s in SYSTEMS]
    rows.append(["ceiling (answer in some turn)", n, *[f"{ceiling}/{n}"] * len(KS)])
    text = common.table(["system", "n", *[f"answer in top {k}" for k in KS]], rows)
    notes = [f"LongMemEval oracle sample ({sample_path().name}): {n} questions; a hit is the "
             "answer string inside the retrieved turns' text; "
             f"{n - ceiling} answers occur in no turn verbatim, so no retriever can hit them."]
    print(text)
    print()
    print("\n".join(notes))
    if not quick:
        common.publish("longmemeval_retrieval",
                       "LongMemEval answer-in-top-k (bench/longmemeval_retrieval.py)",
                       text + "\n\n" + "\n".join(f"- {x}" for x in notes), figures)
    return figures


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true",
                        help=f"the first {QUICK_QUESTIONS} questions only")
    args = parser.parse_args()
    common.emit_last_json(run(args.quick))


if __name__ == "__main__":
    main()
