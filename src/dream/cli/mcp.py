"""dream mcp: the MCP server over stdio."""

from __future__ import annotations

import click

from dream.cli.common import emit_json, get_app, json_option


def register(cli: click.Group) -> None:
    cli.add_command(mcp)


@click.command()
@click.option("--list-tools", is_flag=True,
              help="Print the tools (hidden ones marked) and exit instead of serving.")
@json_option
def mcp(list_tools: bool, as_json: bool) -> None:
    """Serve Dream's notes, history, memory, review and dream tools over MCP (stdio).

    MCP clients start it as 'dream mcp' in the project folder. dream_begin, dream_forget
    and dream_end are hidden from the tool list and found with tool_search. A dream opened
    here is released (no final commit) when the client disconnects or the server is killed
    with SIGTERM/SIGINT.
    """
    from dream import mcp_server

    app = get_app()
    if list_tools:
        rows = [{**spec.describe(), "hidden": spec.hidden, "available": spec.available()}
                for spec in mcp_server.TOOLS.values()]
        if as_json:
            emit_json(rows)
            return
        for row in rows:
            flags = ("hidden " if row["hidden"] else "") + \
                    ("" if row["available"] else "unavailable")
            click.echo(f"{row['name']:<18} {flags:<19} {row['description'][:70]}")
        return
    mcp_server.serve(app)
