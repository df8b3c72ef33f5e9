"""Dream's own secret rules, added to the maintained detector's catalogue.

Three families, each rule a ``Rule(kind, hints, pattern, check)``:

* **token shapes** issuers give their keys (a prefix and an alphabet): the whole match is
  the secret, so it needs no context;
* **keyword assignments and headers** (``DbPassword=…``, ``"password": "…"``,
  ``Authorization: Basic …``, ``X-Api-Key: …``, ``--password …``, ``.pgpass`` and
  ``.netrc`` lines, connection strings, SAS signatures): only the value (group ``s``) is
  replaced, so ``PASSWORD=`` stays readable, and a value must *look* secret (``check``);
* **statements** in a sentence ("my password is …", "the staging basic-auth password is
  …", "the token is …").

A rule runs only on text containing one of its hints: lower-case hints are looked for in
the lower-cased text, others in the text as it is. ``check`` keeps readable things readable:
code references (``token = get_token()``), numbers, placeholders, templates and plain
words are not secrets.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable
from dataclasses import dataclass


@dataclass(frozen=True)
class Rule:
    kind: str
    hints: tuple[str, ...]
    pattern: re.Pattern[str]
    check: Callable[[str], bool] | None = None   # does the captured value look secret?
    multiline: bool = False  # a match may span lines (else only lines with a hint are read)

    @property
    def grouped(self) -> bool:
        return "s" in self.pattern.groupindex


def entropy(value: str) -> float:
    """Shannon entropy in bits per character."""
    if not value:
        return 0.0
    counts: dict[str, int] = {}
    for ch in value:
        counts[ch] = counts.get(ch, 0) + 1
    n = len(value)
    return -sum(c / n * math.log2(c / n) for c in counts.values())


_LITERALS = {"true", "false", "null", "none", "nil", "undefined", "yes", "no", "required",
             "optional", "string", "str", "bool", "int", "secret", "password", "token",
             "empty", "redacted", "hidden", "masked", "xxxxxx", "changeme?", "example"}
_TEMPLATE = re.compile(r"^(?:\$\{?|\{\{|<|%\(|%s|\*{3,}|x{4,}$|\.{3}|…|os\.environ|"
                       r"process\.env|env\(|getenv|ENV\[)", re.IGNORECASE)
# a masked or elided value ('sk-a***REDACTED***123', 'sk-ant-...') shows no secret
_MASKED = re.compile(r"redacted|\*{3}|\.{3}|…|x{5}|<[a-z_\-]+>", re.IGNORECASE)
_REGEX_LIKE = re.compile(r"[\[\](){}^|\\]|\+$|\*$")
_PATH_LIKE = re.compile(r"^(?:\.{0,2}/|~/|[A-Za-z]:\\)|/[\w\-]+\.[a-z]{1,5}$")
_CODE_REF = re.compile(r"^[A-Za-z_][\w]*(?:\.[A-Za-z_]\w*)*(?:\(|\[|$)")
_WORDS = re.compile(r"^[a-z]+(?:[_\-. ][a-z]+)*$")
_NUMBER = re.compile(r"^[\d.,:\-+eE]+$")
_HASHY = re.compile(r"^(?:sha\d*[:-])?[0-9a-f]{40}$|^[0-9a-f]{64}$")


def _plain(value: str) -> bool:
    """A value that is code, a number, a template or words, not a secret."""
    # the detector's heuristic, imported here: importing its package costs ~60 ms, which
    # a command that never meets a candidate secret should not pay
    from detect_secrets.filters.heuristic import is_sequential_string

    low = value.lower().strip("'\"`")
    return (low in _LITERALS or bool(_NUMBER.match(value)) or bool(_TEMPLATE.match(value))
            or bool(_WORDS.match(value)) or bool(_MASKED.search(value))
            or bool(_REGEX_LIKE.search(value)) or is_sequential_string(value))


def password_value(value: str) -> bool:
    """After a password-like key: anything of six characters or more that is not plain code
    (a password may be a short word with a digit)."""
    if len(value) < 6 or _plain(value) or _PATH_LIKE.search(value):
        return False
    # an identifier or a call (get_password(), settings.db.password, $VAR) is a reference
    return not (_CODE_REF.match(value) and not any(c.isdigit() for c in value))


def token_value(value: str) -> bool:
    """After a token- or key-like key: long and mixed (letters and digits), or high entropy;
    commit hashes and digests (which sit beside such keys in lock files) are kept."""
    if len(value) < 12 or _plain(value) or _HASHY.match(value) or _PATH_LIKE.search(value):
        return False
    if value.replace("_", "").isalpha() and len(value) < 40:
        return False  # an identifier (calculateContextTokens); random keys hold digits
    if _CODE_REF.match(value) and ("(" in value or "[" in value or "." in value):
        return False
    has_digit = any(c.isdigit() for c in value)
    has_alpha = any(c.isalpha() for c in value)
    return (has_digit and has_alpha) or entropy(value) >= 3.5


def url_password(value: str) -> bool:
    """The password part of a URL: anything but a template, a mask or a pattern."""
    return not (_plain(value) and not value.isalpha())


def private_key_body(block: str) -> bool:
    """A PEM block with a key in it (a line of base64), not a pattern that names one."""
    return re.search(r"[A-Za-z0-9+/=]{40,}", block) is not None


def said_value(value: str) -> bool:
    """A value said in a sentence: a word of four or more characters with a digit, a
    capital after the first letter, or a symbol; plain words ('wrong', 'expired') are not."""
    if len(value) < 4 or _plain(value):
        return False
    if value.isdigit():
        return len(value) >= 4
    return (any(c.isdigit() for c in value) or any(c.isupper() for c in value[1:])
            or any(not c.isalnum() for c in value))


def _rule(kind: str, hints: tuple[str, ...], pattern: str,
          check: Callable[[str], bool] | None = None, multiline: bool = False) -> Rule:
    return Rule(kind, hints, re.compile(pattern), check, multiline)


_B64 = r"[A-Za-z0-9+/]"
_VALUE_END = r"(?![A-Za-z0-9_\-])"
# keys whose values are passwords (short values count) and keys whose values are tokens
_PASSWORD_KEYS = (r"(?:pass(?:word|wd|phrase|code)|[_\-]pass\b|pwd|secret|"
                  r"contrase[nñ]a)")  # a bare 'pass:' is a YAML field (the pass of a run)
_TOKEN_KEYS = (r"(?:token|api[_\-.]?key|apikey|access[_\-]?key|auth[_\-]?key|private[_\-]?key|"
               r"secret[_\-]?key|client[_\-]?secret|credentials?|account[_\-]?key|"
               r"shared[_\-]?access[_\-]?key|signing[_\-]?key|session[_\-]?key)")
# an assignment: the key (any identifier holding the keyword), optional quotes (escaped or
# not), then = or :, then the value, quoted or bare
_ASSIGN = (r"(?i:{key}[A-Za-z0-9_\-]{{0,20}})"
           r"(?:\\*[\"'])?[ \t]*(?:=|:|:=|=>)[ \t]*(?:\\*[\"'])?"
           r"(?P<s>[^\s\"'`,;\\<>()\[\]{{}}|&]{{4,400}})")
_HEADER = (r"(?i:\b(?:authorization|proxy-authorization)[\"']?\s*[:=]\s*[\"']?"
           r"(?:basic|bearer|token|digest|apikey|api-key|sso-key|key)?\s*)"
           r"(?P<s>[A-Za-z0-9+/=_\-.~:]{{8,}})")

TOKEN_SHAPES: list[Rule] = [
    _rule("private-key", ("-----BEGIN",),
          r"-----BEGIN[ A-Z0-9]{0,40}PRIVATE KEY(?: BLOCK)?-----[\s\S]{0,20000}?"
          r"-----END[ A-Z0-9]{0,40}PRIVATE KEY(?: BLOCK)?-----", private_key_body, True),
    _rule("anthropic-key", ("sk-ant-",), r"\bsk-ant-[A-Za-z0-9_\-]{10,}"),
    _rule("openai-key", ("sk-",), r"\bsk-(?:proj-|svcacct-|admin-)?[A-Za-z0-9_\-]{20,}"),
    _rule("stripe-key", ("_live_", "_test_"), r"\b(?:sk|rk|pk)_(?:live|test)_[A-Za-z0-9]{16,}"),
    _rule("stripe-webhook", ("whsec_",), r"\bwhsec_[A-Za-z0-9+/]{24,}"),
    _rule("github-token", ("ghp_", "gho_", "ghu_", "ghs_", "ghr_", "github_pat_"),
          r"\b(?:gh[pousr]_[A-Za-z0-9]{30,}|github_pat_[A-Za-z0-9_]{40,})"),
    _rule("gitlab-token", ("glpat-", "gldt-", "glptt-", "glrt-", "glsoat-", "GR1348941"),
          r"\b(?:gl(?:pat|dt|ptt|rt|soat)-[A-Za-z0-9_\-]{20,}|GR1348941[A-Za-z0-9_\-]{20,})"),
    _rule("slack-token", ("xox", "xapp-"),
          r"\b(?:xox[abposre]-[A-Za-z0-9\-]{10,}|xapp-\d-[A-Za-z0-9\-]{10,})"),
    _rule("slack-webhook", ("hooks.slack.com",),
          r"https://hooks\.slack\.com/(?:services|workflows|triggers)/[A-Za-z0-9_/]{20,}"),
    _rule("google-api-key", ("AIza",), r"\bAIza[0-9A-Za-z_\-]{35}"),
    _rule("google-oauth-secret", ("GOCSPX-",), r"\bGOCSPX-[A-Za-z0-9_\-]{24,}"),
    _rule("aws-key", ("AKIA", "ASIA", "ABIA", "ACCA", "A3T"),
          r"\b(?:AKIA|ASIA|ABIA|ACCA|A3T[A-Z0-9])[0-9A-Z]{16}\b"),
    _rule("jwt", ("eyJ",),
          r"\beyJ[A-Za-z0-9_\-]{8,}\.eyJ[A-Za-z0-9_\-]{4,}\.[A-Za-z0-9_\-]{8,}"),
    _rule("sendgrid-key", ("SG.",), r"\bSG\.[A-Za-z0-9_\-]{16,32}\.[A-Za-z0-9_\-]{16,64}"),
    _rule("npm-token", ("npm_",), r"\bnpm_[A-Za-z0-9]{36}\b"),
    _rule("huggingface-token", ("hf_",), r"\b(?:hf_|api_org_)[A-Za-z0-9]{30,}\b"),
    _rule("twilio-key", ("SK", "AC"), r"\b(?:SK|AC)[0-9a-f]{32}\b"),
    _rule("mailgun-key", ("key-",), r"\bkey-[0-9a-f]{32}\b"),
    _rule("mailchimp-key", ("-us",), r"\b[0-9a-f]{32}-us\d{1,2}\b"),
    _rule("discord-token", ("discord",),
          r"\b[MNO][A-Za-z0-9_\-]{23,25}\.[A-Za-z0-9_\-]{6}\.[A-Za-z0-9_\-]{27,38}\b"),
    _rule("telegram-bot-token", (":AA",), r"(?<![0-9])\d{8,10}:AA[A-Za-z0-9_\-]{33}(?![A-Za-z0-9_\-])"),
    _rule("shopify-token", ("shpat_", "shpss_", "shpca_", "shppa_"),
          r"\bshp(?:at|ss|ca|pa)_[a-fA-F0-9]{32}\b"),
    _rule("pypi-token", ("pypi-AgE",), r"\bpypi-AgE[A-Za-z0-9_\-]{50,}"),
    _rule("docker-hub-token", ("dckr_pat_",), r"\bdckr_pat_[A-Za-z0-9_\-]{20,}"),
    _rule("digitalocean-token", ("dop_v1_", "doo_v1_", "dor_v1_"),
          r"\bdo[por]_v1_[a-f0-9]{64}\b"),
    _rule("vault-token", ("hvs.", "hvb.", "hvr."), r"\bhv[sbr]\.[A-Za-z0-9_\-]{20,}"),
    _rule("linear-key", ("lin_api_",), r"\blin_api_[A-Za-z0-9]{32,}"),
    _rule("atlassian-token", ("ATATT3",), r"\bATATT3[A-Za-z0-9_\-=]{100,}"),
    _rule("age-secret-key", ("AGE-SECRET-KEY-1",), r"\bAGE-SECRET-KEY-1[0-9A-Z]{50,}"),
    _rule("square-token", ("sq0atp-", "sq0csp-", "EAAA"),
          r"\b(?:sq0(?:atp|csp)-[A-Za-z0-9_\-]{22,}|EAAA[A-Za-z0-9_\-]{60})"),
    _rule("grafana-token", ("glsa_", "glc_"),
          r"\b(?:glsa_[A-Za-z0-9]{32}_[A-Fa-f0-9]{8}|glc_[A-Za-z0-9+/]{32,}={0,2})"),
]

CONTEXT_RULES: list[Rule] = [
    _rule("aws-secret", ("secret",),
          r"(?i:aws_?secret_?(?:access_?)?key|secret_?access_?key)[\"']?\s*[:=]\s*[\"']?"
          rf"(?P<s>{_B64}{{40}})(?![A-Za-z0-9/+=])"),
    _rule("azure-sas", ("sig=",),
          r"[?&](?:sv|se|sp|st|sr|spr|ss|srt)=[^\s\"']*?[?&]sig=(?P<s>[A-Za-z0-9%+/=]{16,})"),
    _rule("auth-header", ("authorization",), _HEADER.format()),
    _rule("api-key-header", ("x-", "api-key", "apikey"),
          r"(?i:\b(?:x-[a-z0-9\-]*(?:key|token|secret|auth|signature)[a-z0-9\-]*|api-?key|"
          r"ocp-apim-subscription-key)[\"']?[ \t]*[:=][ \t]*[\"']?)"
          r"(?P<s>[A-Za-z0-9+/=_\-.~]{12,})", token_value),
    _rule("bearer-token", ("bearer",), r"(?i:\bbearer)\s+(?P<s>[A-Za-z0-9_\-\.=~+/]{20,})"),
    _rule("url-password", ("://",),
          r"://[^\s:/@\"'<>]{0,100}:(?P<s>[^\s@/\"'<>]{1,200})@[A-Za-z0-9.\-\[\]]",
          url_password),
    _rule("pgpass-line", (":5432:", ":*:", ":3306:", ":6432:", ":5433:", "pgpass"),
          r"(?<![\w.:/\-])[A-Za-z0-9.\-*]+:(?:\d{1,5}|\*):[^\s:/]+:[^\s:/]+:"
          r"(?P<s>[^\s\"'\\]+)", password_value),
    _rule("netrc-line", ("machine", "netrc"),
          r"(?i:\bmachine\s+\S+\s+(?:login\s+\S+\s+)?password)\s+(?P<s>\S+)", None, True),
    _rule("cli-secret-flag", ("--pass", "--token", "--secret", "--api-key", "--apikey",
                              "--client-secret", "--auth-token", "--access-token"),
          r"(?i:--(?:password|passwd|pass|token|secret|api-?key|client-secret|"
          r"auth-token|access-token))(?:=|\s+)[\"']?(?P<s>[^\s\"']{6,})", password_value),
    _rule("curl-user", ("curl", "wget"),
          r"\b(?:curl|wget)\b[^\n|;]{0,200}?\s(?:-u|--user|--http-user)[ =]+[\"']?"
          r"[A-Za-z0-9._@+\-]+:(?P<s>[^\s@\"'\\]{4,})", password_value),
    _rule("password-assignment", ("pass", "pwd", "secret", "contrase"),
          _ASSIGN.format(key=_PASSWORD_KEYS), password_value),
    _rule("token-assignment", ("token", "api", "access", "auth", "private", "secret",
                                "credential", "account", "signing", "session"),
          _ASSIGN.format(key=_TOKEN_KEYS), token_value),
    _rule("said-secret", ("password", "passphrase", "passcode", "pin ", "token", "key",
                          "secret", "credential"),
          r"(?i:\b(?:password|passphrase|passcode|pin|token|api[ _-]?key|secret|"
          r"secret key|access key|credentials?)(?:\s+(?:for|of|to|on|at)\s+[\w.\-/ ]{1,40}?)?"
          r"\s+(?:is|was|are)(?:\s+(?:now|still|set\s+to|just))?\s*:?\s*)"
          r"\\*[\"'`“]?(?P<s>[^\s\"'`”\\]{0,200}[^\s\"'`”\\.,;:?)])",
          said_value),
]

RULES: list[Rule] = TOKEN_SHAPES + CONTEXT_RULES
