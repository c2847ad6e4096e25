"""One upload's memory at the caps, measured as process RSS in a fresh process (issue 20.4).

``measure()`` builds an honest MERA submission whose JSON fills the unpacked cap, then runs this module
as a child: it copies, checks and validates the upload, then scores it, and reports its RSS after imports
and the high-water mark (``ru_maxrss``) after each stage. Used by ``benchmarks/platform_load.py --memory``
and the test of the bound.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
import zipfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def honest_zip_at_cap(root: Path, tasks: dict[str, int], target: int) -> bytes:
    """A valid MERA zip answering every sample whose JSON totals about ``target`` bytes (long Russian answers
    of random words: they compress about 5x, under the ratio cap)."""
    import io
    import random
    import zipfile

    from omnieval.benchmarks.mera.catalog import catalogue
    from tests.platform.conftest import answers_of

    answers = {name: answers_of(root, name) for name in tasks}
    per_answer = max(1, target // sum(map(len, answers.values())))
    words = [
        "ответ",
        "модель",
        "картинка",
        "звук",
        "видео",
        "вопрос",
        "число",
        "цвет",
        "кошка",
        "дом",
        "река",
        "город",
    ]
    text = " ".join(random.choices(words, k=(1 << 20) // 7))  # 1 MiB apart: beyond DEFLATE's 32 KiB window
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED) as zf:
        for name in tasks:
            items = [
                {
                    "outputs": f"{answer} {(text * (1 + per_answer // len(text)))[: per_answer // 2]}",
                    "meta": {"id": int(sid)},
                }
                for sid, answer in answers[name].items()
            ]
            zf.writestr(
                f"{catalogue().by_name()[name].submission}.json",
                json.dumps({"data": {"test": items}}, ensure_ascii=False),
            )
    return buf.getvalue()


def _rss_mb() -> float:
    """The resident set now (not the high-water mark)."""
    with open("/proc/self/statm") as fh:
        return int(fh.read().split()[1]) * os.sysconf("SC_PAGE_SIZE") / 1e6


def _reset_peak() -> None:
    """Start the kernel's peak-RSS counter afresh (Linux ``clear_refs`` 5): the imports' own peak (the
    plugins load ~350 MB then free most of it) must not hide an upload's."""
    Path("/proc/self/clear_refs").write_text("5")


def _peak_mb() -> float:
    """The process's peak RSS since the last reset (``VmHWM``: what ``ru_maxrss`` reports, resettable)."""
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) * 1024 / 1e6
    raise RuntimeError("no VmHWM in /proc/self/status")


def _child(data_dir: Path, archive: Path) -> dict[str, float]:
    import omnieval.aggregate
    import omnieval.reports.taxonomy
    import omnieval.runner  # noqa: F401  (scoring's imports belong to the process, not to the upload)
    from omnieval.platform import Settings
    from omnieval.platform.services.scoring import score_submission
    from omnieval.platform.services.submissions import _validate
    from omnieval.platform.storage.db import Database
    from omnieval.platform.storage.files import save_upload
    from omnieval.platform.storage.models import Benchmark
    from omnieval.registry import load_plugins

    load_plugins()
    settings = Settings(data_dir=data_dir)
    db = Database(settings)
    with db.session() as session:
        bench = session.query(Benchmark).filter_by(name="mera").one()
        session.expunge(bench)
    base = _rss_mb()
    _reset_peak()
    with archive.open("rb") as fh:
        path = save_upload(fh, settings)
    report = _validate(path, bench)
    assert report["ok"], report["errors"][:3]
    upload = _peak_mb()
    _reset_peak()
    results, _ = score_submission(path, bench, settings, model="m")
    assert results["tasks"], results
    scoring = _peak_mb()
    return {
        "base_mb": base,
        "upload_peak_mb": upload,
        "scoring_peak_mb": scoring,
        "per_upload_mb": max(upload, scoring) - base,
    }


def measure(root: Path, tasks: dict[str, int], *, fill: float = 0.97) -> dict[str, float]:
    """Build the upload (``fill`` of the unpacked cap), measure it in a child process, return the figures."""
    from omnieval.platform import Settings
    from tests.platform.conftest import add_mera, make_settings

    cap = Settings(data_dir=Path(".")).max_unpacked_bytes
    with tempfile.TemporaryDirectory() as tmp:
        settings = make_settings(Path(tmp) / "data")
        add_mera(settings, root)
        data = honest_zip_at_cap(root, tasks, int(cap * fill))
        archive = Path(tmp) / "upload.zip"
        archive.write_bytes(data)
        env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT / "src"), str(ROOT)])}
        out = subprocess.run(
            [sys.executable, "-m", "tests.platform.upload_memory", str(settings.data_dir), str(archive)],
            env=env,
            cwd=ROOT,
            capture_output=True,
            text=True,
        )
        if out.returncode:
            raise RuntimeError(out.stderr[-3000:])
        got: dict[str, float] = json.loads(out.stdout.strip().splitlines()[-1])
        with zipfile.ZipFile(archive) as zf:
            unpacked = sum(i.file_size for i in zf.infolist())
        got |= {"zip_mib": len(data) / 2**20, "json_mib": unpacked / 2**20, "cap_mib": cap / 2**20}
    return got


def _refused_child(data_dir: Path, archive: Path) -> dict[str, float]:
    """Validate a hostile upload that must be refused: its peak RSS and the size of the refusal's report."""
    from omnieval.platform import Settings
    from omnieval.platform.services.submissions import _short, _validate
    from omnieval.platform.storage.db import Database
    from omnieval.platform.storage.models import Benchmark
    from omnieval.registry import load_plugins

    load_plugins()
    db = Database(Settings(data_dir=data_dir))
    with db.session() as session:
        bench = session.query(Benchmark).filter_by(name="mera").one()
        session.expunge(bench)
    base = _rss_mb()
    _reset_peak()
    report = _validate(archive, bench)
    assert not report["ok"]
    answer = len(json.dumps(_short(report), ensure_ascii=False).encode())
    return {"base_mb": base, "peak_mb": _peak_mb(), "answer_bytes": answer, "n_errors": report["n_errors"]}


def measure_refused(root: Path, data: bytes) -> dict[str, float]:
    """Validate the upload ``data`` (which must be refused) in a fresh process; its figures."""
    from tests.platform.conftest import add_mera, make_settings

    with tempfile.TemporaryDirectory() as tmp:
        settings = make_settings(Path(tmp) / "data")
        add_mera(settings, root)
        archive = Path(tmp) / "upload.zip"
        archive.write_bytes(data)
        env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT / "src"), str(ROOT)])}
        cmd = [
            sys.executable,
            "-m",
            "tests.platform.upload_memory",
            str(settings.data_dir),
            str(archive),
            "x",
        ]
        out = subprocess.run(cmd, env=env, cwd=ROOT, capture_output=True, text=True)
        if out.returncode:
            raise RuntimeError(out.stderr[-3000:])
        got: dict[str, float] = json.loads(out.stdout.strip().splitlines()[-1])
    return got


if __name__ == "__main__":
    child = _refused_child if len(sys.argv) > 3 else _child
    print(json.dumps(child(Path(sys.argv[1]), Path(sys.argv[2]))))
