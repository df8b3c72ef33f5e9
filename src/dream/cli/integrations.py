"""install, uninstall, hook and automations: where agents meet Dream."""

from __future__ import annotations

import functools
import sys

import click

from dream.cli.common import emit_json, get_app, json_option


def register(cli: click.Group) -> None:
    cli.add_command(install)
    cli.add_command(uninstall)
    cli.add_command(hook)
    cli.add_command(brief)
    cli.add_command(automations)


AGENTS = ("claude-code", "pi", "codex")
# 'dream collect --source' spells kinds with underscores; both spellings work everywhere
AGENT_SPELLINGS = (*AGENTS, "claude_code")


def _agent(_ctx: click.Context, _param: click.Parameter, value: str) -> str:
    return value.replace("_", "-")


# -- install / uninstall -------------------------------------------------------------------
def _scope_flags(user_help: str, project_help: str):
    """--user / --project as two flags passed on as one ``scope`` ('project' unless --user).
    Both at once is refused: with one shared flag value the last one given won, so
    'install codex --project --user' quietly wrote the home config."""
    def add(fn):
        @functools.wraps(fn)
        def wrapper(*args, scope_user: bool, scope_project: bool, **kwargs):
            if scope_user and scope_project:
                raise click.UsageError("--user and --project cannot be used together; "
                                       "give one (--project is the default)")
            return fn(*args, scope="user" if scope_user else "project", **kwargs)
        wrapper = click.option("--user", "scope_user", is_flag=True, help=user_help)(wrapper)
        return click.option("--project", "scope_project", is_flag=True,
                            help=project_help)(wrapper)
    return add


def _scope_options(verb: str):
    """--user / --project / --dry-run, worded for install ('Wire Dream in') or uninstall
    ('Take Dream out')."""
    def add(fn):
        fn = click.option("--dry-run", is_flag=True,
                          help="Print what would change and write nothing.")(fn)
        return _scope_flags(f"{verb} for every project of this user (home config).",
                            f"{verb} for the current repository only (default).")(fn)
    return add


def _print_plan(plan, as_json: bool, dry_run: bool) -> None:
    if as_json:
        emit_json(plan.to_dict())
        return
    verb = "would change" if dry_run else "changed"
    if not plan.changes:
        click.echo(f"nothing to do for {plan.agent} ({plan.scope})")
    for change in plan.changes:
        click.echo(f"{verb}: {change.action:<8} {change.path}  ({change.what})")
    for note in plan.notes:
        click.echo(f"note: {note}")


@click.command()
@click.argument("agent", type=click.Choice(AGENT_SPELLINGS), callback=_agent, metavar="AGENT")
@_scope_options("Wire Dream in")
@json_option
def install(agent: str, scope: str, dry_run: bool, as_json: bool) -> None:
    """Wire Dream into an agent: MCP server, skills, hooks and the brief.

    Claude Code gets the MCP server (.mcp.json or ~/.claude.json), the memory and dream
    skills, and hooks that call 'dream hook' (its SessionStart hook prints the brief). Pi gets
    the skills, an extension (.pi/extensions/dream.ts) that calls 'dream hook' and adds the
    brief to the system prompt, and a marked block in AGENTS.md (Pi has no MCP). Codex gets
    [mcp_servers.dream] in config.toml, hooks in hooks.json, the skills and a marked block
    in AGENTS.md.
    Running it twice changes nothing; 'dream uninstall' restores the files byte for byte.
    """
    from dream.integrations import installer

    app = get_app()
    plan = installer.install(app, agent, scope, dry_run=dry_run)
    _print_plan(plan, as_json, dry_run)


@click.command()
@click.argument("agent", type=click.Choice(AGENT_SPELLINGS), callback=_agent, metavar="AGENT")
@_scope_options("Take Dream out")
@json_option
def uninstall(agent: str, scope: str, dry_run: bool, as_json: bool) -> None:
    """Take Dream out of an agent again, leaving every other setting as it was."""
    from dream.integrations import installer

    app = get_app()
    plan = installer.uninstall(app, agent, scope, dry_run=dry_run)
    _print_plan(plan, as_json, dry_run)


# -- hook --------------------------------------------------------------------------------------
@click.command()
@click.argument("event", required=False)
@click.option("--agent", type=click.Choice(AGENT_SPELLINGS), default="claude-code",
              show_default=True, callback=_agent,
              help="Which agent sends the payload (decides how its transcript is read).")
