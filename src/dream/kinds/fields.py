"""The fields a person may correct on each record kind, and the type of each value.

``dream correct ADDRESS FIELD VALUE`` goes through :func:`check` before anything is
recorded: a field the kind does not have, or a value its type refuses, is a one-line
error naming the valid fields (or values). Wiki pages and the standing record hold named
slots (facts), so any field name is valid there; their values are text.
"""

from __future__ import annotations

import re
from datetime import date

from dream.errors import BadInput
from dream.kinds.records import EVENT_STATUSES, NOTE_STATUSES, TODO_STATUSES
from dream.store.document import control_character

NOTE_TYPES = ("correction", "directive", "preference", "failure", "fact", "command", "thread",
              "decision")   # the last three are written by the offline provider too
QUESTION_STATUSES = ("open", "answered")

# kind -> field -> type: "text", "date" (YYYY-MM-DD), "time" (HH:MM) or a tuple of values
FIELDS: dict[str, dict[str, str | tuple[str, ...]]] = {
    "event": {"title": "text", "activity": "text", "date": "date", "time": "time",
              "place": "text", "participants": "text", "status": EVENT_STATUSES},
    "todo": {"title": "text", "status": TODO_STATUSES, "due": "date", "owner": "text",
             "event": "text"},      # the key of the event it was taken on for
    "note": {"text": "text", "type": NOTE_TYPES, "status": NOTE_STATUSES},
    "question": {"text": "text", "status": QUESTION_STATUSES, "about": "text"},
}
OPEN_KINDS = ("wiki", "standing")       # named slots: any field name, text values
# a corrected value is one field of one record and lands whole in a brief line; longer text
# belongs in a note ('dream notes write')
MAX_VALUE_CHARS = 1000
_NAME_RE = re.compile(r"^[a-z][a-z0-9_]{0,63}$")
_TIME_RE = re.compile(r"^([01]?\d|2[0-3]):([0-5]\d)$")


def _a(word: str) -> str:
    return f"{'an' if word[:1] in 'aeiou' else 'a'} {word}"


def check(kind: str, field: str, value: str) -> tuple[str, str]:
    """(field, value) as they will be recorded, or ``BadInput`` saying what is valid."""
    name = field.strip().lower().replace("-", "_")
    value = value.strip()
    if not name or not value:
        raise BadInput("the field and the value must not be empty", "give FIELD VALUE")
    if len(value) > MAX_VALUE_CHARS:
        raise BadInput(f"the value has {len(value):,} characters, more than the "
                       f"{MAX_VALUE_CHARS:,} a field holds",
                       "shorten it, or write longer text as a note with 'dream notes write'")
    found = control_character(value)
    if found is not None:
        raise BadInput(f"the value holds a control character, {found}",
                       "remove it: a field is plain text and lands in the brief")
    if kind in OPEN_KINDS:
        if not _NAME_RE.match(name):
            raise BadInput(f"'{field}' is not a field name",
                           f"a {kind} field is a lowercase word (letters, digits, _)")
        return name, value
    fields = FIELDS.get(kind)
    if fields is None:
        raise BadInput(f"a {kind} record cannot be corrected", "correct an event, to-do, "
                       "note, question, wiki page or standing fact")
    typ = fields.get(name)
    if typ is None:
        raise BadInput(f"{_a(kind)} has no field '{field}'",
                       f"valid fields: {', '.join(fields)}")
    if isinstance(typ, tuple):
        if value.lower() not in typ:
            raise BadInput(f"'{value}' is not {_a(kind)} {name}", f"use one of {', '.join(typ)}")
        return name, value.lower()
    if typ == "date":
        try:
            return name, date.fromisoformat(value).isoformat() if len(value) == 10 else \
                _bad_date(kind, name, value)
        except ValueError:
            _bad_date(kind, name, value)
    if typ == "time":
        match = _TIME_RE.match(value)
        if not match:
            raise BadInput(f"'{value}' is not a time for the {kind} {name}",
                           "give it as HH:MM, e.g. 19:30")
        return name, f"{int(match.group(1)):02d}:{match.group(2)}"
    return name, value


def _bad_date(kind: str, name: str, value: str) -> str:
    raise BadInput(f"'{value}' is not a date for the {kind} {name}",
                   "give it as YYYY-MM-DD, e.g. 2026-03-13")
