"""The ``scripted`` provider: replays recorded answers, for tests and benchmarks.

Specs:

- ``scripted:/path/answers.jsonl`` replays answers from a file, one JSON object a line:
  either a bare answer (``{"ops": [...]}``) or ``{"purpose": "propose"|"sweep",
  "match": "text", "data": {...}, "input_tokens": n, "output_tokens": n,
  "cached_tokens": n}``. An entry with ``match`` answers the first call whose body
  contains that text; others answer calls in order. A call with nothing left gets an empty
  answer (``{"ops": []}``). Every call is appended to ``<path>.calls.jsonl`` (purpose,
  bundle ids), so a test can see what was called.
- ``scripted`` (no argument) replays the in-memory queue filled with :func:`enqueue`, like
  llm's ``MockModel.enqueue``.
- ``scripted:zero`` answers instantly with one synthetic op per bundle, citing the bundle's
  first evidence item (the engine benchmark's zero-latency model).
"""

from __future__ import annotations

import json
import threading
from collections import deque
from pathlib import Path
from typing import Any

from dream.errors import ModelError
from dream.models.base import ModelRequest, ModelResponse

_QUEUE: deque[dict[str, Any]] = deque()
_QUEUE_LOCK = threading.Lock()


def enqueue(data: dict[str, Any], purpose: str = "propose", **tokens: int) -> None:
    with _QUEUE_LOCK:
        _QUEUE.append({"purpose": purpose, "data": data, **tokens})


def clear() -> None:
    with _QUEUE_LOCK:
        _QUEUE.clear()


class ScriptedProvider:
    name = "scripted"

    def __init__(self, arg: str) -> None:
        self.model = arg or "queue"
        self.arg = arg
        self._lock = threading.Lock()
        self._log: Path | None = None
        self.entries: list[dict[str, Any]] | None = None
        if arg and arg != "zero":
            path = Path(arg).expanduser()
            if not path.exists():
                raise ModelError(f"scripted answers file {path} does not exist",
                                 "give an existing JSONL file: --model scripted:PATH")
            self.entries = []
            for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
                if not line.strip():
                    continue
                try:
                    entry = json.loads(line)
                except json.JSONDecodeError as exc:
                    raise ModelError(f"{path}:{n} is not JSON ({exc.msg})",
                                     "fix the answers file") from exc
                if "data" not in entry:
                    entry = {"data": entry}
                self.entries.append(entry)
            self._log = path.with_name(path.name + ".calls.jsonl")

    def _take(self, request: ModelRequest) -> dict[str, Any] | None:
        if self.entries is None:
            with _QUEUE_LOCK:
                for entry in list(_QUEUE):
                    if entry.get("purpose", "propose") == request.purpose:
                        _QUEUE.remove(entry)
                        return entry
            return None
        with self._lock:
            candidates = [e for e in self.entries
                          if e.get("purpose", "propose") == request.purpose]
            for entry in candidates:
                if entry.get("match") and entry["match"] in request.body:
                    self.entries.remove(entry)
                    return entry
            for entry in candidates:
                if not entry.get("match"):
                    self.entries.remove(entry)
                    return entry
        return None

    def complete(self, request: ModelRequest) -> ModelResponse:
        if self.arg == "zero":
            return ModelResponse(data=_synthetic(request), calls=1)
        if self._log is not None:
            with self._lock, self._log.open("a", encoding="utf-8") as fh:
                fh.write(json.dumps({
                    "purpose": request.purpose,
                    "bundles": [b.get("id") for b in request.payload.get("bundles", [])],
                }) + "\n")
        entry = self._take(request)
        if entry is None:
            empty = {"decisions": []} if request.purpose == "merge" else {"ops": []}
            return ModelResponse(data=empty, calls=1)
        data = entry["data"]
        if data == "malformed":
            raise ModelError("scripted: malformed answer", "the script says so")
        return ModelResponse(
            data=data, input_tokens=int(entry.get("input_tokens", 0)),
            output_tokens=int(entry.get("output_tokens", 0)),
            cached_tokens=int(entry.get("cached_tokens", 0)), raw=json.dumps(data), calls=1)


def _synthetic(request: ModelRequest) -> dict[str, Any]:
    if request.purpose == "merge":
        return {"decisions": []}
    if request.purpose != "propose":
        return {"ops": []}
    ops = []
    for bundle in request.payload.get("bundles", []):
        first = next((i for i in bundle["items"] if i["evidence"]), None)
        if first is None:
            continue
        topic = (bundle.get("entities") or [bundle["id"]])[0]
        ops.append({"op": "note.add", "name": f"{topic} {first['said_at'][:10]}",
                    "fields": [{"name": "text", "value": first["text"][:200]},
                               {"name": "type", "value": "fact"}],
                    "evidence": [first["handle"]]})
    return {"ops": ops}


def make(arg: str, settings: dict[str, Any]) -> ScriptedProvider:
    return ScriptedProvider(arg)
