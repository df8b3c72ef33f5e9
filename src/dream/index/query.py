"""Ranked, bounded search over the index."""

from __future__ import annotations

import re
import sqlite3
from dataclasses import asdict, dataclass
from typing import Any

from dream.errors import BadInput
from dream.store.store import Store

MAX_TERMS = 32
# Above this many candidate documents a query's most common words are dropped (see
# plan_match): bm25 costs about a microsecond per candidate document.
SCORE_BUDGET = 10_000
# Words so common that matching them ranks nothing; dropping them keeps queries fast. The
# question words and auxiliaries a question is built from ("how do I run the linter?",
# "how often should ... be shown?") say what is asked, not what it is about.
STOPWORDS = frozenset("""a an and are as at be but by for from has have he her his i if in
into is it its me my no not of on or our she so that the their them then there these they
this to was we were what when which who will with you your
how why where whom whose do does did should would could can""".split())  # noqa: SIM905
_WORD_RE = re.compile(r"\w+", re.UNICODE)


@dataclass(frozen=True)
class Hit:
    store_id: str
    store_name: str
    scope: str
    commit: str
    path: str
    title: str
    score: float
    sha256: str
    status: str | None = None

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)


def require_words(query: str) -> None:
    """Refuse a search query without a word to search for: one mistake, named the same way
    by every search (``dream search``, ``dream history search``, their MCP tools and the
    API), never an empty result that looks like "nothing found"."""
    if not _WORD_RE.search(query or ""):
        raise BadInput("the search query has no words", "give at least one word to search for")


def query_words(text: str) -> list[str]:
    """Distinct lower-cased words of a user's query, stopwords dropped unless nothing else
    is left, at most MAX_TERMS."""
    words = [w.lower() for w in _WORD_RE.findall(text or "")]
    kept = [w for w in words if w not in STOPWORDS] or words
    return list(dict.fromkeys(kept))[:MAX_TERMS]


def _quote(words: list[str], op: str) -> str:
    return f" {op} ".join(f'"{w}"' for w in words)


def _document_frequencies(conn: sqlite3.Connection, words: list[str]) -> dict[str, int]:
    """How many indexed documents contain each word (after the index's own stemming,
    obtained by tokenizing the words with the same tokenizer in a scratch table)."""
    conn.execute("CREATE VIRTUAL TABLE IF NOT EXISTS temp.dream_query_tokens USING "
                 "fts5(q, tokenize='porter unicode61')")
    conn.execute("CREATE VIRTUAL TABLE IF NOT EXISTS temp.dream_query_terms USING "
                 "fts5vocab(temp, dream_query_tokens, 'instance')")
    conn.execute("CREATE VIRTUAL TABLE IF NOT EXISTS temp.dream_vocab USING "
                 "fts5vocab(main, documents_fts, 'row')")
    conn.execute("INSERT INTO temp.dream_query_tokens(rowid, q) VALUES (1, ?)",
                 (" ".join(words),))
    try:
        stems = dict(conn.execute("SELECT offset, term FROM temp.dream_query_terms"
                                  ).fetchall())
    finally:
        conn.execute("DELETE FROM temp.dream_query_tokens")
    result = {}
    for i, word in enumerate(words):
        term = stems.get(i)
        row = conn.execute("SELECT doc FROM temp.dream_vocab WHERE term = ?",
                           (term,)).fetchone() if term else None
        result[word] = int(row[0]) if row else 0
    return result


def plan_match(conn: sqlite3.Connection, text: str, budget: int | None = None) -> str:
    """The MATCH expression actually run. Small indexes get every word OR-ed. In a large
    index, scoring every document that contains a very common word is what makes a search
    slow, and such words carry little bm25 weight; so words are taken rarest first until
    they would match more than ``budget`` documents (default SCORE_BUDGET; 0 turns pruning
    off) (the rarest is always kept). When
    even the rarest word is that common, the two rarest are AND-ed instead."""
    words = query_words(text)
    if len(words) < 2:
        return _quote(words, "OR")
    total = conn.execute("SELECT max(id) FROM documents").fetchone()[0] or 0
    budget = SCORE_BUDGET if budget is None else budget
    if budget <= 0 or total <= budget:
        return _quote(words, "OR")
    df = _document_frequencies(conn, words)
    ordered = sorted(words, key=lambda w: (df[w], words.index(w)))
    ordered = [w for w in ordered if df[w] > 0] or ordered[:1]
    if df[ordered[0]] > budget and len(ordered) > 1:
        return _quote(ordered[:2], "AND")
    kept: list[str] = []
    matched = 0
    for word in ordered:
        if kept and matched + df[word] > budget:
            break
        kept.append(word)
        matched += df[word]
    return _quote(kept, "OR")


