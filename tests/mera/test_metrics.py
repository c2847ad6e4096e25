from __future__ import annotations

from collections import Counter

import pytest

from omnieval.benchmarks.mera.catalog import catalogue
from omnieval.benchmarks.mera.metrics import clean_json_answer, parse_slu, ruslun_scores, slot_f1
from omnieval.benchmarks.mera.rutie import answer_letter
from omnieval.benchmarks.mera.specs import task_metrics
from omnieval.metrics import bind_metric
from omnieval.types import SampleResult, ScoringInput

GOLD = (
    '{"intent": "RateBook", "slots": [{"object_name": "доктор живаго"}, {"rating_value": "три"}, '
    '{"best_rating": "шесть"}]}'
)


def test_slot_f1_hand_worked() -> None:
    # pred {a:1, b:2, c:9}, gold {a:1, b:2, d:4, e:5}: 2 hits, P = 2/3, R = 2/4, F1 = 2PR/(P+R) = 4/7
    pred = Counter({("a", "1"): 1, ("b", "2"): 1, ("c", "9"): 1})
    gold = Counter({("a", "1"): 1, ("b", "2"): 1, ("d", "4"): 1, ("e", "5"): 1})
    assert slot_f1(pred, gold) == pytest.approx(4 / 7)
    assert slot_f1(Counter(), Counter()) == 1.0
    assert slot_f1(Counter(), gold) == 0.0
    # multiset: a duplicated predicted slot counts once against one gold occurrence, P = 1/2, R = 1
    assert slot_f1(Counter({("a", "1"): 2}), Counter({("a", "1"): 1})) == pytest.approx(2 / 3)


def test_ruslun_cleaning_and_scores() -> None:
    fenced = (
        '```json\n{"intent": "ratebook", "slots": [{"object_name": "Доктор Живаго"}, {"rating_value": '
        '"три"}]}\n```'
    )
    assert clean_json_answer(fenced).startswith('{"intent": "ratebook"')
    assert parse_slu("json: " + fenced.strip("`").removeprefix("json\n")) is not None
    scores = ruslun_scores("Рассуждение... ОТВЕТ: " + fenced, GOLD)
    # intent right; slots 2 of 2 predicted are right, 2 of 3 gold found: P = 1, R = 2/3, F1 = 0.8
    assert scores == pytest.approx({"em": 0.0, "intent_em": 1.0, "slot_f1": 0.8, "fs": 0.9})
    assert ruslun_scores(GOLD, GOLD) == {"em": 1.0, "intent_em": 1.0, "slot_f1": 1.0, "fs": 1.0}
    assert ruslun_scores("не знаю", GOLD) == {"em": 0.0, "intent_em": 0.0, "slot_f1": 0.0, "fs": 0.0}
    # the paper's dict form of slots is accepted too
    assert ruslun_scores('{"intent": "RateBook", "slots": {"rating_value": "три"}}', GOLD)[
        "slot_f1"
    ] == pytest.approx(0.5)


def test_fs_falls_back_to_em_with_the_answer_marker() -> None:
    fs = bind_metric(task_metrics(catalogue().by_name()["weird"])[1])
    assert fs.ref.key == "fs"
    inp = ScoringInput(
        response="РАССУЖДЕНИЕ: странно. ОТВЕТ: A", prediction="РАССУЖДЕНИЕ: странно. ОТВЕТ: A", targets=("A",)
    )
    assert fs(inp) == {"fs": 1.0}
    wrong = ScoringInput(response="ОТВЕТ: B", prediction="ОТВЕТ: B", targets=("A",))
    assert fs(wrong) == {"fs": 0.0}


