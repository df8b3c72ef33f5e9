"""A review with a model provider: the model may reword or drop candidates the rules found,
never add one or change its evidence. The ``scripted`` provider replays recorded answers
behind the same interface the openai and anthropic providers implement."""

from __future__ import annotations

import json

from review_fixtures.sessions import plant


def test_model_rewords_and_drops_but_cannot_invent(dream, repo, tmp_path):
    dream("init")
    paths = plant(tmp_path / "t", str(repo))
    dream("collect", *map(str, paths.values()))
    rules = json.loads(dream("review", "start", "--json").output)
    dream("review", "close")
    slug = {p["pass"]: p["slug"] for p in rules["proposals"]}
    answers = [
        {"purpose": "review:failures", "input_tokens": 900, "output_tokens": 60,
         "data": {"proposals": [
             {"candidate": slug["failures"], "title": "Install requests in the test env",
              "explanation": "Three sessions hit the same missing module."},
             {"candidate": "failures-invented", "title": "Something never seen"}]}},
        {"purpose": "review:tools", "data": {"proposals": [
            {"candidate": slug["tools"], "keep": False, "title": "Not worth it"}]}},
        # the memory pass gets two unusable answers: it keeps its deterministic candidates
        {"purpose": "review:memory", "data": "malformed"},
        {"purpose": "review:memory", "data": "malformed"},
        *[{"purpose": f"review:{name}", "data": {"proposals": []}}
          for name in ("corrections", "codify", "project")],
    ]
    script = tmp_path / "answers.jsonl"
    script.write_text("".join(json.dumps(a) + "\n" for a in answers))
    review = json.loads(dream("review", "start", "--all", "--model", f"scripted:{script}",
                              "--json").output)
    by_slug = {p["slug"]: p for p in review["proposals"]}
    before = {p["slug"]: p for p in rules["proposals"]}
    # reworded, with the same evidence and change target
    fail = by_slug[slug["failures"]]
    assert fail["title"] == "Install requests in the test env"
    assert fail["evidence"] == before[slug["failures"]]["evidence"]
    assert fail["change"]["text"].startswith("Three sessions hit the same missing module.")
    # dropped on the model's word; an invented candidate is ignored and counted
    assert slug["tools"] not in by_slug
    journal = review["journal"]
    assert journal["tools"]["model"]["dropped"] == [slug["tools"]]
    assert journal["failures"]["model"]["ignored_unknown"] == 1
    assert "failures-invented" not in by_slug
    # an unusable answer makes the pass partial, never half-applied
    assert journal["memory"]["status"] == "partial" and "invalid answer twice" in \
        journal["memory"]["model_error"]
    assert {p["slug"] for p in review["proposals"] if p["pass"] == "memory"} == \
        {p["slug"] for p in rules["proposals"] if p["pass"] == "memory"}
    assert review["run"]["model"] == f"scripted:{script}"
    assert review["run"]["calls"] >= 7 and review["run"]["input_tokens"] == 900
    calls = [json.loads(line)["purpose"] for line in
             (tmp_path / "answers.jsonl.calls.jsonl").read_text().splitlines()]
    assert sorted(set(calls)) == sorted(f"review:{p}" for p in slug)
    done = json.loads(dream("review", "close", "--json").output)
    assert done["run"]["status"] == "partial"


def test_rules_review_calls_no_model(dream, repo, tmp_path):
    dream("init")
    paths = plant(tmp_path / "t", str(repo))
    dream("collect", *map(str, paths.values()))
    review = json.loads(dream("review", "start", "--json").output)
    assert review["run"]["model"] == "rules" and review["run"]["calls"] == 0
    bad = dream("review", "start", "--model", "nosuch:thing", ok=False)
    assert bad.exit_code == 1 and "unknown model provider 'nosuch'" in bad.output


def test_review_over_a_real_openai_compatible_server_sends_only_redacted_text(
        dream, repo, tmp_path, monkeypatch):
    from fake_servers import FakeOpenAIServer

    dream("init")
    secret = "sk-proj-" + "Q7f3" * 12
    paths = plant(tmp_path / "t", str(repo))
    with paths["s1"].open("a") as fh:       # a secret typed into the session
        fh.write(json.dumps({
            "type": "user", "sessionId": paths["s1"].stem, "cwd": str(repo),
            "uuid": "u-secret", "parentUuid": None, "timestamp": "2026-11-02T11:00:00.000Z",
            "message": {"role": "user", "content": f"no, don't print the key {secret} "
                                                   "in logs, use the logging module"}}) + "\n")
    dream("collect", *map(str, paths.values()))
    handoff = tmp_path / "handoff.md"
    handoff.write_text(f"## Open work\n- rotate {secret}\n")
    dream("prepare", "--handoff", str(handoff), "--learned", "a", "--learned", "b",
          "--learned", "c")
    with FakeOpenAIServer(auto=True) as server:
        monkeypatch.setenv("OPENAI_BASE_URL", server.base_url)
        review = json.loads(dream("review", "start", "--model", "openai:gpt-4o-mini",
                                  "--json").output)
        bodies = [json.dumps(r.body) for r in server.requests]
    assert len(bodies) == 6                          # one call per pass with candidates
    assert all(secret not in b for b in bodies)
    assert any("[REDACTED:" in b for b in bodies)    # the handoff went, redacted
    assert review["run"]["calls"] == 6 and review["run"]["input_tokens"] > 0
    assert len(review["proposals"]) == 8             # an empty answer rewords nothing


def test_the_answer_schema_is_sent_in_strict_form(dream, repo, tmp_path, monkeypatch):
    from fake_servers import FakeOpenAIServer

    from dream.models.openai_provider import strict_compatible
    from dream.passes.model import SCHEMA

    assert strict_compatible(SCHEMA)
    dream("init")
    paths = plant(tmp_path / "t", str(repo), only=["s1", "s2", "s3"])
    dream("collect", *map(str, paths.values()))
    with FakeOpenAIServer() as server:
        failures_slug = "failures-modulenotfounderror-no-module-named-requests"
        server.enqueue(*[server.answer({"proposals": [
            {"candidate": failures_slug, "keep": True, "title": "Install requests for tests",
             "explanation": None}]}) for _ in range(6)])
        monkeypatch.setenv("OPENAI_BASE_URL", server.base_url)
        review = json.loads(dream("review", "start", "--model", "openai:gpt-4o-mini",
                                  "--json").output)
        sent = [r.body["response_format"]["json_schema"] for r in server.requests]
    assert sent and all(s["strict"] is True for s in sent)
    titles = {p["slug"]: p["title"] for p in review["proposals"]}
    assert titles[failures_slug] == "Install requests for tests"
    assert all(j["status"] == "ok" for j in review["journal"].values())


def test_a_reworded_title_keeps_no_escape_codes():
    """A review model's title or explanation with a terminal escape was printed by 'dream
    review show' as it came; it is kept without the codes, as a run's values are."""
    from dream.passes.model import PassAnswer

    answer = PassAnswer.model_validate({"proposals": [
        {"candidate": "c1", "keep": True, "title": "\x1b]0;owned\x07Pin \x1b[1mpytest\x1b[0m",
         "explanation": "seen twice\x1b]52;c;eA==\x07 in two sessions"},
        {"candidate": "c2", "title": "Use uv", "explanation": None}]})
    first, second = answer.proposals
    assert (first.title, first.explanation) == ("Pin pytest", "seen twice in two sessions")
    assert (second.title, second.explanation) == ("Use uv", None)
