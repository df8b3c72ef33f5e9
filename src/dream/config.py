"""config.toml: user settings and the list of attached stores."""

from __future__ import annotations

import os
import tomllib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import tomli_w

from dream.errors import ConfigError

# the tokens of items one model call of a run takes: what 'dream run --pack-tokens',
# DREAM_PACK_TOKENS and [run] pack_tokens accept (past them no model's context holds a call).
# Their one home: config is light and already loaded by every command that reads them
PACK_LOW, PACK_HIGH = 500, 200_000
# the token cap of a brief: what 'dream run --brief-tokens' and [run] brief_tokens accept
# (0 made every brief empty)
BRIEF_LOW, BRIEF_HIGH = 50, 200_000

DEFAULTS: dict[str, Any] = {
    "model": {"default": "rules"},
    "run": {"pack_tokens": 12000, "brief_tokens": 2000, "apply": "auto"},
    "stores": [],
    "pricing": {},
}


# settings whose type Dream relies on: (section, key) -> (type, what to write)
TYPED: dict[tuple[str, str], tuple[type | tuple[type, ...], str]] = {
    ("model", "default"): (str, 'a provider spec such as "rules"'),
    ("run", "pack_tokens"): (int, "a whole number such as 12000"),
    ("run", "brief_tokens"): (int, "a whole number such as 2000"),
    ("run", "apply"): (str, '"auto" or "review"'),
    ("search", "score_budget"): (int, "a whole number such as 20000"),
    ("model", "timeout"): ((int, float), "a number of seconds such as 60"),
    ("model", "max_retries"): (int, "a whole number such as 2"),
    ("model", "backoff_base"): ((int, float), "a number of seconds such as 1.0"),
    ("model", "backoff_max"): ((int, float), "a number of seconds such as 30"),
    ("model", "max_wait"): ((int, float), "a number of seconds such as 120"),
    ("model", "temperature"): ((int, float), "a number such as 0.2"),
    ("model", "openai_base_url"): (str, 'a URL such as "http://localhost:11434/v1"'),
    ("model", "anthropic_base_url"): (str, 'a URL such as "https://api.anthropic.com"'),
    ("model", "openai_api_key_env"): (str, 'a variable name such as "OPENAI_API_KEY"'),
    ("model", "anthropic_api_key_env"): (str, 'a variable name such as "ANTHROPIC_API_KEY"'),
    ("model", "openai_model"): (str, 'a model name such as "gpt-4o-mini"'),
    ("model", "anthropic_model"): (str, 'a model name such as "claude-haiku-4-5"'),
    ("model", "openai_response_format"): (str, '"json_schema" or "json_object"'),
    ("model", "openai_max_tokens_param"): (str, '"max_completion_tokens" or "max_tokens"'),
    ("automations", "context_window"): (int, "a whole number of tokens such as 200000"),
    ("automations", "context_windows"): (dict, 'a table of model = tokens such as '
                                                '[automations.context_windows] "acme" = 200000'),
    ("automations", "before_compaction"): ((int, float), "a fraction such as 0.70"),
    ("automations", "after_pause"): ((int, float), "a fraction such as 0.50"),
    ("automations", "pause_hours"): ((int, float), "a number of hours such as 8"),
    ("hooks", "collect_on"): (list, 'a list of events such as ["PreCompact", "SessionEnd"]'),
    ("hooks", "transcript_dirs"): ((list, str), 'a list of folders such as ["~/logs/agents"]'),
    ("collect", "me"): ((list, str), 'a list such as ["me@example.com", "Ana Lima"]'),
}

# lists whose entries Dream reads as text
TEXT_LISTS = {("hooks", "collect_on"), ("hooks", "transcript_dirs"), ("collect", "me")}

