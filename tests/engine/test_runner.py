from __future__ import annotations

import asyncio
from collections.abc import Sequence
from pathlib import Path

import pytest

from omnieval.runner import RetryPolicy, RunConfig, run
from omnieval.runs.evaluation import evaluate_config
from omnieval.runs.stored import rescore_run
from omnieval.sources import Task
from omnieval.types import Response

from .conftest import ScriptedBackend, options, raise_backend_error, read_samples, write_jsonl


def _config(qa_file: Path, out: Path, **kw: object) -> RunConfig:
    kw.setdefault("backend", options())
    return RunConfig(
        tasks=(f"jsonl:{qa_file}",),
        model="scripted/m",
        output=out,
        quiet=True,
        retry=RetryPolicy(max_attempts=2, base_delay_s=0.001),
        **kw,
    )  # type: ignore[arg-type]


def test_every_state_is_explicit_and_counted(
    tmp_path: Path, qa_file: Path, scripted: type[ScriptedBackend]
) -> None:
    def answer(r):
        i = int(r.sample_id)
        if i == 0:
            return raise_backend_error("boom", retryable=False)
        if i == 1:
            return Response(text="partial", finish_reason="length")
        if i == 2:
            return "<think>долго думал</think>" + r.targets[0]
        return r.targets[0] if i % 2 else "wrong"

    scripted.answer = staticmethod(answer)
    _, results = evaluate_config(_config(qa_file, tmp_path / "out"))
    block = results.tasks["qa"]
    assert block.n == 10
    assert block.states == {
        "ok": 8,
        "parse_failed": 0,
        "truncated": 1,
        "error": 1,
        "skipped": 0,
        "judge_failed": 0,
    }
    records = {r["sample_id"]: r for r in read_samples(tmp_path / "out")}
    assert (
        records["0"]["state"] == "error" and "boom" in records["0"]["reason"] and records["0"]["score"] == 0.0
    )
    assert records["1"]["state"] == "truncated" and records["1"]["score"] == 0.0
    assert (
        records["2"]["reasoning"] == "долго думал"
        and records["2"]["response"] == "4"
        and records["2"]["score"] == 1.0
    )
    # ok: 2,3,5,7,9 right; 4,6,8 wrong → 5 of 10 samples score 1 (non-ok count as 0)
    assert block.score == pytest.approx(0.5)


def test_resume_never_rerequests_or_duplicates(
    tmp_path: Path, qa_file: Path, scripted: type[ScriptedBackend]
) -> None:
    out = tmp_path / "out"

    def flaky(r):
        if int(r.sample_id) >= 6:
            raise KeyboardInterrupt  # the process dies mid-run
        return r.targets[0]

    scripted.answer = staticmethod(flaky)
    with pytest.raises((KeyboardInterrupt, asyncio.CancelledError)):
        run(_config(qa_file, out, backend=options().model_copy(update={"concurrency": 1})))
    first = read_samples(out)
    assert 0 < len(first) < 10
    done = {r["sample_id"] for r in first}
    scripted.calls.clear()
    scripted.answer = staticmethod(lambda r: r.targets[0])
    _, results = evaluate_config(_config(qa_file, out))
    records = read_samples(out)
    assert sorted(r["sample_id"] for r in records) == sorted(str(i) for i in range(10))
    assert not any(f"qa/{i}" in scripted.calls for i in done)
    assert results.tasks["qa"].score == 1.0
    scripted.calls.clear()
    evaluate_config(_config(qa_file, out))  # a finished run: nothing is requested again
    assert not scripted.calls and len(read_samples(out)) == 10


def test_resume_retries_errors_without_duplicates(
    tmp_path: Path, qa_file: Path, scripted: type[ScriptedBackend]
) -> None:
    out = tmp_path / "out"
    scripted.answer = staticmethod(
        lambda r: raise_backend_error("down", retryable=True) if r.sample_id == "3" else r.targets[0]
    )
    _, results = evaluate_config(_config(qa_file, out))
    assert results.tasks["qa"].states["error"] == 1
    assert scripted.calls["qa/3"] == 2  # retried max_attempts times
    scripted.answer = staticmethod(lambda r: r.targets[0])
    _, results = evaluate_config(_config(qa_file, out))
    assert results.tasks["qa"].states == {
        "ok": 10,
        "parse_failed": 0,
        "truncated": 0,
        "error": 0,
        "skipped": 0,
        "judge_failed": 0,
    }
    assert len(read_samples(out)) == 10


