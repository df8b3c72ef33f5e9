"""dream run, dream runs, dream runs show, dream correct, dream demo."""

from __future__ import annotations

from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING

import click

from dream.cli.common import emit_json, get_app, is_terminal, json_option
from dream.config import BRIEF_HIGH, BRIEF_LOW, PACK_HIGH, PACK_LOW

if TYPE_CHECKING:
    from dream.app import App


def register(cli: click.Group) -> None:
    cli.add_command(run)
    cli.add_command(runs)
    cli.add_command(correct)
    cli.add_command(demo)


@contextmanager
def progress_bar(enabled: bool):
    if not enabled:
        yield None
        return
    from rich.console import Console
    from rich.progress import BarColumn, Progress, TextColumn, TimeElapsedColumn

    with Progress(TextColumn("{task.description:<8}"), BarColumn(),
                  TextColumn("{task.completed}/{task.total}"), TimeElapsedColumn(),
                  console=Console(stderr=True), transient=True) as bar:
        tasks: dict[str, int] = {}

        def update(stage: str, done: int, total: int) -> None:
            if stage not in tasks:
                tasks[stage] = bar.add_task(stage, total=max(total, 1))
            bar.update(tasks[stage], completed=done, total=max(total, 1))

        yield update


def _fmt_run(r: dict, names: dict[str, str] | None = None) -> str:
    cost = f"${r['cost_usd']:.4f}"
    commit = (r["commit"] or "-")[:10]
    key = r.get("project_key")
    project = (names or {}).get(key) or key or "(personal)"
    return (f"{r['id']:<22} {r['mode']:<8} {r['status']:<8} "
            f"{r['decision']:<15} {project[:16]:<16} {r['items']:>6} "
            f"{r['bundles']:>5} {r['calls']:>5} {r['input_tokens']:>8} {r['output_tokens']:>7} "
            f"{r['cached_tokens']:>7} {cost:>9} {r['duration_s']:>7.2f}s {commit:<10} "
            f"{r['branch'] or '-'}")


HEADER = (f"{'run':<22} {'mode':<8} {'status':<8} {'decision':<15} {'project':<16} "
          f"{'items':>6} {'bund':>5} {'calls':>5} {'in_tok':>8} {'out_tok':>7} {'cached':>7} "
          f"{'cost':>9} {'time':>8} {'commit':<10} branch")


@click.command()
@click.option("--mode", type=click.Choice(["nightly", "ondemand", "realtime"]),
              default="ondemand", show_default=True, help="Which pass this is.")
@click.option("--model", default=None,
              help="Provider spec: rules, scripted:PATH, openai:MODEL, anthropic:MODEL "
                   "(default: [model] default in config.toml, else rules).")
@click.option("--apply", "apply_mode", type=click.Choice(["auto", "review"]), default=None,
              help="auto: promote the run branch (default); review: leave it for review.")
@click.option("--rounds", default=1, show_default=True, type=click.IntRange(1, 1000),
              help="Repeat runs until the spool drains, at most N times.")
@click.option("--redo", is_flag=True, help="Un-claim processed items and reprocess them.")
@click.option("--retry", "retry", default=None, metavar="RUN",
              help="Requeue a failed, partial or interrupted run's items and run again.")
@click.option("--dry-run", is_flag=True,
              help="Estimate bundles, calls, tokens and cost; call nothing, write nothing.")
@click.option("--no-sweep", is_flag=True, help="Skip the sweep call.")
@click.option("--brief-tokens", type=click.IntRange(BRIEF_LOW, BRIEF_HIGH), default=None,
              help="Token cap of brief.md (default 2000).")
@click.option("--pack-tokens", type=click.IntRange(PACK_LOW, PACK_HIGH), default=None,
              help="Tokens of items per model call (default DREAM_PACK_TOKENS, else 12000).")
@click.option("--max-items", type=click.IntRange(1, 10_000_000), default=5000,
              show_default=True, help="Items one run claims; --rounds takes the rest.")
