"""``dream mcp``: Dream's tools for any MCP client, over stdio.

The transport is Dream's own: newline-delimited JSON-RPC 2.0 on stdin/stdout, answering
``initialize``, ``ping``, ``tools/list``, ``tools/call`` (and empty resource and prompt
lists); notifications need no answer. The ``mcp`` SDK is not imported: importing it takes
about a second, and Codex does not wait for a server that slow. Tests talk to this server
with the SDK's own client.

Tools (each with a JSON schema and read-only / destructive / idempotent annotations):

- notes: ``notes_write``, ``notes_update``, ``notes_show``, ``notes_find`` (paged),
  ``notes_list``, ``notes_crumple``;
- history: ``history_search``, ``history_show`` (paged);
- memory: ``memory_search`` (the Primary Store), ``memory_read`` (a document at a commit),
  ``memory_context`` (a bounded snapshot);
- review: ``review_prepare`` (three learned lines and a handoff), ``review_proposals``;
- questions: ``questions_list`` (open questions), ``questions_answer`` (one commit);
- dreams: ``dream_begin``, ``dream_forget``, ``dream_end`` are *hidden*: they are left out
  of ``tools/list`` and found with ``tool_search`` (a query returns matching tools with
  their schemas); a tool found that way is callable.

A tool whose backing module is not installed is not listed; calling it returns a tool
error saying so. Every error is an MCP tool error (``isError``) whose text is one sentence
saying what went wrong and what to do. A dream opened here is released (lock dropped,
no final commit) when the server shuts down: stdin EOF, SIGTERM, SIGINT or exit.
"""

from __future__ import annotations

import importlib
import importlib.util
import json
import os
import re
import signal
import sys
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from dream import __version__
from dream.app import App
from dream.errors import BadInput, DreamError
from dream.jsontext import loads

INSTRUCTIONS = (
    "Dream is durable, reviewed, git-versioned memory. Notes live at addresses "
    "@projects/<name>/<path>, @sessions/<id>/<path> and @user/<path>. Find before you "
    "write; crumple what is wrong instead of overwriting it. Dream tools (dream_begin, "
    "dream_forget, dream_end) are hidden: find them with tool_search('dream'). The "
    "'memory' and 'dream' skills explain the workflow."
)


@dataclass
class ToolSpec:
    name: str
    description: str
    schema: dict[str, Any]
    handler: Callable[[DreamTools, dict[str, Any]], Any]
    read_only: bool = False
    destructive: bool = False
    idempotent: bool = False
    hidden: bool = False
    requires: tuple[str, ...] = ()      # modules that must exist for the tool to work
    title: str | None = None

    def available(self) -> bool:
        return all(importlib.util.find_spec(m) is not None for m in self.requires)

    def describe(self) -> dict[str, Any]:
        return {"name": self.name, "description": self.description,
                "inputSchema": self.schema,
                "annotations": {"readOnlyHint": self.read_only,
                                "destructiveHint": self.destructive,
                                "idempotentHint": self.idempotent}}


def _obj(props: dict[str, Any], required: tuple[str, ...] = ()) -> dict[str, Any]:
    return {"type": "object", "properties": props, "required": list(required),
            "additionalProperties": False}


ADDRESS = {"type": "string", "description":
           "Note address: @projects/<name>/<path>, @sessions/<id>/<path> or @user/<path>."}
PAGE = {"type": "integer", "minimum": 1, "maximum": 1_000_000, "default": 1,
        "description": "Page number, from 1."}
PER_PAGE = {"type": "integer", "minimum": 1, "maximum": 100, "default": 10,
            "description": "Results per page."}


