"""Benchmark 3: consolidation accuracy on hand-written scenarios with gold final state.

    python bench/consolidation.py [--quick] [--only NAME] [--scenarios DIR ...] [--details]

Three scenario sets, all reported by one run (``--scenarios DIR``, repeatable, runs only
the sets given): bench/scenarios/ (the 32 the ``rules`` provider was tuned on: its score
there measures fit), bench/scenarios_heldout/ (15, never tuned on) and
bench/scenarios_heldout_personal/ (personal streams in their native formats, never tuned
on; see each set's README.md). Each scenario is collected and dreamed day by day in its
own throw-away DREAM_HOME, then the records in the store are matched against the
scenario's gold final state. A day is either ``dayN.jsonl`` (generic JSONL) or a folder
``dayN/`` of exports in their native formats (``*.mbox``, ``*.txt`` WhatsApp/Signal-style,
``*.jsonl``, and a Slack export kept unzipped as a folder holding ``users.json``, zipped
here as Slack writes it); each file goes through ``dream collect --source KIND``, with the
scenario's ``config.toml`` (``[collect] me``, the user's own names and addresses) added to
the home's configuration, as a user would. Two providers:

  rules     Dream's embedded offline provider
  scripted  replays the scenario's ideal proposals (ideal.yaml): it isolates the engine
            (bundle, merge, precedence, apply), which must score 100% here

The matcher (also in docs/benchmarks.md): a record is a candidate for a gold record when
its kind is the gold kind (a gold standing fact also accepts a live memory note: the diff
schema offers note types 'preference' and 'fact'; and a slot of a wiki page, where a fact
about another person lives; each slot counts as one record) and every ``match`` word occurs in its
identity text (key, title, activity, place, participants, text; for a standing fact its
name and value), lower-cased. Crumpled notes are not counted: they are deleted memory. A
candidate is correct when every gold ``fields`` value equals the record's (lower-cased,
white space collapsed) and every ``contains`` word occurs in its field. The first correct
candidate not already the true positive of an earlier gold record is a true positive;
further candidates of a gold record that are no gold record's true positive are
duplicates (a gold record with no correct candidate counts one of them as its wrong
record). Precision = true positives / records produced (events, to-dos, notes,
standing facts; open questions are counted apart), recall = true positives / gold records.
A question written instead of a record is therefore a miss for recall and no error for
precision (``asked_instead`` counts the missed gold records an open question names).
``lacks`` (a field -> words map) lists words that must not occur in a field (a booking
name that is not a participant). ``wrong_live`` counts the scenario's ``not_live``
records (same matcher) found live: an event not declined or cancelled, an open to-do, a
live note or a standing fact; e.g. the old date still confirmed, the cancelled booking,
a deadline kept as an event.

A sealed set (a folder under one holding a ``SEALED`` file, such as
bench/heldout_v2/personal) is reported as aggregates only, named after its parent and
itself (``heldout_v2_personal``): the reasons of its imperfect scenarios and their names
stay out of stdout, the JSON line and bench/RESULTS.md; ``--details`` prints them (never
recorded).
"""

from __future__ import annotations

import argparse
import json
import sys
import threading
import zipfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
import common
import yaml

from dream.errors import DreamError

SCENARIOS = common.BENCH / "scenarios"
SETS = (SCENARIOS, common.BENCH / "scenarios_heldout", common.BENCH / "scenarios_heldout_personal")
NATIVE = {".mbox": "mbox", ".txt": "textchat", ".jsonl": "jsonl"}   # a folder: slack
SCORED_KINDS = ("event", "todo", "note", "standing", "wiki")
QUICK_SCENARIOS = 8
IDENTITY_FIELDS = ("title", "activity", "place", "participants", "text", "name")
# a standing fact may also be kept as a memory note: the diff schema offers note types
# 'preference' and 'fact', so a gold standing record accepts a live note as well; a fact
# about another person (their birthday, their allergy) belongs on that person's wiki page,
# so it accepts a slot of a wiki page too
ACCEPTS = {"standing": ("standing", "note", "wiki")}


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
    not_live: list[dict[str, Any]] = field(default_factory=list)
    config: str = ""      # the scenario's config.toml ([collect] me), native days only

    @property
    def native(self) -> bool:
        """Days are folders of native exports; ideal evidence quotes message text."""
        return any(d.is_dir() for d in self.days)


sealed = common.sealed
set_name_of = common.set_name_of


