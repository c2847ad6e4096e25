"""``--dry-run`` renders what the runner sends (same code path) and adds up the cost."""

from __future__ import annotations

from pathlib import Path

import pytest

from omnieval.backends import BackendOptions
from omnieval.runner import RunConfig, run
from omnieval.runner.preview import Totals, estimate_tokens, plan_requests
from tests.engine.conftest import ScriptedBackend, scripted, write_jsonl

__all__ = ["scripted"]


def _fewshot_task(tmp_path: Path) -> Path:
    write_jsonl(
        tmp_path / "qa.jsonl",
        [{"id": f"s{i}", "question": f"Сколько будет {i}+1?", "answer": str(i + 1)} for i in range(12)],
    )
    write_jsonl(
        tmp_path / "demos.jsonl",
        [{"id": f"d{i}", "question": f"demo {i}?", "answer": f"a{i}"} for i in range(6)],
    )
    (tmp_path / "fs.yaml").write_text(
        "name: fs\nsource: {type: jsonl, path: qa.jsonl}\n"
        "prompt:\n  system: Отвечай числом.\n  fewshot: {n: 2, source: {type: jsonl, path: demos.jsonl}}\n"
        "  variants:\n    - {id: a, template: 'Q: {{ input }}'}\n    - {id: b, template: 'Вопрос: {{ input "
        "}}'}\n",
        encoding="utf-8",
    )
    return tmp_path / "fs.yaml"


def _sent(seen: list) -> dict[str, tuple]:
    return {r.sample_id: (r.messages, r.variant, r.generation, r.media_policy) for r in seen}


@pytest.mark.parametrize(
    "selection",
    [{"limit": 5}, {"sample_ids": ("s3", "s7", "s11")}, {}],
)
def test_preview_equals_what_the_runner_sends(
    tmp_path: Path, scripted: type[ScriptedBackend], selection: dict
) -> None:
    task = _fewshot_task(tmp_path)
    config = RunConfig(
        tasks=(str(task),),
        model="scripted/m",
        output=tmp_path / "o",
        quiet=True,
        seed=7,
        generation={"max_tokens": 9},
        backend=BackendOptions(media={"image_max_side": 320}),
        **selection,
    )
    planned = list(plan_requests(config))
    run(config)
    sent = _sent(scripted.seen)
    preview = {
        p.sample.id: (p.request.messages, p.request.variant, p.request.generation, p.request.media_policy)
        for p in planned
        if p.request is not None
    }
    assert preview == sent
    assert len(preview) == {"limit": 5, "sample_ids": 3}.get(next(iter(selection), ""), 12)
    some = next(iter(preview.values()))
    assert [m.role for m in some[0]] == ["system", "user", "assistant", "user", "assistant", "user"], (
        "2 demos"
    )
    assert some[2].max_tokens == 9 and some[3].image_max_side == 320
    assert {v[1] for v in preview.values()} <= {"a", "b"}


def test_chain_history_uses_placeholders_where_the_run_has_the_models_answers(
    tmp_path: Path, scripted: type[ScriptedBackend]
) -> None:
    rows = [
        {"id": f"A-{t}", "question": f"turn {t}", "answer": "g", "dialog": "A", "turn": t} for t in range(3)
    ]
    write_jsonl(tmp_path / "dlg.jsonl", list(reversed(rows)))
    (tmp_path / "dlg.yaml").write_text(
        "name: dlg\nsource: {type: jsonl, path: dlg.jsonl, fields: {chain: dialog, chain_index: turn}}\n",
        encoding="utf-8",
    )
    scripted.answer = staticmethod(lambda r: f"own-{r.sample_id}")
    config = RunConfig(
        tasks=(str(tmp_path / "dlg.yaml"),), model="scripted/m", output=tmp_path / "o", quiet=True
    )
    planned = list(plan_requests(config))
    run(config)
    assert [p.sample.id for p in planned] == ["A-0", "A-1", "A-2"], "chain steps in order"
    real = {r.sample_id: [m.text for m in r.messages] for r in scripted.seen}
    for p in planned:
        assert p.request is not None
        shown = [m.text for m in p.request.messages]
        expected = [
            t if not t.startswith("own-") else f"<the model's answer to {t[4:]}>" for t in real[p.sample.id]
        ]
        assert shown == expected


