"""bench/RESULTS.md merges by section: two branches that each append benchmark sections
rebase onto each other with every section whole, under its own heading."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
DRIVER = REPO / "scripts" / "merge_results.py"


def git(cwd: Path, *args: str) -> str:
    return subprocess.run(["git", *args], cwd=cwd, check=True, capture_output=True,
                          text=True).stdout


def section(title: str, bench: str, value: int) -> str:
    return (f"## {title}\n\n- command: `python bench/{bench}.py`\n\n| x |\n|---|\n| {value} |\n\n"
            "<details><summary>figures (JSON)</summary>\n\n```json\n"
            f'{{"benchmark": "{bench}", "x": {value}}}\n```\n\n</details>\n\n')


def make_repo(tmp_path: Path) -> Path:
    repo = tmp_path / "r"
    repo.mkdir()
    git(repo, "init", "-q", "-b", "main")
    git(repo, "config", "merge.results.driver",
        f"{sys.executable} {DRIVER} %O %A %B")
    (repo / ".gitattributes").write_text("RESULTS.md merge=results\n")
    (repo / "RESULTS.md").write_text("# Results\n\n" + section("cost 10:00", "cost", 1))
    git(repo, "add", "-A")
    git(repo, "commit", "-qm", "base")
    return repo


def test_two_branches_appending_sections_rebase_with_each_section_whole(tmp_path):
    repo = make_repo(tmp_path)
    git(repo, "checkout", "-qb", "side")
    with (repo / "RESULTS.md").open("a") as fh:
        fh.write(section("store 11:00", "store", 2) + section("cost 11:05", "cost", 3))
    git(repo, "commit", "-qam", "side figures")
    git(repo, "checkout", "-q", "main")
    with (repo / "RESULTS.md").open("a") as fh:
        fh.write(section("consolidation 11:01", "consolidation", 4))
    git(repo, "commit", "-qam", "main figures")
    git(repo, "checkout", "-q", "side")
    git(repo, "rebase", "-q", "main")                     # no conflict to resolve
    text = (repo / "RESULTS.md").read_text()
    assert "<<<<<<<" not in text
    parts = text.split("\n## ")[1:]
    assert [p.split("\n", 1)[0] for p in parts] == [
        "cost 10:00", "consolidation 11:01", "store 11:00", "cost 11:05"]
    for part in parts:                                   # each JSON under its own heading
        bench = part.split("bench/", 1)[1].split(".py", 1)[0]
        assert part.count('"benchmark"') == 1 and f'"benchmark": "{bench}"' in part


def test_a_section_repaired_on_one_side_and_appended_to_on_the_other(tmp_path):
    repo = make_repo(tmp_path)
    git(repo, "checkout", "-qb", "fix")
    text = (repo / "RESULTS.md").read_text().replace("| 1 |", "| 1 (corrected) |")
    (repo / "RESULTS.md").write_text(text)
    git(repo, "commit", "-qam", "correct a figure")
    git(repo, "checkout", "-q", "main")
    with (repo / "RESULTS.md").open("a") as fh:
        fh.write(section("store 12:00", "store", 5))
    git(repo, "commit", "-qam", "more figures")
    git(repo, "merge", "-q", "fix", "-m", "merge")
    text = (repo / "RESULTS.md").read_text()
    assert "| 1 (corrected) |" in text and "| 1 |" not in text and "store 12:00" in text


def test_one_section_changed_two_ways_is_a_conflict_that_keeps_both(tmp_path):
    repo = make_repo(tmp_path)
    git(repo, "checkout", "-qb", "a")
    (repo / "RESULTS.md").write_text((repo / "RESULTS.md").read_text().replace("| 1 |", "| A |"))
    git(repo, "commit", "-qam", "a")
    git(repo, "checkout", "-q", "main")
    (repo / "RESULTS.md").write_text((repo / "RESULTS.md").read_text().replace("| 1 |", "| B |"))
    git(repo, "commit", "-qam", "b")
    merged = subprocess.run(["git", "merge", "-q", "a", "-m", "m"], cwd=repo,
                            capture_output=True, text=True)
    assert merged.returncode != 0
    text = (repo / "RESULTS.md").read_text()
    assert "| A |" in text and "| B |" in text and "<<<<<<< ours" in text


def test_the_repository_names_the_driver_for_its_results_file():
    attributes = (REPO / ".gitattributes").read_text()
    assert "bench/RESULTS.md merge=results" in attributes
