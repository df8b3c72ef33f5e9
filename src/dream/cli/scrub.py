"""``dream scrub``: remove a secret that slipped through (see dream/scrub.py)."""

from __future__ import annotations

import click

from dream.cli.common import emit_json, get_app, json_option
from dream.errors import BadInput
from dream.scrub import scrub as run_scrub


def register(cli: click.Group) -> None:
    cli.add_command(scrub)


@click.command()
@click.argument("value", required=False)
@click.option("--pattern", default=None,
              help="A regular expression instead of a VALUE (each match is scrubbed).")
@click.option("--history", is_flag=True,
              help="Also rewrite the history of every store holding it (local only; needs "
                   "--yes).")
@click.option("--yes", is_flag=True, help="Confirm the history rewrite.")
@json_option
def scrub(value: str | None, pattern: str | None, history: bool, yes: bool,
          as_json: bool) -> None:
    """Remove VALUE (or every match of --pattern) from the spool, its full-text index and
    every other table, and with --history --yes from the history of every store.

    Other notes are untouched; rewritten commits keep a map from old to new, so run rows,
    run branches and 'show --at OLD' still resolve. A store with a remote is never pushed:
    the command to run is printed with what it does to other clones. Rotate the secret.
    """
    if history and not yes:
        raise BadInput("--history rewrites the commits of every store holding the value",
                       "add --yes to confirm (nothing is pushed)")
    report = run_scrub(get_app(), value, pattern, history=history)
    if as_json:
        emit_json(report.as_dict())
        return
    rows = sum(report.rows.values())
    click.echo(f"scrubbed: {rows} database rows"
               + (f" ({', '.join(f'{k} {v}' for k, v in report.rows.items())})" if rows else "")
               + f", {len(report.files)} files; replaced with {report.what}")
    for rewrite in report.rewrites:
        click.echo(f"store {rewrite.store} ({rewrite.path}): {len(rewrite.commits)} commits "
                   "rewritten")
        for c in rewrite.commits:
            click.echo(f"  {c['old'][:12]} -> {c['new'][:12]}  {c['subject']}"
                       + (f"  [{c['files']}]" if c["files"] else ""))
        if rewrite.push:
            click.echo(f"  {rewrite.warning}\n  to publish it yourself: {rewrite.push}")
    if report.stores_holding and not history:
        click.echo("still in the history of: " + ", ".join(report.stores_holding)
                   + "\n  rerun with --history --yes to rewrite it (local commits only)")
    click.echo(report.rotate)
