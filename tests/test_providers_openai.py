"""The openai provider against a real local HTTP server speaking /v1/chat/completions."""

from __future__ import annotations

import json
import socket
import time

import pytest
from fake_servers import FakeOpenAIServer, Reply, minimal_instance
from pydantic import BaseModel, ConfigDict

from dream.errors import ModelError
from dream.models.base import ModelRequest, call_validated, get_provider
from dream.models.openai_provider import strict_compatible
from dream.models.transport import ProviderFailure

SCHEMA = {
    "type": "object",
    "properties": {
        "ops": {"type": "array", "items": {
            "type": "object",
            "properties": {"op": {"type": "string"}, "evidence": {
                "type": "array", "items": {"type": "string"}}},
            "required": ["op", "evidence"], "additionalProperties": False}},
        "questions": {"type": "array", "items": {"type": "string"}},
    },
    "required": ["ops", "questions"],
    "additionalProperties": False,
}


class Op(BaseModel):
    model_config = ConfigDict(extra="forbid")
    op: str
    evidence: list[str]


class Diff(BaseModel):
    model_config = ConfigDict(extra="forbid")
    ops: list[Op]
    questions: list[str]


GOOD = {"ops": [{"op": "event.insert", "evidence": ["it-1"]}], "questions": []}
PREFIX = "You consolidate memory. Answer with a JSON diff.\n" + "state line\n" * 50


def request(body: str = "bundle 1: dinner with Jordan on Friday 19:00") -> ModelRequest:
    return ModelRequest(purpose="propose", prefix=PREFIX, body=body, schema=SCHEMA,
                        max_output_tokens=512)


@pytest.fixture
def server():
    with FakeOpenAIServer() as srv:
        yield srv


@pytest.fixture
def sleeps():
    return []


def provider_for(srv: FakeOpenAIServer, sleeps: list[float] | None = None, **settings):
    provider = get_provider("openai:gpt-4o-mini",
                            {"openai_base_url": srv.base_url, "max_retries": 3, **settings})
    if sleeps is not None:
        provider.retry.sleep = sleeps.append      # instant backoff, recorded
    return provider


