"""Video-MME's layout (``videomme/test-*.parquet``; the videos unzipped to ``DIR/data/<videoID>.mp4``),
the authors' prompt without subtitles, and breakdowns by duration, domain and task type.

A question whose video is not in ``DIR/data`` (the ``videos_chunked_*.zip`` not unzipped: scoring recorded
answers needs only the Parquet) is asked without it, marked ``video_missing`` in its metadata, and a
warning names the folder once per copy.
"""

from __future__ import annotations

import logging
from pathlib import Path
from typing import Any

from omnieval.sources.hub import HubBenchmark, HubRow, prompted_spec, register_hub_benchmark, reworded
from omnieval.types import MediaRef, MetricRef, Sample, TaskSpec

__all__ = ["BENCH", "INSTRUCTION", "video_path"]

INSTRUCTION = (
    "Select the best answer to the following multiple-choice question based on the video. "
    "Respond with only the letter (A, B, C, or D) of the correct option."
)
VARIANTS = (
    reworded(
        "letter",
        (
            INSTRUCTION,
            "Watch the video and answer the multiple-choice question below. "
            "Reply with the letter (A, B, C, or D) of the correct option only.",
        ),
    ),
    reworded(
        "which",
        (
            INSTRUCTION,
            "Which option below best answers the question about the video? "
            "Respond with its letter (A, B, C, or D).",
        ),
    ),
)
"""Our alternative instructions (``?prompts=`` variants; the authors publish only the default)."""
_SUFFIXES = (".mp4", ".MP4", ".mkv", ".webm")
_log = logging.getLogger(__name__)
_warned: set[Path] = set()


def video_path(root: Path, video: str) -> Path | None:
    """Where the unzipped ``videos_chunked_*.zip`` put the video (``data/<videoID>.mp4``); ``None`` when
    it is not there."""
    for suffix in _SUFFIXES:
        candidate = root / "data" / f"{video}{suffix}"
        if candidate.exists():
            return candidate
    return None


def _video(root: Path, video: str) -> tuple[MediaRef, ...]:
    path = video_path(root, video)
    if path is not None:
        return (MediaRef(kind="video", name="video", path=str(path)),)
    if root not in _warned:
        _warned.add(root)
        _log.warning(
            "videomme: no video %r in %s (unzip videos_chunked_*.zip there): questions without their video "
            "are asked as text, marked video_missing",
            video,
            root / "data",
        )
    return ()


def _sample(row: HubRow) -> Sample:
    sample_id = BENCH.sample_id(row)
    options = row.get("options")
    if not isinstance(options, list) or len(options) != 4:
        raise row.error("options must be a list of 4 ('A. …' … 'D. …')", field="options", sample_id=sample_id)
    answer = str(row.get("answer") or "").strip()
    if answer not in ("A", "B", "C", "D"):
        raise row.error(f"answer {answer!r} is not A, B, C or D", field="answer", sample_id=sample_id)
    video = str(row.get("videoID") or "")
    if not video:
        raise row.error("videoID is empty", field="videoID", sample_id=sample_id)
    media = _video(row.file.parent.parent, video)
    text = "\n".join([INSTRUCTION, str(row.get("question")), *map(str, options), "The best answer is:"])
    return Sample(
        id=sample_id,
        input=text,
        targets=(answer,),
        choices=tuple(str(o) for o in options),
        media=media,
        metadata={
            "duration": row.get("duration"),
            "domain": row.get("domain"),
            "sub_category": row.data.get("sub_category"),
            "task_type": row.get("task_type"),
            "video_id": row.data.get("video_id"),
            **({} if media else {"video_missing": True}),
        },
    )


def _spec() -> TaskSpec:
    return prompted_spec(
        "videomme",
        description="Video-MME (test, no subtitles): the authors' letter extraction, correct over answered",
        modality="video",
        language="en",
        parser="videomme.letter",
        metric=MetricRef(name="videomme.acc", aggregate="videomme.over_answered"),
        breakdowns=("duration", "domain", "task_type"),
        max_tokens=64,
        source="lmms-lab/Video-MME",
        score="acc",
        metadata={"score_from_dict": True},
    )


_FEATURES = {
    name: {"dtype": "string", "_type": "Value"}
    for name in (
        "video_id",
        "duration",
        "domain",
        "sub_category",
        "url",
        "videoID",
        "question_id",
        "task_type",
        "question",
        "answer",
    )
} | {"options": {"feature": {"dtype": "string", "_type": "Value"}, "_type": "Sequence"}}


def _example(position: int, config: str | None) -> dict[str, Any]:
    video = position // 3
    return {
        "video_id": f"{video + 1:03d}",
        "duration": ("short", "medium", "long")[video % 3],
        "domain": ("Knowledge", "Sports Competition")[video % 2],
        "sub_category": "Humanity & History",
        "url": f"https://www.youtube.com/watch?v=synthetic{video}",
        "videoID": f"synthetic{video}",
        "question_id": f"{video + 1:03d}-{position % 3 + 1}",
        "task_type": ("Counting Problem", "OCR Problems")[position % 2],
        "question": "How many?",
        "options": ["A. One.", "B. Two.", "C. Three.", "D. Four."],
        "answer": "ABCD"[position % 4],
    }


BENCH = register_hub_benchmark(
    HubBenchmark(
        name="videomme",
        variants=VARIANTS,
        dataset="lmms-lab/Video-MME",
        split="test",
        columns=(
            "duration",
            "domain",
            "videoID",
            "question_id",
            "task_type",
            "question",
            "options",
            "answer",
        ),
        optional_columns=("video_id", "sub_category"),
        spec=_spec,
        to_sample=_sample,
        id_column="question_id",
        configs=("videomme",),
        modality="video",
        size=2700,
        licence="academic research only (Video-MME terms); videos belong to their owners",
        homepage="https://video-mme.github.io/",
        scorer="thanku-all/parse_answer@afd52cfe3dde5b3685e0d4f760c10c756860c758:eval_your_results.py "
        "(linked from BradyFU/Video-MME's README; the repo's own copy, last at 4e7566d, lacks 4 prefixes)",
        docs="docs/benchmarks/hub/videomme.md",
        features=_FEATURES,
        example_row=_example,
    )
)
