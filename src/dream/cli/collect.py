"""collect, history search and history show."""

from __future__ import annotations

from contextlib import nullcontext
from pathlib import Path
from typing import Any

import click

from dream.cli.common import emit_json, get_app, is_terminal, json_option
from dream.errors import BadInput
from dream.sources import SOURCE_KINDS
from dream.spool import history as history_mod
from dream.spool.collect import collect as collect_items
from dream.terminal import echo_query, next_page, strip_control


def register(cli: click.Group) -> None:
    cli.add_command(collect)
    cli.add_command(history)


# both spellings of a kind are accepted, as 'dream install' does: claude_code, claude-code
SOURCE_SPELLINGS = sorted({*SOURCE_KINDS, *(k.replace("_", "-") for k in SOURCE_KINDS)})


@click.command()
@click.option("--source", type=click.Choice(SOURCE_SPELLINGS), default=None,
              help="Read the paths as this source kind (default: detect each file).")
@click.option("--project", "project", default=None, metavar="NAME|KEY",
              help="Put the project items read (and those collected before from the same "
                   "files) in this project.")
@click.argument("paths", nargs=-1, type=click.Path())
@json_option
def collect(source: str | None, project: str | None, paths: tuple[str, ...],
            as_json: bool) -> None:
    """Read new material into the spool (no model call).

    With no PATHS, finds the agent transcripts (Claude Code, Pi, Codex) of the current
    repository and its linked worktrees on this machine. Collecting the same files again
    adds nothing; a grown file adds only its new lines. A transcript recorded in a folder
    missing on this machine whose name is this repository's is placed here; --project
    places any other.
    """
    from dream.spool.projects import resolve

    if any(not p.strip() for p in paths):
        # Path("") is "." : an empty argument (an unset shell variable) would walk the folder
        raise BadInput("an empty path names no file",
                       "give a file or folder, or no path for this repository's sessions")
    app = get_app()
    app.home.require()
    source = source.replace("-", "_") if source else None
    key = resolve(app.db, app.stores.all(), project, app.project()) if project else None
    bar: Any = None
    if not as_json and is_terminal():
        from rich.progress import BarColumn, DownloadColumn, Progress, TextColumn

        bar = Progress(TextColumn("collect"), BarColumn(), DownloadColumn(),
                       TextColumn("{task.description}"), transient=True)
    with bar if bar is not None else nullcontext():
        task = bar.add_task("", total=None) if bar is not None else None

        def progress(done: int, total: int, path: str) -> None:
            if bar is not None:
                bar.update(task, completed=done, total=total or None,
                           description=Path(path).name[:40])

        report = collect_items(app, [Path(p) for p in paths] or None, source,
                               progress if bar is not None else None, project=key)
    result = report.as_dict()
    if as_json:
        emit_json(result)
    else:
        click.echo(f"{report.new_items} new items ({report.evidence} evidence) from "
                   f"{report.files_read} of {report.files} files; "
                   f"{report.files_unchanged} unchanged, {report.duplicates} already collected, "
                   f"{report.redacted} secrets redacted, {report.skipped} skipped.")
        for skip in report.skips[:20]:
            click.echo(f"  skipped {skip['where']}: {skip['reason']}")
        if report.skipped > 20:
            click.echo(f"  ... and {report.skipped - 20} more (see --json)")
        if report.repeated or report.id_reused:
            click.echo(_repeats_line(report))
        if report.changed:
            click.echo(_changed_line(report))
        if report.retimed:
            click.echo(f"{report.retimed} items kept with a replaced time "
                       "(theirs was no time or more than a day in the future):")
            for item in report.retimes[:20]:
                click.echo(f"  time replaced at {item['where']}: {item['reason']}")
            if report.retimed > 20:
                click.echo(f"  ... and {report.retimed - 20} more (see --json)")
        for item in report.notes[:20]:
            click.echo(f"  note {item['file']}: {item['note']}")
        if report.not_yours:
            click.echo(_not_yours_line(report.not_yours, app.config.get("collect", "me", [])))
        _print_placement(report.placement.as_dict(), project)
        if report.files == 0 and not paths:
            here = "this repository" if app.project().in_git else \
                f"{strip_control(str(app.cwd))}, which is not a git repository"
            click.echo(f"No transcripts found for {here} (looked in "
                       f"{_looked_in(source)}); name files or folders to collect them.")
        elif report.files == 0:
            # folders holding no file Dream reads: said, not only "0 of 0 files"
            what = f"reads as --source {source}" if source else \
                "is a transcript or message export Dream reads"
            click.echo(f"No sessions found in {_named(paths)}: no file there {what}; "
                       "nothing collected.")
    if report.nothing_readable:
        click.echo("error: nothing could be read from the given material; see the skipped "
                   "lines above.", err=True)
        raise SystemExit(1)


def _changed_line(report) -> str:
    """One line on messages read again with other words under an id already collected."""
    n = report.changed
    where = ", ".join(c["where"] for c in report.changes[:3]) + (", ..." if n > 3 else "")
    return (f"note: {n} message{'' if n == 1 else 's'} read again with other words than "
            f"when first collected ({where}; all in --json: changed_items): the spool keeps "
            "the first words, which runs read; 'dream scrub VALUE' removes words that must "
            "go")


def _not_yours_line(files: list[str], me: object) -> str:
    """The hint for message exports in which no message was the user's: without a sender
    known as "me" a run reads every message as someone else's."""
    where = strip_control(files[0]) + (f" and {len(files) - 1} more" if len(files) > 1 else "")
    told = "names none of their senders" if me else "is not set"
    return (f"  no message in {where} is yours: [collect] me in config.toml {told}, so each "
            "was read as someone else's (and stays so once collected). name the sender you "
            "write as there (for example me = [\"Sam Example\"]) before collecting more "
            "exports.")


