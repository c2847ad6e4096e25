"""MWS-Vision-Bench's released metrics (``mts-ai/MWS-Vision-Bench``, ``src/evaluation``), per task type.

=============================  ==========================================================================
type                           score of one answer
=============================  ==========================================================================
``reasoning VQA ru``           OCRBench v2 VQA: 1 if a short (< 5 words) answer occurs in the prediction;
                               for longer answers ANLS >= 0.5 (else 0); best over the answers
``text grounding ru``          IoU of the *last* ``[x1, y1, x2, y2]`` box in the prediction (all four in
                               0..2048 or all in 0..1) with the ground-truth box
``key information extraction`` mean per-field exact match (case and spaces ignored) of the prediction
                               read as a dict, best over the ground truth's value combinations
``document parsing ru``        structure-only tree similarity of the Markdown: headings and lines as a
                               tree, ``1 - edit distance / larger tree size``; the *text* is ignored
``full-page OCR ru``           mean of BLEU-4, METEOR, set F1 of words and ``1 - normalised edit distance``
=============================  ==========================================================================

Predictions longer than 18,000 characters are cut there (with `` [TRUNCATED]`` appended) first.
The overall is the mean of the five type means (``get_score_ru.py``).

METEOR is NLTK's ``meteor_score`` as the authors call it, all three stages: exact words, Porter stems
with NLTK's own stemmer (a word not ending in an ASCII letter, e.g. every Cyrillic word, is its own
stem), then English WordNet 3.0 synonyms with NLTK's own ``wordnetsyn_match``, asking for each word's
synonyms not NLTK's WordNet reader but the index ``scripts/wordnet_data.py`` builds with that reader
(``synonyms.py``; a missing index is an error, never a skipped stage). WordNet only knows ASCII lemmas,
so the synonym stage, and the opening of the index, happens only when an unmatched ASCII word is left on
both sides; Cyrillic text never opens it. Texts with CJK characters (tokenised with
jieba by the authors) are split on whitespace here.
"""

from __future__ import annotations

import ast
import functools
import json
import math
import re
from collections import Counter, defaultdict
from collections.abc import Callable, Sequence
from itertools import pairwise, product
from typing import Any

from rapidfuzz.distance import Levenshtein

from omnieval.benchmarks.mws_vision.tree_edit import LabelTree, tree_edit_distance

__all__ = [
    "TASK_TYPES",
    "bleu4",
    "doc_parsing_score",
    "full_page_ocr_score",
    "grounding_score",
    "kie_score",
    "meteor",
    "mws_score",
    "read_dict",
    "vqa_score",
]

TASK_TYPES = (
    "full-page OCR ru",
    "text grounding ru",
    "key information extraction ru",
    "document parsing ru",
    "reasoning VQA ru",
)
MAX_PREDICTION = 18000
_ALPHA, _BETA, _GAMMA = 0.9, 3.0, 0.5  # NLTK METEOR defaults
_TRUNCATED = " [TRUNCATED]"


# -- reasoning VQA (OCRBench v2 ``vqa_evaluation``) ---------------------------------------------------


def _vqa_normal(text: str) -> str:
    return text.lower().strip().replace("\n", " ")


def _anls_value(prediction: str, answer: str) -> float:
    length = max(len(prediction), len(answer))
    return 1.0 - (0.0 if length == 0 else Levenshtein.distance(prediction, answer) / length)


def vqa_score(prediction: str, answers: Sequence[Any] | str) -> float:
    """1 when a short answer is a substring of the prediction; ANLS (>= 0.5) for long answers."""
    score = 0.0
    predicted = _vqa_normal(str(prediction))
    if isinstance(answers, str):
        # a single answer string: substring first, ANLS as the fallback even for short answers
        answer = _vqa_normal(answers)
        if len(answer.split()) < 5 and answer in predicted:
            return 1.0
        if len(answer.split()) < 5:
            value = _anls_value(predicted, answer)
            return value if value >= 0.5 else 0.0
        return score
    for raw in answers:
        if isinstance(raw, int | float):
            raw = str(raw)
        if not isinstance(raw, str):
            continue  # the authors skip an answer that cannot be lower-cased
        answer = _vqa_normal(raw)
        if len(answer.split()) < 5:
            if answer in predicted:
                score = 1.0
        else:
            value = _anls_value(predicted, answer)
            if value >= 0.5 and value > score:
                score = value
    return score


