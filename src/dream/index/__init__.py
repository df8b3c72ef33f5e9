"""The search index: documents of every store in SQLite FTS5, ranked with bm25.

Derived data. Files in git are the truth; :func:`sync` brings one store's rows up to its
HEAD (one ``git rev-parse`` when nothing changed), :func:`reindex` re-walks every file at
HEAD and skips those whose git blob id (a content checksum) is unchanged, and
:func:`search` answers a bounded, ranked query. All three are safe to call from any module
that holds a database connection and a :class:`~dream.store.store.Store`.
"""

from dream.index.query import Hit, fts_query, search
from dream.index.sync import SyncStats, forget_store, indexed_rows, reindex, sync

__all__ = ["Hit", "SyncStats", "forget_store", "fts_query", "indexed_rows", "reindex",
           "search", "sync"]
