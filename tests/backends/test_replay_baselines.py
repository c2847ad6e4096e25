"""replay/PATH and baseline/* backends."""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any

import pytest

from omnieval.backends import create_backend
from omnieval.backends.baselines import target_like
from omnieval.errors import BackendError, ConfigError
from omnieval.types import GenerationConfig, Message, Request


def req(sample_id: str = "1", task: str = "t", **kwargs: Any) -> Request:
    return Request(task=task, sample_id=sample_id, messages=(Message(role="user", content="q"),), **kwargs)


def write(path: Path, rows: list[Any]) -> Path:
    path.write_text(
        "".join((r if isinstance(r, str) else json.dumps(r, ensure_ascii=False)) + "\n" for r in rows)
    )
    return path


async def test_replay_strings_objects_and_int_ids(tmp_path: Path) -> None:
    file = write(
        tmp_path / "preds.jsonl",
        [
            {"task": "t", "sample_id": 1, "response": "Б"},
            {
                "task": "t",
                "sample_id": "x",
                "response": {"text": "42", "reasoning": "r", "finish_reason": "length"},
            },
            {"task": "u", "sample_id": 1, "response": {"text": "other", "score_hint": 3}},
        ],
    )
    backend = create_backend(f"replay/{file}")
    assert backend.caches_responses is False
    assert (await backend.generate(req("1"))).text == "Б"
    resp = await backend.generate(req("x"))
    assert (resp.text, resp.reasoning, resp.finish_reason) == ("42", "r", "length")
    other = await backend.generate(req("1", task="u"))
    assert other.text == "other" and other.extra == {"score_hint": 3}


async def test_replay_missing_sample_names_task_sample_and_file(tmp_path: Path) -> None:
    file = write(tmp_path / "p.jsonl", [{"task": "t", "sample_id": "1", "response": "a"}])
    backend = create_backend(f"replay/{file}")
    with pytest.raises(BackendError) as err:
        await backend.generate(req("2"))
    assert not err.value.retryable
    assert "'t'" in str(err.value) and "'2'" in str(err.value) and str(file) in str(err.value)


async def test_replay_task_names_match_ignoring_case_dashes_underscores_when_unambiguous(
    tmp_path: Path,
) -> None:
    file = write(
        tmp_path / "p.jsonl",
        [
            {"task": "ruHHH-Image", "sample_id": "1", "response": "hhh"},
            {"task": "ruhhh_image", "sample_id": "2", "response": "exact"},
            {"task": "A-b", "sample_id": "1", "response": "x"},
            {"task": "a_B", "sample_id": "1", "response": "y"},
        ],
    )
    backend = create_backend(f"replay/{file}")
    assert (await backend.generate(req("1", task="ruhhh_image"))).text == "hhh"  # the dataset's own spelling
    assert (await backend.generate(req("2", task="ruhhh_image"))).text == "exact"
    assert (await backend.generate(req("1", task="a_B"))).text == "y"  # an exact name always wins
    with pytest.raises(BackendError, match="has no response for task 'ab'"):
        await backend.generate(req("1", task="ab"))  # A-b and a_B both fold to ab: ambiguous, no guess


def test_replay_path_without_doubled_slash(tmp_path: Path) -> None:
    file = write(tmp_path / "p.jsonl", [{"task": "t", "sample_id": "1", "response": "a"}])
    backend = create_backend("replay" + str(file))  # "replay/tmp/..." written for an absolute path
    assert backend.describe()["responses"] == 1


@pytest.mark.parametrize(
    ("line", "words"),
    [
        ("{not json", "line 2: not valid JSON"),
        ('["a"]', "line 2: not a JSON object"),
        ('{"task": "t", "response": "a"}', "line 2: missing field 'sample_id'"),
        ('{"task": "t", "sample_id": "9", "response": 5}', "line 2: field 'response'"),
        (
            '{"task": "t", "sample_id": "9", "response": {"text": "a", "finish_reason": "eos"}}',
            "finish_reason",
        ),
        (
            '{"task": "t", "sample_id": "1", "response": "b"}',
            "line 2: task 't' sample '1' already answered on line 1",
        ),
    ],
)
def test_replay_bad_lines_name_file_and_line(tmp_path: Path, line: str, words: str) -> None:
    file = write(tmp_path / "bad.jsonl", [{"task": "t", "sample_id": "1", "response": "a"}, line])
    with pytest.raises(ConfigError) as err:
        create_backend(f"replay/{file}")
    assert words in str(err.value) and str(file) in str(err.value)


def test_replay_missing_file(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="does not exist"):
        create_backend(f"replay/{tmp_path / 'nope.jsonl'}")


async def test_oracle_answers_gold_and_errors_without_it() -> None:
    oracle = create_backend("baseline/oracle")
    assert (await oracle.generate(req(targets=("Москва", "г. Москва")))).text == "Москва"
    with pytest.raises(BackendError, match="no gold answer") as err:
        await oracle.generate(req())
    assert not err.value.retryable


async def test_first_option_and_random_letters() -> None:
    first = create_backend("baseline/first-option")
    assert (await first.generate(req(choices=("x", "y")))).text == "A"
    rnd = create_backend("baseline/random")
    answers = [(await rnd.generate(req(str(i), choices=("a", "b", "c")))).text for i in range(300)]
    assert set(answers) == {"A", "B", "C"}
    assert 60 < answers.count("A") < 140, "roughly uniform over three options"
    again = [(await rnd.generate(req(str(i), choices=("a", "b", "c")))).text for i in range(300)]
    assert again == answers, "deterministic per seed and sample"
    other_seed = GenerationConfig(seed=99)
    moved = [
        (await rnd.generate(req(str(i), choices=("a", "b", "c"), generation=other_seed))).text
        for i in range(300)
    ]
    assert moved != answers


async def test_random_without_choices_is_target_shaped() -> None:
    rnd = create_backend("baseline/random")
    text = (await rnd.generate(req(targets=("Ответ 12",)))).text
    assert len(text) == 8 and text[5] == " " and text[6:].isdigit() and text[0].isupper()
    assert (await rnd.generate(req())).text.isdigit()


def test_target_like_keeps_character_classes() -> None:
    out = target_like("Ab-7я", random.Random(0))
    assert out[0].isupper() and out[0].isascii() and out[1].islower() and out[2] == "-"
    assert out[3].isdigit() and out[4] in "абвгдеёжзийклмнопрстуфхцчшщъыьэюя"


async def test_baseline_loglikelihood() -> None:
    ll = dict(kind="loglikelihood", continuations=(" да", " нет", " не знаю"))
    oracle = create_backend("baseline/oracle")
    resp = await oracle.generate(req(targets=("нет",), **ll))
    assert (resp.text, resp.logprobs) == ("B", (-1.0, 0.0, -1.0))
    assert (await oracle.generate(req(targets=("C",), **ll))).text == "C", "a gold letter names its option"
    first = create_backend("baseline/first-option")
    resp = await first.generate(req(**ll))
    assert (resp.text, resp.logprobs) == ("A", (0.0, -1.0, -1.0))
    rnd = await create_backend("baseline/random").generate(req(**ll))
    assert rnd.logprobs is not None and rnd.text == "ABC"[rnd.logprobs.index(max(rnd.logprobs))]
    with pytest.raises(BackendError, match="not one of the continuations"):
        await oracle.generate(req(targets=("может быть",), **ll))


def test_unknown_baseline() -> None:
    with pytest.raises(ConfigError, match="random, first-option, oracle"):
        create_backend("baseline/smart")
