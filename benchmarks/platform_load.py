"""Board-page latency of the web platform under 50 concurrent readers while submissions are scored.

For each database (SQLite in the data dir; PostgreSQL on a throwaway cluster when Debian's binaries
are present) one ``omnieval serve`` process is started with a miniature MERA benchmark and a few
approved submissions on the board. Two phases per database, side by side: *idle* (readers only) and
*scoring* (readers while an uploader posts a new submission every ``--upload-every`` seconds, each
scored by the server's worker). Readers fetch the HTML board page ``/boards/mera/multi`` in a loop.
Printed: requests, p50/p95/p99 latency, and the p99 ratio scoring/idle. Usage:
``python benchmarks/platform_load.py [--readers 50] [--seconds 10] [--n 200] [--only sqlite]``.
"""

from __future__ import annotations

import argparse
import asyncio
import collections
import contextlib
import json
import os
import socket
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT / "src"), str(ROOT)]


def _port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@contextlib.contextmanager
def _server(data_dir: Path, url: str | None) -> Iterator[str]:
    port = _port()
    cmd = [sys.executable, "-m", "omnieval", "serve", "--data-dir", str(data_dir), "--port", str(port)]
    cmd += ["--database-url", url] if url else []
    env = {**os.environ, "PYTHONPATH": str(ROOT / "src")}
    proc = subprocess.Popen(cmd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    base = f"http://127.0.0.1:{port}"
    import httpx

    try:
        for _ in range(300):
            with contextlib.suppress(httpx.HTTPError):
                if httpx.get(base + "/api/v1/benchmarks", timeout=1).status_code == 200:
                    break
            time.sleep(0.1)
        yield base
    finally:
        proc.kill()
        proc.wait()


def _prepare(data_dir: Path, url: str | None, root: Path) -> None:
    from omnieval.platform import Settings
    from omnieval.platform.accounts import create_user
    from omnieval.platform.benchmarks import add_benchmark
    from omnieval.platform.db import Database
    from omnieval.platform.policy import set_policy

    settings = Settings(data_dir=data_dir, database_url=url)
    db = Database(settings)
    with db.session() as session:
        add_benchmark(session, settings, name="mera", tasks_spec=f"mera:{root}")
        set_policy(session, "mera", {"daily_cap": 1_000_000})  # a load test, not a prober
        for name, role in (("reader", "user"), ("seeder", "user"), ("reviewer", "reviewer")):
            create_user(session, username=name, password=f"password-{name}", role=role)
    db.dispose()


def _seed_board(client: Any, base: str, data: bytes, n: int) -> None:
    """``n`` approved submissions so the board has rows to compute."""
    user, rev = _token(client, base, "seeder"), _token(client, base, "reviewer")
    ids = [_upload(client, base, user, data, f"model-{i}") for i in range(n)]
    for sub_id in ids:
        while client.get(f"{base}/api/v1/submissions/{sub_id}", headers=user).json()["status"] not in (
            "scored",
            "failed",
        ):
            time.sleep(0.05)
        client.post(f"{base}/api/v1/submissions/{sub_id}/publish", headers=user, json={"boards": ["multi"]})
        client.post(
            f"{base}/api/v1/reviews/{sub_id}", headers=rev, json={"decision": "approve", "comment": "ok"}
        )


_TOKENS: dict[tuple[str, str], dict[str, str]] = {}


def _token(client: Any, base: str, name: str) -> dict[str, str]:
    """One token per user and server (logins are rate-limited)."""
    if (base, name) in _TOKENS:
        return _TOKENS[(base, name)]
    r = client.post(f"{base}/api/v1/auth/token", json={"username": name, "password": f"password-{name}"})
    _TOKENS[(base, name)] = {"Authorization": f"Bearer {r.json()['token']}"}
    return _TOKENS[(base, name)]


def _upload(client: Any, base: str, headers: dict[str, str], data: bytes, model: str) -> int:
    r = client.post(
        f"{base}/api/v1/submissions",
        headers=headers,
        data={"benchmark": "mera", "model": model},
        files={"file": ("s.zip", data, "application/zip")},
    )
    r.raise_for_status()
    return int(r.json()["id"])


async def _readers(base: str, readers: int, seconds: float, errors: list[str]) -> list[float]:
    import httpx

    latencies: list[float] = []
    deadline = time.monotonic() + seconds
    limits = httpx.Limits(max_connections=readers, max_keepalive_connections=readers)
    async with httpx.AsyncClient(limits=limits, timeout=60) as client:

        async def reader() -> None:
            while time.monotonic() < deadline:
                start = time.perf_counter()
                try:
                    r = await client.get(f"{base}/boards/mera/multi")
                    r.raise_for_status()
                except httpx.HTTPError as exc:  # counted and printed, never hidden
                    status = exc.response.status_code if isinstance(exc, httpx.HTTPStatusError) else ""
                    errors.append(f"{type(exc).__name__} {status}".strip())
                    continue
                latencies.append(time.perf_counter() - start)

        await asyncio.gather(*(reader() for _ in range(readers)))
    return latencies


def _uploader(base: str, data: bytes, every: float, stop: threading.Event, ids: list[int]) -> None:
    import httpx

    with httpx.Client(timeout=60) as client:
        headers = _token(client, base, "reader")
        while not stop.is_set():
            try:
                ids.append(_upload(client, base, headers, data, f"load-{len(ids)}"))
            except httpx.HTTPStatusError as exc:  # past 20 uploads a minute (long phases): wait, keep going
                if exc.response.status_code != 429:
                    raise
                stop.wait(5.0)
            stop.wait(every)


def _pct(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))] * 1000


