"""Commands the user objected to: the agent ran something and the user's very next words
said not to ("no, no haxelib install!! ...", "dont call nim c on the test files").

Such a command is the agent's mistake, not a way of working here, and its failure is not a
pitfall of the project: the lesson is the rule the user said, which the rules detector
keeps. The evidence is narrow on purpose: the user's statement must come right after the
command's result (no other tool result between them) and every mention of the command in
it must be negated, so "no, run `cargo test -p api`, not the whole workspace" objects to
nothing.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence

from dream.detect import rule_lang
from dream.detect.commands import by_session, chain
from dream.items import Item

# a negation in front of what it negates: "no haxelib install", "dont call nim c", "never
# run X", "stop using X", "instead of X", and in German, French and Spanish ("kein", "pas
# de", "nunca", ...; read on the text without accents)
# ("no, just run X" is no objection to X: a bare "no" must stand right before it)
_BEFORE = (r"(?:(?<![\w-])no[^\w-]+|(?<![\w-])(?:not|never|don'?t|dont|do not|stop|quit"
           r"|instead of|" + rule_lang.negations() + r")[^\w-]+(?:\w+[^\w-]+){0,2}?)")
# or after it: "haxelib install is never ok", "X is not how we ...", "X? no." (a flag such as
# "--no-restore" is no "no")
_AFTER = r"[^\w-]+(?:\w+[^\w-]+){0,1}?(?:never|not|no)\b(?![-=])"


def _mentions(prefix: str) -> re.Pattern[str]:
    words = r"\s+".join(re.escape(w) for w in prefix.split())
    return re.compile(r"(?<![\w./-])`?" + words + r"(?![\w-])", re.I)


def objected(items: Sequence[Item], key_of: Callable[[str], str]) -> set[str]:
    """The command prefixes (``"haxelib install"``, ``"nim c"``) the user objected to in
    the statement right after the agent ran them; ``key_of`` gives a command's key
    (:func:`dream.detect.howto.command_key`)."""
    out: set[str] = set()
    streams: dict[str, list[Item]] = {}
    for item in items:
        streams.setdefault(item.stream or "", []).append(item)
    runs = by_session(items)
    for stream, its in streams.items():
        pos = {item.id: n for n, item in enumerate(its)}
        for run in runs.get(stream, []):
            if run.item.role == "user" or run.item.id not in pos:
                continue
            said = _next_statement(its[pos[run.item.id] + 1:])
            if not said:
                continue
            for step in chain(run.command):
                key = step_key(step, key_of).lower().split()
                if not key:
                    continue
                key[0] = key[0].rsplit("/", 1)[-1]
                # the program and what it was asked to do ("nim c", "haxelib install"), or
                # the program alone when the "no" ends with it ("no pip in this repo"), not
                # when it goes on to another of its commands ("don't run cargo update")
                # (a key of the program alone is the program alone: "no `cmake -B build`"
                # objects to no `cmake --build ...`)
                for prefix, alone in ((" ".join(key[:2]), len(key) == 1), (key[0], True)):
                    if len(prefix) > 1 and _negated(said, prefix, alone):
                        out.add(prefix)
                        break
    return out


# a Python module run as a program ("python -m pytest -q", "python3.12 -m pip install x")
_MODULE_RUN = re.compile(r"^\s*(?:\S*/)?python[\d.]*\s+-m\s+(?=[\w.-])")


def step_key(step: str, key_of: Callable[[str], str]) -> str:
    """The key of a step, a module run by Python read as the program it is: "python -m
    pytest src/billing" is pytest, so "not pytest" objects to it."""
    m = _MODULE_RUN.match(step)
    return key_of(step[m.end():]) if m else key_of(step)


def _next_statement(after: Sequence[Item]) -> str:
    """The user's statement that answers a command's result: the first one, when no other
    tool result comes before it."""
    for item in after:
        if item.kind == "tool_result":
            return ""
        if item.role == "user" and item.kind == "statement" and item.evidence:
            return item.text or ""
    return ""


# what may follow a program named alone: the end of the phrase, not one of its commands
# (a flag goes on with the command: "no `cmake -B build`" objects to "cmake -B", not cmake)
_ENDS = re.compile(r"`?\s*(?:$|[^\w\s`-]|-(?![-\w])|(?:in|here|for|please|anymore|ever|again|at|on|is|are"
                   r"|was|with|to|at all|directly|yourself)\b)", re.I)


def _negated(said: str, prefix: str, alone: bool = False) -> bool:
    said = rule_lang.fold(said)
    mention = _mentions(prefix)
    hits = list(mention.finditer(said))
    if not hits:
        return False
    for m in hits:
        if alone and not _ENDS.match(said[m.end():]):
            return False
        before = re.search(_BEFORE + r"$", said[:m.start()].rstrip("`"), re.I)
        after = re.match(_AFTER, said[m.end():].lstrip("`"), re.I)
        if not (before or after):
            return False        # said once without a "no": not an objection to it
    return True


def covers(prefixes: set[str], key: str) -> bool:
    """A command whose key starts with an objected prefix (``haxelib install utest``)."""
    words = key.lower().split()
    if words:
        words[0] = words[0].rsplit("/", 1)[-1]
    return any(words[:len(p.split())] == p.split() for p in prefixes)