def load_scenarios(only: str | None = None, root: Path = SCENARIOS) -> list[Scenario]:
    out = []
    for folder in sorted(p for p in root.iterdir() if p.is_dir()):
        if only and only not in folder.name:
            continue
        gold = yaml.safe_load((folder / "gold.yaml").read_text(encoding="utf-8"))
        ideal = yaml.safe_load((folder / "ideal.yaml").read_text(encoding="utf-8"))
        days = sorted((p for p in folder.glob("day*") if p.stem[3:].isdigit()
                       and (p.is_dir() or p.suffix == ".jsonl")), key=lambda p: int(p.stem[3:]))
        messages = {}
        for day in days:
            if day.is_dir():
                continue
            for line in day.read_text(encoding="utf-8").splitlines():
                if line.strip():
                    m = json.loads(line)
                    messages[str(m["id"])] = m
        config = folder / "config.toml"
        out.append(Scenario(folder.name, folder, gold["title"], list(gold.get("covers", [])),
                            days, list(gold.get("gold") or []),
                            [d.get("ops") or [] for d in ideal.get("days", [])], messages,
                            list(gold.get("not_live") or []),
                            config.read_text(encoding="utf-8") if config.exists() else ""))
    return out


def day_exports(day: Path, scratch: Path) -> list[tuple[str, Path]]:
    """(source kind, path) of each export of a day folder, in name order; a Slack export
    kept as a folder is zipped into ``scratch`` first, as Slack delivers it."""
    out = []
    for path in sorted(day.iterdir()):
        if path.is_dir():
            target = scratch / f"{day.name}-{path.name}.zip"
            with zipfile.ZipFile(target, "w") as archive:
                for member in sorted(path.rglob("*")):
                    if member.is_file():
                        archive.write(member, member.relative_to(path).as_posix())
            out.append(("slack", target))
        elif path.suffix in NATIVE:
            out.append((NATIVE[path.suffix], path))
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

    def __init__(self, ops: list[dict[str, Any]], messages: dict[str, dict[str, Any]],
                 quotes: bool = False) -> None:
        self.model = "ideal"
        self.ops = ops
        self.messages = messages
        self.quotes = quotes    # evidence quotes a message's text (native-format scenarios)
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
        if self.quotes:   # a native export has no message ids: the op quotes the text
            quote = _norm(message_id)
            return next((it["handle"] for it in items if quote in _norm(it["text"])), None)
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

    @property
    def live(self) -> bool:
        status = _norm(self.fields.get("status", ""))
        if self.kind == "event":
            return status not in ("declined", "cancelled")
        return not (self.kind == "todo" and status in ("done", "dropped"))


def produced_records(records: list[Any]) -> tuple[list[Produced], list[str]]:
    """Scored records, and the texts of open questions (counted apart)."""
    out, questions = [], []
    for rec in records:
        if rec.kind == "question":
            if rec.get("status", "open") == "open":
                values = rec.values()
                questions.append(_norm(f"{values.get('text', '')} {values.get('about', '')}"))
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
        if rec.kind == "wiki":      # each slot of a person's page is one fact
            person = rec.get("name") or rec.key.replace("-", " ")
            for name, fv in rec.fields.items():
                if name in ("name", "title"):
                    continue
                out.append(Produced("wiki", _norm(f"{person} {name.replace('_', ' ')} "
                                                  f"{fv.value}"),
                                    {"value": fv.value}, f"wiki/{rec.key}.{name}={fv.value}"))
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
    for name, words in (gold.get("lacks") or {}).items():
        have = _norm(p.fields.get(name, ""))
        if any(_norm(w) in have for w in words):
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
    asked_instead: int = 0                              # missed gold records a question names
    wrong: list[str] = field(default_factory=list)     # gold records missed, with why
    extra: list[str] = field(default_factory=list)     # produced records matching no gold
    wrong_live: list[str] = field(default_factory=list)  # not_live records found live


def score(gold: list[dict[str, Any]], produced: list[Produced], questions: list[str],
          not_live: list[dict[str, Any]] | None = None) -> Score:
    s = Score(produced=len(produced), gold=len(gold), questions=len(questions))
    cands = [[i for i, p in enumerate(produced) if candidate(g, p)] for g in gold]
    # a record that is the true positive of one gold record is no duplicate of another
    # (the old and the new booking of one plan share their words)
    hits: dict[int, int] = {}
    for n, g in enumerate(gold):
        good = [i for i in cands[n] if correct(g, produced[i]) and i not in hits.values()]
        if good:
            hits[n] = good[0]
    taken = set(hits.values())
    counted: set[int] = set()
    for n, g in enumerate(gold):
        rest = [i for i in cands[n] if i not in taken and i not in counted]
        if n in hits:
            s.tp += 1
            s.duplicates += len(rest)
        elif rest:
            got = "; ".join(f"{produced[i].label} {produced[i].fields}" for i in rest[:2])
            s.wrong.append(f"{g['kind']} {g['match']}: wrong fields, got {got}")
            s.duplicates += len(rest) - 1
        else:
            s.wrong.append(f"{g['kind']} {g['match']}: missing")
        counted.update(rest)
        if n not in hits and any(all(_norm(w) in q for w in g["match"]) for q in questions):
            s.asked_instead += 1
    used = {i for c in cands for i in c}
    s.extra = [produced[i].label for i in range(len(produced)) if i not in used]
    for bad in not_live or []:
        hits = [p for p in produced if p.live and candidate(bad, p) and correct(bad, p)]
        if hits:
            s.wrong_live.append(f"{bad['kind']} {bad['match']} {bad.get('fields') or ''}"
                                f" live as {hits[0].label}".rstrip())
    return s


