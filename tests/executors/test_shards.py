"""Shard planning and merging without Ray; aggregation that does not depend on record order."""

from __future__ import annotations

import json
import random
from pathlib import Path

from omnieval.aggregate import compute_results
from omnieval.executors.shards import merge_shards, plan_shards, seed_shards, shard_file
from omnieval.runner import resolve_tasks
from tests.executors.helpers import config, dialog_task, qa_task


def test_chains_are_never_split_and_sizes_hold(tmp_path: Path) -> None:
    tasks = resolve_tasks(
        (f"jsonl:{qa_task(tmp_path, 21)}", str(dialog_task(tmp_path, n_dialogs=5, turns=3)))
    )
    plans, size = plan_shards(tasks, config([], "http://x/v1", tmp_path / "o"), shard_size=8, workers=1)
    assert size == 8
    assert [p.size for p in plans if p.task == "qa"] == [8, 8, 5]
    assert [p.size for p in plans if p.task == "dlg"] == [6, 6, 3]
    for plan in plans:
        dialogs = {sid.split("-")[0] for sid in plan.sample_ids if plan.task == "dlg"}
        assert all(sum(s.startswith(d + "-") for s in plan.sample_ids) == 3 for d in dialogs)
    again, _ = plan_shards(tasks, config([], "http://x/v1", tmp_path / "o"), shard_size=8, workers=1)
    assert [p.key for p in again] == [p.key for p in plans], "the same configuration plans the same shards"
    limited, _ = plan_shards(
        tasks, config([], "http://x/v1", tmp_path / "o", limit=4), shard_size=8, workers=1
    )
    assert {p.key for p in limited}.isdisjoint(p.key for p in plans), "other samples, other shard keys"


def _line(task: str, sid: str, state: str = "ok") -> bytes:
    return (json.dumps({"task": task, "sample_id": sid, "state": state, "chain": None}) + "\n").encode()


def test_merge_orders_by_plan_and_keeps_other_tasks(tmp_path: Path) -> None:
    tasks = resolve_tasks((f"jsonl:{qa_task(tmp_path, 10)}",))
    out = tmp_path / "o"
    plans, _ = plan_shards(tasks, config([], "http://x/v1", out), shard_size=4, workers=1)
    out.mkdir()
    (out / "samples.jsonl").write_bytes(_line("other", "z") + _line("qa", "q9") + _line("qa", "q1", "error"))
    current = seed_shards(out, plans)
    assert [k.sample_id for k in current[plans[0].key]] == ["q1"] and [
        k.sample_id for k in current[plans[2].key]
    ] == ["q9"]
    for plan in plans:  # workers finish in any order
        ids = [s for s in plan.sample_ids if s not in ("q1", "q9")]
        random.Random(plan.key).shuffle(ids)
        shard_file(out, plan).parent.mkdir(parents=True, exist_ok=True)
        with shard_file(out, plan).open("ab") as fh:
            fh.writelines(_line("qa", s) for s in ids)
    merge_shards(out, plans)
    ids = [json.loads(x)["sample_id"] for x in (out / "samples.jsonl").read_text().splitlines()]
    assert ids == [f"q{i}" for i in range(10)] + ["z"]


def test_results_do_not_depend_on_record_order(tmp_path: Path) -> None:
    tasks = resolve_tasks((f"jsonl:{qa_task(tmp_path, 50)}",))
    rng = random.Random(3)
    recs = [
        {
            "task": "qa",
            "sample_id": f"q{i}",
            "state": "ok" if i % 7 else "error",
            "score": s,
            "metrics": {"exact_match": s},
            "reason": None if i % 7 else f"boom {i}",
        }
        for i, s in enumerate(rng.random() for _ in range(50))
    ]
    first = compute_results(tasks, recs, model="m")
    shuffled = recs[:]
    rng.shuffle(shuffled)
    assert compute_results(tasks, shuffled, model="m") == first
    assert first.tasks["qa"].ci95 is not None


def test_sample_ids_no_task_has_are_named(tmp_path: Path) -> None:
    """A Ray run warns about a mistyped ``--sample-ids`` entry as a local run does (ids of other tasks
    count)."""
    from omnieval.executors.shards import unplanned_sample_ids

    tasks = resolve_tasks(
        (f"jsonl:{qa_task(tmp_path, 10)}", str(dialog_task(tmp_path, n_dialogs=2, turns=2)))
    )
    wanted = config([], "http://x/v1", tmp_path / "o", sample_ids=("q3", "q33", "d0-1", "d9-0"))
    plans, _ = plan_shards(tasks, wanted, shard_size=4, workers=1)
    assert sorted(s for p in plans for s in p.sample_ids) == ["d0-1", "q3"]
    assert unplanned_sample_ids(plans, wanted) == ("q33", "d9-0")
    assert unplanned_sample_ids(plans, config([], "http://x/v1", tmp_path / "o")) == ()


def test_a_shard_counts_every_record_of_this_run_once_also_a_lost_worker_s() -> None:
    """A shard that started with 1 record of an earlier run, lost its worker after it wrote 2 more (they
    reached the driver), and whose replacement wrote the other 2 and re-did one of the lost worker's
    (``judge_failed`` is judged again on resume): 4 new records, each sample counted once in its last
    state, although the replacement itself reports only its own 3."""
    from omnieval.executors.shard_queue import Tally
    from omnieval.executors.shards import ShardPlan
    from omnieval.store import RecordKey

    def key(sample: str, state: str) -> RecordKey:
        return RecordKey("qa", sample, state, None, b"")

    plan = ShardPlan("000-qa", "qa", ("a", "b", "c", "d", "e"), (0, 1, 2, 3, 4))
    keys = [key("a", "ok"), key("b", "ok"), key("c", "judge_failed"), key("d", "ok"), key("e", "ok")]
    keys.append(key("c", "ok"))
    tally = Tally(before={plan.key: 1})
    report = {"new": {"ok": 3}, "retries": 0, "started": 0.0, "wall_s": 1.0, "node": "n", "pid": 1}
    tally.add(plan, report, keys, attempts=1)
    assert tally.states == {"qa": {"ok": 4}}
    assert tally.shards[plan.key]["new_samples"] == 4
