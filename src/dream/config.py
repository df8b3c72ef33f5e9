"""config.toml: user settings and the list of attached stores."""

from __future__ import annotations

import tomllib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import tomli_w

from dream.errors import ConfigError

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
}


# the keys Dream reads in each section ([pricing."MODEL"] tables are named by the user);
# anything else is most likely a typo, which 'dream doctor' points out
KNOWN: dict[str, frozenset[str] | None] = {
    "model": frozenset({"default", "openai_base_url", "openai_api_key_env",
                        "openai_response_format", "anthropic_base_url",
                        "anthropic_api_key_env", "timeout", "max_retries"}),
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


@dataclass
class Config:
    path: Path
    data: dict[str, Any] = field(default_factory=dict)

    @classmethod
    def load(cls, path: Path) -> "Config":
        data: dict[str, Any] = {}
        if path.exists():
            try:
                data = tomllib.loads(path.read_text(encoding="utf-8"))
            except (tomllib.TOMLDecodeError, UnicodeDecodeError) as exc:
                raise ConfigError(
                    f"{path} is not valid TOML ({exc})", "fix the file or move it aside"
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
        tmp = self.path.with_suffix(".toml.tmp")
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