def test_partial_last_line_from_a_crash_is_dropped(
    tmp_path: Path, qa_file: Path, scripted: type[ScriptedBackend]
) -> None:
    out = tmp_path / "out"
    evaluate_config(_config(qa_file, out, limit=3))
    with (out / "samples.jsonl").open("a", encoding="utf-8") as fh:
        fh.write('{"task": "qa", "sample_id": "3", "sta')  # killed mid-write
    evaluate_config(_config(qa_file, out))
    ids = [r["sample_id"] for r in read_samples(out)]
    assert sorted(ids) == sorted(str(i) for i in range(10))


def test_cache_serves_second_run_and_skips_failures(
    tmp_path: Path, qa_file: Path, scripted: type[ScriptedBackend]
) -> None:
    cache = tmp_path / "cache.sqlite"
    scripted.answer = staticmethod(lambda r: raise_backend_error("x") if r.sample_id == "0" else r.targets[0])
    evaluate_config(_config(qa_file, tmp_path / "a", cache_path=cache))
    scripted.calls.clear()
    evaluate_config(_config(qa_file, tmp_path / "b", cache_path=cache))
    assert dict(scripted.calls) == {"qa/0": 1}  # only the failed sample is asked again
    cached = [r for r in read_samples(tmp_path / "b") if r["cached"]]
    assert len(cached) == 9


def test_limit_and_sample_ids(tmp_path: Path, qa_file: Path, scripted: type[ScriptedBackend]) -> None:
    _, res = evaluate_config(_config(qa_file, tmp_path / "a", limit=3))
    assert res.tasks["qa"].n == 3
    _, res = evaluate_config(_config(qa_file, tmp_path / "b", sample_ids=("2", "7")))
    assert sorted(r["sample_id"] for r in read_samples(tmp_path / "b")) == ["2", "7"]


def test_generation_overrides_reach_the_backend(
    tmp_path: Path, qa_file: Path, scripted: type[ScriptedBackend]
) -> None:
    evaluate_config(
        _config(qa_file, tmp_path / "a", limit=1, generation={"max_tokens": 5, "temperature": 0.3})
    )
    request = scripted.seen[0]
    assert request.generation.max_tokens == 5 and request.generation.temperature == 0.3


def test_chains_run_in_order_with_the_models_own_answers(
    tmp_path: Path, scripted: type[ScriptedBackend]
) -> None:
    rows = [
        {"id": f"{d}-{t}", "question": f"turn {t}", "answer": "gold", "dialog": d, "turn": t}
        for d in ("A", "B")
        for t in range(4)
    ]
    write_jsonl(tmp_path / "dlg.jsonl", list(reversed(rows)))  # stored out of order on purpose
    (tmp_path / "dlg.yaml").write_text(
        "name: dlg\nsource: {type: jsonl, path: dlg.jsonl, fields: {chain: dialog, chain_index: turn}}\n",
        encoding="utf-8",
    )
    scripted.answer = staticmethod(lambda r: f"own-{r.sample_id}")
    cfg = RunConfig(
        tasks=(str(tmp_path / "dlg.yaml"),), model="scripted/m", output=tmp_path / "o", quiet=True
    )
    evaluate_config(cfg)
    last = next(r for r in scripted.seen if r.sample_id == "A-3")
    texts = [m.text for m in last.messages]
    assert texts == ["turn 0", "own-A-0", "turn 1", "own-A-1", "turn 2", "own-A-2", "turn 3"]
    order_a = [r.sample_id for r in scripted.seen if r.sample_id.startswith("A")]
    assert order_a == ["A-0", "A-1", "A-2", "A-3"]