def _repeats_line(report) -> str:
    """One line on messages whose id an earlier line of their stream already used."""
    def lines(n: int) -> str:
        return f"{n} line{'' if n == 1 else 's'}"

    parts = []
    if report.repeated:
        parts.append(f"{lines(report.repeated)} repeated an earlier message word for word "
                     "(skipped)")
    if report.id_reused:
        parts.append(f"{lines(report.id_reused)} differed from it (kept under the line "
                     "number)")
    where = ", ".join(f"{r['where']} (same id as {r['same_id_as']}, "
                      f"{'kept' if r['kept'] else 'skipped'})" for r in report.repeats[:3])
    more = ", ..." if report.repeated + report.id_reused > 3 else ""
    return (f"repeated message ids: {', '.join(parts)}: {where}{more} "
            "(all in --json: repeated_ids)")


def _named(paths: tuple[str, ...]) -> str:
    """The paths given, the first three by name."""
    named = ", ".join(strip_control(p) for p in paths[:3])
    return named + (f" and {len(paths) - 3} more" if len(paths) > 3 else "")


def _looked_in(source: str | None) -> str:
    """The session folders discovery read, each missing one marked, and the variable that
    set it: 'DREAM_CLAUDE_DIR=/nonexist' was reported only as 'looked in DREAM_CLAUDE_DIR'."""
    import os

    from dream.sources.discovery import DIR_VARS, roots

    out = []
    for kind, folder in roots().items():
        if source and kind != source:
            continue
        set_by = f"{DIR_VARS[kind]}=" if os.environ.get(DIR_VARS[kind]) else ""
        missing = "" if folder.is_dir() else " (no such folder)"
        out.append(f"{set_by}{folder}{missing}")
    return ", ".join(out)


def _print_placement(placed: dict[str, Any], project: str | None) -> None:
    if project and placed["moved"]:
        click.echo(f"moved {placed['moved']} items collected before from these files to "
                   f"project {project}")
    for folder, n in sorted(placed["attributed"].items()):
        why = placed.get("matched", {}).get(folder, "folder name")
        click.echo(f"placed {n} items recorded in {folder} (not on this machine) in this "
                   f"repository's project {placed['project']}, by its {why}")
    if placed["unplaced"]:
        # the folders with the most items first; the rest counted, never dropped unsaid
        ranked = sorted(placed["unplaced"].items(), key=lambda kv: (-kv[1], kv[0]))
        listed = ", ".join(f"{f} ({n})" for f, n in ranked[:5])
        if len(ranked) > 5:
            listed += (f" and {len(ranked) - 5} more folders "
                       f"({sum(n for _f, n in ranked[5:])} items; --json lists them all)")
        click.echo(f"note: could not place items recorded in folders missing on this "
                   f"machine: {listed}; 'dream collect --project NAME PATH...' places them, "
                   "'dream projects move' moves them later")


@click.group()
def history() -> None:
    """Search and page through collected sessions (redacted text only)."""


@history.command("search")
@click.argument("query")
@click.option("--page", type=int, default=1, show_default=True, help="Page of results.")
@click.option("--project", "this_project", is_flag=True,
              help="Only items of the current repository's project.")
@json_option
def history_search(query: str, page: int, this_project: bool, as_json: bool) -> None:
    """Full-text search over collected items, each hit labelled with its session."""
    app = get_app()
    app.home.require()
    key = app.project().key if this_project else None
    result = history_mod.search(app.db, query, page=page, project_key=key)
    if as_json:
        emit_json(result)
        return
    if not result["total"]:
        click.echo(f"no matches for {echo_query(query)}")
        return
    click.echo(f"{result['total']} matches for {echo_query(query)}; page {page} of {result['pages']}")
    current = None
    for hit in result["hits"]:
        if hit["stream"] != current:
            current = hit["stream"]
            click.echo(f"\n== {current} ({hit['source']})")
        when = (hit["said_at"] or "")[:16].replace("T", " ")
        who = hit["author"] or hit["role"]
        snippet = " ".join(strip_control(hit["snippet"]).split())
        click.echo(f"  {when} {strip_control(str(who))} [{hit['kind']}] {snippet}")
        click.echo(f"      {hit['ref']}")
    if page < result["pages"]:
        click.echo("\n" + next_page("dream history search", query, page + 1,
                                     *(["--project"] if this_project else [])))


@history.command("show")
@click.argument("session")
@click.option("--page", type=int, default=1, show_default=True, help="Page of the session.")
@json_option
def history_show(session: str, page: int, as_json: bool) -> None:
    """Page through one session (or thread or channel) in the order it was said."""
    app = get_app()
    app.home.require()
    result = history_mod.show(app.db, session, page=page)
    if as_json:
        emit_json(result)
        return
    click.echo(f"{result['stream']}: {result['total']} items; page {page} of {result['pages']}")
    for item in result["items"]:
        when = (item["said_at"] or "")[:19].replace("T", " ")
        who = item["author"] or item["role"]
        tool = f" {strip_control(item['tool_name'])}" if item["tool_name"] else ""
        click.echo(f"\n#{item['n']} {when} {strip_control(str(who))} [{item['kind']}{tool}]")
        # a transcript's text as said, but no terminal escape: a tool result holding an
        # OSC sequence set the terminal's title or wrote its clipboard when shown here
        text = strip_control(item["text"])
        click.echo(text if len(text) <= 2000 else text[:2000] + " …")
    if page < result["pages"]:
        click.echo("\n" + next_page("dream history show", str(result["stream"]), page + 1,
                                     limit=300))
