"""Parity edge cases beyond the development cases, each derived from the original's code.

Each test names the original's step it follows (TIGER-AI-Lab/MEGA-Bench, ``megabench/metrics``);
the expected values are worked by hand from that logic, not taken from omnieval.
"""

from __future__ import annotations

from omnieval.metrics.mega import _collections as col
from omnieval.metrics.mega._convert import str_to_list, str_to_set


class TestStrToIterableTypeError:
    # The original's ``str_to_iterable`` wraps ``func(ast.literal_eval(s))`` in a try whose
    # ``except TypeError`` branch returns ``func()``: an unhashable literal key, nested lists put
    # into a set, or a non-iterable literal (complex) all give an EMPTY collection, not a split.
    def test_nested_lists_into_a_set_give_empty(self) -> None:
        assert str_to_set("[[1, 2], [3, 4]]") == set()
        assert str_to_set("[1, [2]]") == set()
        assert str_to_list("[[1, 2], [3, 4]]") == [[1, 2], [3, 4]]  # lists can hold lists

    def test_unhashable_dict_key_and_complex_give_empty(self) -> None:
        assert str_to_set("{[1]: 2}") == set()
        assert str_to_list("{[1]: 2}") == []
        assert str_to_list("1j") == []

    def test_set_metrics_on_nested_lists(self) -> None:
        # Both sides become set() -> equal; Jaccard of two empty sets is 1 (zero denominator);
        # set precision of an empty prediction is 1.
        assert col.set_equality("[[1, 2]]", "[[3, 4]]") == 1.0
        assert col.jaccard_index("[[1, 2]]", "[[1, 2], [3, 4]]") == 1.0
        assert col.set_precision("[[9, 9]]", "['a']") == 1.0
        assert col.str_set_equality_comma("[[1, 2]]", "[[1, 2]]") == 1.0
