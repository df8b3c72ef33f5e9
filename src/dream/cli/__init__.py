"""The ``dream`` command line. Each command group lives in its own module and registers
itself on the main group; errors are translated here, once.

Start-up: a command imports only its own module. ``COMMANDS`` names the module of every
top-level command, so ``dream --version`` imports nothing but click and ``dream status``
never loads the pipeline or the pydantic models (pinned by tests/test_startup.py).
"""

from __future__ import annotations

import importlib
import os
import signal
import sys

import click

from dream import __version__
from dream.errors import DreamError

# Each module defines ``register(group)``; every top-level command names its module here.
COMMANDS = {
    "init": "dream.cli.core", "status": "dream.cli.core", "stores": "dream.cli.core",
    "doctor": "dream.cli.core",
    "run": "dream.cli.run", "runs": "dream.cli.run", "correct": "dream.cli.run",
    "demo": "dream.cli.run",
    "install": "dream.cli.integrations", "uninstall": "dream.cli.integrations",
    "hook": "dream.cli.integrations", "automations": "dream.cli.integrations",
    "brief": "dream.cli.integrations",
    "mcp": "dream.cli.mcp",
    "notes": "dream.cli.notes",
    "search": "dream.cli.memory", "show": "dream.cli.memory", "context": "dream.cli.memory",
    "reindex": "dream.cli.memory", "begin": "dream.cli.memory", "forget": "dream.cli.memory",
    "end": "dream.cli.memory", "revert": "dream.cli.memory",
    "serve": "dream.cli.serve",
    "collect": "dream.cli.collect", "history": "dream.cli.collect",
    "projects": "dream.cli.projects",
    "review": "dream.cli.review", "prepare": "dream.cli.review",
    "scrub": "dream.cli.scrub",
    "questions": "dream.cli.questions",
}
COMMAND_MODULES = sorted(set(COMMANDS.values()))


