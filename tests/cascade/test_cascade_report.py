"""The report's sample viewer shows what a cascade recognised beside the answer (real Chromium)."""

from __future__ import annotations

import json
from pathlib import Path

from omnieval.reports.html import write_report
from omnieval.testing.browser import open_page
from omnieval.testing.runs import write_synthetic_run


def test_viewer_shows_recognised_text_beside_the_answer(tmp_path: Path) -> None:
    run = write_synthetic_run(tmp_path / "run", n_samples=20, skill=0.5, seed=1)
    steps = [
        {
            "kind": "audio",
            "name": "audio",
            "stage": "faster-whisper",
            "text": "Сколько будет два плюс три",
            "cached": True,
        },
        {"kind": "image", "name": "image", "stage": "tesseract", "text": "", "cached": False},
    ]
    record = {
        "task": "task_0",
        "sample_id": "cascaded",
        "state": "ok",
        "score": 1.0,
        "response": "5",
        "intermediates": steps,
    }
    silent = {
        "task": "task_0",
        "sample_id": "silent",
        "state": "ok",
        "score": 0.0,
        "response": "",
        "targets": ["5"],
    }
    with (run / "samples.jsonl").open("a", encoding="utf-8") as fh:
        fh.write(json.dumps(record, ensure_ascii=False) + "\n")
        fh.write(json.dumps(silent) + "\n")
    (run / "picture.png").write_bytes(b"\x89PNG")
    with (run / "samples.jsonl").open("a", encoding="utf-8") as fh:
        fh.write(
            json.dumps(
                record
                | {
                    "sample_id": "pictured",
                    "intermediates": [],
                    "media": [{"kind": "image", "path": "picture.png", "name": "image"}],
                }
            )
            + "\n"
        )
    results = json.loads((run / "results.json").read_text(encoding="utf-8"))
    (run / "results.json").write_text(json.dumps(results | {"blind": True}), encoding="utf-8")
    write_report(run)
    with open_page(run / "report.html", wait_for="body[data-viewer=ready]") as probe:
        page = probe.page
        page.fill("#f-search", "два плюс три")
        page.wait_for_function("document.querySelectorAll('article.sample').length === 1")
        card = page.inner_text("article.sample")
        texts = {}
        for sample in ("silent", "pictured"):
            page.fill("#f-search", sample)
            shown = "[...document.querySelectorAll('article.sample .sid')].map((e) => e.textContent).join()"
            page.wait_for_function(f"{shown} === {json.dumps(sample)}")
            texts[sample] = page.inner_text("article.sample")
        assert probe.console_errors == []
    assert "RECOGNISED BY THE CASCADE" in card.upper()
    assert "audio read by faster-whisper (cached): Сколько будет два плюс три" in card  # not "audio audio"
    assert (
        "image read by tesseract: [nothing recognised]" in card
    )  # an empty recognition is shown, never dropped
    assert "[empty: the model returned no text]" in texts["silent"]  # an empty answer was hidden
    assert "NOT SHOWN TO THE MODEL" in texts["pictured"].upper()  # a blind run's media are said to be unseen


def test_leaderboard_labels_a_cascade(tmp_path: Path) -> None:
    import subprocess
    import sys

    for name, doc in (
        ("c", {"model": "cascade/asr=whisper/hf/g", "model_kind": "cascade"}),
        ("m", {"model": "hf/g"}),
    ):
        (tmp_path / name).mkdir()
        (tmp_path / name / "results.json").write_text(json.dumps({**doc, "tasks": {}}), encoding="utf-8")
    cmd = [
        sys.executable,
        "-m",
        "omnieval",
        "leaderboard",
        str(tmp_path / "c"),
        str(tmp_path / "m"),
        "--scheme",
        "art",
    ]
    done = subprocess.run([*cmd, "--json"], capture_output=True, text=True, check=True)
    models = [row["model"] for row in json.loads(done.stdout)["rows"]]
    assert models == ["cascade/asr=whisper/hf/g [cascade]", "hf/g"]
