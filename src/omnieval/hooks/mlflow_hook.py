"""MLflow: the run's configuration as params, per-task metrics, the run folder's files, a sample table.

One omnieval run folder is one MLflow run: its id is kept in ``RUN/mlflow_run_id``, so resuming the
evaluation continues the same MLflow run. The tracking server and experiment are MLflow's own settings
(``MLFLOW_TRACKING_URI``, ``MLFLOW_EXPERIMENT_NAME``; default experiment ``omnieval``).
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar

from omnieval.hooks.base import HookInfo, RunHook
from omnieval.hooks.tables import SampleRows, summary_metrics

if TYPE_CHECKING:
    from omnieval.types.files import ResultsFile

__all__ = ["MlflowHook"]

RUN_ID_FILE = "mlflow_run_id"
_SKIPPED = (".sqlite", ".tmp")
"""Run-folder files not uploaded: the response caches (large, and only useful to this machine)."""


def _params(config: dict[str, Any], prefix: str = "") -> dict[str, str]:
    """Nested configuration flattened to ``a.b`` keys; MLflow params are strings."""
    out: dict[str, str] = {}
    for key, value in config.items():
        if isinstance(value, dict) and value:
            out |= _params(value, f"{prefix}{key}.")
        else:
            out[f"{prefix}{key}"] = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)
    return out


class MlflowHook(RunHook):
    """``--log-to mlflow``."""

    requires: ClassVar[str | None] = "mlflow"
    extra: ClassVar[str | None] = "mlflow"

    def __init__(self) -> None:
        self.client: Any = None
        self.run_id: str | None = None
        self.rows = SampleRows()

    def run_started(self, info: HookInfo) -> None:
        from mlflow.tracking import MlflowClient

        self.client = MlflowClient()
        id_file = info.run_dir / RUN_ID_FILE
        if id_file.exists():
            self.run_id = id_file.read_text(encoding="utf-8").strip()
            self.client.update_run(self.run_id, status="RUNNING")
            return
        name = os.environ.get("MLFLOW_EXPERIMENT_NAME") or "omnieval"
        experiment = self.client.get_experiment_by_name(name)
        experiment_id = experiment.experiment_id if experiment else self.client.create_experiment(name)
        run = self.client.create_run(
            experiment_id, run_name=info.run_dir.name, tags={"omnieval.model": info.config["model"]}
        )
        self.run_id = run.info.run_id
        id_file.write_text(self.run_id + "\n", encoding="utf-8")
        from mlflow.entities import Param

        self.client.log_batch(
            self.run_id, params=[Param(k, v[:6000]) for k, v in _params(info.config).items()]
        )

    def record(
        self, record: dict[str, Any], *, prompt: str | None = None, media: tuple[Any, ...] = ()
    ) -> None:
        self.rows.add(record, prompt=prompt, media=media)

    def run_finished(self, run_dir: Path, results: ResultsFile) -> None:
        import mlflow
        from mlflow.entities import Metric

        summary = summary_metrics(results)
        metrics = {k: float(v) for k, v in summary.items() if isinstance(v, int | float)}
        now = int(os.path.getmtime(run_dir / "results.json") * 1000)
        self.client.log_batch(self.run_id, metrics=[Metric(k, v, now, 0) for k, v in metrics.items()])
        for path in sorted(run_dir.iterdir()):
            if path.is_file() and not path.name.endswith(_SKIPPED):
                self.client.log_artifact(self.run_id, str(path), artifact_path="run")
        rows = [cells for cells, _ in self.rows.rows(run_dir)]
        table = {column: [row[i] for row in rows] for i, column in enumerate(SampleRows.COLUMNS)}
        mlflow.log_table(data=table, artifact_file="samples.json", run_id=self.run_id)
        self.client.set_terminated(self.run_id, status="FINISHED")

    def run_failed(self, run_dir: Path, error: str) -> None:
        if self.run_id is not None:
            self.client.set_tag(self.run_id, "omnieval.error", error[:5000])
            self.client.set_terminated(self.run_id, status="FAILED")
