"""Platform settings: where data lives, the limits that protect the server, the default oracle defences."""

from __future__ import annotations

import contextlib
import dataclasses
import os
import secrets
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

__all__ = ["DUPLICATE_MODES", "HASH_WORKERS", "Policy", "Settings"]

MiB = 1024 * 1024
HASH_WORKERS = min(2, max(1, (os.cpu_count() or 2) // 2))
"""Password hashes at once per process by default: 2, or half the cores below 4 (1 on a 2-core machine)."""


DUPLICATE_MODES = ("warn", "refuse")


@dataclass(frozen=True, kw_only=True)
class Policy:
    """The oracle defences (applied by :mod:`omnieval.platform.services.policy`): the server's defaults,
    merged with a benchmark's own overrides."""

    require_complete: bool = True
    """Score a task only when the submission answers all of its samples."""
    daily_cap: int = 10
    """Submissions per user and benchmark within any 24 hours (refused ones do not count)."""
    network_daily_cap: int = 10
    """Submissions per client network (an IPv4 /24, an IPv6 /48: ``Settings.ipv6_network_prefix``) and
    benchmark within any 24 hours, all its accounts together: new accounts are cheap (10 an hour per
    network), so the release's readings are bounded per network, not per account; 0 turns it off. A team
    behind one network shares it: raise it for such a benchmark (``omnieval platform set-policy``) or use
    approval mode."""
    score_digits: int = 3
    """Decimal places of every score shown to a submitter (and reviewers)."""
    probe_max_diff: int = 3
    """Two answer sets differing in 1..this many answers are near-identical."""
    probe_min_matches: int = 2
    """Flag a submission with at least this many near-identical earlier ones from related accounts."""
    probe_cross_lookback: int = 50
    """Flag a submission near-identical to any one of the last this many submissions of the benchmark from
    other accounts, whatever their network (colluding accounts on unrelated networks); 0 turns it off."""
    probe_cross_min_answers: int = 100
    """Compare with other accounts only submissions answering at least this many samples: among 100 answers,
    3 apart is 97 % agreement, rare for two different models; among 12, two good models often agree so."""
    filler_share: float = 0.9
    """Flag a submission where one answer stands for at least this share of a task's samples (10 or more):
    filler around probed samples. Above 1 turns it off."""
    score_noise: float = 1.5
    """Before a submission is approved for the boards, each task score its submitter sees carries Gaussian
    noise of this many worst-case standard errors of the task (0.5/sqrt(n)), fixed by the answers (the same
    answers always show the same score, so repeating them averages nothing away); 0 shows exact scores."""
    score_ladder: float = 4.0
    """The Ladder (Blum & Hardt 2015) on each task score shown before approval: a submitter sees a new
    score only when it beats the best released on that task to them or to any account on their client
    network by this many worst-case standard errors (0.5/sqrt(n)), rounded down to that step; otherwise
    their own best again (nothing before the first). 0 turns it off. 3 let 100 uploads from 10 networks
    recover 38 % of the answers against 25 % by chance (``benchmarks/oracle_attack.py``); 4: 34 %."""
    release_min_samples: int = 30
    """Before approval, a task with fewer samples than this shows no score at all: one sample moves a score
    by 1/n, against noise of ``score_noise`` x 0.5/sqrt(n), so small tasks leak most per upload (40 uploads
    of random answers from 9 networks recovered 58 % of a 12-sample task's answers, chance 25 %). 0 turns
    it off."""
    release_daily_budget: int = 20
    """New scores released before approval per benchmark within any 24 hours, all submitters together: a
    scored, unflagged submission beyond the first this many of the last 24 hours moves no ladder and its
    submitter sees their own best so far (the scores come with approval). Per-network ladders and caps bound
    the readings per network, and networks are cheap: 200 uploads from 20 /24s recovered 38 % of the
    answers against 25 % by chance, 400 from 40: 42 % (``benchmarks/oracle_attack.py``); a budget of 20
    held 34.5 % whatever the networks (30: 37 %). An attacker can spend it, which delays other
    submitters' scores to approval, never loses them; 0 turns it off."""
    duplicate_uploads: str = "warn"
    """A user's re-upload of the same answer files to the same benchmark: ``warn`` (accepted, the submission
    page links the earlier one) or ``refuse`` (HTTP 409, nothing kept)."""

    def merged(self, overrides: dict[str, Any] | None) -> Policy:
        """This policy with a benchmark's overrides (unknown keys were refused when they were set)."""
        return dataclasses.replace(self, **(overrides or {}))

    @classmethod
    def keys(cls) -> list[str]:
        return [f.name for f in dataclasses.fields(cls)]


@dataclass(frozen=True, kw_only=True)
class Settings:
    """Everything the app needs; the data dir holds uploads, benchmark answers and the default SQLite file."""

    data_dir: Path
    database_url: str | None = None
    max_upload_bytes: int = 64 * MiB
    max_unpacked_bytes: int = 64 * MiB
    """Decompressed bytes per upload. Task files are parsed as streams, so validation needs ~2 MB whatever
    the cap; scoring holds the answers, ~1.3x the JSON: an honest upload at this cap adds ~80 MB of RSS
    (bound 300 MB; ``benchmarks/platform_load.py --memory``). MERA's outputs take a few MB."""
    max_ratio: float = 200.0
    """A member whose uncompressed/compressed size ratio exceeds this is a zip bomb."""
    max_members: int = 2000
    max_log_entries: int = 2000
    """Files allowed in the nested ``logs_public.zip`` (every reviewer's log listing reads them)."""
    lease_s: float = 30.0
    """A claimed job not finished within its lease is reclaimed by another worker (crash recovery)."""
    poll_s: float = 0.2
    max_attempts: int = 3
    """A job whose scoring hits an internal (server) error is retried up to this many attempts in all."""
    retry_s: float = 5.0
    """Wait before such a retry."""
    login_limit: tuple[int, float] = (10, 60.0)
    """At most N login attempts per username and client within S seconds."""
    login_client_limit: tuple[int, float] = (30, 60.0)
    """At most N login attempts per client within S seconds, whatever the usernames (password spraying)."""
    login_inside: int = 2
    """Requests that hash a password (logins, registrations) inside the app at once per process; the others
    wait on the event loop, holding no request thread, and are let in round-robin between networks
    (``routes/login_gate.py``)."""
    login_waiting: int = 200
    """Password requests waiting at that door, at most; past it a new one gets 429 at once."""
    login_waiting_per_network: int = 16
    """Password requests of one network (/24, /48) waiting at that door, at most; past it 429 at once."""
    login_wait_s: float = 10.0
    """A password request not let in within this is answered 429 (with ``Retry-After``)."""
    hash_workers: int = HASH_WORKERS
    """Threads computing password hashes per process (1 on fewer than 4 cores, else 2;
    ``services/hashing.py``); no other thread computes one."""
    hash_nice: int = 10
    """Added to those threads' niceness (Linux): the readers' requests get the CPU before a login's hash."""
    login_account_limit: tuple[int, float] = (10, 300.0)
    """At most N login attempts per username within S seconds from all clients together (a spray from many
    networks at one account backs off without a password hash being computed)."""
    upload_limit: tuple[int, float] = (20, 60.0)
    """At most N upload attempts per user within S seconds (refused uploads count too)."""
    upload_day_limit: tuple[int, float] = (50, 86400.0)
    """At most N upload attempts per user within S seconds, accepted or refused (the daily cap counts only
    accepted ones; this one bounds what refused uploads cost the server)."""
    publish_limit: tuple[int, float] = (20, 60.0)
    """At most N publication requests per user within S seconds."""
    register_limit: tuple[int, float] = (10, 3600.0)
    """At most N self-registrations per client within S seconds."""
    concurrent_uploads: int = 2
    """Uploads one user may have in flight at once (per server process; 429 past it)."""
    header_timeout_s: float = 10.0
    """A connection whose request headers are not complete within this is closed (idle connections too)."""
    body_timeout_s: float = 30.0
    """An upload whose next part does not arrive within this is answered 408."""
    trusted_proxies: tuple[str, ...] = ()
    """Reverse proxies whose ``X-Forwarded-For`` names the client (``serve --trusted-proxy``); from anyone
    else the header is ignored (it was believed from 127.0.0.1, so anything on the host could forge it)."""
    ipv4_network_prefix: int = 24
    """An IPv4 client's network is its address's /24: one cheap block of addresses counts as one client."""
    ipv6_network_prefix: int = 48
    """An IPv6 client's network is its address's /48 (``serve --ipv6-prefix``). The rate limits, the
    registration buckets, the network's daily cap, the shared release ladder and the probe detector count one
    network as one client. A /64 is cheap: one host holds a whole /64, and a free tunnel broker hands out a
    /48, 65,536 /64s. The cost: a university or company behind one /48 is one bucket (run with
    ``--registration approval``, or raise its benchmark's ``network_daily_cap`` with ``set-policy``)."""
    registration: str = "open"
    """``open``: a new account may log in at once; ``approval``: only once an admin approves it."""
    policy: Policy = field(default_factory=Policy)
    """The oracle defences every benchmark gets unless it overrides them."""
    token_ttl_s: float = 30 * 86400.0
    """API tokens expire after this (or when revoked: ``DELETE /api/v1/auth/tokens/{id}``)."""
    session_ttl_s: float = 14 * 86400.0
    """Page sessions expire after this (or at logout); the cookie lives no longer."""
    secure_cookies: bool = False
    """Mark the session cookie ``Secure`` (``serve --secure-cookies``): set it whenever users reach the server
    over HTTPS, directly or through a TLS-terminating proxy."""
    orphan_age_s: float = 600.0
    """At start-up, upload files no submission refers to and older than this are deleted."""
    worker: bool = True
    """Run the scoring worker thread inside the server process."""
    scoring_process: bool = True
    """Score in a child process (spawned once, made again if it dies), so scoring's CPU never competes for
    the server process's GIL with the readers; False scores in the worker thread (tests that patch it)."""
    scoring_nice: int = 10
    """Added to the scoring child's niceness: on a busy machine the readers' requests get the CPU first and
    a submission waits a little longer for its score (0 keeps the server's priority)."""
    hold_s: float = 0.0
    """Keep each job claimed at least this long before committing (crash and load tests only)."""

    def __post_init__(self) -> None:
        if not 8 <= self.ipv4_network_prefix <= 32:
            raise ValueError(f"ipv4_network_prefix must be 8..32, got {self.ipv4_network_prefix}")
        if not 16 <= self.ipv6_network_prefix <= 128:
            raise ValueError(f"ipv6_network_prefix must be 16..128, got {self.ipv6_network_prefix}")

    @property
    def url(self) -> str:
        return self.database_url or f"sqlite:///{(self.data_dir / 'platform.db').resolve()}"

    @property
    def uploads(self) -> Path:
        return self.data_dir / "uploads"

    @property
    def answers(self) -> Path:
        return self.data_dir / "benchmarks"

    def secret_key(self) -> str:
        """The session-signing key, created once in the data dir (owner-only).

        Created with ``O_EXCL``: processes starting together on one data dir all end up with the same key.
        """
        path = self.data_dir / "secret.key"
        if not path.exists():
            self.data_dir.mkdir(parents=True, exist_ok=True)
            tmp = path.with_name(f"secret.key.{os.getpid()}.{secrets.token_hex(4)}")
            tmp.write_text(secrets.token_urlsafe(48), encoding="utf-8")
            tmp.chmod(0o600)
            try:
                with contextlib.suppress(FileExistsError):  # another process won the race: use its key
                    os.link(tmp, path)  # atomic
            finally:
                tmp.unlink()
        return path.read_text(encoding="utf-8").strip()
