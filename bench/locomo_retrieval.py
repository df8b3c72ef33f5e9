"""Benchmark 1: evidence retrieval on LoCoMo, Dream against a plain BM25 baseline.

    python bench/locomo_retrieval.py [--quick] [--conversations N]

Each LoCoMo conversation is written out as generic JSONL (one stream per session, with its
date), collected into its own throw-away DREAM_HOME, and every question of categories 1-4
is searched with its text. Evidence recall@5 and @10 are reported at turn level (share of a
question's evidence dia_ids among the top k) and session level (share of their sessions),
per category and overall, for:

  history       Dream's history search over the raw collected turns, the question as typed
  history_or    the same with its words joined by OR (what ``dream history search`` does)
  memory        Dream's memory search after a dream with the `rules` provider; each returned
                record is mapped back to the turns its provenance cites (item id -> item
                ref -> dia_id): search over consolidated memory, not over raw turns
  bm25          bm25s over the same turn texts, in the same run (no stemming)
  bm25_stemmed  the same with the Snowball English stemmer: the strongest fair baseline,
                since Dream's index stems too; Dream's gains are reported against it
  fts5          a plain SQLite FTS5 index (Porter) with none of Dream's code, words OR-ed:
                what SQLite alone gives

The LoCoMo file is read from ../shared/data (or $DREAM_SHARED/data) and never copied into
the repository (CC BY-NC 4.0, evaluation use only). Quirks of the file are handled
explicitly and counted in the output: see ``normalise_evidence`` and ``session_dates``.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from collections import defaultdict
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
import common

CATEGORIES = {1: "multi-hop", 2: "temporal", 3: "open-domain", 4: "single-hop"}
KS = (5, 10)
QUICK_CONVERSATIONS = 1
QUICK_QUESTIONS = 60


# -- the data ------------------------------------------------------------------------------
@dataclass
class Turn:
    dia_id: str
    session: int
    speaker: str
    role: str            # 'user' (speaker_a) or 'other' (speaker_b)
    text: str
    time: datetime | None


@dataclass
class Question:
    text: str
    category: int
    evidence: list[str]              # normalised, existing dia_ids


@dataclass
class Conversation:
    sample_id: str
    speaker_a: str
    speaker_b: str
    sessions: dict[int, list[Turn]]
    dates: dict[int, datetime | None]
    questions: list[Question]

    @property
    def turns(self) -> list[Turn]:
        return [t for n in sorted(self.sessions) for t in self.sessions[n]]


@dataclass
class Quirks:
    """What the loader had to fix in the file, counted so the output can say so."""

    evidence_fields_split: int = 0         # 'D8:6; D9:17' -> two ids
    evidence_ids_reformatted: int = 0      # 'D:11:26' -> 'D11:26', 'D30:05' -> 'D30:5'
    evidence_ids_malformed_dropped: list[str] = field(default_factory=list)   # 'D'
    evidence_ids_missing_dropped: list[str] = field(default_factory=list)     # no such turn
    questions_without_evidence: int = 0    # excluded: recall is undefined
    questions_category5_excluded: int = 0
    sessions_dated_from_previous: int = 0  # no date: previous session's date + 1 day
    sessions_undated: int = 0              # no date and no earlier session: no time at all
    dates_without_session: int = 0         # session_N_date_time keys with no session_N
    image_captions_appended: int = 0       # turns sharing a photo: caption appended

    def as_dict(self) -> dict[str, Any]:
        d = dict(self.__dict__)
        d["evidence_ids_malformed_dropped"] = len(self.evidence_ids_malformed_dropped)
        d["evidence_ids_missing_dropped"] = len(self.evidence_ids_missing_dropped)
        d["examples"] = {
            "malformed": self.evidence_ids_malformed_dropped[:5],
            "missing": self.evidence_ids_missing_dropped[:5],
        }
        return d


def locomo_path() -> Path:
    return common.shared_data("locomo10.json")


_DATE_RE = re.compile(r"(\d{1,2}):(\d{2})\s*([ap]m)\s+on\s+(\d{1,2})\s+(\w+),?\s+(\d{4})", re.IGNORECASE)


def parse_date(text: str | None) -> datetime | None:
    """'1:56 pm on 8 May, 2023' -> datetime(2023, 5, 8, 13, 56); None when unparseable."""
    m = _DATE_RE.search(text or "")
    if not m:
        return None
    hour, minute, ampm, day, month, year = m.groups()
    h = int(hour) % 12 + (12 if ampm.lower() == "pm" else 0)
    try:
        month_n = datetime.strptime(month[:3].title(), "%b").month
        return datetime(int(year), month_n, int(day), h, int(minute))
    except ValueError:
        return None


def session_dates(conv: dict[str, Any], numbers: list[int], quirks: Quirks
                  ) -> dict[int, datetime | None]:
    """Each session's date; a session without one gets the previous session's date plus
    one day (LoCoMo sessions are days apart and in order), or none when it is the first."""
    dates: dict[int, datetime | None] = {}
    previous: datetime | None = None
    for n in numbers:
        date = parse_date(conv.get(f"session_{n}_date_time"))
        if date is None:
            if previous is not None:
                date = previous + timedelta(days=1)
                quirks.sessions_dated_from_previous += 1
            else:
                quirks.sessions_undated += 1
        dates[n] = date
        previous = date or previous
    return dates


_ID_RE = re.compile(r"^D:?(\d+):(\d+)$")


def normalise_evidence(raw: list[Any], valid: set[str], quirks: Quirks) -> list[str]:
    """Split fields holding several ids ('D8:6; D9:17', 'D9:1 D4:4 D4:6'), reformat ids
    with a stray colon or a leading zero ('D:11:26', 'D30:05'), drop ids that are malformed
    ('D') or name no turn of the conversation, and count each fix."""
    out: list[str] = []
    for entry in raw:
        parts = [p for p in re.split(r"[;,\s]+", str(entry)) if p]
        if len(parts) > 1:
            quirks.evidence_fields_split += 1
        for part in parts:
            m = _ID_RE.match(part)
            if not m:
                quirks.evidence_ids_malformed_dropped.append(part)
                continue
            norm = f"D{int(m.group(1))}:{int(m.group(2))}"
            if norm != part:
                quirks.evidence_ids_reformatted += 1
            if norm not in valid:
                quirks.evidence_ids_missing_dropped.append(part)
                continue
            if norm not in out:
                out.append(norm)
    return out


def load_locomo(path: Path, quirks: Quirks, limit: int | None = None) -> list[Conversation]:
    data = json.loads(path.read_text(encoding="utf-8"))
    convs: list[Conversation] = []
    for sample in data[:limit]:
        conv = sample["conversation"]
        numbers = sorted(int(k.split("_")[1]) for k in conv
                         if re.fullmatch(r"session_\d+", k) and conv[k])
        quirks.dates_without_session += sum(
            1 for k in conv if re.fullmatch(r"session_\d+_date_time", k)
            and not conv.get(k[: -len("_date_time")]))
        dates = session_dates(conv, numbers, quirks)
        a, b = conv["speaker_a"], conv["speaker_b"]
        sessions: dict[int, list[Turn]] = {}
        for n in numbers:
            turns = []
            for i, t in enumerate(conv[f"session_{n}"]):
                text = str(t.get("text", ""))
                if t.get("blip_caption"):
                    text += f" [shares a photo: {t['blip_caption']}]"
                    quirks.image_captions_appended += 1
                when = dates[n] + timedelta(seconds=30 * i) if dates[n] else None
                turns.append(Turn(t["dia_id"], n, t["speaker"],
                                  "user" if t["speaker"] == a else "other", text, when))
            sessions[n] = turns
        valid = {t.dia_id for ts in sessions.values() for t in ts}
        questions = []
        for q in sample["qa"]:
            if q.get("category") not in CATEGORIES:
                quirks.questions_category5_excluded += 1
                continue
            evidence = normalise_evidence(q.get("evidence") or [], valid, quirks)
            if not evidence:
                quirks.questions_without_evidence += 1
                continue
            questions.append(Question(str(q["question"]), int(q["category"]), evidence))
        convs.append(Conversation(sample["sample_id"], a, b, sessions, dates, questions))
    return convs


def session_of(dia_id: str) -> int:
    return int(dia_id[1:].split(":")[0])


def write_jsonl(conv: Conversation, folder: Path) -> dict[tuple[str, int], str]:
    """Write one generic-JSONL file per session; returns (stream, line number) -> dia_id.

    speaker_a is role ``user`` (the person whose memory this is: a personal assistant
    reading their chats with a friend), speaker_b is role ``other``; both carry their name
    as ``author`` and both are evidence for Dream's gate."""
    folder.mkdir(parents=True, exist_ok=True)
    where: dict[tuple[str, int], str] = {}
    for n, turns in sorted(conv.sessions.items()):
        stream = f"{conv.sample_id}-session-{n}"
        lines = []
        for i, t in enumerate(turns, start=1):
            rec = {"id": t.dia_id, "text": t.text, "stream": stream, "author": t.speaker,
                   "role": t.role, "channel": conv.sample_id}
            if t.time:
                rec["time"] = t.time.isoformat() + "Z"
            lines.append(json.dumps(rec, ensure_ascii=False))
            where[(stream, i)] = t.dia_id
        (folder / f"{stream}.jsonl").write_text("\n".join(lines) + "\n", encoding="utf-8")
    return where


