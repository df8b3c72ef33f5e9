"""Shared pieces of the evaluation benchmarks (issue 7).

Machine description, the dated sections appended to ``bench/RESULTS.md``, the JSON object
printed as the last line of output, text tables, PNG plots (matplotlib, Agg backend) into
``bench/plots/`` and the static ``bench/results.html`` that shows them, throw-away Dream
homes, and a local OpenAI-compatible server that answers every request with a minimal valid
answer for its schema and counts calls and tokens with Dream's own tokenizer.

Every benchmark imports this module first; it puts ``<repo>/src`` on ``sys.path`` so the
scripts run from a clean checkout without installing anything.
"""

from __future__ import annotations

import contextlib
import html
import json
import os
import platform
import subprocess
import sys
import tempfile
from collections.abc import Iterator, Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

BENCH = Path(__file__).resolve().parent
REPO = BENCH.parent
sys.path.insert(0, str(REPO / "src"))
sys.path.insert(0, str(BENCH))

PLOTS = BENCH / "plots"
RESULTS_MD = BENCH / "RESULTS.md"
RESULTS_HTML = BENCH / "results.html"

GIT_IDENTITY = {
    "GIT_AUTHOR_NAME": "Dream Bench",
    "GIT_AUTHOR_EMAIL": "bench@dream.invalid",
    "GIT_COMMITTER_NAME": "Dream Bench",
    "GIT_COMMITTER_EMAIL": "bench@dream.invalid",
}


# -- where things are ---------------------------------------------------------------------
def shared_root() -> Path:
    """The shared folder: ``$DREAM_SHARED``, else ``shared`` beside the repository, else
    beside the main checkout of a linked worktree (where the tests look too)."""
    if os.environ.get("DREAM_SHARED"):
        return Path(os.environ["DREAM_SHARED"])
    beside = REPO.parent / "shared"
    if beside.is_dir():
        return beside
    with contextlib.suppress(OSError, subprocess.SubprocessError):
        proc = subprocess.run(["git", "rev-parse", "--path-format=absolute", "--git-common-dir"],
                              cwd=REPO, capture_output=True, text=True, timeout=10, check=False)
        main_checkout = Path(proc.stdout.strip()).parent if proc.returncode == 0 else None
        if main_checkout and proc.stdout.strip() and (main_checkout.parent / "shared").is_dir():
            return main_checkout.parent / "shared"
    return beside


def shared_data(*parts: str) -> Path:
    """The shared sample data (``<shared>/data``), or the file or folder ``parts`` inside it.

    Missing, the benchmark stops at once with one line on stderr that names what is
    missing and how to provide it (exit 1), rather than a traceback after its other work.
    """
    data = shared_root() / "data"
    where = ("DREAM_SHARED=" + os.environ["DREAM_SHARED"]) if os.environ.get("DREAM_SHARED") \
        else f"expected beside the repository at {REPO.parent / 'shared'}"
    if not data.is_dir():
        raise SystemExit(f"error: the shared sample data is missing: no folder {data} "
                         f"({where}); put the 'shared' folder (with its data/) beside the "
                         "repository or set DREAM_SHARED=/path/to/shared")
    path = data.joinpath(*parts)
    if not path.exists():
        raise SystemExit(f"error: {path} is missing from the shared sample data; restore it "
                         f"(shared/data/SOURCES.md names each file's public origin) or set "
                         "DREAM_SHARED=/path/to/shared to a complete copy")
    return path


def sealed(folder: Path) -> bool:
    """A sealed held-out set: the folder or one above it holds a ``SEALED`` file."""
    folder = folder.resolve()
    return any((p / "SEALED").is_file() for p in (folder, *folder.parents))


def set_name_of(folder: Path) -> str:
    """The name a scenario set is reported by: a held-out set's keeps its version
    ("heldout_v5_coding"), since "coding" alone says nothing."""
    folder = folder.resolve()
    named = sealed(folder) or folder.parent.name.startswith("heldout_v")
    return f"{folder.parent.name}_{folder.name}" if named else folder.name


def command_line() -> str:
    """The exact command that is running, as a person would retype it from the repo root."""
    script = Path(sys.argv[0])
    try:
        script = script.resolve().relative_to(REPO)
    except ValueError:
        pass
    return " ".join(["python", str(script), *sys.argv[1:]])


