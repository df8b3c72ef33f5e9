"""Secrets are redacted before anything is stored or sent: the redactor on its own.

Every planted kind (tests/secret_corpus.py) is replaced by a stable placeholder, once; near
misses taken from real transcripts (code, paths, hashes, masked keys, sentences about
tokens) stay readable. The end-to-end test of every door is tests/test_secret_corpus.py.
"""

from __future__ import annotations

import pytest
from secret_corpus import plants

from dream.secrets import (
    PLACEHOLDER_RE,
    has_secret,
    kinds,
    placeholder,
    redact,
    strip_placeholders,
    use_detector,
)

PLANTS = {p.kind: p for p in plants()}


def test_the_corpus_has_at_least_forty_kinds() -> None:
    assert len(PLANTS) >= 40


@pytest.mark.parametrize("kind", sorted(PLANTS))
def test_each_planted_kind_is_replaced_once_by_a_stable_placeholder(kind: str) -> None:
    plant = PLANTS[kind]
    out, count = redact(plant.text)
    assert plant.secret not in out
    assert count == 1, out
    assert PLACEHOLDER_RE.search(out)
    again, more = redact(out)  # idempotent: placeholders are never redacted again
    assert (again, more) == (out, 0)
    twice, n = redact(f"{plant.text}\nand again:\n{plant.text}")
    assert n == 2 and twice == f"{out}\nand again:\n{out}"


def test_every_rule_of_dream_is_exercised_by_the_corpus() -> None:
    seen = set()
    for plant in plants():
        seen |= {m.group(0).split(":")[1] for m in PLACEHOLDER_RE.finditer(redact(plant.text)[0])}
    unused = [k for k in kinds() if k not in seen]
    assert not unused, unused


def test_the_maintained_detector_adds_kinds_dream_does_not_know() -> None:
    # an Artifactory key and a Cloudant URL: no rule of Dream's knows them
    text = 'artifactory_key = "AKCp8jQ8tGmPnmq3vBAUhRtVv3PMg4ZhFwYhTSMCquQ2jJMz3bU"'
    out, count = redact(text)
    assert count == 1 and "[REDACTED:ds-artifactory-credentials:" in out
    use_detector(False)
    try:
        assert "AKCp8jQ8tGmPnmq3vBAUhRtVv3PMg4ZhFwYhTSMCquQ2jJMz3bU" in redact(text)[0]
    finally:
        use_detector(True)


def test_placeholders_name_the_kind_and_hash_the_secret() -> None:
    plant = PLANTS["github-token"]
    out, _ = redact(f"token {plant.secret}")
    assert placeholder("github-token", plant.secret) in out


@pytest.mark.parametrize("text", [
    # code that names secrets without holding one (from the real transcripts)
    "const contextTokens = calculateContextTokens(lastAssistant.usage);",
    "const apiKey = parsed.apiKey || (await getApiKey(provider));",
    "password = get_password()\ntoken = os.environ['TOKEN']\napi_key = settings.api_key",
    'headers = {"Authorization": f"Bearer {token}"}',
    "export ZAI_API_KEY=...\nIf no API key is set, the CLI will prompt",
    "Command failed: cygpath -u 'C:\\Users\\Mischa\\AppData\\Local\\Temp'",
    'ts="$(date -u +%Y-%m-%dT%H:%M:%SZ)"',
    "regex = '''-----BEGIN OPENSSH PRIVATE KEY-----[A-Za-z0-9+/=\\n]+-----END OPENSSH "
    "PRIVATE KEY-----'''",
    "regex = '''(?i)[a-z0-9+]+://[^:]+:([^@\\s]{3,})@[^\\s]+'''",
    'API_KEY="sk-a***REDACTED***123"',
    "generic-api-key: CHAT_LOGS/c7d2069e-c561-4759-8adf-b0745be78c29.jsonl",
    # ids, hashes, numbers and words stay readable
    "commit 3f786850e387550fdab836ed7e6dc881de23001b token_count: 4096",
    "max_tokens: 4096 and total_tokens = 1234567, tokenizer: cl100k_base",
    "session 0c1f2a34-5b6c-4d7e-8f90-a1b2c3d4e5f6 sha256:" + "ab" * 32,
    "the token is expired, the password is wrong, the secret is out",
    "pass: review:corrections\nrun: r1", "author: Jordan Smith", "PWD=/home/user", "password: true", "a bearer of bad news",
    "https://example.com/path?q=1 and git@github.com:me/repo.git", "ssh://git@host:22/repo",
    "-----BEGIN PUBLIC KEY-----\nMIIB\n-----END PUBLIC KEY-----", "xoxo, Jordan",
    "AKIA1234 is too short", "the sk-learn package and sk-short", "ghp_short", "",
])
def test_near_misses_survive(text: str) -> None:
    assert redact(text) == (text, 0)


