"""What the user said right after a shell failure, read as the lesson of a pitfall
(:mod:`dream.detect.pitfalls`) when no step of the session shows the fix: the cause
explained in their words (:func:`explained`), or a command they told the agent to run
instead (:func:`told_fix`).
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from dream.detect import directives, howto, noise, rule_lang, shell, wording
from dream.items import Item


def explained(failed: list[Item], items: Sequence[Item], cause: str) -> str | None:
    """What the user said right after a failure about its cause: the sentence of their
    next statement that names a word of the cause line that is a name from the code
    (``peek_token``, ``ZSTD``), without pasted output."""
    names = {w.lower() for w in re.findall(r"`([^`]+)`|\b([A-Za-z]+_\w+|[a-z]+[A-Z]\w*)\b",
                                           cause) for w in w if w}
    if not names:
        return None
    for fail in failed:
        later = [i for i in items if i.stream == fail.stream and i.seq > fail.seq]
        said = next((i for i in later if i.evidence and i.role == "user" and
                     i.kind == "statement"), None)
        if said is None:
            continue
        for sent in wording.split(noise.strip_paste(said.text)):
            if any(n in sent.lower() for n in names) and len(sent) <= 200 and \
                    not directives.is_question(sent):
                sent = _ASIDE.sub("", sent)
                return noise.clean_words(wording.plain_rule(sent)).rstrip(" .")
    return None


def told_fix(failed: list[Item], items: Sequence[Item]) -> str | None:
    """What the user told the agent to run instead, right after a failure: the sentence of
    their next statement, before the agent ran anything else, that says to run, use, start
    or install a command ("start the db first: docker compose up -d db")."""
    for fail in failed:
        later = [i for i in items if i.stream == fail.stream and i.seq > fail.seq][:4]
        said = next((i for i in later if i.evidence and i.role == "user" and
                     i.kind == "statement"), None)
        if said is None or any(i.kind == "tool_result" and i.seq < said.seq for i in later):
            continue
        lang = rule_lang.language(said.text)     # said in German, French or Spanish
        for sent in wording.split(noise.strip_paste(said.text)):
            sent = _ASIDE.sub("", sent).strip()
            if lang and not _TOLD.match(sent):
                sent = rule_lang.told_to_run(sent, lang) or ""
            if not sent or len(sent) > 160 or directives.is_question(sent) or \
                    not _TOLD.match(sent) and not lang:
                continue
            named = re.findall(r"`([^`]+)`", sent) or [sent]
            if any(howto.purposes(n) or shell.chain(n) and howto.purposes(
                    re.sub(_TOLD, "", n)) for n in named):
                return noise.clean_words(wording.plain_rule(sent)).rstrip(" .")
    return None


_TOLD = re.compile(r"^(?:please\s+)?(?:you (?:need|have) to\s+|first,?\s+|just\s+)?(?:run|use|start"
                   r"|install|try|call)\b", re.I)
_ASIDE = re.compile(r"^(?:(?:ah|oh|right|yeah|yes|ok|okay|hm+|damn|ugh|sorry)\b[\s,.!:-]*)+",
                    re.I)