# -- scoring -------------------------------------------------------------------------------
Ranker = Callable[[str, int], list[str]]   # (query, k) -> dia_ids in rank order (may repeat)


def recall(evidence: list[str], retrieved: list[str]) -> tuple[float, float]:
    """(turn-level, session-level) share of the evidence found in ``retrieved``."""
    got = set(retrieved)
    turn = sum(1 for e in evidence if e in got) / len(evidence)
    want_s = {session_of(e) for e in evidence}
    got_s = {session_of(r) for r in got}
    return turn, len(want_s & got_s) / len(want_s)


class Scores:
    def __init__(self) -> None:
        # (system, category) -> metric -> list of values
        self.values: dict[tuple[str, int], dict[str, list[float]]] = defaultdict(
            lambda: defaultdict(list))

    def add(self, system: str, category: int, metric: str, value: float) -> None:
        self.values[(system, category)][metric].append(value)
        self.values[(system, 0)][metric].append(value)

    def mean(self, system: str, category: int, metric: str) -> float | None:
        xs = self.values.get((system, category), {}).get(metric, [])
        return sum(xs) / len(xs) if xs else None

    def count(self, system: str, category: int) -> int:
        xs = self.values.get((system, category), {}).get("turn@5", [])
        return len(xs)


def score_system(name: str, ranker: Ranker, questions: list[Question], scores: Scores,
                 hits_k: dict[str, list[int]] | None = None) -> None:
    """Score one ranker. A ranker returns dia_ids; for record search (one record may cite
    several turns) the ids of the top k *results* are passed as groups, see ``ranker_k``."""
    for q in questions:
        for k in KS:
            retrieved = ranker(q.text, k)
            turn, sess = recall(q.evidence, retrieved)
            scores.add(name, q.category, f"turn@{k}", turn)
            scores.add(name, q.category, f"session@{k}", sess)
            if hits_k is not None:
                hits_k.setdefault(f"{name}@{k}", []).append(len(set(retrieved)))