def test_kept_context_and_placeholders_match_across_mentions() -> None:
    out, count = redact("export API_KEY=abc123def456ghi # and again: API_KEY=abc123def456ghi")
    assert count == 2 and out.startswith("export API_KEY=[REDACTED:token-assignment:")
    first, second = [part.split("]")[0] for part in out.split("[REDACTED:")[1:]]
    assert first == second
    out, _ = redact('{"api_key": "abc123def456ghi", "password": "hunter2hunter2"}')
    assert "abc123def456ghi" not in out and "hunter2hunter2" not in out
    assert out.startswith('{"api_key": "[REDACTED:token-assignment:')


def test_names_are_never_built_from_a_redacted_span() -> None:
    from dream.kinds.records import slug_key
    from dream.passes.base import slugify
    from dream.store.project import slug

    secret = PLANTS["npm-token"].secret
    for made in (slug_key(f"directive npm token {secret}"),
                 slugify("memory", f"remember npm token {secret}"),
                 slug(f"proj-{secret}")):
        assert secret.lower() not in made.lower() and "redacted" not in made
        assert not has_secret(made)
    assert strip_placeholders("a [REDACTED:jwt:0123abcd] b") == "a   b"


# -- the detector imported on first need ---------------------------------------------------
def _fresh_detector(monkeypatch) -> None:
    """Forget the loaded plugins, as a process that has not met a hint yet."""
    from dream.secrets import redactor

    monkeypatch.setattr(redactor._Detector, "numbered", None)
    monkeypatch.setattr(redactor._Detector, "always", ())


@pytest.mark.parametrize("kind", sorted(PLANTS))
def test_every_kind_is_redacted_when_the_detector_is_not_loaded_yet(kind, monkeypatch) -> None:
    """The lazy path (nothing loaded, a hint seen) redacts exactly what the loaded one does,
    in text and in a name made from it (store/project.slug, run on every command)."""
    from dream.secrets import redactor
    from dream.store.project import slug

    plant = PLANTS[kind]
    redactor._Detector.load()
    loaded, loaded_slug = redact(plant.text), slug(plant.text)
    _fresh_detector(monkeypatch)
    assert redact(plant.text) == loaded and plant.secret not in loaded[0]
    _fresh_detector(monkeypatch)
    assert slug(plant.text) == loaded_slug
    assert plant.secret.lower()[:12] not in loaded_slug


def test_the_hint_table_names_every_plugin_of_a_covered_release() -> None:
    from detect_secrets.core.plugins.util import get_mapping_from_secret_type_to_class

    from dream.secrets import detector

    if not detector.catalogue_covered():
        pytest.skip(f"detector release {detector.installed_release()} is not in "
                    "COVERED_RELEASES: the redactor imports it at once (no lazy path)")
    names = {cls.__name__ for cls in get_mapping_from_secret_type_to_class().values()}
    assert names == set(detector.HINTS) | set(detector.SKIPPED)
    assert all(p.hints is not None for p in detector.plugins())


