"""Secrets are redacted before anything reaches the spool, the database or a store.

One test per pattern (with near misses that must survive), placeholder stability, and the
end-to-end test that plants one secret of each kind in each source format.
"""

from __future__ import annotations

import json
import subprocess
import zipfile
from pathlib import Path

import pytest

from dream.spool.redact import kinds, placeholder, redact

# Synthetic secrets of the right shapes (none is a real credential).
PEM_BODY = "MIIEowIBAAKCAQEAplantedPEMbodyLineXyZ0123456789abcdefABCDEF"
SECRETS: dict[str, tuple[str, str]] = {
    # kind: (text carrying the secret, the secret itself)
    "aws-key": ("deploy with AKIAZ7PLANTED0KEY123 today", "AKIAZ7PLANTED0KEY123"),
    "aws-secret": ("aws_secret_access_key = Pl4ntedAwsSecretKey0123456789abcdefGHIJK",
                   "Pl4ntedAwsSecretKey0123456789abcdefGHIJK"),
    "github-token": ("token ghp_Pl4ntedGithubToken0123456789abcdefXY for CI",
                     "ghp_Pl4ntedGithubToken0123456789abcdefXY"),
    "openai-key": ("use sk-proj-Pl4ntedOpenAiKey0123456789abcdefXYZ please",
                   "sk-proj-Pl4ntedOpenAiKey0123456789abcdefXYZ"),
    "anthropic-key": ("claude key sk-ant-api03-Pl4ntedAnthropicKey0123456789abc-_xyz",
                      "sk-ant-api03-Pl4ntedAnthropicKey0123456789abc-_xyz"),
    "slack-token": ("bot xoxb-1234567890-Pl4ntedSlackToken99 posts", "xoxb-1234567890-Pl4ntedSlackToken99"),
    "google-api-key": ("maps AIzaSyPl4ntedGoogleKey0123456789abcdefg here",
                       "AIzaSyPl4ntedGoogleKey0123456789abcdefg"),
    "stripe-key": ("billing sk_live_Pl4ntedStripeKey0123456789 now", "sk_live_Pl4ntedStripeKey0123456789"),
    "bearer-token": ("curl -H 'Authorization: Bearer eyJPl4ntedBearerToken.0123456789abcdef'",
                     "eyJPl4ntedBearerToken.0123456789abcdef"),
    "private-key": (f"-----BEGIN RSA PRIVATE KEY-----\n{PEM_BODY}\n-----END RSA PRIVATE KEY-----",
                    PEM_BODY),
    "url-password": ("connect to postgres://admin:Pl4ntedUrlPassw0rd@db.example.com:5432/app",
                     "Pl4ntedUrlPassw0rd"),
    "env-secret": ("DATABASE_PASSWORD=Pl4ntedEnvPassw0rd", "Pl4ntedEnvPassw0rd"),
}


def test_every_kind_has_a_planted_secret() -> None:
    assert set(SECRETS) == set(kinds())


@pytest.mark.parametrize("kind", sorted(SECRETS))
def test_pattern_redacts_its_kind_with_a_stable_placeholder(kind: str) -> None:
    text, secret = SECRETS[kind]
    out, count = redact(text)
    assert count == 1
    assert secret not in out
    assert placeholder(kind, secret if kind != "private-key" else text) in out
    again, more = redact(out)  # idempotent: placeholders are never redacted again
    assert (again, more) == (out, 0)
    twice, n = redact(f"{text} and again {text}")
    assert n == 2 and twice.count(placeholder(kind, secret if kind != "private-key" else text)) == 2


@pytest.mark.parametrize("text", [
    "AKIA1234 is too short",
    "the sk-learn package and sk-short",
    "ghp_short",
    "max_tokens: 4096 and total_tokens = 1234567",
    "author: Jordan Smith",
    "PWD=/home/user",
    "password: true",
    "a bearer of bad news",
    "https://example.com/path?q=1 and git@github.com:me/repo.git",
    "ssh://git@host:22/repo",
    "-----BEGIN PUBLIC KEY-----\nMIIB\n-----END PUBLIC KEY-----",
    "xoxo, Jordan",
    "the secret is out",
    "",
])
def test_near_misses_survive(text: str) -> None:
    assert redact(text) == (text, 0)


def test_kept_context_and_placeholders_match_across_mentions() -> None:
    out, count = redact("export API_KEY=abc123def456 # and again: API_KEY=abc123def456")
    assert count == 2 and out.startswith("export API_KEY=[REDACTED:env-secret:")
    first, second = [part.split("]")[0] for part in out.split("[REDACTED:")[1:]]
    assert first == second
    out, _ = redact('{"api_key": "abc123def456", "password": "hunter2hunter2"}')
    assert "abc123def456" not in out and "hunter2hunter2" not in out
    assert out.startswith('{"api_key": "[REDACTED:env-secret:')


# -- planted in every source format, looked for everywhere -------------------------------

def _lines(objs: list[dict]) -> str:
    return "".join(json.dumps(o) + "\n" for o in objs)