# -- the baseline --------------------------------------------------------------------------
def bm25_ranker(conv: Conversation, stemmed: bool = False) -> Ranker:
    """Plain BM25 (bm25s defaults: Lucene variant, k1=1.5, b=0.75, English stop words; no
    stemming unless ``stemmed``) over the same turn texts Dream collects."""
    return bm25s_ranker([(t.dia_id, t.text) for t in conv.turns], stemmed)


def bm25s_ranker(docs: list[tuple[str, str]], stemmed: bool) -> Ranker:
    import bm25s

    stemmer = None
    if stemmed:
        import Stemmer

        stemmer = Stemmer.Stemmer("english")
    corpus = bm25s.tokenize([text for _id, text in docs], stopwords="en", stemmer=stemmer,
                            show_progress=False)
    retriever = bm25s.BM25()
    retriever.index(corpus, show_progress=False)
    ids = [doc_id for doc_id, _text in docs]

    def rank(query: str, k: int) -> list[str]:
        tokens = bm25s.tokenize([query], stopwords="en", stemmer=stemmer, show_progress=False)
        if not tokens.vocab:
            return []
        docs, _scores = retriever.retrieve(tokens, k=min(k, len(ids)), show_progress=False)
        return [ids[int(i)] for i in docs[0]]

    return rank


