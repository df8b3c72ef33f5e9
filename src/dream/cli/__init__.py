"""The ``dream`` command line. Each command group lives in its own module and registers
itself on the main group; errors are translated here, once."""

from __future__ import annotations

import importlib
import os
import sys

import click

from dream import __version__
from dream.errors import DreamError

# Each module defines ``register(group)``. Add new command modules here.
COMMAND_MODULES = [
    "dream.cli.core",
    "dream.cli.run",
    "dream.cli.integrations",
    "dream.cli.mcp",
    "dream.cli.notes",
    "dream.cli.memory",
    "dream.cli.serve",
    "dream.cli.collect",
    "dream.cli.review",
]


class DreamGroup(click.Group):
    def invoke(self, ctx: click.Context):  # type: ignore[override]
        try:
            return super().invoke(ctx)
        except DreamError as exc:
            click.echo(f"error: {exc.one_line()}", err=True)
            ctx.exit(exc.exit_code if exc.exit_code else 1)
        except KeyboardInterrupt:
            click.echo("error: interrupted. Nothing half-written was kept; rerun the command.",
                       err=True)
            ctx.exit(130)
        except (click.exceptions.Exit, click.ClickException, click.Abort):
            raise
        except BrokenPipeError:
            # the reader went away (`dream ... | head`): stop quietly, as Unix tools do
            devnull = os.open(os.devnull, os.O_WRONLY)
            os.dup2(devnull, sys.stdout.fileno())
            ctx.exit(141)
        except Exception as exc:  # no tracebacks for users
            if os.environ.get("DREAM_DEBUG"):
                raise
            click.echo(
                f"error: internal error ({type(exc).__name__}: {exc}). "
                "Rerun with DREAM_DEBUG=1 for a traceback and report it.",
                err=True,
            )
            ctx.exit(70)


@click.group(cls=DreamGroup, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="dream")
def cli() -> None:
    """Dream: durable, reviewed, git-versioned memory for AI agents.

    State lives in DREAM_HOME (default ~/.dream). Start with 'dream init' in a repository.
    """


for _name in COMMAND_MODULES:
    importlib.import_module(_name).register(cli)


def main() -> None:
    cli(prog_name="dream")


if __name__ == "__main__":  # pragma: no cover
    main()
    sys.exit(0)