# -- text grounding -------------------------------------------------------------------------------------

_BOX = re.compile(r"[\(\[]\s*(\d+\.?\d*)\s*,\s*(\d+\.?\d*)\s*,\s*(\d+\.?\d*)\s*,\s*(\d+\.?\d*)\s*[\)\]]")


def _last_box(text: str) -> list[float] | None:
    last = None
    for match in _BOX.finditer(text):
        box = [float(v) for v in match.groups()]
        if all(0 <= v <= 2048 for v in box) or all(0 <= v <= 1 for v in box):
            last = box
    return last


def _iou(a: Sequence[Any], b: Sequence[Any]) -> float:
    try:
        x = [float(v) for v in a]
        y = [float(v) for v in b]
    except (TypeError, ValueError):
        return 0.0
    inter = max(0.0, min(x[2], y[2]) - max(x[0], y[0])) * max(0.0, min(x[3], y[3]) - max(x[1], y[1]))
    union = (x[2] - x[0]) * (x[3] - x[1]) + (y[2] - y[0]) * (y[3] - y[1]) - inter
    return inter / union if union != 0 else 0.0


def grounding_score(prediction: str, answers: Sequence[Any]) -> float:
    """IoU of the last in-range box of the prediction with the ground-truth ``[x1, y1, x2, y2]``."""
    box = _last_box(prediction)
    if box is None or len(answers) != 4:
        return 0.0
    return _iou(box, answers)


# -- key information extraction ------------------------------------------------------------------------

_FENCE = re.compile(r"```(?:python|json)?\n(.*?)\n```", re.DOTALL | re.IGNORECASE)
_KEY_VALUE = re.compile(r"[\"']?([\w\s]+)[\"']?\s*[:=]\s*[\"']?([^\n,\"'{}]+)[\"']?")


class _Unreadable(Exception):
    """The authors' code raises here, and the caller scores 0."""


def read_dict(text: str) -> dict[str, str]:
    """The prediction as a flat dict of strings (the authors' ``convert_str_to_dict``)."""
    fenced = _FENCE.search(text)
    content = fenced.group(1) if fenced else text.strip()
    data: Any = {}
    parsed = False
    try:
        data = json.loads(content)
        parsed = True
    except json.JSONDecodeError:
        pass
    if not parsed:
        try:
            data = ast.literal_eval(content)
            parsed = isinstance(data, dict)
        except (ValueError, SyntaxError):
            pass
        except Exception as exc:  # e.g. an unhashable key: the authors' code raises
            raise _Unreadable from exc
    if not parsed:
        pairs = _KEY_VALUE.findall(content)
        if pairs and not isinstance(data, dict):
            return {}  # assigning into a parsed non-dict fails; the authors return {}
        for key, value in pairs:
            data[key.strip()] = value.strip()
    if not data or not isinstance(data, dict):
        return {}
    if not all(isinstance(k, str) for k in data):
        return {}
    return {k.strip(): str(v).strip() for k, v in data.items()}


def _combinations(truth: Any) -> list[dict[str, Any]]:
    """Every ground truth dict the answer allows (one value per key from each list)."""
    if isinstance(truth, dict):
        keys = list(truth)
        # the authors' dict branch: values are iterated as given (a string by its characters)
        return [dict(zip(keys, values, strict=True)) for values in product(*(truth[k] for k in keys))]
    text = str(truth).strip('"')
    try:
        parsed = json.loads(text)
    except json.JSONDecodeError:
        try:
            parsed = ast.literal_eval(text)
            if not isinstance(parsed, dict):
                parsed = ast.literal_eval(parsed)
        except (ValueError, SyntaxError):
            return []
        except Exception as exc:
            raise _Unreadable from exc
    if not isinstance(parsed, dict):
        raise _Unreadable
    keys = list(parsed)
    lists = [v if isinstance(v, list) else [v] for v in (parsed[k] for k in keys)]
    return [dict(zip(keys, values, strict=True)) for values in product(*lists)]