@click.option("--project", multiple=True, metavar="NAME|KEY",
              help="Dream over this project (a name or key a store knows) instead of the "
                   "current repository's; repeat it for several in one run.")
@json_option
def run(mode, model, apply_mode, rounds, redo, retry, dry_run, no_sweep, brief_tokens,
        pack_tokens, max_items, project, as_json) -> None:
    """Run a dream: bundle, propose, merge, apply, sweep, render.

    Claims everything gated since the watermark for the current project (or --project)
    and personal streams, writes one commit per run on the branch dream/run/<id> and
    (with --apply auto) promotes it.
    """
    from dream.core import dreams

    app = get_app()
    ran_before = dreams.ran_before(app)
    with progress_bar(is_terminal() and not as_json) as update:
        done, key = dreams.run(app, progress=update, project=list(project) or None,
                               mode=mode, model=model,
                               apply=apply_mode,
                               rounds=rounds, redo=redo, retry=retry, dry_run=dry_run,
                               sweep=not no_sweep, brief_tokens=brief_tokens,
                               pack_tokens=pack_tokens,
                               max_items=max_items)
    rows = [r.as_dict() for r in done]
    remaining = done[-1].details.remaining
    if as_json:
        if len(rows) == 1:
            emit_json({**rows[0], "remaining": remaining})
        else:       # --rounds: one object with every run and the totals
            emit_json({"rounds": len(rows), "status": rows[-1]["status"],
                       "items": sum(r["items"] for r in rows),
                       "calls": sum(r["calls"] for r in rows), "remaining": remaining,
                       "runs": rows})
    else:
        for r in rows:
            _print_run(r, ran_before)
        if all(r["items"] == 0 for r in rows):
            point_elsewhere(app, key)
        elif remaining and not dry_run and rows[-1]["status"] in ("partial", "failed") and \
                rows[-1]["items"] < max_items:
            # the claim limit was not reached: what waits is what failed calls gave back
            click.echo(f"{remaining:,} items were given back (their model calls failed, see "
                       f"the problems above): 'dream run --retry {rows[-1]['id']}' takes "
                       "them again")
        elif remaining and not dry_run:
            _print_remaining(remaining, max_items)
    if rows[-1]["status"] == "failed":
        raise SystemExit(1)


