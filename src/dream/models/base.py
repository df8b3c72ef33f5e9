"""The provider interface.

A provider implements one method, :meth:`Provider.complete`: a request goes in (a stable
prefix that is identical across the calls of a run, a per-call body, the JSON schema of the
expected answer, and a structured ``payload`` of the same input for code providers) and a
response comes out (parsed JSON plus token counts). Callers validate the JSON against their
own pydantic model; :func:`call_validated` retries once on an invalid answer.

Built-in providers register themselves exactly as a third party's would, with
:func:`register_provider`. A model spec is ``NAME`` or ``NAME:ARG`` (for example ``rules``,
``scripted:/path/answers.jsonl``, ``openai:gpt-4o-mini``, ``anthropic:claude-haiku-4-5``).
"""

from __future__ import annotations

import importlib
import re
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Protocol

from dream.errors import ModelError
from dream.secrets import redact


@dataclass
class ModelRequest:
    purpose: str                      # 'propose' | 'sweep' | 'merge' | 'review:<pass>'
    prefix: str                       # identical across calls: instructions, schema, state
    body: str                         # this call's content (the packed bundles)
    schema: dict[str, Any]            # JSON schema the answer must follow
    payload: dict[str, Any] = field(default_factory=dict)  # structured input for code providers
    max_output_tokens: int = 4096


USAGE_FIELDS = ("calls", "input_tokens", "output_tokens", "cached_tokens", "cache_write_tokens")


@dataclass
class ModelResponse:
    data: dict[str, Any]
    input_tokens: int = 0
    output_tokens: int = 0
    cached_tokens: int = 0            # part of input_tokens read from a prompt cache
    raw: str = ""
    calls: int = 1                    # HTTP calls it took (retries included)
    cache_write_tokens: int = 0       # part of input_tokens written to a prompt cache

    def usage(self) -> Counter[str]:
        """Calls and token counts, to be added up across the calls of a run."""
        return Counter({name: getattr(self, name) for name in USAGE_FIELDS})


class Provider(Protocol):
    name: str
    model: str

    def complete(self, request: ModelRequest) -> ModelResponse: ...


def charges_per_call(provider: object) -> bool:
    """True for a hosted model billed per request (``openai``, ``anthropic``): a run packs
    the bundles of all its scopes into one set of calls and sweeps only what a call could
    not see (see docs/run.md). Code providers (``rules``, ``scripted``) cost nothing per
    call and are called per scope, with every changed row swept, as they always were."""
    return bool(getattr(provider, "charges_per_call", False))


def sealed(request: ModelRequest) -> ModelRequest:
    """The request as it may leave the machine: prefix and body redacted once more
    (defence in depth; evidence was redacted when it was collected). Hosted providers call
    this on every request they send."""
    prefix, body = redact(request.prefix)[0], redact(request.body)[0]
    if prefix == request.prefix and body == request.body:
        return request
    return ModelRequest(request.purpose, prefix, body, request.schema, request.payload,
                        request.max_output_tokens)


ProviderFactory = Callable[[str, dict[str, Any]], Provider]
_REGISTRY: dict[str, ProviderFactory | str] = {
    # name -> factory, or 'module:attr' imported on first use (keeps start-up fast)
    "rules": "dream.models.rules:make",
    "scripted": "dream.models.scripted:make",
    "openai": "dream.models.openai_provider:make",
    "anthropic": "dream.models.anthropic_provider:make",
}


def register_provider(name: str, factory: ProviderFactory | str) -> None:
    _REGISTRY[name] = factory


# hosted providers need a model name (in the spec or [model] <provider>_model)
NAMED_MODELS = {"openai": "gpt-4o-mini", "anthropic": "claude-haiku-4-5"}
# code providers: they run on this machine, call no model and cost nothing (a dry run
# says so instead of pricing their calls as a hosted model's)
CODE_PROVIDERS = frozenset({"rules", "scripted"})


