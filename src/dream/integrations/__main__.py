"""A light entry point for agent hooks: ``python -m dream.integrations hook [EVENT]
[--agent A] [--json]`` does exactly what ``dream hook`` does without loading every command
module, so a hook that runs on each prompt costs a third of the time."""

from __future__ import annotations

import argparse
import sys


def entry(argv: list[str] | None = None, prog: str = "python -m dream.integrations") -> int:
    parser = argparse.ArgumentParser(prog=prog)
    sub = parser.add_subparsers(dest="command", required=True)
    hook = sub.add_parser("hook", help="same as 'dream hook'")
    hook.add_argument("event", nargs="?")
    # both spellings, as 'dream install' and 'dream collect --source' take them
    hook.add_argument("--agent", choices=("claude-code", "claude_code", "pi", "codex"),
                      default="claude-code")
    hook.add_argument("--brief", choices=("project", "user"), default=None)
    hook.add_argument("--json", action="store_true", dest="as_json")
    args = parser.parse_args(argv)
    from dream.app import App
    from dream.integrations import hook as hook_mod

    text, unread = hook_mod.read_stdin(sys.stdin)
    app = App.from_env()
    try:
        return hook_mod.main(app, text, args.event, args.agent.replace("_", "-"), args.as_json,
                             sys.stdout, sys.stderr, brief=args.brief, unread=unread)
    finally:
        app.close()


if __name__ == "__main__":
    sys.exit(entry())
