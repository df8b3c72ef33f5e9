"""What every held-out set test checks: the set loads as its benchmark loads it, and its
structure and aggregates are what the set promises. One loader-and-replay for all of them
(tests/test_bench_heldout_*.py), so a new set's test states only its own thresholds.

Only structure and aggregates are read here: a sealed set's scenarios are never printed,
and a failure names a scenario or file, never its content.
"""

from __future__ import annotations

import json
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from conftest import REPO_ROOT

BENCH = REPO_ROOT / "bench"
FORMATS = ("claude_code", "codex", "pi")


def bench_module(name: str) -> Any:
    """A benchmark script under bench/ imported as a module (coding_memory, consolidation)."""
    if str(BENCH) not in sys.path:
        sys.path.insert(0, str(BENCH))
    return __import__(name)


# -- coding sets ---------------------------------------------------------------------------------
def _files_and_gold(cm: Any, p: Any) -> bool:
    return bool(p.files and p.gold)


def _categories(cm: Any, p: Any) -> bool:
    return {g["category"] for g in p.gold} <= set(cm.CATEGORIES)


def _keywords(cm: Any, p: Any) -> bool:
    return all(g["keywords"] for g in p.gold)


def _keyword_strings(cm: Any, p: Any) -> bool:
    return all(g["keywords"] and all(isinstance(k, str) and k for k in g["keywords"])
               for g in p.gold)


def _unique_ids(cm: Any, p: Any) -> bool:
    return len({g["id"] for g in p.gold}) == len(p.gold)


def _must_not(cm: Any, p: Any) -> bool:
    return all(isinstance(m, list) and m for m in p.must_not)


def _review_kinds(cm: Any, p: Any) -> bool:
    return all(r["kind"] in ("rule", "failure") and r["keywords"] for r in p.review)


def _records(f: Path) -> list[dict]:
    return [json.loads(line) for line in f.read_text(encoding="utf-8").splitlines()]


def _json_lines(cm: Any, p: Any) -> bool:
    for f in p.files:
        _records(f)                      # raises on a line that is no JSON, as before
    return True


def _no_empty_file(cm: Any, p: Any) -> bool:
    return all(_records(f) for f in p.files)


def _one_session_per_file(cm: Any, p: Any) -> bool:
    for f in p.files:
        records = _records(f)
        if cm.source_kind(f) == "claude_code":
            if len({r["sessionId"] for r in records}) != 1:
                return False
        elif sum(r["type"] in ("session", "session_meta") for r in records) != 1:
            return False
    return True


def _sessions_are_files(cm: Any, p: Any) -> bool:
    return p.sessions == len(p.files)


CODING_CHECKS = {
    "files_and_gold": _files_and_gold, "categories": _categories, "keywords": _keywords,
    "keyword_strings": _keyword_strings, "unique_ids": _unique_ids, "must_not": _must_not,
    "review_kinds": _review_kinds, "json_lines": _json_lines,
    "no_empty_file": _no_empty_file, "one_session_per_file": _one_session_per_file,
    "sessions_are_files": _sessions_are_files,
}


@dataclass
class CodingSet:
    """A coding set as bench/coding_memory.py loads it, with what its tests count."""

    sealed: bool
    name: str
    projects: list[Any]
    formats: set[str] = field(default_factory=set)      # every transcript format used
    by_format: dict[str, int] = field(default_factory=dict)  # projects of one format
    mixed: int = 0                  # projects mixing all three formats
    reviewed: int = 0               # projects of 2+ sessions carrying review items

    def failing(self, *checks: str) -> list[tuple[str, str]]:
        """(project, check) for each named check (CODING_CHECKS) a project fails."""
        cm = bench_module("coding_memory")
        return [(p.name, name) for p in self.projects for name in checks
                if not CODING_CHECKS[name](cm, p)]


def coding_set(folder: Path, set_name: str) -> CodingSet:
    """Load a coding set the way the benchmark does and count its formats and reviews."""
    cm = bench_module("coding_memory")
    projects = cm.scenario_projects(folder, set_name, False)
    out = CodingSet(cm.sealed(folder), cm.set_name_of(folder), projects)
    for p in projects:
        kinds = {cm.source_kind(f) for f in p.files}
        out.formats |= kinds
        if len(kinds) == 1:
            kind = next(iter(kinds))
            out.by_format[kind] = out.by_format.get(kind, 0) + 1
        elif kinds == set(FORMATS):
            out.mixed += 1
        out.reviewed += p.sessions >= 2 and bool(p.review)
    return out


# -- personal sets ------------------------------------------------------------------------------
@dataclass
class PersonalSet:
    """A personal set as bench/consolidation.py loads it, with what its tests count."""

    sealed: bool
    name: str
    scenarios: list[Any]
    incomplete: int = 0             # scenarios missing something the set promises
    unquoted: int = 0               # ideal evidence quotes not found in the scenario's files
    kinds: dict[str, int] = field(default_factory=dict)   # export format -> scenarios using it

    def languages(self) -> list[str]:
        """Each scenario's language tag, from its name (``<n>-de-...``)."""
        return [sc.name.split("-")[1] for sc in self.scenarios]


