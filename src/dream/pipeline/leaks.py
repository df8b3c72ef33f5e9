"""What another scope said: the names and identifiers an op must not carry across scopes.

A call that holds several scopes (``pipeline/joint.py``) routes each op by the items it
cites. That keeps citations and rows in their scope, but not the op's words: a model could
write one project's host name into an op citing the other project's items. An op whose
values carry a *specific* token — a name (a capitalised word not opening a sentence) or an
identifier (a token with a digit, or ``/ . _ @ :`` inside: a path, a host, a version, a
command) — that the call showed in another scope's material and nowhere in its own is
dropped (``cross_scope``). Ordinary words pass: they say nothing that belongs to one
project.
"""

from __future__ import annotations

import re

from dream.kinds.diff import Op

_TOKEN = re.compile(r"[\w./@:+-]+|[!?;\n]")


def specific_tokens(text: str) -> set[str]:
    """The names and identifiers of a text, lowercased: capitalised words that do not
    open a sentence, and tokens with a letter and a digit or one of ``/ . _ @ :`` inside
    (a date, a time or a bare number is no identifier: a model derives those itself)."""
    out: set[str] = set()
    opening = True
    for m in _TOKEN.finditer(text):
        tok = m.group(0)
        core = tok.strip(".:-+")
        if len(core) >= 3 and any(c.isalpha() for c in core) and (
                any(c.isdigit() for c in core) or re.search(r"\w[/._@:]\w", core)
                or (core[0].isupper() and not opening)):
            out.add(core.lower())
        opening = tok[-1] in ".!?;:\n"
    return out


def words(text: str) -> set[str]:
    return {m.group(0).strip(".:-+").lower() for m in _TOKEN.finditer(text)}


def carries_other_scope(op: Op, index: int, material: dict[int, set[str]]) -> bool:
    """True when the op's values (or its name) carry a name or identifier the call showed
    only in another scope's material."""
    said = specific_tokens(" . ".join([op.name or "", *(f.value for f in op.fields)]))
    own = material.get(index, set())
    others = set().union(*(m for i, m in material.items() if i != index))
    return bool((said & others) - own)