def _check_args(spec: ToolSpec, args: dict[str, Any]) -> dict[str, Any]:
    """Validate arguments against the tool's schema (types, required, unknown names)."""
    props = spec.schema.get("properties", {})
    unknown = sorted(set(args) - set(props))
    if unknown:
        raise BadInput(f"{spec.name} has no argument {', '.join(unknown)}",
                       f"its arguments are: {', '.join(props) or 'none'}")
    for name in spec.schema.get("required", []):
        if args.get(name) in (None, ""):
            raise BadInput(f"{spec.name} needs the argument '{name}'",
                           props[name].get("description", "see the tool's schema"))
    types = {"string": str, "integer": int, "boolean": bool, "array": list, "object": dict}
    out = {}
    for name, value in args.items():
        want = props[name].get("type")
        if value is None:
            continue
        ok = isinstance(value, types.get(want, object))
        if want == "integer" and isinstance(value, bool):
            ok = False
        if not ok:
            article = "an" if str(want)[:1] in "aeiou" else "a"
            raise BadInput(f"argument '{name}' of {spec.name} must be {article} {want}",
                           "fix the value and call the tool again")
        if want == "integer":
            lo, hi = props[name].get("minimum"), props[name].get("maximum")
            if (lo is not None and value < lo) or (hi is not None and value > hi):
                bounds = (f"between {lo} and {hi}" if lo is not None and hi is not None
                          else f"at least {lo}" if lo is not None else f"at most {hi}")
                raise BadInput(f"argument '{name}' of {spec.name} must be {bounds}",
                               "fix the value")
        if "enum" in props[name] and value not in props[name]["enum"]:
            raise BadInput(f"argument '{name}' must be one of {props[name]['enum']}",
                           "fix the value")
        out[name] = value
    return out


@dataclass
class DreamTools:
    """The tools' state: one App, the current project, and a dream opened here."""

    app: App
    dream: Any = None                       # dream.notes.dreaming.DreamSession
    owner: str = field(default_factory=lambda: f"mcp-{os.getpid()}")

    # -- context ----------------------------------------------------------------------------
    def service(self):
        from dream.core.notes import notes_context

        return notes_context(self.app, owner=self.owner, dream=self.dream).service

    def release(self) -> None:
        """Shutdown: drop the dream lock without the final commit."""
        if self.dream is not None:
            try:
                self.dream.release()
            finally:
                self.dream = None

    # -- notes --------------------------------------------------------------------------------
    def notes_write(self, a: dict[str, Any]) -> Any:
        return self.service().write(a["address"], a["text"], replace=a.get("replace", False)
                                    ).as_dict()

    def notes_update(self, a: dict[str, Any]) -> Any:
        return self.service().update(a["address"], a["text"], append=a.get("append", False)
                                     ).as_dict()

    def notes_show(self, a: dict[str, Any]) -> Any:
        view = self.service().show(a["address"]).as_dict()
        view.pop("content", None)                 # body + meta carry it; keep answers small
        return view

    def notes_find(self, a: dict[str, Any]) -> Any:
        return self.service().find(a["query"], page=a.get("page", 1),
                                   per_page=a.get("per_page", 10),
                                   crumpled=a.get("crumpled", False)).as_dict()

    def notes_list(self, a: dict[str, Any]) -> Any:
        status = a.get("status", "live")
        notes = self.service().list(a.get("prefix"), None if status == "all" else status)
        page, per = a.get("page", 1), a.get("per_page", 50)
        chunk = notes[(page - 1) * per: page * per]
        return {"notes": chunk, "page": page, "per_page": per, "total": len(notes),
                "has_more": page * per < len(notes)}

    def notes_crumple(self, a: dict[str, Any]) -> Any:
        return self.service().crumple(a["address"]).as_dict()

    # -- dreams -------------------------------------------------------------------------------
    def dream_begin(self, a: dict[str, Any]) -> Any:
        from dream.core.notes import begin

        if self.dream is not None:
            raise DreamError(f"a dream over '{self.dream.project_name}' is already open here",
                             "one session dreams over one project at a time; call dream_end")
        self.dream = begin(self.app, a.get("project") or None, self.owner,
                           session_id=a.get("session_id"))
        return {"run_id": self.dream.run_id, "project": self.dream.project_name,
                "project_key": self.dream.project_key,
                "baseline": self.dream.baseline, "lock": str(self.dream.lock),
                "notes": self.dream.notes()}

    def _open_dream(self):
        if self.dream is None:
            from dream.errors import NoDream

            raise NoDream("no dream is open in this session", "call dream_begin first")
        return self.dream

    def dream_forget(self, a: dict[str, Any]) -> Any:
        path = self._open_dream().forget(a["address"])
        return {"forgotten": "@" + path, "pending": True,
                "note": "deleted from the work tree; dream_end commits it"}

    def dream_end(self, a: dict[str, Any]) -> Any:
        from dream.core.notes import end as end_dream

        dream = self._open_dream()
        sha = end_dream(self.app, dream)
        self.dream = None
        return {"run_id": dream.run_id, "commit": sha, "project": dream.project_name,
                "released": True}

    # -- tool search ----------------------------------------------------------------------------
    def tool_search(self, a: dict[str, Any]) -> Any:
        words = [w for w in str(a["query"]).lower().replace("_", " ").split() if w]
        found = []
        for spec in TOOLS.values():
            if spec.name == "tool_search" or not spec.available():
                continue
            hay = f"{spec.name.replace('_', ' ')} {spec.description}".lower()
            if all(w in hay for w in words):
                found.append({**spec.describe(), "hidden": spec.hidden})
        found.sort(key=lambda t: (not t["hidden"], t["name"]))
        return {"query": a["query"], "tools": found[: a.get("limit", 10)]}


