"""A light entry point for agent hooks: ``python -m dream.integrations hook [EVENT]
[--agent A] [--json]`` does exactly what ``dream hook`` does without loading every command
module, so a hook that runs on each prompt costs a third of the time."""

from __future__ import annotations

import argparse
import sys


class _OneLine(argparse.ArgumentParser):
    """Usage errors as every other command gives them: one line with the help hint, exit 2
    ('error: argument --brief: invalid choice: ... Try 'dream hook --help'.'), not
    argparse's usage block."""

    def error(self, message: str) -> None:   # type: ignore[override]
        hint = "dream hook --help" if self.prog.startswith("dream") else f"{self.prog} --help"
        self.exit(2, f"error: {message}. Try '{hint}'.\n")


def entry(argv: list[str] | None = None, prog: str = "python -m dream.integrations") -> int:
    parser = _OneLine(prog=prog)
    sub = parser.add_subparsers(dest="command", required=True, parser_class=_OneLine)
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
