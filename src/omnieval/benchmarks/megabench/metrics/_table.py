"""The MEGA-Bench metric table: ``field_score_function`` names → implementations, by calling convention.

The original evaluator calls a metric in one of four ways; the table keeps them apart so
``metric_info`` from the dataset works unchanged:

- ``FIELD``: ``fn(parsed_field_value, gold_field_value)``
- ``CONTEXT``: ``fn(parsed_field_value, eval_context)`` (program judge, planning, point-in-box)
- ``WHOLE``: ``fn(whole_parsed_response, eval_context)`` (constrained generation)
- ``JUDGE``: LLM-judged (Open-ended set); not rule-based, reported as not scored here
- ``NOT_SCORED``: ``unsupported`` (and a field with no metric): the field is left out
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from omnieval.benchmarks.megabench.metrics import _collections as col
from omnieval.benchmarks.megabench.metrics import _latex as tex
from omnieval.benchmarks.megabench.metrics import _numeric as num
from omnieval.benchmarks.megabench.metrics import _spatial as spa
from omnieval.benchmarks.megabench.metrics import _strings as txt
from omnieval.benchmarks.megabench.metrics._constrained import constrained_generation
from omnieval.benchmarks.megabench.metrics._planning import symbolic_planning_test
from omnieval.benchmarks.megabench.metrics._program import program_judge
from omnieval.errors import MetricError

__all__ = ["CONTEXT", "FIELD", "JUDGE", "NOT_SCORED", "WHOLE", "all_names", "kind_of"]

MetricImpl = Callable[..., float]


def _nli_entailment(pred: Any, gold: Any, *, strict: bool = False) -> float:
    """Inert in the original: its type guard returns 0 whenever the gold is a string."""
    if isinstance(gold, str):
        return 0.0
    raise MetricError("nli_entailment on a non-string gold needs an NLI model, which omnieval does not ship")


FIELD: dict[str, MetricImpl] = {
    "exact_str_match": txt.exact_str_match,
    "simple_str_match": txt.simple_str_match,
    "code_result_exact_str_match": txt.code_result_exact_str_match,
    "exact_str_match_case_insensitive": txt.exact_str_match_case_insensitive,
    "normalized_similarity_damerau_levenshtein": txt.normalized_similarity_damerau_levenshtein,
    "near_str_match": txt.near_str_match,
    "multi_ref_phrase": txt.multi_ref_phrase,
    "gleu_cn": txt.gleu_cn,
    "bleu": txt.bleu,
    "number_rel_diff_ratio": num.number_rel_diff_ratio,
    "positive_int_match": num.positive_int_match,
    "normalized_rmse": num.normalized_rmse,
    "angle_seq_float_rmse": num.angle_seq_float_rmse,
    "general_single_numerical_match": num.general_single_numerical_match,
    "boxed_single_numerical_match": num.boxed_single_numerical_match,
    "set_equality": col.set_equality,
    "set_equality_case_insensitive": col.set_equality_case_insensitive,
    "str_set_equality_line_break": col.str_set_equality_line_break,
    "str_set_equality_comma": col.str_set_equality_comma,
    "jaccard_index": col.jaccard_index,
    "jaccard_index_case_insensitive": col.jaccard_index_case_insensitive,
    "set_precision": col.set_precision,
    "chess_move_list_jaccard_index": col.chess_move_list_jaccard_index,
    "sequence_equality": col.sequence_equality,
    "sequence_equality_case_insensitive": col.sequence_equality_case_insensitive,
    "sequence_accuracy_case_insensitive": col.sequence_accuracy_case_insensitive,
    "longest_common_list_prefix_ratio": col.longest_common_list_prefix_ratio,
    "dict_equality": col.dict_equality,
    "dict_precision": col.dict_precision,
    "dict_exact_str_match_agg_recall": col.dict_exact_str_match_agg_recall,
    "dict_jaccard_agg_jaccard": col.dict_jaccard_agg_jaccard,
    "dict_set_equality_agg_jaccard": col.dict_set_equality_agg_jaccard,
    "dict_nbbox_iou_tuple_agg_jaccard": col.dict_nbbox_iou_tuple_agg_jaccard,
    "nbbox_iou_tuple": spa.nbbox_iou_tuple,
    "nbbox_iou_single": spa.nbbox_iou_single,
    "nbbox_iou_sequence": spa.nbbox_iou_sequence,
    "xml_nbbox_iou_single": spa.xml_nbbox_iou_single,
    "xml_norm_point_distance": spa.xml_norm_point_distance,
    "sequence_coords_similarity": spa.sequence_coords_similarity,
    "latex_expr_equality": tex.latex_expr_equality,
    "text_with_latex_expr_equality": tex.text_with_latex_expr_equality,
    "nli_entailment": _nli_entailment,
}
CONTEXT: dict[str, MetricImpl] = {
    "program_judge": program_judge,
    "symbolic_planning_test": symbolic_planning_test,
    "xml_norm_point_in_bbox": spa.xml_norm_point_in_bbox,
}
WHOLE: dict[str, MetricImpl] = {"constrained_generation": constrained_generation}
JUDGE = frozenset({"gpt_4o_as_judge", "ascii_art_gpt4o_judge"})
NOT_SCORED = frozenset({"unsupported", "geo_proximity_location_dict"})
"""``geo_proximity_location_dict`` needs a network geocoder; it is reported as not scored."""


def all_names() -> list[str]:
    """Every metric name ``metric_info`` may use."""
    return sorted({*FIELD, *CONTEXT, *WHOLE, *JUDGE, *NOT_SCORED})


def kind_of(name: str | None) -> str:
    """``field``/``context``/``whole``/``judge``/``not_scored`` for a metric name (None: not scored)."""
    if name is None:
        return "not_scored"
    key = str(name).lower()
    for kind, table in (("field", FIELD), ("context", CONTEXT), ("whole", WHOLE)):
        if key in table:
            return kind
    if key in JUDGE:
        return "judge"
    if key in NOT_SCORED:
        return "not_scored"
    raise MetricError(f"unknown MEGA-Bench metric {name!r}; known: {', '.join(all_names())}")


def implementation(name: str) -> MetricImpl:
    """The function for a rule-based metric name."""
    key = str(name).lower()
    return FIELD.get(key) or CONTEXT.get(key) or WHOLE[key]
