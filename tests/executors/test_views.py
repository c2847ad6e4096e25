"""The driver reads each task's selection once; each shard runs over a view of its own samples only."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from omnieval.errors import ConfigError
from omnieval.executors.shards import ShardPlan, merge_shards, plan_shards
from omnieval.executors.views import ShardViews
from omnieval.executors.worker import ShardWorker
from omnieval.runner import RunConfig, resolve_tasks, run
from tests.executors.helpers import dialog_task, record_set, records


def _config(tasks: list[str], out: Path, **kw: object) -> RunConfig:
    return RunConfig(tasks=tuple(tasks), model="baseline/oracle", output=out, quiet=True, **kw)  # type: ignore[arg-type]


def _run_sharded(config: RunConfig, *, held_bytes: int, shard_size: int) -> ShardViews:
    plans, _ = plan_shards(resolve_tasks(config.tasks), config, shard_size=shard_size, workers=1)
    worker = ShardWorker(config, owner="w")
    views = ShardViews(config, held_bytes=held_bytes)  # the driver's: each shard's piece goes to the worker

    async def run_all() -> None:
        for plan in plans:
            await worker.run_shard(plan, [], views.for_shard(plan))
        await worker.close()

    asyncio.run(run_all())
    merge_shards(config.output, plans)
    return views


def test_held_views_give_the_records_of_a_local_run(tmp_path: Path) -> None:
    tasks = ["demo_text", str(dialog_task(tmp_path, n_dialogs=4))]  # two prompt variants by position; chains
    run(_config(tasks, tmp_path / "local", limit=20))
    held = _run_sharded(_config(tasks, tmp_path / "held", limit=20), held_bytes=2**30, shard_size=5)
    streamed = _run_sharded(_config(tasks, tmp_path / "streamed", limit=20), held_bytes=0, shard_size=5)
    assert (
        record_set(tmp_path / "held") == record_set(tmp_path / "local") == record_set(tmp_path / "streamed")
    )
    assert held.reads == 2, "one read of each task's selection for all its shards"
    assert streamed.reads == 2 and streamed._streamed == {"demo_text", "dlg"}, (
        "over budget: given up once, read per shard"
    )
    variants = {r["variant"] for r in records(tmp_path / "held") if r["task"] == "demo_text"}
    assert variants == {"ru", "en"}, "the variant follows the sample's position in the full task"
    assert len(records(tmp_path / "held")) == 20 + 12


def test_view_keeps_positions_and_streams_only_its_samples() -> None:
    task = resolve_tasks(("demo_text",))[0]
    pairs = [p for p in enumerate(task.iter_samples()) if p[0] in (3, 7, 11)]
    view = task.view(pairs)
    assert [(p, s.id) for p, s in view.positioned()] == [(p, s.id) for p, s in pairs]
    assert (
        view.size == 3
        and view.content_hash == task.content_hash
        and view.data_fingerprint == task.data_fingerprint
    )
    view.scan_ids()  # only the view's samples; a view with a repeated id is caught
    with pytest.raises(Exception, match="duplicate sample id"):
        task.view([pairs[0], pairs[0]]).scan_ids()


def test_a_shard_naming_a_sample_the_data_lacks_is_a_clear_error(tmp_path: Path) -> None:
    views = ShardViews(_config(["demo_text"], tmp_path / "o"))
    plan = ShardPlan("000-demo_text-00000-x", "demo_text", ("no-such-id",), (0,))
    with pytest.raises(ConfigError, match="no-such-id"):
        views.for_shard(plan)


def test_media_bytes_are_embedded_with_the_path_kept(tmp_path: Path) -> None:
    from omnieval.executors.views import with_media_bytes
    from omnieval.media.hashing import fingerprint
    from omnieval.sources import Task
    from omnieval.types import MediaRef, Sample, TaskSpec

    (tmp_path / "a.png").write_bytes(b"\x89PNG fake")
    refs = [
        MediaRef(kind="image", name="image", path=str(tmp_path / "a.png")),
        MediaRef(kind="image", name="image", path=str(tmp_path / "gone.png")),
    ]
    samples = [Sample(id=f"s{i}", input="<image>", media=(ref,)) for i, ref in enumerate(refs)]
    task = Task.from_samples(TaskSpec(name="t"), samples).view(list(zip((4, 9), samples, strict=True)))
    shipped = list(with_media_bytes(task).positioned())
    assert [p for p, _ in shipped] == [4, 9], "positions kept"
    first, second = (s.media[0] for _, s in shipped)
    assert first.data == b"\x89PNG fake" and first.path == refs[0].path, (
        "bytes embedded, the path (records) kept"
    )
    assert fingerprint(first).sha256 == fingerprint(refs[0]).sha256, (
        "the same media hash (cache keys unchanged)"
    )
    assert second == refs[1], (
        "a missing file stays a path: the worker records the sample's error, as a local run"
    )


def test_media_go_to_the_object_store_once_per_content_whatever_the_paths_and_shards(tmp_path: Path) -> None:
    from omnieval.executors.views import MediaStore, with_media_bytes
    from omnieval.sources import Task
    from omnieval.types import MediaRef, Sample, TaskSpec

    (tmp_path / "a.png").write_bytes(b"same bytes")
    (tmp_path / "copy.png").write_bytes(b"same bytes")
    (tmp_path / "b.png").write_bytes(b"other bytes")
    names = ["a.png", "copy.png", "b.png", "a.png", "gone.png"]
    samples = [
        Sample(
            id=f"s{i}", input="<image>", media=(MediaRef(kind="image", name="image", path=str(tmp_path / n)),)
        )
        for i, n in enumerate(names)
    ]
    task = Task.from_samples(TaskSpec(name="t"), samples)
    put: list[bytes] = []

    def fake_put(data: bytes) -> str:
        put.append(data)
        return f"ref{len(put)}"

    store = MediaStore(put=fake_put)
    first = store.refs(task.view([(0, samples[0]), (1, samples[1])]))
    second = store.refs(task.view([(2, samples[2]), (3, samples[3]), (4, samples[4])]))
    assert put == [b"same bytes", b"other bytes"], "one object per distinct content, for the whole run"
    assert first == {str(tmp_path / "a.png"): "ref1", str(tmp_path / "copy.png"): "ref1"}
    assert second == {str(tmp_path / "b.png"): "ref2", str(tmp_path / "a.png"): "ref1"}, (
        "an unreadable file is left to the worker (it records the sample's error)"
    )
    blobs = {path: put[int(ref[3:]) - 1] for path, ref in {**first, **second}.items()}
    shipped = [s for _, s in with_media_bytes(task, memo=blobs).positioned()]
    assert [s.media[0].data for s in shipped[:4]] == [
        b"same bytes",
        b"same bytes",
        b"other bytes",
        b"same bytes",
    ]
    assert shipped[4].media[0].data is None