def bm25_stemmed_ranker(conv: Conversation) -> Ranker:
    """The same BM25 with the Snowball English stemmer (PyStemmer), the strongest fair
    version of the baseline: Dream's full-text index stems too (SQLite's Porter)."""
    return bm25_ranker(conv, stemmed=True)


def fts5_ranker(conv: Conversation) -> Ranker:
    """A plain SQLite FTS5 index (Porter stemmer, unicode61) with none of Dream's code:
    the turns in an in-memory table, the question's words quoted and OR-ed, bm25 order.
    It shows how much of history search's score is SQLite's and how much Dream's."""
    return plain_fts5_ranker([(t.dia_id, t.text) for t in conv.turns])


def plain_fts5_ranker(docs: list[tuple[str, str]]) -> Ranker:
    import sqlite3

    conn = sqlite3.connect(":memory:")
    conn.execute("CREATE VIRTUAL TABLE t USING fts5(text, tokenize='porter unicode61')")
    conn.executemany("INSERT INTO t(rowid, text) VALUES (?, ?)",
                     [(i, text) for i, (_id, text) in enumerate(docs)])
    ids = [doc_id for doc_id, _text in docs]

    def rank(query: str, k: int) -> list[str]:
        words = dict.fromkeys(w.lower() for w in re.findall(r"\w+", query))
        if not words:
            return []
        match = " OR ".join(f'"{w}"' for w in words)
        rows = conn.execute("SELECT rowid FROM t WHERE t MATCH ? ORDER BY bm25(t) LIMIT ?",
                            (match, k)).fetchall()
        return [ids[r[0]] for r in rows]

    return rank


# -- Dream ---------------------------------------------------------------------------------
class Missing(Exception):
    """A Dream module this benchmark needs is not there yet."""


class DreamConversation:
    """One conversation collected into its own DREAM_HOME (see ``common.temp_home``),
    session by session, each session one day: collect it, then (for the memory search)
    dream over it with the ``rules`` provider, like a nightly run."""

    def __init__(self, conv: Conversation, tmp: Path) -> None:
        self.conv = conv
        self.where = write_jsonl(conv, tmp / "jsonl")
        self.files = [tmp / "jsonl" / f"{conv.sample_id}-session-{n}.jsonl"
                      for n in sorted(conv.sessions)]
        self.item_to_dia: dict[str, str] = {}
        self.runs: list[dict[str, Any]] = []
        try:
            self.app = common.new_app()
        except ImportError as exc:
            raise Missing(str(exc)) from exc

    def collect_and_dream(self, dream: bool) -> None:
        try:
            for path in self.files:
                common.collect(self.app, [path], "jsonl")
                if dream:
                    self.runs += common.dream_run(self.app, "rules")
        except ImportError as exc:
            raise Missing(str(exc)) from exc
        self._map_items()

    def _map_items(self) -> None:
        """item id -> dia_id, from each item's stream and exact reference (file:line)."""
        for row in self.app.db.execute("SELECT id, stream, ref FROM items"):
            ref = str(row["ref"])
            tail = ref.rsplit(":", 1)[-1]
            if tail.isdigit() and (row["stream"], int(tail)) in self.where:
                self.item_to_dia[row["id"]] = self.where[(row["stream"], int(tail))]

    def history_ranker(self, joined_with_or: bool) -> Ranker:
        """(a) ``dream history search``: the question as typed (its words must all occur:
        the history query syntax joins words with AND), or its words joined with ``OR``
        (the same syntax's explicit alternative)."""
        from dream.spool import history

        def rank(query: str, k: int) -> list[str]:
            words = re.findall(r"[\w']+", query)
            text = " OR ".join(words) if joined_with_or else query
            try:
                result = history.search(self.app.db, text, page=1, page_size=k)
            except Exception as exc:  # BadInput for a query with no words
                if getattr(exc, "message", None) is None:
                    raise
                return []
            return [self.item_to_dia[h["id"]] for h in result["hits"]
                    if h["id"] in self.item_to_dia][:k]

        return rank

    def memory_ranker(self) -> Ranker:
        """(b) memory search (the store index behind ``dream search``) after the rules
        dream; each hit's record is mapped to the turns its provenance cites."""
        from dream import index
        from dream.kinds.records import Record

        store = self.app.notes_store()
        index.sync(self.app.db, store)
        cache: dict[tuple[str, str], list[str]] = {}

        def turns_of(commit: str, path: str) -> list[str]:
            if (commit, path) not in cache:
                raw = store.repo.read_at(commit, path)
                rec = Record.loads(raw.decode("utf-8", "replace")) if raw else None
                ids = rec.evidence() if rec else []
                cache[(commit, path)] = [self.item_to_dia[i] for i in ids
                                         if i in self.item_to_dia]
            return cache[(commit, path)]

        def rank(query: str, k: int) -> list[str]:
            hits = index.search(self.app.db, store, query, limit=k)
            out: list[str] = []
            for hit in hits[:k]:
                out += turns_of(hit.commit, hit.path)
            return out

        return rank

    def records(self) -> dict[str, int]:
        counts: dict[str, int] = {}
        for rec in common.records_at_head(self.app):
            counts[rec.kind] = counts.get(rec.kind, 0) + 1
        return counts

    def close(self) -> None:
        self.app.close()


