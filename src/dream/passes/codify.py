"""codify: lessons that belong in agent instructions, code or a reusable procedure.

Deterministic sources of lessons:

- a user correction repeated in two or more statements becomes a standing rule for
  ``AGENTS.md`` (or ``CLAUDE.md`` when that is the project's file);
- a failure repeated across two or more sessions becomes a "known pitfall" line, the same
  line the dream run writes in the brief (:func:`dream.detect.pitfalls.pitfalls`: the
  command, the root-cause line and the step that fixed it when the sessions show one).

Each lesson is an instruction proposal carrying a patch the user applies; Dream never edits
the instructions itself. (Repeated command sequences are the tools pass's procedures and the
project pass's scripts, so they are not repeated here.)
"""

from __future__ import annotations

import re

from dream.detect import grouping, pitfalls, wording
from dream.passes.base import Candidate, PassResult, clip, plural, slugify, unique_slugs
from dream.passes.evidence import Evidence
from dream.passes.instructions import lessons_patch

NAME = "codify"


def run(ev: Evidence) -> PassResult:
    result = PassResult(NAME)
    groups = grouping.repeated(ev.rule_groups)
    for grp in groups:
        rule = grp.rule
        n, s = len(grp.items), len(grp.sessions)
        lesson = clip(f"{rule} (the user had to say this {plural(n, 'time')})", 200)
        result.candidates.append(Candidate(
            slug=slugify(NAME, "rule " + " ".join(wording.ordered_words(rule))),
            pass_name=NAME,
            kind="instruction",
            title=clip(f"Add to {ev.agent_file}: {rule}", 120),
            size="S",
            risk="low",
            items=grp.items,
            change={"type": "work_item", "lessons": [lesson],
                    "text": f"Add this standing rule to {ev.agent_file} so agents stop "
                            f"needing the correction:\n\n- {lesson}" + _said_also(grp),
                    "patch": lessons_patch(ev, [lesson])},
            strength=2 * n + s,
            finding=clip(f"Codify in {ev.agent_file}: {rule}", 200),
        ))
    by_id = {i.id: i for i in ev.items}
    known = [f for f in pitfalls.pitfalls(ev.items) if _sessions(f.fields.get("said", "")) >= 2]
    for found in known:
        items = [by_id[i] for i in found.evidence if i in by_id]
        n, s = len(items), len({i.stream for i in items})
        # the whole line: its end holds the step that fixed it (the line is bounded already)
        lesson = clip(f"Known pitfall: {found.text}", 300)
        result.candidates.append(Candidate(
            slug=slugify(NAME, found.name or found.text),
            pass_name=NAME,
            kind="instruction",
            title=clip(f"Note a known pitfall in {ev.agent_file}: {found.text}", 120),
            size="S",
            risk="low",
            items=items,
            change={"type": "work_item", "lessons": [lesson],
                    "text": f"Record this repeated failure ({found.fields.get('said')}) in "
                            f"{ev.agent_file}:\n\n- {lesson}",
                    "patch": lessons_patch(ev, [lesson])},
            strength=n + s,
            finding=clip(f"Pitfall worth codifying: {found.text}", 200),
        ))
    unique_slugs(result.candidates)
    missing = []
    if not ev.statements() and not ev.tool_results():
        missing.append("no user statements and no tool results: nothing to codify")
    result.journal = {
        "looked_at": {"statements": len(ev.statements()),
                      "tool_results": len(ev.tool_results())},
        "rules_from_corrections": len(groups),
        "pitfalls_from_failures": len(known),
        "agent_file": ev.agent_file + ("" if ev.agent_file_text is not None else " (new)"),
        "missing": missing,
    }
    return result


def _said_also(grp: grouping.Group) -> str:
    """How the user said the rule in the other statements, when in other words: what the
    reviewer needs to see that the paraphrases are one rule ("no builds from here, ever" /
    "no packer build locally"), and the sentences that said it again in words not read as a
    rule ("thats the brew ameba again")."""
    best = grouping.fullest(grp.sentences)
    shown = wording.words(grp.rule)
    other = list(dict.fromkeys(s.text for s in grp.sentences + grp.again
                               if s.item.id != best.item.id
                               and not wording.words(s.text) <= shown))
    if not other:
        return ""
    return "\n\nAlso said as: " + "; ".join(f"\"{clip(t, 120)}\"" for t in other[:3])


def _sessions(said: str) -> int:
    """The number of sessions in a count such as "3 times in 2 sessions"."""
    m = re.search(r"in (\d+) sessions?", said)
    return int(m[1]) if m else 0
