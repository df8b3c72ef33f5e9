"""``dream hook``: what an agent's lifecycle hook calls.

A hook reads the agent's JSON payload on stdin (Claude Code sends ``session_id``,
``transcript_path``, ``cwd``, ``hook_event_name`` and per-event fields such as ``trigger``
for PreCompact or ``reason`` for SessionEnd), then:

1. reports context use to the automations (see :mod:`dream.automations`);
2. collects the session's transcript into the spool on the events in
   ``[hooks] collect_on`` (default: PreCompact and SessionEnd for Claude Code, whose Stop
   runs after every answer; Stop for Codex, which has no session-end hook), through
   ``dream.spool.collect.collect`` when that module exists.

3. on ``SessionStart`` with ``--brief project|user``, prints the brief (the project's, found
   from the payload's ``cwd``, or the user's) so the client adds it to the model's context;
4. on the events whose output reaches the model (:data:`CONTEXT_EVENTS`), prints the
   session's pending automation wakes (fires recorded on any event, delivered once).

What reaches the model is printed as the clients' JSON hook output
(``hookSpecificOutput.additionalContext``), which Claude Code and Codex both read.
A ``SessionEnd`` for a session Dream never heard of whose transcript does not exist
(``claude mcp list`` runs one) is ignored without a warning.

A hook reads a ``transcript_path`` only when it lies under one of the agents' session
folders (:func:`dream.sources.discovery.roots`: ``DREAM_*_DIR``, ``CLAUDE_CONFIG_DIR``,
``PI_CODING_AGENT_DIR``, ``CODEX_HOME`` or their defaults) or under a folder listed in
``[hooks] transcript_dirs``; any other path (``/etc/shadow``) is neither measured nor
collected, and the hook says so.

A hook never fails the agent: every problem becomes a one-line warning on stderr, a line in
``$DREAM_HOME/logs/hook.log`` and exit status 0.
"""

from __future__ import annotations

import hashlib
import importlib
import json
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from dream.app import App
from dream.automations import Automations, Fire, Report
from dream.errors import DreamError
from dream.integrations.context_use import DEFAULT_WINDOW, measure
from dream.jsontext import loads
from dream.secrets import redact
from dream.terminal import strip_control

USER_INPUT_EVENTS = {"UserPromptSubmit"}
# Claude Code and Codex add a hook's output to the model's context for these events only.
CONTEXT_EVENTS = {"UserPromptSubmit", "SessionStart"}
BRIEF_LIMIT = 20_000           # characters of brief a SessionStart hook prints at most
# Codex has no SessionEnd or PreCompact hook: its sessions are collected at the end of each
# turn (Stop); the collector reads only what is new.
DEFAULT_COLLECT_ON = {"claude-code": ["PreCompact", "SessionEnd"], "pi": ["SessionEnd"],
                      "codex": ["Stop"]}
SOURCES = {"claude-code": "claude_code", "pi": "pi", "codex": "codex"}


@dataclass
class HookResult:
    event: str | None = None
    agent: str = "claude-code"
    session_id: str | None = None
    context: dict[str, Any] | None = None
    fires: list[dict[str, Any]] = field(default_factory=list)
    collected: dict[str, Any] | None = None
    warnings: list[str] = field(default_factory=list)
    message: str | None = None          # text for the agent's context, when it reads stdout
    woke: list[str] = field(default_factory=list)   # journal keys of wakes delivered now
    brief: str | None = None            # path of the brief printed, if any

    def to_dict(self) -> dict[str, Any]:
        return {
            "event": self.event, "agent": self.agent, "session_id": self.session_id,
            "context": self.context, "fires": self.fires, "collected": self.collected,
            "warnings": self.warnings, "woke": self.woke, "brief": self.brief,
        }

    def output(self) -> str | None:
        """What the hook prints for the client: the context text as hook JSON."""
        if not self.message:
            return None
        return json.dumps({"hookSpecificOutput": {"hookEventName": self.event,
                                                  "additionalContext": self.message}})


def log(app: App, line: str) -> None:
    """Append one line to the hook log; a missing home is not an error."""
    if not app.home.root.exists():
        return
    try:
        path = app.home.root / "logs" / "hook.log"
        path.parent.mkdir(parents=True, exist_ok=True)
        stamp = datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")
        with path.open("a", encoding="utf-8") as fh:
            # one line, printable: a payload's event name or session id with an escape
            # code cleared the terminal of whoever ran 'tail hook.log'
            flat = strip_control(line.replace("\n", " ").replace("\r", " "))
            fh.write(f"{stamp} {redact(flat)[0]}\n")
    except OSError:
        pass


MAX_PAYLOAD = 16 * 1024 * 1024    # a hook payload is a few KB; a pasted prompt, some MB