# numbers Dream can only use within bounds: (section, key) -> (lowest, highest, what to write)
RANGES: dict[tuple[str, str], tuple[float, float | None, str]] = {
    ("run", "brief_tokens"): (BRIEF_LOW, BRIEF_HIGH, f"a number of tokens from {BRIEF_LOW} "
                                                     f"to {BRIEF_HIGH}, such as 2000"),
    # what 'dream run --pack-tokens' takes; the run refused the rest, doctor said all good
    ("run", "pack_tokens"): (PACK_LOW, PACK_HIGH, f"a number of tokens from {PACK_LOW} to "
                                                  f"{PACK_HIGH}, such as 12000"),
    # what OpenAI-compatible APIs take: 99 failed every call of a run (the anthropic
    # provider refuses above 1, the Messages API's most)
    ("model", "temperature"): (0, 2, "a number from 0 to 2, such as 0.2"),
    ("model", "timeout"): (0.001, None, "a number of seconds above 0, such as 120"),
    ("model", "max_retries"): (0, None, "a whole number of at least 0, such as 3"),
    ("model", "backoff_base"): (0, None, "a number of seconds of at least 0, such as 1.0"),
    ("model", "backoff_max"): (0, None, "a number of seconds of at least 0, such as 30"),
    ("model", "max_wait"): (0, None, "a number of seconds of at least 0, such as 120"),
    ("automations", "context_window"): (1, None, "a number of tokens above 0, such as 200000"),
    ("automations", "before_compaction"): (0, 1, "a fraction from 0 to 1, such as 0.70"),
    ("automations", "after_pause"): (0, 1, "a fraction from 0 to 1, such as 0.50"),
    ("automations", "pause_hours"): (0, None, "a number of hours of at least 0, such as 8"),
}

# text settings Dream reads as one of a few words: a run, or the provider at its first
# call, refused any other, while 'dream doctor' said all good
CHOICES: dict[tuple[str, str], tuple[str, ...]] = {
    ("run", "apply"): ("auto", "review"),
    ("model", "openai_response_format"): ("json_schema", "json_object"),
    ("model", "openai_max_tokens_param"): ("max_completion_tokens", "max_tokens"),
}


# the keys Dream reads in each section ([pricing."MODEL"] tables are named by the user);
# anything else is most likely a typo, which 'dream doctor' points out
KNOWN: dict[str, frozenset[str] | None] = {
    "model": frozenset({"default", "openai_base_url", "openai_api_key_env", "openai_model",
                        "openai_response_format", "openai_strict", "openai_max_tokens_param",
                        "anthropic_base_url", "anthropic_api_key_env", "anthropic_model",
                        "temperature", "timeout", "max_retries", "backoff_base",
                        "backoff_max", "max_wait"}),
    "run": frozenset({"pack_tokens", "brief_tokens", "apply"}),
    "collect": frozenset({"me"}),
    "search": frozenset({"score_budget"}),
    "automations": frozenset({"context_window", "context_windows", "before_compaction",
                              "after_pause", "pause_hours"}),
    "hooks": frozenset({"collect_on", "transcript_dirs"}),
    "pricing": None,
    "stores": None,
}


def unknown_settings(data: dict[str, Any]) -> list[str]:
    """Sections and keys of a parsed config.toml that Dream never reads ('[run] brief_tokenz')."""
    out = []
    for section, value in data.items():
        if section not in KNOWN:
            out.append(f"[{section}]")
        elif KNOWN[section] is not None and isinstance(value, dict):
            out += [f"[{section}] {key}" for key in value if key not in KNOWN[section]]
    return out


def _type_name(value: Any) -> str:
    return {str: "text", int: "a number", float: "a number", bool: "true/false",
            list: "a list", dict: "a table"}.get(type(value), type(value).__name__)


