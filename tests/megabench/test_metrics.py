"""Hand-checked MEGA-Bench metric values: quirks kept in parity, fixed in strict mode."""

from __future__ import annotations

import math

import pytest

from omnieval.benchmarks.megabench.metrics import _collections as col
from omnieval.benchmarks.megabench.metrics import _latex as tex
from omnieval.benchmarks.megabench.metrics import _numeric as num
from omnieval.benchmarks.megabench.metrics import _spatial as spa
from omnieval.benchmarks.megabench.metrics import _strings as txt
from omnieval.benchmarks.megabench.metrics._constrained import check_constraint, constrained_generation
from omnieval.benchmarks.megabench.metrics._planning import symbolic_planning_test


class TestStrings:
    def test_mc_letter_quirk_and_strict_fix(self) -> None:
        assert txt.exact_str_match("(B) the second", "B") == 1.0
        assert txt.exact_str_match("Because it is red", "B") == 1.0  # parity: first letter taken
        assert txt.exact_str_match("Because it is red", "B", strict=True) == 0.0
        assert txt.exact_str_match("B. the second", "B", strict=True) == 1.0

    def test_cyrillic_letter_gets_no_extraction(self) -> None:
        assert txt.exact_str_match("Б) второй", "Б") == 0.0
        assert txt.exact_str_match("Б", "Б") == 1.0

    def test_simple_str_match_deletes_dots_and_spaces(self) -> None:
        assert txt.simple_str_match("New-York City.", "new york city") == 1.0
        assert txt.simple_str_match("314", "3.14") == 1.0  # parity quirk
        assert txt.simple_str_match("314", "3.14", strict=True) == 0.0
        assert txt.simple_str_match("Москва", "москва") == 1.0

    def test_case_insensitive_needs_a_string(self) -> None:
        assert txt.exact_str_match_case_insensitive("PARIS", "paris") == 1.0
        assert txt.exact_str_match_case_insensitive(["paris"], "paris") == 0.0

    def test_near_and_damerau_levenshtein(self) -> None:
        # "Zurich" vs "Zürich": unidecode folds the accent, similarity 1.
        assert txt.near_str_match("the Zürich", "Zurich") == 1.0
        # 1 edit over 10 characters: similarity 0.9, exactly at the cutoff.
        assert txt.near_str_match("abcdefghij", "abcdefghix") == pytest.approx(0.9)
        assert txt.near_str_match("abcdefgh", "abcdefxy") == 0.0  # 0.75 < 0.9
        assert txt.normalized_similarity_damerau_levenshtein("abcd", "abdc") == pytest.approx(0.75)

    def test_multi_ref_with_chinese_comma(self) -> None:
        assert txt.multi_ref_phrase("Beijing", "[北京，Beijing]") == 1.0
        assert txt.multi_ref_phrase("Shanghai", "['Beijing', 'Peking']") == 0.0

    def test_code_result_block(self) -> None:
        assert txt.code_result_exact_str_match("  42", "```\n  42\n```") == 1.0

    def test_gleu_is_min_of_precision_and_recall(self) -> None:
        # Identical token lists: 1; hand count for a 2-token prefix of 4 tokens (a b c d vs a b):
        # n-grams ref 4+3+2+1=10, hyp 2+1=3, matches 3 → 3/10.
        assert txt._gleu(["a", "b", "c", "d"], ["a", "b"]) == pytest.approx(0.3)
        assert txt.gleu_cn("今天天气很好", "今天天气很好") == 1.0

    def test_bleu_argument_swap_quirk(self) -> None:
        assert txt.bleu("a b c", "a b c") == 0.0  # under 4 tokens: no 4-gram, BLEU 0
        long = "the quick brown fox jumps over the lazy dog"
        assert txt.bleu(long + " and more words here", long) == pytest.approx(math.exp(1 - 13 / 9), rel=1e-6)