# -- machine and commit -------------------------------------------------------------------
def git_commit() -> str:
    try:
        out = subprocess.run(["git", "rev-parse", "--short=12", "HEAD"], cwd=REPO,
                             capture_output=True, text=True, timeout=10, check=False)
        sha = out.stdout.strip() or "unknown"
        dirty = subprocess.run(["git", "status", "--porcelain", "--untracked-files=no"],
                               cwd=REPO, capture_output=True, text=True, timeout=10, check=False)
        return sha + ("+dirty" if dirty.stdout.strip() else "")
    except (OSError, subprocess.SubprocessError):
        return "unknown"


def machine() -> dict[str, Any]:
    mem_gb = None
    with contextlib.suppress(OSError, ValueError, IndexError):
        for line in Path("/proc/meminfo").read_text().splitlines():
            if line.startswith("MemTotal:"):
                mem_gb = round(int(line.split()[1]) / 1024 / 1024, 1)
    return {
        "uname": " ".join(platform.uname()),
        "nproc": os.cpu_count(),
        "memory_gb": mem_gb,
        "python": platform.python_version(),
    }


# -- output -------------------------------------------------------------------------------
def table(headers: Sequence[str], rows: Sequence[Sequence[Any]]) -> str:
    """A Markdown table (readable as plain text too)."""
    def cell(v: Any) -> str:
        if isinstance(v, float):
            return f"{v:.3f}" if abs(v) < 100 else f"{v:,.1f}"
        if isinstance(v, int) and not isinstance(v, bool):
            return f"{v:,}"
        return "" if v is None else str(v)

    cells = [[cell(v) for v in row] for row in rows]
    widths = [max([len(h)] + [len(r[i]) for r in cells]) for i, h in enumerate(headers)]
    line = "| " + " | ".join(h.ljust(w) for h, w in zip(headers, widths)) + " |"
    sep = "|" + "|".join("-" * (w + 2) for w in widths) + "|"
    body = ["| " + " | ".join(c.ljust(w) for c, w in zip(r, widths)) + " |" for r in cells]
    return "\n".join([line, sep, *body])


def emit_last_json(obj: dict[str, Any]) -> None:
    """Print the figures as one JSON object on the last line of output."""
    sys.stdout.flush()
    print(json.dumps(obj, ensure_ascii=False, sort_keys=True, default=str), flush=True)


def append_results(title: str, sections: str, figures: dict[str, Any]) -> None:
    """Append a dated section to bench/RESULTS.md (append mode: other benchmarks share it)."""
    m = machine()
    text = [
        "",
        f"## {title} — {datetime.now(UTC).strftime('%Y-%m-%d %H:%M UTC')}",
        "",
        f"- command: `{command_line()}`",
        f"- commit: `{git_commit()}`",
        (f"- machine: `{m['uname']}`, nproc {m['nproc']}, memory {m['memory_gb']} GB, "
         f"Python {m['python']}"),
        "",
        sections.rstrip(),
        "",
        "<details><summary>figures (JSON)</summary>",
        "",
        "```json",
        json.dumps(figures, sort_keys=True, default=str),
        "```",
        "",
        "</details>",
        "",
    ]
    with RESULTS_MD.open("a", encoding="utf-8") as fh:
        if fh.tell() == 0:
            fh.write("# Benchmark results\n\nDated sections appended by the scripts in bench/.\n")
        fh.write("\n".join(text))


def save_figures(name: str, figures: dict[str, Any]) -> Path:
    """Keep the latest figures of a benchmark beside its plots (read by results.html)."""
    PLOTS.mkdir(parents=True, exist_ok=True)
    path = PLOTS / f"{name}.json"
    path.write_text(json.dumps({"at": datetime.now(UTC).isoformat(timespec="seconds"),
                                "command": command_line(), "commit": git_commit(),
                                "figures": figures}, indent=1, sort_keys=True, default=str))
    return path


# -- plots --------------------------------------------------------------------------------
def _pyplot():
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    return plt


