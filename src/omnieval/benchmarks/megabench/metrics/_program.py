"""``program_judge``: run the model's Python program on stdin/stdout test cases, never in-process.

Each test case runs in a fresh ``python -I`` child with CPU, memory, file-size and process limits,
the network, process spawning and ``ctypes`` disabled at the Python level (``importlib`` only for
the program's own imports, so stdlib modules such as ``dataclasses`` still load), the installed
packages importable as in the original's environment (``numpy``), and a wall-clock kill of the
whole process group. Inside, the original's harness is reproduced: ``input()`` returns the test
lines (``sys.stdin`` is not fed), stdout is captured and right-stripped, and the program runs as
``__main__`` only when it contains the exact guard ``if __name__ == "__main__":``; otherwise it runs
as the original's function-local ``exec`` (top-level names are locals, the judge module's globals
``io``/``json``/``pathlib`` visible). Score = passed / total.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from typing import Any

__all__ = ["TIME_LIMIT_S", "program_judge", "run_program"]

TIME_LIMIT_S = 2.0
"""Per-test limit, as in the original."""
MEMORY_LIMIT_BYTES = 1 << 30
TIMEOUT_OUTPUT = "ERROR: Code execution exceeded the time limit."
ORIGINAL_MODULE_NAME = "metrics.scoring.program_judge"
"""The original ``exec``s a program without a ``__main__`` guard inside its judge module, so the
program sees that module's ``__name__`` and its imported ``io``/``json``/``pathlib``."""

_HARNESS = r"""
import builtins, io, json, os, resource, signal, sys
job = json.loads(sys.stdin.read())
out_fd = job["fd"]
def report(text):
    os.write(out_fd, json.dumps({"out": text}).encode())
    os._exit(0)
def on_alarm(signum, frame):
    report(job["timeout_text"])
limits = ((resource.RLIMIT_AS, job["mem"]), (resource.RLIMIT_CPU, job["cpu"]),
          (resource.RLIMIT_FSIZE, 1 << 20), (resource.RLIMIT_NPROC, 0), (resource.RLIMIT_CORE, 0))
for which, value in limits:
    try:
        resource.setrlimit(which, (value, value))
    except (ValueError, OSError):
        pass
def refuse(*args, **kwargs):
    raise PermissionError("disabled in program_judge")
for name in ("fork", "forkpty", "system", "popen", "execv", "execve", "execl", "execlp", "execvp",
             "execvpe", "spawnv", "spawnve", "posix_spawn", "posix_spawnp", "kill", "killpg"):
    if hasattr(os, name):
        setattr(os, name, refuse)
blocked = {"socket", "_socket", "ssl", "subprocess", "multiprocessing", "ctypes", "_ctypes", "pty",
           "_posixsubprocess", "posix", "resource", "signal", "_signal"}
user_blocked = {"importlib", "_imp", "asyncio", "urllib", "http", "ftplib", "smtplib", "telnetlib"}
user_names = {"__main__", job["module_name"]}
real_import = builtins.__import__
def guarded_import(name, globals=None, *args, **kwargs):
    top = name.split(".")[0]
    caller = (globals or {}).get("__name__")
    if top in blocked or (top in user_blocked and caller in user_names):
        raise ImportError(f"module {name!r} is disabled in program_judge")
    return real_import(name, globals, *args, **kwargs)
for mod in list(sys.modules):
    if mod.split(".")[0] in blocked:
        del sys.modules[mod]
builtins.__import__ = guarded_import
lines = iter(job["lines"])
def fake_input(*args, **kwargs):
    return next(lines)
builtins.input = fake_input
buf = io.StringIO()
sys.stdout = buf
signal.signal(signal.SIGALRM, on_alarm)
signal.setitimer(signal.ITIMER_REAL, job["wall"])
code = job["code"]
try:
    if job["as_main"]:
        exec(code, {"__name__": "__main__", "__builtins__": builtins})
    else:
        import json as _json, pathlib as _pathlib
        module = {"__name__": job["module_name"], "__builtins__": builtins, "io": io, "json": _json,
                  "pathlib": _pathlib}
        exec(code, module, {})
except BaseException as exc:
    signal.setitimer(signal.ITIMER_REAL, 0)
    report(f"ERROR during execution: {exc}")
signal.setitimer(signal.ITIMER_REAL, 0)
report(buf.getvalue().rstrip())
"""


def _kill_group(proc: subprocess.Popen[bytes]) -> None:
    try:
        os.killpg(proc.pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        proc.kill()


def run_program(code: str, lines: list[str], *, time_limit_s: float = TIME_LIMIT_S) -> str:
    """The program's right-stripped stdout for one test, or an ``ERROR...`` string."""
    read_fd, write_fd = os.pipe()
    job = {
        "code": code,
        "lines": [str(x) for x in lines],
        "fd": write_fd,
        "wall": time_limit_s,
        "cpu": int(time_limit_s) + 1,
        "mem": MEMORY_LIMIT_BYTES,
        "timeout_text": TIMEOUT_OUTPUT,
        "as_main": 'if __name__ == "__main__":' in code,
        "module_name": ORIGINAL_MODULE_NAME,
    }
    proc = subprocess.Popen(
        [sys.executable, "-I", "-c", _HARNESS],
        stdin=subprocess.PIPE,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        pass_fds=(write_fd,),
        start_new_session=True,
    )
    os.close(write_fd)
    try:
        proc.communicate(json.dumps(job).encode(), timeout=time_limit_s + 5)
    except subprocess.TimeoutExpired:
        _kill_group(proc)
        proc.wait()
        os.close(read_fd)
        return TIMEOUT_OUTPUT
    finally:
        _kill_group(proc)
    with os.fdopen(read_fd, "rb") as reader:
        raw = reader.read(4 << 20)
    try:
        return str(json.loads(raw.decode("utf-8", "replace"))["out"])
    except (ValueError, KeyError, TypeError):
        return "ERROR: No output was produced before timeout."


def program_judge(pred: Any, context: dict[str, Any], *, strict: bool = False) -> float:
    """Fraction of ``eval_context['test_case']`` whose stdout equals the expected text."""
    cases = context["test_case"]
    if isinstance(cases, dict):
        cases = [cases]
    if not cases:
        return 0.0
    code = pred if isinstance(pred, str) else str(pred)
    passed = 0
    for case in cases:
        # The original feeds ``("\n".join(input) + "\n").splitlines()`` to ``input()``: an item
        # holding a newline gives several lines, and a non-string item is a TypeError (score 0).
        output = run_program(code, ("\n".join(case["input"]) + "\n").splitlines())
        passed += int(output == str(case["expected"]).rstrip())
    return passed / len(cases)
