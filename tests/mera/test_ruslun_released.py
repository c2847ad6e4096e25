"""RuSLUn: parity with MERA's released task code, and the fixed variant (issue 19 §2).

The released chain is MERA_MULTIMODAL ``multimodal_tasks/ruslun/ruslun.yaml`` (filters ``lowercase`` then
``ruslunscoring``, which is ``clean_json_text``) and ``utils.py process_results``. CI has no network and
nothing of it is vendored, so each golden value below is derived by hand from reading that code:

- ``lowercase``: ``response.lower()`` on the prediction only; ``doc["outputs"]`` (the gold) is read with
  ``json.loads(outputs.replace("'", '"'))`` and never lower-cased.
- ``clean_json_text``: ``strip``; ``re.match(r"^```(?:\\w+)?\\s*(.*)\\s*```$", s, DOTALL)`` (so a fence
  unwraps only when the answer starts and ends with it); one pair of outer backticks; the prefix
  ``(?i)^\\s*json\\s*[:\\n\\r]\\s*`` (a colon or a line break must follow ``json``); outer quotes through
  ``ast.literal_eval``. No ANSWER/ОТВЕТ handling anywhere.
- ``process_results``: invalid JSON or ``null`` → intent 0, slot F1 0. Otherwise
  ``intent = pred.get('intent') == ref.get('intent')`` (a missing intent is ``None``: 0, and slot F1 is
  still computed); slots are ``(str(k), str(v))`` pairs (no strip; ``null`` → ``"None"``), F1 from the
  Counter intersection, 1.0 when both sides are empty.
"""

from __future__ import annotations

import json

import pytest

from omnieval.benchmarks.mera.metrics import mera_ruslun, mera_ruslun_strict, released_clean_json
from omnieval.types import ScoringInput

CAMEL = '{"intent": "RateBook", "slots": [{"object_name": "доктор живаго"}, {"rating_value": "три"}]}'
LOWER = '{"intent": "weather/find", "slots": [{"location": "москва"}]}'
ZERO = {"em": 0.0, "intent_em": 0.0, "slot_f1": 0.0, "fs": 0.0}
FULL = {"em": 1.0, "intent_em": 1.0, "slot_f1": 1.0, "fs": 1.0}
INTENT_ONLY_WRONG = {"em": 0.0, "intent_em": 0.0, "slot_f1": 1.0, "fs": 0.5}
SLOTS_WRONG = {"em": 0.0, "intent_em": 1.0, "slot_f1": 0.0, "fs": 0.5}


def _both(response: str, gold: object) -> tuple[dict[str, float], dict[str, float]]:
    inp = ScoringInput(response=response, targets=(gold,))
    return mera_ruslun(inp), mera_ruslun_strict(inp)


@pytest.mark.parametrize(
    ("response", "gold", "parity", "fixed"),
    [
        # 1. the prediction is lower-cased, the gold is not: a CamelCase gold intent never matches ...
        (CAMEL, CAMEL, INTENT_ONLY_WRONG, FULL),
        # ... and a capitalised gold slot value loses its F1
        (
            '{"intent": "weather/find", "slots": [{"location": "Москва"}]}',
            '{"intent": "weather/find", "slots": [{"location": "Москва"}]}',
            SLOTS_WRONG,
            FULL,
        ),
        (LOWER, LOWER, FULL, FULL),  # an all-lower-case gold matches in both
        # 2. JSON extraction: only a fence spanning the whole answer unwraps
        (f"```json\n{LOWER}\n```", LOWER, FULL, FULL),
        (f"Вот ответ:\n```json\n{LOWER}\n```", LOWER, ZERO, FULL),  # text before the fence
        (f"```json\n{LOWER}\n```\nГотово.", LOWER, ZERO, FULL),  # text after it
        (f"json{LOWER}", LOWER, ZERO, FULL),  # "json" glued: the released prefix needs ':' or a line break
        (f"json:\n{LOWER}", LOWER, FULL, FULL),
        (f"ОТВЕТ: {LOWER}", LOWER, ZERO, FULL),  # no ANSWER/ОТВЕТ handling in RuSLUn's chain
        (json.dumps(LOWER), LOWER, FULL, FULL),  # outer quotes, escapes undone by ast.literal_eval
        # 3. values are not whitespace-stripped
        ('{"intent": "weather/find ", "slots": [{"location": "москва "}]}', LOWER, ZERO, FULL),
        # 4. a missing or null intent: intent 0, slot F1 still computed (fixed: not the schema, 0 and 0)
        ('{"slots": [{"location": "москва"}]}', LOWER, INTENT_ONLY_WRONG, ZERO),
        ('{"intent": null, "slots": [{"location": "москва"}]}', LOWER, INTENT_ONLY_WRONG, ZERO),
        # 5. a null slot value is the string "None" (it matches a gold "None"); fixed: null slots dropped
        (
            '{"intent": "x", "slots": [{"location": null}]}',
            '{"intent": "x", "slots": [{"location": "None"}]}',
            FULL,
            {"em": 0.0, "intent_em": 1.0, "slot_f1": 0.0, "fs": 0.5},
        ),
        # 6. where MERA's code would raise (no object, slots no list of objects) the sample scores 0;
        #    the fixed reading accepts the paper's dict form of slots
        ("[1, 2]", LOWER, ZERO, ZERO),
        ("null", LOWER, ZERO, ZERO),
        ('{"intent": "weather/find", "slots": {"location": "москва"}}', LOWER, ZERO, FULL),
        ("не знаю", LOWER, ZERO, ZERO),
    ],
)
def test_released_and_fixed(
    response: str, gold: str, parity: dict[str, float], fixed: dict[str, float]
) -> None:
    got_parity, got_fixed = _both(response, gold)
    assert got_parity == pytest.approx(parity)
    assert got_fixed == pytest.approx(fixed)


def test_clean_json_text_rules() -> None:
    assert released_clean_json("```\n{}\n```") == "{}"
    assert released_clean_json("`{}`") == "{}"
    assert released_clean_json("JSON\n{}") == "{}"
    assert released_clean_json("'{\\n}'") == "{\n}"  # escapes unpacked
    assert released_clean_json("'{'") == "{"  # a literal that fails: the quotes are only cut off
    assert released_clean_json("x ```{}```") == "x ```{}```"


def test_a_gold_stored_as_a_struct_drops_arrow_nulls() -> None:
    # Arrow widens a list of one-key dicts to structs with every key; the absent ones come back null
    gold = {"intent": "weather/find", "slots": [{"location": "москва", "datetime": None}]}
    parity, _ = _both(LOWER, gold)
    assert parity == FULL