def bar_plot(path: Path, title: str, groups: Sequence[str], series: dict[str, Sequence[float]],
             ylabel: str, log: bool = False) -> Path:
    """A grouped bar chart: one group per label in ``groups``, one bar per series."""
    plt = _pyplot()
    fig, ax = plt.subplots(figsize=(max(6, 1.3 * len(groups) * max(1, len(series)) / 2), 4))
    n = max(1, len(series))
    width = 0.8 / n
    for i, (label, values) in enumerate(series.items()):
        xs = [g + (i - (n - 1) / 2) * width for g in range(len(groups))]
        bars = ax.bar(xs, values, width, label=label)
        for bar, v in zip(bars, values):
            ax.annotate(_label(v),
                        (bar.get_x() + bar.get_width() / 2, bar.get_height()),
                        ha="center", va="bottom", fontsize=7)
    ax.set_xticks(range(len(groups)))
    ax.set_xticklabels(groups)
    ax.set_ylabel(ylabel)
    ax.set_title(title)
    if log:
        ax.set_yscale("log")
    if len(series) > 1:
        ax.legend(fontsize=8)
    fig.tight_layout()
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return path


def _label(v: float) -> str:
    if abs(v) >= 100:
        return f"{v:,.0f}"
    return f"{v:.1f}" if abs(v) >= 1 else f"{v:.2f}"


def write_results_html() -> Path:
    """The static results page: every plot in bench/plots with the figures beside it."""
    PLOTS.mkdir(parents=True, exist_ok=True)
    parts = ["<!doctype html><html><head><meta charset='utf-8'><title>Dream benchmarks</title>",
             ("<style>body{font-family:system-ui,sans-serif;max-width:1100px;margin:2em auto;"
              "padding:0 1em}img{max-width:100%;border:1px solid #ddd}pre{background:#f6f6f6;"
              "padding:.5em;overflow:auto;max-height:20em;font-size:12px}"
              "section{margin-bottom:2.5em}</style></head><body>"),
             "<h1>Dream benchmarks</h1>",
             ("<p>Generated by <code>bench/common.py</code> from the latest run of each script; "
              "every dated run is in <a href='RESULTS.md'>RESULTS.md</a>.</p>")]
    for meta in sorted(PLOTS.glob("*.json")):
        name = meta.stem
        try:
            info = json.loads(meta.read_text())
        except (OSError, ValueError):
            continue
        parts.append(f"<section><h2>{html.escape(name)}</h2>")
        parts.append(f"<p><code>{html.escape(info.get('command', ''))}</code> at "
                     f"{html.escape(info.get('at', ''))}, commit "
                     f"<code>{html.escape(info.get('commit', ''))}</code></p>")
        for png in sorted(PLOTS.glob(f"{name}*.png")):
            parts.append(f"<p><img src='plots/{html.escape(png.name)}' "
                         f"alt='{html.escape(png.stem)}'></p>")
        parts.append("<details><summary>figures</summary><pre>"
                     + html.escape(json.dumps(info.get("figures", {}), indent=1))
                     + "</pre></details></section>")
    parts.append("</body></html>")
    RESULTS_HTML.write_text("\n".join(parts), encoding="utf-8")
    return RESULTS_HTML


def publish(name: str, title: str, sections: str, figures: dict[str, Any]) -> None:
    """What a full (non --quick) run does with its figures."""
    append_results(title, sections, figures)
    save_figures(name, figures)
    write_results_html()


# -- a throw-away Dream home --------------------------------------------------------------
@contextlib.contextmanager
def temp_home(prefix: str = "dream-bench-", keep: bool = False) -> Iterator[Path]:
    """Point DREAM_HOME (and a git identity) at a fresh temporary folder for the block."""
    tmp = Path(tempfile.mkdtemp(prefix=prefix))
    saved = {k: os.environ.get(k) for k in ["DREAM_HOME", *GIT_IDENTITY]}
    os.environ["DREAM_HOME"] = str(tmp / "home")
    os.environ.update(GIT_IDENTITY)
    try:
        yield tmp
    finally:
        for k, v in saved.items():
            if v is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = v
        if not keep:
            import shutil

            shutil.rmtree(tmp, ignore_errors=True)


