"""Apply (code): version-checked, per-field writes to the typed records.

Precedence runs per field on ``said_at``: a write whose evidence was said before the
field's current ``said_at`` cannot revise it (counted as ``stale``); newer evidence can.
A write of the value a field already has only pools the evidence. A write that changes
nothing changes no byte, so re-processing the same items (``--redo``, ``--retry``) gives
the same store. Each write names the row version it acted on; when the row moved since
(``version_moved``) the per-field rule still decides, so nothing newer is lost. A question
a person has answered is settled: only an answer or a correction writes to it again, so a
later run asking the same thing (same key) does not reopen it (``answered_question``).
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field

from dream.kinds.records import FieldValue, Record
from dream.pipeline.merge import RowWrite
from dream.pipeline.state import State

SETTLING_PASSES = {"answer", "correct"}      # the passes that may write an answered question


@dataclass
class ApplyResult:
    changed: dict[tuple[str, str], Record] = field(default_factory=dict)
    counts: Counter = field(default_factory=Counter)
    evidence: set[str] = field(default_factory=set)
    passes: set[str] = field(default_factory=set)


def apply_writes(state: State, writes: list[RowWrite], run_id: str,
                 result: ApplyResult | None = None) -> ApplyResult:
    """Apply row writes to ``state`` in memory; returns what changed."""
    result = result or ApplyResult()
    for write in writes:
        current = state.get(write.kind, write.key)
        if current is not None and write.acted_version is not None \
                and current.version != write.acted_version:
            result.counts["version_moved"] += 1
        if current is not None and current.kind == "question" and \
                current.get("status") == "answered" and \
                not {fw.pass_ for fw in write.fields.values()} <= SETTLING_PASSES:
            result.counts["answered_question"] += 1
            continue
        rec = current or Record(kind=write.kind, key=write.key)
        acted_on = rec.version
        touched = False
        for name, fw in sorted(write.fields.items()):
            cur = rec.fields.get(name)
            if cur is not None and fw.said_at < cur.said_at:
                result.counts["stale"] += 1
                continue
            if cur is not None and cur.value == fw.value:
                merged = sorted(set(cur.evidence) | set(fw.evidence))
                if merged == cur.evidence and fw.said_at <= cur.said_at:
                    result.counts["unchanged"] += 1
                    continue
                cur.evidence = merged
                cur.said_at = max(cur.said_at, fw.said_at)
                cur.version += 1
                cur.run, cur.pass_, cur.acted_on = run_id, fw.pass_, acted_on
            elif cur is not None:
                rec.fields[name] = FieldValue(fw.value, fw.said_at, list(fw.evidence), run_id,
                                              fw.pass_, cur.version + 1, acted_on)
            else:
                rec.fields[name] = FieldValue(fw.value, fw.said_at, list(fw.evidence), run_id,
                                              fw.pass_, 1, acted_on)
            touched = True
            result.evidence.update(fw.evidence)
            result.passes.add(fw.pass_)
            result.counts["fields_written"] += 1
        if touched:
            rec.version += 1
            state.records[(rec.kind, rec.key)] = rec
            result.changed[(rec.kind, rec.key)] = rec
            result.counts["created" if current is None else "updated"] += 1
    return result