class DreamGroup(click.Group):
    """The main group: loads a command's module when the command is asked for."""

    def __init__(self, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self._loaded: set[str] = set()

    def _load(self, module: str) -> None:
        if module not in self._loaded:
            self._loaded.add(module)
            importlib.import_module(module).register(self)

    def list_commands(self, ctx: click.Context) -> list[str]:
        for module in COMMAND_MODULES:     # help lists everything: load everything
            self._load(module)
        return sorted(self.commands)

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        if cmd_name not in self.commands and cmd_name in COMMANDS:
            self._load(COMMANDS[cmd_name])
        if cmd_name not in self.commands:
            # a command its module registers but COMMANDS does not name still runs (only
            # slower); tests/test_startup.py asks for it to be named
            for module in COMMAND_MODULES:
                self._load(module)
        return self.commands.get(cmd_name)

    def main(self, *args, standalone_mode: bool = True, **kwargs):  # type: ignore[override]
        """Click's own errors (usage included) as one line with the help hint on it."""
        if not standalone_mode:
            return super().main(*args, standalone_mode=False, **kwargs)
        # SIGTERM (kill, timeout, cron or systemd stopping a job) unwinds like Ctrl-C: the
        # dream locks a run holds are released and the run is marked failed, instead of
        # stale locks and a run left 'running' (a command may set its own, as serve does)
        try:
            before = signal.signal(signal.SIGTERM, _terminated)
        except ValueError:          # not the main thread (an embedding program's worker)
            before = None
        try:
            code = super().main(*args, standalone_mode=False, **kwargs)
        except _NO_ARGS_IS_HELP as exc:   # a bare group ('dream stores'): its help
            click.echo(exc.ctx.get_help() if exc.ctx else exc.format_message())
            sys.exit(0)
        except click.UsageError as exc:
            where = exc.ctx.command_path if exc.ctx else "dream"
            click.echo(f"error: {_one_line(exc.format_message())}. "
                       f"Try '{where} --help'.", err=True)
            sys.exit(exc.exit_code)
        except click.ClickException as exc:
            click.echo(f"error: {_one_line(exc.format_message())}.", err=True)
            sys.exit(exc.exit_code)
        except click.Abort:
            click.echo("error: aborted; nothing was changed.", err=True)
            sys.exit(1)
        finally:
            if before is not None and signal.getsignal(signal.SIGTERM) is _terminated:
                signal.signal(signal.SIGTERM, before)     # an embedding program's own
        sys.exit(code if isinstance(code, int) else 0)


    def invoke(self, ctx: click.Context):  # type: ignore[override]
        try:
            return super().invoke(ctx)
        except DreamError as exc:
            click.echo(f"error: {exc.one_line()}", err=True)
            ctx.exit(exc.exit_code if exc.exit_code else 1)
        except KeyboardInterrupt as exc:
            how = "stopped (SIGTERM)" if isinstance(exc, Terminated) else "interrupted"
            click.echo(f"error: {how}. Nothing half-written was kept; rerun the command.",
                       err=True)
            ctx.exit(143 if isinstance(exc, Terminated) else 130)
        except (click.exceptions.Exit, click.ClickException, click.Abort):
            raise
        except BrokenPipeError:
            # the reader went away (`dream ... | head`): stop quietly, as Unix tools do
            devnull = os.open(os.devnull, os.O_WRONLY)
            os.dup2(devnull, sys.stdout.fileno())
            ctx.exit(141)
        except PermissionError as exc:
            if os.environ.get("DREAM_DEBUG"):
                raise
            # a file or folder another user owns (a 'sudo dream ...' once), or a mode
            where = exc.filename2 or exc.filename or "a file Dream needs"
            click.echo(f"error: permission denied on {where}. let this user read and write "
                       "it (see 'ls -l', then chown or chmod) and rerun.", err=True)
            ctx.exit(1)
        except OSError as exc:
            if os.environ.get("DREAM_DEBUG") or not exc.filename:
                raise
            # a path the system refuses: too long, a folder where a file belongs, ...
            where = str(exc.filename)
            where = where if len(where) <= 80 else where[:60] + "..." + where[-17:]
            click.echo(f"error: {where}: {(exc.strerror or 'cannot be used').lower()}. check "
                       "the path and rerun.", err=True)
            ctx.exit(1)
        except UnicodeEncodeError as exc:
            if os.environ.get("DREAM_DEBUG") or "surrogates" not in str(exc):
                raise
            # Python keeps a byte of the command line that is not UTF-8 as a lone surrogate
            given = next((a for a in sys.argv[1:] if _not_utf8(a)), None)
            if given is None:
                raise
            shown = given.encode("utf-8", "surrogateescape").decode("utf-8", "backslashreplace")
            click.echo(f"error: '{shown[:80]}' on the command line is not UTF-8 text (the "
                       "terminal sends another encoding). set a UTF-8 locale (export "
                       "LANG=C.UTF-8) or convert the text, and rerun.", err=True)
            ctx.exit(1)
        except Exception as exc:  # no tracebacks for users
            if os.environ.get("DREAM_DEBUG"):
                raise
            if type(exc).__name__ == "DatabaseError" and (
                    "not a database" in str(exc) or "malformed" in str(exc)):
                from dream.home import Home

                where = Home.from_env().db_path
                click.echo(f"error: the database {where} is damaged ({exc}). it is derived "
                           f"from your stores and transcripts: move it aside (mv \"{where}\" "
                           f"\"{where}.damaged\"), run 'dream reindex', then collect again.",
                           err=True)
                ctx.exit(1)
            if type(exc).__name__ == "OperationalError" and "readonly" in str(exc):
                # sqlite3 is not imported here: 'dream --version' stays light
                from dream.home import Home

                click.echo(f"error: the database {Home.from_env().db_path} cannot be written "
                           f"({exc}). let this user write it and its folder (see 'ls -l', "
                           "then chown or chmod), or move DREAM_HOME off a read-only disk.",
                           err=True)
                ctx.exit(1)
            click.echo(
                f"error: internal error ({type(exc).__name__}: {exc}). "
                "Rerun with DREAM_DEBUG=1 for a traceback and report it.",
                err=True,
            )
            ctx.exit(70)


# click 8.2+ raises this for a group called bare; 8.1 prints the help itself
_NO_ARGS_IS_HELP = getattr(click.exceptions, "NoArgsIsHelpError", ())


class Terminated(KeyboardInterrupt):
    """SIGTERM, raised where the process is, so every cleanup Ctrl-C gets runs."""


def _terminated(_signum: int, _frame: object) -> None:
    raise Terminated


def _not_utf8(arg: str) -> bool:
    try:
        arg.encode("utf-8")
    except UnicodeEncodeError:
        return True
    return False


def _one_line(text: str) -> str:
    return " ".join(text.split()).rstrip(".")


@click.group(cls=DreamGroup, context_settings={"help_option_names": ["-h", "--help"]},
             invoke_without_command=True, no_args_is_help=False)
@click.version_option(__version__, prog_name="dream")
@click.pass_context
def cli(ctx: click.Context) -> None:
    """Dream: durable, reviewed, git-versioned memory for AI agents.

    State lives in DREAM_HOME (default ~/.dream). Start with 'dream init' in a repository.
    """
    if ctx.invoked_subcommand is None:      # bare 'dream': the help, and success
        click.echo(ctx.get_help())


def main() -> None:
    cli(prog_name="dream")


if __name__ == "__main__":  # pragma: no cover
    main()
    sys.exit(0)
