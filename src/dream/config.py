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
    "run": {"pack_bundles": 6, "brief_tokens": 2000, "apply": "auto"},
    "stores": [],
    "pricing": {},
}


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