# -- running ---------------------------------------------------------------------------------
def collect_day(app: Any, sc: Scenario, day: Path, scratch: Path) -> None:
    """Collect one day: ``dayN.jsonl`` directly, a ``dayN/`` folder of native exports each
    through ``dream collect --source KIND PATH`` as a user would run it."""
    if not day.is_dir():
        common.collect(app, [day], "jsonl")
        return
    for kind, path in day_exports(day, scratch):
        common.dream_cli("collect", "--source", kind, str(path))


def run_scenario(sc: Scenario, provider_name: str) -> dict[str, Any]:
    from dream.models import base

    with common.temp_home(prefix=f"consolidation-{sc.name[:12]}-") as tmp:
        app = common.new_app()
        if sc.config:   # the user's own identity, as they would write it in config.toml
            with app.home.config_path.open("a", encoding="utf-8") as fh:
                fh.write("\n" + sc.config)
            app.close()
            app = common.new_app()
        split = unplaced = 0
        statuses = []
        engine: dict[str, int] = {}
        try:
            for n, day in enumerate(sc.days):
                collect_day(app, sc, day, tmp)
                if provider_name == "scripted":
                    ideal = IdealProposals(sc.ideal[n] if n < len(sc.ideal) else [],
                                           sc.messages, quotes=sc.native)
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
    s = score(sc.gold, produced, questions, sc.not_live)
    return {"scenario": sc.name, "tp": s.tp, "produced": s.produced, "gold": s.gold,
            "duplicates": s.duplicates, "questions": s.questions,
            "asked_instead": s.asked_instead, "wrong": s.wrong, "extra": s.extra,
            "wrong_live": s.wrong_live, "not_live": len(sc.not_live), "run_statuses": statuses,
            "split_ops": split, "unplaced_ops": unplaced, "engine": engine}


def provider_entry(res: list[dict[str, Any]]) -> dict[str, Any]:
    tp = sum(r["tp"] for r in res)
    produced = sum(r["produced"] for r in res)
    gold = sum(r["gold"] for r in res)
    return {
        "precision": round(tp / produced, 4) if produced else (1.0 if not gold else 0.0),
        "recall": round(tp / gold, 4) if gold else 1.0,
        "true_positives": tp, "produced": produced, "gold": gold,
        "duplicates": sum(r["duplicates"] for r in res),
        "wrong_live": sum(len(r["wrong_live"]) for r in res),
        "not_live_checked": sum(r["not_live"] for r in res),
        "open_questions": sum(r["questions"] for r in res),
        "asked_instead": sum(r["asked_instead"] for r in res),
        "perfect_scenarios": sum(1 for r in res if r["tp"] == r["gold"] == r["produced"]
                                 and not r["wrong_live"]),
        "failed_runs": sum(1 for r in res for s in r["run_statuses"] if s != "ok"),
        "split_ops": sum(r["split_ops"] for r in res),
        "unplaced_ops": sum(r["unplaced_ops"] for r in res),
        "engine_counts": _sum_counts(r["engine"] for r in res),
        "imperfect": {r["scenario"]: {"wrong": r["wrong"], "extra": r["extra"],
                                      "wrong_live": r["wrong_live"]}
                      for r in res if r["wrong"] or r["extra"] or r["wrong_live"]},
    }


