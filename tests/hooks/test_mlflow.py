"""``--log-to mlflow`` against a local file store and against a local ``mlflow server`` the test starts."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import pytest

pytest.importorskip("mlflow")


def _run(out: Path, qa_task: Path, answers: Path, uri: str) -> dict:
    # MLflow 3 refuses its file store unless opted in (it recommends a database); the issue asks for it
    env = {
        **os.environ,
        "PYTHONPATH": os.environ.get("PYTHONPATH", ""),
        "MLFLOW_TRACKING_URI": uri,
        "MLFLOW_ALLOW_FILE_STORE": "true",
    }
    args = ["run", "--tasks", f"jsonl:{qa_task}", "--model", f"replay/{answers}", "--output", str(out)]
    proc = subprocess.run(
        [sys.executable, "-m", "omnieval", *args, "--log-to", "mlflow", "--quiet"],
        capture_output=True,
        text=True,
        timeout=300,
        env=env,
    )
    assert proc.returncode == 0, proc.stderr
    results = json.loads((out / "results.json").read_text())
    assert results["hooks"]["mlflow"]["failures"] == 0, results["hooks"]
    return results


def _check(uri: str, out: Path, results: dict) -> None:
    from mlflow.tracking import MlflowClient

    client = MlflowClient(tracking_uri=uri)
    run_id = (out / "mlflow_run_id").read_text().strip()
    run = client.get_run(run_id)
    assert run.info.status == "FINISHED"
    assert run.data.metrics["qa/score"] == pytest.approx(0.7) and run.data.metrics["qa/states/ok"] == 10
    assert run.data.metrics["qa/ci95_low"] == pytest.approx(results["tasks"]["qa"]["ci95"][0])
    assert run.data.params["model"].startswith("replay/") and run.data.params["seed"] == "1234"
    names = {a.path for a in client.list_artifacts(run_id, "run")}
    assert {"run/results.json", "run/samples.jsonl", "run/report.html", "run/manifest.json"} <= names
    assert not any(n.endswith(".sqlite") for n in names)
    table = json.loads(
        Path(client.download_artifacts(run_id, "samples.json", str(out.parent / "dl"))).read_text()
    )
    rows = {
        r[table["columns"].index("sample_id")]: dict(zip(table["columns"], r, strict=True))
        for r in table["data"]
    }
    assert len(rows) == 10 and rows["3"]["response"] == "6" and rows["3"]["score"] == 1.0
    assert rows["8"]["score"] == 0.0 and "3+3" in rows["3"]["prompt"]


def test_mlflow_file_store(tmp_path: Path, qa_task: Path, replay_answers: Path, monkeypatch) -> None:
    monkeypatch.setenv("MLFLOW_ALLOW_FILE_STORE", "true")
    uri = (tmp_path / "mlruns").as_uri()
    out = tmp_path / "run"
    _check(uri, out, _run(out, qa_task, replay_answers, uri))


@pytest.fixture
def mlflow_server(tmp_path: Path) -> Iterator[str]:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    cmd = [
        sys.executable,
        "-m",
        "mlflow",
        "server",
        "--host",
        "127.0.0.1",
        "--port",
        str(port),
        "--workers",
        "1",
        "--backend-store-uri",
        f"sqlite:///{tmp_path / 'mlflow.db'}",
        "--artifacts-destination",
        str(tmp_path / "artifacts"),
    ]
    proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 120
        while True:
            try:
                urllib.request.urlopen(f"{url}/health", timeout=2)
                break
            except OSError:
                if proc.poll() is not None or time.monotonic() > deadline:
                    pytest.fail(f"mlflow server did not start: {proc.stderr.read() if proc.stderr else ''}")
                time.sleep(0.5)
        yield url
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=20)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


@pytest.mark.network_server
def test_mlflow_local_server(tmp_path: Path, qa_task: Path, replay_answers: Path, mlflow_server: str) -> None:
    out = tmp_path / "run"
    _check(mlflow_server, out, _run(out, qa_task, replay_answers, mlflow_server))