def test_valid_answer_with_usage_and_request_layout(server, monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-123")
    server.enqueue(server.answer(GOOD, prompt_tokens=1534, completion_tokens=61,
                                 cached_tokens=1280))
    provider = provider_for(server)
    response = provider.complete(request())
    assert response.data == GOOD
    assert (response.input_tokens, response.output_tokens, response.cached_tokens) == \
        (1534, 61, 1280)
    assert response.calls == 1
    assert json.loads(response.raw) == GOOD

    [seen] = server.requests
    assert seen.path == "/v1/chat/completions"
    assert seen.headers["authorization"] == "Bearer sk-test-123"
    body = seen.body
    assert body["model"] == "gpt-4o-mini"
    assert body["messages"][0] == {"role": "system", "content": PREFIX}
    assert body["messages"][-1]["role"] == "user"
    assert "Jordan" in body["messages"][-1]["content"]
    assert body["response_format"] == {"type": "json_schema", "json_schema": {
        "name": "propose", "schema": SCHEMA, "strict": True}}
    assert body["max_tokens"] == 512          # a local base URL gets the classic name


def test_key_env_setting_and_dummy_key_for_local_servers(server, monkeypatch):
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    monkeypatch.setenv("MY_LLM_KEY", "local-secret")
    server.enqueue(server.answer(GOOD), server.answer(GOOD))
    provider_for(server, openai_api_key_env="MY_LLM_KEY").complete(request())
    provider_for(server).complete(request())    # no key at all: a local server still works
    assert server.requests[0].headers["authorization"] == "Bearer local-secret"
    assert server.requests[1].headers["authorization"] == "Bearer not-needed"


def test_missing_key_for_hosted_openai_is_a_clear_error(monkeypatch):
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    monkeypatch.delenv("OPENAI_BASE_URL", raising=False)
    with pytest.raises(ModelError) as err:
        get_provider("openai:gpt-4o-mini", {})
    assert "OPENAI_API_KEY" in err.value.one_line()


def test_model_name_required():
    with pytest.raises(ModelError, match="no model named"):
        get_provider("openai", {"openai_base_url": "http://127.0.0.1:9/v1"})


def test_rate_limit_honours_retry_after_then_succeeds(server, sleeps):
    server.enqueue(server.rate_limited(retry_after=2), server.rate_limited(retry_after=1),
                   server.answer(GOOD, prompt_tokens=900, completion_tokens=40))
    response = provider_for(server, sleeps).complete(request())
    assert response.data == GOOD
    assert server.count("/v1/chat/completions") == 3
    assert response.calls == 3
    assert sleeps == [2.0, 1.0]
    assert (response.input_tokens, response.output_tokens) == (900, 40)


def test_rate_limit_real_wait_is_short_and_counted(server):
    """No injected sleep: the provider really waits Retry-After (0.2 s) before the retry."""
    server.enqueue(server.rate_limited(retry_after=0.2), server.answer(GOOD))
    provider = provider_for(server)
    started = time.monotonic()
    response = provider.complete(request())
    assert time.monotonic() - started >= 0.2
    assert response.calls == 2 and server.count() == 2


def test_server_errors_back_off_exponentially(server, sleeps):
    server.enqueue(server.server_error(500), server.server_error(503), server.answer(GOOD))
    response = provider_for(server, sleeps, backoff_base=0.5).complete(request())
    assert response.data == GOOD and response.calls == 3
    assert sleeps == [0.5, 1.0]
    assert server.count() == 3


def test_retries_are_bounded(server, sleeps):
    server.enqueue(*[server.rate_limited(retry_after=None) for _ in range(5)])
    with pytest.raises(ProviderFailure) as err:
        provider_for(server, sleeps, max_retries=2, backoff_base=1).complete(request())
    assert server.count() == 3 and err.value.calls == 3
    assert sleeps == [1.0, 2.0]
    assert "429" in err.value.message and "max_retries" in err.value.hint


def test_retry_after_beyond_max_wait_gives_up(server, sleeps):
    server.enqueue(server.rate_limited(retry_after=3600))
    with pytest.raises(ModelError, match="asked to wait 3600s"):
        provider_for(server, sleeps).complete(request())
    assert sleeps == [] and server.count() == 1


def test_timeout_is_a_model_error_with_a_hint(server):
    server.enqueue(Reply(200, FakeOpenAIServer.completion(json.dumps(GOOD)), delay=3))
    provider = provider_for(server, timeout=0.3)
    started = time.monotonic()
    with pytest.raises(ModelError) as err:
        provider.complete(request())
    assert time.monotonic() - started < 2.5
    assert "within 0.3s" in err.value.message
    assert "timeout" in err.value.hint and "config.toml" in err.value.hint
    assert server.count() == 1


def test_connection_refused_names_the_setting():
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]          # bound, never listening: connection refused
        provider = get_provider("openai:gpt-4o-mini",
                                {"openai_base_url": f"http://127.0.0.1:{port}/v1"})
        with pytest.raises(ModelError) as err:
            provider.complete(request())
    line = err.value.one_line()
    assert "cannot reach" in line and "openai_base_url" in line
    assert "\n" not in line


