"""The home page's tasks by modality come from the stored specs, read once per benchmark version."""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace

from omnieval.platform.services.overview import modality_of_tasks
from omnieval.types import TaskSpec
from tests.platform.conftest import make_settings


def test_specs_are_read_once_per_benchmark_version(tmp_path: Path) -> None:
    settings = make_settings(tmp_path / "data")
    folder = Path(settings.answers) / "bench"
    folder.mkdir(parents=True)

    def spec(name: str, modalities: list[str]) -> None:
        text = TaskSpec(name=name, modalities=modalities).model_dump_json()  # type: ignore[arg-type]
        (folder / f"{name}.spec.json").write_text(text, encoding="utf-8")

    spec("look", ["text", "image"])
    spec("listen", ["audio"])
    bench = SimpleNamespace(name="bench", board_version=1, tasks=["look", "listen", "plain"])
    first = modality_of_tasks(settings, bench)  # type: ignore[arg-type]
    assert first == {"text": ["plain"], "image": ["look"], "audio": ["listen"]}
    spec("plain", ["video"])
    assert modality_of_tasks(settings, bench) == first, "same version: the cached answer"  # type: ignore[arg-type]
    bench.board_version = 2
    assert modality_of_tasks(settings, bench)["video"] == ["plain"], "a new version reads the specs again"  # type: ignore[arg-type]
