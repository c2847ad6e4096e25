"""The documentation stays a site a reader can navigate (issue 32, item 8), checked without building it:
the README stays short, every page under docs/ is reachable from mkdocs.yml's navigation (and every
navigation entry exists), every ``docs/….md`` path the code, tests and README name exists, and the
README's table of extras names every extra of pyproject.toml.
``make docs`` (``mkdocs build --strict``) checks the links inside the pages."""

from __future__ import annotations

import re
import tomllib
from pathlib import Path
from typing import Any

import yaml

ROOT = Path(__file__).resolve().parents[1]
DOCS = ROOT / "docs"
README_MAX_LINES = 200


def _nav_pages(entry: Any) -> list[str]:
    """Every page path in a MkDocs ``nav`` entry: a path, a {title: path or list} or a list of those."""
    if isinstance(entry, str):
        return [entry]
    if isinstance(entry, list):
        return [page for item in entry for page in _nav_pages(item)]
    if isinstance(entry, dict):
        return [page for value in entry.values() for page in _nav_pages(value)]
    raise AssertionError(f"mkdocs.yml: unexpected nav entry {entry!r}")


def _nav() -> list[str]:
    config = yaml.safe_load((ROOT / "mkdocs.yml").read_text(encoding="utf-8"))
    assert config["docs_dir"] == "docs"
    return _nav_pages(config["nav"])


def test_the_readme_is_at_most_200_lines() -> None:
    lines = (ROOT / "README.md").read_text(encoding="utf-8").splitlines()
    assert len(lines) <= README_MAX_LINES, f"README.md has {len(lines)} lines; move detail into docs/"


def test_every_docs_page_is_in_the_navigation_once() -> None:
    pages = sorted(p.relative_to(DOCS).as_posix() for p in DOCS.rglob("*.md"))
    nav = _nav()
    assert sorted(set(pages) - set(nav)) == [], "pages missing from mkdocs.yml's nav"
    assert sorted(set(nav) - set(pages)) == [], "nav entries with no page under docs/"
    assert sorted(p for p in nav if nav.count(p) > 1) == [], "pages listed twice in the nav"


def test_every_docs_path_named_in_the_code_exists() -> None:
    named: dict[str, list[str]] = {}
    sources = [ROOT / "README.md", ROOT / "Makefile"]
    for folder in ("src", "tests", "benchmarks", "scripts", "examples"):
        sources += [p for p in (ROOT / folder).rglob("*") if p.suffix in {".py", ".md", ".yaml", ".toml"}]
    for path in sources:
        for ref in re.findall(r"\bdocs/[\w./-]*?\.md\b", path.read_text(encoding="utf-8")):
            named.setdefault(ref, []).append(path.relative_to(ROOT).as_posix())
    missing = {ref: where for ref, where in named.items() if not (ROOT / ref).is_file()}
    assert missing == {}, "docs pages named but not found (moved? update the reference)"
    assert "docs/index.md" in named  # the scan reads the README's links


def test_the_readme_extras_table_names_every_extra() -> None:
    extras = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    table = readme.split("[start:extras]", 1)[1].split("[end:extras]", 1)[0]
    rows = re.findall(r"^\| `([\w-]+)` \|", table, flags=re.M)
    assert sorted(rows) == sorted(extras["optional-dependencies"])


def test_the_options_page_is_made_from_the_option_models() -> None:
    """docs/running/options.md is what scripts/options_doc.py writes from the models: an option added,
    renamed or given another default changes the page, so the page cannot drift from the CLI."""
    from omnieval.options.reference import options_page

    page = (ROOT / "docs" / "running" / "options.md").read_text(encoding="utf-8")
    assert page == options_page(), "docs/running/options.md is out of date: run python scripts/options_doc.py"
    for flag in ("--max-tokens", "--batch-size", "--batch-api-group-size", "--help-all", "--quiet"):
        assert flag in page