def plant(folder: Path, cwd: str = "/nowhere/p") -> dict[str, Path]:
    """One file per source format, each carrying every secret (as directives, so that a
    dream run turns them into memory)."""
    texts = [f"From now on, remember {text}" for text, _ in SECRETS.values()]
    files: dict[str, Path] = {}
    cc = [{"type": "user", "sessionId": "cc-1", "cwd": cwd, "uuid": f"u{i}",
           "timestamp": "2026-03-01T10:00:00Z", "message": {"role": "user", "content": t}}
          for i, t in enumerate(texts)]
    cc.append({"type": "assistant", "sessionId": "cc-1", "uuid": "a1", "message": {
        "role": "assistant", "content": [{"type": "tool_use", "id": "t1", "name": "Bash",
                                          "input": {"command": texts[11]}}]}})
    cc.append({"type": "user", "sessionId": "cc-1", "uuid": "r1", "message": {
        "role": "user", "content": [{"type": "tool_result", "tool_use_id": "t1",
                                     "content": texts[0], "is_error": False}]}})
    files["claude_code"] = folder / "cc.jsonl"
    files["claude_code"].write_text(_lines(cc))
    pi = [{"type": "session", "version": 3, "id": "pi-1", "cwd": cwd,
           "timestamp": "2026-03-01T10:00:00Z"}]
    pi += [{"type": "message", "id": f"e{i}", "parentId": None,
            "timestamp": "2026-03-01T10:00:01Z",
            "message": {"role": "user", "content": [{"type": "text", "text": t}]}}
           for i, t in enumerate(texts)]
    files["pi"] = folder / "pi.jsonl"
    files["pi"].write_text(_lines(pi))
    codex = [{"timestamp": "2026-03-01T10:00:00Z", "type": "session_meta",
              "payload": {"id": "cx-1", "cwd": cwd}}]
    codex += [{"timestamp": "2026-03-01T10:00:01Z", "type": "event_msg",
               "payload": {"type": "user_message", "message": t}} for t in texts]
    codex += [{"timestamp": "2026-03-01T10:00:02Z", "type": "response_item",
               "payload": {"type": "function_call_output", "call_id": "c1", "output": t}}
              for t in texts]
    files["codex"] = folder / "rollout-x.jsonl"
    files["codex"].write_text(_lines(codex))
    files["jsonl"] = folder / "chat.jsonl"
    files["jsonl"].write_text(_lines([{"text": t, "author": "Jordan", "role": "other"}
                                      for t in texts]))
    files["jsonl"].write_text(files["jsonl"].read_text() + _lines(
        [{"text": t, "role": "user", "stream": "me"} for t in texts]))
    mbox = b""
    for i, t in enumerate(texts):
        mbox += (f"From jordan@example.com Mon Mar  9 10:00:0{i % 10} 2026\n"
                 f"Message-ID: <s{i}@example.com>\nFrom: Jordan <jordan@example.com>\n"
                 f"Subject: creds {i}\n\n>{t}\n\n").encode()  # mboxrd: '>From ' escapes

    files["mbox"] = folder / "mail.mbox"
    files["mbox"].write_bytes(mbox)
    files["slack"] = folder / "slack.zip"
    with zipfile.ZipFile(files["slack"], "w") as archive:
        archive.writestr("users.json", json.dumps([{"id": "U1", "name": "jordan"}]))
        archive.writestr("ops/2026-03-01.json", json.dumps(
            [{"type": "message", "user": "U1", "text": t, "ts": f"1772000000.{i:06d}"}
             for i, t in enumerate(texts)]))
    chat = "".join(f"01/03/2026, 10:{i:02d} - Jordan: {t}\n" for i, t in enumerate(texts))
    files["textchat"] = folder / "WhatsApp Chat with Jordan.txt"
    files["textchat"].write_text(chat)
    return files


def _all_bytes(root: Path) -> bytes:
    return b"".join(p.read_bytes() for p in sorted(root.rglob("*"))
                    if p.is_file() and ".git" not in p.parts)


def test_planted_secrets_never_reach_spool_database_or_store(dream, repo: Path,
                                                            tmp_path: Path,
                                                            dream_home: Path) -> None:
    dream("init")
    folder = tmp_path / "planted"
    folder.mkdir()
    files = plant(folder, str(repo.resolve()))
    report = json.loads(dream("collect", "--json", str(folder)).output)
    assert report["skipped"] == 0, report["skipped_items"]
    assert set(report["by_source"]) == set(files)
    assert report["redacted"] >= len(SECRETS) * len(files)
    import sqlite3
    conn = sqlite3.connect(dream_home / "dream.db")
    rows = conn.execute("SELECT source, text, author FROM items").fetchall()
    texts = {source: " ".join(t for s, t, _ in rows if s == source) for source, _, _ in rows}
    for source in files:
        for kind, (_, secret) in SECRETS.items():
            assert secret not in texts[source], (source, kind)
            expected = placeholder(kind, secret if kind != "private-key" else SECRETS[kind][0])
            assert expected in texts[source], (source, kind)
    conn.close()
    # the database files themselves (tables, FTS index, WAL)
    raw = b"".join(p.read_bytes() for p in dream_home.glob("dream.db*"))
    for _, secret in SECRETS.values():
        assert secret.encode() not in raw
    # a dream run writes the store from the spool; nothing secret lands there either
    dream("run", "--model", "rules")
    store_files = _all_bytes(dream_home / "notes")
    history = subprocess.run(["git", "log", "--all", "-p", "--format=%B"],
                             cwd=dream_home / "notes", capture_output=True, check=True).stdout
    for _, secret in SECRETS.values():
        assert secret.encode() not in store_files and secret.encode() not in history
    # the run did write memory from the planted items: their placeholders are in the store
    assert b"[REDACTED:" in store_files and b"[REDACTED:" in history