def test_auth_failure_never_echoes_the_key(server, monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", "sk-very-secret-key")
    server.enqueue(Reply(401, {"error": {"message": "Incorrect API key provided: "
                                         "sk-very-secret-key", "type": "invalid_request_error"}}))
    with pytest.raises(ModelError) as err:
        provider_for(server).complete(request())
    line = err.value.one_line()
    assert "refused the API key" in line and "OPENAI_API_KEY" in line
    assert "sk-very-secret-key" not in line
    assert server.count() == 1                # 401 is not retried


def test_bad_request_suggests_json_object_fallback(server):
    server.enqueue(Reply(400, {"error": {"message": "response_format json_schema unsupported"}}))
    with pytest.raises(ModelError) as err:
        provider_for(server).complete(request())
    assert "json_schema unsupported" in err.value.message
    assert "openai_response_format" in err.value.hint


def test_malformed_once_then_valid(server):
    server.enqueue(server.malformed(prompt_tokens=1000, completion_tokens=15),
                   server.answer(GOOD, prompt_tokens=1000, completion_tokens=50))
    diff, total = call_validated(provider_for(server), request(), Diff.model_validate)
    assert diff.ops[0].evidence == ["it-1"]
    assert total.calls == 2 and server.count() == 2
    assert (total.input_tokens, total.output_tokens) == (2000, 65)   # both attempts paid


def test_malformed_twice_raises_and_returns_nothing(server):
    server.enqueue(server.malformed("[1, 2, 3]"), server.malformed("not json"))
    with pytest.raises(ModelError) as err:
        call_validated(provider_for(server), request(), Diff.model_validate)
    assert "invalid answer twice" in err.value.message
    assert err.value.calls == 2 and server.count() == 2
    assert "partial" in err.value.hint


def test_schema_invalid_answer_is_retried_once(server):
    server.enqueue(server.answer({"ops": [{"op": "x"}], "questions": []}), server.answer(GOOD))
    diff, total = call_validated(provider_for(server), request(), Diff.model_validate)
    assert len(diff.ops) == 1 and total.calls == 2


def test_truncated_answer_is_malformed(server):
    server.enqueue(Reply(200, FakeOpenAIServer.completion('{"ops": [', 100, 512,
                                                          finish_reason="length")))
    with pytest.raises(ModelError, match="malformed.*output token limit"):
        provider_for(server).complete(request())


def test_fenced_json_from_a_local_server_is_accepted(server):
    server.enqueue(Reply(200, FakeOpenAIServer.completion(
        "```json\n" + json.dumps(GOOD) + "\n```", 10, 10)))
    assert provider_for(server).complete(request()).data == GOOD


def test_json_object_fallback_mode(server):
    server.enqueue(server.answer(GOOD))
    provider = provider_for(server, openai_response_format="json_object")
    req = ModelRequest(purpose="sweep", prefix="Find duplicates.", body="state", schema=SCHEMA)
    assert provider.complete(req).data == GOOD
    body = server.requests[0].body
    assert body["response_format"] == {"type": "json_object"}
    assert body["messages"][0]["content"] == "Find duplicates."
    assert "JSON schema" in body["messages"][1]["content"]
    # a prefix that already says JSON still gets the schema: the prompt has no other copy
    server.enqueue(server.answer(GOOD))
    provider.complete(ModelRequest(purpose="propose", prefix="Answer only with JSON.",
                                   body="items", schema=SCHEMA))
    sent = server.requests[1].body["messages"]
    assert [m["role"] for m in sent] == ["system", "system", "user"]
    assert json.dumps(SCHEMA) in sent[1]["content"] and sent[0]["content"] == \
        "Answer only with JSON."


def test_bad_settings_are_clear_errors(server):
    with pytest.raises(ModelError, match="openai_response_format"):
        provider_for(server, openai_response_format="xml")
    with pytest.raises(ModelError, match="timeout"):
        provider_for(server, timeout="soon")
    with pytest.raises(ModelError, match="retry setting"):
        provider_for(server, max_retries="many")


def test_strict_follows_the_schema_unless_set():
    loose = {"type": "object", "properties": {"a": {"type": "string"}}}
    assert strict_compatible(SCHEMA) and not strict_compatible(loose)
    with FakeOpenAIServer() as srv:
        srv.enqueue(srv.answer({}), srv.answer({}))
        provider = provider_for(srv)
        provider.complete(ModelRequest("sweep", "p", "b", loose))
        provider_for(srv, openai_strict=True).complete(ModelRequest("sweep", "p", "b", loose))
        assert srv.requests[0].body["response_format"]["json_schema"]["strict"] is False
        assert srv.requests[1].body["response_format"]["json_schema"]["strict"] is True


def test_usage_missing_counts_with_the_tokenizer(server):
    reply = FakeOpenAIServer.completion(json.dumps(GOOD))
    del reply["usage"]
    server.enqueue(Reply(200, reply))
    response = provider_for(server).complete(request())
    assert response.input_tokens > 100 and response.output_tokens > 5


def test_auto_mode_answers_minimal_valid_answers_and_counts():
    from dream import tokens

    long_prefix = "shared state " * 700          # > 1024 tokens: cached from the 2nd call
    with FakeOpenAIServer(auto=True) as srv:
        provider = provider_for(srv)
        req = ModelRequest("propose", long_prefix, "bundle", SCHEMA)
        first = provider.complete(req)
        second = provider.complete(req)
    assert first.data == minimal_instance(SCHEMA) == {"ops": [], "questions": []}
    Diff.model_validate(second.data)
    # the structured-output schema opens the prompt and is cached with the system message
    from fake_servers import schema_prompt

    prefix_tokens = tokens.count(schema_prompt(SCHEMA) + long_prefix)
    assert first.input_tokens == tokens.count(schema_prompt(SCHEMA)) + tokens.count(
        long_prefix) + tokens.count("bundle")
    assert first.cached_tokens == 0
    assert second.cached_tokens == (prefix_tokens // 128) * 128
    assert srv.totals == {"calls": 2, "input_tokens": 2 * first.input_tokens,
                          "output_tokens": first.output_tokens + second.output_tokens,
                          "cached_tokens": second.cached_tokens}


def test_a_proxy_page_instead_of_json_is_malformed(server):
    server.enqueue(Reply(200, "<html>captive portal login</html>"), Reply(200, [1, 2]))
    provider = provider_for(server)
    for _ in range(2):
        with pytest.raises(ProviderFailure, match="malformed"):
            provider.complete(request())


def test_dream_run_through_the_openai_provider_accounts_every_call(dream, repo, dream_home,
                                                                   tmp_path):
    """End to end: 'dream run --model openai:...' against the fake server; the run row's
    calls and tokens are what the server counted, retries included."""
    from test_scenarios import run_json, stage

    from dream.config import Config
    from dream.models.pricing import estimate

    dream("init")
    stage(tmp_path, "dinner_three_streams.jsonl")
    with FakeOpenAIServer(auto=True) as srv:
        config = Config.load(dream_home / "config.toml")
        config.data["model"].update({"openai_base_url": srv.base_url, "backoff_base": 0})
        config.save()
        srv.enqueue(srv.rate_limited(retry_after=0))
        out = run_json(dream, "--model", "openai:gpt-4o-mini")
    assert out["status"] == "ok", out.get("error")
    assert out["calls"] == srv.count() == srv.totals["calls"] + 1     # the 429 counts too
    assert out["input_tokens"] == srv.totals["input_tokens"]
    assert out["output_tokens"] == srv.totals["output_tokens"]
    assert out["cached_tokens"] == srv.totals["cached_tokens"]
    assert out["cost_usd"] == pytest.approx(estimate(
        "openai:gpt-4o-mini", out["input_tokens"], out["output_tokens"], out["cached_tokens"]),
        abs=1e-6)
    propose = next(r.body for r in srv.requests[1:]
                   if r.body["response_format"]["json_schema"]["name"] == "propose")
    assert propose["messages"][0]["role"] == "system"                 # the shared prefix
    assert "My treat for your birthday" in propose["messages"][-1]["content"]  # the bundle
    assert "My treat for your birthday" not in propose["messages"][0]["content"]
    assert propose["response_format"]["type"] == "json_schema"