def test_chain_resume_rebuilds_history_from_records(tmp_path: Path, scripted: type[ScriptedBackend]) -> None:
    rows = [
        {"id": f"A-{t}", "question": f"turn {t}", "answer": "g", "dialog": "A", "turn": t} for t in range(3)
    ]
    write_jsonl(tmp_path / "dlg.jsonl", rows)
    (tmp_path / "dlg.yaml").write_text(
        "name: dlg\nsource: {type: jsonl, path: dlg.jsonl, fields: {chain: dialog, chain_index: turn}}\n",
        encoding="utf-8",
    )
    out = tmp_path / "o"

    def dies_at_turn_2(r):
        if r.sample_id == "A-2":
            raise KeyboardInterrupt
        return f"own-{r.sample_id}"

    scripted.answer = staticmethod(dies_at_turn_2)
    cfg = RunConfig(tasks=(str(tmp_path / "dlg.yaml"),), model="scripted/m", output=out, quiet=True)
    with pytest.raises((KeyboardInterrupt, asyncio.CancelledError)):
        run(cfg)
    scripted.seen.clear()
    scripted.answer = staticmethod(lambda r: f"own-{r.sample_id}")
    evaluate_config(cfg)
    assert [r.sample_id for r in scripted.seen] == ["A-2"]
    assert [m.text for m in scripted.seen[0].messages] == ["turn 0", "own-A-0", "turn 1", "own-A-1", "turn 2"]


def test_skipped_when_backend_lacks_modality_and_blind_runs(
    tmp_path: Path, scripted: type[ScriptedBackend]
) -> None:
    from PIL import Image

    Image.new("RGB", (2, 2)).save(tmp_path / "a.png")
    write_jsonl(
        tmp_path / "d.jsonl", [{"id": "1", "question": "Что на <audio>?", "answer": "x", "audio": "a.png"}]
    )
    (tmp_path / "t.yaml").write_text(
        # a task the model takes in part (image yes, audio no) runs, and samples with audio are skipped;
        # a task it takes not at all is refused before the run (tests/cascade/test_cascade_bad_input.py)
        "name: t\nmodalities: [image, audio]\nsource: {type: jsonl, path: d.jsonl, fields: {media: [{field: "
        "audio, kind: audio}]}}\n",
        encoding="utf-8",
    )
    cfg = RunConfig(tasks=(str(tmp_path / "t.yaml"),), model="scripted/m", output=tmp_path / "o", quiet=True)
    _, res = evaluate_config(cfg)
    assert res.tasks["t"].states["skipped"] == 1
    assert "audio" in read_samples(tmp_path / "o")[0]["reason"]
    _, res = evaluate_config(cfg.model_copy(update={"output": tmp_path / "blind", "blind": True}))
    assert res.blind is True and res.tasks["t"].states["ok"] == 1
    assert scripted.seen[-1].blind and not scripted.seen[-1].media


def test_missing_media_file_is_a_counted_error(tmp_path: Path, scripted: type[ScriptedBackend]) -> None:
    write_jsonl(
        tmp_path / "d.jsonl",
        [
            {"id": "1", "question": "<image>?", "answer": "x", "image": "nope.png"},
            {"id": "2", "question": "q", "answer": "x"},
        ],
    )
    (tmp_path / "t.yaml").write_text(
        "name: t\nsource: {type: jsonl, path: d.jsonl, fields: {media: [{field: image, kind: image}]}}\n",
        encoding="utf-8",
    )
    cfg = RunConfig(tasks=(str(tmp_path / "t.yaml"),), model="scripted/m", output=tmp_path / "o", quiet=True)
    _, res = evaluate_config(cfg)
    assert res.tasks["t"].states["error"] == 1 and res.tasks["t"].states["ok"] == 1
    bad = next(r for r in read_samples(tmp_path / "o") if r["sample_id"] == "1")
    assert "nope.png" in bad["reason"]


def test_rescore_uses_stored_responses_only(
    tmp_path: Path, qa_file: Path, scripted: type[ScriptedBackend]
) -> None:
    out = tmp_path / "o"
    scripted.answer = staticmethod(lambda r: f"  {r.targets[0]}!! ")
    _, res = evaluate_config(_config(qa_file, out))
    assert res.tasks["qa"].score == 1.0  # normalisation strips punctuation and spaces
    scripted.calls.clear()
    res2 = rescore_run(out)
    assert not scripted.calls
    assert res2.tasks["qa"].score == 1.0 and res2.rescored is True
    assert len(read_samples(out)) == 10


