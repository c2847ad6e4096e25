"""`omnieval protect ...`: watermark a dataset, detect marks, measure a mark's impact, check leaks."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from omnieval.cli._common import fail, friendly_errors, print_json

__all__ = ["protect_app"]

protect_app = typer.Typer(
    help="Protect a benchmark: watermarks, detection, watermark impact, leak and contamination checks.",
    no_args_is_help=True,
)
Opt = typer.Option
Arg = typer.Argument
KINDS = ("image-visible", "image-invisible", "audio", "video")


@protect_app.command("mark")
def mark_command(
    kind: Annotated[str, Opt(help="image-visible | image-invisible | audio | video")],
    input_dir: Annotated[Path, Opt("--input", help="Dataset folder (media files and Parquet files).")],
    output_dir: Annotated[Path, Opt("--output", help="New folder: same relative paths, media marked.")],
    key: Annotated[str | None, Opt(help="Secret key of the invisible / audio mark (needed again to detect).")] = None,
    text: Annotated[str | None, Opt(help="Visible mark text.")] = None,
    logo: Annotated[Path | None, Opt(help="Visible mark image (PNG with alpha).")] = None,
    position: Annotated[str, Opt(help="top-left | top-right | bottom-left | bottom-right | center")] = "bottom-right",
    scale: Annotated[float, Opt(help="Visible mark width as a share of the image width.")] = 0.25,
    opacity: Annotated[float, Opt(help="Visible mark opacity, 0-1.")] = 0.5,
    font: Annotated[Path | None, Opt(help="TrueType font for --text (default: DejaVu Sans if installed).")] = None,
    strength: Annotated[float, Opt(help="Invisible image mark amplitude in grey levels.")] = 4.0,
    snr_db: Annotated[float, Opt("--snr-db", help="Audio mark level below the signal, dB.")] = 20.0,
) -> None:
    """Mark every media file under --input into the same relative paths under --output."""
    from omnieval.protect.files import MarkSettings, mark_tree
    from omnieval.protect.visible import Overlay

    if kind not in KINDS:
        fail(f"unknown --kind {kind!r}; choose one of {', '.join(KINDS)}")
    with friendly_errors():
        overlay = None
        if text is not None or logo is not None:
            overlay = Overlay(text=text, logo=logo, position=position, scale=scale, opacity=opacity, font=font)  # type: ignore[arg-type]
        settings = MarkSettings(kind=kind, key=key, overlay=overlay, strength=strength, snr_db=snr_db)  # type: ignore[arg-type]
        print_json(mark_tree(input_dir, output_dir, settings))


@protect_app.command("detect")
def detect_command(
    kind: Annotated[str, Opt(help="image-invisible | audio")],
    input_dir: Annotated[Path, Opt("--input", help="Folder (or one file) to check.")],
    key: Annotated[str, Opt(help="The key the mark was made with.")],
    threshold: Annotated[float, Opt(help="Detection threshold on the calibrated z-score.")] = 4.0,
    json_out: Annotated[bool, Opt("--json", help="Print the JSON report (default: a summary).")] = False,
) -> None:
    """Check every media file for the keyed mark: {"n", "detected", "files": [...]}."""
    from omnieval.protect.files import detect_tree

    with friendly_errors():
        report = detect_tree(input_dir, kind=kind, key=key, threshold=threshold)
    if json_out:
        print_json(report)
    else:
        print(f"{report['detected']} of {report['n']} files carry the mark (z > {threshold})")
