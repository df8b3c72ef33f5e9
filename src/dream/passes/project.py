"""project: repeated multi-step work that a project-specific program could simplify.

Each repeated command sequence (see :mod:`dream.detect.commands`) becomes a code proposal:
a small script under ``scripts/`` that runs the steps in order and stops at the first
failure, offered as a patch the user applies. Dream writes no code into the project.
"""

from __future__ import annotations

import shlex

from dream.detect import commands as detected
from dream.passes.base import Candidate, PassResult, clip, plural, slugify, unique_slugs
from dream.passes.evidence import Evidence
from dream.passes.instructions import new_file_patch

NAME = "project"


def run(ev: Evidence) -> PassResult:
    result = PassResult(NAME)
    seqs = detected.repeated(ev.commands())
    commands = ev.commands()
    for seq in seqs:
        result.candidates.append(_script(seq))
    unique_slugs(result.candidates)
    missing = []
    if not commands:
        missing.append("no shell commands backed by tool results: repeated work cannot be seen")
    result.journal = {
        "looked_at": {"sessions_with_commands": len(commands),
                      "commands": sum(len(v) for v in commands.values())},
        "repeated_sequences": len(seqs),
        "missing": missing,
    }
    return result


def script_name(steps: list[str]) -> str:
    words: list[str] = []
    for step in steps:
        try:
            first = shlex.split(step)[:2]
        except ValueError:
            first = step.split()[:2]
        words.extend(w for w in first if w.isidentifier() or w.replace("-", "").isalnum())
    slug = "-".join(dict.fromkeys(w.lower() for w in words))[:40].strip("-") or "steps"
    return f"scripts/{slug}.sh"


def _script(seq: detected.Procedure) -> Candidate:
    steps = list(seq.examples)
    s, n = len(seq.sessions), len(seq.occurrences)
    path = script_name(steps)
    body = "\n".join([
        "#!/usr/bin/env bash",
        (f"# Proposed by a Dream review: these {len(steps)} steps ran in this order in "
        f"{plural(s, 'session')}."),
        "set -euo pipefail",
        'cd "$(git rev-parse --show-toplevel)"',
        *steps,
    ]) + "\n"
    text = "\n".join([
        (f"The same {len(steps)} commands ran in order {plural(n, 'time')} in "
        f"{plural(s, 'session')}. One script would run them the same way every time:"),
        "",
        "```sh",
        body.rstrip(),
        "```",
        "",
        f"Proposed: add `{path}` (patch attached) and mention it in the agent instructions.",
    ])
    return Candidate(
        slug=slugify(NAME, "script " + seq.label),
        pass_name=NAME,
        kind="code",
        title=clip(f"Add {path} for {len(steps)} steps repeated in {plural(s, 'session')}", 120),
        size="M" if len(steps) > 6 else "S",
        risk="low",
        items=seq.items,
        change={"type": "work_item", "text": text, "steps": steps,
                "patch": {"file": path, "diff": new_file_patch(path, body)}},
        strength=len(steps) * s,
        finding=clip(f"{len(steps)} steps repeated in {plural(s, 'session')} could be one "
                     f"script ({path})", 200),
    )
