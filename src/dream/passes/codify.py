"""codify: lessons that belong in agent instructions, code or a reusable procedure.

Deterministic sources of lessons:

- a user correction repeated in two or more statements becomes a standing rule for
  ``AGENTS.md`` (or ``CLAUDE.md`` when that is the project's file);
- a failure repeated across two or more sessions becomes a "known pitfall" line naming the command, the
  error and the small correction.

Each lesson is an instruction proposal carrying a patch the user applies; Dream never edits
the instructions itself. (Repeated command sequences are the tools pass's procedures and the
project pass's scripts, so they are not repeated here.)
"""

from __future__ import annotations

from dream.detect import directives, failures, rules
from dream.passes.base import Candidate, PassResult, clip, plural, slugify, unique_slugs
from dream.passes.evidence import Evidence
from dream.passes.instructions import lessons_patch

NAME = "codify"


def run(ev: Evidence) -> PassResult:
    result = PassResult(NAME)
    groups = directives.repeated(directives.group(rules.corrections(ev.items)))
    for grp in groups:
        rule = grp.rule
        n, s = len(grp.items), len(grp.sessions)
        lesson = clip(f"{rule} (the user had to say this {plural(n, 'time')})", 200)
        result.candidates.append(Candidate(
            slug=slugify(NAME, "rule " + " ".join(directives.ordered_words(rule))),
            pass_name=NAME,
            kind="instruction",
            title=clip(f"Add to {ev.agent_file}: {rule}", 120),
            size="S",
            risk="low",
            items=grp.items,
            change={"type": "work_item", "lessons": [lesson],
                    "text": f"Add this standing rule to {ev.agent_file} so agents stop "
                            f"needing the correction:\n\n- {lesson}",
                    "patch": lessons_patch(ev, [lesson])},
            strength=2 * n + s,
            finding=clip(f"Codify in {ev.agent_file}: {rule}", 200),
        ))
    pitfalls = [g for g in failures.groups(ev.items) if len(g.sessions) >= 2]
    for fgrp in pitfalls:
        what = f"`{fgrp.commands[0]}`" if fgrp.commands else f"{', '.join(fgrp.tools)} calls"
        example = failures.cause_line(fgrp.items[-1].text).rstrip(".:")
        lesson = clip(f"Known pitfall: {what} fails with `{clip(example, 100)}`; "
                      f"{failures.fix_for(fgrp.signature)}.", 200)
        result.candidates.append(Candidate(
            slug=slugify(NAME, "pitfall " + fgrp.signature),
            pass_name=NAME,
            kind="instruction",
            title=clip(f"Note a known pitfall in {ev.agent_file}: `{clip(example, 70)}`.", 120),
            size="S",
            risk="low",
            items=fgrp.items,
            change={"type": "work_item", "lessons": [lesson],
                    "text": f"Record this repeated failure ({plural(len(fgrp.items), 'time')} in "
                            f"{plural(len(fgrp.sessions), 'session')}) in {ev.agent_file}:"
                            f"\n\n- {lesson}",
                    "patch": lessons_patch(ev, [lesson])},
            strength=len(fgrp.items) + len(fgrp.sessions),
            finding=clip(f"Pitfall worth codifying: {fgrp.signature}", 200),
        ))
    unique_slugs(result.candidates)
    missing = []
    if not ev.statements() and not ev.tool_results():
        missing.append("no user statements and no tool results: nothing to codify")
    result.journal = {
        "looked_at": {"statements": len(ev.statements()),
                      "tool_results": len(ev.tool_results())},
        "rules_from_corrections": len(groups),
        "pitfalls_from_failures": len(pitfalls),
        "agent_file": ev.agent_file + ("" if ev.agent_file_text is not None else " (new)"),
        "missing": missing,
    }
    return result
