"""VQA accuracy over ten human answers with the EvalAI answer processor, as mmf's
``TextVQAAccuracyEvaluator`` computes it.

The answer processor (EvalAI's, as mmf keeps it) lower-cases, drops ``,`` and ``?``, splits ``'s``,
removes or spaces out a fixed set of punctuation, strips periods not followed by a digit, maps
number words up to ten to digits, drops articles and restores apostrophes of common contractions.
A prediction scores the mean, over the ten leave-one-out subsets of the human answers, of
``min(1, matches / 3)``.

Parity quirks, reproduced by default:

- the period rule's look-behind is misspelt in the original (``(?!<=\\d)``), so a period *after* a
  digit is stripped too (``"5."`` → ``"5"``) — and ``re.sub`` is handed ``re.UNICODE`` as its
  *count*, so at most 32 periods go;
- the punctuation rule looks at the text before any replacement, so one spaced occurrence of a mark
  deletes every occurrence of it, while otherwise each becomes a space;
- ``:``, ``'``, ``*``, ``#``, ``$``, ``%``, ``&``, ``|``, ``~`` and ``^`` are kept;
- exactly ten answers are required (mmf asserts it).

``strict=True`` removes every unwanted period (no 32 cap).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from functools import lru_cache

__all__ = ["VQA_ANSWERS", "normalise_answer", "vqa_accuracy"]

VQA_ANSWERS = 10

# The contraction table of the VQA evaluation (apostrophe-less spelling → spelt form). Entries whose
# key has an upper-case letter can never fire (the text is lower-cased first); kept for parity.
_CONTRACTION_PAIRS = """
aint ain't|arent aren't|cant can't|couldve could've|couldnt couldn't|couldn'tve couldn't've
couldnt've couldn't've|didnt didn't|doesnt doesn't|dont don't|hadnt hadn't|hadnt've hadn't've
hadn'tve hadn't've|hasnt hasn't|havent haven't|hed he'd|hed've he'd've|he'dve he'd've|hes he's
howd how'd|howll how'll|hows how's|Id've I'd've|I'dve I'd've|Im I'm|Ive I've|isnt isn't|itd it'd
itd've it'd've|it'dve it'd've|itll it'll|let's let's|maam ma'am|mightnt mightn't
mightnt've mightn't've|mightn'tve mightn't've|mightve might've|mustnt mustn't|mustve must've
neednt needn't|notve not've|oclock o'clock|oughtnt oughtn't|ow's'at 'ow's'at|'ows'at 'ow's'at
'ow'sat 'ow's'at|shant shan't|shed've she'd've|she'dve she'd've|she's she's|shouldve should've
shouldnt shouldn't|shouldnt've shouldn't've|shouldn'tve shouldn't've|somebody'd somebodyd
somebodyd've somebody'd've|somebody'dve somebody'd've|somebodyll somebody'll|somebodys somebody's
someoned someone'd|someoned've someone'd've|someone'dve someone'd've|someonell someone'll
someones someone's|somethingd something'd|somethingd've something'd've
something'dve something'd've|somethingll something'll|thats that's|thered there'd
thered've there'd've|there'dve there'd've|therere there're|theres there's|theyd they'd
theyd've they'd've|they'dve they'd've|theyll they'll|theyre they're|theyve they've|twas 'twas
wasnt wasn't|wed've we'd've|we'dve we'd've|weve we've|werent weren't|whatll what'll|whatre what're
whats what's|whatve what've|whens when's|whered where'd|wheres where's|whereve where've|whod who'd
whod've who'd've|who'dve who'd've|wholl who'll|whos who's|whove who've|whyll why'll|whyre why're
whys why's|wont won't|wouldve would've|wouldnt wouldn't|wouldnt've wouldn't've
wouldn'tve wouldn't've|yall y'all|yall'll y'all'll|y'allll y'all'll|yall'd've y'all'd've
y'alld've y'all'd've|y'all'dve y'all'd've|youd you'd|youd've you'd've|you'dve you'd've|youll you'll
youre you're|youve you've
"""
_CONTRACTIONS = dict(
    pair.split(" ") for line in _CONTRACTION_PAIRS.split("\n") for pair in line.split("|") if pair
)
_NUMBER_WORDS = {
    word: str(value)
    for value, word in enumerate(
        ("zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten")
    )
}
_NUMBER_WORDS["none"] = "0"
_ARTICLES = frozenset({"a", "an", "the"})
_PUNCTUATION = (
    ";",
    "/",
    "[",
    "]",
    '"',
    "{",
    "}",
    "(",
    ")",
    "=",
    "+",
    "\\",
    "_",
    "-",
    ">",
    "<",
    "@",
    "`",
    ",",
    "?",
    "!",
)
_PERIOD = re.compile(r"\.(?!\d)")
_DIGIT_COMMA_DIGIT = re.compile(r"(?<=\d),+(?=\d)")
_PERIOD_CAP = int(re.UNICODE)  # the original passes this flag where ``count`` goes


_MARKS = frozenset("".join(_PUNCTUATION))


def _punctuation(text: str) -> str:
    if _MARKS.isdisjoint(text):
        return text
    out = text
    comma_in_number = _DIGIT_COMMA_DIGIT.search(text) is not None
    for mark in _PUNCTUATION:
        spaced = f"{mark} " in text or f" {mark}" in text
        out = out.replace(mark, "" if spaced or comma_in_number else " ")
    return out


@lru_cache(maxsize=1 << 16)
def normalise_answer(text: str, *, strict: bool = False) -> str:
    """An answer as the EvalAI processor leaves it (mmf ``EvalAIAnswerProcessor``); cached, as the same
    short answers recur across a dataset."""
    text = text.lower().replace(",", "").replace("?", "").replace("'s", " 's").strip()
    text = text.replace("\n", " ").replace("\t", " ").strip()
    text = _PERIOD.sub("", _punctuation(text), count=0 if strict else _PERIOD_CAP)
    words = [_NUMBER_WORDS.get(word, word) for word in text.lower().split()]
    return " ".join(_CONTRACTIONS.get(word, word) for word in words if word not in _ARTICLES)


def vqa_accuracy(prediction: str, answers: Sequence[str], *, strict: bool = False) -> float:
    """VQA accuracy of one prediction against exactly ten human answers."""
    if len(answers) != VQA_ANSWERS:
        raise ValueError(f"VQA accuracy needs {VQA_ANSWERS} human answers, got {len(answers)}")
    predicted = normalise_answer(prediction, strict=strict)
    matches = [normalise_answer(answer, strict=strict) == predicted for answer in answers]
    hits = sum(matches)
    # leaving out answer i: the others match ``hits - matches[i]`` times
    return sum(min(1.0, (hits - held_out) / 3) for held_out in matches) / len(answers)
