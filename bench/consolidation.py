"""Benchmark 3: consolidation accuracy on hand-written scenarios with gold final state.

    python bench/consolidation.py [--quick] [--only NAME] [--scenarios DIR]

Each scenario in bench/scenarios/ (or the set given by --scenarios, e.g. the held-out
bench/scenarios_heldout/; see its README.md) is collected and dreamed day by day
in its own throw-away DREAM_HOME, then the records in the store are matched against the
scenario's gold final state. Two providers:

  rules     Dream's embedded offline provider
  scripted  replays the scenario's ideal proposals (ideal.yaml): it isolates the engine
            (bundle, merge, precedence, apply), which must score 100% here

The matcher (also in docs/benchmarks.md): a record is a candidate for a gold record when
its kind is the gold kind (a gold standing fact also accepts a live memory note: the diff
schema offers note types 'preference' and 'fact') and every ``match`` word occurs in its
identity text (key, title, activity, place, participants, text; for a standing fact its
name and value), lower-cased. Crumpled notes are not counted: they are deleted memory. A
candidate is correct when every gold ``fields`` value equals the record's (lower-cased,
white space collapsed) and every ``contains`` word occurs in its field. The first correct
candidate is a true positive; further candidates of a gold record that already has one
are duplicates. Precision = true positives / records produced (events, to-dos, notes,
standing facts; open questions are counted apart), recall = true positives / gold records.
"""

from __future__ import annotations

import argparse
import json
import sys
import threading
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
import common
import yaml

from dream.errors import DreamError

SCENARIOS = common.BENCH / "scenarios"
SCORED_KINDS = ("event", "todo", "note", "standing")
QUICK_SCENARIOS = 8
IDENTITY_FIELDS = ("title", "activity", "place", "participants", "text", "name")
# a standing fact may also be kept as a memory note: the diff schema offers note types
# 'preference' and 'fact', so a gold standing record accepts a live note as well
ACCEPTS = {"standing": ("standing", "note")}


# -- scenarios -----------------------------------------------------------------------------
@dataclass
class Scenario:
    name: str
    path: Path
    title: str
    covers: list[str]
    days: list[Path]
    gold: list[dict[str, Any]]
    ideal: list[list[dict[str, Any]]]
    messages: dict[str, dict[str, Any]]


def load_scenarios(only: str | None = None, root: Path = SCENARIOS) -> list[Scenario]:
    out = []
    for folder in sorted(p for p in root.iterdir() if p.is_dir()):
        if only and only not in folder.name:
            continue
        gold = yaml.safe_load((folder / "gold.yaml").read_text(encoding="utf-8"))
        ideal = yaml.safe_load((folder / "ideal.yaml").read_text(encoding="utf-8"))
        days = sorted(folder.glob("day*.jsonl"), key=lambda p: int(p.stem[3:]))
        messages = {}
        for day in days:
            for line in day.read_text(encoding="utf-8").splitlines():
                if line.strip():
                    m = json.loads(line)
                    messages[str(m["id"])] = m
        out.append(Scenario(folder.name, folder, gold["title"], list(gold.get("covers", [])),
                            days, list(gold.get("gold") or []),
                            [d.get("ops") or [] for d in ideal.get("days", [])], messages))
    return out


# -- the scripted side: ideal proposals mapped onto the handles of each call -----------------
def _norm(text: Any) -> str:
    return " ".join(str(text).split()).lower()


