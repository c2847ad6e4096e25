"""The Yes/No protocol: relevance normalisation and relative accuracy over relevant answers only."""

from __future__ import annotations

import pytest

from omnieval.benchmarks.art.metrics import absolute_accuracy, over_relevant, relevant, yes_no
from omnieval.types import SampleResult, ScoringInput


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("Yes", "Yes"),
        (" no. ", "No"),
        ("**YES**", "Yes"),
        ("«Да»", "Yes"),
        ("Нет!", "No"),
        ("Yes, the bell rings twice.", None),
        ("Maybe", None),
        ("", None),
    ],
)
def test_yes_no_normalisation(text: str, expected: str | None) -> None:
    assert yes_no(text) == expected


def test_leading_option_accepts_an_explained_answer() -> None:
    assert yes_no("Yes, the bell rings twice.", leading=True) == "Yes"
    assert yes_no("No. It is a cat.", leading=True) == "No"


def _inp(response: str, gold: str) -> ScoringInput:
    return ScoringInput(response=response, prediction=response, targets=(gold,))


def test_relative_accuracy_divides_by_relevant_answers_only() -> None:
    # worked by hand: 5 answers, 4 relevant (Yes/No), 3 of them right -> absolute 3/5, relative 3/4
    cases = [("Yes", "Yes"), ("No", "No"), ("no", "No"), ("Yes", "No"), ("I cannot tell", "Yes")]
    results = []
    for response, gold in cases:
        inp = _inp(response, gold)
        metrics = {"art.relevant": relevant(inp), "art.absolute_accuracy": absolute_accuracy(inp)}
        results.append(SampleResult(task="art.AA", sample_id=response, state="ok", metrics=metrics))
    absolute = [r.metrics["art.absolute_accuracy"] for r in results]
    assert sum(absolute) / len(absolute) == pytest.approx(3 / 5)
    assert sum(r.metrics["art.relevant"] for r in results) / len(results) == pytest.approx(4 / 5)
    assert over_relevant(absolute, results) == pytest.approx(3 / 4)
    assert (
        over_relevant(
            [0.0], [SampleResult(task="t", sample_id="x", state="ok", metrics={"art.relevant": 0.0})]
        )
        == 0.0
    )


def _results(path, blocks):  # type: ignore[no-untyped-def]
    path.mkdir()
    tasks = {
        name: {
            "score": acc,
            "n": n,
            "states": {"ok": n},
            "n_scored": n,
            "metrics": {
                "art.relevant": rel,
                "art.absolute_accuracy": acc,
                "art.relative_accuracy": acc / rel,
            },
        }
        for name, (n, rel, acc) in blocks.items()
    }
    (path / "results.json").write_text(
        __import__("json").dumps({"model": "m", "tasks": tasks}), encoding="utf-8"
    )
    return path


def test_summary_averages_repeated_runs_and_pools_tasks_overall(tmp_path) -> None:  # type: ignore[no-untyped-def]
    from omnieval.benchmarks.art.summary import summarize_runs

    # run 1: AA 10 items 8 relevant 6 right; SR 10 items 10 relevant 4 right -> overall 18/20 rel, 10/20 abs,
    # 10/18 rel-acc
    a = _results(tmp_path / "r1", {"art.AA": (10, 0.8, 0.6), "art.SR": (10, 1.0, 0.4)})
    # run 2: AA 10/10 relevant 8 right; SR 10 relevant 6 right -> overall 20/20, 14/20, 14/20
    b = _results(tmp_path / "r2", {"art.AA": (10, 1.0, 0.8), "art.SR": (10, 1.0, 0.6)})
    table = summarize_runs([a, b])
    assert table["art.AA"]["art.absolute_accuracy"]["mean"] == pytest.approx(0.7)
    assert table["art.AA"]["art.absolute_accuracy"]["std"] == pytest.approx(0.1)
    assert table["overall"]["art.relevant"]["mean"] == pytest.approx((18 / 20 + 1.0) / 2)
    assert table["overall"]["art.absolute_accuracy"]["mean"] == pytest.approx((10 / 20 + 14 / 20) / 2)
    assert table["overall"]["art.relative_accuracy"]["mean"] == pytest.approx((10 / 18 + 14 / 20) / 2)


def test_summary_command_prints_the_table_and_refuses_mismatched_runs(tmp_path) -> None:  # type: ignore[no-untyped-def]
    from typer.testing import CliRunner

    from omnieval.benchmarks.art.cli import app

    a = _results(tmp_path / "r1", {"art.AA": (4, 1.0, 0.5)})
    b = _results(tmp_path / "r2", {"art.AA": (4, 1.0, 1.0)})
    out = CliRunner().invoke(app, ["summary", str(a), str(b)])
    assert out.exit_code == 0 and "0.7500 ± 0.2500" in out.output
    c = _results(tmp_path / "r3", {"art.SR": (4, 1.0, 1.0)})
    bad = CliRunner().invoke(app, ["summary", str(a), str(c)])
    assert bad.exit_code == 2 and "holds tasks" in bad.output