def _phase(base: str, args: argparse.Namespace, data: bytes | None) -> dict[str, Any]:
    stop, ids = threading.Event(), []
    thread = None
    if data is not None:
        thread = threading.Thread(
            target=_uploader, args=(base, data, args.upload_every, stop, ids), daemon=True
        )
        thread.start()
    errors: list[str] = []
    latencies = asyncio.run(_readers(base, args.readers, args.seconds, errors))
    stop.set()
    if thread:
        thread.join()
    return {
        "n": len(latencies),
        "p50": _pct(latencies, 0.5),
        "p95": _pct(latencies, 0.95),
        "p99": _pct(latencies, 0.99),
        "uploads": len(ids),
        "errors": len(errors),
        "kinds": dict(collections.Counter(errors)),
    }


def _scored(base: str) -> int:
    import httpx

    with httpx.Client() as client:
        response = client.get(f"{base}/api/v1/submissions", headers=_token(client, base, "reader"))
        body = response.json()
        if "submissions" not in body:
            raise SystemExit(
                f"{base}: listing submissions failed: {response.status_code} {response.text[:300]}"
            )
    return sum(s["status"] == "scored" for s in body["submissions"])


def run_database(label: str, url: str | None, root: Path, data: bytes, args: argparse.Namespace) -> None:
    import httpx

    with tempfile.TemporaryDirectory() as tmp:
        _prepare(Path(tmp) / "data", url, root)
        with _server(Path(tmp) / "data", url) as base:
            with httpx.Client(timeout=60) as client:
                _seed_board(client, base, data, args.models)
            idle = _phase(base, args, None)
            before = _scored(base)
            busy = _phase(base, args, data)
            scored = _scored(base) - before
    print(
        f"{label:10} idle    : {idle['n']:6d} requests  p50 {idle['p50']:7.1f} ms  p95 {idle['p95']:7.1f} ms "
        f" p99 {idle['p99']:7.1f} ms"
    )
    print(
        f"{label:10} scoring : {busy['n']:6d} requests  p50 {busy['p50']:7.1f} ms  p95 {busy['p95']:7.1f} ms "
        f" p99 {busy['p99']:7.1f} ms"
        f"  ({busy['uploads']} uploads, {scored} scored meanwhile)"
    )
    print(
        f"{label:10} failed requests: idle {idle['errors']} {idle['kinds']}, scoring {busy['errors']} "
        f"{busy['kinds']}"
    )
    print(f"{label:10} p99 ratio scoring/idle: {busy['p99'] / idle['p99']:.2f}")