# -- the run -------------------------------------------------------------------------------
def run(args: argparse.Namespace) -> dict[str, Any]:
    quirks = Quirks()
    limit = args.conversations or (QUICK_CONVERSATIONS if args.quick else None)
    convs = load_locomo(locomo_path(), quirks, limit)
    scores = Scores()
    hits_k: dict[str, list[int]] = {}
    systems = ["bm25", "bm25_stemmed", "fts5", "history", "history_or", "memory"]
    missing: dict[str, str] = {}
    extra: dict[str, Any] = {"records": {}, "runs": 0, "run_statuses": {}}
    n_questions = 0
    for conv in convs:
        questions = conv.questions
        if args.quick:   # spread over the conversation so that every category appears
            step = max(1, len(questions) // QUICK_QUESTIONS)
            questions = questions[::step][:QUICK_QUESTIONS]
        n_questions += len(questions)
        score_system("bm25", bm25_ranker(conv), questions, scores)
        score_system("bm25_stemmed", bm25_stemmed_ranker(conv), questions, scores)
        score_system("fts5", fts5_ranker(conv), questions, scores)
        with common.temp_home(prefix=f"locomo-{conv.sample_id}-") as tmp:
            try:
                dc = DreamConversation(conv, tmp)
            except Missing as exc:
                missing.update(history=str(exc), history_or=str(exc), memory=str(exc))
                continue
            try:
                dc.collect_and_dream(dream="memory" not in missing)
                score_system("history", dc.history_ranker(False), questions, scores)
                score_system("history_or", dc.history_ranker(True), questions, scores)
                score_system("memory", dc.memory_ranker(), questions, scores, hits_k)
                for kind, n in dc.records().items():
                    extra["records"][kind] = extra["records"].get(kind, 0) + n
                extra["runs"] += len(dc.runs)
                for r in dc.runs:
                    st = extra["run_statuses"]
                    st[r["status"]] = st.get(r["status"], 0) + 1
            except Missing as exc:
                missing.update(history=str(exc), history_or=str(exc), memory=str(exc))
            finally:
                dc.close()
    figures = report(convs, n_questions, scores, systems, missing, quirks, hits_k, args, extra)
    return figures


def report(convs: list[Conversation], n_questions: int, scores: Scores, systems: list[str],
           missing: dict[str, str], quirks: Quirks, hits_k: dict[str, list[int]],
           args: argparse.Namespace, extra: dict[str, Any]) -> dict[str, Any]:
    rows = []
    figures: dict[str, Any] = {"benchmark": "locomo_retrieval", "quick": bool(args.quick),
                               "conversations": len(convs), "questions": n_questions,
                               "systems": {}, "missing": missing, "quirks": quirks.as_dict(),
                               "memory_store": extra}
    for system in systems:
        if system in missing:
            continue
        per: dict[str, Any] = {}
        for cat in [0, *CATEGORIES]:
            name = "overall" if cat == 0 else CATEGORIES[cat]
            vals = {m: _round(scores.mean(system, cat, m))
                    for m in ("turn@5", "turn@10", "session@5", "session@10")}
            vals["n"] = scores.count(system, cat)
            per[name] = vals
            rows.append([system, name, vals["n"], vals["turn@5"], vals["turn@10"],
                         vals["session@5"], vals["session@10"]])
        figures["systems"][system] = per
    for key, xs in hits_k.items():
        figures.setdefault("memory_turns_per_query", {})[key] = round(sum(xs) / len(xs), 2)
    # the strongest baseline is the stemmed one: Dream's index stems as well
    base = figures["systems"].get("bm25_stemmed", {}).get("overall", {})
    for system in ("history", "history_or", "memory"):
        got = figures["systems"].get(system, {}).get("overall")
        if got and base:
            figures.setdefault("vs_bm25_stemmed", {})[system] = {
                m: round(got[m] - base[m], 4) for m in ("turn@5", "turn@10", "session@5",
                                                         "session@10")}
    text = common.table(["system", "category", "n", "turn R@5", "turn R@10", "session R@5",
                         "session R@10"], rows)
    q = quirks.as_dict()
    notes = [
        (f"LoCoMo {locomo_path().name}: {len(convs)} conversations, {n_questions} questions "
         f"(categories 1-4; {q['questions_category5_excluded']} of category 5 excluded)."),
        (f"Quirks: {q['evidence_fields_split']} evidence fields split, "
         f"{q['evidence_ids_reformatted']} ids reformatted, "
         f"{q['evidence_ids_malformed_dropped']} malformed ids dropped, "
         f"{q['evidence_ids_missing_dropped']} ids naming no turn dropped "
         f"{q['examples']['missing']}, {q['questions_without_evidence']} questions left without "
         f"evidence excluded, {q['sessions_dated_from_previous']} undated sessions dated "
         f"previous+1 day, {q['dates_without_session']} dates without a session ignored, "
         f"{q['image_captions_appended']} photo captions appended to their turn."),
    ]
    for system, why in missing.items():
        notes.append(f"{system}: {why}")
    notes.append(f"memory: {extra['runs']} rules runs {extra['run_statuses']}, records "
                 f"{extra['records']}")
    if "memory_turns_per_query" in figures:
        notes.append("memory: one record can cite several turns; turns retrieved per query: "
                     + ", ".join(f"{k} {v}" for k, v in figures["memory_turns_per_query"].items()))
    print(text)
    print()
    print("\n".join(notes))
    if not args.quick:
        plot(figures)
        common.publish("locomo_retrieval", "LoCoMo evidence retrieval (bench/locomo_retrieval.py)",
                       text + "\n\n" + "\n".join(f"- {n}" for n in notes), figures)
    return figures


def _round(x: float | None) -> float | None:
    return None if x is None else round(x, 4)


def plot(figures: dict[str, Any]) -> None:
    systems = list(figures["systems"])
    groups = ["overall", *CATEGORIES.values()]
    for metric in ("turn@10", "session@10", "turn@5"):
        series = {s: [figures["systems"][s][g][metric] for g in groups] for s in systems}
        common.bar_plot(common.PLOTS / f"locomo_retrieval_{metric.replace('@', '_at_')}.png",
                        f"LoCoMo evidence recall, {metric}", groups, series, "recall")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true",
                        help=f"{QUICK_CONVERSATIONS} conversation, {QUICK_QUESTIONS} questions; "
                             "no RESULTS.md section")
    parser.add_argument("--conversations", type=int, default=None,
                        help="only the first N conversations")
    args = parser.parse_args()
    figures = run(args)
    common.emit_last_json(figures)


if __name__ == "__main__":
    main()
