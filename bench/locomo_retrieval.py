"""Benchmark 1: evidence retrieval on LoCoMo, Dream against a plain BM25 baseline.

    python bench/locomo_retrieval.py [--quick] [--conversations N]

Each LoCoMo conversation is written out as generic JSONL (one stream per session, with its
date), collected into its own throw-away DREAM_HOME, and every question of categories 1-4
is searched with its text. Evidence recall@5 and @10 are reported at turn level (share of a
question's evidence dia_ids among the top k) and session level (share of their sessions),
per category and overall, for:

  history  Dream's history search over the raw collected turns
  memory   Dream's memory search after a dream with the `rules` provider; each returned
           record is mapped back to the turns its provenance cites (item id -> item ref ->
           dia_id)
  bm25     bm25s over the same turn texts, in the same run

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
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any, Callable

sys.path.insert(0, str(Path(__file__).resolve().parent))
import common  # noqa: E402  (puts <repo>/src on sys.path)

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
    return common.shared_data() / "locomo10.json"


_DATE_RE = re.compile(r"(\d{1,2}):(\d{2})\s*([ap]m)\s+on\s+(\d{1,2})\s+(\w+),?\s+(\d{4})", re.I)


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
def bm25_ranker(conv: Conversation) -> Ranker:
    """Plain BM25 (bm25s defaults: Lucene variant, k1=1.5, b=0.75, English stop words, no
    stemming) over the same turn texts Dream collects."""
    import bm25s

    turns = conv.turns
    corpus = bm25s.tokenize([t.text for t in turns], stopwords="en", show_progress=False)
    retriever = bm25s.BM25()
    retriever.index(corpus, show_progress=False)
    ids = [t.dia_id for t in turns]

    def rank(query: str, k: int) -> list[str]:
        tokens = bm25s.tokenize([query], stopwords="en", show_progress=False)
        if not tokens.vocab:
            return []
        docs, _scores = retriever.retrieve(tokens, k=min(k, len(ids)), show_progress=False)
        return [ids[int(i)] for i in docs[0]]

    return rank


# -- Dream ---------------------------------------------------------------------------------
class DreamConversation:
    """One conversation collected into its own DREAM_HOME, searched through Dream."""

    def __init__(self, conv: Conversation, tmp: Path) -> None:
        self.conv = conv
        self.tmp = tmp
        self.where = write_jsonl(conv, tmp / "jsonl")
        self.item_to_dia: dict[str, str] = {}
        self.errors: dict[str, str] = {}

    # collect ---------------------------------------------------------------------------
    def collect(self) -> dict[str, Any]:
        from dream.app import App

        app = App.from_env(cwd=self.tmp)
        app.ensure_home()
        try:
            from dream.spool.collect import collect
        except ImportError as exc:
            raise Missing(f"dream.spool.collect ({exc})") from exc
        paths = sorted((self.tmp / "jsonl").glob("*.jsonl"))
        report = collect(app, paths=paths, source="jsonl")
        self.app = app
        self._map_items()
        return report if isinstance(report, dict) else getattr(report, "__dict__", {})

    def _map_items(self) -> None:
        """item id -> dia_id, from each item's stream and exact reference."""
        rows = self.app.db.execute("SELECT id, stream, ref FROM items").fetchall()
        by_dia = {d for d in self.where.values()}
        for row in rows:
            dia = None
            ref = str(row["ref"])
            tail = ref.rsplit(":", 1)[-1] if ":" in ref else ref
            if tail.isdigit() and (row["stream"], int(tail)) in self.where:
                dia = self.where[(row["stream"], int(tail))]
            else:
                m = re.search(r"D\d+:\d+", ref)
                if m and m.group(0) in by_dia:
                    dia = m.group(0)
            if dia:
                self.item_to_dia[row["id"]] = dia

    # (a) history search ------------------------------------------------------------------
    def history_ranker(self) -> Ranker:
        from dream.spool import history

        def rank(query: str, k: int) -> list[str]:
            hits = history_hits(history, self.app, query, k)
            return [self.item_to_dia[h] for h in hits if h in self.item_to_dia][:k]

        return rank

    # (b) memory search after a rules dream -----------------------------------------------
    def dream(self) -> dict[str, Any]:
        out = common.dream_cli("run", "--model", "rules", "--apply", "auto", "--json",
                               cwd=self.tmp / "repo")
        return json.loads(out)

    def memory_ranker(self) -> Ranker:
        from dream import api

        repo = self.tmp / "repo"

        def rank(query: str, k: int) -> list[str]:
            hits = api.search(query, limit=k, cwd=repo)
            out: list[str] = []
            for hit in hits[:k]:
                for item in record_evidence(self.app, hit):
                    if item in self.item_to_dia:
                        out.append(self.item_to_dia[item])
            return out

        return rank


