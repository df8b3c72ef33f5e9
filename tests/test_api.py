"""The consumer API (dream.api) and its CLI twins: show and context."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path

import pytest
from conftest import git

from dream import api
from dream.errors import GitFailed, NoHome, NotInitialised, StoreError, UnknownCommit


def test_exported_members():
    assert sorted(api.__all__) == sorted([
        "AUTHORITIES", "Discovery", "Document", "DreamError", "Hit", "Snapshot",
        "SnapshotDocument", "StoreInfo", "discover", "read", "search", "snapshot"])
    for name in api.__all__:
        assert hasattr(api, name), name


@pytest.fixture
def home(dream, repo, dream_home):
    out = json.loads(dream("init", "--json").output)
    return {"notes": dream_home / "notes", "key": out["project_key"],
            "name": out["project_name"], "repo": repo}


def test_discover_statuses(dream, repo, make_repo, dream_home, tmp_path):
    assert api.discover(repo).status == "no_home"
    dream("init")
    found = api.discover(repo)
    assert found.ok and found.store.name == "notes" and found.project_key.startswith("proj-")
    other = make_repo("other")
    assert api.discover(other).status == "not_initialised"
    # known to a store but no store is primary for it
    toml = dream_home / "notes/.dream/store.toml"
    toml.write_text(toml.read_text().replace("primary = true", "primary = false"))
    assert api.discover(repo).status == "not_managed"
    with pytest.raises(NotInitialised):
        api.search("anything", path=other)
    assert api.discover(repo, home=tmp_path / "elsewhere").status == "no_home"
    with pytest.raises(NoHome):
        api.snapshot("x", path=repo, home=tmp_path / "elsewhere")


def test_store_provider_errors_are_raised_not_empty(dream, home, dream_home):
    dream("notes", "write", "@user/a", "apple")
    toml = dream_home / "notes/.dream/store.toml"
    toml.write_text("id = [broken")
    with pytest.raises(StoreError):
        api.discover(home["repo"])
    with pytest.raises(StoreError):
        api.search("apple", path=home["repo"])
    result = dream("search", "apple", ok=False)
    assert result.exit_code == 1 and "store.toml" in result.output


def test_git_failure_is_raised(dream, home, dream_home):
    dream("notes", "write", "@user/a", "apple")
    (home["notes"] / ".git" / "HEAD").write_text("garbage\n")
    with pytest.raises(GitFailed):
        api.read("user/a.md", "HEAD", path=home["repo"])


def test_read_returns_exact_bytes_at_a_commit(dream, home):
    first = json.loads(dream("notes", "write", "@user/a", "first version", "--json").output)
    dream("notes", "update", "@user/a", "second version")
    old = api.read("user/a.md", first["commit"], path=home["repo"])
    assert old.commit == first["commit"] and "first version" in old.content
    assert old.sha256 == first["sha256"]
    assert old.data == git(home["notes"], "show", f"{first['commit']}:user/a.md").encode() + b"\n"
    # the CLI twin prints the same bytes, and the same fields as JSON
    raw = dream("show", "user/a.md", "--at", first["commit"])
    assert raw.stdout_bytes == old.data
    shown = json.loads(dream("show", "@user/a", "--at", first["commit"], "--json").output)
    assert set(shown) >= {"path", "commit", "sha256", "content"}
    assert shown["content"] == old.content and shown["sha256"] == old.sha256
    with pytest.raises(UnknownCommit):
        api.read("user/a.md", "0123456789abcdef", path=home["repo"])


def test_snapshot_reads_each_document_at_the_search_commit(dream, home):
    name = home["name"]
    for i in range(10):
        dream("notes", "write", f"@projects/{name}/n{i}",
              f"# Importer {i}\n\nMake the importer resumable, lesson {i}. " + "x" * (100 * i))
    snap = api.snapshot("resumable importer", path=home["repo"])
    assert len(snap.documents) == 8 and snap.total_chars <= 64000
    commit = git(home["notes"], "rev-parse", "HEAD")
    for doc in snap.documents:
        assert doc.commit == commit and doc.authority == "advisory"
        assert doc.content.encode() == api.read(doc.path, doc.commit, path=home["repo"]).data
    with pytest.raises(dataclasses.FrozenInstanceError):
        snap.documents[0].content = "changed"  # type: ignore[misc]
    # a later change does not alter what the snapshot recorded
    recorded = {d.path: d.content for d in snap.documents}
    changed = snap.documents[0].path
    dream("notes", "update", "@" + changed, "rewritten")
    assert {d.path: d.content for d in snap.documents} == recorded
    assert "rewritten" not in recorded[changed]

    small = api.snapshot("resumable importer", path=home["repo"], max_docs=3, max_chars=400)
    assert len(small.documents) <= 3 and small.total_chars <= 400
    assert sum(len(d.content) for d in small.documents) == small.total_chars
    assert all(o["reason"] == "max_chars" for o in small.omitted)

    chosen = api.snapshot("resumable importer", path=home["repo"], max_docs=4,
                          authority=lambda h: "binding" if h.path.endswith("n1.md") else "skipped")
    assert [d.path for d in chosen.documents] == [f"projects/{name}/n1.md"]
    assert chosen.documents[0].authority == "binding" and len(chosen.omitted) == 3


def test_context_cli(dream, home):
    name = home["name"]
    dream("notes", "write", f"@projects/{name}/a", "# Retry\n\nRetry flaky network calls.")
    out = json.loads(dream("context", "--objective", "retry network calls", "--json").output)
    doc = out["documents"][0]
    assert {"store_id", "store_name", "scope", "commit", "path", "sha256", "content",
            "authority"} <= set(doc)
    assert out["max_docs"] == 8 and out["max_chars"] == 64000
    binding = json.loads(dream("context", "--objective", "retry", "--authority", "binding",
                               "--max-docs", "2", "--json").output)
    assert binding["documents"][0]["authority"] == "binding"
    too_many = dream("context", "--objective", "retry", "--max-docs", "9", ok=False)
    assert too_many.exit_code == 1 and "max-docs" in too_many.output
    human = dream("context", "--objective", "retry").output
    assert f"projects/{name}/a.md" in human and "Retry flaky" in human


def test_read_from_another_store_by_id(dream, home, make_repo):
    team = make_repo("team")
    attached = json.loads(dream("stores", "attach", str(team), "--json").output)
    doc = api.read("README.md", "HEAD", store_id=attached["id"], path=home["repo"])
    assert doc.content == "# team\n" and doc.store_id == attached["id"]
    assert Path(doc.path).name == "README.md"
