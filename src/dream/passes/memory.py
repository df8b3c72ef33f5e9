"""memory: evidence-based additions, updates and deletions of memory notes.

- **Additions**: explicit requests to remember and stated preferences ("remember that ...",
  "I prefer ...", "from now on ...", and a one-off "always/never ..." that the corrections
  pass does not already cover) become new notes: preferences about the person under
  ``@user/preferences/``, everything else under ``@projects/<name>/memory/``. A statement an
  existing note already says is not proposed again.
- **Updates**: a newer statement that rejects something a live note recommends ("use pnpm,
  not npm" against a note saying "use npm") updates that note: the lines that recommend the
  rejected term are replaced by the new statement, every other line is kept, so what is
  known about the user is preserved. Evidence older than the note's ``said_at`` cannot
  revise it. Mentioning a term is not recommending it (:func:`_advises`): a pitfall's
  failing command and the error it quotes are what happened (only its fix is advice), and
  a sentence that itself rejects the term says what the new statement says.
- **Deletions**: "forget that ..." / "... is no longer true" crumples a matching project note
  (a soft delete a person can still see and undo). Notes about the user are never crumpled
  by a review; they are only updated.
"""

from __future__ import annotations

import re

from dream.detect import grouping, rules, threads, wording
from dream.detect.preferences import ABOUT_USER as _ABOUT_USER
from dream.passes.base import (
    Candidate,
    PassResult,
    clip,
    find_citations,
    handoff_section,
    slugify,
    unique_slugs,
)
from dream.passes.evidence import Evidence, Note
from dream.passes.notes import changed_note, new_note, note_said_at, note_text

NAME = "memory"
_FORGET = re.compile(r"\bforget (?:that |about )?(.+)|(.+?)\s+is no longer (?:true|the case"
                     r"|relevant|used|needed)", re.IGNORECASE)
_STANDING = re.compile(r"\b(?:always|never|from now on)\b", re.IGNORECASE)
_NOT_A_RULE = re.compile(r"\b(?:never|always) (?:happens?|happened|worked|works|been|was|were"
                         r"|had|seen|saw)\b", re.IGNORECASE)


def run(ev: Evidence) -> PassResult:
    result = PassResult(NAME)
    statements = ev.statements()
    live = [n for n in ev.notes if not n.crumpled]
    journal_known: list[str] = []

    repeated = grouping.repeated(ev.rule_groups)
    covered = {s.item.id + s.text for g in repeated for s in g.sentences}
    wanted = grouping.memories(statements)
    wanted += [s for s in rules.corrections(ev.items)
               if _STANDING.search(s.text) and not _NOT_A_RULE.search(s.text)
               and s.item.id + s.text not in covered
               and not any(s.text == w.text and s.item.id == w.item.id for w in wanted)]
    wanted = [s for s in wanted if not _FORGET.search(s.text)]
    for grp in grouping.group(wanted):
        sentence = grp.latest
        known = next((n for n in live if _says(n, grp.words)), None)
        if known is not None:
            journal_known.append(f"{known.address}: {clip(sentence.text, 80)}")
            continue
        about_user = bool(_ABOUT_USER.search(sentence.text))
        text = clip(wording.plain_rule(sentence.text), 240)
        slug_words = slugify(NAME, " ".join(wording.ordered_words(text))).removeprefix(
            NAME + "-")
        change = new_note(ev, NAME, text,
                          "preference" if about_user else "directive"
                          if _STANDING.search(sentence.text) else "fact",
                          grp.items, scope="user" if about_user else "project", key=slug_words)
        result.candidates.append(Candidate(
            slug=slugify(NAME, ("prefer " if about_user else "remember ") + " ".join(
                wording.ordered_words(text))),
            pass_name=NAME, kind="memory",
            title=clip(f"Remember: {text}", 120),
            size="S", risk="low", items=grp.items, change=change,
            strength=1 + len(grp.items),
            finding=clip(f"User asked to remember: {text}", 200),
        ))

    result.candidates += _threads(ev, live)
    updates = _updates(ev, live, statements)
    result.candidates += updates
    forgets, kept_user = _forgets(ev, live, statements)
    result.candidates += forgets
    unique_slugs(result.candidates)

    missing = []
    if not statements:
        missing.append("no user statements in the evidence: nothing to remember")
    if ev.handoff:
        for line in handoff_section(ev.handoff.text, "memory"):
            slug = line.strip("`@ ").split()[0] if line.strip() else ""
            if slug and not any(slug.removesuffix(".md") in n.relpath for n in ev.notes):
                missing.append(f"handoff names memory '{clip(slug, 80)}' but no such note "
                               "is in the store")
    result.journal = {
        "looked_at": {"statements": len(statements), "notes": len(ev.notes),
                      "live_notes": len(live)},
        "additions": sum(1 for c in result.candidates if c.change.get("op") == "add"),
        "updates": len(updates),
        "deletions": len(forgets),
        "already_known": journal_known[:20],
        "user_notes_kept": kept_user,
        "missing": missing,
    }
    return result


_OPEN = ("open", "unfinished", "next", "todo", "to-do", "to do")


