"""To-dos: what someone asks to be done or says they must do, and when it is done.

A user's "remind me to ...", "I need to ...", "don't forget to ...", "todo: ..." and
another person's "can you ...", "please ..." open a to-do when the task is sure ("remind
me", "todo:"), has a due date, or starts with a task verb ("send", "book", "pay" ...);
"can you tell me more" is conversation, not a task. A task said again is the same to-do.
A later sentence closes an open to-do when it says it is done ("done", "sent", "paid" ...)
about it, or uses the to-do's own verb in the past ("Renewed the car insurance").
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from dream.detect.finding import Finding, SpoolItem
from dream.detect.prose import STOP, stems
from dream.kinds.text import find_date, parse_when, sentences

TODO_USER = re.compile(r"\b(?:remind me to|i need to|i have to|i must|don'?t forget to|"
                        r"remember to|todo:|to-do:|note to self:?)\s+(.{3,160})", re.I)
TODO_SURE = re.compile(r"\b(?:remind me to|todo:|to-do:|note to self)", re.I)
TASK_VERBS = re.compile(
    r"^(?:send|call|book|pick up|bring|buy|pay|sign|review|email|text|renew|file|submit|"
    r"schedule|cancel|return|order|fix|finish|prepare the|print|post|reply|write|check|update|"
    r"confirm|invite|collect|drop off|clean|ship|deploy|merge|upload|share)\b", re.I)
TODO_OTHER = re.compile(r"\b(?:can you|could you(?: please)?|please|don'?t forget to|"
                         r"remember to)\s+(.{3,160})", re.I)
DONE = re.compile(r"\b(done|finished|completed|sent|submitted|paid|fixed|did it|took care of)\b",
                   re.I)
IRREGULAR = {"buy": "bought", "pay": "paid", "send": "sent", "bring": "brought",
              "pick": "picked", "write": "wrote", "get": "got", "take": "took", "make": "made",
              "do": "did", "give": "gave", "find": "found", "sell": "sold", "tell": "told",
              "call": "called", "drop": "dropped", "sign": "signed", "ship": "shipped"}


@dataclass
class TodoReader:
    """Reads statements and messages in order; ``rows`` are the scope's current records
    (their handles), ``opened`` the to-dos opened earlier in the same call (name, title)."""

    rows: list[dict] = field(default_factory=list)
    opened: list[tuple[str, str]] = field(default_factory=list)

    def read(self, item: SpoolItem) -> list[Finding]:
        """To-dos opened and closed by one statement or message."""
        out: list[Finding] = []
        said = parse_when(item.said_at)
        rx = TODO_USER if item.role == "user" else TODO_OTHER
        for sent in sentences(item.text)[:20]:
            m = rx.search(sent)
            if m and not sent.rstrip().endswith("?") or (m and item.role == "other"):
                task = re.split(r"[.!?\n]", m[1])[0].strip(" ,")
                task = re.sub(r"^(?:please|me)\s+", "", task, flags=re.I)
                if len(task.split()) < 2:
                    continue
                due = find_date(sent, said)
                if not (TODO_SURE.search(sent) or due or TASK_VERBS.search(task)):
                    continue        # "can you tell me more" is conversation, not a task
                task = re.sub(r"\s+(?:by|before|on|until)\s+(?:next\s+|this\s+)?(?:"
                              r"today|tonight|tomorrow|monday|tuesday|wednesday|thursday|"
                              r"friday|saturday|sunday|\d[\w ]*)$", "", task, flags=re.I)
                task = re.sub(r",?\s+(?:sorry|please|thanks|thank you|ok|okay)$", "", task,
                              flags=re.I)
                task = re.sub(r"\s+(?:(?:this|next) (?:week|month|weekend)|soon|asap|later|"
                              r"today|tonight|tomorrow)$", "", task, flags=re.I)
                title = task[0].upper() + task[1:]
                fields = {"title": title, "due": due or ""}
                if item.role == "other" and getattr(item, "author", None):
                    fields["from"] = getattr(item, "author", None)
                name = " ".join(title.split()[:8])
                twin = self._same_todo(title)
                if twin is not None:        # said again: the same to-do, more evidence
                    row, name = twin
                    if row:
                        continue
                    fields["title"] = next(t for n, t in self.opened if n == name)
                else:
                    self.opened.append((name, title))
                out.append(Finding("todo", fields, [item.id], name=name))
                continue
            if not DONE.search(sent) and not re.search(r"\b(?:not|never|yet|still|didn'?t|"
                                                        r"haven'?t|will|'ll|to)\b", sent, re.I):
                # "Renewed the car insurance": the to-do's own verb, done
                row, name = self._todo_by_past_verb(sent)
                if row or name:
                    out.append(Finding("todo_done", {"status": "done"}, [item.id],
                                       name=name, row=row))
                    continue
            if DONE.search(sent):
                row, name = self._matching_todo(sent)
                if not (row or name) and len(item.text) <= 300:
                    # "Attached is the tax form. Done on my side.": the item says what is done
                    row, name = self._matching_todo(item.text)
                if row or name:
                    out.append(Finding("todo_done", {"status": "done"}, [item.id],
                                       name=name, row=row))
        return out

    def _todo_by_past_verb(self, sent: str) -> tuple[str | None, str | None]:
        low = sent.lower()
        candidates = [(row["handle"], None, row["fields"].get("title", ""))
                      for row in self.rows if row["kind"] == "todo"
                      and row["fields"].get("status", "open") == "open"]
        candidates += [(None, name, title) for name, title in self.opened]
        for handle, name, title in candidates:
            words = title.lower().split()
            if not words:
                continue
            verb = words[0]
            forms = {IRREGULAR.get(verb, ""), verb + "ed", verb + "d", verb[:-1] + "ied"} - {""}
            if not any(re.search(r"\b" + re.escape(f) + r"\b", low) for f in forms):
                continue
            rest = stems(" ".join(words[1:]))
            needed = len(rest) if len(rest) <= 2 else -(-2 * len(rest) // 3)
            if rest and len(rest & stems(sent)) >= needed:
                return handle, name
        return None, None

    def _same_todo(self, title: str) -> tuple[str | None, str | None] | None:
        """An open to-do (row handle, or name opened in this call) saying the same task."""
        words = stems(title)
        candidates = [(row["handle"], None, row["fields"].get("title", ""))
                      for row in self.rows if row["kind"] == "todo"
                      and row["fields"].get("status", "open") == "open"]
        candidates += [(None, name, t) for name, t in self.opened]
        for handle, name, other in candidates:
            tw = stems(other)
            overlap = len(words & tw)
            if overlap >= 2 and overlap >= 0.6 * min(len(words), len(tw)):
                return handle, name
        return None

    def _matching_todo(self, sent: str) -> tuple[str | None, str | None]:
        """(row handle, or name of a to-do opened in this bundle) the sentence closes."""
        words = {w for w in re.findall(r"[a-z]{3,}", sent.lower())} - STOP
        candidates = [(row["handle"], None, row["fields"].get("title", ""))
                      for row in self.rows if row["kind"] == "todo"
                      and row["fields"].get("status", "open") == "open"]
        candidates += [(None, name, title) for name, title in self.opened]
        best, best_score = (None, None), 0.0
        for handle, name, title in candidates:
            tw = {w for w in re.findall(r"[a-z]{3,}", title.lower())} - STOP
            if not tw:
                continue
            overlap = len(words & tw)
            score = overlap / len(tw)
            if (overlap >= 2 or score >= 0.5 and overlap >= 1) and score > best_score:
                best, best_score = (handle, name), score
        return best
