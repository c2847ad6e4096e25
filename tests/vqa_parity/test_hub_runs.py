"""chartqa, docvqa, textvqa, ocrbench, mmau and mws_vision end to end from generated copies in the
published layout: every sample's score and the task score equal the official scorers' (vendored, run
on the same targets and responses), through the fixed interface and the keyword API."""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from omnieval.errors import SourceError
from omnieval.runner.resolve import resolve_tasks
from omnieval.testing.hub_copies import hub_row_ids, write_hub_copy
from tests.benchmarks_hub.helpers import replay, run_copy
from tests.vqa_parity.official import functions, ocrbench_scoring_loop
from tests.vqa_parity.test_mws_vision_parity import official as mws_official

# NLTK (the authors' MWS-Vision-Bench BLEU) warns on every zero n-gram order: expected here.
pytestmark = pytest.mark.filterwarnings("ignore:\\nThe hypothesis contains 0 counts:UserWarning")

BENCHES = ("chartqa", "docvqa", "textvqa", "ocrbench", "mmau", "mws_vision")

_CHART = functions("lmms_eval/chartqa_utils.py", "relaxed_correctness")["relaxed_correctness"]
_ANLS = functions("lmms_eval/api_metrics.py", "levenshtein_distance", "anls")["anls"]
_MMF = functions("mmf/m4c_evaluators.py", "EvalAIAnswerProcessor", "TextVQAAccuracyEvaluator")
_TEXTVQA = _MMF["TextVQAAccuracyEvaluator"]()
_OCR_LOOP = ocrbench_scoring_loop()
_MMAU = functions("mmau/evaluation.py", "string_match")["string_match"]


def _ocrbench(response: str, record: dict[str, Any]) -> float:
    (item,) = _OCR_LOOP(
        [
            {
                "type": record["metadata"]["question_type"],
                "dataset_name": record["metadata"]["dataset"],
                "answers": list(record["targets"]),
                "predict": response,
            }
        ]
    )
    return float(item["result"])


OFFICIAL: dict[str, Callable[[str, dict[str, Any]], float]] = {
    "chartqa": lambda r, rec: float(_CHART(r, rec["targets"][0])),
    "docvqa": lambda r, rec: float(_ANLS(list(rec["targets"]), [r])["anls"]),
    "textvqa": lambda r, rec: float(
        _TEXTVQA.eval_pred_list([{"pred_answer": r, "gt_answers": rec["targets"]}])
    ),
    "ocrbench": _ocrbench,
    "mmau": lambda r, rec: float(_MMAU(rec["targets"][0], r, rec["metadata"]["choices"])),
    "mws_vision": lambda r, rec: mws_official(rec["metadata"]["type"], r, list(rec["targets"])),
}


@pytest.mark.parametrize("bench", BENCHES)
def test_scores_equal_the_official_scorer(tmp_path: Path, bench: str) -> None:
    root = write_hub_copy(bench, tmp_path / bench, n=12, row_group_size=5)
    (task,) = resolve_tasks([f"{bench}:{root}"])
    golds = {s.id: str(s.targets[0]) for s in task.iter_samples()}
    shapes = [
        lambda t: t,
        lambda t: f" {t.upper()}.",
        lambda t: f"The answer is {t}",
        lambda t: t[:-1] + "x",
        lambda t: "1,200" if bench == "chartqa" else "Sad or Man",
        lambda t: "I cannot tell",
    ]
    ids = list(golds)
    answers = {i: shapes[n % len(shapes)](golds[i]) for n, i in enumerate(ids)}
    block, records = run_copy(tmp_path, bench, root, lambda i: answers[i])
    assert [r["sample_id"] for r in records] == ids
    expected = [OFFICIAL[bench](answers[r["sample_id"]], r) for r in records]
    assert [r["score"] for r in records] == pytest.approx(expected, abs=1e-12)
    assert all(r["state"] == "ok" for r in records)
    if bench == "mws_vision":  # the Overall: mean of the task-type means
        by_type: dict[str, list[float]] = {}
        for r, value in zip(records, expected, strict=True):
            by_type.setdefault(r["metadata"]["type"], []).append(value)
        want = sum(sum(v) / len(v) for v in by_type.values()) / len(by_type)
    else:
        want = sum(expected) / len(expected)
    assert block["score"] == pytest.approx(want)
    assert 0 < sum(expected) < len(expected)  # the copy exercises both outcomes


def test_breakdowns_as_the_authors_report(tmp_path: Path) -> None:
    root = write_hub_copy("ocrbench", tmp_path / "OCRBench", n=8)
    block, _ = run_copy(tmp_path, "ocrbench", root, lambda i: "hotel 1/8/93")
    kinds = block["breakdowns"]["question_type"]
    assert kinds["Regular Text Recognition"] == {"n": 2, "score": 1.0}
    assert kinds["Doc-oriented VQA"] == {"n": 2, "score": 1.0}
    assert block["metrics"]["final_score"] == 4.0  # the script's points (out of 1,000 on the full set)
    chart = write_hub_copy("chartqa", tmp_path / "ChartQA", n=4)
    block, _ = run_copy(tmp_path, "chartqa", chart, lambda i: "12")
    assert set(block["breakdowns"]["type"]) == {"human_test", "augmented_test"}