MEMORY_PROBE = """
import json, resource, sys
from pathlib import Path
from omnieval.registry import load_plugins
load_plugins()
from omnieval.platform import Settings
from omnieval.platform.db import Database
from omnieval.platform.models import Benchmark
from omnieval.platform.scoring import score_submission
from omnieval.platform.storage import save_upload
from omnieval.platform.submissions import _validate
settings = Settings(data_dir=Path(sys.argv[1]))
db = Database(settings)
with db.session() as session:
    bench = session.query(Benchmark).filter_by(name="mera").one()
    session.expunge(bench)
import tracemalloc
base = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
tracemalloc.start()
with open(sys.argv[2], "rb") as fh:
    path = save_upload(fh, settings)
report = _validate(path, bench)
assert report["ok"], report["errors"][:3]
upload = tracemalloc.get_traced_memory()[1]
tracemalloc.reset_peak()
results, _ = score_submission(path, bench, settings, model="m")
assert results["tasks"], results
done = tracemalloc.get_traced_memory()[1]
print(json.dumps({"base_mb": base / 1024, "upload_mb": upload / 1e6, "scoring_mb": done / 1e6}))
"""


def _honest_zip_at_cap(root: Path, tasks: dict[str, int], target: int) -> bytes:
    """A valid MERA zip answering every sample whose JSON totals about ``target`` bytes (long Russian answers
    of random words: they compress about 5x, under the ratio cap)."""
    import io
    import random
    import zipfile

    from tests.platform.conftest import answers_of

    from omnieval.benchmarks.mera.catalog import catalogue

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


def run_memory(root: Path, tasks: dict[str, int]) -> None:
    """Peak memory of one upload at the caps: copy, zip checks, validation, then scoring (tracemalloc's peak
    of Python
    allocations per stage, in a fresh process; the RSS high-water mark after imports is printed too)."""
    from omnieval.platform import Settings

    cap = Settings(data_dir=Path(".")).max_unpacked_bytes
    with tempfile.TemporaryDirectory() as tmp:
        _prepare(Path(tmp) / "data", None, root)
        data = _honest_zip_at_cap(root, tasks, int(cap * 0.97))
        archive = Path(tmp) / "upload.zip"
        archive.write_bytes(data)
        env = {**os.environ, "PYTHONPATH": str(ROOT / "src")}
        out = subprocess.run(
            [sys.executable, "-c", MEMORY_PROBE, str(Path(tmp) / "data"), str(archive)],
            env=env,
            capture_output=True,
            text=True,
        )
        if out.returncode:
            raise SystemExit(out.stderr[-2000:])
        got = json.loads(out.stdout.strip().splitlines()[-1])
    print(
        f"memory: one honest upload of {len(data) / 2**20:.1f} MiB zipped, ~{cap * 0.97 / 2**20:.0f} MiB of "
        "JSON "
        f"(unpacked cap {cap / 2**20:.0f} MiB): peak Python allocations {got['upload_mb']:.0f} MB while "
        "uploading, "
        f"{got['scoring_mb']:.0f} MB while scoring, over {got['base_mb']:.0f} MB after imports (limit 300 MB)"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--readers", type=int, default=50)
    parser.add_argument("--seconds", type=float, default=10.0)
    parser.add_argument("--n", type=int, default=200, help="samples per task in the miniature benchmark")
    parser.add_argument("--models", type=int, default=8, help="approved submissions on the board")
    parser.add_argument(
        "--upload-every", type=float, default=0.6, help="seconds (the server allows 20 uploads a minute)"
    )
    parser.add_argument("--only", choices=("sqlite", "postgresql"), default=None)
    parser.add_argument(
        "--memory", action="store_true", help="measure the peak memory of one upload at the caps instead"
    )
    args = parser.parse_args()
    from tests.platform.conftest import submission_zip
    from tests.platform.pg import available, postgres_cluster

    from omnieval.benchmarks.mera.mini import make_mini

    with tempfile.TemporaryDirectory() as tmp:
        tasks = {"ruclevr": args.n // 2, "rucommonvqa": args.n // 3, "ruslun": args.n // 4}
        root = make_mini(Path(tmp) / "root", n=args.n, with_answers=True, tasks=list(tasks))
        if args.memory:
            run_memory(root, tasks)
            return
        data = submission_zip(root, right=tasks)
        print(
            f"{args.readers} concurrent readers of /boards/mera/multi for {args.seconds:.0f} s per phase; "
            f"{args.models} models on the board; {args.n} samples per task, 3 tasks per submission"
        )
        if args.only in (None, "sqlite"):
            run_database("sqlite", None, root, data, args)
        if args.only in (None, "postgresql"):
            if not available():
                print("postgresql: skipped (binaries not found; make system-deps)")
            else:
                with postgres_cluster() as cluster:
                    run_database("postgresql", cluster.new_database(), root, data, args)


if __name__ == "__main__":
    main()
