"""One upload's memory at the caps, measured as process RSS in a fresh process (issue 20.4).

``measure()`` builds an honest MERA submission whose JSON fills the unpacked cap, then runs this module
as a child: it copies, checks and validates the upload, then scores it, and reports its RSS after imports
and the high-water mark (``ru_maxrss``) after each stage. Used by ``benchmarks/platform_load.py --memory``
and the test of the bound.
"""

from __future__ import annotations

import contextlib
import io
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


def _tree(pid: int) -> list[int]:
    """``pid`` and its descendants (the scoring child, multiprocessing's helper), from ``/proc``."""
    out, todo = [], [pid]
    while todo:
        p = todo.pop()
        out.append(p)
        for task in Path(f"/proc/{p}/task").glob("*/children"):
            with contextlib.suppress(FileNotFoundError):  # a thread or process that ended since
                todo += [int(c) for c in task.read_text().split()]
    return out


def _status_mb(pid: int, field: str) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith(f"{field}:"):
            return int(line.split()[1]) * 1024 / 1e6
    return 0.0


def _tree_mb(pid: int, field: str) -> float:
    """The sum of ``field`` (``VmRSS`` now, ``VmHWM`` peak since the last reset) over the server's tree."""
    total = 0.0
    for p in _tree(pid):
        with contextlib.suppress(FileNotFoundError):  # a process that ended since the listing
            total += _status_mb(p, field)
    return total


def measure_concurrent(
    root: Path, tasks: dict[str, int], *, uploads: int = 4, fill: float = 0.97, timeout: float = 600
) -> dict[str, float]:
    """``uploads`` honest uploads of ``fill`` of the unpacked cap, sent at once by as many accounts to a live
    server (``omnieval serve``'s own code, scoring in its child process), until all are scored.

    Reported: the server tree's RSS (server, scoring child, helpers) when idle after a warm-up upload (the
    child spawned and its imports loaded), its peak while the uploads were received and scored, sampled
    every 10 ms (``peak_total_mb``), and the sum of each process's own peak (``VmHWM``, reset after the
    warm-up): a bound on the tree's peak that no sample can miss (``hwm_total_mb``)."""
    import threading
    import time

    import httpx

    from omnieval.platform import Settings
    from tests.platform.conftest import add_mera, create, make_settings, submission_zip
    from tests.platform.live import live_server

    cap = Settings(data_dir=Path(".")).max_unpacked_bytes
    with tempfile.TemporaryDirectory() as tmp:
        settings = make_settings(Path(tmp) / "data")
        add_mera(settings, root)
        names = [f"uploader{i}" for i in range(uploads + 1)]
        for name in names:
            create(settings, name, "user")
        data = honest_zip_at_cap(root, tasks, int(cap * fill))
        small = submission_zip(root, right={name: 1 for name in tasks})
        with (
            live_server({"data_dir": str(settings.data_dir)}) as (base, server),
            httpx.Client(base_url=base, timeout=timeout) as client,
        ):
            heads = []
            for name in names:
                r = client.post("/api/v1/auth/token", json={"username": name, "password": f"password-{name}"})
                heads.append({"Authorization": f"Bearer {r.json()['token']}"})

            def send(headers: dict[str, str], body: bytes) -> int:
                form = {"benchmark": "mera", "model": "m"}
                r = client.post(
                    "/api/v1/submissions", headers=headers, data=form, files={"file": ("s.zip", body)}
                )
                assert r.status_code == 202, r.text
                return int(r.json()["id"])

            def scored(headers: dict[str, str], sub: int) -> None:
                deadline = time.monotonic() + timeout
                while client.get(f"/api/v1/submissions/{sub}", headers=headers).json()["status"] != "scored":
                    assert time.monotonic() < deadline, f"submission {sub} not scored"
                    time.sleep(0.1)

            scored(heads[-1], send(heads[-1], small))  # the scoring child is spawned and warm
            time.sleep(0.5)
            for p in _tree(server.pid):
                Path(f"/proc/{p}/clear_refs").write_text("5")
            idle = _tree_mb(server.pid, "VmRSS")
            peak, done = idle, threading.Event()

            def sample() -> None:
                nonlocal peak
                while not done.is_set():
                    peak = max(peak, _tree_mb(server.pid, "VmRSS"))
                    time.sleep(0.01)

            sampler = threading.Thread(target=sample)
            sampler.start()
            started = time.monotonic()
            ids: list[int | None] = [None] * uploads
            go = threading.Barrier(uploads)

            def one(i: int) -> None:
                go.wait()
                ids[i] = send(heads[i], data)

            senders = [threading.Thread(target=one, args=(i,)) for i in range(uploads)]
            for t in senders:
                t.start()
            for t in senders:
                t.join()
            for i, sub in enumerate(ids):
                assert sub is not None, "an upload failed"
                scored(heads[i], sub)
            seconds = time.monotonic() - started
            done.set()
            sampler.join()
            hwm = _tree_mb(server.pid, "VmHWM")
        with zipfile.ZipFile(io.BytesIO(data)) as zf:
            unpacked = sum(i.file_size for i in zf.infolist())
    return {
        "uploads": uploads,
        "zip_mib": len(data) / 2**20,
        "json_mib": unpacked / 2**20,
        "cap_mib": cap / 2**20,
        "idle_total_mb": idle,
        "peak_total_mb": peak,
        "hwm_total_mb": hwm,
        "seconds": seconds,
    }


if __name__ == "__main__":
    child = _refused_child if len(sys.argv) > 3 else _child
    print(json.dumps(child(Path(sys.argv[1]), Path(sys.argv[2]))))