class IdealProposals:
    """The ``scripted`` provider for one scenario day, with handles filled in at call time.

    Dream shows a model items as ``E<n>`` and rows as ``R<n>``, numbered per call, so a
    recorded answer cannot know them in advance. This provider holds the day's ideal ops
    (evidence as message ids, rows as keys) and, for each propose call, emits the ops whose
    evidence the call shows, translated to that call's handles. An op whose evidence is
    spread over calls is emitted once, in the first call that shows any of it, citing what
    that call shows (counted as ``split``). A row the call does not show (a done to-do is
    not in the state a call sees) is named by its key, which maps to the same row. Sweep
    calls get an empty answer.
    """

    name = "scripted"

    def __init__(self, ops: list[dict[str, Any]], messages: dict[str, dict[str, Any]]) -> None:
        self.model = "ideal"
        self.ops = ops
        self.messages = messages
        self.emitted: set[int] = set()
        self.split = 0
        self.unplaced = 0
        self._lock = threading.Lock()

    def complete(self, request: Any) -> Any:
        from dream.kinds.diff import OP_KIND
        from dream.models.base import ModelResponse

        if request.purpose != "propose":
            return ModelResponse(data={"ops": []})
        items = [it for b in request.payload.get("bundles", []) for it in b["items"]]
        rows = {(r["kind"], r["key"]): r["handle"] for r in request.payload.get("rows", [])}
        out = []
        with self._lock:
            for i, op in enumerate(self.ops):
                if i in self.emitted:
                    continue
                handles = [h for h in (self._handle(items, mid) for mid in op["evidence"]) if h]
                if not handles:
                    continue
                self.emitted.add(i)
                if len(handles) < len(op["evidence"]):
                    self.split += 1
                fields = op.get("fields") or {}
                if isinstance(fields, dict):
                    fields = [{"name": k, "value": str(v)} for k, v in fields.items()]
                diff: dict[str, Any] = {"op": op["op"], "fields": fields, "evidence": handles}
                if op.get("row"):
                    handle = rows.get((OP_KIND[op["op"]], op["row"]))
                    if handle:
                        diff["row"] = handle
                    else:
                        diff["name"] = op["row"]
                elif op.get("name"):
                    diff["name"] = op["name"]
                out.append(diff)
        return ModelResponse(data={"ops": out}, raw=json.dumps({"ops": out}))

    def _handle(self, items: list[dict[str, Any]], message_id: str) -> str | None:
        msg = self.messages.get(str(message_id))
        if msg is None:
            return None
        want = _norm(msg["text"])[:200]
        for it in items:
            if it.get("stream") == msg.get("stream") and _norm(it["text"])[:200] == want:
                return it["handle"]
        return None

    def finish(self) -> None:
        self.unplaced += len(self.ops) - len(self.emitted)


# -- matching --------------------------------------------------------------------------------
@dataclass
class Produced:
    kind: str
    identity: str
    fields: dict[str, str]
    label: str


def produced_records(records: list[Any]) -> tuple[list[Produced], int]:
    out, questions = [], 0
    for rec in records:
        if rec.kind == "question":
            questions += rec.get("status", "open") == "open"
            continue
        if rec.kind not in SCORED_KINDS:
            continue
        if rec.kind == "note" and rec.get("status", "live") == "crumpled":
            continue   # soft-deleted: no longer part of the memory
        if rec.kind == "standing":
            for name, fv in rec.fields.items():
                out.append(Produced("standing", _norm(f"{name.replace('_', ' ')} {fv.value}"),
                                    {"value": fv.value}, f"standing.{name}={fv.value}"))
            continue
        values = rec.values()
        ident = " ".join([rec.key.replace("-", " ")] + [values.get(f, "")
                                                       for f in IDENTITY_FIELDS])
        out.append(Produced(rec.kind, _norm(ident), values, f"{rec.kind}/{rec.key}"))
    return out, questions


def correct(gold: dict[str, Any], p: Produced) -> bool:
    for name, value in (gold.get("fields") or {}).items():
        if _norm(p.fields.get(name, "")) != _norm(value):
            return False
    for name, words in (gold.get("contains") or {}).items():
        have = _norm(p.fields.get(name, ""))
        if not all(_norm(w) in have for w in words):
            return False
    return True


def candidate(gold: dict[str, Any], p: Produced) -> bool:
    return p.kind in ACCEPTS.get(gold["kind"], (gold["kind"],)) and all(_norm(w) in p.identity for w in gold["match"])


