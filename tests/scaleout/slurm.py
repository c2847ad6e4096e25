"""A throwaway single-node Slurm (Debian's slurm-wlm and munge) in a temp dir, as tests/platform/pg.py
starts PostgreSQL: munged, slurmctld and slurmd on free ports with a generated slurm.conf, so the
examples' job scripts are submitted with the real sbatch."""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager, suppress
from pathlib import Path

__all__ = ["SlurmCluster", "available", "free_ports", "slurm_cluster"]

_DAEMONS = ("munged", "slurmctld", "slurmd")
_CLIENTS = ("sbatch", "squeue", "sacct", "scontrol", "mungekey")


def _sbin(name: str) -> str | None:
    return shutil.which(name) or shutil.which(name, path="/usr/sbin:/sbin")


def available() -> bool:
    """Whether Slurm and munge are installed (scripts/system_deps.sh installs them) and we are root
    (slurmd starts jobs as their user)."""
    return os.geteuid() == 0 and all(_sbin(n) for n in (*_DAEMONS, *_CLIENTS))


def free_ports(n: int) -> list[int]:
    sockets = [socket.socket() for _ in range(n)]
    try:
        for s in sockets:
            s.bind(("127.0.0.1", 0))
        return [int(s.getsockname()[1]) for s in sockets]
    finally:
        for s in sockets:
            s.close()


class SlurmCluster:
    """A running one-node Slurm; :meth:`env` is the environment its client commands need."""

    def __init__(self, base: Path) -> None:
        self.base = base
        self.conf = base / "slurm.conf"

    def env(self, **extra: str) -> dict[str, str]:
        return {**os.environ, "SLURM_CONF": str(self.conf), **extra}

    def run(self, *cmd: str, env: dict[str, str] | None = None, cwd: Path | None = None) -> str:
        proc = subprocess.run(
            list(cmd), env=env or self.env(), cwd=cwd, capture_output=True, text=True, timeout=30
        )
        if proc.returncode != 0:
            raise RuntimeError(f"{' '.join(cmd)} failed ({proc.returncode}): {proc.stderr}{self.logs()}")
        return proc.stdout

    def states(self, *job_ids: str) -> dict[str, str]:
        """Every job's (and array task's) state by id, from the controller (no accounting database)."""
        out = self.run("squeue", "--noheader", "--states=all", "--format=%i %T", "--jobs", ",".join(job_ids))
        return dict(line.split() for line in out.splitlines() if line.strip())

    def wait(self, *job_ids: str, timeout: float = 60) -> dict[str, str]:
        """The jobs' final states once none is pending or running."""
        deadline = time.monotonic() + timeout
        while True:
            try:
                states = self.states(*job_ids)
            except RuntimeError:  # squeue timed out on a loaded machine: ask again until the deadline
                if time.monotonic() > deadline:
                    raise
                time.sleep(0.3)
                continue
            if states and all(
                s not in ("PENDING", "RUNNING", "CONFIGURING", "COMPLETING") for s in states.values()
            ):
                return states
            if time.monotonic() > deadline:
                raise TimeoutError(f"Slurm jobs {job_ids} still {states} after {timeout} s{self.logs()}")
            time.sleep(0.3)

    def logs(self) -> str:
        tails = []
        for name in ("slurmctld.log", "slurmd.log"):
            path = self.base / name
            if path.exists():
                tails.append(
                    f"\n--- {name} ---\n" + "\n".join(path.read_text(errors="replace").splitlines()[-15:])
                )
        return "".join(tails)


def _conf(base: Path, *, host: str, ports: list[int], cpus: int) -> str:
    ctld, slurmd = ports
    return f"""\
ClusterName=omnieval-test
SlurmctldHost={host}(127.0.0.1)
SlurmctldPort={ctld}
SlurmdPort={slurmd}
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
AuthInfo=socket={base}/munge.socket
CredType=cred/munge
StateSaveLocation={base}/state
SlurmdSpoolDir={base}/spool
SlurmctldPidFile={base}/slurmctld.pid
SlurmdPidFile={base}/slurmd.pid
SlurmctldLogFile={base}/slurmctld.log
SlurmdLogFile={base}/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
JobCompType=jobcomp/none
MpiDefault=none
SchedulerType=sched/builtin
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
ReturnToService=2
MinJobAge=300
SlurmdParameters=config_overrides
SchedulerParameters=defer_batch=0
NodeName={host} NodeAddr=127.0.0.1 CPUs={cpus} RealMemory=65536 State=UNKNOWN
PartitionName=test Nodes={host} Default=YES MaxTime=INFINITE State=UP OverSubscribe=FORCE:4
"""


@contextmanager
def slurm_cluster(*, cpus: int = 16) -> Iterator[SlurmCluster]:
    """munged, slurmctld and slurmd of a one-node cluster (``cpus`` job slots); stopped and removed after."""
    base = Path(tempfile.mkdtemp(prefix="omnieval-slurm-"))
    for folder in ("state", "spool"):
        (base / folder).mkdir()
    host = socket.gethostname().split(".")[0]
    cluster = SlurmCluster(base)
    cluster.conf.write_text(_conf(base, host=host, ports=free_ports(2), cpus=cpus), encoding="utf-8")
    key = base / "munge.key"
    run = {"check": True, "capture_output": True, "timeout": 30}
    subprocess.run([_sbin("mungekey"), "--create", f"--keyfile={key}"], **run)  # type: ignore[call-overload]
    key.chmod(0o400)
    daemons: list[subprocess.Popen[bytes]] = []
    try:
        munge = [
            _sbin("munged"),
            "--force",
            f"--key-file={key}",
            f"--socket={base}/munge.socket",
            f"--pid-file={base}/munged.pid",
            f"--log-file={base}/munged.log",
            f"--seed-file={base}/munge.seed",
        ]
        subprocess.run(munge, **run)  # type: ignore[call-overload]  (it daemonises)
        env = cluster.env()
        for daemon in ("slurmctld", "slurmd"):
            daemons.append(
                subprocess.Popen(
                    [_sbin(daemon), "-D", "-f", str(cluster.conf)],
                    env=env,
                    stdout=subprocess.DEVNULL,
                    stderr=subprocess.DEVNULL,
                )  # type: ignore[list-item]
            )
        _wait_ready(cluster)
        yield cluster
    finally:
        for proc in daemons:
            proc.terminate()
        for proc in daemons:
            try:
                proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                proc.kill()
        pid = base / "munged.pid"
        if pid.exists():
            with suppress(ProcessLookupError, ValueError):
                os.kill(int(pid.read_text().strip()), 15)
        shutil.rmtree(base, ignore_errors=True)


def _wait_ready(cluster: SlurmCluster, timeout: float = 30) -> None:
    """Until the node takes jobs (idle)."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        proc = subprocess.run(
            ["sinfo", "--noheader", "--format=%t"], env=cluster.env(), capture_output=True, text=True
        )
        if proc.returncode == 0 and proc.stdout.strip() in ("idle", "mix"):
            return
        time.sleep(0.3)
    raise RuntimeError(f"the test Slurm did not come up in {timeout} s{cluster.logs()}")