# -- adapters to modules other parts of Dream provide ----------------------------------------
def _call(module: str, names: tuple[str, ...], *args: Any, **kwargs: Any) -> Any:
    mod = importlib.import_module(module)
    for name in names:
        fn = getattr(mod, name, None)
        if callable(fn):
            return fn(*args, **kwargs)
    raise DreamError(f"{module} has none of {', '.join(names)}",
                     "this Dream install is incomplete; update it")


def _plain(value: Any) -> Any:
    if hasattr(value, "as_dict"):
        return value.as_dict()
    if hasattr(value, "to_dict"):
        return value.to_dict()
    if hasattr(value, "__dataclass_fields__"):
        from dataclasses import asdict

        return asdict(value)
    if isinstance(value, (list, tuple)):
        return [_plain(v) for v in value]
    return value


TOOLS: dict[str, ToolSpec] = {}


def tool(spec: ToolSpec) -> None:
    TOOLS[spec.name] = spec


tool(ToolSpec(
    "notes_write", "Create a note at an address (refused if one exists unless replace=true). "
    "Text may start with YAML front matter. Inside a dream the write stays pending until "
    "dream_end.",
    _obj({"address": ADDRESS, "text": {"type": "string", "description": "Markdown text."},
          "replace": {"type": "boolean", "default": False,
                      "description": "Overwrite an existing note."}}, ("address", "text")),
    DreamTools.notes_write, destructive=True, requires=("dream.notes.service",)))
tool(ToolSpec(
    "notes_update", "Replace (or append to) the body of an existing note, keeping its front "
    "matter.",
    _obj({"address": ADDRESS, "text": {"type": "string", "description": "New body text."},
          "append": {"type": "boolean", "default": False,
                     "description": "Append instead of replacing."}}, ("address", "text")),
    DreamTools.notes_update, destructive=True, requires=("dream.notes.service",)))
tool(ToolSpec(
    "notes_show", "Read one note: front matter, body, status (live or crumpled), sha256 and "
    "the notes home commit it was read at.",
    _obj({"address": ADDRESS}, ("address",)),
    DreamTools.notes_show, read_only=True, idempotent=True, requires=("dream.notes.service",)))
tool(ToolSpec(
    "notes_find", "Search notes by words, one page at a time; returns addresses, titles and "
    "snippets with has_more.",
    _obj({"query": {"type": "string", "description": "Words to search for."},
          "page": PAGE, "per_page": PER_PAGE,
          "crumpled": {"type": "boolean", "default": False,
                       "description": "Include crumpled notes."}}, ("query",)),
    DreamTools.notes_find, read_only=True, idempotent=True, requires=("dream.notes.service",)))
