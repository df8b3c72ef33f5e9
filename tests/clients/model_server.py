"""A local model server for driving the real coding agents offline.

It speaks, on 127.0.0.1 and a free port, the three protocols the clients use:

- Anthropic Messages (``POST /v1/messages``, streaming SSE or not; ``count_tokens``):
  Claude Code through ``ANTHROPIC_BASE_URL``;
- OpenAI Responses (``POST /v1/responses``, streaming SSE): Codex through a
  ``[model_providers.X]`` entry;
- OpenAI Chat Completions (``POST /v1/chat/completions``, streaming or not): Pi through a
  custom provider in ``models.json``.

Every request is recorded (path, headers, parsed body). What the model answers is decided by
a :class:`Script` from the request itself, so retries, title generation and other side
requests of a client do not shift the plan: the number of tool results already in the
conversation says which step comes next. A step is :class:`Call` (the model calls a tool
whose name ends with ``tool``) or :class:`Say` (a final answer). A request that offers no
tools (a client's side request, such as a session title) gets a short answer.
"""

from __future__ import annotations

import json
import threading
import uuid
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, Self


@dataclass
class Call:
    tool: str                       # the tool's name, or the end of it (mcp__dream__notes_write)
    arguments: dict[str, Any]


@dataclass
class Say:
    text: str


@dataclass
class Recorded:
    method: str
    path: str
    headers: dict[str, str]
    body: Any

    def text(self) -> str:
        """The whole body as text, to look for what the client sent the model."""
        return self.body if isinstance(self.body, str) else json.dumps(self.body)


@dataclass
class Script:
    """The steps of one conversation: step *n* answers a request holding *n* tool results."""

    steps: list[Call | Say] = field(default_factory=lambda: [Say("Done.")])
    side_answer: str = "Dream test session"

    def next_step(self, tool_names: list[str], tool_results: int) -> Call | Say:
        if not tool_names:
            return Say(self.side_answer)
        step = self.steps[min(tool_results, len(self.steps) - 1)]
        return step


NS = "\x00"      # joins a Responses tool namespace and a tool name in a resolved name


def _tool_names(body: dict[str, Any]) -> list[str]:
    """Names of the tools a request offers; a tool inside a Responses ``namespace`` is
    ``<namespace>\\x00<name>``."""
    names = []
    for tool in body.get("tools") or []:
        if not isinstance(tool, dict):
            continue
        fn = tool.get("function") if isinstance(tool.get("function"), dict) else tool
        name = fn.get("name")
        if tool.get("type") == "namespace":
            names += [f"{name}{NS}{inner['name']}" for inner in tool.get("tools") or []
                      if isinstance(inner, dict) and isinstance(inner.get("name"), str)]
        elif isinstance(name, str):
            names.append(name)
    return names


def _count_results(body: dict[str, Any]) -> int:
    """Tool results in an Anthropic, Responses or Chat Completions conversation."""
    n = 0
    for item in body.get("messages") or body.get("input") or []:
        if not isinstance(item, dict):
            continue
        if item.get("type") in ("function_call_output", "custom_tool_call_output",
                                "mcp_tool_call_output"):
            n += 1
        if item.get("role") == "tool":
            n += 1
        content = item.get("content")
        if isinstance(content, list):
            n += sum(1 for block in content
                     if isinstance(block, dict) and block.get("type") == "tool_result")
    return n


def resolve(step: Call, names: list[str]) -> str:
    for name in names:
        bare = name.split(NS)[-1]
        if step.tool in (name, bare) or name.endswith(step.tool) or bare.endswith(step.tool):
            return name
    raise LookupError(f"the client offered no tool named like {step.tool!r}: {names}")