def test_prediction_only_samples_are_not_scored_as_zero(
    tmp_path: Path, scripted: type[ScriptedBackend]
) -> None:
    write_jsonl(
        tmp_path / "p.jsonl",
        [{"id": "1", "question": "q", "answer": ""}, {"id": "2", "question": "q", "answer": "a"}],
    )
    scripted.answer = staticmethod(lambda r: "a")
    cfg = RunConfig(
        tasks=(f"jsonl:{tmp_path / 'p.jsonl'}",), model="scripted/m", output=tmp_path / "o", quiet=True
    )
    _, res = evaluate_config(cfg)
    block = res.tasks["p"]
    assert block.prediction_only == 1 and block.n_scored == 1 and block.score == 1.0


def test_media_over_budget_is_skipped_with_the_reason(
    tmp_path: Path, scripted: type[ScriptedBackend]
) -> None:
    from PIL import Image

    for i in range(3):
        Image.new("RGB", (4, 4), (i * 80, 0, 0)).save(tmp_path / f"{i}.png")
    write_jsonl(
        tmp_path / "d.jsonl",
        [{"id": "1", "question": "сколько?", "answer": "3", "imgs": ["0.png", "1.png", "2.png"]}],
    )
    (tmp_path / "t.yaml").write_text(
        "name: t\nmodalities: [image]\nmedia: {max_images: 2}\n"
        "source: {type: jsonl, path: d.jsonl, fields: {media: [{field: imgs, kind: image, name: image}]}}\n",
        encoding="utf-8",
    )
    cfg = RunConfig(tasks=(str(tmp_path / "t.yaml"),), model="scripted/m", output=tmp_path / "o", quiet=True)
    _, res = evaluate_config(cfg)
    assert res.tasks["t"].states["skipped"] == 1 and not scripted.seen
    record = read_samples(tmp_path / "o")[0]
    assert "'1'" in record["reason"] and record["state"] == "skipped"


def test_strict_metrics_swaps_in_registered_strict_variants(
    tmp_path: Path, scripted: type[ScriptedBackend]
) -> None:
    from omnieval.metrics import metrics, register_metric

    if "toy_len" not in metrics:
        register_metric("toy_len", version="parity-1")(lambda inp: float(len(inp.response) > 0))
        register_metric("toy_len_strict", version="strict-1")(
            lambda inp: float(inp.response == inp.targets[0])
        )
    write_jsonl(tmp_path / "d.jsonl", [{"id": "1", "question": "q", "answer": "a"}])
    (tmp_path / "t.yaml").write_text(
        "name: t\nsource: {type: jsonl, path: d.jsonl}\nmetrics: [toy_len]\n", encoding="utf-8"
    )
    scripted.answer = staticmethod(lambda r: "not a")
    base = RunConfig(tasks=(str(tmp_path / "t.yaml"),), model="scripted/m", output=tmp_path / "p", quiet=True)
    _, parity = evaluate_config(base)
    _, strict = evaluate_config(base.model_copy(update={"output": tmp_path / "s", "strict_metrics": True}))
    assert parity.tasks["t"].score == 1.0 and strict.tasks["t"].score == 0.0
    assert parity.tasks["t"].metric_versions == {"toy_len": "toy_len@parity-1"}
    assert strict.tasks["t"].metric_versions == {"toy_len": "toy_len_strict@strict-1"}


def test_bad_row_mid_run_stops_cleanly_and_keeps_finished_samples(
    tmp_path: Path, scripted: type[ScriptedBackend]
) -> None:
    from omnieval.errors import SourceError

    rows = [{"id": str(i), "question": "q", "answer": "a"} for i in range(5)] + [{"id": "5", "answer": "a"}]
    write_jsonl(tmp_path / "d.jsonl", rows)
    (tmp_path / "t.yaml").write_text("name: t\nsource: {type: jsonl, path: d.jsonl}\n", encoding="utf-8")
    cfg = RunConfig(
        tasks=(str(tmp_path / "t.yaml"),),
        model="scripted/m",
        output=tmp_path / "o",
        quiet=True,
        backend=options().model_copy(update={"concurrency": 1}),
    )
    with pytest.raises(SourceError) as err:
        run(cfg)
    assert "'5'" in str(err.value) and "'question'" in str(err.value) and "d.jsonl" in str(err.value)
    assert {r["sample_id"] for r in read_samples(tmp_path / "o")} <= {str(i) for i in range(5)}


