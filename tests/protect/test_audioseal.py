"""AudioSeal's real load/embed/detect code path with locally built weights of its architecture."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from typer.testing import CliRunner

from omnieval.cli.app import app

audioseal = pytest.importorskip("audioseal")
torch = pytest.importorskip("torch")


def _checkpoint(card: str, out: Path) -> Path:
    """Random weights for a published model card, saved the way the released checkpoints are."""
    from audioseal import AudioSeal
    from audioseal.builder import (
        AudioSealDetectorConfig,
        AudioSealWMConfig,
        create_detector,
        create_generator,
    )
    from audioseal.loader import load_local_model_config
    from omegaconf import OmegaConf

    config = OmegaConf.to_container(load_local_model_config(card))
    config.pop("checkpoint")
    torch.manual_seed(0)
    if "detector" in card:
        model = create_detector(AudioSeal.parse_config(config, config_type=AudioSealDetectorConfig))
    else:
        model = create_generator(AudioSeal.parse_config(config, config_type=AudioSealWMConfig))
    state = {
        k.replace(".inner_conv.", "."): v for k, v in model.state_dict().items()
    }  # pre-TorchScript key names
    torch.save({"xp.cfg": config, "model": state}, out)
    return out


def test_mark_and_detect_through_audioseal(media_dir: Path, tmp_path: Path) -> None:
    generator = _checkpoint("audioseal_wm_16bits", tmp_path / "generator.pth")
    detector = _checkpoint("audioseal_detector_16bits", tmp_path / "detector.pth")
    runner = CliRunner()
    out = tmp_path / "marked"
    result = runner.invoke(
        app,
        [
            "protect",
            "mark",
            "--kind",
            "audio",
            "--input",
            str(media_dir),
            "--output",
            str(out),
            "--audioseal-generator",
            str(generator),
        ],
    )
    assert result.exit_code == 0, result.output
    import soundfile

    before, rate = soundfile.read(media_dir / "audio" / "q1.wav", dtype="float32")
    after, rate_after = soundfile.read(out / "audio" / "q1.wav", dtype="float32")
    assert rate_after == rate and after.shape == before.shape
    assert 0 < float(np.abs(after - before).max()) < 1.0  # the generator added its (random-weight) watermark
    result = runner.invoke(
        app,
        [
            "protect",
            "detect",
            "--kind",
            "audio",
            "--input",
            str(out),
            "--audioseal-detector",
            str(detector),
            "--json",
        ],
    )
    assert result.exit_code == 0, result.output
    report = json.loads(result.output)
    assert set(report) == {"n", "detected", "files"} and report["n"] == 1
    row = report["files"][0]
    assert row["path"] == "audio/q1.wav" and 0.0 <= row["confidence"] <= 1.0
    assert row["detected"] == (row["confidence"] > 0.5)
    summary = runner.invoke(
        app,
        ["protect", "detect", "--kind", "audio", "--input", str(out), "--audioseal-detector", str(detector)],
    )
    assert summary.exit_code == 0 and "(audioseal, p > 0.5)" in summary.output, summary.output


def test_missing_checkpoint_is_a_clear_error(media_dir: Path, tmp_path: Path) -> None:
    result = CliRunner().invoke(
        app,
        [
            "protect",
            "detect",
            "--kind",
            "audio",
            "--input",
            str(media_dir),
            "--audioseal-detector",
            str(tmp_path / "nope.pth"),
        ],
    )
    assert result.exit_code != 0 and "nope.pth" in result.output and "never downloaded" in result.output
