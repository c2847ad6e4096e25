"""`omnieval protect ...`: watermark a dataset, detect marks, measure a mark's impact, check leaks."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from omnieval.cli._common import check_run_dirs, fail, friendly_errors, print_json

if TYPE_CHECKING:
    from omnieval.protect.audioseal_mark import AudioSealMarker

__all__ = ["protect_app"]

protect_app = typer.Typer(
    help="Protect a benchmark: watermarks, detection, watermark impact, leak and contamination checks.",
    no_args_is_help=True,
)
Opt = typer.Option
Arg = typer.Argument


def _mount_msmia() -> None:
    from omnieval.cli.protect_msmia_cmd import msmia_app

    protect_app.add_typer(msmia_app, name="msmia")


_mount_msmia()
KINDS = ("image-visible", "image-invisible", "audio", "video")


@protect_app.command("mark")
def mark_command(
    kind: Annotated[str, Opt(help="image-visible | image-invisible | audio | video")],
    input_dir: Annotated[Path, Opt("--input", help="Dataset folder (media files and Parquet files).")],
    output_dir: Annotated[Path, Opt("--output", help="New folder: same relative paths, media marked.")],
    key: Annotated[
        str | None, Opt(help="Secret key of the invisible / audio mark (needed again to detect).")
    ] = None,
    text: Annotated[str | None, Opt(help="Visible mark text.")] = None,
    logo: Annotated[Path | None, Opt(help="Visible mark image (PNG with alpha).")] = None,
    position: Annotated[
        str, Opt(help="top-left | top-right | bottom-left | bottom-right | center")
    ] = "bottom-right",
    scale: Annotated[float, Opt(help="Visible mark width as a share of the image width.")] = 0.25,
    opacity: Annotated[float, Opt(help="Visible mark opacity, 0-1.")] = 0.5,
    font: Annotated[
        Path | None, Opt(help="TrueType font for --text (default: DejaVu Sans if installed).")
    ] = None,
    strength: Annotated[float, Opt(help="Invisible image mark amplitude in grey levels.")] = 4.0,
    snr_db: Annotated[float, Opt("--snr-db", help="Audio mark level below the signal, dB.")] = 32.0,
    audioseal_generator: Annotated[
        Path | None, Opt(help="AudioSeal generator checkpoint: mark audio with AudioSeal.")
    ] = None,
) -> None:
    """Mark every media file under --input into the same relative paths under --output."""
    from omnieval.protect.files import MarkSettings, mark_tree
    from omnieval.protect.visible import Overlay

    if kind not in KINDS:
        fail(f"unknown --kind {kind!r}; choose one of {', '.join(KINDS)}")
    with friendly_errors():
        overlay = None
        if text is not None or logo is not None:
            overlay = Overlay(
                text=text,
                logo=logo,
                position=position,  # type: ignore[arg-type]
                scale=scale,
                opacity=opacity,
                font=font,
            )
        audioseal = _audioseal(generator=audioseal_generator, detector=None)
        settings = MarkSettings(
            kind=kind,  # type: ignore[arg-type]
            key=key,
            overlay=overlay,
            strength=strength,
            snr_db=snr_db,
            audioseal=audioseal,
        )
        print_json(mark_tree(input_dir, output_dir, settings))


@protect_app.command("detect")
def detect_command(
    kind: Annotated[str, Opt(help="image-invisible | audio")],
    input_dir: Annotated[Path, Opt("--input", help="Folder (or one file) to check.")],
    key: Annotated[str | None, Opt(help="The key the mark was made with.")] = None,
    threshold: Annotated[float, Opt(help="Detection threshold on the calibrated z-score.")] = 4.0,
    audioseal_detector: Annotated[
        Path | None, Opt(help="AudioSeal detector checkpoint: detect AudioSeal marks.")
    ] = None,
    reference: Annotated[
        Path | None, Opt(help="The unmarked originals (same relative paths): adds each file's snr_db.")
    ] = None,
    json_out: Annotated[bool, Opt("--json", help="Print the JSON report (default: a summary).")] = False,
) -> None:
    """Check every media file for the keyed mark: {"n", "detected", "files": [...]}."""
    from omnieval.protect.files import detect_tree

    with friendly_errors():
        audioseal = _audioseal(generator=None, detector=audioseal_detector)
        report = detect_tree(
            input_dir, kind=kind, key=key, threshold=threshold, audioseal=audioseal, reference=reference
        )
    if json_out:
        print_json(report)
    else:
        method = (
            f"audioseal, p > {audioseal.threshold}" if audioseal is not None else f"keyed, z > {threshold}"
        )
        print(f"{report['detected']} of {report['n']} files carry the mark ({method})")


def _audioseal(*, generator: Path | None, detector: Path | None) -> AudioSealMarker | None:
    if generator is None and detector is None:
        return None
    from omnieval.protect.audioseal_mark import AudioSealMarker

    return AudioSealMarker(generator=generator, detector=detector)


@protect_app.command("ngram")
def ngram_command(
    tasks: Annotated[list[str], Opt("--tasks", help="Benchmark tasks (names, YAML paths or FORMAT:PATH).")],
    corpus: Annotated[
        list[Path], Opt("--corpus", help="Corpus files or folders (.txt, .jsonl, optionally .gz).")
    ],
    n: Annotated[int, Opt(help="Words per n-gram.")] = 13,
    threshold: Annotated[
        float, Opt(help="Share of a sample's n-grams found in the corpus that flags it.")
    ] = 0.5,
    text_field: Annotated[str, Opt(help="JSONL field holding a document's text.")] = "text",
    no_targets: Annotated[
        bool, Opt("--no-targets", help="Check questions and options only, not answers.")
    ] = False,
    output: Annotated[Path | None, Opt(help="Write the full per-sample report (JSON) here.")] = None,
    json_out: Annotated[bool, Opt("--json", help="Print the full report.")] = False,
) -> None:
    """n-gram overlap between a benchmark and a text corpus (streamed), with a per-sample report."""
    import json

    from omnieval.protect.contamination import iter_corpus, ngram_overlap
    from omnieval.runner.resolve import resolve_tasks

    with friendly_errors():
        resolved = resolve_tasks(tasks)
        pairs = ((task.name, sample) for task in resolved for sample in task.iter_samples())
        report = ngram_overlap(
            pairs,
            iter_corpus(corpus, text_field=text_field, carry_words=n - 1),
            n=n,
            threshold=threshold,
            include_targets=not no_targets,
        )
    if output is not None:
        output.write_text(json.dumps(report, ensure_ascii=False, indent=1), encoding="utf-8")
    if json_out:
        print_json(report)
    else:
        for name, stats in report["tasks"].items():
            print(
                f"{name}: {stats['contaminated']} of {stats['samples']} samples overlap the corpus "
                f"({stats['rate']:.1%})"
            )


@protect_app.command("impact")
def impact_command(
    run_clean: Annotated[Path, Arg(help="Run of the model on the clean data.")],
    run_marked: Annotated[Path, Arg(help="Run of the same model on the watermarked data.")],
    tolerance_pp: Annotated[float, Opt(help="Largest acceptable |difference| in percentage points.")] = 5.0,
    seed: Annotated[int, Opt(help="Bootstrap seed.")] = 0,
    json_out: Annotated[bool, Opt("--json")] = False,
) -> None:
    """Effect of a watermark on scores: paired 95 % CI of the difference per task, in points (MERA Table
    4)."""
    from omnieval.protect.impact import watermark_impact
    from omnieval.reports.compare import compare_runs

    check_run_dirs([run_clean, run_marked])
    with friendly_errors():
        report = watermark_impact(compare_runs([run_clean, run_marked], seed=seed), tolerance_pp=tolerance_pp)
    if json_out:
        print_json(report)
        return
    for warning in report["warnings"]:
        print(f"warning: {warning}")
    for note in report["notes"]:
        print(f"note: {note}")
    for name, row in report["tasks"].items():
        if not row["computed"]:
            print(f"{name}: not computed ({row['reason']})")
            continue
        lo, hi = row["ci95_pp"]
        verdict = "within" if row["within_tolerance"] else "OUTSIDE"
        print(
            f"{name}: {row['diff_pp']:+.2f} pp, 95% CI [{lo:+.2f}, {hi:+.2f}], |d| CI {row['abs_ci95_pp']} "
            f"({verdict} ±{tolerance_pp} pp; {row['test']} p={row['p_value']:.3g}, n={row['n_paired']})"
        )
