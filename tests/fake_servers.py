"""Real local HTTP servers that speak the OpenAI and Anthropic protocols, for tests and benches.

Each server is a ``ThreadingHTTPServer`` on 127.0.0.1 with a free port, running in a daemon
thread. It records every request (path, headers, parsed JSON body) and answers from a
queue of scripted :class:`Reply` objects; when the queue is empty it either answers
automatically (``auto=True``: a valid minimal answer for the request's schema, with token
usage counted by :func:`dream.tokens.count` and simulated prefix caching) or returns a 500
that names the missing script. The answer schema counts as input, at the start of the
prompt, as the providers treat it: OpenAI's structured-output schema is a prefix of the
system message, Anthropic's tool definitions come before the system prompt (both are
cached with it).

    with FakeOpenAIServer() as server:
        server.enqueue(server.rate_limited(retry_after=1), server.answer({"ops": []}))
        provider = get_provider("openai:gpt-4o-mini", {"openai_base_url": server.base_url})
        ...
        assert server.count("/v1/chat/completions") == 2
"""

from __future__ import annotations

import hashlib
import json
import threading
from collections import deque
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, Self

from dream import tokens

CACHE_MIN_TOKENS = 1024   # both providers cache a prefix only from about this length
CACHE_STEP_TOKENS = 128   # OpenAI caches in 128-token increments


@dataclass
class Reply:
    """One scripted HTTP answer."""

    status: int = 200
    body: Any = None                       # dict/list -> JSON; str/bytes -> sent as is
    headers: dict[str, str] = field(default_factory=dict)
    delay: float = 0.0                     # seconds to wait before answering (timeouts)


@dataclass
class Recorded:
    method: str
    path: str
    headers: dict[str, str]
    body: Any                              # parsed JSON, or the raw text when not JSON


def schema_prompt(schema: Any) -> str:
    """The text an answer schema adds to a prompt (compact JSON), as counted here."""
    return json.dumps(schema, separators=(",", ":"), sort_keys=True) if schema else ""


def minimal_instance(schema: dict[str, Any], root: dict[str, Any] | None = None) -> Any:
    """The smallest value that validates against a JSON schema (pydantic-style subset)."""
    root = root if root is not None else schema
    if "$ref" in schema:
        ref = schema["$ref"]
        node: Any = root
        for part in ref.lstrip("#/").split("/"):
            node = node[part]
        return minimal_instance(node, root)
    if "const" in schema:
        return schema["const"]
    if "enum" in schema:
        return schema["enum"][0]
    for key in ("anyOf", "oneOf", "allOf"):
        if key in schema:
            return minimal_instance(schema[key][0], root)
    if "default" in schema:
        return schema["default"]
    kind = schema.get("type", "object")
    if isinstance(kind, list):
        kind = next((k for k in kind if k != "null"), "null")
    if kind == "object":
        props = schema.get("properties", {})
        return {name: minimal_instance(props[name], root)
                for name in schema.get("required", []) if name in props}
    if kind == "array":
        count = schema.get("minItems", 0)
        item = schema.get("items", {})
        return [minimal_instance(item, root) for _ in range(count)]
    if kind == "string":
        return "x" * schema.get("minLength", 0)
    if kind in ("integer", "number"):
        return schema.get("minimum", 0)
    if kind == "boolean":
        return False
    return None