@dataclass
class Score:
    tp: int = 0
    produced: int = 0
    gold: int = 0
    duplicates: int = 0
    questions: int = 0
    wrong: list[str] = field(default_factory=list)     # gold records missed, with why
    extra: list[str] = field(default_factory=list)     # produced records matching no gold


def score(gold: list[dict[str, Any]], produced: list[Produced], questions: int) -> Score:
    s = Score(produced=len(produced), gold=len(gold), questions=questions)
    used: set[int] = set()
    for g in gold:
        cands = [i for i, p in enumerate(produced) if candidate(g, p)]
        good = [i for i in cands if correct(g, produced[i])]
        if good:
            s.tp += 1
            s.duplicates += len(cands) - 1
        elif cands:
            got = "; ".join(f"{produced[i].label} {produced[i].fields}" for i in cands[:2])
            s.wrong.append(f"{g['kind']} {g['match']}: wrong fields, got {got}")
            s.duplicates += len(cands) - 1
        else:
            s.wrong.append(f"{g['kind']} {g['match']}: missing")
        used.update(cands)
    s.extra = [produced[i].label for i in range(len(produced)) if i not in used]
    return s


# -- running ---------------------------------------------------------------------------------
def run_scenario(sc: Scenario, provider_name: str) -> dict[str, Any]:
    from dream.models import base

    with common.temp_home(prefix=f"consolidation-{sc.name[:12]}-"):
        app = common.new_app()
        split = unplaced = 0
        statuses = []
        engine: dict[str, int] = {}
        try:
            for n, day in enumerate(sc.days):
                common.collect(app, [day], "jsonl")
                if provider_name == "scripted":
                    ideal = IdealProposals(sc.ideal[n] if n < len(sc.ideal) else [], sc.messages)
                    base.register_provider("bench-ideal", lambda arg, settings, p=ideal: p)
                    rows = common.dream_run(app, "bench-ideal")
                    ideal.finish()
                    split += ideal.split
                    unplaced += ideal.unplaced
                else:
                    rows = common.dream_run(app, provider_name)
                statuses += [r["status"] for r in rows]
                for r in rows:
                    for part in ("apply", "dropped"):
                        for k, v in (r["details"].get(part) or {}).items():
                            engine[f"{part}.{k}"] = engine.get(f"{part}.{k}", 0) + v
            produced, questions = produced_records(common.records_at_head(app))
        finally:
            app.close()
    s = score(sc.gold, produced, questions)
    return {"scenario": sc.name, "tp": s.tp, "produced": s.produced, "gold": s.gold,
            "duplicates": s.duplicates, "questions": s.questions, "wrong": s.wrong,
            "extra": s.extra, "run_statuses": statuses, "split_ops": split,
            "unplaced_ops": unplaced, "engine": engine}


