"""The held-out v6 coding set (sealed in session 7) is complete and loads as the benchmark
expects; it stays sealed, so the benchmark reports it by aggregates only."""

from __future__ import annotations

import json
import sys

from conftest import REPO_ROOT

BENCH = REPO_ROOT / "bench"
CODING = BENCH / "heldout_v6" / "coding"


def test_heldout_v6_coding_is_sealed_and_loads_complete() -> None:
    """13+ coding scenarios, sealed, in all three transcript formats (4+ Claude Code, 4+
    Codex, 3+ Pi, one mixing all three), each transcript valid JSON lines with one session
    per file, each gold in the held-out form, and 6+ scenarios with 2-3 sessions carrying
    review items."""
    sys.path.insert(0, str(BENCH))
    import coding_memory as cm
    assert (CODING / "SEALED").is_file() and (CODING / "README.md").is_file()
    assert cm.sealed(CODING) and cm.set_name_of(CODING) == "heldout_v6_coding"
    projects = cm.scenario_projects(CODING, "heldout_v6_coding", False)
    assert len(projects) >= 13
    by_format: dict[str, int] = {}
    mixed = 0
    for p in projects:
        assert p.files and p.gold, p.name
        assert {g["category"] for g in p.gold} <= set(cm.CATEGORIES), p.name
        assert all(g["keywords"] and all(isinstance(k, str) and k for k in g["keywords"])
                   for g in p.gold), p.name
        assert len({g["id"] for g in p.gold}) == len(p.gold), p.name
        assert all(isinstance(m, list) and m for m in p.must_not), p.name
        assert all(r["kind"] in ("rule", "failure") and r["keywords"] for r in p.review), p.name
        kinds = set()
        for f in p.files:
            kinds.add(cm.source_kind(f))
            records = [json.loads(line) for line in f.read_text(encoding="utf-8").splitlines()]
            assert records, f
            if cm.source_kind(f) == "claude_code":   # one session per file
                assert len({r["sessionId"] for r in records}) == 1, f
            else:
                assert sum(r["type"] in ("session", "session_meta") for r in records) == 1, f
        assert p.sessions == len(p.files), p.name
        if len(kinds) == 1:
            kind = kinds.pop()
            by_format[kind] = by_format.get(kind, 0) + 1
        elif kinds == {"claude_code", "codex", "pi"}:
            mixed += 1
    assert by_format.get("claude_code", 0) >= 4 and by_format.get("codex", 0) >= 4
    assert by_format.get("pi", 0) >= 3 and mixed >= 1
    assert sum(1 for p in projects if p.sessions >= 2 and p.review) >= 6