class TestCollections:
    def test_set_precision_empty_prediction_quirk(self) -> None:
        assert col.set_precision("[]", "['a', 'b']") == 1.0
        assert col.set_precision("[]", "['a', 'b']", strict=True) == 0.0
        assert col.set_precision("['a', 'x']", "['a', 'b']") == 0.5
        assert col.set_precision(None, "['a']") == 0.0

    def test_jaccard_and_case_insensitive_tuples(self) -> None:
        assert col.jaccard_index("a, b, c", "['b', 'c', 'd']") == pytest.approx(0.5)
        assert col.jaccard_index_case_insensitive("[('Ann-Lee', 'M.I.T.')]", "[('ann lee', 'mit')]") == 1.0

    def test_sequence_metrics(self) -> None:
        assert col.sequence_equality("[1, 2, 3]", "[1, 2, 3]") == 1.0
        assert col.sequence_equality("3, 2, 1", "1, 2, 3") == 0.0
        assert col.sequence_accuracy_case_insensitive("['A', 'b', 'X']", "['a', 'B', 'c']") == pytest.approx(
            2 / 3
        )
        assert (
            col.longest_common_list_prefix_ratio("['m1', 'm2', 'bad', 'm4']", "['m1', 'm2', 'm3', 'm4']")
            == 0.5
        )

    def test_string_set_variants(self) -> None:
        assert col.str_set_equality_comma("Paris, ROME", "rome, paris") == 1.0
        assert col.str_set_equality_line_break("A\\nB", "b\na") == 1.0
        assert col.chess_move_list_jaccard_index("['Qh5#', 'Nf3!']", "['Qh5', 'Nf3']") == 1.0

    def test_dict_metrics(self) -> None:
        gold = "{'a': '1', 'b': '2'}"
        assert col.dict_precision("{'a': '1', 'c': '3'}", gold) == 0.5
        assert col.dict_exact_str_match_agg_recall("{'a': '1'}", gold) == 0.5
        assert col.dict_equality("{'a': '1', 'b': '2'}", gold) == 1.0
        assert col.dict_jaccard_agg_jaccard(
            {"x": ["1", "2"]}, {"x": ["2", "3"], "y": ["4"]}
        ) == pytest.approx(1 / 6)


class TestNumeric:
    @pytest.mark.parametrize(
        ("pred", "gold", "expected"),
        [
            ("x = 3.14", "3.14", 1.0),
            ("\\frac{1}{2}", "0.5", 1.0),
            ("50%", "0.5", 1.0),
            ("$1,000", "1000", 1.0),  # sympy's LaTeX reader drops the thousands comma
            ("3 \\pi", "9.42", 0.0),  # parity quirk: "3 3.14" reads as 33.14
            ("25 °C", "25", 1.0),
            ("2\\pi", "6.28", 1.0),
            ("1e3", "1000", 0.0),  # parity quirk documented by the original
            ("101", "100", 1.0),  # within 1 %
            ("102", "100", 0.0),
            ("twelve", "Twelve", 1.0),  # string fallback
        ],
    )
    def test_general_single_numerical_match(self, pred: str, gold: str, expected: float) -> None:
        assert num.general_single_numerical_match(pred, gold) == expected

    def test_unicode_minus_quirk_and_strict_fix(self) -> None:
        assert num.general_single_numerical_match("−5", "-5") == 0.0
        assert num.general_single_numerical_match("−5", "-5", strict=True) == 1.0

    def test_boxed(self) -> None:
        assert num.boxed_single_numerical_match("so \\boxed{\\frac{3}{4}}", "0.75") == 1.0

    def test_no_code_is_ever_executed(self) -> None:
        assert num.number_value("__import__('os').system('echo pwned')") is None
        with pytest.raises(Exception, match="exponent"):
            num.arithmetic_eval("9**9**9**9")
        assert num.number_value("[1, 2]") == [1, 2]

    def test_rel_diff_positive_int_rmse_angles(self) -> None:
        assert num.number_rel_diff_ratio("7", "8") == pytest.approx(1 - 1 / 8)
        assert num.number_rel_diff_ratio("True", "1") == 1.0  # bool read as 1 (quirk)
        assert num.positive_int_match("0", "0") == -1.0
        assert num.positive_int_match("3", "3") == 1.0
        assert num.normalized_rmse("0.53", "0.5") == pytest.approx(0.7)
        assert num.normalized_rmse("2", "1") == 0.0
        assert num.angle_seq_float_rmse("[90, 92]", "[90, 90]") == pytest.approx(0.9)


