"""What a detector reads (one spool item, :class:`dream.items.Item`) and what it returns
(a typed finding).

A detector reads spool items in the order they were said and returns :class:`Finding`
values: what was found, the record fields it supports, and the ids of the items it rests
on. Detectors never write anything; the ``rules`` provider turns findings into the typed
diff of a dream run (:mod:`dream.models.rules`) and the review passes turn them into
proposals (:mod:`dream.passes`), so the two always agree on what a finding is.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

# the kinds of finding, and the record each one becomes in a dream run
KINDS = ("correction", "directive", "preference", "command", "failure", "thread", "decision",
         "event", "todo", "todo_done", "standing", "wiki", "question")
NOTE_KINDS = ("correction", "directive", "preference", "failure", "command", "thread",
              "decision")


@dataclass
class Finding:
    """One thing a detector found.

    ``kind`` is one of :data:`KINDS`; ``fields`` are the record fields it supports (for a
    note: ``text`` and ``type``); ``evidence`` the ids of the items it rests on. ``name``
    is the merge identity of a new record, ``row`` an existing record (its handle) the
    finding is about, and ``replaces`` the records it makes obsolete (a revised preference
    crumples the older one)."""

    kind: str
    fields: dict[str, str]
    evidence: list[str]
    name: str | None = None
    row: str | None = None
    replaces: list[str] = field(default_factory=list)

    @property
    def text(self) -> str:
        return self.fields.get("text", "")


_THREAD = re.compile(r":\d{9,}\.\d+$")


def conversation(stream: str | None) -> str:
    """The conversation a stream belongs to: a Slack thread (``slack:team:1782120600.0001``)
    is part of its channel's conversation (``slack:team``); any other stream is its own."""
    return _THREAD.sub("", stream or "")
