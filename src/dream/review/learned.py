"""Exactly three learned lines per review, from its strongest findings.

The strongest finding of each pass comes first (so three lines cover three kinds of lesson
where there are that many), then the next strongest overall. When the evidence holds fewer
than three findings, the remaining lines say honestly how little there was: never a line
that is not backed by the evidence or by a count of it.
"""

from __future__ import annotations

from dream.passes.base import Candidate, clip, plural

COUNT = 3
MAX_CHARS = 200


def lines(candidates: list[Candidate], counts: dict[str, int], handoff_read: bool) -> list[str]:
    ranked = sorted(candidates, key=lambda c: (-c.strength, c.pass_name, c.slug))
    picked: list[str] = []
    subjects: set[frozenset[str]] = set()     # one line per body of evidence
    seen_passes: set[str] = set()

    def take(cand: Candidate) -> None:
        subject = frozenset(cand.item_ids())
        if cand.finding not in picked and subject not in subjects:
            picked.append(cand.finding)
            subjects.add(subject)
            seen_passes.add(cand.pass_name)

    for cand in ranked:                     # the best of each pass first
        if cand.pass_name not in seen_passes:
            take(cand)
    for cand in ranked:
        take(cand)
    picked = picked[:COUNT]
    honest = [
        (f"Little evidence since the last review: {plural(counts.get('sessions', 0), 'session')}, "
        f"{plural(counts.get('statements', 0), 'user statement')}, "
        f"{plural(counts.get('tool_results', 0), 'tool result')}."),
        "No repeated failure, correction or manual sequence beyond the lines above was found."
        if picked else "No repeated failure, correction or manual sequence was found.",
        "The prepared handoff was read; no further evidence backed a proposal."
        if handoff_read else "No prepared handoff was available to guide this review.",
    ]
    for line in honest:
        if len(picked) >= COUNT:
            break
        picked.append(line)
    return [clip(line, MAX_CHARS) for line in picked]