def read_stdin(stream: Any) -> tuple[str, str | None]:
    """The hook payload on ``stream`` (at most MAX_PAYLOAD bytes, never the rest of an
    endless input), and why it was not read, or None."""
    try:
        if stream.isatty():
            return "", None
        raw = stream.buffer.read(MAX_PAYLOAD + 1)
    except (OSError, ValueError, AttributeError) as exc:
        return "", f"cannot read stdin ({exc})"
    if len(raw) > MAX_PAYLOAD:
        return "", f"hook input is larger than {MAX_PAYLOAD // (1024 * 1024)} MB"
    return raw.decode("utf-8", "replace"), None


def parse_payload(text: str) -> dict[str, Any]:
    if not text.strip():
        raise ValueError("no hook JSON on stdin")
    data = loads(text)      # ValueError for JSON nested too deeply, too
    if not isinstance(data, dict):
        raise ValueError("hook input is JSON but not an object")
    return data


def transcript_allowed(app: App, transcript: Path) -> bool:
    """True when ``transcript`` (symlinks resolved) lies under an agent's session folder or
    a folder the user listed in ``[hooks] transcript_dirs``."""
    from dream.sources.discovery import roots

    configured = app.config.get("hooks", "transcript_dirs", []) or []
    if not isinstance(configured, list):
        configured = [configured]
    allowed = [*roots().values(), *(Path(str(d)).expanduser() for d in configured)]
    try:
        real = transcript.resolve()
    except (OSError, RuntimeError):
        return False
    for folder in allowed:
        try:
            if real.is_relative_to(folder.resolve()):
                return True
        except (OSError, RuntimeError):
            continue
    return False


def report_key(agent: str, payload: dict[str, Any], transcript: Path | None) -> str:
    """Identity of one report: the payload plus how far the transcript had grown."""
    size = None
    if transcript is not None:
        try:
            size = transcript.stat().st_size
        except OSError:
            size = None
    canon = json.dumps({"agent": agent, "payload": payload, "size": size}, sort_keys=True,
                       default=str)
    return hashlib.sha256(canon.encode()).hexdigest()


def _project_key(app: App, cwd: str | None) -> str | None:
    if not cwd or not Path(cwd).is_dir():
        return None
    try:
        return app.project(Path(cwd)).key
    except Exception:
        return None


def _collect(app: App, agent: str, transcript: Path) -> dict[str, Any]:
    module = importlib.import_module("dream.spool.collect")
    collect = getattr(module, "collect", None)
    if collect is None:
        return {"ok": False, "reason": "dream.spool.collect has no collect()"}
    try:
        result = collect(app, paths=[transcript], source=SOURCES.get(agent))
    except TypeError:
        result = collect(app, paths=[transcript])
    if hasattr(result, "as_dict"):
        result = result.as_dict()
    elif hasattr(result, "to_dict"):
        result = result.to_dict()
    elif hasattr(result, "__dataclass_fields__"):
        from dataclasses import asdict

        result = asdict(result)
    return {"ok": True, "result": result if isinstance(result, (dict, list, int)) else str(result)}


def main(app: App, stdin_text: str, event: str | None, agent: str, as_json: bool,
         out: Any, err: Any, brief: str | None = None, unread: str | None = None) -> int:
    """The whole hook call, as both ``dream hook`` and the light entry point
    (``python -m dream.integrations hook``) run it. Always returns 0. ``unread`` says why
    the payload could not be read (from :func:`read_stdin`)."""
    try:
        if unread:
            result = HookResult(event=event, agent=agent)
            result.warnings.append(f"ignored hook input: {unread}")
        else:
            result = run(app, stdin_text, event=event, agent=agent, brief=brief)
    except Exception as exc:  # a hook must never fail the agent
        result = HookResult(event=event, agent=agent)
        result.warnings.append(f"hook failed: {type(exc).__name__}: {exc}")
    for warning in result.warnings:
        err.write(f"dream hook: warning: {warning}\n")
    fired = ",".join(f"{f['automation_id']}#{f['fire']}" for f in result.fires) or "-"
    frac = (result.context or {}).get("fraction")
    log(app, f"{result.agent} {result.event} session={result.session_id} "
             f"context={'-' if frac is None else f'{frac:.3f}'} fired={fired} "
             f"warnings={len(result.warnings)} {'; '.join(result.warnings)}")
    if as_json:
        out.write(json.dumps(result.to_dict(), indent=2, default=str) + "\n")
    elif result.output():
        out.write(result.output() + "\n")
    return 0


def _known_session(app: App, agent: str, session_id: str) -> bool:
    return app.db.execute("SELECT 1 FROM agent_sessions WHERE agent=? AND session_id=?",
                          (agent, session_id)).fetchone() is not None


