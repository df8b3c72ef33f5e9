"""Project identity: a stable key per repository, shared by its linked worktrees, and
the repository's remotes in one spelling (to recognise a transcript recorded elsewhere)."""

from __future__ import annotations

import hashlib
import re
import subprocess
import unicodedata
from dataclasses import dataclass
from pathlib import Path

from dream.secrets import redact, strip_placeholders

_NAME_RE = re.compile(r"[^a-z0-9._-]+")
_SCP_RE = re.compile(r"^(?:[^@/]+@)?([^:/]+):(?!//)(.+)$")  # git@host:owner/repo


def normal_remote(url: object) -> str | None:
    """A git remote URL as ``host/path`` (lower case, no user, password, port, scheme or
    ``.git``), so the HTTPS and SSH spellings of one repository compare equal; None for
    anything that is not a remote URL. Credentials in the URL never survive."""
    if not isinstance(url, str):
        return None
    url = url.strip()
    if not url or any(c.isspace() for c in url):
        return None
    if "://" in url:
        rest = url.split("://", 1)[1]
        host, _, path = rest.partition("/")
        host = host.rsplit("@", 1)[-1].split(":", 1)[0]
    else:
        match = _SCP_RE.match(url)
        if not match:
            return None
        host, path = match.group(1), match.group(2)
    path = path.strip("/").removesuffix(".git").strip("/")
    if not host or not path:
        return None
    return f"{host}/{path}".lower()


def remotes(root: Path) -> set[str]:
    """The normalised URLs of every remote of the repository at ``root`` (see
    :func:`normal_remote`); empty outside git or without remotes."""
    out = _git(root, "config", "--get-regexp", r"^remote\..*\.url$") or ""
    found = {normal_remote(line.split(" ", 1)[1]) for line in out.splitlines() if " " in line}
    return {url for url in found if url}


@dataclass(frozen=True)
class ProjectId:
    key: str            # '<name>-<8 hex>': stable across worktrees of one repository
    name: str           # readable name used in note addresses (@projects/<name>/...)
    root: Path          # work tree (or folder) the command ran in
    in_git: bool        # False when derived from a plain folder
    common_dir: Path | None  # the git common dir the key was derived from


# letters NFKD does not split into a base letter and a mark
_LATIN = str.maketrans({"æ": "ae", "ø": "o", "œ": "oe", "đ": "d", "ð": "d", "þ": "th",
                        "ł": "l", "ı": "i", "ħ": "h", "ŧ": "t", "ŋ": "ng"})


def _latin(text: str) -> str:
    """``text`` lower-cased with accented Latin letters as their plain ones ('Café' ->
    'cafe', 'Größe' -> 'grösse' -> 'grosse'); other scripts stay as they are."""
    text = unicodedata.normalize("NFKD", text.casefold()).translate(_LATIN)
    return "".join(ch for ch in text if not unicodedata.combining(ch))


def slug(text: str) -> str:
    """A readable name: lower case ASCII letters, digits, '.', '-' and '_', accented Latin
    letters as their plain ones ('Café' -> 'cafe'); letters of other scripts cannot be in
    a note address and are left out ('project' when nothing is left, see
    :func:`lost_letters`). A secret in a folder name is left out (the key's hash is made
    from the raw path, so two such folders still differ)."""
    out = _NAME_RE.sub("-", _latin(strip_placeholders(redact(text)[0]))).strip("-.")
    return out[:48] or "project"


def name_folder(project: ProjectId) -> str:
    """The folder a project's name is made from: a repository's main checkout (linked
    worktrees share it, as they share the key), else the folder itself."""
    if project.common_dir is None:
        return project.root.name
    main_root = project.common_dir.parent if project.common_dir.name == ".git" else \
        project.common_dir
    return main_root.name.removesuffix(".git")


def lost_letters(text: str) -> bool:
    """Whether :func:`slug` leaves out letters or digits of ``text`` (another script)."""
    return any(ch.isalnum() and not ch.isascii() for ch in _latin(text))


def key_slug(text: str) -> str:
    """The name part of a project key: the slug before accented letters were kept
    ('Café' -> 'caf'). Keys identify projects in stores, the spool and commit trailers,
    so they stay what they were; re-keying would need a migration of all three."""
    out = _NAME_RE.sub("-", strip_placeholders(redact(text)[0]).lower()).strip("-.")
    return out[:48] or "project"


# the long-path and device prefixes of Windows ('\\?\C:\...', '\\?\UNC\server\...')
_WINDOWS_PREFIX_RE = re.compile(r"^(?:[\\/]{2}[?.][\\/](?:UNC[\\/])?)", re.IGNORECASE)
_SEPARATORS_RE = re.compile(r"[\\/]+")
_DRIVE_RE = re.compile(r"^[A-Za-z]:$")


def folder_name(folder: str) -> str:
    """The last component of a folder a transcript recorded, in any spelling a session on
    another machine writes: POSIX (``/home/me/proj``), Windows (``C:\\Users\\me\\proj``,
    ``C:/Users/me/proj``), Git Bash or MSYS (``/c/Users/me/proj``), long paths
    (``\\\\?\\C:\\...``) and shares (``\\\\server\\share\\proj``); trailing
    separators are ignored. '' for a root or a bare drive. Compared through :func:`slug`,
    which lower-cases, so names match case-insensitively."""
    parts = [p for p in _SEPARATORS_RE.split(_WINDOWS_PREFIX_RE.sub("", folder.strip())) if p]
    if not parts or _DRIVE_RE.match(parts[-1]):
        return ""
    return parts[-1]


def _git(cwd: Path, *args: str) -> str | None:
    try:
        proc = subprocess.run(["git", *args], cwd=cwd, capture_output=True, text=True)
    except (FileNotFoundError, NotADirectoryError):
        return None
    if proc.returncode != 0:
        return None
    return proc.stdout.strip()


def identify(path: Path) -> ProjectId:
    """Identify the project at ``path``.

    In a git repository the key comes from the *common* git dir, so a linked worktree
    (``git worktree add``) gets the same key as its main checkout. Outside git the key is
    derived from the folder itself.
    """
    path = Path(path).resolve()
    # one git process for both answers (every command identifies its project); a bare
    # repository has no top level, so it is asked for the common dir alone
    both = _git(path, "rev-parse", "--path-format=absolute", "--git-common-dir",
                "--show-toplevel")
    lines = both.splitlines() if both else []
    common, top = (lines[0], lines[1]) if len(lines) == 2 else \
        (_git(path, "rev-parse", "--path-format=absolute", "--git-common-dir"), None)
    if common:
        common_dir = Path(common).resolve()
        # the main checkout is the parent of a '.git' common dir; bare repos use the dir name
        main_root = common_dir.parent if common_dir.name == ".git" else common_dir
        folder = main_root.name.removesuffix(".git")
        digest = hashlib.sha256(str(common_dir).encode()).hexdigest()[:8]
        return ProjectId(f"{key_slug(folder)}-{digest}", slug(folder),
                         Path(top) if top else path, True, common_dir)
    digest = hashlib.sha256(str(path).encode()).hexdigest()[:8]
    return ProjectId(f"{key_slug(path.name)}-{digest}", slug(path.name), path, False, None)
