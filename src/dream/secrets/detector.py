"""The maintained detector: the plugins of ``bc-detect-secrets``, used as a text redactor.

``bc-detect-secrets`` (Bridgecrew's maintained fork of Yelp's ``detect-secrets``) ships one
plugin per issuer, each with ``analyze_string(text)`` yielding the secret values it sees.
Every plugin it registers is used (a new release's plugins too), except the two
high-entropy scanners, which flag every hash, id and base64 blob in free text (218,974
hits on 10 MB of real transcripts); their idea runs inside Dream's keyword rules instead
(a value after ``token=`` must be long and mixed, see ``rules.token_value``).

Speed: a plugin runs only on text holding one of its literal hints (the table below); a
plugin the table does not know (added by a newer release) runs on every text that reaches
the detector. Nothing here calls the network: ``verify`` is never used.

Importing ``detect_secrets`` (it pulls in ``requests``) costs about 60 ms, more than most
commands need: a project's folder name is redacted on every command. So the package is
imported on first use (:func:`plugins`), and :func:`catalogue_covered` says, from the
installed release's version file alone, whether the table below names every plugin of
that release. When it does, a text holding none of the table's hints can hold nothing a
plugin finds, and the redactor imports the detector only when a hint is seen; for any
other release it imports it at once, so an unknown plugin still reads every text.
"""

from __future__ import annotations

import importlib.util
import re
from collections.abc import Iterator
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

from dream.secrets.rules import password_value

# Literal hints per plugin: lower-case ones are looked for in the lower-cased text.
HINTS: dict[str, tuple[str, ...]] = {
    "ArtifactoryDetector": ("AKC", "artif", "jfrog", "buildkit"),
    "AWSKeyDetector": ("AKIA", "ASIA", "ABIA", "ACCA", "A3T", "aws"),
    "AzureStorageKeyDetector": ("accountkey", "account_key", "azure"),
    "BasicAuthDetector": ("://",),
    "CloudantDetector": ("cloudant",),
    "DiscordBotTokenDetector": ("discord",),
    "GitHubTokenDetector": ("ghp_", "gho_", "ghu_", "ghs_", "ghr_"),
    "IbmCloudIamDetector": ("ibm", "iam"),
    "IbmCosHmacDetector": ("secret",),
    "JwtTokenDetector": ("eyJ",),
    "KeywordDetector": ("password", "passwd", "_pass", "pwd", "secret", "contrase",
                        "api_key", "apikey", "api-key", "api.key", "auth_key", "authkey",
                        "private_key", "privatekey", "priv_key", "privkey", "client_key",
                        "service_key", "account_key", "db_key", "database_key", "token"),
    "MailchimpDetector": ("-us",),
    "NpmDetector": ("npm",),
    "PrivateKeyDetector": ("PRIVATE KEY", "PuTTY"),
    "SendGridDetector": ("SG.",),
    "SlackDetector": ("xox", "hooks.slack.com"),
    "SoftlayerDetector": ("softlayer", "sl_", "sl-"),
    "SquareOAuthDetector": ("sq0csp",),
    "StripeDetector": ("_live_",),
    "TwilioKeyDetector": ("AC", "SK"),
}
SKIPPED = ("Base64HighEntropyString", "HexHighEntropyString")
# releases whose whole catalogue is HINTS plus SKIPPED (tests/test_redaction.py checks the
# installed one against the table whenever its version is listed here)
COVERED_RELEASES = ("1.5.52",)
_VERSION_RE = re.compile(r"""VERSION\s*=\s*['"]([^'"]+)['"]""")
MAX_LINE = 1000  # the keyword plugin's patterns backtrack on long (minified) lines
_KIND = re.compile(r"[^a-z0-9]+")


@dataclass(frozen=True)
class Plugin:
    name: str                       # the plugin's class name (the key of HINTS)
    kind: str                       # 'ds-' and the plugin's secret type, as a slug
    hints: tuple[str, ...] | None   # None: runs on every text
    plugin: Any


def installed_release() -> str | None:
    """The installed release of the detector, read from its version file without importing
    the package; None when it cannot be read."""
    try:
        spec = importlib.util.find_spec("detect_secrets")
    except (ImportError, ValueError):
        return None
    if spec is None or not spec.submodule_search_locations:
        return None
    for folder in spec.submodule_search_locations:
        try:
            text = (Path(folder) / "__version__.py").read_text(encoding="utf-8")
        except OSError:
            continue
        match = _VERSION_RE.search(text)
        if match:
            return match.group(1)
    return None


@cache
def catalogue_covered() -> bool:
    """True when the installed release's every plugin has hints in HINTS or is SKIPPED."""
    return installed_release() in COVERED_RELEASES


@cache
def plugins() -> tuple[Plugin, ...]:
    from detect_secrets.core.plugins.util import get_mapping_from_secret_type_to_class

    out = []
    for secret_type, cls in get_mapping_from_secret_type_to_class().items():
        name = cls.__name__
        if name in SKIPPED:
            continue
        kind = "ds-" + _KIND.sub("-", secret_type.lower()).strip("-")
        out.append(Plugin(name, kind, HINTS.get(name), cls()))
    return tuple(out)


def _kept(value: str, keyword: bool) -> bool:
    from detect_secrets.filters.heuristic import is_potential_uuid, is_sequential_string

    if "[REDACTED:" in value or "REDACTED:" in value:
        return False
    if keyword:
        return password_value(value)
    return len(value) >= 8 and not is_sequential_string(value) and not is_potential_uuid(value)


def find(plugin: Plugin, spans: list[str]) -> Iterator[tuple[str, str]]:
    """(kind, value) for every secret ``plugin`` sees in the spans of text holding its hints,
    line by line (the plugins' patterns are written for lines)."""
    keyword = plugin.kind == "ds-secret-keyword"
    for span in spans:
        for line in span.splitlines() if "\n" in span else (span,):
            if keyword and ('"' not in line and "'" not in line or len(line) > MAX_LINE):
                continue  # its patterns need a quoted value; Dream's rules read long lines
            try:
                found = list(plugin.plugin.analyze_string(line))
            except Exception:  # noqa: BLE001 - a plugin's bug must not stop redaction
                continue
            for value in found:
                if isinstance(value, str) and _kept(value, keyword):
                    yield plugin.kind, value
