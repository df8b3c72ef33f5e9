"""corrections: repeated user corrections and requests.

User statements are split into sentences; corrections ("no, ...", "don't", "stop",
"I said", "instead", "always", "never", ...) are grouped by normalised text
(:mod:`dream.detect.directives`, the same
classification the dream run uses). A correction said in two or more statements becomes a
memory proposal: a standing-correction note under ``@projects/<name>/corrections/`` so the
next session is told before it repeats the habit. Corrections listed in the prepared handoff
are the primary input: each one is looked up in the evidence; a handoff correction backed by
at least one user statement is proposed citing that statement, one without any backing is
named in the journal and not proposed.
"""

from __future__ import annotations

from dream.detect import grouping, rules, wording
from dream.passes.base import (
    Candidate,
    PassResult,
    clip,
    find_citations,
    handoff_section,
    plural,
    slugify,
    unique_slugs,
)
from dream.passes.evidence import Evidence, Item
from dream.passes.notes import new_note

NAME = "corrections"


def run(ev: Evidence) -> PassResult:
    result = PassResult(NAME)
    found = rules.corrections(ev.items)
    groups = ev.rule_groups
    repeated = grouping.repeated(groups)
    for grp in repeated:
        result.candidates.append(_candidate(ev, grp.rule, grp.sentences + grp.again,
                                            "repeated"))
    confirmed, unbacked = [], []
    if ev.handoff:
        for line in handoff_section(ev.handoff.text, "correction"):
            w = wording.words(line)
            if any(wording.same(g.words, w) for g in repeated):
                confirmed.append(line)
                continue
            backing = [s for s in found if wording.same(wording.words(s.text), w)]
            if not backing:
                backing = [grouping.Sentence(t, i) for i in ev.statements()
                           for t in wording.sentences(i)
                           if wording.same(wording.words(t), w)]
            if backing:
                confirmed.append(line)
                cand = _candidate(ev, backing[-1].text, backing, "handoff")
                cand.citations = find_citations(line)
                result.candidates.append(cand)
            else:
                unbacked.append(line)
    unique_slugs(result.candidates)
    missing = []
    if not ev.statements():
        missing.append("no user statements in the evidence: no corrections to group")
    missing += [f"handoff correction without a user statement behind it (not proposed): "
                f"{clip(line, 120)}" for line in unbacked]
    result.journal = {
        "looked_at": {"statements": len(ev.statements()), "correction_sentences": len(found)},
        "groups": len(groups),
        "repeated_groups": len(repeated),
        "handoff_corrections": {"confirmed": len(confirmed), "unbacked": len(unbacked)},
        "missing": missing,
    }
    return result


def _candidate(ev: Evidence, rule: str, said: list[grouping.Sentence], why: str) -> Candidate:
    items: list[Item] = list({s.item.id: s.item for s in said}.values())
    sessions = list(dict.fromkeys(i.stream for i in items))
    n = len(items)
    text = clip(rule, 200)
    change = new_note(ev, NAME, text, "correction", items,
                      key=slugify(NAME, " ".join(wording.ordered_words(rule))).removeprefix(NAME + "-"))
    slug = slugify(NAME, " ".join(wording.ordered_words(rule)))
    return Candidate(
        slug=slug,
        pass_name=NAME,
        kind="memory",
        title=clip(f"Remember the correction: {rule}", 120),
        size="S",
        risk="low",
        items=items,
        change=change,
        strength=2 * n + len(sessions) + (1 if why == "handoff" else 0),
        finding=clip(f"User corrected this {plural(n, 'time')}: {rule}", 200),
    )
