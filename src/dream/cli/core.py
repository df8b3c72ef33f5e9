"""init, status and stores."""

from __future__ import annotations

from pathlib import Path

import click

from dream.cli.common import emit_json, get_app, json_option
from dream.errors import BadInput, DreamError


def register(cli: click.Group) -> None:
    cli.add_command(init)
    cli.add_command(status)
    cli.add_command(stores)
    cli.add_command(doctor)


@click.command()
@click.option("--store", "store_name", default=None,
              help="Mark this attached store (id or name) primary instead of the notes home.")
@click.option("--name", default=None,
              help="Project name used in @projects/<name>/ addresses (letters, digits, "
                   "'.', '-', '_').")
@click.option("--move-notes", is_flag=True,
              help="With --store: move the project's notes from the store that was primary "
                   "into the new one (they stay where they were otherwise).")
@json_option
def init(store_name: str | None, name: str | None, move_notes: bool, as_json: bool) -> None:
    """Make the current repository's project known and mark its Primary Store."""
    from dream.core import projects

    done = projects.init(get_app(), store_name, name, move_notes)
    if as_json:
        emit_json(done.as_dict())
        return
    if not done.in_git:
        click.echo(f"note: {done.root} is not in a git repository; "
                   "the project key is derived from the folder itself.")
    click.echo(f"project {done.name} ({done.key}) -> primary store "
               f"'{done.store['name']}' at {done.store['path']}")
    if done.lost_from:
        click.echo(f"note: a note address holds ASCII letters only, so the name leaves out "
                   f"those of '{done.lost_from}'; 'dream init --name NAME' gives the project "
                   "a name of your own")
    earlier = done.notes
    count = f"{earlier['files']} file{'s' if earlier['files'] != 1 else ''}" if earlier else ""
    if earlier and earlier["moved"]:
        click.echo(f"moved {count} of {earlier['path']}/ from store "
                   f"'{earlier['store']}' to projects/{done.name}/ here (one commit in each)")
    elif earlier:
        click.echo(f"note: store '{earlier['store']}' keeps {count} of this project "
                   f"({earlier['path']}/), no longer read for it; 'dream init --store "
                   f"{done.store['name']} --move-notes' moves them here")


@click.command()
@json_option
def status(as_json: bool) -> None:
    """Show the current project, its Primary Store and any dream lock."""
    from dream.core import projects

    result = projects.status(get_app())
    if as_json:
        emit_json(result)
        return
    store, lock = result["store"], result["lock"]
    click.echo(f"home:    {result['home']}")
    click.echo(f"project: {result['project_key']}" + ("" if result["in_git"]
                                                     else " (folder, not git)"))
    if store is None:
        click.echo("store:   not managed (run 'dream init' here)")
    else:
        click.echo(f"store:   {store['name']} ({store['scope']}) {store['path']}")
    click.echo(f"lock:    {lock['path'] + ' (' + lock['state'] + ')' if lock else 'none'}")
    if result.get("problem"):
        click.echo(f"problem: {result['problem']}; run 'dream doctor'")
        raise SystemExit(1)


@click.command()
@json_option
def doctor(as_json: bool) -> None:
    """Check every store, the database, the search index, locks and runs; say how to fix
    each problem found (changes nothing)."""
    from dream.core.doctor import diagnose

    checks = diagnose(get_app())
    failed = [c for c in checks if c.status == "fail"]
    if as_json:
        emit_json({"ok": not failed, "checks": [c.as_dict() for c in checks]})
    else:
        for c in checks:
            click.echo(f"{c.status:<5} {c.name:<11} {c.target}: {c.message}"
                       + (f"\n      fix: {c.fix}" if c.fix and c.status != "ok" else ""))
        click.echo("all good" if not failed else f"{len(failed)} problem(s) to fix")
    if failed:
        raise SystemExit(1)


@click.group()
def stores() -> None:
    """Attach and list stores."""


@stores.command("list")
@json_option
def stores_list(as_json: bool) -> None:
    """List every store this home knows, with the projects each manages."""
    app = get_app()
    app.home.require()
    rows = []
    for store in app.stores.all():
        rows.append({**store.describe(), "remote": store.remote, "projects": store.projects})
    if as_json:
        emit_json(rows)
        return
    for row in rows:
        click.echo(f"{row['name']:<16} {row['scope']:<8} {row['id'][:12]}  {row['path']}")
        for key, entry in row["projects"].items():
            flag = " (primary)" if entry.get("primary") else ""
            click.echo(f"    {entry.get('name')} [{key}]{flag}")


@stores.command("attach")
@click.argument("path", type=click.Path(file_okay=False))
@click.option("--name", default=None, help="Store name (default: the folder name).")
@click.option("--scope", type=click.Choice(["user", "project", "shared"]), default="shared",
              show_default=True)
@click.option("--remote", default=None, help="A team git remote the store is shared through.")
@click.option("--create", is_flag=True,
              help="Make a new store when PATH does not exist or is no git repository.")
@json_option
def stores_attach(path: str, name: str | None, scope: str, remote: str | None,
                  create: bool, as_json: bool) -> None:
    """Attach a git repository as a further store (made a store if it is not one).

    A missing PATH, or a folder that is no git repository, is refused unless --create, so
    a typo never makes a repository."""
    if not path.strip():
        # Path("") is "." : an empty argument (an unset shell variable in 'dream stores
        # attach "$TEAM"') attached whatever repository the command ran in
        raise BadInput("an empty path names no store",
                       "give the path of a git repository, such as ~/team-notes")
    folder = Path(path)
    app = get_app()
    app.ensure_home()
    if folder.exists() and not folder.is_dir():
        raise DreamError(f"{folder} is not a folder", "give the path of a git repository")
    store = app.stores.attach(folder, name, scope, remote, create=create)
    if as_json:
        emit_json(store.describe())
    else:
        click.echo(f"attached store '{store.name}' ({store.scope}) at {store.path}")


@stores.command("detach")
@click.argument("store_id", metavar="STORE")
@click.option("--force", is_flag=True,
              help="Detach even a store that is some project's Primary Store.")
@json_option
def stores_detach(store_id: str, force: bool, as_json: bool) -> None:
    """Forget an attached store (id or name); its repository and files stay untouched."""
    app = get_app()
    app.home.require()
    store = app.stores.detach(store_id, force=force)
    if as_json:
        emit_json({**store.describe(), "detached": True})
    else:
        click.echo(f"detached store '{store.name}'; its repository at {store.path} is untouched")