tool(ToolSpec(
    "notes_list", "List notes under an address prefix (e.g. @projects/web or @user), paged.",
    _obj({"prefix": {"type": "string", "description": "Address prefix; empty for all."},
          "status": {"type": "string", "enum": ["live", "crumpled", "all"], "default": "live"},
          "page": PAGE, "per_page": {**PER_PAGE, "default": 50}}),
    DreamTools.notes_list, read_only=True, idempotent=True, requires=("dream.notes.service",)))
tool(ToolSpec(
    "notes_crumple", "Crumple a note: soft-delete it (still visible to a dream, which may "
    "forget it for good). Use this instead of deleting.",
    _obj({"address": ADDRESS}, ("address",)),
    DreamTools.notes_crumple, idempotent=True, requires=("dream.notes.service",)))
tool(ToolSpec(
    "dream_begin", "Dream: open a dream over one project (default: the current one). Takes "
    "the project's dream lock, commits a baseline and lists the project's notes and its "
    "session notes, crumpled ones included. While open, notes_write/notes_update may edit "
    "those notes, reads leave no access stamp, other projects stay read-only.",
    _obj({"project": {"type": "string", "description": "Project name; default current."},
          "session_id": {"type": "string",
                         "description": "This agent session's id, so new @sessions/<id>/ "
                                        "notes are in reach."}}),
    DreamTools.dream_begin, hidden=True, requires=("dream.notes.dreaming",)))
tool(ToolSpec(
    "dream_forget", "Dream: permanently delete one crumpled note within the open dream's "
    "reach (live notes refuse). Committed by dream_end.",
    _obj({"address": ADDRESS}, ("address",)),
    DreamTools.dream_forget, destructive=True, hidden=True,
    requires=("dream.notes.dreaming",)))
tool(ToolSpec(
    "dream_end", "Dream: close the open dream, commit its changes as one git commit and "
    "release the lock.",
    _obj({}), DreamTools.dream_end, hidden=True, requires=("dream.notes.dreaming",)))
tool(ToolSpec(
    "tool_search", "Find tools by words, including hidden ones such as the dream_* tools "
    "(try 'dream'). Returns names, descriptions and input schemas; a tool found here can "
    "be called.",
    _obj({"query": {"type": "string", "description": "Words, e.g. 'dream' or 'forget'."},
          "limit": {"type": "integer", "minimum": 1, "maximum": 50, "default": 10}},
         ("query",)),
    DreamTools.tool_search, read_only=True, idempotent=True))

# history, memory and review tools live in mcp_tools_more to keep this module short
importlib.import_module("dream.mcp_tools")


# -- the server -------------------------------------------------------------------------------
def visible_tools() -> list[ToolSpec]:
    return [t for t in TOOLS.values() if not t.hidden and t.available()]


# The core's hints name what to run on the command line; a model using these tools needs
# the tool and argument instead. Commands a person must run (dream init) are left as they are.
_CLI_TO_TOOL = [
    (re.compile(r"'dream notes (write|update|show|find|list|crumple)(?: [^']*)?'"),
     r"the notes_\1 tool"),
    (re.compile(r"'dream history (search|show)(?: [^']*)?'"), r"the history_\1 tool"),
    (re.compile(r"'dream search(?: [^']*)?'"), "the memory_search tool"),
    (re.compile(r"'dream show(?: [^']*)?'"), "the memory_read tool"),
    (re.compile(r"'dream prepare(?: [^']*)?'"), "the review_prepare tool"),
    (re.compile(r"(?<![\w-])--(replace|append|crumpled)\b"), r"\1=true"),
]


def in_tool_terms(text: str) -> str:
    """An error text with command lines and flags named as MCP tools and arguments."""
    for pattern, repl in _CLI_TO_TOOL:
        text = pattern.sub(repl, text)
    return text


