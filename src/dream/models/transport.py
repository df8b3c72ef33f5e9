"""Retries, backoff and error translation shared by the HTTP providers.

The official SDKs are built with ``max_retries=0``: every retry is made here, so the number
of HTTP calls a response cost is known exactly (``ModelResponse.calls``), the wait honours
``Retry-After`` and is bounded, and tests can make the sleep instant.

What is retried: HTTP 408, 409, 429 and every 5xx (Anthropic's 529 "overloaded" included),
at most ``max_retries`` times after the first call, waiting ``Retry-After`` (or
``retry-after-ms``) when the server sends it and ``backoff_base * 2**n`` seconds otherwise,
never more than ``backoff_max``. A Retry-After longer than ``max_wait`` gives up at once
rather than sleep for minutes. What is not retried: timeouts, refused connections, bad keys
and other 4xx; they become a :class:`ProviderFailure` whose hint names the setting to fix.
Nothing here logs a request body, a header or a key.
"""

from __future__ import annotations

import email.utils
import os
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, TypeVar

from dream.errors import ModelError

T = TypeVar("T")

RETRY_STATUSES = frozenset({408, 409, 429})


class ProviderFailure(ModelError):
    """A :class:`ModelError` that also says how many HTTP calls were made and what they
    cost, so callers can account for failed attempts too."""

    def __init__(self, message: str, hint: str = "", calls: int = 1, input_tokens: int = 0,
                 output_tokens: int = 0, cached_tokens: int = 0) -> None:
        super().__init__(message, hint)
        self.calls = calls
        self.input_tokens = input_tokens
        self.output_tokens = output_tokens
        self.cached_tokens = cached_tokens


def malformed(provider: str, what: str, calls: int = 1, **usage: int) -> ProviderFailure:
    """The reply came back but is not one JSON object: ``call_validated`` retries once."""
    return ProviderFailure(
        f"{provider} sent a malformed answer ({what})",
        "the answer is retried once; if it keeps happening use a model that supports "
        "structured output",
        calls=calls, **usage)


@dataclass
class Endpoint:
    """What error messages may say about where a provider talks to (never a key)."""

    provider: str          # 'openai' | 'anthropic'
    base_url: str
    key_env: str           # the environment variable the key came from
    timeout: float


def connect_settings(provider: str, model: str, settings: dict[str, Any], *, default_url: str,
                     example: str, hosted: Callable[[str], bool],
                     no_key_hint: str) -> tuple[str, Endpoint, str]:
    """The model, endpoint and API key of a hosted provider from ``[model]`` settings and the
    environment (``<provider>_base_url`` or ``<PROVIDER>_BASE_URL``, the key from the
    variable ``<provider>_api_key_env`` names, ``timeout``). A server that is not the hosted
    service may go without a key (a local server or a gateway holding it)."""
    model = model or str(settings.get(f"{provider}_model") or "")
    if not model:
        raise ModelError(f"no model named for the {provider} provider",
                         f"give one, for example --model {provider}:{example}")
    upper = provider.upper()
    base_url = str(settings.get(f"{provider}_base_url") or os.environ.get(f"{upper}_BASE_URL")
                   or default_url).rstrip("/")
    key_env = str(settings.get(f"{provider}_api_key_env") or f"{upper}_API_KEY")
    key = os.environ.get(key_env, "")
    if not key:
        if hosted(base_url):
            raise ModelError(f"no API key for {base_url}: {key_env} is not set",
                             f"export {key_env}=..., or {no_key_hint}")
        key = "not-needed"
    try:
        timeout = float(settings.get("timeout", 120))
    except (TypeError, ValueError) as exc:
        raise ModelError(f"bad timeout '{settings.get('timeout')}' in [model]",
                         "timeout is a number of seconds") from exc
    return model, Endpoint(provider, base_url, key_env, timeout), key


