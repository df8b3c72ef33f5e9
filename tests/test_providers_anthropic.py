"""The anthropic provider against a real local HTTP server speaking /v1/messages."""

from __future__ import annotations

import json
import socket
import time

import pytest
from fake_servers import FakeAnthropicServer, Reply
from pydantic import BaseModel

from dream import tokens
from dream.errors import ModelError
from dream.models.base import ModelRequest, call_validated, get_provider
from dream.models.pricing import estimate
from dream.models.transport import ProviderFailure

SCHEMA = {
    "type": "object",
    "properties": {
        "ops": {"type": "array", "items": {"type": "object", "properties": {
            "op": {"type": "string"}, "evidence": {"type": "array", "items": {"type": "string"}}},
            "required": ["op", "evidence"]}},
        "questions": {"type": "array", "items": {"type": "string"}},
    },
    "required": ["ops"],
}


class Op(BaseModel):
    op: str
    evidence: list[str]


class Diff(BaseModel):
    ops: list[Op]
    questions: list[str] = []


GOOD = {"ops": [{"op": "todo.close", "evidence": ["it-7"]}], "questions": ["Which Friday?"]}
PREFIX = "You consolidate memory into keyed diffs.\n" + "standing fact\n" * 60


def request(body: str = "bundle 3: 'booked the table for 8, cancel the 7pm one'") -> ModelRequest:
    return ModelRequest(purpose="propose", prefix=PREFIX, body=body, schema=SCHEMA,
                        max_output_tokens=700)


@pytest.fixture
def server():
    with FakeAnthropicServer() as srv:
        yield srv


def provider_for(srv: FakeAnthropicServer, sleeps: list[float] | None = None, **settings):
    provider = get_provider("anthropic:claude-haiku-4-5",
                            {"anthropic_base_url": srv.base_url, "max_retries": 3, **settings})
    if sleeps is not None:
        provider.retry.sleep = sleeps.append
    return provider


def test_request_caches_the_prefix_and_forces_the_tool(server, monkeypatch):
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-test")
    server.enqueue(server.answer(GOOD))
    response = provider_for(server).complete(request())
    assert response.data == GOOD and response.calls == 1
    [seen] = server.requests
    assert seen.path == "/v1/messages"
    assert "sk-ant-test" in (seen.headers.get("x-api-key", "") +
                             seen.headers.get("authorization", ""))
    body = seen.body
    assert body["model"] == "claude-haiku-4-5" and body["max_tokens"] == 700
    assert body["system"] == [{"type": "text", "text": PREFIX,
                               "cache_control": {"type": "ephemeral"}}]
    assert body["messages"] == [{"role": "user", "content": request().body}]
    [tool] = body["tools"]
    assert tool["name"] == "answer" and tool["input_schema"] == SCHEMA
    assert body["tool_choice"] == {"type": "tool", "name": "answer"}


def test_token_accounting_from_usage(server):
    server.enqueue(server.answer(GOOD, input_tokens=120, output_tokens=64, cache_read=2048,
                                 cache_creation=0),
                   server.answer(GOOD, input_tokens=118, output_tokens=60, cache_read=0,
                                 cache_creation=2048))
    provider = provider_for(server)
    read = provider.complete(request())
    assert (read.input_tokens, read.output_tokens, read.cached_tokens,
            read.cache_write_tokens) == (120 + 2048, 64, 2048, 0)
    wrote = provider.complete(request())
    assert (wrote.input_tokens, wrote.cached_tokens, wrote.cache_write_tokens) == \
        (118 + 2048, 0, 2048)
    # the price of the cache write is 1.25x input, the read 0.1x: accounting feeds pricing
    spec = "anthropic:claude-haiku-4-5"
    assert estimate(spec, read.input_tokens, read.output_tokens, read.cached_tokens) == \
        pytest.approx((120 * 1.00 + 2048 * 0.10 + 64 * 5.00) / 1e6)
    assert estimate(spec, wrote.input_tokens, wrote.output_tokens, wrote.cached_tokens,
                    cache_write_tokens=wrote.cache_write_tokens) == \
        pytest.approx((118 * 1.00 + 2048 * 1.25 + 60 * 5.00) / 1e6)