def fts_query(text: str) -> str:
    """An FTS5 MATCH expression for free text from a user: each word quoted (so ``"``,
    ``*``, ``:``, ``NEAR``, ``AND`` and parentheses are plain text), stopwords dropped
    unless nothing else is left, terms joined with OR so bm25 ranks documents that match
    more of them first. Empty when the text has no words."""
    return _quote(query_words(text), "OR")


def search(conn: sqlite3.Connection, store: Store, query: str, limit: int = 8,
           project_key: str | None = None, include_crumpled: bool = False,
           offset: int = 0, score_budget: int | None = None,
           briefs: bool = False) -> list[Hit]:
    """The best ``limit`` documents of ``store`` for ``query``, best first.

    Only this store's documents are searched. With ``project_key``, notes that belong to
    another project (``projects/<other>/`` or session notes whose ``project`` is another
    key or missing) are left out; the rest of the store is searched. Crumpled notes are
    left out unless ``include_crumpled``. Briefs are left out unless ``briefs``: a brief is
    rendered from the records and notes, so a hit on it only repeats them without saying
    which one matched; every search (CLI, API, MCP, web page) returns the records.
    Call :func:`dream.index.sync` first to search the store's HEAD.
    """
    match = plan_match(conn, query, score_budget)
    if not match or limit <= 0:
        return []
    head = conn.execute("SELECT commit_sha FROM index_stores WHERE store_id=?",
                        (store.id,)).fetchone()
    commit = head[0] if head and head[0] else ""
    where = ["d.store_id = ?"]
    params: list[Any] = [store.id]
    if not include_crumpled:
        where.append("(d.status IS NULL OR d.status != 'crumpled')")
    if not briefs:
        where.append("(d.kind IS NULL OR d.kind != 'brief')")
    if project_key is not None:
        name = store.project_name(project_key)
        where.append("(d.home IS NULL OR d.home = 'user'"
                     " OR (d.home = 'projects' AND d.owner = ?)"
                     " OR (d.home = 'sessions' AND d.project = ?))")
        params += [name if name is not None else project_key, project_key]
    wanted = int(offset) + int(limit)
    rows = _ranked_candidates(conn, match, where, params, wanted)
    if rows is None:  # the filters removed too many candidates: rank exactly
        rows = conn.execute(
            "SELECT d.path, d.title, d.sha256, d.status, -bm25(documents_fts, 4.0, 1.0) AS score"
            " FROM documents_fts JOIN documents d ON d.id = documents_fts.rowid"
            " WHERE documents_fts MATCH ? AND " + " AND ".join(where) +
            " ORDER BY score DESC, d.path LIMIT ?", [match, *params, wanted]).fetchall()
    rows = rows[int(offset):wanted]
    return [Hit(store.id, store.name, store.scope, commit, r["path"], r["title"],
                significant(float(r["score"])), r["sha256"], r["status"])
            for r in rows]


def significant(score: float) -> float:
    """A bm25 score kept to six significant digits. Not to six decimals: in a store of a
    few documents every query word is in half of them or more, FTS5 floors such a word's
    idf at 1e-6, and every score is near 0 (2.1e-06 against 1.4e-06 still ranks the two;
    six decimals made both 2e-06 or 0). What a reader should look at is the rank."""
    return float(f"{score:.6g}")


def _ranked_candidates(conn: sqlite3.Connection, match: str, where: list[str],
                       params: list[Any], wanted: int) -> list[sqlite3.Row] | None:
    """Rank inside FTS5 alone (no join while scoring), then filter the best few candidates.
    None when the filters left fewer than ``wanted`` of a full candidate list (the caller
    then ranks exactly with the filters inside the query)."""
    cap = wanted * 4 + 32
    ranked = conn.execute(
        "SELECT rowid, bm25(documents_fts, 4.0, 1.0) AS rank FROM documents_fts"
        " WHERE documents_fts MATCH ? ORDER BY rank LIMIT ?", (match, cap)).fetchall()
    if not ranked:
        return []
    scores = {r[0]: -r[1] for r in ranked}
    marks = ",".join("?" * len(scores))
    # '+' keeps SQLite from scanning the store_id index instead of looking the ids up
    filters = [w.replace("d.store_id =", "+d.store_id =") for w in where]
    docs = conn.execute(
        f"SELECT d.id, d.path, d.title, d.sha256, d.status FROM documents d"
        f" WHERE d.id IN ({marks}) AND " + " AND ".join(filters),
        [*scores, *params]).fetchall()
    if len(docs) < wanted and len(ranked) == cap:
        return None
    rows = [{"path": d["path"], "title": d["title"], "sha256": d["sha256"],
             "status": d["status"], "score": scores[d["id"]]} for d in docs]
    rows.sort(key=lambda r: (-r["score"], r["path"]))
    return rows  # type: ignore[return-value]