class TestSpatialAndLatex:
    def test_box_iou_variants(self) -> None:
        assert spa.box_iou((0, 0, 1, 1), (0.5, 0, 1.5, 1)) == pytest.approx(1 / 3)
        two_gold = "[(0, 0, 0.5, 0.5), (0.5, 0.5, 1, 1)]"
        assert spa.nbbox_iou_tuple("[(0, 0, 0.5, 0.5)]", two_gold) == 1.0  # precision-like quirk
        assert spa.nbbox_iou_tuple("[(0, 0, 0.5, 0.5)]", two_gold, strict=True) == 0.5
        assert spa.xml_nbbox_iou_single(
            "<box>0, 0, 1, 1</box>", "<box>0.5, 0, 1.5, 1</box>"
        ) == pytest.approx(1 / 3)

    def test_points(self) -> None:
        assert spa.xml_norm_point_distance(
            "<point>0.1, 0.1</point>", "<point>0.4, 0.5</point>"
        ) == pytest.approx(0.5)
        boxes = {"bounding_boxes": ["(0.6, 0.7, 0.8, 0.9)", "(0, 0, 0.1, 0.1)"]}
        assert spa.xml_norm_point_in_bbox("<point>0.05, 0.05</point>", boxes) == 1.0
        assert spa.xml_norm_point_in_bbox("<point>0.5, 0.5</point>", boxes) == 0.0
        d = 0.1
        assert spa.sequence_coords_similarity("[[0.1, 0.1]]", "[[0.2, 0.1]]") == pytest.approx(
            math.exp(-10 * d / math.sqrt(2))
        )

    def test_latex(self) -> None:
        assert tex.latex_expr_equality("\\frac{2}{4}x", "\\frac{x}{2}") == 1.0
        assert tex.latex_expr_equality("x^2", "x^3") == 0.0
        assert tex.normalize_latex("\\bar{x} + α") == "\\overline{x} + \\alpha "
        assert tex.text_with_latex_expr_equality("area is $\\frac{1}{2}$", "area is $0.5$") == 1.0


class TestConstraintsAndPlans:
    def test_contain_is_substring_based(self) -> None:
        assert check_constraint("A catalog of things.", "contain", "[cat]") == 1.0
        assert check_constraint("Two hamsters play.", "contain", "[hamster]") == 1.0  # plural lemmatised

    def test_position_times_length_acrostic(self) -> None:
        text = "A dog runs. The cat sleeps. A cat eats."
        assert check_constraint(text, "contain##position", "[cat]##2") == 1.0
        assert check_constraint(text, "contain##times", "[cat]##2") == 1.0
        assert check_constraint(text, "length", "<10") == 1.0
        assert check_constraint("Hi\nOk", "acrostic", "ho") == 1.0
        assert constrained_generation("Hi\nOk", {"acrostic": "ho", "length": ">5"}) == 0.0

    def test_syllables_and_rhyme(self) -> None:
        assert check_constraint("the cat sat", "syllables", "3") == 1.0
        assert check_constraint("I see a cat\nit wears a hat", "rhyming_scheme", "AA") == 1.0
        assert check_constraint("I see a cat\nit wears a shoe", "rhyming_scheme", "AA") == 0.0

    def test_pddl_plan(self) -> None:
        domain = (
            "(define (domain d) (:action pick :parameters (?x) :precondition (and (free ?x)) :effect (and "
            "(held ?x) (not (free ?x))))"
            " (:action drop :parameters (?x) :precondition (and (held ?x)) :effect (and (free ?x) (not (held "
            "?x)))))"
        )
        task = "(define (problem p) (:init (free a)) (:goal (and (held a))))"
        ctx = {"domain_pddl": domain, "task_pddl": task}
        assert symbolic_planning_test("(pick a)", ctx) == 1.0
        assert symbolic_planning_test("(pick a)\n(drop a)", ctx) == 0.0
        assert symbolic_planning_test("(drop a)", ctx) == 0.0  # precondition fails
        assert symbolic_planning_test("  (pick a)", ctx) == 0.0  # indented steps are dropped (quirk)