def call(tools: DreamTools, name: str, arguments: dict[str, Any] | None) -> tuple[Any, bool]:
    """Run one tool. Returns (result, is_error); errors are one sentence."""
    spec = TOOLS.get(name)
    if spec is None:
        return (f"there is no tool '{name}'. List tools, or find hidden ones with "
                "tool_search.", True)
    if not spec.available():
        missing = ", ".join(m for m in spec.requires if importlib.util.find_spec(m) is None)
        return (f"{name} is not available in this Dream install ({missing} is missing). "
                "Use another tool, or the 'dream' command line, and tell the user.", True)
    try:
        args = _check_args(spec, dict(arguments or {}))
        return _plain(spec.handler(tools, args)), False
    except DreamError as exc:
        return in_tool_terms(exc.one_line()), True
    except Exception as exc:  # no tracebacks to the client
        if os.environ.get("DREAM_DEBUG"):
            raise
        return (f"internal error in {name} ({type(exc).__name__}: {exc}). Retry once; if it "
                "fails again, report it with DREAM_DEBUG=1.", True)


PROTOCOL_VERSIONS = ("2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05")


def tool_entry(spec: ToolSpec) -> dict[str, Any]:
    """A tool as ``tools/list`` describes it."""
    entry = spec.describe()
    entry["annotations"]["openWorldHint"] = False
    if spec.title:
        entry["title"] = spec.title
    return entry


def tool_result(result: Any, is_error: bool) -> dict[str, Any]:
    """A ``tools/call`` result: JSON text, the same value as structured content."""
    if is_error:
        return {"content": [{"type": "text", "text": str(result)}], "isError": True}
    text = json.dumps(result, ensure_ascii=False, indent=1, default=str)
    structured = result if isinstance(result, dict) else {"result": result}
    return {"content": [{"type": "text", "text": text}],
            "structuredContent": json.loads(json.dumps(structured, default=str)),
            "isError": False}


class RpcError(Exception):
    def __init__(self, code: int, message: str) -> None:
        super().__init__(message)
        self.code = code


def answer(tools: DreamTools, method: str, params: dict[str, Any]) -> Any:
    """The result of one JSON-RPC request of the MCP methods Dream serves."""
    if method == "initialize":
        asked = params.get("protocolVersion")
        version = asked if asked in PROTOCOL_VERSIONS else PROTOCOL_VERSIONS[0]
        return {"protocolVersion": version,
                "capabilities": {"tools": {"listChanged": False}},
                "serverInfo": {"name": "dream", "version": __version__},
                "instructions": INSTRUCTIONS}
    if method == "ping":
        return {}
    if method == "tools/list":
        return {"tools": [tool_entry(t) for t in visible_tools()]}
    if method == "tools/call":
        name = params.get("name")
        arguments = params.get("arguments")
        if not isinstance(name, str) or not isinstance(arguments, (dict, type(None))):
            raise RpcError(-32602, "tools/call needs a tool name and an arguments object")
        return tool_result(*call(tools, name, arguments))
    if method in ("resources/list", "resources/templates/list", "prompts/list"):
        key = {"resources/list": "resources", "resources/templates/list":
               "resourceTemplates", "prompts/list": "prompts"}[method]
        return {key: []}
    raise RpcError(-32601, f"method not found: {method}")


def _invalid(message_id: Any, why: str) -> dict[str, Any]:
    return {"jsonrpc": "2.0", "id": message_id,
            "error": {"code": -32600, "message": f"invalid request: {why}"}}


def handle(tools: DreamTools, line: str) -> dict[str, Any] | list[dict[str, Any]] | None:
    """One line from the client: the reply to write, or None (a notification). A batch
    (a JSON array, JSON-RPC 2.0 and MCP 2025-03-26) is answered by an array of replies."""
    try:
        message = loads(line)     # a lone "\ud83d" from a JavaScript client made U+FFFD
    except ValueError:
        return {"jsonrpc": "2.0", "id": None,
                "error": {"code": -32700, "message": "parse error: not JSON"}}
    if isinstance(message, list):
        if not message:
            return _invalid(None, "an empty batch")
        replies = [reply for reply in (_one(tools, m) for m in message) if reply is not None]
        return replies or None           # a batch of notifications needs no reply
    return _one(tools, message)