def personal_set(root: Path, tmp_path: Path, *, days: bool = True,
                 unescape_newlines: bool = True) -> PersonalSet:
    """Load a personal set the way the benchmark does. A scenario is complete when it is in
    native formats, configures ``[collect]``, has gold and not-live records, files on each
    day and (``days``) two or more days with one ideal answer each. ``unescape_newlines``:
    also read ``\\n`` in the files as a line break when looking for the quotes."""
    c = bench_module("consolidation")
    scenarios = c.load_scenarios(None, root)
    out = PersonalSet(c.sealed(root), c.set_name_of(root), scenarios)
    for sc in scenarios:
        out.incomplete += not (sc.native and "[collect]" in sc.config and sc.gold
                               and sc.not_live and (not days or (
                                   len(sc.days) >= 2 and len(sc.ideal) == len(sc.days))))
        text = ""
        seen: set[str] = set()
        for day in sc.days:
            files = [p for p in day.rglob("*") if p.is_file()]
            out.incomplete += not files
            seen |= {kind for kind, _ in c.day_exports(day, tmp_path)}
            text += " ".join(p.read_text(encoding="utf-8") for p in files)
        for kind in seen:
            out.kinds[kind] = out.kinds.get(kind, 0) + 1
        text = text.replace("\\\"", '"')
        flat = c._norm(text.replace("\\n", "\n") if unescape_newlines else text)
        out.unquoted += sum(1 for day in sc.ideal for op in day for quote in op["evidence"]
                            if c._norm(quote) not in flat)
    return out


def assert_personal_shape(root: Path, tmp_path: Path, name: str, *, scenarios: int,
                          per_format: int = 1, english: int = 0,
                          sealed: bool = False) -> PersonalSet:
    """Load a personal set and check the shape every one promises: a README, a SEALED
    marker exactly when ``sealed``, its name, at least ``scenarios`` scenarios, none
    incomplete, every ideal quote found in its files, all four native formats
    (``per_format`` scenarios or more each), 3+ scenarios each in German, French and Spanish
    and ``english`` or more in English. A message names counts, never a scenario's content."""
    assert (root / "SEALED").exists() == sealed, f"{root}: SEALED marker should be {sealed}"
    assert (root / "README.md").is_file(), f"{root} has no README.md"
    found = personal_set(root, tmp_path)
    assert found.sealed == sealed and found.name == name, (found.sealed, found.name)
    assert len(found.scenarios) >= scenarios, f"{len(found.scenarios)} scenarios"
    assert (found.incomplete, found.unquoted) == (0, 0), \
        f"{found.incomplete} incomplete, {found.unquoted} ideal quotes not in the files"
    assert set(found.kinds) == {"mbox", "slack", "textchat", "jsonl"}, sorted(found.kinds)
    assert min(found.kinds.values()) >= per_format, found.kinds
    lang = found.languages()
    counts = {tag: lang.count(tag) for tag in ("de", "fr", "es")}
    assert min(counts.values()) >= 3, counts
    assert len(lang) - sum(counts.values()) >= english, f"{len(lang) - sum(counts.values())} English"
    return found


PERFECT = ("precision", "recall", "duplicates", "wrong_live", "failed_runs", "unplaced_ops",
           "perfect_scenarios")


def replay_ideal(scenarios: list[Any]) -> tuple[dict[str, Any], dict[str, Any]]:
    """The scripted provider replaying each scenario's ideal.yaml: (the figures a perfect
    replay must reach, the whole entry). Their ideal reaches their gold exactly when the
    first is precision 1, recall 1, nothing duplicated, wrongly live, failed or unplaced,
    and every scenario perfect."""
    c = bench_module("consolidation")
    entry = c.provider_entry([c.run_scenario(sc, "scripted") for sc in scenarios])
    return {k: entry[k] for k in PERFECT}, entry


def perfect(scenarios: list[Any]) -> dict[str, Any]:
    return {"precision": 1.0, "recall": 1.0, "duplicates": 0, "wrong_live": 0,
            "failed_runs": 0, "unplaced_ops": 0, "perfect_scenarios": len(scenarios)}


def replay_first_day_only(scenarios: list[Any]) -> dict[str, Any]:
    """The replay of only the first day's ideal answer of ``scenarios`` (which it changes):
    a set whose later days matter leaves not-live records live, so the checks bite."""
    c = bench_module("consolidation")
    for sc in scenarios:
        sc.ideal = sc.ideal[:1]
    return c.provider_entry([c.run_scenario(sc, "scripted") for sc in scenarios])


def assert_ideal_replay(found: PersonalSet, *, gold: int, not_live: int,
                        questions: int = 0) -> None:
    """The engine check every personal set promises: the scripted replay of ideal.yaml is
    perfect on every scenario, the set holds ``gold`` gold records and ``not_live`` not-live
    checks or more, ``questions`` or more ideal answers are questions (references nobody can
    resolve) and end as open questions, and replaying only the first day of the first four
    scenarios leaves not-live records live (the checks bite). Messages name counts only."""
    got, entry = replay_ideal(found.scenarios)
    assert got == perfect(found.scenarios), "the ideal replay is not perfect"
    assert entry["gold"] >= gold and entry["not_live_checked"] >= not_live, \
        (entry["gold"], entry["not_live_checked"])
    if questions:
        asks = sum(1 for sc in found.scenarios for day in sc.ideal for op in day
                   if op["op"] == "question.ask")
        assert asks >= questions and entry["open_questions"] >= questions, \
            (asks, entry["open_questions"])
    stale = replay_first_day_only(found.scenarios[:4])
    assert stale["wrong_live"] >= 3 and stale["recall"] < 1.0, \
        (stale["wrong_live"], stale["recall"])