def _squeeze(value: str) -> str:
    return value.lower().strip().replace("\n", " ").replace(" ", "")


def _field_f1(predicted: dict[str, str], truth: dict[str, Any]) -> float:
    scores = []
    for key in set(predicted) | set(truth):
        mine, theirs = predicted.get(key), truth.get(key)
        if mine is None and theirs is None:
            continue
        if mine:
            mine = _squeeze(mine)
        if theirs:
            if not isinstance(theirs, str):
                raise _Unreadable  # ``.lower()`` of a number fails in the authors' code
            theirs = _squeeze(theirs)
        scores.append(1.0 if mine is not None and theirs is not None and mine == theirs else 0.0)
    return sum(scores) / len(scores) if scores else 0.0


def kie_score(prediction: str, answers: Sequence[Any]) -> float:
    """Mean per-field exact match, best over the ground truth's value combinations."""
    if len(answers) != 1:
        return 0.0  # the authors assert one answer; the assertion error scores 0
    try:
        truths = _combinations(answers[0])
        if len(truths) == 1:
            return _field_f1(read_dict(prediction), truths[0])
        best = 0.0
        for truth in truths:
            try:
                best = max(best, _field_f1(read_dict(prediction), truth))
            except _Unreadable:
                continue
        return best
    except _Unreadable:
        return 0.0


# -- document parsing ---------------------------------------------------------------------------------

_CLEAN = (
    (re.compile(r"<bos>|<eos>|<pad>|<unk>"), ""),
    (re.compile(r"\s##(\S)"), r"\1"),
    (re.compile(r"\\\s"), r"\\"),
    (re.compile(r"\s\*\s\*\s"), r"**"),
    (re.compile(r"{\s"), r"{"),
    (re.compile(r"\s}"), r"}"),
    (re.compile(r"\\begin\s"), r"\\begin"),
    (re.compile(r"\\end\s"), r"\\end"),
    (re.compile(r"\\end{table}"), r"\\end{table} \n\n"),
)


def _clean(line: str) -> str:
    for pattern, replacement in _CLEAN:
        line = pattern.sub(replacement, line)
    return line.replace("\n", " ").replace("*", " ").replace("_", " ")


def _markdown_tree(text: str) -> LabelTree:
    root = LabelTree("ROOT")
    last_title = ""
    seen: Counter[str] = Counter()
    for raw in text.split("\n"):
        line = _clean(raw).strip()
        if line.startswith("#"):
            title = line.lstrip("#").strip()
            seen[title] += 1
            last_title = f"{title}__{seen[title]}"
            root.children.append(LabelTree(last_title))
        elif line:
            parent = root.first(last_title) if last_title else root
            assert parent is not None
            parent.children.append(LabelTree(line))
    return root


def _label_cost(a: str, b: str) -> float:
    return 1.0 if not a.split() or not b.split() else 0.0


def doc_parsing_score(prediction: str, truth: str) -> float:
    """``1 - tree edit distance / larger tree`` over the Markdown's heading/line structure."""
    predicted, expected = _markdown_tree(prediction), _markdown_tree(truth)
    distance = tree_edit_distance(predicted, expected, _label_cost)
    return 1.0 - distance / max(predicted.size(), expected.size())


# -- full-page OCR --------------------------------------------------------------------------------------


def _ngrams(words: Sequence[str], n: int) -> Counter[tuple[str, ...]]:
    return Counter(tuple(words[i : i + n]) for i in range(len(words) - n + 1))