def test_the_fixed_interface_for_all_six(tmp_path: Path) -> None:
    tasks, lines = [], {}
    for bench in BENCHES:
        root = write_hub_copy(bench, tmp_path / bench, n=5)
        tasks.append(f"{bench}:{root}")
        lines[bench] = hub_row_ids(bench, root)
    file = tmp_path / "answers.jsonl"
    file.write_text(
        "".join(
            json.dumps({"task": b, "sample_id": i, "response": "12 HOTEL Man coca cola"}) + "\n"
            for b, ids in lines.items()
            for i in ids
        ),
        encoding="utf-8",
    )
    out = tmp_path / "out"
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "omnieval",
            "run",
            "--tasks",
            ",".join(tasks),
            "--model",
            f"replay/{file}",
            "--output",
            str(out),
        ],
        capture_output=True,
        text=True,
        timeout=240,
        check=False,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    results = json.loads((out / "results.json").read_text(encoding="utf-8"))["tasks"]
    samples = [json.loads(s) for s in (out / "samples.jsonl").read_text(encoding="utf-8").splitlines()]
    for bench in BENCHES:
        assert bench in results and 0.0 <= results[bench]["score"] <= 1.0
        mine = [s for s in samples if s["task"] == bench]
        assert [s["sample_id"] for s in mine] == lines[bench]
    assert results["ocrbench"]["score"] > 0 and results["mmau"]["score"] > 0


def test_strict_metrics_fix_the_quirks(tmp_path: Path) -> None:
    root = write_hub_copy("chartqa", tmp_path / "ChartQA", n=4)
    answers = {"0": "12", "1": "45.5", "2": "Yes.", "3": "1200"}  # golds 12, 45.5, Yes, 1,200
    model = replay(tmp_path, "chartqa", answers)
    from omnieval.api import evaluate

    default = evaluate(model=model, tasks=[f"chartqa:{root}"], quiet=True)
    strict = evaluate(model=model, tasks=[f"chartqa:{root}"], strict_metrics=True, quiet=True)
    assert default.results.tasks["chartqa"].score == pytest.approx(0.5)
    assert strict.results.tasks["chartqa"].score == pytest.approx(1.0)


def _corrupt(
    bench: str, column: str, value: Any, at: int = 2
) -> Callable[[int, dict[str, Any]], dict[str, Any]]:
    def edit(position: int, row: dict[str, Any]) -> dict[str, Any]:
        return {**row, column: value} if position == at else row

    return edit


@pytest.mark.parametrize(
    ("bench", "column", "value", "message"),
    [
        ("textvqa", "answers", ["a"] * 9, r"sample '34604', field 'answers': textvqa: needs at least 10"),
        ("chartqa", "type", "val", r"sample '2', field 'type': chartqa: type 'val'"),
        (
            "mmau",
            "audio",
            {"bytes": b"not audio", "path": "x"},
            r"sample '2', field 'audio': mmau: the audio",
        ),
        ("mmau", "choices", "[oops", r"sample '2', field 'choices': mmau: choices are not"),
        ("mws_vision", "type", "antifraud ru", r"sample '2', field 'type': mws_vision: unknown task type"),
        ("ocrbench", "answer", [], r"sample '2', field 'answer': ocrbench: needs at least 1"),
        ("docvqa", "questionId", "10001", r"10001"),
    ],
)
def test_bad_data_names_file_sample_and_field(
    tmp_path: Path, bench: str, column: str, value: Any, message: str
) -> None:
    root = write_hub_copy(bench, tmp_path / bench, n=4, edit=_corrupt(bench, column, value))
    with pytest.raises(SourceError, match=message) as caught:
        (task,) = resolve_tasks([f"{bench}:{root}"])
        list(task.iter_samples())
    assert ".parquet" in str(caught.value)


def _imagefolder(root: Path, *, missing: int | None = None) -> Path:
    """MWS-Vision-Bench as its Hub main branch publishes it: metadata.jsonl beside the images."""
    from omnieval.testing.hub_copies import tiny_png

    rows = [
        ("text grounding ru", "Где герб? Выведи координаты.", [398, 65, 467, 140]),  # ints, as published
        ("reasoning VQA ru", "Какая сумма?", ["100 руб"]),
        ("full-page OCR ru", "Распознай текст.", ["Договор поставки № 12"]),
    ]
    lines = []
    for i, (kind, question, answers) in enumerate(rows):
        name = f"business/scans/b2b_{i}.png"
        if i != missing:
            (root / name).parent.mkdir(parents=True, exist_ok=True)
            (root / name).write_bytes(tiny_png(i))
        lines.append(
            json.dumps(
                {
                    "file_name": name,
                    "id": str(i + 1),
                    "type": kind,
                    "dataset_name": "business",
                    "question": question,
                    "answers": answers,
                },
                ensure_ascii=False,
            )
        )
    (root / "metadata.jsonl").write_text("\n".join(lines) + "\n", encoding="utf-8")
    return root


def test_mws_vision_reads_the_imagefolder_the_hub_publishes(tmp_path: Path) -> None:
    from omnieval.api import evaluate

    root = _imagefolder(tmp_path / "MWS")
    answers = {"0": "[400, 60, 470, 140]", "1": "Итого 100 руб", "2": "Договор поставки № 13"}
    result = evaluate(model=replay(tmp_path, "mws_vision", answers), tasks=[f"mws_vision:{root}"], quiet=True)
    records = {r.sample_id: r for r in result.samples}
    assert set(records) == {"0", "1", "2"}
    targets = {"0": [398, 65, 467, 140], "1": ["100 руб"], "2": ["Договор поставки № 12"]}
    kinds = {"0": "text grounding ru", "1": "reasoning VQA ru", "2": "full-page OCR ru"}
    for i, record in records.items():
        assert record.score == pytest.approx(mws_official(kinds[i], answers[i], targets[i]))
    assert 0 < records["0"].score < 1 and records["1"].score == 1.0
    (task,) = resolve_tasks([f"mws_vision:{_imagefolder(tmp_path / 'broken', missing=1)}"])
    with pytest.raises(SourceError, match=r"sample '1', field 'file_name': mws_vision: the image file"):
        list(task.iter_samples())
