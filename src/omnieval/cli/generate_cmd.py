"""``omnieval generate SUITE --output DIR``: run a registered data generator into a fresh folder.

The generator writes into a temporary folder beside DIR, which replaces DIR only when it is complete,
so an interrupted or failed run never leaves a half-written set that looks whole. Options are checked
against the generator's keyword-only parameters before anything is written; only options that were
given are passed. ``--private-seed FILE`` draws a secret seed (kept in FILE, created 0600 if missing)
for a hidden test set: the seed is replaced in the output by a hash commitment, so the published
generator cannot regenerate the set without FILE.
"""

from __future__ import annotations

import hashlib
import json
import os
import secrets
from pathlib import Path
from typing import Annotated, Any

import typer

from omnieval.cli._common import fail, friendly_errors, parse_kv

__all__ = ["generate_command", "private_seed", "redact_seed"]

Opt = typer.Option
Arg = typer.Argument


def private_seed(path: Path) -> int:
    """The secret seed in ``path``; a new random 63-bit seed (file mode 0600) when it does not exist."""
    if path.exists():
        text = path.read_text(encoding="utf-8").strip()
        if not text.isdigit():
            fail(f"{path}: a private seed file holds one non-negative integer")
        return int(text)
    value = secrets.randbits(63)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    with os.fdopen(fd, "w", encoding="utf-8") as fh:
        fh.write(f"{value}\n")
    print(f"created private seed file {path} (keep it secret; it regenerates the set)")
    return value


def _redact(value: Any, seed: int, commitment: str) -> Any:
    if isinstance(value, dict):
        return {
            k: commitment if k == "seed" and v == seed else _redact(v, seed, commitment)
            for k, v in value.items()
        }
    if isinstance(value, list):
        return [_redact(v, seed, commitment) for v in value]
    return value


def redact_seed(folder: Path, seed: int) -> str:
    """Replace every ``"seed": <seed>`` in the folder's JSON/JSONL files by a hash commitment."""
    commitment = "private:sha256:" + hashlib.sha256(str(seed).encode()).hexdigest()[:16]
    for path in sorted(folder.rglob("*.json")) + sorted(folder.rglob("*.jsonl")):
        text = path.read_text(encoding="utf-8")
        if path.suffix == ".jsonl":
            rows = [
                json.dumps(_redact(json.loads(line), seed, commitment), ensure_ascii=False)
                for line in text.splitlines()
                if line.strip()
            ]
            path.write_text("\n".join(rows) + "\n", encoding="utf-8")
        else:
            path.write_text(
                json.dumps(_redact(json.loads(text), seed, commitment), ensure_ascii=False, indent=1) + "\n",
                encoding="utf-8",
            )
    return commitment


def _list_generators() -> None:
    from omnieval.sources.plugins import generators

    for name, fn in generators.items():
        doc = (fn.__doc__ or "").strip().splitlines()
        print(f"{name:<24} {doc[0] if doc else ''}")


def _generate(suite: str, output: Path, options: dict[str, Any], *, force: bool, secret: int | None) -> None:
    from omnieval.registry import check_options
    from omnieval.sources.plugins import generators

    fn = generators.get(suite)
    check_options(fn, options, what=f"generator {suite!r}", n_positional=1)
    output = output.expanduser().resolve()
    if output.exists() and any(output.iterdir()) and not force:
        fail(f"{output} exists and is not empty; use --force to replace it")
    from omnieval.store.staging import staged_dir  # here: importing it loads the data model, --help need not

    with staged_dir(output, replace=force) as tmp:
        produced = Path(fn(tmp, **options)).resolve()
        if not produced.is_relative_to(tmp) or not produced.is_file():
            fail(f"generator {suite!r} returned {produced}, not a file inside its output folder")
        note = f"; seed replaced by {redact_seed(tmp, secret)}" if secret is not None else ""
    rel = produced.relative_to(tmp)
    count = sum(1 for line in (output / rel).read_text(encoding="utf-8").splitlines() if line.strip())
    print(f"wrote {count} instances to {output / rel}{note}")


def generate_command(
    suite: Annotated[str | None, Arg(help="Generator name (see --list), e.g. art.")] = None,
    output: Annotated[
        Path | None, Opt("--output", "-o", help="Folder to write (replaced only when complete).")
    ] = None,
    seed: Annotated[int | None, Opt(help="Random seed (same seed, same files).")] = None,
    n: Annotated[int | None, Opt("--n", help="Number of instances (the generator says per what).")] = None,
    per_template: Annotated[
        int | None, Opt("--per-template", help="Instances per template (template suites).")
    ] = None,
    opt: Annotated[list[str] | None, Opt("--opt", help="Generator option KEY=VALUE (repeatable).")] = None,
    private: Annotated[
        Path | None,
        Opt("--private-seed", help="Secret seed file for a hidden test set (created if missing)."),
    ] = None,
    force: Annotated[bool, Opt("--force", help="Replace a non-empty output folder.")] = False,
    list_all: Annotated[bool, Opt("--list", help="List the registered generators and exit.")] = False,
) -> None:
    """Generate a benchmark set (audio, image, video suites) with a manifest.jsonl."""
    with friendly_errors():
        if list_all:
            _list_generators()
            return
        if suite is None or output is None:
            fail("give a generator name and --output DIR (or --list)")
            return
        if private is not None and seed is not None:
            fail("--seed and --private-seed exclude each other")
        if private is not None and private.expanduser().resolve().is_relative_to(
            output.expanduser().resolve()
        ):
            fail("--private-seed must live outside the output folder (the folder is what gets shared)")
        options = {k.replace("-", "_"): v for k, v in parse_kv(opt, option="--opt").items()}
        secret = private_seed(private) if private is not None else None
        given = {"seed": secret if secret is not None else seed, "n": n, "per_template": per_template}
        for key, value in given.items():
            if value is not None:
                if key in options:
                    fail(f"--{key.replace('_', '-')} and --opt {key}=... both given")
                options[key] = value
        _generate(suite, output, options, force=force, secret=secret)
