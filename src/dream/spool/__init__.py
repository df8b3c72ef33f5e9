"""The spool: gated, redacted evidence behind a per-file watermark, and history search.

``dream.spool.collect.collect`` reads sources into the ``items`` table;
``dream.spool.redact.redact`` is the one redaction every module uses before text is stored
or sent; ``dream.spool.history`` searches and pages the collected items.
"""
