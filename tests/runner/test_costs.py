"""Prices and cost limits: cost of an answer by hand, price files, the worst-case bound, stop before the
limit and resume without repeating a request, unknown model under --cost-limit, judge costs, dry run."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from omnieval.backends.prices import ModelPrice, load_prices, prompt_token_bound
from omnieval.cli.app import app
from omnieval.errors import ConfigError, CostLimitReached
from omnieval.runner.costs import CostMeter
from omnieval.store import record_cost
from omnieval.testing.fake_openai import FakeOpenAI
from omnieval.types import GenerationConfig, Message, Request, Usage


def test_cost_of_an_answer_worked_by_hand() -> None:
    price = ModelPrice(
        input=2.0, cached_input=0.5, output=8.0, reasoning=4.0, batch_input=1.0, batch_output=4.0
    )
    usage = Usage(prompt_tokens=1000, cached_tokens=400, completion_tokens=300, reasoning_tokens=100)
    # (600 × 2 + 400 × 0.5 + 200 × 8 + 100 × 4) / 1e6 = (1200 + 200 + 1600 + 400) / 1e6
    assert price.cost(usage) == pytest.approx(3400 / 1e6)
    # batch: input 1, output 4, cached and reasoning keep their own rates: 600 + 200 + 800 + 400
    assert price.cost(usage, batch=True) == pytest.approx(2000 / 1e6)
    assert ModelPrice(input=1.0, output=1.0).cost(Usage()) is None  # no usage reported: unknown, not 0


def test_the_bound_covers_prompt_bytes_and_max_tokens() -> None:
    request = Request(
        task="t",
        sample_id="1",
        messages=(Message(role="user", content="привет"),),
        generation=GenerationConfig(max_tokens=100),
    )
    assert prompt_token_bound(request) == 8 + len("привет".encode())  # 12 bytes of Cyrillic + framing
    price = ModelPrice(input=10.0, output=20.0)
    assert price.bound(request) == pytest.approx((20 * 10 + 100 * 20) / 1e6)


def test_a_price_file_overrides_and_adds_models(tmp_path: Path) -> None:
    path = tmp_path / "p.yaml"
    path.write_text("models:\n  openai/gpt-4o: {input: 1, output: 2}\n  openai/mine: {input: 3, output: 4}\n")
    table = load_prices(path)
    assert table.find("openai/gpt-4o") == ModelPrice(input=1, output=2)  # replaced whole
    assert table.find("openai/mine") is not None and table.find("baseline/random") == ModelPrice(
        input=0, output=0
    )
    assert load_prices().find("openai/gpt-4o").input == 2.5  # type: ignore[union-attr]
    bad = tmp_path / "bad.json"
    bad.write_text('{"models": {"openai/x": {"input": -1, "output": 2}}}')
    with pytest.raises(ConfigError, match=r"bad.json: model 'openai/x': input"):
        load_prices(bad)


def test_the_meter_refuses_a_request_that_could_pass_the_limit() -> None:
    meter = CostMeter(limit=0.01, spent=0.004)
    meter.reserve(0.005, what="model")
    with pytest.raises(CostLimitReached, match=r"0\.004000 USD spent and 0\.005000 in flight"):
        meter.reserve(0.002, what="model")
    meter.settle(0.005, 0.001)
    assert meter.spent == pytest.approx(0.005) and meter.reserved == 0.0


def test_judge_attempts_count_in_a_record_cost() -> None:
    record = {
        "cost_usd": 0.25,
        "judge": {"calls": [{"attempts": [{"cost_usd": 0.125}, {"cost_usd": 0.0625}]}]},
    }
    assert record_cost(record) == 0.4375


def _task(tmp_path: Path, n: int) -> Path:
    data = tmp_path / "t.jsonl"
    data.write_text(
        "".join(json.dumps({"id": str(i), "question": f"[{i}]", "answer": str(i)}) + "\n" for i in range(n))
    )
    return data


def _run(*args: str) -> tuple[int, str]:
    result = CliRunner().invoke(app, ["run", *args], catch_exceptions=False)
    return result.exit_code, result.output


def test_cost_limit_stops_with_exit_4_and_a_higher_limit_finishes_without_repeating(tmp_path: Path) -> None:
    data, out, prices = _task(tmp_path, 12), tmp_path / "out", tmp_path / "prices.json"
    # the fake server reports 1 prompt token and 1 completion token per answer: 0.0002 USD each;
    # a request's worst case (prompt bytes + 8 max tokens) is about 0.003 USD
    prices.write_text(json.dumps({"models": {"openai/fake": {"input": 100.0, "output": 100.0}}}))
    common = [
        "--tasks",
        f"jsonl:{data}",
        "--model",
        "openai/fake",
        "--output",
        str(out),
        "--prices",
        str(prices),
        "--max-tokens",
        "8",
        "-q",
    ]
    with FakeOpenAI(answer_pattern=r"\[(\d+)\]").in_thread() as server:
        code, output = _run(*common, "--base-url", server.url, "--cost-limit", "0.01")
        assert code == 4, output
        results = json.loads((out / "results.json").read_text())
        first = results["cost"]["total_usd"]
        assert 0 < first <= 0.01
        assert results["stopped"] == "cost_limit"
        done = [json.loads(line) for line in (out / "samples.jsonl").read_text().splitlines()]
        assert 0 < len(done) < 12
        assert all(r["cost_usd"] == pytest.approx(0.0002) for r in done)
        code, output = _run(*common, "--base-url", server.url, "--cost-limit", "1.0")
        assert code == 0, output
        assert (
            max(server.successes.values()) == 1 and sum(server.successes.values()) == 12
        )  # no request twice
    records = [json.loads(line) for line in (out / "samples.jsonl").read_text().splitlines()]
    assert sorted(int(r["sample_id"]) for r in records) == list(range(12)) and {
        r["state"] for r in records
    } == {"ok"}
    results = json.loads((out / "results.json").read_text())
    assert results["cost"]["total_usd"] == pytest.approx(12 * 0.0002)
    assert results["tasks"]["t"]["cost"]["model_usd"] == pytest.approx(12 * 0.0002)


def test_unknown_model_under_a_cost_limit_fails_before_any_request(tmp_path: Path) -> None:
    data, out = _task(tmp_path, 3), tmp_path / "out"
    with FakeOpenAI().in_thread() as server:
        code, output = _run(
            "--tasks",
            f"jsonl:{data}",
            "--model",
            "openai/nobody-priced-this",
            "--base-url",
            server.url,
            "--output",
            str(out),
            "--cost-limit",
            "1",
        )
        assert server.stats()["requests"] == 0
    assert code == 2 and "no price for model 'openai/nobody-priced-this'" in output
    assert not (out / "samples.jsonl").exists()


def test_dry_run_estimates_the_cost(tmp_path: Path) -> None:
    data, prices = _task(tmp_path, 4), tmp_path / "prices.json"
    prices.write_text(json.dumps({"models": {"openai/fake": {"input": 1000.0, "output": 1000.0}}}))
    code, output = _run(
        "--tasks",
        f"jsonl:{data}",
        "--model",
        "openai/fake",
        "--base-url",
        "http://127.0.0.1:9",
        "--prices",
        str(prices),
        "--max-tokens",
        "10",
        "--dry-run",
    )
    assert code == 0, output
    assert "est cost usd" in output and "max cost usd" in output
    # 4 requests × 10 max tokens × 1000 USD / 1e6 = 0.04 of output alone: the estimate is above it
    row = next(line for line in output.splitlines() if "max cost usd" in line)
    assert float(row.split("│")[2].strip()) > 0.04


def test_a_free_price_reserves_and_costs_zero_without_computing_a_bound() -> None:
    """``replay/*`` and ``baseline/*`` cost 0: the shortcut gives what the bound and cost would give."""
    from omnieval.runner.costs import Priced
    from omnieval.types import Response

    free, paid = ModelPrice(input=0.0, output=0.0), ModelPrice(input=0.0, output=0.0, reasoning=1.0)
    assert free.free and not paid.free and not ModelPrice(input=1.0, output=0.0).free
    request = Request(task="t", sample_id="1", messages=(Message(role="user", content="привет"),))
    assert free.bound(request) == 0.0
    meter = CostMeter(limit=1.0, spent=0.5)
    priced = Priced(free, meter, what="model (replay/x)")
    for usage in (Usage(), Usage(prompt_tokens=10, completion_tokens=5)):
        reserved = priced.reserve(request)
        assert reserved == 0.0
        answered = priced.settle(reserved, Response(text="a", usage=usage))
        assert answered.cost_usd == 0.0
        assert free.cost(usage) in (None, 0.0)  # what the computed path gave: 0.0, or the reserved 0.0
    assert meter.spent == 0.5 and meter.reserved == 0.0
    with pytest.raises(CostLimitReached):  # a run already past its limit still stops at a free request
        Priced(free, CostMeter(limit=1.0, spent=1.5), what="model").reserve(request)
