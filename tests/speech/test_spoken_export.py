"""``omnieval export eee`` / ``inspect``: a spoken answer's record carries its audio reference (path under
the run folder, hash, format, rate, duration, problem) into each per-sample export, which still validates."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import jsonschema
from inspect_ai.log import read_eval_log

from omnieval.interchange.eee import SCHEMA_DIR, write_eee
from omnieval.interchange.inspect_log import write_inspect_logs
from omnieval.runner import RunConfig
from omnieval.runs.evaluation import evaluate_config
from omnieval.store import typed_records
from omnieval.types.audio import AudioProblem, SpokenAudio


def _spoken_run(tmp_path: Path) -> tuple[Path, dict[str, SpokenAudio]]:
    """A two-sample text run whose records are then given spoken answers by hand (no recogniser runs):
    sample 0 heard, sample 1 silent."""
    task = tmp_path / "qa.jsonl"
    rows = [{"id": str(i), "question": "?", "answer": "да"} for i in (0, 1)]
    task.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    run = tmp_path / "run"
    evaluate_config(RunConfig(tasks=(f"jsonl:{task}",), model="baseline/random", output=run, quiet=True))
    spoken = {}
    cases: tuple[tuple[str, bytes, AudioProblem | None], ...] = (
        ("0", b"RIFF-heard", None),
        ("1", b"RIFF-silent", "silent"),
    )
    for sid, data, problem in cases:
        digest = hashlib.sha256(data).hexdigest()
        path = f"audio/{digest[:16]}.wav"
        (run / "audio").mkdir(exist_ok=True)
        (run / path).write_bytes(data)
        spoken[sid] = SpokenAudio(
            path=path,
            sha256=digest,
            format="wav",
            sample_rate=16000,
            duration_s=1.25 + int(sid),
            transcript=None if problem else "да",
            problem=problem,
        )
    text_records = typed_records(run / "samples.jsonl")
    records = [r.model_copy(update={"audio": spoken[r.sample_id]}) for r in text_records]
    (run / "samples.jsonl").write_text("".join(r.model_dump_json() + "\n" for r in records), encoding="utf-8")
    return run, spoken


def test_per_sample_exports_carry_the_spoken_answers_audio(tmp_path: Path) -> None:
    run, spoken = _spoken_run(tmp_path)
    expected = {
        sid: {
            "path": a.path,
            "sha256": a.sha256,
            "format": "wav",
            "sample_rate": 16000,
            "duration_s": a.duration_s,
            **({"problem": a.problem} if a.problem else {}),
        }
        for sid, a in spoken.items()
    }

    _, samples = write_eee(run, output=tmp_path / "eee", model_id="org/model")
    schema = json.loads((SCHEMA_DIR / "instance_level_eval.schema.json").read_text(encoding="utf-8"))
    lines = {x["sample_id"]: x for x in map(json.loads, samples.read_text(encoding="utf-8").splitlines())}
    for sid, line in lines.items():
        jsonschema.Draft7Validator(schema).validate(line)
        carried = {k.removeprefix("audio_"): v for k, v in line["metadata"].items() if k.startswith("audio_")}
        assert carried == {k: str(v) for k, v in expected[sid].items()}  # EEE metadata holds strings
    assert (run / lines["0"]["metadata"]["audio_path"]).read_bytes() == b"RIFF-heard"

    (log_path,) = write_inspect_logs(run, output=tmp_path / "inspect")
    log = read_eval_log(str(log_path))  # inspect_ai's own reader validates the log
    assert {s.id: s.metadata["audio"] for s in log.samples or []} == expected
