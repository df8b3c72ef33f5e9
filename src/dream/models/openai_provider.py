"""The ``openai`` provider: any OpenAI-compatible Chat Completions endpoint.

Spec ``openai:MODEL``; works with OpenAI, vLLM, Ollama, llama.cpp server and LM Studio by
base URL. The request puts the stable prefix first (system message) and the per-call body
second, so provider-side prefix caching applies, and asks for structured output with
``response_format={"type": "json_schema", ...}`` (or ``json_object`` for servers that only
have JSON mode). Settings come from ``[model]`` of config.toml, passed in by entry points:

``openai_base_url`` (or env OPENAI_BASE_URL; default https://api.openai.com/v1),
``openai_api_key_env`` (default OPENAI_API_KEY; a local server works without a key),
``openai_response_format`` (json_schema | json_object), ``openai_strict`` (auto | true |
false), ``openai_max_tokens_param`` (max_completion_tokens | max_tokens), ``temperature``,
``timeout`` (seconds, default 120), ``max_retries``, ``backoff_base``, ``backoff_max``,
``max_wait`` (see :mod:`dream.models.transport`).
"""

from __future__ import annotations

import json
import re
from typing import Any

from dream import tokens
from dream.errors import ModelError
from dream.models.base import ModelRequest, ModelResponse, sealed
from dream.models.transport import RetryPolicy, connect_settings, malformed

OPENAI_URL = "https://api.openai.com/v1"
FORMATS = ("json_schema", "json_object")
_FENCE = re.compile(r"^\s*```(?:json)?\s*\n(.*?)\n?```\s*$", re.DOTALL)


def make(arg: str, settings: dict[str, Any]) -> OpenAIProvider:
    return OpenAIProvider(arg, settings)


def strict_compatible(schema: Any) -> bool:
    """True when OpenAI's strict mode would accept the schema: every object closes its
    properties (additionalProperties false) and requires all of them."""
    if isinstance(schema, dict):
        if schema.get("type") == "object" or "properties" in schema:
            props = schema.get("properties", {})
            if schema.get("additionalProperties") is not False:
                return False
            if set(schema.get("required", [])) != set(props):
                return False
        return all(strict_compatible(v) for v in schema.values())
    if isinstance(schema, list):
        return all(strict_compatible(v) for v in schema)
    return True


def _flag(value: Any, name: str) -> bool | None:
    if value in (None, "auto"):
        return None
    if isinstance(value, bool):
        return value
    if str(value).lower() in ("true", "1", "yes"):
        return True
    if str(value).lower() in ("false", "0", "no"):
        return False
    raise ModelError(f"bad {name} '{value}' in [model]", f"use {name} = \"auto\", true or false")


def _is_openai(base_url: str) -> bool:
    return base_url.startswith(OPENAI_URL.rsplit("/", 1)[0])


class OpenAIProvider:
    name = "openai"
    charges_per_call = True     # billed per request: calls shared across scopes

    def __init__(self, model: str, settings: dict[str, Any]) -> None:
        import openai

        self.model, self.endpoint, key = connect_settings(
            "openai", model, settings, default_url=OPENAI_URL, example="gpt-4o-mini",
            hosted=_is_openai,
            no_key_hint="set openai_base_url in [model] of config.toml to a local server")
        is_openai = _is_openai(self.endpoint.base_url)
        self.response_format = str(settings.get("openai_response_format") or "json_schema")
        if self.response_format not in FORMATS:
            raise ModelError(f"bad openai_response_format '{self.response_format}' in [model]",
                             f"use one of {', '.join(FORMATS)}")
        self.strict = _flag(settings.get("openai_strict"), "openai_strict")
        self.max_tokens_param = str(settings.get("openai_max_tokens_param") or
                                    ("max_completion_tokens" if is_openai else "max_tokens"))
        self.temperature = settings.get("temperature")
        self.retry = RetryPolicy.from_settings(settings)
        self.client = openai.OpenAI(api_key=key, base_url=self.endpoint.base_url,
                                    timeout=self.endpoint.timeout,
                                    max_retries=0)

    # -- request -----------------------------------------------------------------------
    def build(self, request: ModelRequest) -> dict[str, Any]:
        messages: list[dict[str, str]] = []
        if request.prefix:
            messages.append({"role": "system", "content": request.prefix})
        if self.response_format == "json_object":
            # JSON mode has no schema parameter: the schema goes in the prompt (after the
            # shared prefix, so the prefix stays cacheable), with the word JSON it requires
            messages.append({"role": "system", "content": "Answer with one JSON object that "
                             "follows this JSON schema:\n" + json.dumps(request.schema)})
        messages.append({"role": "user", "content": request.body})
        kwargs: dict[str, Any] = {"model": self.model, "messages": messages,
                                  self.max_tokens_param: request.max_output_tokens}
        if self.response_format == "json_schema":
            strict = strict_compatible(request.schema) if self.strict is None else self.strict
            kwargs["response_format"] = {"type": "json_schema", "json_schema": {
                "name": re.sub(r"[^A-Za-z0-9_-]", "_", request.purpose or "answer")[:64],
                "schema": request.schema, "strict": strict}}
        else:
            kwargs["response_format"] = {"type": "json_object"}
        if self.temperature is not None:
            kwargs["temperature"] = float(self.temperature)
        return kwargs

    # -- call --------------------------------------------------------------------------
    def complete(self, request: ModelRequest) -> ModelResponse:
        kwargs = self.build(sealed(request))
        completion, calls = self.retry.run(
            lambda: self.client.chat.completions.create(**kwargs), self.endpoint)
        return self.parse(completion, calls, kwargs["messages"])

    def parse(self, completion: Any, calls: int, messages: list[dict[str, str]]) -> ModelResponse:
        usage = getattr(completion, "usage", None)
        choice = completion.choices[0] if getattr(completion, "choices", None) else None
        content = getattr(getattr(choice, "message", None), "content", None)
        if usage is not None:
            input_tokens = int(usage.prompt_tokens or 0)
            output_tokens = int(usage.completion_tokens or 0)
            details = getattr(usage, "prompt_tokens_details", None)
            cached = int(getattr(details, "cached_tokens", 0) or 0)
        else:  # some local servers omit usage: count with the real tokenizer instead
            input_tokens = sum(tokens.count(m["content"]) for m in messages)
            output_tokens = tokens.count(content or "")
            cached = 0
        counts = {"input_tokens": input_tokens, "output_tokens": output_tokens,
                  "cached_tokens": cached}
        if choice is None:
            raise malformed("openai", "no choices in the reply", calls, **counts)
        refusal = getattr(choice.message, "refusal", None)
        if refusal:
            raise ModelError(f"openai model {self.model} refused: {str(refusal)[:200]}",
                             "check the prompt content or use another --model")
        if choice.finish_reason == "length":
            raise malformed("openai", "cut off at the output token limit", calls, **counts)
        if not content:
            raise malformed("openai", "empty reply", calls, **counts)
        data = parse_json_object(content)
        if data is None:
            raise malformed("openai", "not a JSON object", calls, **counts)
        return ModelResponse(data=data, raw=content, calls=calls, **counts)


def parse_json_object(text: str) -> dict[str, Any] | None:
    """The JSON object in ``text`` (one surrounding ```json fence allowed), else None."""
    fenced = _FENCE.match(text)
    if fenced:
        text = fenced.group(1)
    try:
        data = json.loads(text)
    except ValueError:
        return None
    return data if isinstance(data, dict) else None
