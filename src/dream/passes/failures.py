"""failures: repeated failures grouped by cause, each with a small proposed correction.

A failing tool result (flagged as an error, or a non-zero exit status in its text:
:func:`dream.detect.failures.failed`) gets a normalised signature
(:func:`dream.detect.failures.signature`). Failures with one signature form a group; a
group is *repeated*, and becomes a proposal, when it happened at least twice in two
sessions or three times in one. A single failure is not a pattern and is only counted.
"""

from __future__ import annotations

from dream.detect.failures import FailureGroup, cause_line, failed, fix_for, groups
from dream.passes.base import Candidate, PassResult, clip, plural, slugify, unique_slugs
from dream.passes.evidence import Evidence

NAME = "failures"

def run(ev: Evidence) -> PassResult:
    result = PassResult(NAME)
    all_groups = groups(ev.items)
    repeated = [g for g in all_groups if g.repeated]
    failing = sum(1 for i in ev.tool_results() if failed(i))
    missing = []
    if not ev.tool_results():
        missing.append("no tool results in the evidence: failures cannot be grouped")
    elif not failing:
        missing.append("no failing tool results in the evidence")
    for grp in repeated:
        result.candidates.append(_candidate(grp))
    unique_slugs(result.candidates)
    result.journal = {
        "looked_at": {"tool_results": len(ev.tool_results()), "failing": failing},
        "signatures": len(all_groups),
        "repeated_groups": len(repeated),
        "single_failures": sum(len(g.items) for g in all_groups if not g.repeated),
        "groups": [{"signature": g.signature, "count": len(g.items),
                    "sessions": len(g.sessions)} for g in all_groups[:20]],
        "missing": missing,
    }
    return result


def _candidate(grp: FailureGroup) -> Candidate:
    n, s = len(grp.items), len(grp.sessions)
    fix = fix_for(grp.signature)
    where = f" (`{grp.commands[0]}`)" if grp.commands else ""
    example = cause_line(grp.items[-1].text)
    lines = [
        f"Repeated failure{where}: {plural(n, 'time')} in {plural(s, 'session')}.",
        "",
        f"Signature: `{grp.signature}`",
        f"Last seen: `{clip(example, 200)}`",
        f"Tools: {', '.join(grp.tools)}",
    ]
    if grp.commands:
        lines.append("Commands: " + ", ".join(f"`{c}`" for c in grp.commands[:5]))
    lines += ["", f"Proposed correction: {fix}."]
    return Candidate(
        slug=slugify(NAME, grp.signature),
        pass_name=NAME,
        kind="code",
        title=clip(f"Fix the repeated failure `{clip(example.rstrip('.:'), 90)}`.", 120),
        size="S",
        risk="low",
        items=grp.items,
        change={"type": "work_item", "text": "\n".join(lines), "signature": grp.signature,
                "commands": grp.commands, "count": n, "sessions": s, "fix": fix},
        strength=n + 2 * s,
        finding=f"{grp.commands[0] if grp.commands else grp.tools[0]} failed {n}x in "
                f"{plural(s, 'session')}: {grp.signature}",
    )
