"""The Ray executor carries its earlier ``executor`` and ``judges`` blocks over from the run folder's
manifest, read through ``ManifestFile``; an unreadable or foreign manifest carries nothing over."""

from __future__ import annotations

import json
from pathlib import Path

from omnieval.executors.ray_executor import _previous
from omnieval.runner import RunConfig


def test_the_earlier_blocks_come_from_the_typed_manifest(tmp_path: Path) -> None:
    config = RunConfig(tasks=("x",), model="baseline/oracle", output=tmp_path)
    assert _previous(config, "executor") == {}  # no manifest yet
    blocks = {"executor": {"shards": {"qa-0": {"n": 3}}}, "judges": {"qa": {"version": "v1"}}}
    (tmp_path / "manifest.json").write_text(json.dumps({"config": {}, **blocks}), encoding="utf-8")
    assert _previous(config, "executor") == blocks["executor"]
    assert _previous(config, "judges") == blocks["judges"]
    (tmp_path / "manifest.json").write_text(json.dumps({**blocks, "schema_version": 4}), encoding="utf-8")
    assert _previous(config, "executor") == {}  # a newer omnieval's manifest: nothing carried over
    (tmp_path / "manifest.json").write_text("{cut", encoding="utf-8")
    assert _previous(config, "judges") == {}