def brief_text(app: App, scope: str, cwd: str | None) -> tuple[Path, str] | None:
    """The brief a SessionStart hook prints: the project's (from ``cwd``) or the user's."""
    from dream.integrations.installer import brief_path

    if cwd and Path(cwd).is_dir():
        app.cwd = Path(cwd)
    try:
        path = brief_path(app, scope)
        text = path.read_text(encoding="utf-8", errors="replace")
    except (OSError, DreamError):
        return None
    if not text.strip():
        return None
    if len(text) > BRIEF_LIMIT:
        text = text[:BRIEF_LIMIT] + f"\n[brief cut at {BRIEF_LIMIT:,} characters: {path}]"
    return path, text


def wake_text(wakes: list[dict[str, Any]]) -> str:
    names = ", ".join(sorted({f"'{w.get('automation')}'" for w in wakes}))
    frac = max(float(w.get("context_fraction") or 0) for w in wakes)
    return (f"Dream: {names} fired at {frac:.0%} context. Before the context is lost, "
            "write a handoff (open work, decisions, user corrections, memory slugs, next "
            "steps) and run `dream prepare` with three learned lines; see the dream skill.")


def run(app: App, stdin_text: str, event: str | None = None, agent: str = "claude-code",
        now: datetime | None = None, brief: str | None = None) -> HookResult:
    """Handle one hook call. Raises nothing for bad input: problems become warnings."""
    result = HookResult(event=event, agent=agent)
    try:
        payload = parse_payload(stdin_text)
    except (ValueError, UnicodeDecodeError) as exc:
        result.warnings.append(f"ignored hook input: {exc}")
        return result
    result.event = event or payload.get("hook_event_name") or payload.get("event")
    session_id = payload.get("session_id") or payload.get("sessionId")
    if not isinstance(session_id, str) or not session_id.strip():
        result.warnings.append("hook input has no session_id; nothing reported")
        return result
    session_id = redact(session_id)[0]  # what a hook reports is stored: no secret in it
    result.session_id = session_id
    if not app.home.exists():
        result.warnings.append(f"no Dream home at {app.home.root}; run 'dream init' first")
        return result
    raw_path = payload.get("transcript_path") or payload.get("transcriptPath")
    transcript = Path(raw_path).expanduser() if isinstance(raw_path, str) and raw_path else None
    if transcript is not None and not transcript_allowed(app, transcript):
        result.warnings.append(
            f"transcript {redact(str(transcript))[0]} is outside the agents' session "
            "folders; not read "
            "(list its folder under [hooks] transcript_dirs in config.toml to allow it)")
        transcript = None
    if result.event == "SessionEnd" and (transcript is None or not transcript.exists()) \
            and not _known_session(app, agent, session_id):
        return result        # no session happened (claude mcp list/get): nothing to do
    window = int(app.config.get("automations", "context_window", DEFAULT_WINDOW))
    table = app.config.get("automations", "context_windows", None)
    use = measure(payload, transcript, window, table if isinstance(table, dict) else None)
    result.context = {"tokens": use.tokens, "window": use.window, "fraction": use.fraction,
                      "source": use.source}
    cwd = payload.get("cwd") if isinstance(payload.get("cwd"), str) else None
    rep = Report(
        agent=agent, session_id=session_id, at=now or datetime.now(UTC),
        context_fraction=use.fraction, context_tokens=use.tokens, context_window=use.window,
        user_input=result.event in USER_INPUT_EVENTS, project_key=_project_key(app, cwd),
        cwd=cwd and redact(cwd)[0],
        transcript_path=redact(str(transcript))[0] if transcript else None,
        event=result.event and redact(str(result.event))[0],
        key=report_key(agent, payload, transcript),
    )
    automations = Automations(app.db, app.config)
    fires: list[Fire] = automations.report(rep)
    result.fires = [f.__dict__ for f in fires]
    parts = []
    if brief and result.event == "SessionStart":
        found = brief_text(app, brief, cwd)
        if found:
            result.brief = str(found[0])
            parts.append(f"Dream memory brief ({found[0].name}, kept by Dream):\n\n"
                         + found[1].rstrip())
    if result.event in CONTEXT_EVENTS:
        wakes = automations.deliver(agent, session_id, result.event, now)
        if wakes:
            result.woke = [w["key"] for w in wakes]
            parts.append(wake_text(wakes))
    result.message = "\n\n".join(parts) or None
    collect_on = app.config.get("hooks", "collect_on", DEFAULT_COLLECT_ON.get(agent, []))
    if transcript is not None and result.event in collect_on:
        if transcript.is_file():
            try:
                result.collected = _collect(app, agent, transcript)
            except Exception as exc:   # a collector failure must not fail the agent
                result.collected = {"ok": False, "reason": f"{type(exc).__name__}: {exc}"}
            if not result.collected.get("ok"):
                result.warnings.append(f"transcript not collected: {result.collected['reason']}")
        elif transcript.exists():
            result.warnings.append(f"transcript {transcript} is not a regular file (a folder, "
                                   "pipe or device); nothing collected")
        else:
            result.warnings.append(f"transcript {transcript} does not exist; nothing collected")
    return result
