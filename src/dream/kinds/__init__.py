"""Typed record kinds (events, to-dos, standing facts, wiki pages, memory notes, questions),
their keys and per-field provenance, and the keyed diff schema models answer with."""

from dream.kinds.records import KINDS, FieldValue, Record, record_path, slug_key

__all__ = ["KINDS", "FieldValue", "Record", "record_path", "slug_key"]
