"""Per-million-token prices for estimating what a run costs (``dream run --dry-run`` and the
``cost_usd`` of every run).

The built-in table holds list prices in US dollars per million tokens (input, cached input,
output, and for Anthropic the 5-minute cache write) as published on the providers' price
pages, compiled for :data:`PRICES_AS_OF`. Prices change: users extend or override the table
in config.toml, keyed by model name (``gpt-4o-mini``) or full spec (``openai:gpt-4o-mini``):

    [pricing."llama3.1:8b"]
    input = 0
    output = 0

    [pricing."gpt-4o-mini"]
    input = 0.15
    cached_input = 0.075
    output = 0.60

A model found in neither is *unknown*: :func:`lookup` returns None and :func:`estimate`
raises :class:`UnknownPrice`, whose message tells the user which table entry to add. No
number is invented. ``rules`` and ``scripted`` run locally and cost nothing.

Dated snapshots resolve to their family: ``gpt-4o-mini-2024-07-18`` -> ``gpt-4o-mini``,
``claude-sonnet-4-5-20250929`` -> ``claude-sonnet-4-5``, ``claude-3-5-haiku-latest`` ->
``claude-3-5-haiku``. Any other suffix is a different model (``gpt-4o-audio-preview`` is
not ``gpt-4o``) and is unknown until priced.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from dream.errors import ConfigError, ModelError

PRICES_AS_OF = "2026-03"
# what may follow a family name: a date (-2024-07-18, -20250929, @20250929), -latest, -v2:0
_SNAPSHOT = re.compile(r"^[-@](\d{4}-\d{2}-\d{2}|\d{8}|latest)(-v\d+(:\d+)?)?$")
FREE_PROVIDERS = frozenset({"rules", "scripted"})


@dataclass(frozen=True)
class Price:
    """US dollars per million tokens."""

    input: float
    output: float
    cached_input: float | None = None     # None: cached tokens cost the input price
    cache_write: float | None = None      # None: cache writes cost the input price
    source: str = "built-in"              # 'built-in' | 'config' | 'local'

    def cost(self, input_tokens: int, output_tokens: int, cached_tokens: int = 0,
             cache_write_tokens: int = 0) -> float:
        """``input_tokens`` includes the cached reads and the cache writes."""
        cached = min(max(cached_tokens, 0), max(input_tokens, 0))
        written = min(max(cache_write_tokens, 0), max(input_tokens - cached, 0))
        plain = max(input_tokens - cached - written, 0)
        cached_rate = self.input if self.cached_input is None else self.cached_input
        write_rate = self.input if self.cache_write is None else self.cache_write
        dollars = (plain * self.input + cached * cached_rate + written * write_rate
                   + max(output_tokens, 0) * self.output)
        return dollars / 1_000_000


def _p(input: float, cached: float, output: float, write: float | None = None) -> Price:
    return Price(input=input, cached_input=cached, output=output, cache_write=write)


# model -> price, USD per 1M tokens, as of PRICES_AS_OF
BUILTIN: dict[str, Price] = {
    # OpenAI (cached input is the automatic prompt-caching rate)
    "gpt-4o": _p(2.50, 1.25, 10.00),
    "gpt-4o-mini": _p(0.15, 0.075, 0.60),
    "gpt-4.1": _p(2.00, 0.50, 8.00),
    "gpt-4.1-mini": _p(0.40, 0.10, 1.60),
    "gpt-4.1-nano": _p(0.10, 0.025, 0.40),
    "gpt-5": _p(1.25, 0.125, 10.00),
    "gpt-5.1": _p(1.25, 0.125, 10.00),
    "gpt-5-mini": _p(0.25, 0.025, 2.00),
    "gpt-5-nano": _p(0.05, 0.005, 0.40),
    "o1": _p(15.00, 7.50, 60.00),
    "o1-mini": _p(1.10, 0.55, 4.40),
    "o3": _p(2.00, 0.50, 8.00),
    "o3-mini": _p(1.10, 0.55, 4.40),
    "o4-mini": _p(1.10, 0.275, 4.40),
    # Anthropic (cached input = cache hits; cache write = 5-minute cache writes, 1.25x input)
    "claude-opus-4-6": _p(5.00, 0.50, 25.00, 6.25),
    "claude-opus-4-5": _p(5.00, 0.50, 25.00, 6.25),
    "claude-opus-4-1": _p(15.00, 1.50, 75.00, 18.75),
    "claude-opus-4": _p(15.00, 1.50, 75.00, 18.75),
    "claude-sonnet-4-6": _p(3.00, 0.30, 15.00, 3.75),
    "claude-sonnet-4-5": _p(3.00, 0.30, 15.00, 3.75),
    "claude-sonnet-4": _p(3.00, 0.30, 15.00, 3.75),
    "claude-3-7-sonnet": _p(3.00, 0.30, 15.00, 3.75),
    "claude-3-5-sonnet": _p(3.00, 0.30, 15.00, 3.75),
    "claude-haiku-4-5": _p(1.00, 0.10, 5.00, 1.25),
    "claude-3-5-haiku": _p(0.80, 0.08, 4.00, 1.00),
    "claude-3-haiku": _p(0.25, 0.03, 1.25, 0.30),
    "claude-3-opus": _p(15.00, 1.50, 75.00, 18.75),
}


class UnknownPrice(ModelError):
    """The model is in neither the built-in table nor ``[pricing]`` of config.toml."""


def split_spec(spec: str) -> tuple[str, str]:
    """``openai:gpt-4o-mini`` -> ('openai', 'gpt-4o-mini'); ``rules`` -> ('rules', '')."""
    provider, _, model = (spec or "rules").partition(":")
    return provider, model


def _override(entry: Any, key: str) -> Price:
    if not isinstance(entry, dict):
        raise ConfigError(f"[pricing.\"{key}\"] in config.toml is not a table",
                          "write it as: input = <$ per 1M>, output = <$ per 1M>")
    try:
        values = {name: (None if entry.get(name) is None else float(entry[name]))
                  for name in ("input", "output", "cached_input", "cache_write")}
    except (TypeError, ValueError) as exc:
        raise ConfigError(f"[pricing.\"{key}\"] in config.toml has a price that is not a "
                          f"number ({exc})", "prices are dollars per million tokens") from exc
    if values["input"] is None or values["output"] is None:
        raise ConfigError(f"[pricing.\"{key}\"] in config.toml needs input and output",
                          "add input = <$ per 1M> and output = <$ per 1M>")
    if any(v is not None and v < 0 for v in values.values()):
        raise ConfigError(f"[pricing.\"{key}\"] in config.toml has a negative price",
                          "prices are dollars per million tokens, 0 or more")
    return Price(input=values["input"], output=values["output"],
                 cached_input=values["cached_input"], cache_write=values["cache_write"],
                 source="config")


def _family(model: str, names: Any) -> str | None:
    """The name in ``names`` that ``model`` is, or is a dated snapshot or alias of."""
    if model in names:
        return model
    for name in names:
        if model.startswith(name) and _SNAPSHOT.match(model[len(name):]):
            return name
    return None


def lookup(spec: str, overrides: dict[str, Any] | None = None) -> Price | None:
    """The price of a model spec, or None when it is unknown.

    ``overrides`` is the ``[pricing]`` section of config.toml; its entries win over the
    built-in table, by full spec first, then by model name (exact, then family).
    """
    provider, model = split_spec(spec)
    if provider in FREE_PROVIDERS:
        return Price(0.0, 0.0, 0.0, 0.0, source="local")
    overrides = overrides or {}
    for key in (spec, model):
        if key and key in overrides:
            return _override(overrides[key], key)
    if not model:
        return None
    family = _family(model, overrides)
    if family is not None:
        return _override(overrides[family], family)
    family = _family(model, BUILTIN)
    return BUILTIN[family] if family is not None else None


def unknown_hint(spec: str) -> str:
    _, model = split_spec(spec)
    key = model or spec
    return (f"price unknown: add [pricing.\"{key}\"] with input = .., cached_input = .., "
            "output = .. (dollars per million tokens) to config.toml")


def estimate(spec: str, input_tokens: int, output_tokens: int, cached_tokens: int = 0,
             overrides: dict[str, Any] | None = None, cache_write_tokens: int = 0) -> float:
    """Estimated US dollars for the given token counts; raises :class:`UnknownPrice`."""
    price = lookup(spec, overrides)
    if price is None:
        raise UnknownPrice(f"no price for model '{spec}'", unknown_hint(spec))
    return price.cost(input_tokens, output_tokens, cached_tokens, cache_write_tokens)
