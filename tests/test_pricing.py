"""The pricing table: built-in prices, families, config overrides, unknown models."""

from __future__ import annotations

import pytest

from dream.config import Config
from dream.errors import ConfigError
from dream.models.pricing import (
    BUILTIN,
    PRICES_AS_OF,
    UnknownPrice,
    estimate,
    lookup,
    unknown_hint,
)


def test_builtin_price_with_cached_input():
    # 1M input of which 400k cached, 100k output on gpt-4o-mini
    cost = estimate("openai:gpt-4o-mini", 1_000_000, 100_000, cached_tokens=400_000)
    assert cost == pytest.approx(0.6 * 0.15 + 0.4 * 0.075 + 0.1 * 0.60)


def test_local_providers_cost_nothing():
    assert estimate("rules", 5_000_000, 1_000_000) == 0.0
    assert estimate("scripted:/tmp/answers.jsonl", 10, 10) == 0.0
    assert lookup("rules").source == "local"


def test_dated_snapshots_resolve_to_their_family_not_a_shorter_name():
    assert lookup("openai:gpt-4o-mini-2024-07-18") == BUILTIN["gpt-4o-mini"]
    assert lookup("openai:gpt-4o-2024-08-06") == BUILTIN["gpt-4o"]
    assert lookup("anthropic:claude-sonnet-4-5-20250929") == BUILTIN["claude-sonnet-4-5"]
    assert lookup("anthropic:claude-opus-4-1-20250805") == BUILTIN["claude-opus-4-1"]
    assert lookup("openai:gpt-4o-minimal") is None          # no '-' boundary: not a family


def test_unknown_model_is_reported_not_invented():
    assert lookup("openai:llama3.1:8b") is None
    with pytest.raises(UnknownPrice) as err:
        estimate("openai:llama3.1:8b", 1000, 100)
    line = err.value.one_line()
    assert 'price unknown: add [pricing."llama3.1:8b"]' in line and "config.toml" in line
    assert unknown_hint("openai:qwen2.5") .startswith('price unknown: add [pricing."qwen2.5"]')


def test_config_overrides_extend_and_replace(tmp_path):
    path = tmp_path / "config.toml"
    path.write_text(
        '[pricing."llama3.1:8b"]\ninput = 0\noutput = 0\n\n'
        '[pricing."gpt-4o-mini"]\ninput = 1.0\ncached_input = 0.5\noutput = 2.0\n\n'
        '[pricing."openai:my-finetune"]\ninput = 3\noutput = 12\n', encoding="utf-8")
    overrides = Config.load(path).data["pricing"]
    assert estimate("openai:llama3.1:8b", 10**6, 10**6, overrides=overrides) == 0.0
    assert estimate("openai:gpt-4o-mini-2024-07-18", 10**6, 10**6, 10**6, overrides) == \
        pytest.approx(0.5 + 2.0)
    assert estimate("openai:my-finetune", 10**6, 0, overrides=overrides) == pytest.approx(3.0)
    assert lookup("openai:gpt-4o-mini", overrides).source == "config"
    # missing cached_input: cached tokens cost the input price
    assert estimate("openai:my-finetune", 10**6, 0, 10**6, overrides) == pytest.approx(3.0)


@pytest.mark.parametrize("entry, message", [
    ({"input": 1.0}, "needs input and output"),
    ({"input": "cheap", "output": 1}, "not a number"),
    ({"input": -1, "output": 1}, "negative"),
    (3.0, "not a table"),
])
def test_bad_overrides_are_config_errors(entry, message):
    with pytest.raises(ConfigError, match=message):
        lookup("openai:x", {"x": entry})


def test_anthropic_cache_writes_cost_more_than_input():
    base = estimate("anthropic:claude-sonnet-4-5", 10_000, 0)
    written = estimate("anthropic:claude-sonnet-4-5", 10_000, 0, cache_write_tokens=10_000)
    assert written == pytest.approx(base * 1.25)


def test_table_is_dated_and_covers_the_common_families():
    assert PRICES_AS_OF[:4].isdigit()
    for name in ("gpt-4o", "gpt-4o-mini", "gpt-4.1", "gpt-4.1-mini", "o3", "o4-mini",
                 "claude-opus-4-5", "claude-sonnet-4-5", "claude-haiku-4-5"):
        price = BUILTIN[name]
        assert 0 < price.cached_input <= price.input < price.output


def test_only_dates_and_aliases_count_as_snapshots():
    assert lookup("anthropic:claude-3-5-haiku-latest") == BUILTIN["claude-3-5-haiku"]
    assert lookup("anthropic:claude-sonnet-4-5@20250929") == BUILTIN["claude-sonnet-4-5"]
    assert lookup("openai:o3-mini-2025-01-31") == BUILTIN["o3-mini"]
    assert lookup("openai:gpt-4o-audio-preview") is None
    assert lookup("openai:gpt-4o-mini-tts") is None
