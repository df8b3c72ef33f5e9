"""tools: what tool results and repeated manual steps show, counted only from evidence.

Statistics come from tool results in the spool and nothing else: calls and failures per
tool (a call without a result is not counted, a failure is a result flagged as an error).
Proposals:

- a repeated sequence of shell commands becomes a *reusable procedure* for the agent
  instructions (an instruction proposal with a patch the user may apply);
- a tool that fails often (at least 3 failures and a quarter of its calls, in two or more
  sessions) becomes a work item to find out why.
"""

from __future__ import annotations

from dream.detect import commands as detected
from dream.passes.base import Candidate, PassResult, clip, plural, slugify, unique_slugs
from dream.passes.evidence import Evidence
from dream.passes.instructions import lessons_patch

NAME = "tools"
MIN_FAILURES = 3
MIN_RATE = 0.25


def stats(ev: Evidence) -> dict[str, dict[str, int]]:
    out: dict[str, dict[str, int]] = {}
    for item in ev.tool_results():
        entry = out.setdefault(item.tool_name or "(unnamed)",
                               {"calls": 0, "failures": 0, "sessions": 0})
        entry["calls"] += 1
        entry["failures"] += 1 if item.is_error else 0
    for tool, entry in out.items():
        entry["sessions"] = len({i.stream for i in ev.tool_results()
                                 if (i.tool_name or "(unnamed)") == tool})
    return dict(sorted(out.items(), key=lambda kv: (-kv[1]["calls"], kv[0])))


def run(ev: Evidence) -> PassResult:
    result = PassResult(NAME)
    table = stats(ev)
    seqs = detected.repeated(ev.commands())
    commands = ev.commands()
    missing = []
    if not ev.tool_results():
        missing.append("no tool results in the evidence: no tool statistics")
    if not commands:
        missing.append("no shell commands backed by tool results: no manual steps to compare")
    for seq in seqs:
        result.candidates.append(_procedure(ev, seq))
    for tool, entry in table.items():
        if (entry["failures"] >= MIN_FAILURES and entry["failures"] >= MIN_RATE * entry["calls"]
                and entry["sessions"] >= 2):
            result.candidates.append(_unreliable(ev, tool, entry))
    unique_slugs(result.candidates)
    result.journal = {
        "looked_at": {"tool_results": len(ev.tool_results()),
                      "sessions_with_commands": len(commands),
                      "commands": sum(len(v) for v in commands.values())},
        "tools": table,
        "repeated_sequences": len(seqs),
        "missing": missing,
    }
    return result


def _procedure(ev: Evidence, seq: detected.Procedure) -> Candidate:
    steps = list(seq.examples)
    n, s = len(seq.occurrences), len(seq.sessions)
    lesson = ("Repeated procedure (" + plural(s, "session") + "): "
              + " → ".join(f"`{c}`" for c in steps))
    text = "\n".join([
        (f"The same {len(steps)} shell commands ran in this order {plural(n, 'time')} in "
        f"{plural(s, 'session')}:"),
        "",
        *[f"{k}. `{c}`" for k, c in enumerate(steps, 1)],
        "",
        ("Proposed: record this as a named procedure in the agent instructions so it is run "
        "the same way every time (the project pass proposes a script for it)."),
    ])
    return Candidate(
        slug=slugify(NAME, "procedure " + seq.label),
        pass_name=NAME,
        kind="instruction",
        title=clip(f"Record the {len(steps)}-step procedure run in {plural(s, 'session')}", 120),
        size="S",
        risk="low",
        items=seq.items,
        change={"type": "work_item", "text": text, "steps": steps,
                "patch": lessons_patch(ev, [lesson])},
        strength=len(steps) * s,
        finding=clip(f"Same {len(steps)} commands in order in {plural(s, 'session')}: "
                     + " → ".join(steps), 200),
    )


def _unreliable(ev: Evidence, tool: str, entry: dict[str, int]) -> Candidate:
    items = [i for i in ev.tool_results() if (i.tool_name or "(unnamed)") == tool and i.is_error]
    rate = entry["failures"] / entry["calls"]
    text = (f"`{tool}` failed {entry['failures']} of {entry['calls']} calls ({rate:.0%}) "
            f"across {plural(entry['sessions'], 'session')}. Look at the cited results for "
            "what the calls have in common (arguments, working directory, missing setup).")
    return Candidate(
        slug=slugify(NAME, f"{tool} fails often"),
        pass_name=NAME,
        kind="code",
        title=clip(f"{tool} fails in {rate:.0%} of calls", 120),
        size="S",
        risk="low",
        items=items,
        change={"type": "work_item", "text": text, "tool": tool, **entry},
        strength=entry["failures"],
        finding=f"{tool}: {entry['failures']} of {entry['calls']} calls failed ({rate:.0%})",
    )
