"""Open threads: what the last sessions left unfinished.

A session's last request is an open thread when nothing after it in the session answers
it: the user asked for work ("help me apply for ...", "fix the login test", "can you port
...") and the session ends with no reply from the assistant, only tool calls or nothing at
all (the session was cut off, or ended mid-task). The thread is the request's first
sentence, without pasted output. A request that was answered, a question, and a one-word
turn are not threads. (The handoff an agent prepares with ``dream prepare`` is read by the
review dream, not here.)
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from dream.detect import directives, noise, wording
from dream.detect.finding import Finding
from dream.items import Item

REQUEST = re.compile(
    r"^(?:(?:ok(?:ay)?|so|now|then|next|please|and)[,\s]+)*(?:(?:can|could|would) you\s+"
    r"(?:please\s+)?|please\s+|let'?s\s+|i (?:want|need) you to\s+)?(?:help|add|fix|write|"
    r"create|implement|build|make|update|apply|set up|setup|install|remove|refactor|"
    r"investigate|find|move|rename|deploy|migrate|port|finish|review|prepare|draft|"
    r"document|upgrade|replace|split|merge|publish|release)\b", re.I)


def threads(items: Sequence[Item]) -> list[Finding]:
    """One open thread per session whose last request has no answer."""
    streams: dict[str, list[Item]] = {}
    for item in items:
        streams.setdefault(item.stream, []).append(item)
    out = []
    for session in streams.values():
        asked = [n for n, i in enumerate(session)
                 if i.evidence and i.kind == "statement" and i.role == "user"]
        if not asked:
            continue
        last = session[asked[-1]]
        answered = any(i.role == "assistant" and not i.tool_name and (i.text or "").strip()
                       and not i.evidence for i in session[asked[-1] + 1:])
        if answered:
            continue
        sents = wording.split(noise.strip_paste(last.text))
        if not sents or directives.is_question(sents[0]) or not REQUEST.match(sents[0]):
            continue
        request = noise.clean_words(sents[0]).rstrip(" .!")
        if len(request.split()) < 4 or len(request) > 200:
            continue
        request = request[0].upper() + request[1:]
        out.append(Finding("thread", {"text": f"Unfinished: {request}.", "type": "thread"},
                           [last.id], name=f"thread {' '.join(request.lower().split()[:8])}"))
    return out
