"""``omnieval serve`` and ``omnieval platform ...``: the web platform's server and admin commands."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Annotated, Any

import typer

from omnieval.cli._common import fail, friendly_errors, print_json

__all__ = ["platform_app", "serve_command"]

platform_app = typer.Typer(
    help="Administer the web platform: benchmarks, users, annotation triples.", no_args_is_help=True
)
DataDir = Annotated[
    Path, typer.Option("--data-dir", help="Platform data directory (uploads, answers, SQLite).")
]
DbUrl = Annotated[
    str | None, typer.Option("--database-url", help="SQLAlchemy URL (default: SQLite in the data dir).")
]


def _settings(data_dir: Path, database_url: str | None):  # type: ignore[no-untyped-def]
    from omnieval.platform import Settings

    return Settings(data_dir=data_dir, database_url=database_url)


@contextmanager
def _session(data_dir: Path, database_url: str | None) -> Iterator[Any]:
    """A committed database session; the platform's refusals (bad name, role, data) end in a one-line
    error."""
    from omnieval.platform.errors import AccountError, BenchmarkError
    from omnieval.platform.storage.db import Database

    with friendly_errors():
        db = Database(_settings(data_dir, database_url))
        try:
            with db.session() as session:
                yield session
        except (AccountError, BenchmarkError) as exc:
            fail(str(exc))
        finally:
            db.dispose()


@contextmanager
def _undone_on_failure(data_dir: Path) -> Iterator[None]:
    """Remove every file and folder the block created under ``data_dir`` (``data_dir`` too, when it is new)
    if the block fails: a refused benchmark must not leave a fresh ``platform.db`` or copied answers behind.
    The database session is closed (and its transaction rolled back) inside the block, before this runs."""
    import shutil

    existed = data_dir.exists()
    before = set(data_dir.rglob("*")) if existed else set()
    try:
        yield
    except BaseException:
        if not existed:
            shutil.rmtree(data_dir, ignore_errors=True)
        else:
            for path in sorted(set(data_dir.rglob("*")) - before, key=lambda p: len(p.parts), reverse=True):
                if path.is_dir():
                    shutil.rmtree(path, ignore_errors=True)
                else:
                    path.unlink(missing_ok=True)
        raise


def serve_command(
    data_dir: DataDir,
    database_url: DbUrl = None,
    host: Annotated[str, typer.Option(help="Interface to bind.")] = "127.0.0.1",
    port: Annotated[int, typer.Option(help="Port to bind.")] = 8000,
    workers: Annotated[
        int, typer.Option(min=1, help="Server processes (they share limits and boards via the database).")
    ] = 1,
    registration: Annotated[
        str,
        typer.Option(
            help="open: new accounts log in at once; approval: after `omnieval platform approve-user`."
        ),
    ] = "open",
    registrations_per_hour: Annotated[
        int, typer.Option(min=1, help="Self-registrations per client per hour.")
    ] = 10,
    daily_cap: Annotated[
        int,
        typer.Option(
            min=1,
            help="Submissions per user and benchmark per 24 h (default "
            "for benchmarks without their own policy).",
        ),
    ] = 10,
    score_digits: Annotated[
        int, typer.Option(min=0, max=6, help="Decimals of the scores a submitter sees.")
    ] = 3,
    duplicate_uploads: Annotated[
        str,
        typer.Option(
            help="A user's re-upload of the same answer files to the same benchmark: warn (accepted, the "
            "submission page links the earlier one) or refuse (409).",
        ),
    ] = "warn",
    secure_cookies: Annotated[
        bool,
        typer.Option(
            help="Mark the session cookie Secure: set it when users reach the "
            "server over HTTPS (directly or via a TLS proxy)."
        ),
    ] = False,
    trusted_proxy: Annotated[
        list[str] | None,
        typer.Option(
            help="Address of a reverse proxy whose X-Forwarded-For is believed (repeatable); without one, "
            "the header is ignored and the client is the TCP peer."
        ),
    ] = None,
    ipv6_prefix: Annotated[
        int,
        typer.Option(
            min=16,
            max=128,
            help="An IPv6 client's network for the per-network limits, daily cap and release ladder: its "
            "address's /N (48: a free tunnel broker's /48 holds 65,536 /64s; IPv4 counts /24).",
        ),
    ] = 48,
) -> None:
    """Start the web platform (API under /api/v1, pages at /); migrations run on start."""
    import dataclasses

    from omnieval.platform.serve import serve
    from omnieval.platform.settings import Policy

    if registration not in ("open", "approval"):
        fail(f"--registration must be open or approval, got {registration!r}")
    if duplicate_uploads not in ("warn", "refuse"):
        fail(f"--duplicate-uploads must be warn or refuse, got {duplicate_uploads!r}")
    settings = dataclasses.replace(
        _settings(data_dir, database_url),
        registration=registration,
        register_limit=(registrations_per_hour, 3600.0),
        secure_cookies=secure_cookies,
        trusted_proxies=tuple(trusted_proxy or ()),
        ipv6_network_prefix=ipv6_prefix,
        policy=Policy(daily_cap=daily_cap, score_digits=score_digits, duplicate_uploads=duplicate_uploads),
    )
    with friendly_errors():
        serve(settings, host=host, port=port, workers=workers)


@platform_app.command("add-benchmark")
def add_benchmark_command(
    data_dir: DataDir,
    name: Annotated[str, typer.Option(help="Benchmark name shown on the platform.")],
    tasks: Annotated[list[str], typer.Option(help="FORMAT:PATH with answers, e.g. mera:ROOT (one source).")],
    database_url: DbUrl = None,
) -> None:
    """Register a benchmark: its tasks and hidden answers (copied into the data dir) and its scheme."""
    from omnieval.platform.services.benchmarks import add_benchmark

    if len(tasks) != 1:  # click would keep only the last of a repeated plain option: say so instead
        fail(f"--tasks takes one FORMAT:PATH source per benchmark, got {len(tasks)}: {', '.join(tasks)}")

    with _undone_on_failure(data_dir), _session(data_dir, database_url) as session:
        counts = add_benchmark(session, _settings(data_dir, database_url), name=name, tasks_spec=tasks[0])
    print_json({"benchmark": name, "tasks": counts})


@platform_app.command("create-user")
def create_user_command(
    data_dir: DataDir,
    username: Annotated[str, typer.Option()],
    password: Annotated[str, typer.Option()],
    role: Annotated[str, typer.Option(help="user | reviewer | annotator | admin")] = "user",
    panel: Annotated[str | None, typer.Option(help="Expert panel (annotators).")] = None,
    database_url: DbUrl = None,
) -> None:
    """Create an account with a role."""
    from omnieval.platform.services.accounts import create_user

    with _session(data_dir, database_url) as session:
        user = create_user(session, username=username, password=password, role=role, panel=panel)
        print_json({"id": user.id, "username": user.username, "role": user.role})


@platform_app.command("load-triples")
def load_triples_command(
    data_dir: DataDir,
    file: Annotated[
        Path,
        typer.Option(
            help="JSONL of triples: item_id, criterion, panel, overlap, instruction, answer, "
            "description, rubric, scale, allow_na, [reference, perfect]."
        ),
    ],
    database_url: DbUrl = None,
) -> None:
    """Load (instruction, answer, criterion) triples for expert annotation."""
    from pydantic import ValidationError

    from omnieval.platform.services.annotation import Triple, load_triples

    triples = []
    with friendly_errors():
        if not file.is_file():
            fail(f"{file} not found")
        for lineno, line in enumerate(file.read_text(encoding="utf-8").splitlines(), 1):
            if not line.strip():
                continue
            try:
                triples.append(Triple.model_validate_json(line))
            except ValidationError as exc:
                first = exc.errors()[0]
                fail(f"{file}:{lineno}: field {'.'.join(map(str, first['loc'])) or '?'}: {first['msg']}")
    with _session(data_dir, database_url) as session:
        print_json({"loaded": load_triples(session, triples)})


@platform_app.command("approve-user")
def approve_user_command(
    data_dir: DataDir, username: Annotated[str, typer.Option()], database_url: DbUrl = None
) -> None:
    """Let an account registered under ``--registration approval`` log in."""
    from omnieval.platform.services.accounts import approve_user

    with _session(data_dir, database_url) as session:
        user = approve_user(session, username=username)
        print_json({"id": user.id, "username": user.username, "approved": user.approved})


@platform_app.command("set-policy")
def set_policy_command(
    data_dir: DataDir,
    name: Annotated[str, typer.Option(help="The benchmark.")],
    setting: Annotated[
        list[str],
        typer.Option(
            "--set",
            help="KEY=VALUE: require_complete, daily_cap, score_digits, probe_max_diff, probe_min_matches, "
            "probe_cross_lookback, probe_cross_min_answers, filler_share, score_noise, score_ladder (numbers "
            "of standard errors), network_daily_cap, release_min_samples, duplicate_uploads (warn|refuse).",
        ),
    ],
    database_url: DbUrl = None,
) -> None:
    """Override the server's score-oracle defences for one benchmark (docs/platform.md)."""
    from omnieval.platform.services.policy import parse_overrides, set_policy

    with _session(data_dir, database_url) as session:
        print_json({"benchmark": name, "policy": set_policy(session, name, parse_overrides(setting))})
