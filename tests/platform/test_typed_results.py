"""The platform reads a submission's stored results through ``ResultsFile``: the submission page's state
sums, the shown (rounded) results and the boards' scheme input; a stored document that does not validate
names the submission and the field instead of failing as a KeyError (or summing a string) later."""

from __future__ import annotations

from typing import Any

import pytest

from omnieval.errors import StoreError
from omnieval.platform.routes import pages
from omnieval.platform.services import publication
from omnieval.platform.storage.models import Submission


def _stored() -> dict[str, Any]:
    """What scoring stores (``platform/scoring.py``): results.json keys plus the platform's own."""
    block = {"score": 0.123456, "n": 3, "n_scored": 3, "states": {"ok": 2, "error": 1}, "metrics": {}}
    return {
        "model": "m",
        "states": {"ok": 3, "error": 1, "parse_failed": 0},
        "tasks": {
            "a": {**block, "ids": {"answered": 3, "missing": 0, "unknown": 0}},
            "b": {**block, "score": 0.98765, "states": {"ok": 1, "parse_failed": 0}},
        },
        "score_digits": 2,
        "breakdowns": [],
    }


def test_the_page_sums_states_and_shows_rounded_results_with_the_stored_keys() -> None:
    row = Submission(id=7, results=_stored())
    assert pages._states(row) == {"ok": 3, "error": 1}  # the zero count is left out
    shown = publication.shown_results(row)
    assert shown["tasks"]["a"]["score"] == 0.12 and shown["tasks"]["b"]["score"] == 0.99
    # no default of the model is added to what the API returns; the migration (v1 → v2) names the version
    assert set(shown) == {*_stored(), "schema_version"} and shown["schema_version"] == 2
    assert set(shown["tasks"]["a"]) == set(_stored()["tasks"]["a"])
    assert publication.shown_results(Submission(id=8, results=None)) == {}
    assert pages._states(Submission(id=8, results=None)) == {}


@pytest.mark.parametrize(
    "read", [pages._states, publication.shown_results, lambda row: publication._board_input(row, "7")]
)
def test_a_mistyped_stored_document_names_the_submission_and_the_field(read: Any) -> None:
    bad = _stored()
    bad["tasks"]["a"]["states"] = {"ok": "two"}  # summed as a string before (a TypeError, or "22")
    with pytest.raises(StoreError) as err:
        read(Submission(id=7, results=bad))
    assert "submission 7" in str(err.value) and "tasks.a.states.ok" in str(err.value)


def test_the_board_enters_each_submission_under_its_id() -> None:
    typed = publication._board_input(Submission(id=7, results=_stored()), "7")
    assert typed.model == "7" and typed.tasks["a"].score == 0.123456  # the board ranks exact scores
    with pytest.raises(ValueError, match="submission 9 is approved but holds no results"):
        publication._board_input(Submission(id=9, results=None), "9")
