"""A tiny random-weight encoder judge: trained a few steps by ``omnieval judge train``, then used in a run."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from omnieval.cli.app import app
from tests.judges.tiny_encoder import build_tiny_bert_classifier

pytest.importorskip("transformers")

ROWS = [
    ("столица франции", "париж", "париж", 1),
    ("столица франции", "париж", "лондон", 0),
    ("цвет неба", "синий", "синий", 1),
    ("цвет неба", "синий", "красный", 0),
    ("сколько будет 2 2", "четыре", "четыре", 1),
    ("сколько будет 2 2", "четыре", "пять", 0),
]


def _write_training(path: Path) -> Path:
    lines = [
        json.dumps(
            {"question": q, "gold": g, "prediction": p, "label": y, "source": f"s{i // 6}"},
            ensure_ascii=False,
        )
        for i, (q, g, p, y) in enumerate(ROWS * 4)
    ]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


@pytest.fixture(scope="module")
def trained(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("enc")
    base = build_tiny_bert_classifier(root / "base")
    data = _write_training(root / "train.jsonl")
    out = root / "judge"
    result = CliRunner().invoke(
        app,
        [
            "judge",
            "train",
            str(data),
            "--base",
            str(base),
            "--output",
            str(out),
            "--epochs",
            "3",
            "--batch-size",
            "8",
            "--lr",
            "1e-3",
        ],
    )
    assert result.exit_code == 0, result.output
    report = json.loads(result.output[result.output.index("{") :])
    assert set(report["test"]) >= {"f1", "precision", "recall", "em_agreement"}
    assert sum(report["splits"].values()) == 24
    return out


def test_train_saves_a_loadable_judge_with_a_report(trained: Path) -> None:
    report = json.loads((trained / "judge_report.json").read_text(encoding="utf-8"))
    assert len(report["history"]) >= 1 and report["class_weights"] == [
        1.0,
        1.0,
    ]  # 2 sources of 3+3 rows in train: balanced
    assert 0.0 <= report["test"]["f1"] <= 1.0
    assert json.loads((trained / "config.json").read_text())["architectures"] == [
        "BertForSequenceClassification"
    ]


def test_trained_encoder_judges_a_run(trained: Path, tmp_path: Path) -> None:
    (tmp_path / "qa.jsonl").write_text(
        "".join(
            json.dumps({"id": str(i), "question": q, "answer": g}, ensure_ascii=False) + "\n"
            for i, (q, g, _, _) in enumerate(ROWS)
        ),
        encoding="utf-8",
    )
    (tmp_path / "ans.jsonl").write_text(
        "".join(
            json.dumps({"task": "enc", "sample_id": str(i), "response": p}, ensure_ascii=False) + "\n"
            for i, (_, _, p, _) in enumerate(ROWS)
        ),
        encoding="utf-8",
    )
    (tmp_path / "task.yaml").write_text(
        "name: enc\nsource: {type: jsonl, path: qa.jsonl}\nmetrics: [{name: exact_match, alias: em}]\n"
        "judge: {protocol: {name: reference_match}, template: binary_equivalence, derived: {fs: [em, js]}}\n",
        encoding="utf-8",
    )
    out = tmp_path / "run"
    result = CliRunner().invoke(
        app,
        [
            "run",
            "-t",
            str(tmp_path / "task.yaml"),
            "-m",
            f"replay/{tmp_path / 'ans.jsonl'}",
            "-o",
            str(out),
            "-q",
            "--judge",
            f"hf/{trained}",
            "--judge-batch-size",
            "4",
        ],
    )
    assert result.exit_code == 0, result.output
    results = json.loads((out / "results.json").read_text(encoding="utf-8"))
    block = results["tasks"]["enc"]
    assert block["states"]["ok"] == 6 and "js" in block["metrics"]
    records = [json.loads(x) for x in (out / "samples.jsonl").read_text(encoding="utf-8").splitlines()]
    for r in records:
        call = r["judge"]["calls"][0]["attempts"][0]
        assert len(call["extra"]["probs"]) == 2 and call["raw"] in ("0", "1")
        assert int(call["raw"]) == max(
            range(2), key=call["extra"]["probs"].__getitem__
        )  # argmax of the probabilities
        assert r["metrics"]["js"] == max(c["verdict"] for c in r["judge"]["calls"])
    manifest = json.loads((out / "manifest.json").read_text(encoding="utf-8"))
    assert manifest["judges"]["enc"]["mode"] == "classifier"


def test_classifier_truncation_is_meras_first_and_last_tokens(trained: Path) -> None:
    from transformers import AutoTokenizer

    from omnieval.backends import BackendOptions
    from omnieval.judges import create_judge_backend

    backend = create_judge_backend(f"hf/{trained}", options=BackendOptions())
    assert backend.classifies and backend.sep_token() == "[SEP]"
    text = "столица франции [SEP] париж [SEP] " + "лондон " * 30
    tok = AutoTokenizer.from_pretrained(trained)
    ids = tok.encode(text)  # special tokens counted, as MERA's tokenizer.encode
    assert len(ids) > 20
    assert backend.truncations(text, max_tokens=20, offset=5) == [tok.decode(ids[:15]), tok.decode(ids[-15:])]
    assert backend.truncations(text, max_tokens=len(ids) + 5, offset=5) == [text]


def test_training_scores_match_scikit_learn() -> None:
    sklearn = pytest.importorskip("sklearn.metrics")
    from omnieval.judges.train import Triplet, _scores

    labels, preds = [1, 0, 1, 1, 0, 0, 1], [1, 1, 0, 0, 0, 1, 1]
    rows = [Triplet("q", "a", "a" if i % 2 else "b", y) for i, y in enumerate(labels)]
    got = _scores(labels, preds, rows)
    assert got["f1"] == pytest.approx(sklearn.f1_score(labels, preds))
    assert got["precision"] == pytest.approx(sklearn.precision_score(labels, preds))
    assert got["recall"] == pytest.approx(sklearn.recall_score(labels, preds))
    assert got["em_agreement"] == pytest.approx(2 / 3)  # rows 1, 3, 5 are exact; predicted 1, 0, 1
    assert _scores([0, 0], [0, 0], rows[:2])["f1"] == 0.0


def test_training_data_problems_name_file_line_and_field(tmp_path: Path) -> None:
    from omnieval.errors import ConfigError
    from omnieval.judges.train import read_triplets

    csv_file = tmp_path / "t.csv"
    csv_file.write_text(
        "question,gold,prediction,label\n"
        + "".join(f"q{i},a,{'a' if i % 2 else 'b'},{i % 2}\n" for i in range(6)),
        encoding="utf-8",
    )
    assert [t.label for t in read_triplets(csv_file)] == [0, 1, 0, 1, 0, 1]
    bad = tmp_path / "bad.jsonl"
    bad.write_text(
        '{"question": "q", "gold": "a", "prediction": "a", "label": 1}\n{"question": "q", "gold": "a", '
        '"label": 1}\n',
        encoding="utf-8",
    )
    with pytest.raises(ConfigError, match=r"bad.jsonl, line 2: missing field 'prediction'"):
        read_triplets(bad)
    bad.write_text('{"question": "q", "gold": "a", "prediction": "a", "label": "yes"}\n', encoding="utf-8")
    with pytest.raises(ConfigError, match=r"line 1: field 'label' must be 0 or 1, got 'yes'"):
        read_triplets(bad)


def test_rejudge_command_line_replaces_the_encoder_verdicts(trained: Path, tmp_path: Path) -> None:
    test_trained_encoder_judges_a_run(trained, tmp_path)
    judge = tmp_path / "j.jsonl"
    judge.write_text(
        "".join(
            json.dumps({"task": "enc", "sample_id": str(i), "response": "Оценка: 0"}) + "\n"
            for i in range(len(ROWS))
        ),
        encoding="utf-8",
    )
    result = CliRunner().invoke(
        app,
        [
            "rejudge",
            str(tmp_path / "run"),
            "--judge",
            f"replay/{judge}",
            "--judge-concurrency",
            "2",
            "--judge-retries",
            "0",
        ],
    )
    assert result.exit_code == 0, result.output
    block = json.loads((tmp_path / "run" / "results.json").read_text(encoding="utf-8"))["tasks"]["enc"]
    assert block["metrics"]["js"] == 0.0 and block["judge"]["n_judged"] == 6
    missing = CliRunner().invoke(app, ["rejudge", str(tmp_path / "nope"), "--judge", f"replay/{judge}"])
    assert missing.exit_code == 2 and "does not exist" in missing.output  # checked before any work


def test_a_retrained_judge_in_the_same_folder_gets_a_new_version(trained: Path, tmp_path: Path) -> None:
    import shutil

    from omnieval.backends import BackendOptions
    from omnieval.judges import Judge, create_judge_backend
    from omnieval.types import JudgeSpec

    copy = shutil.copytree(trained, tmp_path / "judge")
    first = Judge("t", JudgeSpec(), create_judge_backend(f"hf/{copy}", options=BackendOptions())).version
    config = json.loads((copy / "config.json").read_text(encoding="utf-8"))
    (copy / "config.json").write_text(json.dumps({**config, "retrained": True}), encoding="utf-8")
    second = Judge("t", JudgeSpec(), create_judge_backend(f"hf/{copy}", options=BackendOptions())).version
    assert first != second and first.startswith(f"hf_classifier/{copy}#")


def test_rejudge_api_takes_a_spec_or_a_mapping(trained: Path, tmp_path: Path) -> None:
    """``omnieval.rejudge`` reads ``judge=`` as ``--judge`` does: a spec gets the judge options' defaults."""
    import omnieval

    test_trained_encoder_judges_a_run(trained, tmp_path)
    judge = tmp_path / "j.jsonl"
    judge.write_text(
        "".join(
            json.dumps({"task": "enc", "sample_id": str(i), "response": "Оценка: 0"}) + "\n"
            for i in range(len(ROWS))
        ),
        encoding="utf-8",
    )
    again = omnieval.rejudge(tmp_path / "run", judge=f"replay/{judge}")
    assert again.tasks["enc"].metrics["js"] == 0.0 and again.tasks["enc"].judge.n_judged == 6  # type: ignore[union-attr]
    mapped = omnieval.rejudge(tmp_path / "run", judge={"model": f"replay/{judge}"})
    assert mapped.tasks["enc"].metrics == again.tasks["enc"].metrics
    with pytest.raises(TypeError, match="needs judge="):
        omnieval.rejudge(tmp_path / "run", judge=None)