class FakeServer:
    """Base: a threaded HTTP server with a reply queue and a request log."""

    paths: tuple[str, ...] = ()

    def __init__(self, auto: bool = False) -> None:
        self.auto = auto
        self.requests: list[Recorded] = []
        self.replies: deque[Reply] = deque()
        self.totals = {"calls": 0, "input_tokens": 0, "output_tokens": 0, "cached_tokens": 0}
        self._seen_prefixes: set[str] = set()
        self._lock = threading.Lock()
        self._closing = threading.Event()
        self._httpd = ThreadingHTTPServer(("127.0.0.1", 0), self._handler_class())
        self._httpd.daemon_threads = True
        self._httpd.handle_error = lambda request, address: None  # type: ignore[method-assign]
        self._thread = threading.Thread(target=self._httpd.serve_forever,
                                        kwargs={"poll_interval": 0.05}, daemon=True)
        self._thread.start()

    # -- lifecycle ---------------------------------------------------------------------
    @property
    def port(self) -> int:
        return self._httpd.server_address[1]

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def close(self) -> None:
        self._closing.set()           # wakes any reply that is sleeping out a delay
        self._httpd.shutdown()
        self._httpd.server_close()
        self._thread.join(timeout=5)

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -- scripting ---------------------------------------------------------------------
    def enqueue(self, *replies: Reply) -> None:
        with self._lock:
            self.replies.extend(replies)

    def count(self, path: str | None = None) -> int:
        return sum(1 for r in self.requests if path is None or r.path == path)

    @staticmethod
    def rate_limited(retry_after: float | None = 1, status: int = 429) -> Reply:
        headers = {} if retry_after is None else {"Retry-After": f"{retry_after:g}"}
        return Reply(status, {"error": {"type": "rate_limit_error",
                                        "message": "Rate limit reached, slow down"}}, headers)

    @staticmethod
    def server_error(status: int = 500) -> Reply:
        return Reply(status, {"error": {"type": "server_error", "message": "upstream failed"}})

    @staticmethod
    def unauthorized() -> Reply:
        return Reply(401, {"error": {"type": "authentication_error",
                                     "message": "Incorrect API key provided"}})

    # -- protocol hooks (subclasses) ----------------------------------------------------
    def auto_reply(self, body: dict[str, Any]) -> Reply:  # pragma: no cover - abstract
        raise NotImplementedError

    def _cached(self, prefix: str, prefix_tokens: int) -> tuple[int, bool]:
        """(tokens read from cache, whether this call wrote the cache) for a prefix."""
        if prefix_tokens < CACHE_MIN_TOKENS:
            return 0, False
        digest = hashlib.sha256(prefix.encode()).hexdigest()
        with self._lock:
            if digest in self._seen_prefixes:
                return prefix_tokens, False
            self._seen_prefixes.add(digest)
        return 0, True

    def _account(self, input_tokens: int, output_tokens: int, cached: int) -> None:
        with self._lock:
            self.totals["calls"] += 1
            self.totals["input_tokens"] += input_tokens
            self.totals["output_tokens"] += output_tokens
            self.totals["cached_tokens"] += cached

    # -- HTTP --------------------------------------------------------------------------
    def _next_reply(self, path: str, body: Any) -> Reply:
        with self._lock:
            if self.replies:
                return self.replies.popleft()
        if path not in self.paths:
            return Reply(404, {"error": {"type": "not_found", "message": f"no route {path}"}})
        if self.auto and isinstance(body, dict):
            return self.auto_reply(body)
        return Reply(500, {"error": {"type": "test_error",
                                     "message": "fake server has no scripted reply left"}})

    def _handler_class(self) -> type[BaseHTTPRequestHandler]:
        server = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, format: str, *args: Any) -> None:  # quiet
                return

            def do_POST(self) -> None:
                length = int(self.headers.get("Content-Length") or 0)
                raw = self.rfile.read(length).decode("utf-8", errors="replace")
                try:
                    body: Any = json.loads(raw)
                except ValueError:
                    body = raw
                path = self.path.split("?", 1)[0]
                with server._lock:
                    server.requests.append(
                        Recorded("POST", path, {k.lower(): v for k, v in self.headers.items()},
                                 body))
                reply = server._next_reply(path, body)
                if reply.delay and server._closing.wait(reply.delay):
                    return
                self._send(reply)

            def _send(self, reply: Reply) -> None:
                if isinstance(reply.body, (dict, list)):
                    data = json.dumps(reply.body).encode()
                    ctype = "application/json"
                elif isinstance(reply.body, bytes):
                    data, ctype = reply.body, "application/octet-stream"
                else:
                    data, ctype = str(reply.body or "").encode(), "text/plain"
                try:
                    self.send_response(reply.status)
                    headers = {"Content-Type": ctype, **reply.headers}
                    for key, value in headers.items():
                        self.send_header(key, value)
                    self.send_header("Content-Length", str(len(data)))
                    self.end_headers()
                    self.wfile.write(data)
                except OSError:      # the client gave up (timeout test): nothing to do
                    pass

        return Handler


