"""projects: the project keys collected items carry, and moving items between them."""

from __future__ import annotations

import click

from dream.cli.common import emit_json, get_app, json_option


def register(cli: click.Group) -> None:
    cli.add_command(projects)


@click.group(invoke_without_command=True)
@json_option
@click.pass_context
def projects(ctx: click.Context, as_json: bool) -> None:
    """List known project keys with their names, folders and item counts ('dream projects'
    or 'dream projects list')."""
    if ctx.invoked_subcommand is not None:
        return
    _list(as_json)


@projects.command("list")
@json_option
def projects_list(as_json: bool) -> None:
    """List known project keys with their names, folders and item counts."""
    _list(as_json)


def _list(as_json: bool) -> None:
    from dream.core.projects import list_projects

    rows = list_projects(get_app())
    if as_json:
        emit_json([r.as_dict() for r in rows])
        return
    if not rows:
        click.echo("no projects yet: 'dream init' in a repository, then 'dream collect'")
        return
    # columns as wide as their longest entry: a key of a long folder name
    # ('test-explain-checkpoint-boundaries-972ec4a4') pushed its row's counts out of line
    name_w = max(20, *(len(x.project.name or "-") for x in rows))
    key_w = max(32, *(len(x.project.key) for x in rows))
    for listed in rows:
        r = listed.project
        mark = "*" if listed.here else " "
        managed = f"store {', '.join(r.stores)}" if r.stores else "no store ('dream init')"
        click.echo(f"{mark} {r.name or '-':<{name_w}} {r.key:<{key_w}} {r.items:>6} items "
                   f"({r.pending} to run)  {managed}")
        for folder in r.folders:
            click.echo(f"      {folder}")


@projects.command("move")
@click.argument("from_project", metavar="FROM")
@click.argument("to_project", metavar="TO")
@json_option
def projects_move(from_project: str, to_project: str, as_json: bool) -> None:
    """Move every collected item of project FROM to project TO (names or keys); nothing is
    wiped, and a later run or review in TO sees them."""
    from dream.core.projects import move_items

    done = move_items(get_app(), from_project, to_project)
    if as_json:
        emit_json(done.as_dict())
        return
    click.echo(f"moved {done.moved} items from {done.from_key} to {done.to_key}")