def bleu4(reference: Sequence[str], hypothesis: Sequence[str]) -> float:
    """Sentence BLEU-4 as NLTK's ``bleu`` gives it (uniform weights, no smoothing)."""
    numerators, denominators = [], []
    for n in range(1, 5):
        counts = _ngrams(hypothesis, n)
        ref_counts = _ngrams(reference, n)
        numerators.append(sum(min(c, ref_counts[g]) for g, c in counts.items()))
        denominators.append(max(1, sum(counts.values())))
    if numerators[0] == 0:
        return 0.0
    hyp, ref = len(hypothesis), len(reference)
    penalty = 1.0 if hyp > ref else 0.0 if hyp == 0 else math.exp(1 - ref / hyp)
    # NLTK replaces a zero precision by the smallest float (log ≈ -708), which leaves a tiny value
    logs = [
        0.25 * math.log(num / den if num else 2.2250738585072014e-308)
        for num, den in zip(numerators, denominators, strict=True)
    ]
    return penalty * math.exp(math.fsum(logs))


def _match_words(
    hyp: list[tuple[int, str]], ref: list[tuple[int, str]]
) -> tuple[list[tuple[int, int]], list[tuple[int, str]], list[tuple[int, str]]]:
    """NLTK's ``_match_enums``: each hypothesis word, last first, takes the last free equal reference
    word; the matched index pairs and what is left of each side."""
    positions: defaultdict[str, list[int]] = defaultdict(list)
    for j, (_, word) in enumerate(ref):
        positions[word].append(j)
    matches: list[tuple[int, int]] = []
    used_hyp: set[int] = set()
    used_ref: set[int] = set()
    for i in range(len(hyp) - 1, -1, -1):
        free = positions.get(hyp[i][1])
        if free:
            j = free.pop()
            matches.append((hyp[i][0], ref[j][0]))
            used_hyp.add(i)
            used_ref.add(j)
    left_hyp = [pair for i, pair in enumerate(hyp) if i not in used_hyp]
    return matches, left_hyp, [pair for j, pair in enumerate(ref) if j not in used_ref]


@functools.cache
def _porter() -> Any:
    try:
        from nltk.stem.porter import PorterStemmer
    except ModuleNotFoundError:
        raise ModuleNotFoundError(
            "MWS-Vision-Bench's METEOR stems Latin words with NLTK's Porter stemmer, as the authors' "
            "metric does: pip install 'omnieval[mws_vision]'"
        ) from None
    return PorterStemmer()


@functools.lru_cache(maxsize=65_536)
def _stem(word: str) -> str:
    """NLTK's ``PorterStemmer().stem``. A word not ending in an ASCII letter is its own stem (every Porter
    rule and irregular form ends in one), so Cyrillic text never loads NLTK."""
    if not "a" <= word[-1:] <= "z":
        return word
    return str(_porter().stem(word))


Alignment = list[tuple[int, int]]


@functools.cache
def _wordnet_synonyms() -> Callable[[list[str], list[str]], tuple[Alignment, Any, Any]]:
    """NLTK's ``wordnetsyn_match`` over the synonym index ``scripts/wordnet_data.py`` builds with NLTK's
    WordNet reader (``synonyms.py``: the same synonyms, without loading the reader), opened on first use."""
    _porter()  # the same clear error when NLTK itself is missing
    from nltk.translate.meteor_score import wordnetsyn_match

    from omnieval.benchmarks.mws_vision.synonyms import open_index

    return functools.partial(wordnetsyn_match, wordnet=open_index())


def _synonym_matches(hyp_left: list[tuple[int, str]], ref_left: list[tuple[int, str]]) -> Alignment:
    """NLTK's third stage on what the stem stage left, as stems (NLTK passes its stems on). WordNet's
    lemmas are all ASCII, so a non-ASCII stem can neither match nor be matched and is left out."""
    hyp = [(i, stem) for i, w in hyp_left if (stem := _stem(w)).isascii()]
    ref = [(j, stem) for j, w in ref_left if (stem := _stem(w)).isascii()]
    if not hyp or not ref:
        return []
    pairs, _, _ = _wordnet_synonyms()([w for _, w in hyp], [w for _, w in ref])
    return [(hyp[i][0], ref[j][0]) for i, j in pairs]


