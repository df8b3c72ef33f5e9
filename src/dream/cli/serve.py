"""dream serve: the local review web page."""

from __future__ import annotations

import signal

import click

from dream.cli.common import get_app


def register(cli: click.Group) -> None:
    cli.add_command(serve)


@click.command()
@click.option("--host", default="127.0.0.1", show_default=True,
              help="Address to bind. Anything but a loopback address needs --token.")
@click.option("--port", default=8765, show_default=True, type=click.IntRange(0, 65535),
              help="Port to listen on (0 picks a free one).")
@click.option("--token", default=None, envvar="DREAM_SERVE_TOKEN",
              help="Require this secret on every request (bearer header, cookie or "
                   "?token=); 'auto' makes one up. Also read from DREAM_SERVE_TOKEN.")
def serve(host: str, port: int, token: str | None) -> None:
    """Serve the review web page: runs with cost, tokens, duration and plots of cost and
    memory growth; each run's changes. Localhost only by default; Ctrl-C stops it."""
    from dream.review.web import ReviewServer

    app = get_app()
    app.home.require()
    server = ReviewServer(app, host, port, token)
    click.echo(f"Dream review page: {server.login_url}  (Ctrl-C stops it)")
    # SIGTERM (kill, systemd, a container's stop) stops it as cleanly as Ctrl-C. SIGINT is
    # left as inherited: a shell starts background jobs with it ignored, on purpose.
    signal.signal(signal.SIGTERM, _stop)
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        click.echo("stopped.")
    finally:
        server.close()


def _stop(_signum: int, _frame: object) -> None:
    raise KeyboardInterrupt