def summarise(results: dict[str, list[dict[str, Any]]], missing: dict[str, str],
              n_scenarios: int, args: argparse.Namespace) -> dict[str, Any]:
    figures: dict[str, Any] = {"benchmark": "consolidation", "quick": bool(args.quick),
                               "set": args.set_name, "scenarios": n_scenarios,
                               "providers": {}, "missing": missing}
    rows = []
    for provider, res in results.items():
        tp = sum(r["tp"] for r in res)
        produced = sum(r["produced"] for r in res)
        gold = sum(r["gold"] for r in res)
        perfect = sum(1 for r in res if r["tp"] == r["gold"] == r["produced"])
        entry = {
            "precision": round(tp / produced, 4) if produced else (1.0 if not gold else 0.0),
            "recall": round(tp / gold, 4) if gold else 1.0,
            "true_positives": tp, "produced": produced, "gold": gold,
            "duplicates": sum(r["duplicates"] for r in res),
            "open_questions": sum(r["questions"] for r in res),
            "perfect_scenarios": perfect,
            "failed_runs": sum(1 for r in res for s in r["run_statuses"] if s != "ok"),
            "split_ops": sum(r["split_ops"] for r in res),
            "unplaced_ops": sum(r["unplaced_ops"] for r in res),
            "engine_counts": _sum_counts(r["engine"] for r in res),
            "imperfect": {r["scenario"]: {"wrong": r["wrong"], "extra": r["extra"]}
                          for r in res if r["wrong"] or r["extra"]},
        }
        figures["providers"][provider] = entry
        rows.append([provider, args.set_name, len(res), entry["precision"], entry["recall"],
                     entry["duplicates"], f"{perfect}/{len(res)}", entry["open_questions"]])
    text = common.table(["provider", "set", "scenarios", "precision", "recall", "duplicate rows",
                         "perfect", "open questions"], rows)
    print(text)
    lines = []
    for provider, entry in figures["providers"].items():
        for name, why in entry["imperfect"].items():
            lines.append(f"{provider} {name}: " + "; ".join(why["wrong"] + [
                f"extra {e}" for e in why["extra"]]))
    for provider, why in missing.items():
        lines.append(f"{provider}: {why}")
    if lines:
        print()
        print("\n".join(lines))
    if not (args.quick or args.only or args.provider):   # only whole runs are published
        plot(figures, args.set_name)
        suffix = "" if args.set_name == "scenarios" else f"_{args.set_name}"
        common.publish("consolidation" + suffix, "Consolidation accuracy (bench/consolidation.py)"
                       + (f", set {args.set_name}" if args.set_name != "scenarios" else ""),
                       text + "\n\n" + "\n".join(f"- {x}" for x in lines), figures)
    for entry in figures["providers"].values():
        entry["imperfect"] = sorted(entry["imperfect"])   # names only in the JSON line
    return figures


def _sum_counts(counts: Any) -> dict[str, int]:
    total: dict[str, int] = {}
    for c in counts:
        for k, v in c.items():
            total[k] = total.get(k, 0) + v
    return dict(sorted(total.items()))


def plot(figures: dict[str, Any], set_name: str = "scenarios") -> None:
    providers = list(figures["providers"])
    if not providers:
        return
    suffix = "" if set_name == "scenarios" else f"_{set_name}"
    common.bar_plot(common.PLOTS / f"consolidation_accuracy{suffix}.png",
                    f"Consolidation on {figures['scenarios']} scenarios ({set_name})", providers,
                    {m: [figures["providers"][p][m] for p in providers]
                     for m in ("precision", "recall")}, "share")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true",
                        help=f"first {QUICK_SCENARIOS} scenarios; no RESULTS.md section")
    parser.add_argument("--only", default=None, help="scenarios whose name contains this")
    parser.add_argument("--provider", action="append", choices=["rules", "scripted"],
                        help="run only this provider (repeatable; default both)")
    parser.add_argument("--scenarios", type=Path, default=SCENARIOS, metavar="DIR",
                        help="scenario set to run (default bench/scenarios; the held-out "
                             "set is bench/scenarios_heldout)")
    args = parser.parse_args()
    if not args.scenarios.is_dir():
        parser.error(f"--scenarios: no such folder: {args.scenarios}")
    args.set_name = args.scenarios.resolve().name
    scenarios = load_scenarios(args.only, args.scenarios)
    if args.quick:
        scenarios = scenarios[:QUICK_SCENARIOS]
    results: dict[str, list[dict[str, Any]]] = {}
    missing: dict[str, str] = {}
    for provider in args.provider or ["scripted", "rules"]:
        try:
            results[provider] = [run_scenario(sc, provider) for sc in scenarios]
        except ImportError as exc:
            missing[provider] = f"missing Dream module: {exc}"
        except DreamError as exc:   # e.g. a provider that is not available: reported
            missing[provider] = f"{type(exc).__name__}: {exc.message}"
    common.emit_last_json(summarise(results, missing, len(scenarios), args))


if __name__ == "__main__":
    main()