def test_totals_count_requests_characters_images_and_audio_seconds(tmp_path: Path) -> None:
    import numpy as np
    import soundfile
    from PIL import Image

    for i in range(3):
        Image.new("RGB", (8, 8)).save(tmp_path / f"i{i}.png")
        soundfile.write(
            tmp_path / f"a{i}.wav", np.zeros(8000 * (i + 1), dtype="float32"), 16000
        )  # 0.5, 1.0, 1.5 s
    rows = [
        {
            "id": str(i),
            "question": "Что на <img> и <snd>?",
            "answer": "x",
            "img": f"i{i}.png",
            "snd": f"a{i}.wav",
        }
        for i in range(3)
    ]
    write_jsonl(tmp_path / "m.jsonl", rows)
    (tmp_path / "m.yaml").write_text(
        "name: m\nmodalities: [image, audio]\nsource: {type: jsonl, path: m.jsonl, fields: {media: "
        "[{field: img, kind: image}, {field: snd, kind: audio}]}}\nprompt: {template: '{{ input }}'}\n"
        "generation: {max_tokens: 10}\n",
        encoding="utf-8",
    )
    config = RunConfig(tasks=(str(tmp_path / "m.yaml"),), model="openai/x", output=tmp_path / "o")
    totals = Totals()
    for planned in plan_requests(config):
        totals.add(planned)
    text = "Что на  и ?"  # the placeholders become media parts; the text around them is what is sent
    assert (totals.requests, totals.images, totals.max_output_tokens) == (3, 3, 30)
    assert totals.audio_s == pytest.approx(3.0)
    assert totals.prompt_chars == 3 * len(text)
    assert totals.est_prompt_tokens == 3 * estimate_tokens(text)
    blind = Totals()
    for planned in plan_requests(config.model_copy(update={"blind": True})):
        blind.add(planned)
    assert (blind.images, blind.audio_s) == (0, 0.0)


def test_video_frames_follow_the_sampling_rule() -> None:
    # demo_video: 16 clips of 16 frames at 8 fps; policy video_fps 4, video_max_frames 8
    # gap = max(ceil(8 / 4), ceil(16 / 8)) = 2 → frames 0, 2, ..., 14 → 8 per clip, 128 in all
    config = RunConfig(tasks=("demo_video",), model="openai/x", output=Path("unused"))
    totals = Totals()
    for planned in plan_requests(config):
        totals.add(planned)
    assert (totals.requests, totals.video_frames) == (16, 128)
    as_files = Totals()
    for planned in plan_requests(
        config.model_copy(update={"backend": BackendOptions(media={"video_mode": "file"})})
    ):
        as_files.add(planned)
    assert (as_files.video_frames, as_files.videos_as_files) == (0, 16)


def test_token_estimate() -> None:
    assert estimate_tokens("abcd" * 10) == 10
    assert estimate_tokens("абвгд" * 2) == 4


def test_cli_dry_run_prints_totals_and_calls_nothing(tmp_path: Path) -> None:
    from typer.testing import CliRunner

    from omnieval.cli.app import app

    task = _fewshot_task(tmp_path)
    result = CliRunner().invoke(
        app,
        [
            "run",
            "-t",
            str(task),
            "-m",
            "openai/x",
            "--base-url",
            "http://127.0.0.1:9/v1",
            "--dry-run",
            "--limit",
            "4",
            "-o",
            str(tmp_path / "o"),
        ],
    )
    assert result.exit_code == 0, result.output
    assert "requests" in result.output and "est prompt tokens" in result.output
    assert result.output.count("fs · s") == 4 and "demo " in result.output
    assert not (tmp_path / "o").exists()


def test_dry_run_refuses_duplicate_ids_as_the_run_does(tmp_path: Path) -> None:
    from omnieval.errors import OmnievalError

    write_jsonl(
        tmp_path / "d.jsonl",
        [{"id": "7", "question": "a", "answer": "1"}, {"id": "7", "question": "b", "answer": "2"}],
    )
    config = RunConfig(tasks=(f"jsonl:{tmp_path / 'd.jsonl'}",), model="openai/x", output=tmp_path / "o")
    with pytest.raises(OmnievalError, match="duplicate"):
        list(plan_requests(config))


def test_unknown_sample_ids_are_named_by_the_dry_run_and_the_run(
    tmp_path: Path, scripted: type[ScriptedBackend]
) -> None:
    """A mistyped ``--sample-ids`` entry is named, never just a smaller run; none found fails as the run
    does."""
    from typer.testing import CliRunner

    from omnieval.cli.app import app

    task = _fewshot_task(tmp_path)
    base = ["run", "-t", str(task), "-m", "openai/x", "--base-url", "http://127.0.0.1:9/v1", "--dry-run"]
    some = CliRunner().invoke(app, [*base, "--sample-ids", "s3,s33"])
    assert some.exit_code == 0, some.output
    assert (
        "no task has sample id(s) 's33'" in some.output and "'s3'" not in some.output.split("no task has")[1]
    )
    assert some.output.count("fs · s3 ") == 1
    none = CliRunner().invoke(app, [*base, "--sample-ids", "S3"])
    assert none.exit_code == 1 and "no samples were selected" in none.output, none.output

    config = RunConfig(
        tasks=(str(task),), model="scripted/m", output=tmp_path / "o", quiet=True, sample_ids=("s3", "s33")
    )
    assert run(config).unknown_sample_ids == ("s33",)
    again = run(
        config.model_copy(update={"sample_ids": ("s3", "s4", "x")})
    )  # s3 is done: found, not streamed
    assert again.unknown_sample_ids == ("x",) and scripted.calls == {"fs/s3": 1, "fs/s4": 1}