def test_overloaded_and_rate_limited_are_retried(server):
    sleeps: list[float] = []
    server.enqueue(server.overloaded(), server.rate_limited(retry_after=4),
                   server.answer(GOOD, input_tokens=50, output_tokens=9))
    response = provider_for(server, sleeps, backoff_base=0.25).complete(request())
    assert response.data == GOOD
    assert server.count("/v1/messages") == 3 and response.calls == 3
    assert sleeps == [0.25, 4.0]
    assert (response.input_tokens, response.output_tokens) == (50, 9)


def test_rate_limit_retries_are_bounded(server):
    sleeps: list[float] = []
    server.enqueue(*[server.rate_limited(retry_after=1) for _ in range(3)])
    with pytest.raises(ProviderFailure) as err:
        provider_for(server, sleeps, max_retries=1).complete(request())
    assert server.count() == 2 and err.value.calls == 2 and sleeps == [1.0]


def test_timeout(server):
    server.enqueue(Reply(200, FakeAnthropicServer.message(
        [FakeAnthropicServer.tool_use(GOOD)]), delay=3))
    started = time.monotonic()
    with pytest.raises(ModelError) as err:
        provider_for(server, timeout=0.3).complete(request())
    assert time.monotonic() - started < 2.5
    assert "no answer" in err.value.message and "timeout" in err.value.hint
    assert server.count() == 1


def test_connection_refused():
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        url = f"http://127.0.0.1:{sock.getsockname()[1]}"
        with pytest.raises(ModelError) as err:
            get_provider("anthropic:claude-haiku-4-5", {"anthropic_base_url": url}).complete(
                request())
    assert "anthropic_base_url" in err.value.one_line()


def test_auth_failure(server, monkeypatch):
    monkeypatch.setenv("WORK_ANTHROPIC", "sk-ant-secret-999")
    server.enqueue(Reply(401, {"type": "error", "error": {
        "type": "authentication_error", "message": "invalid x-api-key sk-ant-secret-999"}}))
    with pytest.raises(ModelError) as err:
        provider_for(server, anthropic_api_key_env="WORK_ANTHROPIC").complete(request())
    line = err.value.one_line()
    assert "WORK_ANTHROPIC" in line and "sk-ant-secret-999" not in line


def test_missing_key_for_hosted_api(monkeypatch):
    monkeypatch.delenv("ANTHROPIC_API_KEY", raising=False)
    monkeypatch.delenv("ANTHROPIC_BASE_URL", raising=False)
    with pytest.raises(ModelError, match="ANTHROPIC_API_KEY is not set"):
        get_provider("anthropic:claude-haiku-4-5", {})


def test_malformed_once_then_valid(server):
    server.enqueue(server.malformed(input_tokens=300, output_tokens=12),
                   server.answer(GOOD, input_tokens=300, output_tokens=40))
    diff, total = call_validated(provider_for(server), request(), Diff.model_validate)
    assert diff.questions == ["Which Friday?"]
    assert total.calls == 2 and server.count() == 2
    assert (total.input_tokens, total.output_tokens) == (600, 52)


def test_malformed_twice_is_an_error(server):
    server.enqueue(server.malformed(),
                   Reply(200, FakeAnthropicServer.message(
                       [FakeAnthropicServer.tool_use("just a string")])))
    with pytest.raises(ModelError, match="invalid answer twice") as err:
        call_validated(provider_for(server), request(), Diff.model_validate)
    assert err.value.calls == 2 and server.count() == 2


def test_cut_off_tool_input_is_malformed(server):
    server.enqueue(Reply(200, FakeAnthropicServer.message(
        [FakeAnthropicServer.tool_use({})], stop_reason="max_tokens")))
    with pytest.raises(ModelError, match="malformed.*output token limit"):
        provider_for(server).complete(request())


def test_server_error_then_valid_no_prefix(server):
    sleeps: list[float] = []
    server.enqueue(server.server_error(502), server.answer(GOOD))
    req = ModelRequest(purpose="sweep", prefix="", body="state and diffs", schema=SCHEMA)
    assert provider_for(server, sleeps).complete(req).data == GOOD
    assert "system" not in server.requests[1].body
    assert sleeps == [1.0]


