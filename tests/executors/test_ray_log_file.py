"""``omnieval run --executor ray`` sends Ray's own output (what its driver threads print about the cluster,
the ``ray`` logger) to ``OUTPUT/ray.log``; omnieval's own lines stay on the terminal, and everything is
as before once the run ends."""

from __future__ import annotations

import logging
import os
import sys
import threading
from pathlib import Path

import pytest

from omnieval.cli.ray_logs import RAY_LOG, ray_output_to_file


def _print_from(thread_name: str, text: str) -> None:
    thread = threading.Thread(target=lambda: print(text, file=sys.stderr), name=thread_name)
    thread.start()
    thread.join()


def test_ray_s_lines_go_to_the_run_folder_and_omnieval_s_stay(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    pytest.importorskip("ray")
    stderr, handlers = sys.stderr, logging.getLogger("ray").handlers[:]
    with ray_output_to_file(tmp_path / "out") as path:
        _print_from("ray_listen_error_messages", "(raylet) core_worker.cc:123: node 3f… is dead")
        logging.getLogger("ray._private.worker").error("plasma store dump line")
        print("omnieval: a line of ours", file=sys.stderr)
        _print_from("omnieval-warm-up", "another of ours")
        logging.getLogger("ray").info("Connecting to existing Ray cluster")  # Ray's own, after its import
    assert path == tmp_path / "out" / RAY_LOG
    logged = path.read_text(encoding="utf-8")
    assert "core_worker.cc:123" in logged and "plasma store dump line" in logged
    assert "Connecting to existing Ray cluster" in logged
    terminal = capsys.readouterr().err
    assert "a line of ours" in terminal and "another of ours" in terminal
    assert "core_worker" not in terminal and "plasma" not in terminal and "Connecting" not in terminal
    assert sys.stderr is stderr and logging.getLogger("ray").handlers == handlers


def test_what_ray_s_c_code_writes_to_descriptor_2_goes_to_the_run_folder(
    tmp_path: Path, capfd: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Ray's core worker writes its errors to descriptor 2 itself, past ``sys.stderr``: for the run, that
    descriptor is ``ray.log``'s, and omnieval's own lines go to a copy of the terminal's."""
    pytest.importorskip("ray")
    with open(2, "w", closefd=False) as terminal_stream:  # sys.stderr as a console script has it
        monkeypatch.setattr(sys, "stderr", terminal_stream)
        with ray_output_to_file(tmp_path / "out") as path:
            os.write(2, b"[2026-01-01 W 1 2] core_worker.cc:1: plasma store dump\n")  # as C++ does
            print("omnieval: still on the terminal", file=sys.stderr)
        os.write(2, b"after the run: the terminal again\n")
    assert "core_worker.cc:1: plasma store dump" in path.read_text(encoding="utf-8")
    terminal = capfd.readouterr().err
    assert "omnieval: still on the terminal" in terminal and "after the run: the terminal again" in terminal
    assert "core_worker" not in terminal and "plasma" not in terminal