@dataclass
class RetryPolicy:
    max_retries: int = 3
    backoff_base: float = 1.0
    backoff_max: float = 30.0
    max_wait: float = 120.0
    sleep: Callable[[float], None] = time.sleep
    waits: list[float] = field(default_factory=list)   # every wait taken, for tests and logs

    @classmethod
    def from_settings(cls, settings: dict[str, Any]) -> RetryPolicy:
        try:
            return cls(
                max_retries=int(settings.get("max_retries", 3)),
                backoff_base=float(settings.get("backoff_base", 1.0)),
                backoff_max=float(settings.get("backoff_max", 30.0)),
                max_wait=float(settings.get("max_wait", 120.0)),
            )
        except (TypeError, ValueError) as exc:
            raise ModelError(f"bad retry setting in [model] ({exc})",
                             "max_retries is a whole number; backoff_base, backoff_max and "
                             "max_wait are seconds") from exc

    def wait_for(self, retry_number: int, retry_after: float | None) -> float:
        if retry_after is not None:
            return max(0.0, retry_after)
        return min(self.backoff_max, self.backoff_base * (2 ** retry_number))

    def run(self, call: Callable[[], T], endpoint: Endpoint) -> tuple[T, int]:
        """Make ``call`` until it succeeds or fails for good. Returns (result, HTTP calls)."""
        calls = 0
        while True:
            calls += 1
            try:
                return call(), calls
            except Exception as exc:  # SDK errors: classified by duck typing below
                status = getattr(exc, "status_code", None)
                retryable = isinstance(status, int) and (status in RETRY_STATUSES
                                                         or status >= 500)
                if not retryable:
                    raise translate(exc, endpoint, calls) from exc
                retry_after = parse_retry_after(getattr(exc, "response", None))
                if calls > self.max_retries:
                    raise ProviderFailure(
                        f"{endpoint.provider} endpoint {endpoint.base_url} kept answering "
                        f"HTTP {status} after {calls} calls",
                        _busy_hint(status), calls=calls) from exc
                if retry_after is not None and retry_after > self.max_wait:
                    raise ProviderFailure(
                        f"{endpoint.provider} endpoint {endpoint.base_url} asked to wait "
                        f"{retry_after:g}s (HTTP {status})",
                        "try again later, or raise max_wait in [model] of config.toml",
                        calls=calls) from exc
                wait = self.wait_for(calls - 1, retry_after)
                self.waits.append(wait)
                self.sleep(wait)


def _busy_hint(status: int) -> str:
    if status == 429:
        return ("you are rate limited: wait, lower run.pack_tokens or raise max_retries in "
                "[model] of config.toml")
    return "the server is failing or overloaded: try again later or raise max_retries"


def parse_retry_after(response: Any) -> float | None:
    """Seconds from ``retry-after-ms`` or ``Retry-After`` (seconds or an HTTP date)."""
    headers = getattr(response, "headers", None)
    if headers is None:
        return None
    ms = headers.get("retry-after-ms")
    if ms:
        try:
            return float(ms) / 1000.0
        except ValueError:
            pass
    value = headers.get("retry-after")
    if not value:
        return None
    try:
        return float(value)
    except ValueError:
        pass
    try:
        when = email.utils.parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    return max(0.0, when.timestamp() - time.time())


def _server_message(exc: Any) -> str:
    body = getattr(exc, "body", None)
    message = ""
    if isinstance(body, dict):
        inner = body.get("error", body)
        if isinstance(inner, dict):
            message = str(inner.get("message") or "")
        elif isinstance(inner, str):
            message = inner
    message = message or str(getattr(exc, "message", "") or "")
    return " ".join(message.split())[:200]


def translate(exc: Exception, endpoint: Endpoint, calls: int) -> ModelError:
    """One sentence and one hint for an error that is not worth retrying."""
    where = f"{endpoint.provider} endpoint {endpoint.base_url}"
    url_key = f"{endpoint.provider}_base_url"
    status = getattr(exc, "status_code", None)
    name = type(exc).__name__
    if status is None and "Timeout" in name:
        return ProviderFailure(
            f"no answer from {where} within {endpoint.timeout:g}s",
            "raise timeout in [model] of config.toml, or use a faster or smaller model",
            calls=calls)
    if status is None and "Connection" in name:
        return ProviderFailure(
            f"cannot reach {where}",
            f"check {url_key} in [model] of config.toml and that the server is running",
            calls=calls)
    if status in (401, 403):
        # never echo the server's message here: some quote part of the key
        return ProviderFailure(
            f"{where} refused the API key (HTTP {status})",
            f"set {endpoint.key_env} to a valid key (or name another variable with "
            f"{endpoint.provider}_api_key_env in [model] of config.toml)",
            calls=calls)
    if status == 404:
        return ProviderFailure(
            f"{where} has no such model or route (HTTP 404: {_server_message(exc)})",
            f"check the model name in --model and {url_key} (OpenAI-compatible servers "
            "usually end in /v1)", calls=calls)
    if isinstance(status, int):
        hint = "check the model name and the request settings in [model] of config.toml"
        if endpoint.provider == "openai" and status in (400, 422):
            hint = ("if the server does not support JSON-schema output, set "
                    "openai_response_format = \"json_object\" in [model] of config.toml")
        return ProviderFailure(
            f"{where} rejected the request (HTTP {status}: {_server_message(exc)})", hint,
            calls=calls)
    return ProviderFailure(f"{endpoint.provider} call failed ({name})",
                           f"check {url_key} and the model name", calls=calls)