def _one(tools: DreamTools, message: Any) -> dict[str, Any] | None:
    if not isinstance(message, dict):
        return _invalid(None, "not a JSON object")
    if "method" not in message:
        if "result" in message or "error" in message:
            return None                  # a response to nothing we asked: ignore
        return _invalid(message.get("id"), "no method")
    if "id" not in message:
        return None                      # notifications (initialized, cancelled) need no reply
    params = message.get("params") if isinstance(message.get("params"), dict) else {}
    try:
        return {"jsonrpc": "2.0", "id": message["id"],
                "result": answer(tools, str(message["method"]), params)}
    except RpcError as exc:
        return {"jsonrpc": "2.0", "id": message["id"],
                "error": {"code": exc.code, "message": str(exc)}}


def serve_lines(tools: DreamTools, stdin: Any, stdout: Any) -> None:
    """Answer newline-delimited JSON-RPC (MCP's stdio transport) until stdin closes."""
    for line in stdin:
        if not line.strip():
            continue
        reply = handle(tools, line)
        if reply is not None:
            stdout.write(json.dumps(reply, ensure_ascii=False) + "\n")
            stdout.flush()


PROJECT_DIR_VARS = ("DREAM_PROJECT_DIR", "CLAUDE_PROJECT_DIR")


def project_dir(default: Path) -> Path:
    """The folder whose project the tools act on: ``DREAM_PROJECT_DIR``, else
    ``CLAUDE_PROJECT_DIR`` (Claude Code sets it for the servers it starts), else the
    working directory."""
    for var in PROJECT_DIR_VARS:
        raw = os.environ.get(var)
        if raw and Path(raw).is_dir():
            return Path(raw).resolve()
    return default


class Stopped(BaseException):
    """SIGTERM, SIGINT or SIGHUP, raised where the server is: a tool call in progress
    unwinds through its own cleanup (a dream_begin inside its baseline commit drops the
    lock it has just taken) before the dream opened here is released. Not an Exception,
    so no tool's error handling turns it into an answer."""

    def __init__(self, signum: int) -> None:
        super().__init__(signum)
        self.signum = signum


_STOP_SIGNALS = tuple(s for s in (signal.SIGTERM, signal.SIGINT, getattr(signal, "SIGHUP", None))
                      if s is not None)


def _install_shutdown(tools: DreamTools) -> None:
    import atexit

    def handler(signum: int, frame: Any) -> None:
        # one stop is enough: a second signal (a client that sends SIGTERM to the whole
        # group as it gives up) must not cut the first one's cleanup short
        for sig in _STOP_SIGNALS:
            signal.signal(sig, signal.SIG_IGN)
        raise Stopped(signum)

    for sig in _STOP_SIGNALS:
        signal.signal(sig, handler)
    atexit.register(tools.release)


def serve(app: App) -> None:
    """Serve MCP over stdin/stdout until the client closes stdin."""
    import io

    app.home.require()
    app.cwd = project_dir(app.cwd)
    tools = DreamTools(app)
    _install_shutdown(tools)
    stdin = io.TextIOWrapper(sys.stdin.buffer, encoding="utf-8", errors="replace")
    # errors="replace": a reply the server cannot encode is never the end of the server
    stdout = io.TextIOWrapper(sys.stdout.buffer, encoding="utf-8", newline="\n",
                              errors="replace")
    try:
        serve_lines(tools, stdin, stdout)
    except Stopped as stop:
        raise SystemExit(128 + stop.signum) from None    # the exit status a signal's death gives
    finally:
        for sig in _STOP_SIGNALS:  # a signal now would cut the release below short
            signal.signal(sig, signal.SIG_IGN)
        tools.release()            # stdin EOF or a signal: a shutdown, not an end
        sys.stderr.flush()
