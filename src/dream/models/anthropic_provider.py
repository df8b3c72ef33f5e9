"""The ``anthropic`` provider: the Messages API through the official SDK.

Spec ``anthropic:MODEL``. The stable prefix is one system block marked
``cache_control: {"type": "ephemeral"}``, so every call of a run after the first reads the
shared state from Anthropic's prompt cache; the per-call body is the user message. The
answer is structured through a single tool, ``answer``, whose ``input_schema`` is the
request's schema, forced with ``tool_choice``. Settings from ``[model]`` of config.toml:

``anthropic_base_url`` (or env ANTHROPIC_BASE_URL; default https://api.anthropic.com),
``anthropic_api_key_env`` (default ANTHROPIC_API_KEY), ``temperature``, ``timeout``,
``max_retries``, ``backoff_base``, ``backoff_max``, ``max_wait``.

Token accounting: ``input_tokens`` is everything read (uncached input + cache reads + cache
writes), ``cached_tokens`` the cache reads, ``cache_write_tokens`` the cache writes.
"""

from __future__ import annotations

from typing import Any

from dream.errors import ConfigError
from dream.models.base import ModelRequest, ModelResponse, sealed
from dream.models.transport import RetryPolicy, connect_settings, malformed

ANTHROPIC_URL = "https://api.anthropic.com"
TOOL_NAME = "answer"
MAX_TEMPERATURE = 1         # Messages API: 0 to 1 (config.toml's RANGES allow OpenAI's 0 to 2)


def make(arg: str, settings: dict[str, Any]) -> AnthropicProvider:
    return AnthropicProvider(arg, settings)


class AnthropicProvider:
    name = "anthropic"
    charges_per_call = True     # billed per request: calls shared across scopes

    def __init__(self, model: str, settings: dict[str, Any]) -> None:
        import anthropic

        temperature = settings.get("temperature")
        if temperature is not None and temperature > MAX_TEMPERATURE:
            # config.toml takes 0 to 2 (OpenAI's range): above 1, the API refused every
            # call of a run, one after another; refused here, before any item is claimed
            raise ConfigError(f"[model] temperature = {temperature} is above "
                              f"{MAX_TEMPERATURE}, the most the Anthropic API takes",
                              "set temperature in [model] of config.toml to a number from 0 "
                              "to 1, such as 0.2 (or remove it)")
        self.model, self.endpoint, key = connect_settings(
            "anthropic", model, settings, default_url=ANTHROPIC_URL, example="claude-haiku-4-5",
            hosted=lambda url: url == ANTHROPIC_URL,
            no_key_hint="name another variable with anthropic_api_key_env in [model] of "
                        "config.toml")
        self.temperature = settings.get("temperature")
        self.retry = RetryPolicy.from_settings(settings)
        self.client = anthropic.Anthropic(api_key=key, base_url=self.endpoint.base_url,
                                          timeout=self.endpoint.timeout,
                                          max_retries=0)

    def build(self, request: ModelRequest) -> dict[str, Any]:
        kwargs: dict[str, Any] = {
            "model": self.model,
            "max_tokens": request.max_output_tokens,
            "messages": [{"role": "user", "content": request.body}],
            "tools": [{
                "name": TOOL_NAME,
                "description": f"Record the {request.purpose or 'requested'} answer. Call this "
                               "tool exactly once with the complete answer.",
                "input_schema": request.schema,
            }],
            "tool_choice": {"type": "tool", "name": TOOL_NAME},
        }
        if request.prefix:
            kwargs["system"] = [{"type": "text", "text": request.prefix,
                                 "cache_control": {"type": "ephemeral"}}]
        if self.temperature is not None:
            # in the request body, not as an argument: SDK 1.0 took 'temperature' out of
            # messages.create(), which then failed every call with a TypeError ("anthropic
            # call failed (TypeError)"); the API still takes it, and 0.x sends it the same
            kwargs["extra_body"] = {"temperature": float(self.temperature)}
        return kwargs

    def complete(self, request: ModelRequest) -> ModelResponse:
        kwargs = self.build(sealed(request))
        message, calls = self.retry.run(lambda: self.client.messages.create(**kwargs),
                                        self.endpoint)
        return self.parse(message, calls)

    def parse(self, message: Any, calls: int) -> ModelResponse:
        usage = getattr(message, "usage", None)
        plain = int(getattr(usage, "input_tokens", 0) or 0)
        read = int(getattr(usage, "cache_read_input_tokens", 0) or 0)
        wrote = int(getattr(usage, "cache_creation_input_tokens", 0) or 0)
        counts = {"input_tokens": plain + read + wrote,
                  "output_tokens": int(getattr(usage, "output_tokens", 0) or 0),
                  "cached_tokens": read}
        if getattr(message, "stop_reason", None) == "max_tokens":
            raise malformed("anthropic", "cut off at the output token limit", calls, **counts)
        block = next((b for b in getattr(message, "content", None) or []
                      if getattr(b, "type", None) == "tool_use"
                      and getattr(b, "name", None) == TOOL_NAME), None)
        if block is None:
            raise malformed("anthropic", f"no call of the '{TOOL_NAME}' tool", calls, **counts)
        data = block.input
        if not isinstance(data, dict):
            raise malformed("anthropic", "tool input is not a JSON object", calls, **counts)
        return ModelResponse(data=data, raw=_raw(data), calls=calls, cache_write_tokens=wrote,
                             **counts)


def _raw(data: dict[str, Any]) -> str:
    import json

    return json.dumps(data, ensure_ascii=False)