def test_auto_mode_simulates_prompt_caching():
    long_prefix = "the current state of every entity " * 300
    with FakeAnthropicServer(auto=True) as srv:
        provider = provider_for(srv)
        req = ModelRequest("propose", long_prefix, "bundle", SCHEMA)
        first, second = provider.complete(req), provider.complete(req)
    from fake_servers import schema_prompt

    # the cache breakpoint on the system prompt caches the tool definition before it too
    prefix_tokens = tokens.count(schema_prompt(SCHEMA) + long_prefix)
    assert first.cache_write_tokens == prefix_tokens and first.cached_tokens == 0
    assert second.cached_tokens == prefix_tokens and second.cache_write_tokens == 0
    assert first.input_tokens == second.input_tokens
    Diff.model_validate(first.data)
    assert json.loads(first.raw) == first.data
    assert srv.totals["calls"] == 2 and srv.totals["cached_tokens"] == prefix_tokens


def test_a_proxy_page_instead_of_json_is_malformed(server):
    server.enqueue(Reply(200, "<html>captive portal login</html>"), Reply(200, {"odd": 1}))
    provider = provider_for(server)
    for _ in range(2):
        with pytest.raises(ProviderFailure, match="malformed"):
            provider.complete(request())


def test_dream_run_through_the_anthropic_provider(dream, repo, dream_home, tmp_path):
    """End to end: 'dream run --model anthropic:...' against the fake server."""
    from test_scenarios import run_json, stage

    from dream.config import Config

    dream("init")
    stage(tmp_path, "dinner_three_streams.jsonl")
    with FakeAnthropicServer(auto=True) as srv:
        config = Config.load(dream_home / "config.toml")
        config.data["model"].update({"anthropic_base_url": srv.base_url, "backoff_base": 0})
        config.save()
        srv.enqueue(srv.overloaded())
        out = run_json(dream, "--model", "anthropic:claude-haiku-4-5")
    assert out["status"] == "ok", out.get("error")
    assert out["calls"] == srv.count() == srv.totals["calls"] + 1     # the 529 counts too
    assert out["input_tokens"] == srv.totals["input_tokens"]
    assert out["output_tokens"] == srv.totals["output_tokens"]
    bodies = [r.body for r in srv.requests]
    assert all(b["tool_choice"] == {"type": "tool", "name": "answer"} for b in bodies)
    assert all(b["system"][0]["cache_control"] == {"type": "ephemeral"} for b in bodies)
    assert any("My treat for your birthday" in b["messages"][0]["content"] for b in bodies)



def test_a_set_temperature_reaches_the_api(server):
    """SDK 1.0 took 'temperature' out of messages.create(): with it set in [model], every
    call failed with "anthropic call failed (TypeError)" before a request was sent. It now
    goes in the request body, where the API reads it."""
    server.enqueue(server.answer(GOOD))
    response = provider_for(server, temperature=0.2).complete(request())
    assert response.data == GOOD and response.calls == 1
    assert server.requests[0].body["temperature"] == 0.2
    server.enqueue(server.answer(GOOD))
    provider_for(server).complete(request())
    assert "temperature" not in server.requests[1].body           # unset: not sent


def test_a_temperature_above_one_is_refused_before_the_run_claims_anything(
        dream, repo, dream_home, tmp_path):
    """config.toml takes temperature 0 to 2 (OpenAI's range) while the Messages API takes
    0 to 1: at 1.5 every call of a run was refused by the API, one after another. The
    provider now refuses it on one line that says what to set, before a call or a claim;
    1 is still sent."""
    from test_scenarios import stage

    from dream.config import Config
    from dream.errors import ConfigError

    with pytest.raises(ConfigError) as refused:
        get_provider("anthropic:claude-haiku-4-5",
                     {"anthropic_base_url": "http://127.0.0.1:9", "temperature": 1.5})
    assert "temperature = 1.5 is above 1" in refused.value.message
    assert "from 0 to 1" in refused.value.hint
    dream("init")
    stage(tmp_path, "dinner_three_streams.jsonl")
    with FakeAnthropicServer(auto=True) as srv:
        config = Config.load(dream_home / "config.toml")
        config.data["model"].update({"anthropic_base_url": srv.base_url, "temperature": 1.5})
        config.save()
        result = dream("run", "--model", "anthropic:claude-haiku-4-5", ok=False)
        assert result.exit_code == 1 and srv.count() == 0
        assert result.output.count("\n") == 1 and "Traceback" not in result.output
        assert "temperature = 1.5 is above 1" in result.output
        config.data["model"]["temperature"] = 1
        config.save()
        out = json.loads(dream("run", "--json", "--model", "anthropic:claude-haiku-4-5").output)
    assert out["status"] == "ok" and out["items"] > 0       # nothing was lost by the refusal
    assert {r.body["temperature"] for r in srv.requests} == {1.0}
