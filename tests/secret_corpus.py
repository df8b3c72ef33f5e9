"""Planted secrets: one synthetic secret of each kind, in the sentence it would appear in.

None is a real credential: each is generated from a seeded random source in the shape the
issuer uses (prefix, alphabet, length), so detectors that look at shape see the real thing.
Used by the corpus test (tests/test_secret_corpus.py) and by bench/redaction.py, which
compares detectors on it.
"""

from __future__ import annotations

import base64
import json
import random
import string
from dataclasses import dataclass

_ALNUM = string.ascii_letters + string.digits
_HEX = "0123456789abcdef"
_B64 = _ALNUM + "+/"
_URLSAFE = _ALNUM + "-_"
_UPPER_ALNUM = string.ascii_uppercase + string.digits


@dataclass(frozen=True)
class Plant:
    kind: str
    secret: str   # the value that must never be stored or sent
    text: str     # the sentence carrying it


def _gen(seed: str):
    rnd = random.Random(seed)

    def pick(alphabet: str, n: int) -> str:
        return "".join(rnd.choice(alphabet) for _ in range(n))
    return pick


def _b64url(data: dict) -> str:
    return base64.urlsafe_b64encode(json.dumps(data).encode()).decode().rstrip("=")


def plants() -> list[Plant]:
    """At least 40 kinds, each with its secret and a sentence a person or a tool would write."""
    r = _gen("dream-secret-corpus")
    jwt = (_b64url({"alg": "HS256", "typ": "JWT"}) + "." +
           _b64url({"sub": r(string.digits, 10), "name": "Plant Ed", "iat": 1772000000}) +
           "." + r(_URLSAFE, 43))
    azure_key = r(_B64, 86) + "=="
    sas_sig = r(_ALNUM, 40) + "%3D"
    pem = "\n".join(r(_B64, 64) for _ in range(6))
    basic = base64.b64encode(f"deploy:{r(_ALNUM, 14)}".encode()).decode()
    out = [
        ("anthropic-key", (s := "sk-ant-api03-" + r(_URLSAFE, 93) + "AA"),
         f"export ANTHROPIC_KEY_FOR_TESTS={s}"),
        ("openai-key", (s := "sk-proj-" + r(_URLSAFE, 48)), f"the client uses {s} for now"),
        ("stripe-key", (s := "sk_live_" + r(_ALNUM, 24)), f"stripe.api_key = '{s}'"),
        ("stripe-webhook", (s := "whsec_" + r(_ALNUM, 32)), f"webhook signing: {s}"),
        ("github-token", (s := "ghp_" + r(_ALNUM, 36)), f"git clone https://{s}@github.com/o/r"),
        ("github-pat", (s := "github_pat_" + r(_ALNUM, 22) + "_" + r(_ALNUM, 59)),
         f"use {s} in the workflow"),
        ("gitlab-token", (s := "glpat-" + r(_URLSAFE, 20)), f"CI uses {s} to push"),
        ("slack-token", (s := "xoxb-" + r(string.digits, 12) + "-" + r(string.digits, 13) +
                          "-" + r(_ALNUM, 24)), f"the bot posts with {s}"),
        ("slack-webhook", (s := "https://hooks.slack.com/services/T" + r(_UPPER_ALNUM, 8) +
                           "/B" + r(_UPPER_ALNUM, 10) + "/" + r(_ALNUM, 24)),
         f"alerts go to {s}"),
        ("google-api-key", (s := "AIza" + r(_URLSAFE, 35)), f"maps key {s}"),
        ("google-oauth-secret", (s := "GOCSPX-" + r(_URLSAFE, 28)),
         f"client secret {s} from the console"),
        ("aws-key", (s := "AKIA" + r(_UPPER_ALNUM, 16)), f"aws access key id {s}"),
        ("aws-secret", (s := r(_B64, 40)), f"aws_secret_access_key = {s}"),
        ("azure-connection-string", azure_key,
         "DefaultEndpointsProtocol=https;AccountName=plantacct;AccountKey=" + azure_key +
         ";EndpointSuffix=core.windows.net"),
        ("azure-sas-url", sas_sig,
         "https://plantacct.blob.core.windows.net/backups/db.bak?sv=2022-11-02&ss=b&srt=o"
         f"&sp=r&se=2026-12-31T00:00:00Z&st=2026-01-01T00:00:00Z&spr=https&sig={sas_sig}"),
        ("jwt", jwt, f"session cookie was {jwt}"),
        ("auth-basic", basic, f"curl -H 'Authorization: Basic {basic}' https://api.example.org"),
        ("auth-bearer", (s := r(_ALNUM, 40)), f"Authorization: Bearer {s}"),
        ("bearer-token", (s := r(_ALNUM, 32) + "." + r(_URLSAFE, 20)),
         f"send it with the Bearer {s} prefix"),
        ("x-api-key-hex", (s := r(_HEX, 32)), f"X-Api-Key: {s}"),
        ("sendgrid-key", (s := "SG." + r(_URLSAFE, 22) + "." + r(_URLSAFE, 43)),
         f"mail via sendgrid {s}"),
        ("npm-token", (s := "npm_" + r(_ALNUM, 36)), f"//registry.npmjs.org/:_authToken={s}"),
        ("huggingface-token", (s := "hf_" + r(_ALNUM, 34)), f"login to the hub with {s}"),
        ("pgpass-line", (s := r(_ALNUM, 18)), f"db.internal:5432:orders:app:{s}"),
        ("netrc-line", (s := r(_ALNUM, 16)),
         f"machine api.example.org login deploy password {s}"),
        ("url-password", (s := r(_ALNUM, 16)),
         f"DATABASE_URL=postgres://app:{s}@db.internal:5432/orders"),
        ("mixed-case-assignment", (s := r(_ALNUM, 14)), f"DbPassword={s}"),
        ("json-password", (s := r(_ALNUM, 12)), f'{{"user": "app", "password": "{s}"}}'),
        ("escaped-json-password", (s := r(_ALNUM, 12)),
         f'{{\\"db_password\\": \\"{s}\\"}}'),
        ("env-token", (s := r(_ALNUM, 30)), f"export DEPLOY_TOKEN={s}"),
        ("cli-password-flag", (s := r(_ALNUM, 13)), f"mysql --password {s} -h db"),
        ("said-password", (s := r(string.ascii_lowercase, 6) + r(string.digits, 3) + "!"),
         f"my password is {s} so use that"),
        ("said-basic-auth", (s := r(_ALNUM, 11)),
         f"the staging basic-auth password is {s}, user admin"),
        ("said-token", (s := r(_ALNUM, 24)), f"the token is {s}"),
        ("private-key", pem,
         f"-----BEGIN RSA PRIVATE KEY-----\n{pem}\n-----END RSA PRIVATE KEY-----"),
        ("twilio-key", (s := "SK" + r(_HEX, 32)), f"twilio api key {s}"),
        ("mailgun-key", (s := "key-" + r(_HEX, 32)), f"mailgun uses {s}"),
        ("mailchimp-key", (s := r(_HEX, 32) + "-us14"), f"mailchimp {s}"),
        ("discord-bot-token", (s := "MT" + r(_ALNUM, 24) + "." + r(_URLSAFE, 6) + "." +
                               r(_URLSAFE, 38)), f"discord bot token {s}"),
        ("telegram-bot-token", (s := r(string.digits, 10) + ":AA" + r(_URLSAFE, 33)),
         f"bot https://api.telegram.org/bot{s}/sendMessage"),
        ("shopify-token", (s := "shpat_" + r(_HEX, 32)), f"shop admin token {s}"),
        ("pypi-token", (s := "pypi-AgEIcHlwaS5vcmc" + r(_URLSAFE, 60)),
         f"twine upload -p {s}"),
        ("docker-hub-token", (s := "dckr_pat_" + r(_URLSAFE, 27)), f"docker login -p {s}"),
        ("digitalocean-token", (s := "dop_v1_" + r(_HEX, 64)), f"doctl auth init -t {s}"),
        ("vault-token", (s := "hvs." + r(_URLSAFE, 24)), f"VAULT_TOKEN {s}"),
        ("linear-key", (s := "lin_api_" + r(_ALNUM, 40)), f"linear: {s}"),
        ("atlassian-token", (s := "ATATT3xFfGF0" + r(_URLSAFE, 180)), f"jira {s}"),
        ("age-secret-key", (s := "AGE-SECRET-KEY-1" + r(string.ascii_uppercase + "023456789",
                                                        58)), f"age key {s}"),
        ("square-token", (s := "sq0atp-" + r(_URLSAFE, 22)), f"square {s}"),
        ("ado-connection-string", (s := r(_ALNUM, 15)),
         f"Server=db.internal;Database=orders;User Id=app;Password={s};"),
        ("redis-url", (s := r(_ALNUM, 20)), f"REDIS=redis://:{s}@cache.internal:6379/0"),
        ("curl-user", (s := r(_ALNUM, 12)), f"curl -u deploy:{s} https://ci.example.org"),
        ("grafana-token", (s := "glsa_" + r(_ALNUM, 32) + "_" + r(_HEX, 8)),
         f"grafana service account {s}"),
    ]
    return [Plant(kind, secret, text) for kind, secret, text in out]


# Participant names, branches and folders that carry a secret (the fields besides the text).
def field_secrets() -> dict[str, Plant]:
    """One secret per non-text field, so a leak names the field it came through."""
    r = _gen("dream-secret-fields")
    return {name: Plant(name, s, s) for name, s in [
        ("author", "ghp_" + r(_ALNUM, 36)),
        ("stream", "glpat-" + r(_URLSAFE, 20)),
        ("recipient", "npm_" + r(_ALNUM, 36)),
        ("cwd", "hf_" + r(_ALNUM, 34)),
        ("branch", "xoxp-" + r(string.digits, 12) + "-" + r(string.digits, 12) + "-" +
         r(_ALNUM, 24)),
        ("tool", "sk_live_" + r(_ALNUM, 24)),
    ]}