def _check_types(path: Path, data: dict[str, Any]) -> None:
    """Refuse a config.toml whose values have the wrong type, with the line to fix, so no
    command fails later with an internal error."""
    for section, default in DEFAULTS.items():
        value = data.get(section)
        if isinstance(default, dict) and not isinstance(value, dict):
            raise ConfigError(f"{path}: '{section}' must be a table ([{section}]), not "
                              f"{_type_name(value)}", f"write it as [{section}] in {path}")
        if isinstance(default, list) and not isinstance(value, list):
            raise ConfigError(f"{path}: '{section}' must be a list of tables, not "
                              f"{_type_name(value)}", "attach stores with 'dream stores attach'")
    for n, entry in enumerate(data.get("stores", []), 1):
        if not isinstance(entry, dict) or not isinstance(entry.get("path"), str):
            raise ConfigError(f"{path}: store entry {n} needs a text 'path'",
                              f'write it as [[stores]] path = "/path/to/store" in {path}')
    for (section, key), (kind, want) in TYPED.items():
        table = data.get(section)
        if not isinstance(table, dict) or key not in table:
            continue
        value = table[key]
        if not isinstance(value, kind) or isinstance(value, bool):
            raise ConfigError(f"{path}: [{section}] {key} must be {want}, not "
                              f"{_type_name(value)} {value!r}",
                              f"edit {key} under [{section}] in {path}")
        if (section, key) in TEXT_LISTS and isinstance(value, list):
            odd = next((v for v in value if not isinstance(v, str)), None)
            if odd is not None:
                raise ConfigError(f"{path}: [{section}] {key} must be {want}; its entry "
                                  f"{odd!r} is {_type_name(odd)}, not text",
                                  f"quote it under [{section}] in {path}")
        if (section, key) in CHOICES and value not in CHOICES[section, key]:
            raise ConfigError(f"{path}: [{section}] {key} must be "
                              f"{' or '.join(map(repr, CHOICES[section, key]))}, not {value!r}",
                              f"edit {key} under [{section}] in {path}")
        if (section, key) in RANGES:
            low, high, bounds = RANGES[section, key]
            # nan (which TOML writes) is neither below nor above a bound
            if value != value or value < low or (high is not None and value > high):
                raise ConfigError(f"{path}: [{section}] {key} must be {bounds}, not {value!r}",
                                  f"edit {key} under [{section}] in {path}")
    windows = data.get("automations", {}).get("context_windows") \
        if isinstance(data.get("automations"), dict) else None
    for name, tokens in (windows or {}).items():
        if not isinstance(tokens, int) or isinstance(tokens, bool) or tokens < 1:
            raise ConfigError(f"{path}: [automations.context_windows] {name!r} must be a "
                              f"whole number of tokens above 0, not {tokens!r}",
                              f"edit it under [automations.context_windows] in {path}")



def _why(exc: BaseException) -> str:
    """What is wrong with a file the TOML reader refused (a RecursionError says nothing)."""
    return "nested too deeply" if isinstance(exc, RecursionError) else str(exc)


@dataclass
class Config:
    path: Path
    data: dict[str, Any] = field(default_factory=dict)

    @classmethod
    def load(cls, path: Path) -> "Config":
        data: dict[str, Any] = {}
        if path.exists():
            try:
                # utf-8-sig: Windows editors (Notepad) start a saved file with a byte-order mark,
                # which TOML calls an "Invalid statement (at line 1, column 1)"
                data = tomllib.loads(path.read_text(encoding="utf-8-sig"))
            except (tomllib.TOMLDecodeError, UnicodeDecodeError, RecursionError) as exc:
                raise ConfigError(
                    f"{path} is not valid TOML ({_why(exc)})", "fix the file or move it aside"
                ) from exc
        merged: dict[str, Any] = {
            k: (dict(v) if isinstance(v, dict) else list(v) if isinstance(v, list) else v)
            for k, v in DEFAULTS.items()}
        for key, value in data.items():
            default = merged.get(key)
            if isinstance(value, dict) and isinstance(default, dict):
                default.update(value)
            else:
                merged[key] = value
        _check_types(path, merged)
        return cls(path, merged)

    def save(self) -> None:
        self.path.parent.mkdir(parents=True, exist_ok=True)
        # a name of this process's own: one shared name, a second writer's replace found
        # the file already moved (FileNotFoundError) or moved the first one's half-written
        tmp = self.path.with_name(f".{self.path.name}.{os.getpid()}.tmp")
        tmp.write_text(tomli_w.dumps(self.data), encoding="utf-8")
        tmp.replace(self.path)

    def get(self, section: str, key: str, default: Any = None) -> Any:
        value = self.data.get(section, {})
        if isinstance(value, dict):
            return value.get(key, default)
        return default

    @property
    def store_paths(self) -> list[Path]:
        return [Path(entry["path"]) for entry in self.data.get("stores", [])]

    def add_store(self, path: Path) -> None:
        entries = self.data.setdefault("stores", [])
        if not any(Path(e["path"]) == path for e in entries):
            entries.append({"path": str(path)})

    def remove_store(self, path: Path) -> bool:
        entries = self.data.get("stores", [])
        kept = [e for e in entries if Path(e["path"]) != path]
        self.data["stores"] = kept
        return len(kept) != len(entries)
