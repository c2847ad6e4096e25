"""Weights & Biases: the run's configuration, per-task scores as summary metrics, a sample table, the report.

One omnieval run folder is one W&B run: its id is kept in ``RUN/wandb_run_id``, so resuming the evaluation
resumes the same W&B run. ``WANDB_MODE=offline`` (W&B's own setting) writes it under ``RUN/wandb/``.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar

from omnieval.hooks.base import HookInfo, RunHook
from omnieval.hooks.tables import SampleRows, summary_metrics

if TYPE_CHECKING:
    from omnieval.types.files import ResultsFile

__all__ = ["WandbHook"]

RUN_ID_FILE = "wandb_run_id"


class WandbHook(RunHook):
    """``--log-to wandb``; the project is ``WANDB_PROJECT`` when set, else ``omnieval``."""

    requires: ClassVar[str | None] = "wandb"
    extra: ClassVar[str | None] = "wandb"

    def __init__(self) -> None:
        self.run: Any = None
        self.rows = SampleRows()

    def run_started(self, info: HookInfo) -> None:
        import wandb

        id_file = info.run_dir / RUN_ID_FILE
        run_id = id_file.read_text(encoding="utf-8").strip() if id_file.exists() else None
        self.run = wandb.init(
            project=os.environ.get("WANDB_PROJECT") or "omnieval",
            id=run_id,
            resume="allow",
            name=info.run_dir.name,
            dir=os.environ.get("WANDB_DIR") or str(info.run_dir),
            config=info.config,
            job_type="evaluation",
        )
        id_file.write_text(self.run.id + "\n", encoding="utf-8")

    def record(
        self, record: dict[str, Any], *, prompt: str | None = None, media: tuple[Any, ...] = ()
    ) -> None:
        self.rows.add(record, prompt=prompt, media=media)

    def task_finished(self, task: str, states: dict[str, int]) -> None:
        self.run.log({f"{task}/finished/{state}": n for state, n in states.items()})

    def run_finished(self, run_dir: Path, results: ResultsFile) -> None:
        import wandb

        self.run.config.update({"manifest": _manifest(run_dir)}, allow_val_change=True)
        self.run.summary.update(summary_metrics(results))
        self.run.log({"samples": self._table(wandb, run_dir)})
        artifact = wandb.Artifact(f"omnieval-report-{self.run.id}", type="evaluation-report")
        for name in ("report.html", "results.json", "manifest.json"):
            if (run_dir / name).exists():
                artifact.add_file(str(run_dir / name))
        self.run.log_artifact(artifact)
        self.run.finish()

    def run_failed(self, run_dir: Path, error: str) -> None:
        if self.run is not None:
            self.run.summary.update({"error": error})
            self.run.finish(exit_code=1)

    def _table(self, wandb: Any, run_dir: Path) -> Any:
        media_types = {"image": wandb.Image, "audio": wandb.Audio, "video": wandb.Video}
        table = wandb.Table(columns=[*SampleRows.COLUMNS, "media"])
        for row, media in self.rows.rows(run_dir):
            cells = [media_types[m.kind](m.path) for m in media if m.kind in media_types and m.path]
            table.add_data(*row, cells[0] if len(cells) == 1 else (cells or None))
        return table


def _manifest(run_dir: Path) -> dict[str, Any]:
    """manifest.json as written, once it validates (a bad one names the file and the field)."""
    from omnieval.types.files import ManifestFile, load_file

    path = run_dir / "manifest.json"
    if not path.exists():
        return {}
    manifest: ManifestFile = load_file(path, ManifestFile)
    return manifest.model_dump(mode="json", exclude_unset=True)