def known_provider(spec: str, settings: dict[str, Any] | None = None) -> ProviderFactory | str:
    """The registered factory of ``spec``'s provider; an unknown name, or a hosted provider
    with no model named (``openai:``), is a ModelError (a dry run checks this much without
    building the provider or reading its key: it priced 'openai:' as if it could run)."""
    name, _, arg = (spec or "rules").partition(":")
    factory = _REGISTRY.get(name)
    if factory is None:
        raise ModelError(
            f"unknown model provider '{name}'",
            f"use one of {', '.join(sorted(_REGISTRY))} (for example --model rules)",
        )
    if name in NAMED_MODELS and not arg.strip() and \
            not (settings or {}).get(f"{name}_model"):
        raise ModelError(f"no model named for the {name} provider",
                         f"give one, for example --model {name}:{NAMED_MODELS[name]}")
    return factory


def known_configured(spec: str, settings: dict[str, Any], where: str) -> None:
    """:func:`known_provider` of the model config.toml's ``[model] default`` names (read
    from ``where``): its error is said as that file's, since the user passed no --model
    ("for example --model rules" -> 'for example default = "rules"')."""
    try:
        known_provider(spec, settings)
    except ModelError as exc:
        hint = re.sub(r"--model ([^\s)]+)", r'default = "\1"', exc.hint)
        raise ModelError(f"model.default in {where} = {spec!r}: {exc.message}",
                         f"{hint}, under [model] there; or pass --model") from None


def get_provider(spec: str, settings: dict[str, Any] | None = None) -> Provider:
    """Build a provider from a spec such as ``openai:gpt-4o-mini``.

    ``settings`` is the ``[model]`` section of config.toml (base URLs, API key variable
    names, timeouts); entry points pass it in, providers never read config themselves.
    """
    name, _, arg = (spec or "rules").partition(":")
    factory = known_provider(spec, settings)
    if isinstance(factory, str):
        module, _, attr = factory.partition(":")
        try:
            factory = getattr(importlib.import_module(module), attr)
        except (ImportError, AttributeError) as exc:
            raise ModelError(f"provider '{name}' is not available ({exc})",
                             "reinstall Dream or choose another --model") from exc
        _REGISTRY[name] = factory
    return factory(arg, dict(settings or {}))


def call_validated(
    provider: Provider,
    request: ModelRequest,
    validate: Callable[[dict[str, Any]], Any],
) -> tuple[Any, ModelResponse]:
    """Call the provider and validate its answer, retrying once on an invalid answer.

    Returns ``(validated, response)`` where ``response`` sums the token counts of both
    attempts. Raises :class:`ModelError` when the second answer is invalid too; nothing
    half-parsed is returned.
    """
    total = ModelResponse(data={}, calls=0)
    last_error: Exception | None = None
    for _attempt in range(2):
        try:
            response = provider.complete(request)
        except ModelError as exc:
            if "malformed" not in exc.message:
                raise
            last_error = exc
            # providers raise transport.ProviderFailure, which knows the calls and tokens
            total.calls += getattr(exc, "calls", 1)
            total.input_tokens += getattr(exc, "input_tokens", 0)
            total.output_tokens += getattr(exc, "output_tokens", 0)
            total.cached_tokens += getattr(exc, "cached_tokens", 0)
            continue
        total.input_tokens += response.input_tokens
        total.output_tokens += response.output_tokens
        total.cached_tokens += response.cached_tokens
        total.cache_write_tokens += response.cache_write_tokens
        total.calls += response.calls
        total.raw = response.raw
        try:
            validated = validate(response.data)
        except Exception as exc:  # pydantic.ValidationError and friends
            last_error = exc
            continue
        total.data = response.data
        return validated, total
    from dream.models.transport import ProviderFailure  # a ModelError that carries the usage

    raise ProviderFailure(
        f"{provider.name} gave an invalid answer twice for {request.purpose} ({last_error})",
        "the run is recorded as partial (failed when no call of it succeeded); retry it with "
        "'dream run --retry RUN' or another --model",
        calls=total.calls, input_tokens=total.input_tokens, output_tokens=total.output_tokens,
        cached_tokens=total.cached_tokens,
    )