def _print_remaining(remaining: int, max_items: int) -> None:
    """Say that a run left items waiting (it claims at most --max-items) and how to go on."""
    rounds = -(-remaining // max_items)
    click.echo(f"{remaining:,} more items wait (a run takes at most {max_items:,}): "
               f"'dream run' again takes the next {min(remaining, max_items):,}, "
               f"'dream run --rounds {rounds}' takes them all")


def point_elsewhere(app: App, key: str | None) -> None:
    """When nothing was taken here, say where the collected items a run would claim went
    (never meta items, which no run claims): a run covers only the current project and the
    personal streams."""
    from dream.spool.projects import elsewhere

    waiting = elsewhere(app.db, key)
    if waiting:
        listed = ", ".join(f"{k} ({n})" for k, n in waiting[:5])
        more = f" and {len(waiting) - 5} more" if len(waiting) > 5 else ""
        click.echo(f"note: {sum(n for _k, n in waiting)} collected items belong to other "
                   f"projects: {listed}{more}; 'dream projects' shows their folders, "
                   "'dream projects move FROM TO' brings them into this project, or run "
                   "'dream init' and 'dream run' in their repositories")


def _print_run(r: dict, ran_before: bool = True) -> None:
    if r["status"] == "priced" and r["details"].get("code_provider"):
        click.echo(f"dry run {r['id']}: {r['items']} items in {r['bundles']} bundles; "
                   f"{r['model']} runs on this machine: no model is called, no tokens, $0.")
        click.echo(f"a hosted model would be sent {r['calls']} calls, ~{r['input_tokens']} "
                   f"input tokens ({r['cached_tokens']} cacheable), ~{r['output_tokens']} "
                   "output tokens (price one with --model openai:MODEL or anthropic:MODEL). "
                   "Nothing was called.")
        return
    if r["status"] == "priced":
        click.echo(f"dry run {r['id']}: {r['items']} items in {r['bundles']} bundles -> "
                   f"{r['calls']} calls, ~{r['input_tokens']} input tokens "
                   f"({r['cached_tokens']} cacheable), ~{r['output_tokens']} output tokens, "
                   f"estimated ${r['cost_usd']:.4f} with {r['model']}. Nothing was called.")
        if r["details"].get("cost_note"):
            click.echo(f"note: {r['details']['cost_note']}")
        return
    if r["items"] == 0 and r["status"] == "ok":
        if ran_before:
            click.echo(f"run {r['id']}: nothing new in the spool since the last run "
                       "(collect first, or reprocess with --redo)")
        else:
            click.echo(f"run {r['id']}: nothing to dream over: no collected items for this "
                       "project or your personal streams (collect first with 'dream collect')")
        return
    click.echo(f"run {r['id']} {r['status']}: {r['items']} items, {r['bundles']} bundles, "
               f"{r['calls']} calls, {r['duration_s']:.2f}s")
    for root, summary in sorted((r["details"].get("scopes") or {}).items()):
        click.echo(f"  {root}: {summary['items']} items, {summary['bundles']} bundles, "
                   f"{summary['changed']} records changed, {summary['questions']} questions")
    if r["commit"]:
        where = "promoted" if r["decision"] == "promoted" else "left for review"
        click.echo(f"commit {r['commit'][:12]} on {r['branch']} ({where})")
    elif r["items"]:
        click.echo("nothing changed in the store")
    dropped = r["details"].get("dropped") or {}
    if dropped:
        click.echo("dropped ops: " + ", ".join(f"{k} {v}" for k, v in dropped.items()))
    if r["error"]:
        click.echo(f"problems: {r['error']}")


@click.group(invoke_without_command=True)
@click.option("--limit", default=30, show_default=True, type=click.IntRange(1, 100_000),
              help="How many runs to list.")
@json_option
@click.pass_context
def runs(ctx: click.Context, limit: int, as_json: bool) -> None:
    """List dream runs: mode, status, items, bundles, calls, tokens, cost, commit, branch."""
    if ctx.invoked_subcommand is not None:
        return
    from dream.core import dreams

    app = get_app()
    rows = [run.as_dict() for run in dreams.list_runs(app, limit)]
    gone = _interrupted(app, rows)
    if as_json:
        emit_json(rows)
        return
    if not rows:
        click.echo("no dream runs yet; start one with 'dream run'")
        return
    names = {k: e.get("name") or k for s in app.stores.all() for k, e in s.projects.items()}
    click.echo(HEADER)
    for r in rows:
        click.echo(_fmt_run(r, names))
    for run_id in gone:
        click.echo(f"\nrun {run_id} was interrupted (its process is gone); requeue its items "
                   f"with 'dream run --retry {run_id}'")


def _interrupted(app, rows: list[dict]) -> list[str]:
    """Mark the rows of runs still 'running' whose process is gone (a killed run) as
    decision 'interrupted': the view said 'running running' for them, for ever, and only
    'dream doctor' told them apart. Returns their ids."""
    if not any(r["status"] == "running" for r in rows):
        return []
    from dream.core.doctor import interrupted_runs

    gone = {run.id for run in interrupted_runs(app, app.db)}
    for r in rows:
        if r["id"] in gone:
            r["decision"] = "interrupted"
    return [r["id"] for r in rows if r["id"] in gone]


@runs.command("show")
@click.argument("run_id", metavar="RUN")
@json_option
def runs_show(run_id: str, as_json: bool) -> None:
    """Show one run with its figures, dropped ops and the diff stat of its commit."""
    from dream.core import dreams

    app = get_app()
    r = dreams.show_run(app, run_id).as_dict()
    gone = _interrupted(app, [r])
    if as_json:
        emit_json(r)
        return
    for key in ("id", "mode", "status", "decision", "project_key", "model", "items", "bundles", "calls", "input_tokens",
                "output_tokens", "cached_tokens", "cost_usd", "duration_s", "commit",
                "branch", "started_at", "finished_at", "error"):
        click.echo(f"{key + ':':<15} {r[key] if r[key] is not None else '-'}")
        if key == "decision" and r["details"].get("reverted_by"):
            by = ", ".join(sha[:12] for sha in r["details"]["reverted_by"].values())
            click.echo(f"{'reverted by:':<15} {by} (dream revert, "
                       f"{r['details'].get('reverted_at') or '?'})")
    for root, summary in sorted((r["details"].get("scopes") or {}).items()):
        click.echo(f"{'scope:':<15} {root}: " + ", ".join(f"{k} {v}" for k, v in summary.items()))
    for key in ("dropped", "apply"):
        if r["details"].get(key):
            click.echo(f"{key + ':':<15} " + ", ".join(f"{k} {v}"
                                                      for k, v in r["details"][key].items()))
    if r["diff_stat"]:
        click.echo("")
        click.echo(r["diff_stat"])
    if gone:
        click.echo(f"\nthe run was interrupted (its process is gone); requeue its items with "
                   f"'dream run --retry {r['id']}'")


def _decide(run_id: str, promote: bool, as_json: bool) -> None:
    from dream.core import dreams

    r = dreams.decide(get_app(), run_id, promote).as_dict()
    if as_json:
        emit_json(r)
        return
    if promote:
        heads = ", ".join(h[:12] for h in r["details"].get("promoted_heads", {}).values())
        click.echo(f"run {r['id']} promoted: the store is now at {heads}")
        from dream.pipeline.decide import NOT_RENDERED

        for said in r["details"].get("errors") or []:
            if NOT_RENDERED in said:
                click.echo(f"note: {said}")
    else:
        click.echo(f"run {r['id']} discarded; its branch {r['branch']} stays in git for the "
                   "record")


@runs.command("promote")
@click.argument("run_id", metavar="RUN")
@json_option
def runs_promote(run_id: str, as_json: bool) -> None:
    """Promote a run left for review (--apply review) onto the store's main line."""
    _decide(run_id, True, as_json)


@runs.command("discard")
@click.argument("run_id", metavar="RUN")
@json_option
def runs_discard(run_id: str, as_json: bool) -> None:
    """Discard a run left for review; its branch stays in git, nothing is applied."""
    _decide(run_id, False, as_json)


@click.command()
@click.argument("address")
@click.argument("field")
@click.argument("value")
@json_option
def correct(address: str, field: str, value: str, as_json: bool) -> None:
    """Correct one field of a record, now: evidence said at the moment you type it.

    ADDRESS is a record such as @user/events/dinner-nobu-2026-03-13 or
    @projects/<name>/standing. The correction survives later runs with the same identity
    and evidence; only evidence said after it can change the field again.
    """
    from dream.core import dreams

    done = dreams.correct(get_app(), address, field, value)
    if as_json:
        emit_json(done.as_dict())
        return
    click.echo(f"corrected {address} {done.field} = {done.value!r} (evidence {done.item}, "
               f"run {done.run.id})")


@click.command()
@click.option("--home", type=click.Path(file_okay=False, path_type=Path), default=None,
              help="Keep the demo's DREAM_HOME here instead of a temporary folder.")
@click.option("--brief-tokens", default=600, show_default=True, help="Token cap of the brief.")
def demo(home: Path | None, brief_tokens: int) -> None:
    """Run a whole dream on bundled sample sessions with the rules provider, offline.

    Creates a throw-away home and project, collects two coding-agent sessions and a
    week of personal messages, runs the dream and prints the brief and the runs view.
    Your own DREAM_HOME is not touched.
    """
    from dream.samples import run_demo

    run_demo(home, brief_tokens, echo=click.echo, fmt_header=HEADER, fmt_run=_fmt_run)
