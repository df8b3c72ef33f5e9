"""Helpers shared by command modules: the App from the click context, JSON output."""

from __future__ import annotations

import json
import sys
from typing import Any

import click

from dream.app import App


def get_app(ctx: click.Context | None = None) -> App:
    ctx = ctx or click.get_current_context()
    root = ctx.find_root()
    if root.obj is None:
        root.obj = App.from_env()
        root.call_on_close(root.obj.close)
    return root.obj


def to_json(obj: Any) -> str:
    return json.dumps(obj, indent=2, ensure_ascii=False, default=str)


def emit_json(obj: Any) -> None:
    click.echo(to_json(obj))


def is_terminal() -> bool:
    return sys.stderr.isatty()


json_option = click.option("--json", "as_json", is_flag=True, help="Print one JSON document.")
