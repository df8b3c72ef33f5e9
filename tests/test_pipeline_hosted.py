"""A whole dream through the hosted-model providers, against real local HTTP servers that
speak the OpenAI and Anthropic protocols (tests/fake_servers.py): the prompt layout, the
strict answer schema, token accounting from the response's usage, and cost."""

from __future__ import annotations

import json

import pytest
from fake_servers import FakeAnthropicServer, FakeOpenAIServer
from test_scenarios import fields, records, run_json, stage

from dream.models.openai_provider import strict_compatible

DINNER = {"ops": [{"op": "event.upsert", "name": "dinner nobu 2026-03-13",
                   "evidence": ["E1", "E2", "E3"], "row": None,
                   "fields": fields(title="Dinner at Nobu", date="2026-03-13", time="19:00",
                                    place="Nobu", status="confirmed")}]}
# the dinner and two notes that could be one, written by one answer: the call that wrote
# them saw both, so a billed run needs no sweep call for them (tests/test_pipeline_shared_calls)
DINNER_AND_NOTES = {"ops": DINNER["ops"] + [
    {"op": "note.add", "name": "nobu group bookings", "evidence": ["E1"], "row": None,
     "fields": fields(text="Nobu takes bookings for groups of six", type="fact")},
    {"op": "note.add", "name": "nobu table", "evidence": ["E2"], "row": None,
     "fields": fields(text="The table at Nobu is booked for six", type="fact")}]}


def test_dream_through_openai_protocol(dream, repo, dream_home, tmp_path, monkeypatch):
    dream("init")
    stage(tmp_path, "dinner_three_streams.jsonl")
    with FakeOpenAIServer() as server:
        monkeypatch.setenv("OPENAI_BASE_URL", server.base_url)
        monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
        server.enqueue(server.answer(DINNER_AND_NOTES, prompt_tokens=1500,
                                     completion_tokens=90, cached_tokens=1024))
        out = run_json(dream, "--model", "openai:gpt-4o-mini")
        (propose,) = server.requests
    assert out["status"] == "ok" and out["calls"] == 1
    assert (out["input_tokens"], out["output_tokens"], out["cached_tokens"]) == (1500, 90, 1024)
    assert out["details"]["scopes"]["user"]["sweep"] == "nothing to sweep"
    assert out["cost_usd"] > 0
    body = propose.body
    assert body["messages"][0]["role"] == "system"
    assert "CURRENT STATE" in body["messages"][0]["content"]          # shared prefix first
    assert "Jordan: Dinner on Friday at 7pm" in body["messages"][-1]["content"]  # the bundles
    schema = body["response_format"]["json_schema"]
    assert schema["strict"] is True and strict_compatible(schema["schema"])
    ev = records(dream_home, "events")["dinner-nobu-2026-03-13"]
    assert ev.get("status") == "confirmed" and len(ev.evidence()) == 3


def test_dream_through_anthropic_protocol_malformed_twice_fails(dream, repo, dream_home,
                                                                    tmp_path, monkeypatch):
    dream("init")
    stage(tmp_path, "dinner_three_streams.jsonl")
    with FakeAnthropicServer() as server:
        monkeypatch.setenv("ANTHROPIC_BASE_URL", server.url)
        monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-test")
        server.enqueue(server.malformed(), server.malformed())
        out = run_json(dream, "--model", "anthropic:claude-haiku-4-5", ok=False)
        assert out["status"] == "failed" and out["commit"] is None
        assert not (dream_home / "notes" / "user" / "events").exists()
        server.enqueue(server.answer(DINNER, input_tokens=300, output_tokens=80),
                       server.answer({"ops": []}))
        again = run_json(dream, "--model", "anthropic:claude-haiku-4-5", "--retry", out["id"])
        first = server.requests[-2].body
    assert again["status"] == "ok" and again["items"] == 3
    assert again["input_tokens"] >= 300 and again["output_tokens"] >= 80
    system = first["system"]
    text = json.dumps(system)
    assert "CURRENT STATE" in text and "cache_control" in text       # cached state prefix
    assert list(records(dream_home, "events")) == ["dinner-nobu-2026-03-13"]


@pytest.mark.parametrize("spec", ["openai:gpt-4o-mini", "anthropic:claude-haiku-4-5"])
def test_dry_run_with_a_hosted_model_calls_no_server(spec, dream, repo, tmp_path, monkeypatch):
    dream("init")
    stage(tmp_path, "dinner_three_streams.jsonl")
    with FakeOpenAIServer() as oai, FakeAnthropicServer() as ant:
        monkeypatch.setenv("OPENAI_BASE_URL", oai.base_url)
        monkeypatch.setenv("ANTHROPIC_BASE_URL", ant.url)
        monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
        monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-test")
        out = run_json(dream, "--model", spec, "--dry-run")
        assert oai.count() == 0 and ant.count() == 0
    assert out["status"] == "priced" and out["cost_usd"] > 0


def test_anthropic_cache_writes_are_priced_at_the_cache_write_rate(dream, repo, dream_home,
                                                                  tmp_path, monkeypatch):
    """Anthropic bills prompt-cache writes above plain input: the run's cost uses the
    response's cache_creation_input_tokens, not the plain input price."""
    from dream.models import pricing

    dream("init")
    stage(tmp_path, "dinner_three_streams.jsonl")
    with FakeAnthropicServer() as server:
        monkeypatch.setenv("ANTHROPIC_BASE_URL", server.url)
        monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-test")
        server.enqueue(server.answer(DINNER_AND_NOTES, input_tokens=100, output_tokens=80,
                                     cache_creation=4000, cache_read=4000))
        out = run_json(dream, "--model", "anthropic:claude-haiku-4-5")
    assert out["status"] == "ok" and out["cached_tokens"] == 4000
    shown = json.loads(dream("runs", "show", out["id"], "--json").output)
    assert shown["details"]["cache_write_tokens"] == 4000
    expected = pricing.estimate("anthropic:claude-haiku-4-5", out["input_tokens"],
                                out["output_tokens"], 4000, cache_write_tokens=4000)
    plain = pricing.estimate("anthropic:claude-haiku-4-5", out["input_tokens"],
                             out["output_tokens"], 4000)
    assert out["cost_usd"] == pytest.approx(expected, abs=1e-6) and expected > plain