def summarise(results: dict[str, dict[str, list[dict[str, Any]]]], missing: dict[str, str],
              counts: dict[str, int], args: argparse.Namespace,
              sealed_sets: frozenset[str] = frozenset()) -> dict[str, Any]:
    """One table row per set and provider, the reasons of every imperfect scenario, and
    the figures: ``sets`` holds each set; ``set``, ``scenarios`` and ``providers`` at the
    top repeat the first set run (the form a single ``--scenarios DIR`` run has always had)."""
    figures: dict[str, Any] = {"benchmark": "consolidation", "quick": bool(args.quick),
                               "sets": {}, "missing": missing}
    rows, lines, hidden = [], [], []
    for set_name, per_provider in results.items():
        entry_set: dict[str, Any] = {"scenarios": counts[set_name], "providers": {}}
        for provider, res in per_provider.items():
            entry = provider_entry(res)
            entry_set["providers"][provider] = entry
            rows.append([set_name, provider, len(res), entry["precision"], entry["recall"],
                         entry["duplicates"], f"{entry['wrong_live']}/{entry['not_live_checked']}",
                         f"{entry['perfect_scenarios']}/{len(res)}", entry["open_questions"],
                         entry["asked_instead"]])
            for name, why in entry["imperfect"].items():
                # a sealed set's reasons are printed only on request and never recorded
                (hidden if set_name in sealed_sets else lines).append(
                    f"{set_name} {provider} {name}: " + "; ".join(
                        why["wrong"] + [f"extra {e}" for e in why["extra"]]
                        + [f"wrong live: {e}" for e in why["wrong_live"]]))
        figures["sets"][set_name] = entry_set
    first = next(iter(figures["sets"]), None)
    if first:
        figures.update(set=first, scenarios=figures["sets"][first]["scenarios"],
                       providers=figures["sets"][first]["providers"])
    text = common.table(["set", "provider", "scenarios", "precision", "recall",
                         "duplicate rows", "wrong live", "perfect", "open questions",
                         "asked instead"], rows)
    print(text)
    for provider, why in missing.items():
        lines.append(f"{provider}: {why}")
    for set_name in sealed_sets & set(figures["sets"]):   # before anything is recorded
        for entry in figures["sets"][set_name]["providers"].values():
            entry["imperfect"] = len(entry["imperfect"])
    shown = lines + (hidden if getattr(args, "details", False) else [])
    if shown:
        print()
        print("\n".join(shown))
    if not (args.quick or args.only or args.provider):   # only whole runs are published
        for set_name in figures["sets"]:
            plot(figures["sets"][set_name], set_name)
        names = list(figures["sets"])
        # the run over the tuned set (with or without the others) is "consolidation"
        suffix = "" if "scenarios" in names else "_" + "_".join(names)
        common.publish("consolidation" + suffix, "Consolidation accuracy (bench/consolidation.py)"
                       + f", sets {', '.join(names)}",
                       text + "\n\n" + "\n".join(f"- {x}" for x in lines), figures)
    for set_name, entry_set in figures["sets"].items():
        for entry in entry_set["providers"].values():
            if set_name not in sealed_sets:   # names only in the JSON line
                entry["imperfect"] = sorted(entry["imperfect"])
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
                        help=f"first {QUICK_SCENARIOS} scenarios of each set; no RESULTS.md "
                             "section")
    parser.add_argument("--only", default=None, help="scenarios whose name contains this")
    parser.add_argument("--provider", action="append", choices=["rules", "scripted"],
                        help="run only this provider (repeatable; default both)")
    parser.add_argument("--scenarios", type=Path, action="append", metavar="DIR",
                        help="scenario set to run (repeatable; default the three sets: "
                             + ", ".join(f"bench/{p.name}" for p in SETS) + ")")
    parser.add_argument("--details", action="store_true",
                        help="also print why each scenario of a sealed set (e.g. "
                             "bench/heldout_v2/personal) is imperfect; never recorded")
    args = parser.parse_args()
    roots = args.scenarios or [p for p in SETS if p.is_dir()]
    for root in roots:
        if not root.is_dir():
            parser.error(f"--scenarios: no such folder: {root}")
    results: dict[str, dict[str, list[dict[str, Any]]]] = {}
    counts: dict[str, int] = {}
    missing: dict[str, str] = {}
    sealed_sets: set[str] = set()
    for root in roots:
        set_name = set_name_of(root)
        if sealed(root):
            sealed_sets.add(set_name)
        scenarios = load_scenarios(args.only, root)
        if args.quick:
            scenarios = scenarios[:QUICK_SCENARIOS]
        counts[set_name] = len(scenarios)
        results[set_name] = {}
        for provider in args.provider or ["scripted", "rules"]:
            if provider in missing:
                continue
            try:
                results[set_name][provider] = [run_scenario(sc, provider) for sc in scenarios]
            except ImportError as exc:
                missing[provider] = f"missing Dream module: {exc}"
            except DreamError as exc:   # e.g. a provider that is not available: reported
                missing[provider] = f"{type(exc).__name__}: {exc.message}"
    common.emit_last_json(summarise(results, missing, counts, args, frozenset(sealed_sets)))


if __name__ == "__main__":
    main()
