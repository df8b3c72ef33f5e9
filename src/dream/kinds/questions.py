"""Questions: what a run asks a person instead of writing a record it could not defend.

A question is a record (``questions/<key>.md``) whose fields say what it is about and how it
is answered. Every question has one of two shapes:

``same`` — *same thing?* About two records (``about`` names both paths, comma-separated:
``events/a.md, events/b.md``). Answered ``yes`` (they are one thing: the second's fields
merge into the first, per field on ``said_at`` as usual, and the second is retired) or
``no`` (they stay apart, and the same pair is not asked again).

``value`` — *which value?* About one field of one record (``about`` is its path,
``field`` the field's name). ``options`` offers the candidate values, a JSON list of
strings, newest evidence first. Answered with one of the options or a value typed by the
person, validated like ``dream correct`` validates that field (:func:`check_value`).

Fields of a question record::

    text     one sentence a person can answer without opening anything else
    ask      same | value
    about    the record path(s) it is about, below the scope root
    field    (value only) the field asked about
    options  (value only) JSON list of offered values
    status   open | answered
    answer   (once answered) yes | no, or the chosen value

An answer is evidence of its own, said when it was typed, so it wins precedence like a
correction. Keys are stable so a later run asking the same thing finds the same record:
``same-<key a>-<key b>`` (the two keys in sorted order) and ``which-<key>-<field>``.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from dataclasses import field as _list_field

from dream.errors import BadInput
from dream.kinds.fields import check
from dream.kinds.records import kind_of_path
from dream.kinds.records import slug_key as _slug

ASK_SAME = "same"
ASK_VALUE = "value"
ASKS = (ASK_SAME, ASK_VALUE)
YES, NO = "yes", "no"



@dataclass
class Question:
    ask: str                     # same | value
    about: list[str]             # record paths below the scope root
    text: str
    field: str = ""              # value only
    options: list[str] = _list_field(default_factory=list)
    status: str = "open"
    answer: str = ""

    def fields(self) -> dict[str, str]:
        """The record fields that store this question."""
        out = {"text": self.text, "ask": self.ask, "about": ", ".join(self.about),
               "status": self.status}
        if self.ask == ASK_VALUE:
            out["field"] = self.field
            out["options"] = json.dumps(self.options, ensure_ascii=False)
        if self.answer:
            out["answer"] = self.answer
        return out


def same_question(path_a: str, path_b: str, text: str) -> tuple[str, Question]:
    """(key, question) asking whether the records at two paths are one thing."""
    a, b = sorted((path_a, path_b))
    return (_slug(f"same-{_key(a)}-{_key(b)}"),
            Question(ASK_SAME, [a, b], text))


def value_question(path: str, field_name: str, options: list[str],
                   text: str) -> tuple[str, Question]:
    """(key, question) asking which of ``options`` one field of one record holds."""
    offered = list(dict.fromkeys(o.strip() for o in options if o.strip()))
    return (_slug(f"which-{_key(path)}-{field_name}"),
            Question(ASK_VALUE, [path], text, field=field_name, options=offered))


def parse(values: dict[str, str]) -> Question | None:
    """The question stored in a question record's field values; None when they hold
    neither shape (a question written before this format, or by hand, that names no
    record). A record without ``ask`` that names two records is read as ``same``."""
    about = [p.strip() for p in values.get("about", "").split(",") if p.strip()]
    if any(kind_of_path(p) is None for p in about):
        return None
    ask = values.get("ask") or (ASK_SAME if len(about) == 2 else "")
    try:
        options = json.loads(values.get("options") or "[]")
    except json.JSONDecodeError:
        options = []
    if not isinstance(options, list):
        options = []
    q = Question(ask=ask, about=about, text=values.get("text", ""),
                 field=values.get("field", ""), options=[str(o) for o in options],
                 status=values.get("status", "open"), answer=values.get("answer", ""))
    if ask == ASK_SAME and len(about) == 2:
        return q
    if ask == ASK_VALUE and len(about) == 1 and q.field:
        return q
    return None


def check_answer(question: Question, answer: str) -> str:
    """The answer in its stored form, or :class:`BadInput` saying what would be accepted."""
    given = " ".join(answer.split())
    if question.ask == ASK_SAME:
        low = given.lower()
        if low in ("yes", "y", "same", "true"):
            return YES
        if low in ("no", "n", "different", "false"):
            return NO
        raise BadInput(f"'{answer}' does not answer a same-thing question",
                       "answer yes (one thing: merge them) or no (keep them apart)")
    for option in question.options:
        if option.lower() == given.lower():
            return option
    kind_key = kind_of_path(question.about[0])
    return check_value(kind_key[0] if kind_key else "", question.field, given)


def check_value(kind: str, field_name: str, value: str) -> str:
    """A field value as a correction or an answer may set it, or :class:`BadInput`: the
    one check of ``dream.kinds.fields`` that ``dream correct`` makes too."""
    return check(kind, field_name, value)[1]


def _key(path: str) -> str:
    found = kind_of_path(path)
    return found[1] if found else _slug(path)