def test_group_em_hand_worked() -> None:
    """Two groups of three pairs; group 1 all right, group 2 one wrong: Group EM = 1/2, EM = 5/6."""
    refs = {m.key: bind_metric(m) for m in task_metrics(catalogue().by_name()["ruhhh_image"])}
    right = [1, 1, 1, 1, 0, 1]
    results = [
        SampleResult(
            task="ruhhh_image",
            sample_id=str(i),
            state="ok",
            metrics={"group_em": float(v)},
            metadata={"mera_group": str(i // 3)},
        )
        for i, v in enumerate(right)
    ]
    values = [float(v) for v in right]
    assert refs["group_em"].aggregate(values, results) == pytest.approx(0.5)
    assert refs["fs"].aggregate(values, results) == pytest.approx(0.5)
    assert refs["em"].aggregate(values, results) == pytest.approx(5 / 6)  # plain EM is a per-pair mean


@pytest.mark.parametrize(
    ("answer", "letter"),
    [
        ("Думаю... ОТВЕТ: C", "C"),
        ("Вариант B, потому что A не подходит", "B"),
        # MERA's rule (rutie utils.py): the FIRST Latin \b([A-D])\b, no marker preference, else -1
        ("В данном случае подходит вариант C", "C"),  # the preposition В is no option
        ("А здесь подходит D", "D"),
        ("Сначала думал B, но ОТВЕТ: A", "B"),
        ("Б", "-1"),  # a bare Cyrillic letter is not read
        ("ОТВЕТ: Б", "-1"),
        ("ОТВЕТB", "-1"),  # no word boundary between Т and B
        ("E", "-1"),
        ("не знаю", "-1"),
    ],
)
def test_rutie_answer_letter(answer: str, letter: str) -> None:
    assert answer_letter(answer) == letter


def test_ruslun_gold_stored_as_arrow_structs() -> None:
    """Parquet keeps a list of one-key dicts as structs with every key: absent keys come back null."""
    gold = (
        '{"intent": "RateBook", "slots": [{"object_name": "доктор живаго", "rating_value": null}, '
        '{"object_name": null, "rating_value": "три"}]}'
    )
    pred = '{"intent": "RateBook", "slots": [{"object_name": "доктор живаго"}, {"rating_value": "три"}]}'
    assert ruslun_scores(pred, gold) == {"em": 1.0, "intent_em": 1.0, "slot_f1": 1.0, "fs": 1.0}


def test_ruslun_is_one_metric_whose_four_keys_are_zero_on_a_failed_sample() -> None:
    from omnieval.runner.scoring import Scorer
    from omnieval.types import Response, Sample

    from .conftest import task_spec_of

    spec = task_spec_of("ruslun")
    assert [m.name for m in spec.metrics] == ["mera_ruslun"] and spec.score_key == "fs"
    scorer = Scorer.for_task(spec)
    sample = Sample(id="1", input="q", targets=(GOLD,))
    failed = scorer.score(sample, Response.from_error("server down"))
    assert failed.state == "error" and failed.metrics == {
        "em": 0.0,
        "intent_em": 0.0,
        "slot_f1": 0.0,
        "fs": 0.0,
    }
    answer = Response.from_text('{"intent": "RateBook", "slots": [{"rating_value": "три"}]}')
    ok = scorer.score(sample, answer)
    # parity: the prediction is lower-cased, the gold is not: "ratebook" != "RateBook", intent 0;
    # 1 of 1 predicted slot right, 1 of 3 gold found: P = 1, R = 1/3, F1 = 1/2; FS = 1/4
    assert (
        ok.metrics == pytest.approx({"em": 0.0, "intent_em": 0.0, "slot_f1": 0.5, "fs": 0.25})
        and ok.score == 0.25
    )
    fixed = Scorer.for_task(
        spec.model_copy(
            update={
                "metrics": tuple(m.model_copy(update={"name": "mera_ruslun_strict"}) for m in spec.metrics)
            }
        )
    ).score(sample, answer)
    assert fixed.metrics == pytest.approx({"em": 0.0, "intent_em": 1.0, "slot_f1": 0.5, "fs": 0.75})