def meteor(reference: Sequence[str], hypothesis: Sequence[str]) -> float:
    """NLTK's ``meteor_score`` (alpha 0.9, beta 3, gamma 0.5): exact words, Porter stems, WordNet synonyms."""
    hyp = [(i, w.lower()) for i, w in enumerate(hypothesis)]
    ref = [(j, w.lower()) for j, w in enumerate(reference)]
    matches, hyp_left, ref_left = _match_words(hyp, ref)
    # A Porter stem keeps its word's first letter: only words whose first letter the other side has too
    # can pair by stem, so only those are stemmed (the others cannot equal anything over there).
    shared = {w[0] for _, w in hyp_left} & {w[0] for _, w in ref_left}
    if shared:
        stemmed, hyp_rest, ref_rest = _match_words(
            [(i, _stem(w) if w[0] in shared else w) for i, w in hyp_left],
            [(j, _stem(w) if w[0] in shared else w) for j, w in ref_left],
        )
        matches += stemmed
        if stemmed:
            hyp_left = [(i, hyp[i][1]) for i, _ in hyp_rest]
            ref_left = [(j, ref[j][1]) for j, _ in ref_rest]
    matches += _synonym_matches(hyp_left, ref_left)
    if not matches or not hyp or not ref:
        return 0.0
    matches.sort()
    precision, recall = len(matches) / len(hyp), len(matches) / len(ref)
    fmean = precision * recall / (_ALPHA * precision + (1 - _ALPHA) * recall)
    chunks = 1 + sum(1 for (i, j), (k, m) in pairwise(matches) if not (k == i + 1 and m == j + 1))
    return (1 - _GAMMA * (float(chunks) / len(matches)) ** _BETA) * fmean


def _set_f1(reference: set[str], hypothesis: set[str]) -> float:
    if not reference or not hypothesis:
        return 0.0  # NLTK's None, counted as 0
    common = len(reference & hypothesis)
    if common == 0:
        return 0.0
    p, r = common / len(hypothesis), common / len(reference)
    return 1.0 / (0.5 / p + 0.5 / r)


def full_page_ocr_score(prediction: str, truth: str) -> float:
    """(BLEU + METEOR + word-set F1 + (1 - normalised edit distance)) / 4."""
    if not prediction:
        return 0.0
    reference, hypothesis = truth.split(), prediction.split()
    edit = Levenshtein.distance(prediction, truth) / max(len(prediction), len(truth))
    return (
        bleu4(reference, hypothesis)
        + meteor(reference, hypothesis)
        + _set_f1(set(reference), set(hypothesis))
        + (1 - edit)
    ) / 4


# -- dispatch --------------------------------------------------------------------------------------------


def mws_score(task_type: str, prediction: str, answers: Sequence[Any]) -> float:
    """One answer's score by its task type (``eval_parallel.process_single_item``)."""
    if len(prediction) > MAX_PREDICTION:
        prediction = prediction[:MAX_PREDICTION] + _TRUNCATED
    if task_type == "reasoning VQA ru":
        score = vqa_score(prediction, answers)
    elif task_type == "text grounding ru":
        score = grounding_score(prediction, answers)
    elif task_type == "key information extraction ru":
        score = kie_score(prediction, answers)
    elif task_type == "document parsing ru":
        if len(answers) != 1:
            raise ValueError(f"a {task_type!r} question needs one answer, got {len(answers)}")
        score = doc_parsing_score(prediction, str(answers[0]))
    elif task_type == "full-page OCR ru":
        if len(answers) != 1:
            raise ValueError(f"a {task_type!r} question needs one answer, got {len(answers)}")
        score = full_page_ocr_score(prediction, str(answers[0]))
    else:
        raise ValueError(f"unknown MWS-Vision-Bench task type {task_type!r} (known: {', '.join(TASK_TYPES)})")
    return 0.0 if math.isnan(score) else float(score)
