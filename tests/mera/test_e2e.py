"""Full runs of the 18 miniature tasks through the real runner (baselines, scripted replay)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, ClassVar

import pytest

from omnieval.backends.base import Backend, BackendOptions
from omnieval.benchmarks.mera.catalog import catalogue
from omnieval.benchmarks.mera.mini import hidden_answers, make_mini
from omnieval.benchmarks.mera.scheme import mera_scheme
from omnieval.runner.config import RunConfig
from omnieval.runner.run import run
from omnieval.runs.evaluation import evaluate_config
from omnieval.types import Request, Response
from omnieval.types.files import ResultsFile, load_file


def _run(root: Path, model: str, out: Path) -> dict[str, Any]:
    _, results = evaluate_config(RunConfig(tasks=(f"mera:{root}",), model=model, output=out, quiet=True))
    assert (out / "results.json").exists()
    return results


def _records(out: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in (out / "samples.jsonl").read_text(encoding="utf-8").splitlines()]


@pytest.fixture(scope="module")
def oracle_run(mini_root: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("oracle")
    _run(mini_root, "baseline/oracle", out)
    return out


def test_oracle_scores_every_public_task_one(oracle_run: Path) -> None:
    results = load_file(oracle_run / "results.json", ResultsFile)
    tasks = catalogue().by_name()
    assert set(results.tasks) == set(tasks)
    for name, block in results.tasks.items():
        metrics = block.metrics
        assert "em" in metrics and all(0.0 <= v <= 1.0 for v in metrics.values())
        if tasks[name].public and name != "ruslun":
            assert block.score == 1.0 and metrics["em"] == 1.0, name
    # MERA's released RuSLUn code lower-cases the prediction only: the mini golds' intents are all CamelCase
    # (RateBook, PlayMusic, GetWeather), so even the gold itself gets intent 0; slots match: FS = (0 + 1)/2
    ruslun = results.tasks["ruslun"].metrics
    assert ruslun == pytest.approx({"em": 0.0, "intent_em": 0.0, "slot_f1": 1.0, "fs": 0.5})
    assert "only the prediction is lower-cased" in results.tasks["ruslun"].metadata["notes"][0]
    assert "task ruslun: RuSLUn parity quirk" in (oracle_run / "report.html").read_text(encoding="utf-8")
    assert "group_em" in results.tasks["ruhhh_image"].metrics
    assert "group_em" in results.tasks["ruhhh_video"].metrics
    for record in _records(oracle_run):  # hidden answers are never scored (never a silent 0 that counts)
        if not tasks[record["task"]].public:
            assert not (record["state"] == "ok" and record["scored"]), record["sample_id"]
    # the board counts only the public tasks as attempted: 7, all at 1.0 but RuSLUn at 0.5
    row = mera_scheme([results.model_copy(update={"run_dir": str(oracle_run)})])["rows"][0]
    assert row["attempted"] == pytest.approx(6.5 / 7, abs=1e-6)
    assert row["coverage"] == pytest.approx((4 / 11 + 2 / 4 + 1 / 3) / 3, abs=1e-6)


def test_oracle_with_the_hidden_answers_scores_all_18_tasks_one(tmp_path: Path) -> None:
    root = make_mini(tmp_path / "full", n=3, with_answers=True)
    _, results = evaluate_config(
        RunConfig(
            tasks=(f"mera:{root}",),
            model="baseline/oracle",
            output=tmp_path / "run",
            quiet=True,
            strict_metrics=True,
        )
    )
    # the fixed RuSLUn reading compares case-folded intents (parity gives the gold 0.5, as above)
    assert {n: b.score for n, b in results.tasks.items()} == dict.fromkeys(catalogue().by_name(), 1.0)
    row = mera_scheme([results])["rows"][0]
    assert row["total"] == row["coverage"] == 1.0


def test_random_baseline_private_tasks_are_prediction_only(mini_root: Path, tmp_path: Path) -> None:
    results = _run(mini_root, "baseline/random", tmp_path / "run")
    tasks = catalogue().by_name()
    for name, block in results.tasks.items():
        if tasks[name].public:
            assert block.score is not None and 0.0 <= block.score <= 1.0
        else:  # prediction only: no score at all, never a 0.0
            assert block.n_scored == 0 and block.prediction_only == block.n and block.score is None
    board = mera_scheme([results.model_copy(update={"run_dir": str(tmp_path / "run")})])
    assert board["details"][0]["attempted_tasks"] == sorted(n for n, t in tasks.items() if t.public)
    assert board["rows"][0]["coverage"] == pytest.approx((4 / 11 + 2 / 4 + 1 / 3) / 3)


class Scripted(Backend):
    """Answers from a script by sample id and records every request it sees."""

    provider = "scripted"
    modalities = frozenset({"text", "image", "audio", "video"})
    caches_responses = False
    SCRIPT: ClassVar[dict[str, str]] = {"0": "ОТВЕТ: C", "1": "Думаю, что D", "2": "A", "500": "B"}

    def __init__(self) -> None:
        super().__init__("script", options=BackendOptions(concurrency=4))
        self.seen: list[Request] = []

    async def generate(self, request: Request) -> Response:
        self.seen.append(request)
        return Response(text=self.SCRIPT.get(request.sample_id, "ОТВЕТ: A"))


def test_rutie_turns_carry_the_models_own_answers(mini_root: Path, tmp_path: Path) -> None:
    backend = Scripted()
    out = tmp_path / "run"
    root = mini_root / "ruTiE-Image"
    run(RunConfig(tasks=(f"mera:{root}",), model="scripted/script", output=out, quiet=True), backend=backend)
    by_id = {r.sample_id: r for r in backend.seen}
    order = [r.sample_id for r in backend.seen if r.sample_id in {"0", "1", "2"}]
    assert order == ["0", "1", "2"]  # strictly in dialogue order
    turn2 = by_id["2"].messages
    assert [m.role for m in turn2] == ["user", "assistant", "user", "assistant", "user"]
    assert [turn2[1].text, turn2[3].text] == ["C", "D"]  # own answers reduced to letters
    gold = hidden_answers(mini_root, catalogue().by_name()["rutie_image"])
    assert turn2[1].text != gold["0"]  # the gold answer of turn 0 is B, never shown
    assert len(turn2[0].media) == 1 and turn2[0].media[0].kind == "image"
    assert len(by_id["500"].messages) == 1  # the second dialogue starts fresh
    assert [m.text for m in by_id["501"].messages if m.role == "assistant"] == ["B"]