@click.option("--brief", type=click.Choice(("project", "user")), default=None,
              help="On SessionStart, print this brief for the model's context.")
@json_option
def hook(event: str | None, agent: str, brief: str | None, as_json: bool) -> None:
    """Called by an agent's lifecycle hook with its JSON payload on stdin.

    Reports context use to the automations, collects the session's transcript, and on
    SessionStart/UserPromptSubmit prints the brief (--brief) and pending automation wakes
    as hook JSON the client adds to the model's context. EVENT defaults to the payload's
    hook_event_name. Never fails the agent: problems are a one-line warning on stderr, a
    line in $DREAM_HOME/logs/hook.log and exit status 0.
    """
    from dream.integrations import hook as hook_mod

    app = get_app()
    text, unread = hook_mod.read_stdin(sys.stdin)
    hook_mod.main(app, text, event, agent, as_json, sys.stdout, sys.stderr, brief=brief,
                  unread=unread)


# -- brief ------------------------------------------------------------------------------------
@click.command()
@_scope_flags("The user's brief (for every project) instead of the project's.",
              "The current repository's brief (default).")
@json_option
def brief(scope: str, as_json: bool) -> None:
    """Print the brief an agent reads at session start.

    The project's brief is rendered by the dream run into the project's Primary Store
    (projects/<name>/brief.md); --user prints the user's (notes home, user/brief.md).
    Agents without a hook that prints it (Pi; Codex before its hooks are trusted) are told
    in AGENTS.md to run this. Before the first dream there is none: a one-line note says so.
    """
    from dream.integrations.installer import brief_path, managed

    app = get_app()
    path = brief_path(app, scope)
    text = path.read_text(encoding="utf-8", errors="replace") if path.is_file() else None
    if as_json:
        emit_json({"scope": scope, "path": str(path), "exists": text is not None,
                   "text": text})
    elif text is None and scope == "project" and not managed(app):
        click.echo(f"no brief: {app.project().root} is not a project Dream knows yet "
                   "('dream init' there makes it one; 'dream run' then writes its brief)")
    elif text is None and scope == "user":
        click.echo(f"no brief yet ({path} is written by the first 'dream run' over personal "
                   "messages that finds a plan, to-do or fact of yours: collect mail or chat "
                   "exports with 'dream collect PATH', then run; in them your own messages "
                   "are those of the senders [collect] me names in config.toml)")
    elif text is None:
        click.echo(f"no brief yet ({path} is written by the next 'dream run')")
    else:
        click.echo(text.rstrip("\n"))


# -- automations -------------------------------------------------------------------------------
@click.group()
def automations() -> None:
    """List, pause, resume and delete the context automations of agent sessions."""


def _auto_store():
    from dream.automations import Automations

    app = get_app()
    app.home.require()
    return Automations(app.db, app.config)


def _show(rows, as_json: bool) -> None:
    if as_json:
        emit_json([r.to_dict() for r in rows])
        return
    if not rows:
        click.echo("no automations (they appear after an agent hook first reports a session)")
    for r in rows:
        state = r.status + ("" if r.armed or r.status != "active" else ", fired")
        click.echo(f"{r.id}  {r.name:<24} {state:<15} fires={r.fires:<3} "
                   f"{r.agent}:{r.session_id}")


@automations.command("list")
@click.option("--all", "include_deleted", is_flag=True, help="Include deleted automations.")
@click.option("--session", default=None, help="Only this agent session id.")
@json_option
def automations_list(include_deleted: bool, session: str | None, as_json: bool) -> None:
    """List automations with their status and how often each fired."""
    _show(_auto_store().list(include_deleted=include_deleted, session_id=session), as_json)


def _status_command(name: str, status: str, doc: str):
    @automations.command(name)
    @click.argument("automation_id")
    @json_option
    def _cmd(automation_id: str, as_json: bool) -> None:
        auto = _auto_store().set_status(automation_id, status)
        _show([auto], as_json)

    _cmd.__doc__ = doc
    _cmd.help = doc
    return _cmd


_status_command("pause", "paused", "Pause an automation: it records reports but never fires.")
_status_command("resume", "active", "Resume a paused automation.")
_status_command("delete", "deleted",
                "Delete an automation for good; the session's reports never recreate it.")
