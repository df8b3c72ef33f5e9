"""dream notes: write, update, show, find, list, crumple."""

from __future__ import annotations

import sys
from pathlib import Path

import click

from dream.cli.common import emit_json, get_app, json_option
from dream.core.notes import notes_context
from dream.errors import BadInput
from dream.terminal import next_page


def register(cli: click.Group) -> None:
    cli.add_command(notes)


def read_text(text: str | None, file: Path | None) -> str:
    if (text is None) == (file is None):
        raise BadInput("give the note text or --file, not both and not neither",
                       "for example: dream notes write @user/tea 'I drink green tea'")
    if file is None:
        return text or ""
    from dream.notes.service import MAX_NOTE_BYTES

    # read at most one byte more than a note may hold: an endless input (/dev/zero, a pipe
    # that never closes) is refused without reading it all
    if str(file) == "-":
        data = sys.stdin.buffer.read(MAX_NOTE_BYTES + 1)
    else:
        try:
            with open(file, "rb") as handle:
                data = handle.read(MAX_NOTE_BYTES + 1)
        except OSError as exc:
            raise BadInput(f"cannot read {file} ({exc.strerror})", "check the path") from exc
    where = "the text on stdin (--file -)" if str(file) == "-" else str(file)
    if len(data) > MAX_NOTE_BYTES:
        raise BadInput(f"{where} is larger than {MAX_NOTE_BYTES:,} bytes",
                       "split it into several notes")
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        # decode()'s fix, 'remove it from the store', is for a file in a store: this one
        # is the user's input
        raise BadInput(f"{where} is not UTF-8 (byte {exc.start})",
                       "convert it first, e.g. iconv -f latin1 -t utf-8") from exc


def _report(change, as_json: bool) -> None:
    if as_json:
        emit_json(change.as_dict())
    elif change.pending:
        click.echo(f"{change.action} {change.address} (in the open dream; committed by "
                   "'dream end')")
    else:
        click.echo(f"{change.action} {change.address} -> {change.commit[:12] if change.commit else 'unchanged'}")


file_option = click.option("--file", "file", type=click.Path(path_type=Path, dir_okay=False,
                           allow_dash=True), default=None,
                           help="Read the note text from a file ('-' for stdin).")


@click.group()
def notes() -> None:
    """Write, read, find and crumple notes (@projects/<name>/..., @sessions/<id>/...,
    @user/...)."""


@notes.command("write")
@click.argument("address")
@click.argument("text", required=False)
@file_option
@click.option("--replace", is_flag=True, help="Overwrite an existing note.")
@click.option("--project", "project_key", default=None,
              help="Project (key or name) a new @sessions/ note is recorded for (default: "
                   "the current one); refused where it would change nothing: a @user/ "
                   "note, another project's @projects/ note, a session note recorded "
                   "for another project.")
@json_option
def notes_write(address: str, text: str | None, file: Path | None, replace: bool,
                project_key: str | None, as_json: bool) -> None:
    """Write a new note (refuses an existing one unless --replace)."""
    ctx = notes_context(get_app())
    _report(ctx.service.write(address, read_text(text, file), replace=replace,
                              project_key=project_key), as_json)


@notes.command("update")
@click.argument("address")
@click.argument("text", required=False)
@file_option
@click.option("--append", is_flag=True, help="Append to the body instead of replacing it.")
@json_option
def notes_update(address: str, text: str | None, file: Path | None, append: bool,
                 as_json: bool) -> None:
    """Replace (or --append to) the body of an existing note."""
    ctx = notes_context(get_app())
    _report(ctx.service.update(address, read_text(text, file), append=append), as_json)


@notes.command("show")
@click.argument("address")
@json_option
def notes_show(address: str, as_json: bool) -> None:
    """Show a note (stamps its access time, except inside a dream)."""
    ctx = notes_context(get_app())
    view = ctx.service.show(address)
    if as_json:
        emit_json(view.as_dict())
    else:
        click.echo(view.content, nl=not view.content.endswith("\n"))


@notes.command("find")
@click.argument("query")
@click.option("--page", default=1, show_default=True, type=int, help="Page number.")
@click.option("--per-page", default=10, show_default=True, type=int, help="Hits per page.")
@click.option("--crumpled", is_flag=True, help="Include crumpled notes.")
@json_option
def notes_find(query: str, page: int, per_page: int, crumpled: bool, as_json: bool) -> None:
    """Search notes in the notes home, one page at a time."""
    ctx = notes_context(get_app())
    result = ctx.service.find(query, page=page, per_page=per_page, crumpled=crumpled)
    if as_json:
        emit_json(result.as_dict())
        return
    for hit in result.hits:
        click.echo(f"{hit['rank']:>3}. {hit['address']}  {hit['title']}")
    if not result.hits:
        click.echo("no notes found")
    if result.has_more:
        options = (["--per-page", str(per_page)] if per_page != 10 else []) + \
            (["--crumpled"] if crumpled else [])
        click.echo(next_page("dream notes find", query, page + 1, *options))


@notes.command("list")
@click.argument("prefix", required=False)
@click.option("--crumpled", is_flag=True, help="List only crumpled notes.")
@click.option("--all", "all_", is_flag=True, help="List live and crumpled notes.")
@json_option
def notes_list(prefix: str | None, crumpled: bool, all_: bool, as_json: bool) -> None:
    """List notes (live ones by default) under an optional address prefix."""
    ctx = notes_context(get_app())
    status = None if all_ else ("crumpled" if crumpled else "live")
    rows = ctx.service.list(prefix, status=status)
    if as_json:
        emit_json(rows)
        return
    for row in rows:
        flag = " (crumpled)" if row["status"] == "crumpled" else ""
        click.echo(f"{row['address']}{flag}  {row['title']}")


@notes.command("crumple")
@click.argument("address")
@json_option
def notes_crumple(address: str, as_json: bool) -> None:
    """Crumple a note: soft-deleted, still visible to a dream, can then be forgotten."""
    from dream.core.notes import crumple

    _report(crumple(get_app(), address), as_json)
