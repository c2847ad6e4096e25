"""The cluster examples of docs/scale-out/ray.md hold: every YAML block parses, the ``ray up`` file passes
Ray's own cluster-config schema and uses only flags of ``ray start``, and every ``omnieval run``/``sweep``
command on the page (shell blocks, a RayJob's entrypoint, ``ray exec``) uses only flags the CLI has."""

from __future__ import annotations

import re
import shlex
from pathlib import Path
from typing import Any

import pytest
import yaml

DOC = Path(__file__).resolve().parents[2] / "docs" / "scale-out" / "ray.md"
TEXT = DOC.read_text(encoding="utf-8")
YAML_BLOCKS = [yaml.safe_load(b) for b in re.findall(r"```yaml\n(.*?)```", TEXT, flags=re.S)]
SHELL = "\n".join(re.findall(r"```bash\n(.*?)```", TEXT, flags=re.S))


def _strings(value: Any) -> list[str]:
    if isinstance(value, dict):
        return [s for v in value.values() for s in _strings(v)]
    if isinstance(value, list):
        return [s for v in value for s in _strings(v)]
    return [value] if isinstance(value, str) else []


def omnieval_commands(text: str) -> list[tuple[str, list[str]]]:
    """Each ``omnieval run|sweep ...`` in ``text`` (continued lines joined) as (command, words after it);
    a command inside a double-quoted ``ray exec "..."`` ends at its closing quote."""
    found = []
    for line in text.replace("\\\n", " ").splitlines():
        for match in re.finditer(r"\bomnieval (run|sweep)\b(.*)", line):
            rest = match.group(2).replace(" ...", " ")
            try:
                words = shlex.split(rest, comments=True)
            except ValueError:  # the closing quote of ray exec "..."
                words = shlex.split(rest.rstrip().removesuffix('"'), comments=True)
            found.append((match.group(1), words))
    return found


def _flags(words: list[str]) -> set[str]:
    return {w.split("=", 1)[0] for w in words if re.fullmatch(r"--?[A-Za-z][\w-]*(=.*)?", w)}


def _options(command: Any) -> set[str]:
    return {opt for param in command.params for opt in (*param.opts, *param.secondary_opts)}


def _documented(kind: str) -> dict[str, Any]:
    blocks = [b for b in YAML_BLOCKS if isinstance(b, dict) and (b.get("kind") == kind or kind in b)]
    assert len(blocks) == 1, f"docs/scale-out/ray.md has one {kind} example"
    return blocks[0]


def test_every_documented_omnieval_command_uses_flags_the_cli_has() -> None:
    import typer.main

    from omnieval.cli.app import app

    cli = typer.main.get_command(app)
    commands = omnieval_commands(SHELL) + [
        c for block in YAML_BLOCKS for text in _strings(block) for c in omnieval_commands(text)
    ]
    assert len(commands) >= 6 and {name for name, _ in commands} == {"run", "sweep"}
    for name, words in commands:
        unknown = _flags(words) - _options(cli.commands[name])  # type: ignore[attr-defined]
        assert not unknown, f"omnieval {name} {' '.join(words)}: no such flag {sorted(unknown)}"
    assert any("--ray-runtime-env" in words for _, words in commands)


def test_the_ray_up_file_is_a_valid_cluster_config_with_real_ray_start_flags() -> None:
    pytest.importorskip("ray")
    from ray.autoscaler._private.util import prepare_config, validate_config
    from ray.scripts.scripts import start

    config = _documented("cluster_name")
    validate_config(prepare_config(config))  # raises on a key or value Ray's schema refuses
    starts = config["head_start_ray_commands"] + config["worker_start_ray_commands"]
    flags = {f for c in starts if " ray start " in f" {c} " for f in _flags(shlex.split(c))}
    assert {"--head", "--port", "--address"} <= flags
    assert not flags - _options(start), f"not flags of ray start: {sorted(flags - _options(start))}"
    assert any("omnieval[ray]" in c for c in config["setup_commands"]), "omnieval on every node"
    assert config["available_node_types"][config["head_node_type"]]["resources"] == {"CPU": 0}


def test_the_rayjob_runs_omnieval_on_ray_with_it_installed_through_its_runtime_env() -> None:
    job = _documented("RayJob")
    assert job["apiVersion"] == "ray.io/v1"
    spec = job["spec"]
    entry = omnieval_commands(spec["entrypoint"])
    assert [name for name, _ in entry] == ["run"]
    words = entry[0][1]
    assert words[words.index("--executor") + 1] == "ray" and "--ray-address" in words
    assert any(p.startswith("omnieval[ray]") for p in yaml.safe_load(spec["runtimeEnvYAML"])["pip"])
    cluster = spec["rayClusterSpec"]
    assert cluster["authOptions"] == {"mode": "token"}
    assert cluster["headGroupSpec"]["rayStartParams"] == {"num-cpus": "0"}, "the head holds no worker"
    assert cluster["workerGroupSpecs"][0]["template"]["spec"]["containers"]


def test_the_command_finder_reads_continued_lines_comments_and_ray_exec() -> None:
    text = (
        "omnieval run --tasks t -m m \\\n    --workers 2   # note --not-a-flag\n"
        'ray exec c.yaml "X=1 omnieval sweep --models a,b \\\n    --executor ray"\n'
    )
    assert omnieval_commands(text) == [
        ("run", ["--tasks", "t", "-m", "m", "--workers", "2"]),
        ("sweep", ["--models", "a,b", "--executor", "ray"]),
    ]