def dream_cli(*args: str, cwd: Path | None = None, check: bool = True) -> str:
    """Run the Dream CLI in-process (click) and return its output; raise on failure."""
    from click.testing import CliRunner

    from dream.cli import cli

    old = Path.cwd()
    if cwd:
        os.chdir(cwd)
    try:
        result = CliRunner().invoke(cli, list(args), catch_exceptions=True)
    finally:
        os.chdir(old)
    if check and result.exit_code != 0:
        detail = result.output.strip()
        if result.exception and not isinstance(result.exception, SystemExit):
            detail += f" ({type(result.exception).__name__}: {result.exception})"
        raise RuntimeError(f"dream {' '.join(args)} exited {result.exit_code}: {detail}")
    return result.output


def percentile(values: Sequence[float], p: float) -> float:
    if not values:
        return float("nan")
    xs = sorted(values)
    k = (len(xs) - 1) * p / 100
    lo, hi = int(k), min(int(k) + 1, len(xs) - 1)
    return xs[lo] + (xs[hi] - xs[lo]) * (k - lo)


# -- a counting OpenAI-compatible server ---------------------------------------------------
def counting_server() -> Any:
    """A local OpenAI-compatible server (tests/fake_servers.py, auto-answering a minimal
    valid answer for each request's schema) that also keeps per-label statistics.

    Statistics per ``server.label`` (the benchmark sets it between phases): calls, input
    tokens (every message, counted with ``dream.tokens.count`` as the fake server does),
    output tokens, ``cached_tokens`` (the fake server's simulation of a provider cache: the
    system message, when it reaches 1,024 tokens and was seen before), and
    ``cacheable_prefix_tokens``: the longest prefix the request shares with one of the last
    16 requests of its label, whatever its length, which is what a prompt cache could reuse
    at best. The same figures are also kept per ``label#purpose`` (the JSON schema's name:
    propose, sweep, merge, memory_update...). With ``record`` set, each request's flattened
    prompt is kept in ``prompts`` as ``(label, prompt)`` so a benchmark can measure what
    the calls of one run share."""
    sys.path.insert(0, str(REPO / "tests"))
    from fake_servers import FakeOpenAIServer, schema_prompt

    from dream import tokens

    class CountingOpenAIServer(FakeOpenAIServer):
        def __init__(self) -> None:
            super().__init__(auto=True)
            self.label = "default"
            self.stats: dict[str, dict[str, int]] = {}
            self._recent: dict[str, list[str]] = {}
            self._planted: dict[str, str] = {}
            self.record = False
            self.prompts: list[tuple[str, str]] = []

        def plant(self, body_text: str, content: str) -> None:
            """Answer the request whose last message is ``body_text`` with ``content``
            (calls run in parallel, so answers are keyed by what they answer)."""
            with self._lock:
                self._planted[_digest(body_text)] = content

        def _planted_answer(self, body: dict[str, Any]) -> str | None:
            messages = body.get("messages") or []
            last = messages[-1].get("content") if messages else None
            if not isinstance(last, str):
                return None
            with self._lock:
                return self._planted.pop(_digest(last), None)

        def _handler_class(self) -> Any:
            # headers and body go out in separate writes: without TCP_NODELAY each call
            # waits out a delayed ACK (~40 ms), which would dominate a benchmark's time
            return type("Handler", (super()._handler_class(),),
                        {"disable_nagle_algorithm": True})

        def auto_reply(self, body: dict[str, Any]) -> Any:
            reply = super().auto_reply(body)
            content = self._planted_answer(body)
            if content is not None:      # a realistic answer planted for this request
                usage = reply.body["usage"]
                reply.body["choices"][0]["message"]["content"] = content
                usage["completion_tokens"] = tokens.count(content)
                usage["total_tokens"] = usage["prompt_tokens"] + usage["completion_tokens"]
            usage = reply.body["usage"]
            got = {"calls": 1, "input_tokens": usage["prompt_tokens"],
                   "output_tokens": usage["completion_tokens"],
                   "cached_tokens": usage["prompt_tokens_details"]["cached_tokens"]}
            structured = (body.get("response_format") or {}).get("json_schema") or {}
            purpose = structured.get("name") or "answer"
            # the answer schema opens the prompt, as the server counts it
            prompt = schema_prompt(structured.get("schema")) + _flatten_messages(
                body.get("messages") or [])
            with self._lock:
                label = self.label
                recent = self._recent.setdefault(label, [])
                best = max((len(os.path.commonprefix([e, prompt])) for e in recent), default=0)
                recent.append(prompt)
                del recent[:-16]
                if self.record:
                    self.prompts.append((label, prompt))
                for key_label in (label, f"{label}#{purpose}"):
                    s = self.stats.setdefault(key_label, dict.fromkeys(
                        ("calls", "input_tokens", "output_tokens", "cached_tokens",
                         "cacheable_prefix_tokens"), 0))
                    for key in ("calls", "input_tokens", "output_tokens", "cached_tokens"):
                        s[key] += got[key]
                    s["cacheable_prefix_tokens"] += tokens.count(prompt[:best]) if best else 0
            return reply

    return CountingOpenAIServer()