class ModelServer:
    """The server; use as a context manager. ``requests`` holds every request received."""

    def __init__(self, script: Script | None = None, model: str = "fake-model",
                 usage: int = 1000) -> None:
        self.script = script or Script()
        self.model = model
        self.usage = usage              # input tokens each answer reports
        self.requests: list[Recorded] = []
        self.errors: list[str] = []
        self._lock = threading.Lock()
        self._httpd = ThreadingHTTPServer(("127.0.0.1", 0), self._handler())
        self._httpd.daemon_threads = True
        self._thread = threading.Thread(target=self._httpd.serve_forever,
                                        kwargs={"poll_interval": 0.05}, daemon=True)
        self._thread.start()

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self._httpd.server_address[1]}"

    def close(self) -> None:
        self._httpd.shutdown()
        self._httpd.server_close()
        self._thread.join(timeout=5)

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def model_requests(self) -> list[Recorded]:
        """Requests that asked the model for an answer (not token counts or probes)."""
        return [r for r in self.requests if r.method == "POST" and isinstance(r.body, dict)
                and r.path.rstrip("/").endswith(("/messages", "/responses", "/completions"))]

    # -- answers ----------------------------------------------------------------------------
    def decide(self, body: dict[str, Any]) -> tuple[Call | Say, str | None]:
        names = _tool_names(body)
        step = self.script.next_step(names, _count_results(body))
        if isinstance(step, Call):
            try:
                return step, resolve(step, names)
            except LookupError as exc:
                self.errors.append(str(exc))
                return Say(f"(test server: {exc})"), None
        return step, None

    def anthropic(self, body: dict[str, Any]) -> list[tuple[str, dict[str, Any]]]:
        step, name = self.decide(body)
        mid = "msg_" + uuid.uuid4().hex[:20]
        usage = {"input_tokens": self.usage, "output_tokens": 1,
                 "cache_creation_input_tokens": 0,
                 "cache_read_input_tokens": 0}
        events: list[tuple[str, dict[str, Any]]] = [("message_start", {
            "type": "message_start", "message": {
                "id": mid, "type": "message", "role": "assistant", "model": body.get("model"),
                "content": [], "stop_reason": None, "stop_sequence": None, "usage": usage}})]
        if isinstance(step, Call):
            block = {"type": "tool_use", "id": "toolu_" + uuid.uuid4().hex[:20],
                     "name": name, "input": {}}
            delta = {"type": "input_json_delta", "partial_json": json.dumps(step.arguments)}
            stop = "tool_use"
        else:
            block = {"type": "text", "text": ""}
            delta = {"type": "text_delta", "text": step.text}
            stop = "end_turn"
        events += [
            ("content_block_start", {"type": "content_block_start", "index": 0,
                                     "content_block": block}),
            ("content_block_delta", {"type": "content_block_delta", "index": 0,
                                     "delta": delta}),
            ("content_block_stop", {"type": "content_block_stop", "index": 0}),
            ("message_delta", {"type": "message_delta", "delta": {
                "stop_reason": stop, "stop_sequence": None}, "usage": {"output_tokens": 20}}),
            ("message_stop", {"type": "message_stop"}),
        ]
        return events

    @staticmethod
    def anthropic_message(events: list[tuple[str, dict[str, Any]]]) -> dict[str, Any]:
        message = dict(events[0][1]["message"])
        block = dict(events[1][1]["content_block"])
        delta = events[2][1]["delta"]
        if block["type"] == "text":
            block["text"] = delta["text"]
        else:
            block["input"] = json.loads(delta["partial_json"])
        message.update(content=[block], stop_reason=events[4][1]["delta"]["stop_reason"])
        return message

    def responses(self, body: dict[str, Any]) -> list[tuple[str, dict[str, Any]]]:
        step, name = self.decide(body)
        rid = "resp_" + uuid.uuid4().hex[:20]
        if isinstance(step, Call):
            namespace, _, bare = (name or "").rpartition(NS)
            item: dict[str, Any] = {"type": "function_call", "id": "fc_" + uuid.uuid4().hex[:16],
                                    "call_id": "call_" + uuid.uuid4().hex[:16], "name": bare,
                                    "arguments": json.dumps(step.arguments),
                                    "status": "completed"}
            if namespace:
                item["namespace"] = namespace
        else:
            item = {"type": "message", "id": "msg_" + uuid.uuid4().hex[:16], "role": "assistant",
                    "status": "completed",
                    "content": [{"type": "output_text", "text": step.text, "annotations": []}]}
        response = {"id": rid, "object": "response", "status": "in_progress",
                    "model": body.get("model"), "output": []}
        usage = {"input_tokens": self.usage, "input_tokens_details": {"cached_tokens": 0},
                 "output_tokens": 20, "output_tokens_details": {"reasoning_tokens": 0},
                 "total_tokens": self.usage + 20}
        events = [("response.created", {"type": "response.created", "response": response}),
                  ("response.output_item.added", {"type": "response.output_item.added",
                                                  "output_index": 0, "item": item})]
        if item["type"] == "message":
            events.append(("response.output_text.delta", {
                "type": "response.output_text.delta", "output_index": 0, "content_index": 0,
                "item_id": item["id"], "delta": step.text}))   # type: ignore[union-attr]
        events += [
            ("response.output_item.done", {"type": "response.output_item.done",
                                           "output_index": 0, "item": item}),
            ("response.completed", {"type": "response.completed", "response": {
                **response, "status": "completed", "output": [item], "usage": usage}}),
        ]
        return events

    def chat(self, body: dict[str, Any]) -> tuple[list[dict[str, Any]], dict[str, Any]]:
        """(stream chunks, whole completion) for a Chat Completions request."""
        step, name = self.decide(body)
        cid = "chatcmpl-" + uuid.uuid4().hex[:20]
        base = {"id": cid, "object": "chat.completion.chunk", "created": 0,
                "model": body.get("model")}
        usage = {"prompt_tokens": self.usage, "completion_tokens": 20,
                 "total_tokens": self.usage + 20}
        if isinstance(step, Call):
            call = {"index": 0, "id": "call_" + uuid.uuid4().hex[:16], "type": "function",
                    "function": {"name": name, "arguments": json.dumps(step.arguments)}}
            delta: dict[str, Any] = {"role": "assistant", "content": None, "tool_calls": [call]}
            finish = "tool_calls"
            message = {"role": "assistant", "content": None,
                       "tool_calls": [{k: v for k, v in call.items() if k != "index"}]}
        else:
            delta = {"role": "assistant", "content": step.text}
            finish = "stop"
            message = {"role": "assistant", "content": step.text}
        chunks = [
            {**base, "choices": [{"index": 0, "delta": delta, "finish_reason": None}]},
            {**base, "choices": [{"index": 0, "delta": {}, "finish_reason": finish}]},
            {**base, "choices": [], "usage": usage},
        ]
        whole = {"id": cid, "object": "chat.completion", "created": 0, "model": body.get("model"),
                 "choices": [{"index": 0, "message": message, "finish_reason": finish}],
                 "usage": usage}
        return chunks, whole

    # -- HTTP -------------------------------------------------------------------------------
    def _handler(self) -> type[BaseHTTPRequestHandler]:
        server = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, format: str, *args: Any) -> None:
                return

            def _record(self, method: str) -> tuple[str, Any]:
                length = int(self.headers.get("Content-Length") or 0)
                raw = self.rfile.read(length).decode("utf-8", "replace") if length else ""
                try:
                    body: Any = json.loads(raw) if raw else None
                except ValueError:
                    body = raw
                path = self.path.split("?", 1)[0]
                with server._lock:
                    server.requests.append(Recorded(
                        method, path, {k.lower(): v for k, v in self.headers.items()}, body))
                return path, body

            def do_GET(self) -> None:
                path, _ = self._record("GET")
                if path.rstrip("/").endswith("/models"):
                    self._json(200, {"object": "list", "data": [
                        {"id": server.model, "object": "model", "type": "model",
                         "display_name": server.model, "created_at": "2025-01-01T00:00:00Z"}]})
                else:
                    self._json(404, {"error": {"type": "not_found", "message": path}})

            def do_HEAD(self) -> None:
                self._record("HEAD")
                self.send_response(200)
                self.send_header("Content-Length", "0")
                self.end_headers()

            def do_POST(self) -> None:
                path, body = self._record("POST")
                if not isinstance(body, dict):
                    self._json(400, {"error": {"type": "invalid_request_error",
                                               "message": "body is not JSON"}})
                    return
                route = path.rstrip("/")
                if route.endswith("/messages/count_tokens"):
                    self._json(200, {"input_tokens": 1000})
                elif route.endswith("/messages"):
                    events = server.anthropic(body)
                    if body.get("stream"):
                        self._sse([(name, data) for name, data in events])
                    else:
                        self._json(200, server.anthropic_message(events))
                elif route.endswith("/responses"):
                    self._sse(server.responses(body))
                elif route.endswith("/chat/completions"):
                    chunks, whole = server.chat(body)
                    if body.get("stream"):
                        self._sse([(None, c) for c in chunks], done=True)
                    else:
                        self._json(200, whole)
                else:
                    self._json(404, {"error": {"type": "not_found", "message": path}})

            def _json(self, status: int, data: Any) -> None:
                raw = json.dumps(data).encode()
                try:
                    self.send_response(status)
                    self.send_header("Content-Type", "application/json")
                    self.send_header("Content-Length", str(len(raw)))
                    self.end_headers()
                    self.wfile.write(raw)
                except OSError:
                    pass

            def _sse(self, events: list[tuple[str | None, dict[str, Any]]],
                     done: bool = False) -> None:
                parts = []
                for name, data in events:
                    head = f"event: {name}\n" if name else ""
                    parts.append(f"{head}data: {json.dumps(data)}\n\n")
                if done:
                    parts.append("data: [DONE]\n\n")
                raw = "".join(parts).encode()
                try:
                    self.send_response(200)
                    self.send_header("Content-Type", "text/event-stream")
                    self.send_header("Cache-Control", "no-cache")
                    self.send_header("Content-Length", str(len(raw)))
                    self.end_headers()
                    self.wfile.write(raw)
                except OSError:
                    pass

        return Handler
