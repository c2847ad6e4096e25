from __future__ import annotations

from pathlib import Path

from omnieval.store import open_records, read_records, scan_keys
from omnieval.types import SampleResult


def test_scan_keys_fast_path_agrees_with_full_parse(tmp_path: Path) -> None:
    path = tmp_path / "samples.jsonl"
    writer = open_records(path)
    odd = ["плain", 'quote"inside', "back\\slash", "unicode ✓"]
    for i, sid in enumerate(odd):
        writer.write(
            SampleResult(
                task='t"x',
                sample_id=sid,
                state="ok" if i % 2 else "error",
                response=f"r{i}",
                chain="c" if i == 3 else None,
                chain_index=i,
            )
        )
    writer.close()
    with path.open("a", encoding="utf-8") as fh:
        fh.write('{"task": "t", "sample_id": "cut')  # a crash-cut tail is ignored
    keys = list(scan_keys(path))
    full = read_records(path)
    assert [(k.task, k.sample_id, k.state) for k in keys] == [(r.task, r.sample_id, r.state) for r in full]
    assert [k.chain_answer for k in keys] == [None, None, None, "r3"]


def test_typed_records_name_the_file_the_record_the_sample_and_the_field(tmp_path: Path) -> None:
    """Readers of records (packers, diff, trackers, exporters) go through SampleResult: a bad record fails
    here with where it is, not as a KeyError or a float('high') inside the reader."""
    import json

    import pytest

    from omnieval.errors import StoreError
    from omnieval.store import typed_records

    path = tmp_path / "samples.jsonl"
    good = SampleResult(task="t", sample_id="a", state="ok", score=1.0).model_dump(mode="json")
    rows = [good, {**good, "sample_id": "b", "state": "fine"}]
    path.write_text("\n\n".join(json.dumps(r) for r in rows) + "\n", encoding="utf-8")  # a blank line
    with pytest.raises(StoreError) as err:
        list(typed_records(path))
    message = str(err.value)
    assert message.startswith(f"{path}: record 2: task 't' sample 'b': not a valid record")
    assert "state" in message
    path.write_text(json.dumps(good) + "\n", encoding="utf-8")
    assert [r.sample_id for r in typed_records(path)] == ["a"]
