"""Coding memory: what a dream keeps from coding sessions, scored on gold written beforehand.

    python bench/coding_memory.py               # every real project and dev scenario
    python bench/coding_memory.py --quick       # 2 real projects, 3 dev scenarios
    python bench/coding_memory.py --details     # also each scenario's misses (stdout only)
    python bench/coding_memory.py --scenarios DIR [--scenarios DIR ...]   # other sets
    python bench/coding_memory.py --heldout bench/heldout_v2/coding   # the same as --scenarios
    python bench/coding_memory.py --keep DIR    # keep each brief, note and review to read

Two sets by default, both in ``bench/coding_memory/`` (written before any detection
change and never edited; see its README.md and RUBRIC.md):

* **real**: the real Claude Code, Pi and Codex sessions in ``../shared/data`` listed in
  ``gold_real.yaml``, grouped by origin repository (tuned on);
* **dev (seen)**: the scenarios in ``heldout/``, each with complete gold. They were
  held out for one round; their post-work score has been recorded and they have been
  developed against since, so their figures measure fit, not generalisation.

``--scenarios DIR`` scores the scenario folders under DIR instead (same layout as
``heldout/``), as a set named after DIR. ``bench/RESULTS.md`` only ever gets aggregates
of a scenario set (per set and per category); what each scenario missed or wrote wrongly is
printed to stdout with ``--details`` and written nowhere, so a held-out set's misses never
land in the repository. A sealed set (its folder or one above it holds a ``SEALED`` file,
such as bench/heldout_v2/) is named after its parent and itself (``heldout_v2_coding``)
and shows not even its per-scenario rows or the names of scenarios that failed to run
unless ``--details`` is given, so nobody tunes on it.

Each project runs exactly as a user would run it, through the CLI (``python -m dream``) in
its own throw-away ``DREAM_HOME``: copies of its transcripts with the recorded folder
(``cwd``) rewritten to a fresh temporary git repository, then ``dream init``,
``dream collect --source KIND FILES``, ``dream run``, ``dream review start --all --json``,
and ``dream search --json --limit 3 QUESTION`` per gold fact. /work/shared is never written.

What is scored (the matching rules are in docs/benchmarks.md):

* gold recall in memory: a fact is held when all its keywords appear in ``brief.md`` or in
  one live note; in search: in one of the top 3 documents for the fact's question;
* scenario-set precision/recall per category (rule, command, pitfall): produced items are
  the brief's item lines and the live notes; an item is a true positive when it meets a
  gold item's keywords and no ``must_not`` list;
* rubric: the share of brief lines that pass RUBRIC.md's automatic checks (every judged
  line of the real and dev sets goes to ``bench/coding_memory/judged_lines.md`` on a full
  run; lines of other sets only to stdout with ``--details``);
* noise: brief lines and note texts matching a ``noise.yaml`` pattern;
* review: the ``review`` items (said in 2+ sessions) covered by a proposal.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
import common
import yaml

MATERIAL = common.BENCH / "coding_memory"
JUDGED = MATERIAL / "judged_lines.md"
CATEGORIES = ("rule", "command", "pitfall")
QUICK_REAL = ("spotter", "empire-of-bits")
QUICK_HELDOUT = ("cc-ingest-make", "codex-tern-cargo", "pi-synccli-bun")
TIMEOUT = 600


# -- keywords ----------------------------------------------------------------------------
def _alt_regex(alt: str) -> re.Pattern[str]:
    prefix = alt.endswith("*")
    word = alt[:-1] if prefix else alt
    head = r"(?<!\w)" if word[:1].isalnum() or word[:1] == "_" else ""
    tail = r"(?!\w)" if (word[-1:].isalnum() or word[-1:] == "_") and not prefix else ""
    return re.compile(head + re.escape(word) + tail, re.IGNORECASE)


_CACHE: dict[str, list[re.Pattern[str]]] = {}


def _entry_met(entry: str, text: str) -> bool:
    negated = entry.startswith("!")
    body = entry[1:] if negated else entry
    pats = _CACHE.get(body)
    if pats is None:
        pats = _CACHE[body] = [_alt_regex(a.strip()) for a in body.split("|") if a.strip()]
    hit = any(p.search(text) for p in pats)
    return not hit if negated else hit


def meets(keywords: list[str], text: str) -> bool:
    """Every entry is met in ``text`` (see bench/coding_memory/heldout/README.md)."""
    return bool(keywords) and all(_entry_met(k, text) for k in keywords)


# -- what a dream produced ---------------------------------------------------------------
LINK_RE = re.compile(r"(\s*\[[^\]\s]+\])+\s*$")
ITEM_RE = re.compile(r"^\s*(?:[-*+]|\d+[.)])\s+")


@dataclass
class Item:
    source: str          # "brief" or "note"
    text: str            # what a reader sees (a brief line without its link, a note's text)
    section: str = ""    # brief heading, or the note's type
    link: str = ""       # record a brief line links to
    name: str = ""       # a note's file name (for must_not only: names must keep negations)
    note_type: str = ""


def brief_items(brief: str) -> list[Item]:
    """The brief's item lines (list entries), whatever its sections are; a brief without
    list entries falls back to every non-heading line except the boilerplate."""
    lines = brief.splitlines()
    items, section = [], ""
    for line in lines:
        if line.startswith("#"):
            section = line.lstrip("#").strip()
            continue
        if ITEM_RE.match(line):
            link = LINK_RE.search(line)
            target = re.findall(r"\[([^\]\s]+)\]", link.group(0))[0] if link else ""
            text = ITEM_RE.sub("", LINK_RE.sub("", line)).strip()
            if text:
                items.append(Item("brief", text, section, target))
    if items:
        return items
    return [Item("brief", LINK_RE.sub("", ln).strip()) for ln in lines
            if ln.strip() and not ln.startswith(("#", "As of", "_"))]


def live_notes(project_dir: Path) -> list[Item]:
    from dream.kinds.records import Record

    out = []
    for path in sorted((project_dir / "notes").glob("*.md")):
        rec = Record.loads(path.read_text(encoding="utf-8", errors="replace"))
        if rec is None or rec.kind != "note" or (rec.get("status") or "live") != "live":
            continue
        text = str(rec.get("text") or rec.title or "")
        out.append(Item("note", text, str(rec.get("type") or ""), f"notes/{path.name}",
                        path.stem.replace("-", " "), str(rec.get("type") or "")))
    return out


def infer_category(item: Item, note_types: dict[str, str]) -> str:
    """A produced item's category when it meets no gold item: from the type of the note it
    is (or links to), else from the words of its brief section."""
    kind = item.note_type or note_types.get(item.link, "")
    words = f"{kind} {item.section}".lower()
    if re.search(r"directive|correction|preference|rule", words):
        return "rule"
    if re.search(r"failure|pitfall", words):
        return "pitfall"
    if re.search(r"command|procedure|how to work|work here|tool", words):
        return "command"
    return "other"


# -- rubric and noise --------------------------------------------------------------------
OPENERS = ("no", "yes", "ok", "okay", "yeah", "yep", "nope", "sure", "right", "also", "again",
           "same", "that", "this", "it", "these", "those", "and", "but", "so", "btw",
           "actually", "well", "hm", "hmm")
REQUEST_RE = re.compile(r"\b(can you|could you|would you|can we|help me|fix it|take a look|"
                        r"let me know|what did i|are we|do it)\b", re.I)
EPHEMERAL_RE = re.compile(r"\b(today|yesterday|tonight|right now|for now|just now|this time|"
                          r"at the moment)\b", re.I)
FRUSTRATION_RE = re.compile(r"(fuck|shit|\bwtf\b|omfg|\bdamn|\bugh\b|\blol\b|idiot|stupid|"
                            r"insane|cursed|dumpster|\bjesus\b|\bcrap\b)", re.I)


def load_noise() -> list[tuple[str, re.Pattern[str]]]:
    data = yaml.safe_load((MATERIAL / "noise.yaml").read_text(encoding="utf-8"))
    return [(p["name"], re.compile(p["pattern"])) for p in data["patterns"]]


def noise_of(text: str, noise: list[tuple[str, re.Pattern[str]]]) -> list[str]:
    return [name for name, pat in noise if pat.search(text)]


def rubric_failures(text: str, noise: list[tuple[str, re.Pattern[str]]]) -> list[str]:
    failed = []
    if noise_of(text, noise):
        failed.append("noise")
    if not 15 <= len(text) <= 240:
        failed.append("length")
    if text.endswith(("…", "...")):
        failed.append("clipped")
    first = re.split(r"[\s,.:;!?—-]+", text.strip().lower(), maxsplit=1)[0]
    if first in OPENERS:
        failed.append("context-opener")
    if REQUEST_RE.search(text):
        failed.append("request")
    if text.rstrip().endswith("?"):
        failed.append("question")
    if EPHEMERAL_RE.search(text):
        failed.append("ephemeral")
    if FRUSTRATION_RE.search(text):
        failed.append("frustration")
    return failed


# -- running Dream through its CLI -------------------------------------------------------
@dataclass
class Project:
    set: str                     # "real", or the name of a scenario set ("dev", ...)
    name: str
    files: list[Path]
    gold: list[dict[str, Any]]
    must_not: list[list[str]] = field(default_factory=list)
    review: list[dict[str, Any]] = field(default_factory=list)
    sessions: int = 0
    label: str = ""              # the scenario folder (the project name for real sets)

    @property
    def key(self) -> str:
        return self.label if self.set == "real" else f"{self.set}/{self.label}"


def source_kind(path: Path) -> str:
    with path.open("rb") as fh:
        for raw in fh:
            try:
                first = json.loads(raw)
            except ValueError:
                continue
            kind = first.get("type") if isinstance(first, dict) else None
            return {"session": "pi", "session_meta": "codex"}.get(kind, "claude_code")
    return "claude_code"


def rewrite_cwd(src: Path, dst: Path, cwd: str) -> None:
    """A copy of a transcript with every recorded folder pointing at ``cwd``; lines that
    are not JSON are copied as they are (real bad input stays bad input)."""
    with src.open("rb") as fin, dst.open("wb") as fout:
        for raw in fin:
            try:
                rec = json.loads(raw)
            except ValueError:
                fout.write(raw)
                continue
            if isinstance(rec, dict):
                if "cwd" in rec:
                    rec["cwd"] = cwd
                payload = rec.get("payload")
                if isinstance(payload, dict) and "cwd" in payload:
                    payload["cwd"] = cwd
            fout.write(json.dumps(rec, ensure_ascii=False).encode() + b"\n")


class Sandbox:
    """A temporary git repository named after the project and a DREAM_HOME beside it."""

    def __init__(self, root: Path, name: str) -> None:
        self.repo = root / name
        self.home = root / "home"
        self.repo.mkdir(parents=True)
        self.env = {**os.environ, **common.GIT_IDENTITY, "DREAM_HOME": str(self.home),
                    "PYTHONPATH": os.pathsep.join(
                        [str(common.REPO / "src"), os.environ.get("PYTHONPATH", "")]).strip(
                        os.pathsep)}
        for var in ("DREAM_CLAUDE_DIR", "DREAM_PI_DIR", "DREAM_CODEX_DIR"):
            self.env[var] = str(root / "no-agent-dir")
        subprocess.run(["git", "init", "-q"], cwd=self.repo, env=self.env, check=True)
        subprocess.run(["git", "commit", "-q", "--allow-empty", "-m", "init"], cwd=self.repo,
                       env=self.env, check=True)

    def dream(self, *args: str) -> str:
        proc = subprocess.run([sys.executable, "-m", "dream", *args], cwd=self.repo,
                              env=self.env, capture_output=True, text=True, timeout=TIMEOUT,
                              check=False)
        if proc.returncode != 0:
            raise RuntimeError(f"dream {' '.join(args[:2])} exited {proc.returncode}: "
                               f"{(proc.stderr or proc.stdout).strip()[-400:]}")
        return proc.stdout


def dream_project(project: Project, tmp: Path, keep: Path | None = None) -> dict[str, Any]:
    """Collect, run and review one project; return what it produced (and, with ``keep``,
    copy its brief, notes and review answer there to be read)."""
    box = Sandbox(tmp, project.name)
    copies: dict[str, list[str]] = {}
    for i, src in enumerate(project.files):
        dst = tmp / "transcripts" / f"{i:02d}" / src.name
        dst.parent.mkdir(parents=True, exist_ok=True)
        rewrite_cwd(src, dst, str(box.repo))
        copies.setdefault(source_kind(src), []).append(str(dst))
    box.dream("init")
    for kind, paths in sorted(copies.items()):
        box.dream("collect", "--source", kind, *paths)
    box.dream("run")
    review = json.loads(box.dream("review", "start", "--all", "--json"))
    roots = sorted((box.home / "notes" / "projects").glob("*/"))
    project_dir = roots[0] if roots else box.home / "notes" / "projects" / project.name
    brief_path = project_dir / "brief.md"
    brief = brief_path.read_text(encoding="utf-8") if brief_path.exists() else ""
    searches = {}
    for g in project.gold:
        if g.get("question"):
            found = json.loads(box.dream("search", "--json", "--limit", "3", g["question"]))
            store = Path(found["store"]["path"]) if found.get("store") else project_dir
            docs = []
            for hit in found.get("hits", [])[:3]:
                path = store / hit["path"]
                docs.append(path.read_text(encoding="utf-8", errors="replace")
                            if path.is_file() else str(hit.get("title", "")))
            searches[g["id"]] = docs
    if keep is not None:
        dest = keep / project.key
        shutil.rmtree(dest, ignore_errors=True)
        dest.mkdir(parents=True)
        if project_dir.is_dir():
            shutil.copytree(project_dir, dest / "store", ignore=shutil.ignore_patterns(".git"))
        (dest / "review.json").write_text(json.dumps(review, indent=1, ensure_ascii=False),
                                          encoding="utf-8")
    return {"brief": brief, "notes": live_notes(project_dir), "review": review,
            "searches": searches}


# -- scoring -----------------------------------------------------------------------------
def proposal_texts(review: dict[str, Any]) -> list[str]:
    def strings(v: Any) -> list[str]:
        if isinstance(v, str):
            return [v]
        if isinstance(v, dict):
            return [s for k, x in v.items() if k != "evidence" for s in strings(x)]
        if isinstance(v, list):
            return [s for x in v for s in strings(x)]
        return []
    return ["\n".join(strings(p)) for p in review.get("proposals", [])]


def score_project(project: Project, out: dict[str, Any], noise: list[Any]) -> dict[str, Any]:
    brief, notes = out["brief"], out["notes"]
    lines = brief_items(brief)
    note_types = {n.link: n.note_type for n in notes}
    judged = [(it.text, rubric_failures(it.text, noise)) for it in lines]
    noisy = [it.text for it in lines + notes if noise_of(it.text, noise)]
    docs = [brief] + [n.text for n in notes]
    held, searched = {}, {}
    for g in project.gold:
        kw = g["keywords"]
        held[g["id"]] = any(meets(kw, d) for d in docs) if project.set == "real" else False
        searched[g["id"]] = any(meets(kw, d) for d in out["searches"].get(g["id"], []))
    result: dict[str, Any] = {
        "brief_lines": len(lines), "live_notes": len(notes), "gold": len(project.gold),
        "noise_lines": len(noisy), "noise_examples": noisy[:3],
        "rubric_pass": sum(1 for _, f in judged if not f), "judged": judged,
        "proposals": len(out["review"].get("proposals", [])),
    }
    texts = proposal_texts(out["review"])
    covered = [r["id"] for r in project.review if any(meets(r["keywords"], t) for t in texts)]
    result["review_items"], result["review_covered"] = len(project.review), len(covered)
    result["review_missed"] = [r["id"] for r in project.review if r["id"] not in covered]
    if project.set != "real":
        result.update(score_items(project, lines + notes, note_types, held, noise))
    result["held"] = sum(held.values())
    result["searched"] = sum(searched.values())
    result["questions"] = sum(1 for g in project.gold if g.get("question"))
    result["either"] = sum(1 for k in held if held[k] or searched[k])
    result["by_category"] = {}
    for g in project.gold:
        c = result["by_category"].setdefault(g["category"], {"gold": 0, "held": 0,
                                                             "either": 0})
        c["gold"] += 1
        c["held"] += held[g["id"]]
        c["either"] += held[g["id"]] or searched[g["id"]]
    result["missed"] = [g["id"] for g in project.gold if not held[g["id"]]]
    return result


def score_items(project: Project, items: list[Item], note_types: dict[str, str],
                held: dict[str, bool], noise: list[Any]) -> dict[str, Any]:
    """Precision per category: each produced item is a true positive of the category of
    the most specific gold item it meets (most keyword entries), unless it meets a
    must_not list or a noise pattern (a paste is never a memory, even around the right
    words); otherwise a false positive of that gold item's category, or of its inferred
    category. Recall: gold items met by a true positive."""
    tp = dict.fromkeys((*CATEGORIES, "other"), 0)
    fp = dict.fromkeys((*CATEGORIES, "other"), 0)
    must_not_hits, false_items = [], []
    for it in items:
        texts = [it.text] + ([it.name] if it.name else [])
        bad = [m for m in project.must_not if any(meets(m, t) for t in texts)]
        met = [g for g in project.gold if meets(g["keywords"], it.text)]
        # the most specific gold item it meets (most keyword entries) gives its category
        match = max(met, key=lambda g: len(g["keywords"])) if met else None
        if bad:
            must_not_hits.append(it.text[:160])
        if match is not None and not bad and not noise_of(it.text, noise):
            tp[match["category"] if match["category"] in tp else "other"] += 1
            for g in project.gold:
                if meets(g["keywords"], it.text):
                    held[g["id"]] = True
        else:
            cat = match["category"] if match is not None else infer_category(it, note_types)
            fp[cat if cat in fp else "other"] += 1
            false_items.append(f"[{it.source}] {it.text[:160]}")
    return {"tp": tp, "fp": fp, "must_not_hits": must_not_hits, "false_items": false_items}


def ratio(a: float, b: float) -> float | None:
    return round(a / b, 3) if b else None


# -- sets --------------------------------------------------------------------------------
DEV = "dev"                      # bench/coding_memory/heldout: seen since its post-work score
SET_TITLES = {"real": "Real sessions (tuned on)", DEV: "dev (seen) scenarios"}


def set_title(name: str) -> str:
    return SET_TITLES.get(name, f"{name} scenarios")


def real_projects(quick: bool) -> list[Project]:
    data = yaml.safe_load((MATERIAL / "gold_real.yaml").read_text(encoding="utf-8"))
    shared = common.shared_data()
    out = []
    for name, spec in data["projects"].items():
        if quick and name not in QUICK_REAL:
            continue
        out.append(Project("real", name, [shared / f for f in spec["files"]],
                           [f for f in data["facts"] if f["project"] == name],
                           review=[r for r in data.get("review", []) if r["project"] == name],
                           sessions=len(spec["files"]), label=name))
    return out


sealed = common.sealed
set_name_of = common.set_name_of


def scenario_projects(root: Path, set_name: str, quick: bool) -> list[Project]:
    """Every scenario folder under ``root`` holding a ``gold.yaml`` (see heldout/README.md)."""
    out = []
    folders = sorted(p for p in root.iterdir() if (p / "gold.yaml").is_file())
    if quick:   # the three named dev scenarios; the first three of another set
        named = [f for f in folders if f.name in QUICK_HELDOUT]
        folders = named or folders[:3]
    for folder in folders:
        gold = yaml.safe_load((folder / "gold.yaml").read_text(encoding="utf-8"))
        out.append(Project(set_name, str(gold["project"]), sorted(folder.glob("*.jsonl")),
                           gold["gold"], gold.get("must_not") or [], gold.get("review") or [],
                           int(gold.get("sessions", 0)), label=folder.name))
    return out


def run_all(projects: list[Project], noise: list[Any],
            keep: Path | None = None) -> dict[str, dict[str, Any]]:
    results = {}
    for project in projects:
        tmp = Path(tempfile.mkdtemp(prefix=f"dream-bench-coding-{project.label}-"))
        t0 = time.perf_counter()
        try:
            out = dream_project(project, tmp, keep)
            results[project.key] = score_project(project, out, noise)
        except (RuntimeError, subprocess.SubprocessError, OSError, ValueError) as exc:
            results[project.key] = {"error": str(exc)}
        finally:
            shutil.rmtree(tmp, ignore_errors=True)
        results[project.key]["seconds"] = round(time.perf_counter() - t0, 2)
        results[project.key]["set"] = project.set
        results[project.key]["label"] = project.label
    return results


# -- report ------------------------------------------------------------------------------
def summarise(results: dict[str, dict[str, Any]], set_name: str) -> dict[str, Any]:
    rows = [r for r in results.values() if r.get("set") == set_name and "error" not in r]
    scenario = set_name != "real"
    gold = sum(r["gold"] for r in rows)
    s: dict[str, Any] = {
        "projects": len(rows), "gold": gold,
        "recall_memory": ratio(sum(r["held"] for r in rows), gold),
        "recall_search_top3": ratio(sum(r["searched"] for r in rows),
                                    sum(r["questions"] for r in rows)),
        "recall_either": ratio(sum(r["either"] for r in rows), gold),
        "empty_briefs": sum(1 for r in rows if not r["brief_lines"]),
        "brief_lines": sum(r["brief_lines"] for r in rows),
        "live_notes": sum(r["live_notes"] for r in rows),
        "rubric_pass_share": ratio(sum(r["rubric_pass"] for r in rows),
                                   sum(r["brief_lines"] for r in rows)),
        "noise_lines": sum(r["noise_lines"] for r in rows),
        "review_covered": sum(r["review_covered"] for r in rows),
        "review_items": sum(r["review_items"] for r in rows),
        "errors": [r.get("label", k) for k, r in results.items()
                   if r.get("set") == set_name and "error" in r],
    }
    cats: dict[str, Any] = {}
    for c in CATEGORIES + (() if scenario else ("tool", "fact")):
        g = sum(r["by_category"].get(c, {}).get("gold", 0) for r in rows)
        h = sum(r["by_category"].get(c, {}).get("held", 0) for r in rows)
        cats[c] = {"gold": g, "recall": ratio(h, g)}
        if scenario:
            tp = sum(r["tp"][c] for r in rows)
            fp = sum(r["fp"][c] for r in rows)
            cats[c].update({"tp": tp, "fp": fp, "precision": ratio(tp, tp + fp)})
    s["by_category"] = cats
    if scenario:
        tp = sum(sum(r["tp"].values()) for r in rows)
        fp = sum(sum(r["fp"].values()) for r in rows)
        s["precision"] = ratio(tp, tp + fp)
        s["false_positives_other"] = sum(r["fp"]["other"] for r in rows)
        s["must_not_hits"] = sum(len(r["must_not_hits"]) for r in rows)
    return s


def fmt(v: Any) -> Any:
    return "-" if v is None else v


def real_table(results: dict[str, dict[str, Any]]) -> str:
    rows = [[r["label"], r["gold"], r["brief_lines"], r["live_notes"], r["held"], r["searched"],
             r["either"], r["noise_lines"], f"{r['rubric_pass']}/{r['brief_lines']}",
             f"{r['review_covered']}/{r['review_items']}", r["seconds"]]
            for r in results.values() if r.get("set") == "real" and "error" not in r]
    if not rows:
        return ""
    return f"{set_title('real')}\n\n" + common.table(
        ["project", "facts", "brief lines", "notes", "in memory", "search top3", "either",
         "noise", "rubric", "review", "s"], rows)


def scenario_table(results: dict[str, dict[str, Any]], set_name: str) -> str:
    """One row per scenario (stdout only: a held-out set's rows stay out of RESULTS.md)."""
    rows = []
    for r in results.values():
        if r.get("set") != set_name or "error" in r:
            continue
        tp, fp = sum(r["tp"].values()), sum(r["fp"].values())
        rows.append([r["label"], r["gold"], r["brief_lines"], r["live_notes"], tp, fp,
                     fmt(ratio(tp, tp + fp)), fmt(ratio(r["held"], r["gold"])),
                     len(r["must_not_hits"]), r["noise_lines"],
                     f"{r['rubric_pass']}/{r['brief_lines']}",
                     f"{r['review_covered']}/{r['review_items']}", r["seconds"]])
    if not rows:
        return ""
    return f"{set_title(set_name)}, per scenario\n\n" + common.table(
        ["scenario", "gold", "brief lines", "notes", "TP", "FP", "precision", "recall",
         "must_not", "noise", "rubric", "review", "s"], rows)


def aggregate_table(summary: dict[str, Any]) -> str:
    """Per scenario set: its totals and its precision / recall per category."""
    rows = []
    for name, s in summary.items():
        if name == "real" or not s["projects"]:
            continue
        cats = s["by_category"]
        rows.append([set_title(name), s["projects"], s["gold"], fmt(s["precision"]),
                     fmt(s["recall_memory"]),
                     *(f"{fmt(cats[c]['precision'])} / {fmt(cats[c]['recall'])}"
                       for c in CATEGORIES),
                     s["must_not_hits"], s["noise_lines"],
                     f"{fmt(s['rubric_pass_share'])}", f"{s['review_covered']}/"
                     f"{s['review_items']}"])
    if not rows:
        return ""
    return "Scenario sets (precision / recall)\n\n" + common.table(
        ["set", "scenarios", "gold", "precision", "recall", "rule", "command", "pitfall",
         "must_not", "noise", "rubric", "review"], rows)


def details(results: dict[str, dict[str, Any]]) -> str:
    """What each project missed and what it wrote wrongly (printed with --details only)."""
    out = []
    for key, r in results.items():
        if "error" in r:
            continue
        out.append(f"{key}: missed {', '.join(r['missed']) or 'nothing'}"
                   + (f"; no proposal for {', '.join(r['review_missed'])}"
                      if r.get("review_missed") else ""))
        out += [f"  false positive: {t}" for t in r.get("false_items", [])]
        out += [f"  must_not: {t}" for t in r.get("must_not_hits", [])]
        out += [f"  noise: {t[:160]}" for t in r.get("noise_examples", [])]
        out += [f"  rubric fail ({', '.join(f)}): {t[:160]}" for t, f in r["judged"] if f]
    return "Details\n\n" + "\n".join(out) if out else ""


def errors(results: dict[str, dict[str, Any]], hidden: frozenset[str] = frozenset()) -> str:
    """Projects that failed to run; of a sealed set (``hidden``) only how many."""
    lines = [f"- {k}: {r['error']}" for k, r in results.items()
             if "error" in r and r.get("set") not in hidden]
    for name in sorted(hidden):
        n = sum(1 for r in results.values() if "error" in r and r.get("set") == name)
        if n:
            lines.append(f"- {set_title(name)}: {n} scenario(s) failed to run")
    return "Errors\n\n" + "\n".join(lines) if lines else ""


def write_judged(results: dict[str, dict[str, Any]], path: Path) -> None:
    out = ["# Judged brief lines", "",
           f"Regenerated by `{common.command_line()}` at commit `{common.git_commit()}`; the "
           "checks are those of RUBRIC.md (PASS, or the checks a line fails).", ""]
    for r in results.values():
        out.append(f"## {set_title(r['set'])}: {r['label']}")
        out.append("")
        if "error" in r:
            out += [f"error: {r['error']}", ""]
            continue
        if not r["judged"]:
            out += ["(no brief lines)", ""]
            continue
        for text, failed in r["judged"]:
            verdict = "PASS" if not failed else "FAIL " + ", ".join(failed)
            out.append(f"- **{verdict}**: {text.replace('|', '¦')}")
        out.append("")
    path.write_text("\n".join(out), encoding="utf-8")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true",
                        help=f"real projects {', '.join(QUICK_REAL)} and dev scenarios "
                             f"{', '.join(QUICK_HELDOUT)} only")
    parser.add_argument("--scenarios", type=Path, action="append", metavar="DIR",
                        help="score the scenario folders under DIR (repeatable) instead of "
                             "the real sessions and the dev set")
    parser.add_argument("--heldout", type=Path, action="append", metavar="DIR",
                        dest="scenarios", help="the same as --scenarios DIR")
    parser.add_argument("--details", action="store_true",
                        help="print what each project missed or wrote wrongly (stdout only)")
    parser.add_argument("--keep", type=Path, metavar="DIR",
                        help="copy each project's store (brief, notes) and review answer here")
    args = parser.parse_args()
    for folder in args.scenarios or []:
        if not folder.is_dir():
            sys.exit(f"--scenarios {folder}: no such folder; give a folder of scenario "
                     "folders, each with a gold.yaml")
    load_before = os.getloadavg()
    t0 = time.perf_counter()
    noise = load_noise()
    if args.scenarios:
        sets = {set_name_of(folder): folder for folder in args.scenarios}
        projects = [p for name, folder in sets.items()
                    for p in scenario_projects(folder, name, args.quick)]
    else:
        sets = {"real": None, DEV: MATERIAL / "heldout"}
        projects = real_projects(args.quick) + scenario_projects(MATERIAL / "heldout", DEV,
                                                                 args.quick)
    results = run_all(projects, noise, args.keep)
    summary = {name: summarise(results, name) for name in sets}
    sealed_sets = frozenset(n for n, folder in sets.items()
                            if folder is not None and sealed(folder))
    hidden = sealed_sets if not args.details else frozenset()   # per-scenario rows
    for name in sealed_sets:   # which scenarios failed is a detail too, never recorded
        summary[name]["errors"] = len(summary[name]["errors"])
    load_after = os.getloadavg()
    categories = "\n\n".join(
        f"{set_title(name)}, per category\n\n" + common.table(
            ["category", "gold", "TP", "FP", "precision", "recall"],
            [[c, v["gold"], v["tp"], v["fp"], fmt(v["precision"]), fmt(v["recall"])]
             for c, v in s["by_category"].items()])
        for name, s in summary.items() if name != "real" and s["projects"])
    recorded = "\n\n".join(p for p in (real_table(results), aggregate_table(summary),
                                       categories, errors(results, sealed_sets)) if p)
    per_scenario = "\n\n".join(p for p in (scenario_table(results, n) for n in sets
                                           if n != "real" and n not in hidden) if p)
    print("\n\n".join(p for p in (per_scenario, recorded) if p))
    if args.details:
        print("\n" + details(results))
    judged = {k: r for k, r in results.items() if r["set"] in ("real", DEV)}
    if judged:
        judged_path = JUDGED if not (args.quick or args.scenarios) else \
            Path(tempfile.gettempdir()) / "dream-bench-coding-judged_lines.md"
        write_judged(judged, judged_path)
        print(f"\njudged lines: {judged_path}")
    figures = {"benchmark": "coding_memory", "quick": args.quick, **summary,
               "sealed": sorted(sealed_sets),
               "seconds": round(time.perf_counter() - t0, 1),
               "load": {"before": [round(x, 2) for x in load_before],
                        "after": [round(x, 2) for x in load_after]}}
    if not args.quick:
        real = {k: {x: v for x, v in r.items() if x not in ("judged", "false_items")}
                for k, r in results.items() if r["set"] == "real"}
        load = (f"- load (1/5/15 min) before: {' '.join(f'{x:.2f}' for x in load_before)}, "
                f"after: {' '.join(f'{x:.2f}' for x in load_after)}")
        names = ", ".join(set_title(n) for n in sets)
        common.append_results(f"coding memory: {names} (bench/coding_memory.py)",
                              load + "\n\n" + recorded,
                              {**figures, **({"by_project": real} if real else {})})
    common.emit_last_json(figures)
    if any(s["errors"] for s in summary.values()):
        sys.exit(1)


if __name__ == "__main__":
    main()
