"""Parity edge cases beyond the development cases, each derived from the original's code.

Each test names the original's step it follows (TIGER-AI-Lab/MEGA-Bench, ``megabench/metrics``);
the expected values are worked by hand from that logic, not taken from omnieval.
"""

from __future__ import annotations

from omnieval.benchmarks.megabench.metrics import _collections as col
from omnieval.benchmarks.megabench.metrics._convert import str_to_list, str_to_set


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


class TestLatexNormalisationErrors:
    # The original's ``replace_greek_letters`` substitutes every char of ``[α-ω]`` through a dict
    # that lacks the final sigma ``ς`` (U+03C2, inside that range): KeyError. The error is raised
    # inside LatexExprEquality's try, whose except list (LaTeXParsingError, SympifyError,
    # TypeError, timeout, NotImplementedError) does not name KeyError, so MetricType.match's
    # catch-all scores the field 0 - not the simple_str_match fallback (which would give 1 here).
    def test_final_sigma_scores_zero(self) -> None:
        from omnieval.benchmarks.megabench.metrics import _latex as tex
        from omnieval.benchmarks.megabench.metrics.query import _safe

        assert _safe(tex.latex_expr_equality, "ς", "ς", strict=False) == 0.0
        assert _safe(tex.text_with_latex_expr_equality, "x $ς$", "x $ς$", strict=False) == 0.0
        assert _safe(tex.latex_expr_equality, "σ", "σ", strict=False) == 1.0

    # ``replace_macrons_with_latex_overline`` does ``result[-1] = ...`` for a combining macron;
    # at the very start ``result`` is empty: IndexError, likewise uncaught -> 0.
    def test_leading_combining_macron_scores_zero(self) -> None:
        from omnieval.benchmarks.megabench.metrics import _latex as tex
        from omnieval.benchmarks.megabench.metrics.query import _safe

        assert _safe(tex.latex_expr_equality, "\u0304x", "x", strict=False) == 0.0
        assert _safe(tex.latex_expr_equality, "x\u0304", "\\overline{x}", strict=False) == 1.0


class TestProgramJudgeEnvironment:
    # The original (metrics/scoring/program_judge.py) runs ``exec(self.user_code)`` inside
    # ``CodeTester.target`` when there is no ``if __name__ == "__main__":`` guard, so the program
    # sees the judge module's globals: ``__name__`` is "metrics.scoring.program_judge" and the
    # module's own imports (io, json, pathlib) are usable without importing them. It runs in the
    # evaluator's Python environment, so stdlib modules that use importlib internally
    # (dataclasses, pprint) and installed packages (numpy) import normally.
    def test_module_globals_visible_without_guard(self) -> None:
        from omnieval.benchmarks.megabench.metrics._program import run_program

        assert run_program("print(json.dumps([1, 2]))", []) == "[1, 2]"
        assert run_program("def f():\n    return json.dumps(2)\nprint(f())", []) == "2"
        assert run_program("print(__name__)", []) == "metrics.scoring.program_judge"

    def test_stdlib_and_installed_packages_import(self) -> None:
        from omnieval.benchmarks.megabench.metrics._program import run_program

        code = "from dataclasses import dataclass\n@dataclass\nclass P:\n    x: int\nprint(P(int(input())).x)"
        assert run_program(code, ["7"]) == "7"
        assert run_program("import numpy as np\nprint(int(np.array([1, 2]).sum()))", []) == "3"

    def test_dangerous_imports_stay_blocked(self) -> None:
        from omnieval.benchmarks.megabench.metrics._program import run_program

        assert run_program("import subprocess\nprint(1)", []).startswith("ERROR during execution")
        assert run_program("import importlib\nprint(1)", []).startswith("ERROR during execution")
        assert run_program("import socket\nprint(1)", []).startswith("ERROR during execution")

    def test_input_items_are_joined_then_split_into_lines(self) -> None:
        # CodeTester.run_user_code: input_str = "\n".join(input_data) + "\n", and input() is
        # patched with input_str.splitlines(): an item "1\n2" yields two input() lines.
        from omnieval.benchmarks.megabench.metrics._program import program_judge

        code = "a = input()\nb = input()\nprint(int(a) + int(b))"
        assert program_judge(code, {"test_case": [{"input": ["1\n2"], "expected": "3"}]}) == 1.0
        assert program_judge(code, {"test_case": {"input": ["4", "5"], "expected": "9\n"}}) == 1.0


class TestNoneCastsToEmptySet:
    # ``str_to_iterable`` returns the STRING "" when the literal is None ("None" response or
    # gold); the original's ``set_relevance_score`` then does ``set(predicted)``/``set(target)``,
    # so "" is an empty set: set_precision of "None" has a zero denominator -> 1, and Jaccard of
    # "None" vs "None" -> 1, vs a non-empty set -> 0.
    def test_set_precision_of_none_response(self) -> None:
        assert col.set_precision("None", "['a']") == 1.0
        assert col.set_precision("['a']", "None") == 0.0

    def test_jaccard_with_none(self) -> None:
        assert col.jaccard_index("None", "None") == 1.0
        assert col.jaccard_index("None", "['a']") == 0.0
        assert col.jaccard_index("['a']", "None") == 0.0


class TestSyllableEnumerationBudget:
    # check_constraint's "syllables" case calls count_syllables(line), which lists the syllable
    # total of EVERY pronunciation combination (itertools.product) under a 10 s SIGALRM; a line of
    # 15 "the" (3 pronunciations each) is 3**15 = 14.3 M combinations x 15 words, far past 10 s
    # (about 1 us per word-combination), so the original times out and scores the constraint 0.
    def test_runaway_enumeration_scores_zero(self) -> None:
        from omnieval.benchmarks.megabench.metrics._constrained import check_constraint

        assert check_constraint(" ".join(["the"] * 15), "syllables", "[15]") == 0.0
        assert check_constraint(" ".join(["the"] * 8), "syllables", "[8]") == 1.0  # 6561 combinations


class TestCaseInsensitiveNonStringGold:
    # ExactStrMatchCaseInsensitive returns 0 only for a non-string response with a string gold,
    # then calls ``response.lower()`` and ``correct_answer.lower()``: a non-string gold (e.g. the
    # int 5 in a JSON answer) raises AttributeError, which the evaluator scores 0.
    def test_int_gold_scores_zero(self) -> None:
        from omnieval.benchmarks.megabench.metrics import _strings as txt
        from omnieval.benchmarks.megabench.metrics.query import _safe

        assert _safe(txt.exact_str_match_case_insensitive, "5", 5, strict=False) == 0.0
        assert _safe(txt.exact_str_match_case_insensitive, 5, 5, strict=False) == 0.0
        assert _safe(txt.exact_str_match_case_insensitive, "Paris", "paris", strict=False) == 1.0

    # SimpleStrMatch str()-s only the response, then calls ``correct_answer.replace``;
    # CodeResultExactStrMatch and MultipleReferencePhraseEval call ``.strip()``/``.replace`` on the
    # gold directly: a non-string gold is an AttributeError there, scored 0.
    def test_other_string_metrics_fail_on_non_string_gold(self) -> None:
        from omnieval.benchmarks.megabench.metrics import _strings as txt
        from omnieval.benchmarks.megabench.metrics.query import _safe

        for fn in (txt.simple_str_match, txt.multi_ref_phrase, txt.code_result_exact_str_match):
            assert _safe(fn, "5", 5, strict=False) == 0.0
        assert _safe(txt.simple_str_match, 5, "5", strict=False) == 1.0  # a non-string response is str()-ed