def test_a_failing_parser_is_a_counted_error(
    tmp_path: Path, qa_file: Path, scripted: type[ScriptedBackend]
) -> None:
    from omnieval.parsers import parsers, register_parser

    if "explodes" not in parsers:
        register_parser("explodes")(lambda text, sample: 1 / 0)
    (tmp_path / "t.yaml").write_text(
        f"name: t\nsource: {{type: jsonl, path: {qa_file}}}\nparser: explodes\n", encoding="utf-8"
    )
    cfg = RunConfig(tasks=(str(tmp_path / "t.yaml"),), model="scripted/m", output=tmp_path / "o", quiet=True)
    _, res = evaluate_config(cfg)
    assert res.tasks["t"].states["error"] == 10
    assert "ZeroDivisionError" in read_samples(tmp_path / "o")[0]["reason"]


def test_demo_share_of_the_image_budget_drops_extra_demo_images(
    tmp_path: Path, scripted: type[ScriptedBackend]
) -> None:
    from PIL import Image

    rows = []
    for i in range(4):
        Image.new("RGB", (4, 4), (60 * i, 0, 0)).save(tmp_path / f"{i}.png")
        rows.append({"id": str(i), "question": "<image> какой?", "answer": str(i), "image": f"{i}.png"})
    write_jsonl(tmp_path / "d.jsonl", rows)
    (tmp_path / "t.yaml").write_text(
        "name: t\nmodalities: [image]\nmedia: {max_images: 3, demo_max_images: 1}\nprompt: {fewshot: {n: "
        "2}}\n"
        "source: {type: jsonl, path: d.jsonl, fields: {media: [{field: image, kind: image}]}}\n",
        encoding="utf-8",
    )
    cfg = RunConfig(
        tasks=(str(tmp_path / "t.yaml"),), model="scripted/m", output=tmp_path / "o", quiet=True, limit=1
    )
    _, res = evaluate_config(cfg)
    assert res.tasks["t"].states["ok"] == 1
    (request,) = scripted.seen
    assert len(request.messages) == 5  # two demo turns (user + assistant each) and the query
    assert len(request.media) == 2  # one demo image kept (the reserved share), the query image
    assert request.messages[-1].media[0].path.endswith("0.png")


def test_resuming_a_directory_of_another_run_is_refused(
    tmp_path: Path, qa_file: Path, scripted: type[ScriptedBackend]
) -> None:
    from omnieval.errors import ConfigError

    out = tmp_path / "o"
    evaluate_config(_config(qa_file, out, limit=3))
    with pytest.raises(ConfigError, match="generation"):
        evaluate_config(_config(qa_file, out, generation={"temperature": 0.9}))
    with pytest.raises(ConfigError, match="model"):
        evaluate_config(_config(qa_file, out).model_copy(update={"model": "baseline/oracle"}))
    evaluate_config(_config(qa_file, out))  # same settings, more samples: resumes
    assert len(read_samples(out)) == 10


def test_on_first_record_is_called_once_as_the_first_sample_is_recorded(
    tmp_path: Path, qa_file: Path, scripted: type[ScriptedBackend]
) -> None:
    """The api starts loading the run's tail there: not before the requests are flowing."""
    calls: list[int] = []
    names: list[list[str]] = []

    def first(tasks: Sequence[Task]) -> None:
        calls.append(len(scripted.seen))
        names.append([t.name for t in tasks])

    run(_config(qa_file, tmp_path / "out"), on_first_record=first)
    assert len(calls) == 1 and calls[0] >= 1
    assert names == [["qa"]]  # with the run's tasks: the warm-up renders their prompts for the report
    assert len(read_samples(tmp_path / "out")) == 10


