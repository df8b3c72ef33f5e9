"""``dream`` and ``python -m dream``.

``dream hook ...`` and ``dream mcp`` are what agents run: a hook before every prompt, the
MCP server at every session start (Codex waits for it). Both go straight to their own
modules without loading every other command; anything else, and ``--help``, goes through
the full command line.
"""

from __future__ import annotations

import sys


def main() -> None:
    argv = sys.argv[1:]
    asks_help = any(a in ("-h", "--help") for a in argv)
    if argv[:1] == ["hook"] and not asks_help:
        from dream.integrations.__main__ import entry

        sys.exit(entry(argv, prog="dream"))
    if argv == ["mcp"]:
        sys.exit(serve_mcp())
    from dream.cli import main as cli_main

    cli_main()


def serve_mcp() -> int:
    """``dream mcp`` without the command line: the same server, the same one-line errors."""
    from dream.app import App
    from dream.errors import DreamError

    try:
        app = App.from_env()
        try:
            from dream import mcp_server

            mcp_server.serve(app)
        finally:
            app.close()
    except DreamError as exc:
        sys.stderr.write(f"error: {exc.one_line()}\n")
        return exc.exit_code or 1
    except KeyboardInterrupt:
        return 130
    return 0


if __name__ == "__main__":
    main()