def _modules_after(code: str) -> set[str]:
    import json
    import os
    import subprocess
    import sys

    from conftest import REPO_ROOT

    env = {**os.environ, "PYTHONPATH": str(REPO_ROOT / "src")}
    out = subprocess.run([sys.executable, "-c", code + "\nimport sys, json\n"
                          "print(json.dumps(sorted(sys.modules)))"], capture_output=True,
                         text=True, env=env, timeout=120, check=True).stdout
    return set(json.loads(out.strip().splitlines()[-1]))


def test_a_name_without_hints_never_imports_the_detector() -> None:
    modules = _modules_after("from dream.store.project import slug\n"
                             "assert slug('My Webapp') == 'my-webapp'")
    assert "detect_secrets" not in modules and "requests" not in modules
    secret = PLANTS["github-token"].secret
    modules = _modules_after(f"from dream.store.project import slug\n"
                             f"assert {secret!r}.lower() not in slug('proj-{secret}')")
    assert "detect_secrets" in modules


def test_a_release_the_table_may_not_cover_imports_the_detector_at_once() -> None:
    modules = _modules_after("import importlib, sys\n"
                             "import dream.secrets.detector as d, dream.secrets.redactor as r\n"
                             "assert 'detect_secrets' not in sys.modules\n"
                             "d.COVERED_RELEASES = ()\n"
                             "d.catalogue_covered.cache_clear()\n"
                             "importlib.reload(r)\n"
                             "assert r._Detector.loaded()\n")
    assert "detect_secrets" in modules


@pytest.mark.parametrize("kind", sorted(PLANTS))
def test_a_secret_in_terminal_colours_is_redacted(kind: str) -> None:
    """Pasted terminal output (a gitleaks finding prints the key in red) wraps a secret in
    ANSI escape sequences, as the ESC byte or spelled out; redaction sees through them."""
    plant = PLANTS[kind]
    for before, after in (("\x1b[1;31m", "\x1b[0m"), ("\\x1b[31m", "\\x1b[0m"),
                          ("\\u001b[33m", "\\u001b[0m"), ("^[[31m", "^[[0m"),
                          ("[1;3;m", "[0m")):          # the ESC lost in a copy
        text = plant.text.replace(plant.secret, f"{before}{plant.secret}{after}")
        out, count = redact(f"Finding:     {text}\nRuleID:      generic-api-key")
        assert plant.secret not in out and count >= 1, (kind, before, out)
        assert redact(out) == (out, 0)
    # colours inside the secret split it: still found
    half = len(plant.secret) // 2
    split = plant.text.replace(plant.secret, f"\x1b[31m{plant.secret[:half]}\x1b[1m"
                                             f"{plant.secret[half:]}\x1b[0m")
    out, count = redact(split)
    assert plant.secret not in out and count >= 1, (kind, out)


def test_colours_without_a_secret_are_kept() -> None:
    text = "\x1b[32m3 passed\x1b[0m in 0.2s; token rotation \x1b[1mdone\x1b[0m [0m"
    assert redact(text) == (text, 0)


def test_the_redactor_and_the_terminal_read_one_escape_sequence_grammar():
    """The redactor's _ANSI_RE restated dream.terminal's escape sequences character for
    character; both now build on terminal.ESCAPE_TAIL, and read the same sequences whole."""
    from dream import terminal
    from dream.secrets import redactor

    assert redactor._ANSI_RE.pattern.startswith("\\x1b" + terminal.ESCAPE_TAIL + "|")
    for seq in ("\x1b[1;31m", "\x1b]52;c;c2VjcmV0\x07", "\x1b]0;a title\x1b\\", "\x1bM"):
        assert redactor._ANSI_RE.fullmatch(seq) and terminal._ESCAPE_RE.fullmatch(seq), seq
    assert terminal.strip_control("key \x1b[31mAKIA\x1b[0m") == "key AKIA"
