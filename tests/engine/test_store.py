from __future__ import annotations

from pathlib import Path

import pytest

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


def test_the_environment_prefetched_on_a_thread_is_what_the_manifest_reads() -> None:
    """``run_async`` starts the slow facts (git, uname, package metadata) on a thread before setting up."""
    import platform

    from omnieval.store import environment_info, prefetch_environment

    prefetch_environment()
    info = environment_info()  # waits for the prefetch instead of doing the work twice
    assert info["platform"] == platform.platform() and "pydantic" in info["libraries"]
    assert info == environment_info()


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


def test_jsonl_rows_read_as_the_standard_library_reads_them(tmp_path: Path) -> None:
    """Rows go through orjson first (a run reads each row twice); every line must give what json.loads
    gives, including what orjson refuses or reads otherwise, and a bad line the same message."""
    import json

    from omnieval.store.jsonl import json_objects

    lines = [
        '{"id": "a", "q": "Вопрос?", "n": 1.5e-7, "id2": 12}',
        '{"id": 123456789012345678901234567890}',  # past 64 bits: orjson would read a float
        '{"id": "b", "x": NaN, "y": 1e400}',
        '{"id": "c", "s": "\\ud800", "k": 1, "k": 2}',
        "",
    ]
    path = tmp_path / "rows.jsonl"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    got = [row for _, row in json_objects(path, error=lambda n, why: ValueError(n, why))]
    assert [json.dumps(r) for r in got] == [json.dumps(json.loads(x)) for x in lines if x]
    assert got[1]["id"] == 123456789012345678901234567890
    path.write_text('{"id": "a"}\n{"id": \n', encoding="utf-8")
    with pytest.raises(ValueError, match="not valid JSON") as caught:
        list(json_objects(path, error=lambda n, why: ValueError(f"line {n}: {why}")))
    assert "line 2" in str(caught.value)
