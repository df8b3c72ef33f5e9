"""init, status and stores."""

from __future__ import annotations

from pathlib import Path

import click

from dream.cli.common import emit_json, get_app, json_option
from dream.errors import DreamError


def register(cli: click.Group) -> None:
    cli.add_command(init)
    cli.add_command(status)
    cli.add_command(stores)


@click.command()
@click.option("--store", "store_name", default=None,
              help="Mark this attached store (id or name) primary instead of the notes home.")
@click.option("--name", default=None, help="Project name used in @projects/<name>/ addresses.")
@json_option
def init(store_name: str | None, name: str | None, as_json: bool) -> None:
    """Make the current repository's project known and mark its Primary Store."""
    app = get_app()
    app.ensure_home()
    project = app.project()
    store = app.stores.by_id(store_name) if store_name else app.stores.notes_home()
    for other in app.stores.all():
        if other.id != store.id and other.is_primary_for(project.key):
            other.projects[project.key]["primary"] = False
            other.save(subject=f"Primary store for {project.key} moved to {store.name}")
    taken = {e.get("name") for k, e in store.projects.items() if k != project.key}
    proj_name = name or store.project_name(project.key) or project.name
    if proj_name in taken:
        proj_name = project.key
    store.add_project(project.key, proj_name, primary=True)
    store.save(subject=f"Manage project {proj_name}")
    result = {
        "project_key": project.key,
        "project_name": proj_name,
        "in_git": project.in_git,
        "root": str(project.root),
        "store": store.describe(),
        "home": str(app.home.root),
    }
    if as_json:
        emit_json(result)
        return
    if not project.in_git:
        click.echo(f"note: {project.root} is not in a git repository; "
                   "the project key is derived from the folder itself.")
    click.echo(f"project {proj_name} ({project.key}) -> primary store "
               f"'{store.name}' at {store.path}")


@click.command()
@json_option
def status(as_json: bool) -> None:
    """Show the current project, its Primary Store and any dream lock."""
    app = get_app()
    app.home.require()
    project = app.project()
    store = app.stores.primary_for(project.key)
    lock = None
    if store is not None:
        name = store.project_name(project.key) or project.name
        lock_path = app.home.notes_path / f".dream.lock.{name}"
        if lock_path.exists():
            lock = {"path": str(lock_path), "held": True,
                    "content": lock_path.read_text(encoding="utf-8", errors="replace").strip()}
    result = {
        "home": str(app.home.root),
        "project_key": project.key,
        "project_name": store.project_name(project.key) if store else None,
        "in_git": project.in_git,
        "store": store.describe() if store else None,
        "managed": store is not None,
        "lock": lock,
    }
    if as_json:
        emit_json(result)
        return
    click.echo(f"home:    {result['home']}")
    click.echo(f"project: {project.key}" + ("" if project.in_git else " (folder, not git)"))
    if store is None:
        click.echo("store:   not managed (run 'dream init' here)")
    else:
        click.echo(f"store:   {store.name} ({store.scope}) {store.path}")
    click.echo(f"lock:    {lock['path'] if lock else 'none'}")


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
@click.argument("path", type=click.Path(file_okay=False, path_type=Path))
@click.option("--name", default=None, help="Store name (default: the folder name).")
@click.option("--scope", type=click.Choice(["user", "project", "shared"]), default="shared",
              show_default=True)
@click.option("--remote", default=None, help="A team git remote the store is shared through.")
@click.option("--create", is_flag=True, help="Make a new store when PATH does not exist.")
@json_option
def stores_attach(path: Path, name: str | None, scope: str, remote: str | None,
                  create: bool, as_json: bool) -> None:
    """Attach a git repository as a further store (made a store if it is not one).

    A missing PATH is refused unless --create, so a typo never makes a repository."""
    app = get_app()
    app.ensure_home()
    if path.exists() and not path.is_dir():
        raise DreamError(f"{path} is not a folder", "give the path of a git repository")
    store = app.stores.attach(path, name, scope, remote, create=create)
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
