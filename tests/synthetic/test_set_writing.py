"""Determinism (byte-identical sets), private seeds, atomic writing and option errors."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import pytest

import omnieval.benchmarks  # noqa: F401  (registers the suites)
from omnieval.benchmarks.synthetic import _core
from omnieval.errors import SourceError
from omnieval.sources.plugins import generators

SUITES = ("shapes", "charts", "tables", "text", "clocks", "math", "video-motion")


def _digest(folder: Path) -> dict[str, str]:
    return {
        str(p.relative_to(folder)): hashlib.sha256(p.read_bytes()).hexdigest()
        for p in sorted(folder.rglob("*"))
        if p.is_file()
    }


@pytest.mark.parametrize("suite", SUITES)
def test_same_seed_gives_byte_identical_files(tmp_path: Path, suite: str) -> None:
    first = _digest(generators.get(suite)(tmp_path / "a", seed=11, n=6).parent)
    assert first == _digest(generators.get(suite)(tmp_path / "b", seed=11, n=6).parent)
    assert len(first) == 7  # six media files and the manifest
    other = _digest(generators.get(suite)(tmp_path / "c", seed=12, n=6).parent)
    assert other["manifest.jsonl"] != first["manifest.jsonl"]


def test_instances_do_not_depend_on_n(tmp_path: Path) -> None:
    few = (generators.get("clocks")(tmp_path / "few", seed=3, n=4)).read_text(encoding="utf-8").splitlines()
    many = (generators.get("clocks")(tmp_path / "many", seed=3, n=9)).read_text(encoding="utf-8").splitlines()
    assert many[:4] == few


def test_the_seed_is_written_only_where_private_seed_redaction_finds_it(tmp_path: Path) -> None:
    """``omnieval generate --private-seed`` passes a secret seed and replaces every ``"seed": N`` field;
    nothing else in a set may reveal the seed (media never carry it)."""
    secret = 6_817_239_450_118_273_451
    for suite in SUITES:
        manifest = generators.get(suite)(tmp_path / suite, seed=secret, n=3)
        for line in manifest.read_text(encoding="utf-8").splitlines():
            row = json.loads(line)
            assert row.pop("seed") == secret
            assert str(secret) not in json.dumps(row)
        assert all(
            str(secret).encode() not in p.read_bytes()
            for p in manifest.parent.rglob("*")
            if p.is_file() and p.name != "manifest.jsonl"
        )


def test_a_failing_generation_leaves_no_set_behind(tmp_path: Path) -> None:
    calls = []

    def make(index: int, rng: object, level: str, lang: str, set_dir: Path) -> dict[str, object]:
        calls.append(index)
        (set_dir / f"{index}.png").write_bytes(b"x")
        if index == 2:
            raise RuntimeError("disk full")
        return {"task": "t", "question": "q", "answer": "1"}

    opts = _core.resolve_options("demo", seed=0, n=5, default_n=5, difficulty="mixed", lang="mixed")
    out = tmp_path / "set"
    with pytest.raises(RuntimeError, match="disk full"):
        _core.build_set(out, opts, lambda: make, version="1")
    assert calls == [0, 1, 2]
    assert not out.exists() and list(tmp_path.iterdir()) == []


def test_an_existing_set_is_never_overwritten(tmp_path: Path) -> None:
    out = tmp_path / "set"
    generators.get("text")(out, n=2)
    before = _digest(out)
    with pytest.raises(SourceError, match="not empty"):
        generators.get("text")(out, n=3, seed=5)
    assert _digest(out) == before
    empty = tmp_path / "empty"
    empty.mkdir()
    assert generators.get("text")(empty, n=1).is_file()  # an empty folder (the data cache's) is fine


@pytest.mark.parametrize(
    ("suite", "options", "field"),
    [
        ("shapes", {"n": 0}, "n"),
        ("shapes", {"difficulty": "extreme"}, "difficulty"),
        ("charts", {"lang": "de"}, "lang"),
        ("video-motion", {"fps": 0}, "fps"),
        ("video-motion", {"seconds": 1}, "seconds"),
        ("text", {"font": "/nonexistent.ttf"}, "font"),
    ],
)
def test_bad_options_are_named(tmp_path: Path, suite: str, options: dict[str, object], field: str) -> None:
    with pytest.raises(SourceError) as info:
        generators.get(suite)(tmp_path / "out", **options)
    assert info.value.field == field
    assert not (tmp_path / "out").exists()


def test_frame_rate_and_length_options(tmp_path: Path) -> None:
    import av

    manifest = generators.get("video-motion")(tmp_path / "v", n=2, fps=5, seconds=3, size=96)
    row = json.loads(manifest.read_text(encoding="utf-8").splitlines()[0])
    with av.open(str(manifest.parent / row["video"])) as container:
        stream = container.streams.video[0]
        frames = list(container.decode(video=0))
        assert float(stream.average_rate) == 5 and len(frames) == 15
        assert (frames[0].width, frames[0].height) == (96, 96)
    assert row["data"]["fps"] == 5 and row["data"]["seconds"] == 3


@pytest.mark.parametrize("suite", ["charts", "video-motion"])
def test_worker_processes_write_the_same_files(tmp_path: Path, suite: str) -> None:
    one = _digest(generators.get(suite)(tmp_path / "one", seed=4, n=40).parent)
    two = _digest(generators.get(suite)(tmp_path / "two", seed=4, n=40, workers=2).parent)
    assert one == two and len(one) == 41
