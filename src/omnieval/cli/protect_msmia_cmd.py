"""`omnieval protect msmia features | train | detect`: leak detection by membership inference."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated

import typer

from omnieval.cli._common import friendly_errors, print_json

__all__ = ["msmia_app"]

msmia_app = typer.Typer(
    help="Membership inference (MSMIA): did a model train on the benchmark?", no_args_is_help=True
)
Opt = typer.Option


@msmia_app.command("features")
def features_command(
    model: Annotated[str, Opt(help="hf/PATH of the model to probe (text, image, audio or video model).")],
    tasks: Annotated[list[str], Opt("--tasks", help="Benchmark tasks (names, YAML paths or FORMAT:PATH).")],
    embedder: Annotated[str, Opt(help="hf/PATH (local encoder) or openai/NAME (with --embedder-base-url).")],
    output: Annotated[Path, Opt(help="Feature file to write (JSONL).")],
    embedder_base_url: Annotated[
        str | None, Opt(help="Base URL of an openai/ embedder (default OPENAI_BASE_URL).")
    ] = None,
    fill_model: Annotated[
        str | None, Opt(help="Local masked-LM folder for the masking perturbation.")
    ] = None,
    k_per_kind: Annotated[int, Opt(help="Neighbours per perturbation kind (the paper: 6).")] = 6,
    seed: Annotated[int, Opt(help="Seed of the perturbations (use the same for every model).")] = 0,
    limit: Annotated[int | None, Opt(min=1, help="At most this many items per task.")] = None,
    no_targets: Annotated[
        bool, Opt("--no-targets", help="Probe the question text only, not the answers.")
    ] = False,
) -> None:
    """Per-item loss and embedding gaps between each text and its K perturbed neighbours."""
    import itertools

    from omnieval.backends.base import BackendOptions, create_backend
    from omnieval.backends.embeddings import create_embedder
    from omnieval.errors import ConfigError
    from omnieval.protect.contamination import sample_text
    from omnieval.protect.msmia import extract_features
    from omnieval.protect.msmia.io import write_features
    from omnieval.protect.msmia.perturb import masked_lm_filler
    from omnieval.runner.resolve import resolve_tasks

    with friendly_errors():
        if not model.startswith("hf/"):
            raise ConfigError("MSMIA needs per-token losses: --model must be a local hf/PATH model")
        embed = create_embedder(embedder, base_url=embedder_base_url).embed
        backend = create_backend(model, options=BackendOptions())
        fill = masked_lm_filler(fill_model) if fill_model else None
        items = (
            (task.name, sample, sample_text(sample, include_targets=not no_targets))
            for task in resolve_tasks(tasks)
            for sample in itertools.islice(task.iter_samples(), limit)
        )
        features = extract_features(
            items,
            losses=backend.text_losses,  # type: ignore[attr-defined]
            embed=embed,
            k_per_kind=k_per_kind,
            seed=seed,
            fill=fill,
        )
        write_features(output, features)
    print(f"wrote {len(features)} items to {output}")


@msmia_app.command("train")
def train_command(
    base: Annotated[Path, Opt(help="Features of the base model (label 0).")],
    leaked: Annotated[
        Path, Opt(help="Features of the leaked (fine-tuned) copy on the same items (label 1).")
    ],
    output: Annotated[Path, Opt(help="Folder to save the detector in.")],
    seed: Annotated[int, Opt()] = 0,
) -> None:
    """Train the detector on base-vs-leaked features."""
    from omnieval.protect.msmia import train_detector
    from omnieval.protect.msmia.io import read_features

    with friendly_errors():
        detector = train_detector(read_features(base), read_features(leaked), seed=seed)
        detector.save(output)
    print_json({"saved": str(output), **detector.meta})


@msmia_app.command("detect")
def detect_command(
    detector_dir: Annotated[Path, Opt("--detector", help="A folder written by `msmia train`.")],
    features: Annotated[Path, Opt(help="Features of the model under test.")],
    labels: Annotated[Path | None, Opt(help="JSONL {task, sample_id, leaked: 0|1}: adds AUC-ROC.")] = None,
    json_out: Annotated[bool, Opt("--json")] = False,
) -> None:
    """Per-item and dataset-level leak probabilities (and AUC-ROC when labels are given)."""
    from omnieval.errors import SourceError
    from omnieval.protect.msmia import Detector, auc_roc
    from omnieval.protect.msmia.io import read_features

    with friendly_errors():
        detector, items = Detector.load(detector_dir), read_features(features)
        rows = [
            {"task": i.task, "sample_id": i.sample_id, "leak_probability": round(detector.item_score(i), 6)}
            for i in items
        ]
        report: dict[str, object] = {
            "n": len(rows),
            "dataset_leak_probability": round(detector.dataset_probability(items), 6),
            "items": rows,
        }
        if labels is not None:
            truth = {
                (d["task"], str(d["sample_id"])): int(d["leaked"])
                for d in map(json.loads, labels.read_text(encoding="utf-8").splitlines())
                if d
            }
            missing = [r for r in rows if (r["task"], r["sample_id"]) not in truth]
            if missing:
                raise SourceError(
                    f"{labels}: no label for item {missing[0]['task']}/{missing[0]['sample_id']}"
                )
            report["auc_roc"] = round(
                auc_roc(
                    [float(r["leak_probability"]) for r in rows],  # type: ignore[arg-type]
                    [truth[(str(r["task"]), str(r["sample_id"]))] for r in rows],
                ),
                6,
            )
    if json_out:
        print_json(report)
    else:
        print(
            f"dataset leak probability {report['dataset_leak_probability']:.3f} over {report['n']} items"
            + (f"; AUC-ROC {report['auc_roc']:.3f}" if "auc_roc" in report else "")
        )