class FakeOpenAIServer(FakeServer):
    """Speaks ``POST /v1/chat/completions``; ``base_url`` is what the SDK wants."""

    paths = ("/v1/chat/completions",)

    @property
    def base_url(self) -> str:
        return self.url + "/v1"

    @staticmethod
    def completion(content: str | None, prompt_tokens: int = 0, completion_tokens: int = 0,
                   cached_tokens: int = 0, model: str = "gpt-4o-mini",
                   finish_reason: str = "stop") -> dict[str, Any]:
        return {
            "id": "chatcmpl-" + hashlib.sha1(str(content).encode()).hexdigest()[:12],
            "object": "chat.completion",
            "created": 1767225600,
            "model": model,
            "system_fingerprint": "fp_test",
            "choices": [{
                "index": 0,
                "message": {"role": "assistant", "content": content, "refusal": None},
                "logprobs": None,
                "finish_reason": finish_reason,
            }],
            "usage": {
                "prompt_tokens": prompt_tokens,
                "completion_tokens": completion_tokens,
                "total_tokens": prompt_tokens + completion_tokens,
                "prompt_tokens_details": {"cached_tokens": cached_tokens, "audio_tokens": 0},
                "completion_tokens_details": {"reasoning_tokens": 0, "audio_tokens": 0},
            },
        }

    def answer(self, data: Any, prompt_tokens: int = 1200, completion_tokens: int = 80,
               cached_tokens: int = 0, **kw: Any) -> Reply:
        return Reply(200, self.completion(json.dumps(data), prompt_tokens, completion_tokens,
                                          cached_tokens, **kw))

    def malformed(self, text: str = "Sure! Here are the changes: ops = [...]",
                  prompt_tokens: int = 1200, completion_tokens: int = 20) -> Reply:
        return Reply(200, self.completion(text, prompt_tokens, completion_tokens))

    def auto_reply(self, body: dict[str, Any]) -> Reply:
        fmt = body.get("response_format") or {}
        schema = (fmt.get("json_schema") or {}).get("schema") or {"type": "object"}
        content = json.dumps(minimal_instance(schema))
        messages = body.get("messages") or []
        texts = [m.get("content") if isinstance(m.get("content"), str) else
                 json.dumps(m.get("content")) for m in messages]
        schema_text = schema_prompt(fmt.get("json_schema", {}).get("schema"))
        prompt_tokens = tokens.count(schema_text) + sum(tokens.count(t or "") for t in texts)
        prefix = schema_text + (texts[0] if messages and messages[0].get("role") in (
            "system", "developer") else "")
        prefix_tokens = tokens.count(prefix)
        cached, _ = self._cached(prefix, prefix_tokens)
        cached = (cached // CACHE_STEP_TOKENS) * CACHE_STEP_TOKENS
        completion_tokens = tokens.count(content)
        self._account(prompt_tokens, completion_tokens, cached)
        return Reply(200, self.completion(content, prompt_tokens, completion_tokens, cached,
                                          model=str(body.get("model"))))


class FakeAnthropicServer(FakeServer):
    """Speaks ``POST /v1/messages``; ``base_url`` is what the SDK wants."""

    paths = ("/v1/messages",)

    @property
    def base_url(self) -> str:
        return self.url

    @staticmethod
    def message(content: list[dict[str, Any]], input_tokens: int = 0, output_tokens: int = 0,
                cache_read: int = 0, cache_creation: int = 0,
                model: str = "claude-haiku-4-5", stop_reason: str = "tool_use") -> dict[str, Any]:
        return {
            "id": "msg_" + hashlib.sha1(json.dumps(content).encode()).hexdigest()[:20],
            "type": "message",
            "role": "assistant",
            "model": model,
            "content": content,
            "stop_reason": stop_reason,
            "stop_sequence": None,
            "usage": {
                "input_tokens": input_tokens,
                "output_tokens": output_tokens,
                "cache_read_input_tokens": cache_read,
                "cache_creation_input_tokens": cache_creation,
            },
        }

    @staticmethod
    def tool_use(data: Any, name: str = "answer") -> dict[str, Any]:
        return {"type": "tool_use", "id": "toolu_01test", "name": name, "input": data}

    def answer(self, data: Any, input_tokens: int = 300, output_tokens: int = 80,
               cache_read: int = 0, cache_creation: int = 0, name: str = "answer",
               **kw: Any) -> Reply:
        return Reply(200, self.message([self.tool_use(data, name)], input_tokens, output_tokens,
                                       cache_read, cache_creation, **kw))

    def malformed(self, text: str = "I think the answer is probably: ops = [...]",
                  input_tokens: int = 300, output_tokens: int = 20) -> Reply:
        return Reply(200, self.message([{"type": "text", "text": text}], input_tokens,
                                       output_tokens, stop_reason="end_turn"))

    def overloaded(self) -> Reply:
        return Reply(529, {"type": "error",
                           "error": {"type": "overloaded_error", "message": "Overloaded"}})

    def auto_reply(self, body: dict[str, Any]) -> Reply:
        tools = body.get("tools") or [{}]
        choice = body.get("tool_choice") or {}
        tool = next((t for t in tools if t.get("name") == choice.get("name")), tools[0])
        data = minimal_instance(tool.get("input_schema") or {"type": "object"})
        system = body.get("system") or []
        if isinstance(system, str):
            system = [{"type": "text", "text": system}]
        tools_text = "".join(schema_prompt(t.get("input_schema")) for t in tools)
        cached_text = "".join(b.get("text", "") for b in system if b.get("cache_control"))
        # a cache breakpoint on the system prompt caches the tools before it as well
        cached_text = tools_text + cached_text if cached_text else ""
        other_system = "".join(b.get("text", "") for b in system if not b.get("cache_control"))
        if not cached_text:
            other_system = tools_text + other_system
        messages = body.get("messages") or []
        body_text = "".join(m["content"] if isinstance(m.get("content"), str)
                            else json.dumps(m.get("content")) for m in messages)
        prefix_tokens = tokens.count(cached_text)
        read, wrote = self._cached(cached_text, prefix_tokens)
        creation = prefix_tokens if wrote else 0
        plain = tokens.count(other_system) + tokens.count(body_text) + \
            (prefix_tokens if not (read or creation) else 0)
        output_tokens = tokens.count(json.dumps(data))
        self._account(plain + read + creation, output_tokens, read)
        return Reply(200, self.message([self.tool_use(data, tool.get("name", "answer"))], plain,
                                       output_tokens, read, creation,
                                       model=str(body.get("model"))))
