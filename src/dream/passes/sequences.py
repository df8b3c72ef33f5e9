"""Repeated command sequences: the same shell commands, in order, in several sessions.

Commands come from tool results (see :meth:`Evidence.commands`), normalised so volatile
parts (numbers, hashes, temp names) do not split a step, with immediate repeats collapsed
(re-running ``pytest`` twice is one step). A sequence is a run of at least ``MIN_LEN``
consecutive steps; it is *repeated* when it occurs in at least two sessions, or three times
in one. Only maximal sequences are kept: a shorter one inside a longer one with the same
sessions says nothing new.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from dream.passes.evidence import CommandRun, Evidence, Item
from dream.passes.signatures import normalise_command

MIN_LEN = 3
MAX_LEN = 12


@dataclass
class Sequence:
    steps: tuple[str, ...]                       # normalised commands
    examples: tuple[str, ...]                    # one real command per step
    occurrences: list[list[Item]] = field(default_factory=list)  # tool results per occurrence

    @property
    def sessions(self) -> list[str]:
        return list(dict.fromkeys(occ[0].stream for occ in self.occurrences))

    @property
    def items(self) -> list[Item]:
        return [i for occ in self.occurrences for i in occ]

    @property
    def label(self) -> str:
        """Distinct words of the steps, in order (for slugs)."""
        words: list[str] = []
        for step in self.examples:
            for word in step.split()[:2]:
                word = word.strip("-./").lower()
                if word.isalnum() and word not in words:
                    words.append(word)
        return " ".join(words)


def _steps(runs: list[CommandRun]) -> list[tuple[str, CommandRun]]:
    out: list[tuple[str, CommandRun]] = []
    for run in runs:
        if run.failed:
            out.append(("<failed>", run))     # a failing command is not a step to repeat
            continue
        key = normalise_command(run.command)
        if out and out[-1][0] == key:
            continue
        out.append((key, run))
    return out


def repeated(ev: Evidence) -> list[Sequence]:
    per_session = {s: _steps(r) for s, r in ev.commands().items()}
    found: dict[tuple[str, ...], Sequence] = {}
    longest = min(MAX_LEN, max((len(v) for v in per_session.values()), default=0))
    for n in range(longest, MIN_LEN - 1, -1):
        for steps in per_session.values():
            i = 0
            while i + n <= len(steps):
                window = steps[i:i + n]
                key = tuple(k for k, _ in window)
                seq = found.get(key)
                if seq is None:
                    seq = found[key] = Sequence(key, tuple(r.command for _, r in window))
                seq.occurrences.append([r.item for _, r in window])
                i += 1
    kept: list[Sequence] = []
    candidates: list[Sequence] = []
    for key in sorted(found, key=lambda k: -len(k)):
        seq = found[key]
        if len(set(key)) < 2 or "<failed>" in key:
            continue                               # the same command over and over
        if len(seq.sessions) < 2 and len(seq.occurrences) < 3:
            continue
        candidates.append(seq)
    # the strongest first; a sequence sharing half its steps with a stronger one is the same
    # work seen from another angle
    candidates.sort(key=lambda s: (-len(s.sessions) * len(s.steps), -len(s.sessions),
                                   s.items[0].seq))
    for seq in candidates:
        if any(_overlap(seq.steps, k.steps) for k in kept):
            continue
        kept.append(seq)
    return kept


def _overlap(a: tuple[str, ...], b: tuple[str, ...]) -> bool:
    return len(set(a) & set(b)) * 2 >= min(len(set(a)), len(set(b)))