def _threads(ev: Evidence, live: list[Note]) -> list[Candidate]:
    """Open threads as notes a person may accept (type ``thread``, the brief's "Open
    threads"): the handoff's open work and next steps (cited as the handoff cites them,
    said at the session's end), and each session's last request that nothing answered."""
    out: list[Candidate] = []
    found: list[tuple[str, list, list[str]]] = []
    if ev.handoff:
        for word in _OPEN:
            for line in handoff_section(ev.handoff.text, word):
                text = clip(line.rstrip(" ."), 200)
                if len(text.split()) >= 3 and not any(text == t for t, _, _ in found):
                    found.append((text, ev.statements()[-1:], find_citations(line)))
    for finding in threads.threads(ev.items):
        items = [i for i in ev.items if i.id in finding.evidence]
        found.append((finding.text.removeprefix("Unfinished: ").rstrip("."), items, []))
    for text, items, cited in found:
        if not items or any(_says(n, wording.words(text)) for n in live):
            continue
        change = new_note(ev, NAME, f"Unfinished: {text}.", "thread", items,
                          key="thread-" + slugify(NAME, text).removeprefix(NAME + "-"))
        out.append(Candidate(
            slug=slugify(NAME, "thread " + text), pass_name=NAME, kind="memory",
            title=clip(f"Keep the open thread: {text}.", 120), size="S", risk="low",
            items=items, change=change, strength=1, citations=cited,
            finding=clip(f"Left unfinished: {text}", 200)))
    return out


def _at(ev: Evidence) -> list[str]:
    """The store commit the replaced note was read at: part of the evidence."""
    return [f"commit:{ev.store_commit}"] if ev.store_commit else []


def _body_words(note: Note) -> frozenset[str]:
    return wording.words(note_text(note.text))


def _says(note: Note, words: frozenset[str]) -> bool:
    body = _body_words(note)
    return bool(words) and len(words & body) >= max(2, int(0.75 * len(words)))


# a pitfall line: "`cmd` fails with: <the tool's error>. Fix: run `x`." (or "The user said:
# ..."): the command and the error are reported, only what follows the fix marker advises
_REPORTED = re.compile(r"\bfails? with: ", re.IGNORECASE)
_ADVICE = re.compile(r"\b(?:Fix: run|The user said:)\s(.*)$")
_CLAUSE = re.compile(r"(?<=[.!?;])\s+")


def _advises(line: str, term: str, pattern: re.Pattern[str]) -> bool:
    """Whether a note's line tells the agent to use ``term``, which is what a newer
    statement rejecting the term contradicts. A pitfall line reports a failing command and
    the error it printed ('No module named stripe' recommends nothing): only its fix
    advises. A sentence that rejects the term itself ('never add stripe to the main
    dependencies') agrees with the new statement."""
    if line.lstrip().startswith("#"):
        return False
    if _REPORTED.search(line):
        advice = _ADVICE.search(line)
        line = advice.group(1) if advice else ""
    return any(pattern.search(s) and term not in wording.rejected_terms(s)
               for s in _CLAUSE.split(line))


def _updates(ev: Evidence, live: list[Note], statements) -> list[Candidate]:
    out: list[Candidate] = []
    done: set[str] = set()
    sentences = rules.corrections(ev.items) + grouping.memories(statements)
    for sentence in sorted(sentences, key=lambda s: -s.item.seq):   # newest first
        for term in wording.rejected_terms(sentence.text):
            for note in live:
                if note.address in done:
                    continue
                body = note_text(note.text)
                said = note_said_at(note.text)
                if said and sentence.item.said_at and sentence.item.said_at <= said:
                    continue                        # older evidence cannot revise it
                pattern = re.compile(rf"(?<![\w-]){re.escape(term)}(?![\w-])", re.IGNORECASE)
                lines = body.splitlines()
                if not any(_advises(ln, term, pattern) for ln in lines) or \
                        sentence.text in body:
                    continue
                new_lines, placed = [], False
                for ln in lines:
                    if _advises(ln, term, pattern):
                        if not placed:
                            prefix = ln[: len(ln) - len(ln.lstrip())]
                            bullet = "- " if ln.lstrip().startswith("- ") else ""
                            new_lines.append(f"{prefix}{bullet}{sentence.text.rstrip()}")
                            placed = True
                        continue
                    new_lines.append(ln)
                if not placed:
                    continue
                done.add(note.address)
                change = changed_note(ev, NAME, note, "\n".join(new_lines).strip() + "\n"
                                      if len(new_lines) > 1 else new_lines[0],
                                      [sentence.item])
                out.append(Candidate(
                    slug=slugify(NAME, f"update {note.relpath.rsplit('/', 1)[-1][:-3]} {term}"),
                    pass_name=NAME, kind="memory",
                    title=clip(f"Update {note.address}: {sentence.text}", 120),
                    size="S", risk="medium", items=[sentence.item], change=change,
                    replaces=[note.address], strength=3, citations=_at(ev),
                    finding=clip(f"Newer evidence contradicts {note.address} on '{term}'", 200),
                ))
    return out


def _forgets(ev: Evidence, live: list[Note], statements) -> tuple[list[Candidate], list[str]]:
    out: list[Candidate] = []
    kept_user: list[str] = []
    for item in statements:
        for sentence in wording.sentences(item):
            match = _FORGET.search(sentence)
            if not match:
                continue
            words = wording.words(match.group(1) or match.group(2) or "")
            for note in live:
                if not _says(note, words):
                    continue
                if note.relpath.startswith("user/"):
                    kept_user.append(note.address)
                    continue
                change = changed_note(ev, NAME, note, None, [item], crumple=True)
                out.append(Candidate(
                    slug=slugify(NAME, f"forget {note.relpath.rsplit('/', 1)[-1][:-3]}"),
                    pass_name=NAME, kind="memory",
                    title=clip(f"Crumple {note.address}: {sentence}", 120),
                    size="S", risk="medium", items=[item], change=change,
                    replaces=[note.address], strength=2, citations=_at(ev),
                    finding=clip(f"User asked to forget {note.address}", 200),
                ))
    return out, kept_user