class Missing(Exception):
    """A Dream module this benchmark needs is not there yet."""


def history_hits(history: Any, app: Any, query: str, k: int) -> list[str]:
    """Item ids of the top k history hits, whatever shape the history module returns."""
    result = history.search(app, query, limit=k)
    hits = getattr(result, "hits", result)
    ids = []
    for h in hits:
        item = h.get("item_id") or h.get("id") if isinstance(h, dict) else \
            getattr(h, "item_id", None) or getattr(h, "id", None)
        if item:
            ids.append(str(item))
    return ids


def record_evidence(app: Any, hit: Any) -> list[str]:
    """Evidence item ids cited by the record a memory-search hit points at."""
    from dream.kinds.records import Record

    path = hit.get("path") if isinstance(hit, dict) else getattr(hit, "path", None)
    commit = hit.get("commit") if isinstance(hit, dict) else getattr(hit, "commit", None)
    store = app.stores.notes_home()
    raw = store.repo.read_at(commit or "HEAD", path) if path else None
    record = Record.loads(raw.decode("utf-8")) if raw else None
    return record.evidence() if record else []


# -- the run -------------------------------------------------------------------------------
def run(args: argparse.Namespace) -> dict[str, Any]:
    quirks = Quirks()
    limit = args.conversations or (QUICK_CONVERSATIONS if args.quick else None)
    convs = load_locomo(locomo_path(), quirks, limit)
    scores = Scores()
    hits_k: dict[str, list[int]] = {}
    systems = ["bm25", "history", "memory"]
    missing: dict[str, str] = {}
    n_questions = 0
    for conv in convs:
        questions = conv.questions
        if args.quick:   # spread over the conversation so that every category appears
            step = max(1, len(questions) // QUICK_QUESTIONS)
            questions = questions[::step][:QUICK_QUESTIONS]
        n_questions += len(questions)
        score_system("bm25", bm25_ranker(conv), questions, scores)
        with common.temp_home(prefix=f"locomo-{conv.sample_id}-") as tmp:
            dc = DreamConversation(conv, tmp)
            try:
                dc.collect()
            except Missing as exc:
                missing["history"] = missing["memory"] = f"missing {exc}"
                continue
            try:
                score_system("history", dc.history_ranker(), questions, scores)
            except ImportError as exc:
                missing["history"] = f"missing dream.spool.history ({exc})"
            try:
                dc.dream()
                score_system("memory", dc.memory_ranker(), questions, scores, hits_k)
            except (ImportError, RuntimeError) as exc:
                missing["memory"] = f"not available: {exc}"
    return report(convs, n_questions, scores, systems, missing, quirks, hits_k, args)


def report(convs: list[Conversation], n_questions: int, scores: Scores, systems: list[str],
           missing: dict[str, str], quirks: Quirks, hits_k: dict[str, list[int]],
           args: argparse.Namespace) -> dict[str, Any]:
    rows = []
    figures: dict[str, Any] = {"benchmark": "locomo_retrieval", "quick": bool(args.quick),
                               "conversations": len(convs), "questions": n_questions,
                               "systems": {}, "missing": missing, "quirks": quirks.as_dict()}
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
    base = figures["systems"].get("bm25", {}).get("overall", {})
    for system in ("history", "memory"):
        got = figures["systems"].get(system, {}).get("overall")
        if got and base:
            figures.setdefault("vs_bm25", {})[system] = {
                m: round(got[m] - base[m], 4) for m in ("turn@5", "turn@10", "session@5",
                                                         "session@10")}
    text = common.table(["system", "category", "n", "turn R@5", "turn R@10", "session R@5",
                         "session R@10"], rows)
    q = quirks.as_dict()
    notes = [
        f"LoCoMo {locomo_path().name}: {len(convs)} conversations, {n_questions} questions "
        f"(categories 1-4; {q['questions_category5_excluded']} of category 5 excluded).",
        f"Quirks: {q['evidence_fields_split']} evidence fields split, "
        f"{q['evidence_ids_reformatted']} ids reformatted, "
        f"{q['evidence_ids_malformed_dropped']} malformed ids dropped, "
        f"{q['evidence_ids_missing_dropped']} ids naming no turn dropped "
        f"{q['examples']['missing']}, {q['questions_without_evidence']} questions left without "
        f"evidence excluded, {q['sessions_dated_from_previous']} undated sessions dated "
        f"previous+1 day, {q['dates_without_session']} dates without a session ignored, "
        f"{q['image_captions_appended']} photo captions appended to their turn.",
    ]
    for system, why in missing.items():
        notes.append(f"{system}: {why}")
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