def test_the_tail_warm_up_starts_after_the_first_request(
    tmp_path: Path, qa_file: Path, scripted: type[ScriptedBackend], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Started with the run, the warm-up's imports competed with the set-up before the first request."""
    import omnieval.reports.tail as tail

    seen_at_start: list[int] = []
    monkeypatch.setattr(tail, "load_tail_modules", lambda: seen_at_start.append(len(scripted.seen)))
    _, results = evaluate_config(_config(qa_file, tmp_path / "out"), warm_up=True)
    assert results.tasks["qa"].n == 10
    assert len(seen_at_start) == 1 and seen_at_start[0] >= 1


def test_the_cli_s_warm_up_runs_with_short_gil_slices_and_restores_the_interval(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Beside the event loop, a 5 ms slice of the warm-up's imports delayed each response by as much; the
    console script has its warm-up load with short slices (a library call leaves the interval alone)."""
    import sys

    import omnieval.reports.html as html
    import omnieval.reports.tail as tail
    from omnieval.cli import startup

    monkeypatch.setattr(tail, "_loading", tail._loading)  # restored after the test
    tail.load_with(startup.short_gil_slices)
    before = sys.getswitchinterval()
    seen: list[float] = []
    monkeypatch.setattr(html, "warm_up", lambda: seen.append(sys.getswitchinterval()))
    warm = tail.TailWarmUp(enabled=True)
    warm(())
    warm.join()
    assert seen == [min(before, startup._SwitchInterval.SLICE_S)]
    assert sys.getswitchinterval() == before
    with startup.short_gil_slices():  # nested (two runs in one process): restored when the last one ends
        with startup.short_gil_slices():
            pass
        assert sys.getswitchinterval() == min(before, startup._SwitchInterval.SLICE_S)
    assert sys.getswitchinterval() == before


def test_resuming_reads_the_manifest_through_its_model(
    tmp_path: Path, qa_file: Path, scripted: type[ScriptedBackend]
) -> None:
    """A manifest of an unknown version, or with a mistyped field, is refused naming the file and the
    version or field (the tasks block was read with .get() before: a list failed as an AttributeError)."""
    import json

    from omnieval.errors import ConfigError

    out = tmp_path / "o"
    evaluate_config(_config(qa_file, out, limit=3))
    path = out / "manifest.json"
    manifest = json.loads(path.read_text(encoding="utf-8"))
    path.write_text(json.dumps({**manifest, "schema_version": 5}), encoding="utf-8")
    with pytest.raises(ConfigError, match=r"manifest\.json: schema_version 5 .*new --output"):
        evaluate_config(_config(qa_file, out))
    path.write_text(json.dumps({**manifest, "tasks": [manifest["tasks"]]}), encoding="utf-8")
    with pytest.raises(ConfigError) as err:
        evaluate_config(_config(qa_file, out))
    assert str(path) in str(err.value) and "tasks" in str(err.value)


def test_a_second_run_with_other_tasks_joins_the_folder_and_another_model_is_refused_naming_both(
    tmp_path: Path, qa_file: Path, scripted: type[ScriptedBackend], capsys: pytest.CaptureFixture[str]
) -> None:
    """A second run into a folder with other tasks hid the first run's (its records stayed, invisible); the
    refusal of another model named neither model."""
    from omnieval.errors import ConfigError

    other = write_jsonl(tmp_path / "more.jsonl", [{"id": "x", "question": "1+1?", "answer": "2"}])
    out = tmp_path / "o"
    evaluate_config(_config(qa_file, out))
    _, results = evaluate_config(_config(qa_file, out).model_copy(update={"tasks": (f"jsonl:{other}",)}))
    assert set(results.tasks) == {"qa", "more"} and results.tasks["qa"].n == 10
    assert "already holds" in capsys.readouterr().err
    assert {r["task"] for r in read_samples(out)} == {"qa", "more"}
    assert "more" in (out / "report.html").read_text(encoding="utf-8")
    assert set(rescore_run(out).tasks) == {"qa", "more"}  # the manifest names both
    with pytest.raises(ConfigError, match=r"model \(scripted/m → baseline/oracle\)"):
        evaluate_config(_config(qa_file, out).model_copy(update={"model": "baseline/oracle"}))
    third = write_jsonl(tmp_path / "third.jsonl", [{"id": "y", "question": "2+2?", "answer": "4"}])
    with pytest.raises(ConfigError, match=r"generation\.temperature \(.* → 0\.9\)"):
        evaluate_config(_config(third, out, generation={"temperature": 0.9}))
    with pytest.raises(ConfigError, match=r"limit \(none → 1\)"):
        evaluate_config(_config(third, out, limit=1))