def _digest(text: str) -> str:
    import hashlib

    return hashlib.sha256(text.encode("utf-8", "replace")).hexdigest()


def _flatten_messages(messages: list[dict[str, Any]]) -> str:
    out = []
    for m in messages:
        content = m.get("content", "")
        if not isinstance(content, str):
            content = json.dumps(content)
        out.append(f"<|{m.get('role', '')}|>{content}")
    return "".join(out)


# -- thin adapters onto Dream's collect and run ---------------------------------------------
def new_app(cwd: Path | None = None) -> Any:
    """An App on the current DREAM_HOME (see :func:`temp_home`), created when missing."""
    from dream.app import App

    app = App.from_env(cwd=cwd or Path(tempfile.gettempdir()))
    app.ensure_home()
    return app


def collect(app: Any, paths: Sequence[Path], source: str | None) -> dict[str, Any]:
    """``dream collect --source SOURCE PATH...`` through its Python entry point."""
    from dream.spool.collect import collect as _collect

    report = _collect(app, paths=[Path(p) for p in paths], source=source)
    return report.as_dict() if hasattr(report, "as_dict") else dict(report)


def dream_run(app: Any, model: str, settings: dict[str, Any] | None = None,
              sweep: bool = True, rounds: int = 50,
              pack_tokens: int | None = None) -> list[dict[str, Any]]:
    """``dream run --project KEY ... --rounds N`` for every project key the spool holds,
    through the core's run (all in one run, with the personal streams), until the spool
    drains; returns the run rows. Personal items (no project key: generic JSONL without
    ``cwd``) go to ``user/``; agent transcripts carry the project key of their working
    directory, which this machine does not manage, so each such key is first made known
    to the notes home under its own name (``projects/<key>/``), as ``dream init`` in that
    repository would."""
    from dream.core import dreams
    from dream.store.lock import write_lock
    from dream.store.store import Store

    store = app.notes_store()
    keys = sorted(r[0] for r in app.db.execute(
        "SELECT DISTINCT project_key FROM items WHERE project_key IS NOT NULL"))
    unknown = [k for k in keys if store.project_name(k) is None]
    if unknown:
        with write_lock(store.path, "bench"):
            store = Store.load(store.path)
            for key in unknown:
                store.add_project(key, key, primary=True)
            store.save(subject=f"Manage {len(unknown)} benchmark project(s)")
    flags: dict[str, Any] = {"model": model, "apply": "auto", "sweep": sweep,
                             "rounds": rounds}
    if settings:
        flags["model_settings"] = dict(settings)
    if pack_tokens:
        flags["pack_tokens"] = pack_tokens
    done, _key = dreams.run(app, project=keys or None, **flags)
    return [r.as_dict() for r in done]


def records_at_head(app: Any, root: str = "") -> list[Any]:
    """Every typed record (below ``root``, when given) in the notes home at HEAD."""
    from dream.kinds.records import Record

    repo = app.notes_store().repo
    head = repo.head()
    out = []
    for path, _sha in repo.list_files(head) if head else []:
        if (root and not path.startswith(root.rstrip("/") + "/")) or not path.endswith(".md"):
            continue
        data = repo.read_at(head, path)
        rec = Record.loads(data.decode("utf-8", "replace")) if data else None
        if rec is not None:
            out.append(rec)
    return out
