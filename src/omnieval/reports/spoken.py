"""The report's spoken answers: a player for every one, the transcript beside the reference with the
differing words marked, and the distributions of CER, duration and time to first audio."""

from __future__ import annotations

import difflib
import os
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from markupsafe import Markup, escape

__all__ = ["marked_difference", "spoken_charts", "spoken_rows"]


def marked_difference(reference: str, transcript: str) -> tuple[Markup, Markup]:
    """(reference, transcript) as HTML, words compared after the spoken-text normalisation: words only
    in the reference in ``<del>``, only in the transcript in ``<ins>``."""
    from omnieval.metrics.library.speech import language_of, normalize_spoken

    lang = language_of(reference)
    ref, hyp = (
        normalize_spoken(reference, language=lang).split(),
        normalize_spoken(transcript, language=lang).split(),
    )
    left: list[str] = []
    right: list[str] = []
    for op, i1, i2, j1, j2 in difflib.SequenceMatcher(a=ref, b=hyp, autojunk=False).get_opcodes():
        a, b = " ".join(ref[i1:i2]), " ".join(hyp[j1:j2])
        if op == "equal":
            left.append(str(escape(a)))
            right.append(str(escape(b)))
            continue
        if a:
            left.append(f"<del>{escape(a)}</del>")
        if b:
            right.append(f"<ins>{escape(b)}</ins>")
    return Markup(" ".join(left)), Markup(" ".join(right))


def spoken_rows(
    records: Iterable[dict[str, Any]], *, run_dir: Path, report_dir: Path
) -> list[dict[str, Any]]:
    """One row per record with a spoken answer (the file's path relative to the report's folder)."""
    rows = []
    for rec in records:
        audio = rec.get("audio")
        if not isinstance(audio, dict):
            continue
        src = os.path.relpath(run_dir / audio["path"], report_dir).replace(os.sep, "/")
        targets = rec.get("targets") or []
        reference = str(targets[0]) if targets else ""
        transcript = audio.get("transcript") or ""
        ref_html, hyp_html = (
            marked_difference(reference, transcript) if reference else (Markup(""), Markup(""))
        )
        measures = audio.get("measures") or {}
        rows.append(
            {
                "task": rec.get("task"),
                "sample_id": rec.get("sample_id"),
                "state": rec.get("state"),
                "src": src,
                "reference": ref_html,
                "transcript": hyp_html if reference else transcript,
                "cer": (rec.get("metrics") or {}).get("cer"),
                "duration_s": audio.get("duration_s"),
                "first_audio_s": measures.get("first_audio_s"),
                "problem": audio.get("problem"),
                "detail": audio.get("detail"),
            }
        )
    return rows


def spoken_charts(rows: list[dict[str, Any]]) -> dict[str, Any]:
    """Histograms (plotly figure dicts) of CER, duration and time to first audio, one trace per task."""
    charts = {}
    for key, title in (
        ("cer", "CER"),
        ("duration_s", "duration, s"),
        ("first_audio_s", "time to first audio, s"),
    ):
        traces: dict[str, list[float]] = {}
        for row in rows:
            if isinstance(row.get(key), int | float) and row["state"] == "ok":
                traces.setdefault(row["task"], []).append(row[key])
        if traces:
            charts[f"spoken_{key}"] = {
                "data": [
                    {"type": "histogram", "name": t, "x": xs, "opacity": 0.7} for t, xs in traces.items()
                ],
                "layout": {"title": {"text": title}, "barmode": "overlay", "height": 260},
            }
    return charts
