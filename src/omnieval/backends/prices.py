"""Prices per model (versioned data in ``prices.json``; ``--prices FILE`` overrides entries) and what a
request can cost at most, so ``--cost-limit`` can stop a run *before* a request could pass the limit."""

from __future__ import annotations

import fnmatch
import json
from pathlib import Path
from typing import Any

from pydantic import Field, ValidationError

from omnieval.errors import ConfigError
from omnieval.types import Request, Usage
from omnieval.types._base import Frozen

__all__ = ["MEDIA_TOKEN_ALLOWANCE", "ModelPrice", "PriceTable", "load_prices", "prompt_token_bound"]

PER = 1_000_000
"""Prices are USD per million tokens."""
MEDIA_TOKEN_ALLOWANCE = {"image": 3_000, "audio": 20_000, "video": 60_000}
"""Tokens assumed for one media part when bounding a request's cost before sending it (providers bill
media by size and duration; these are generous allowances, not exact counts)."""


class ModelPrice(Frozen):
    """USD per million tokens; a missing special price falls back to the ordinary one."""

    input: float = Field(ge=0)
    output: float = Field(ge=0)
    cached_input: float | None = Field(default=None, ge=0)
    reasoning: float | None = Field(default=None, ge=0)
    """Reasoning tokens (within ``completion_tokens``); ``None``: billed as output."""
    batch_input: float | None = Field(default=None, ge=0)
    batch_output: float | None = Field(default=None, ge=0)

    @property
    def free(self) -> bool:
        """Every rate 0 (``replay/*``, ``baseline/*``): every bound and cost is 0.0, nothing to compute."""
        rates = (
            self.input,
            self.output,
            self.cached_input,
            self.reasoning,
            self.batch_input,
            self.batch_output,
        )
        return not any(rates)

    def rates(self, *, batch: bool) -> tuple[float, float]:
        if batch:
            return (
                self.batch_input if self.batch_input is not None else self.input,
                self.batch_output if self.batch_output is not None else self.output,
            )
        return self.input, self.output

    def cost(self, usage: Usage, *, batch: bool = False) -> float | None:
        """The cost of one answer from its reported usage; ``None`` when the backend reported no tokens."""
        if usage.prompt_tokens is None and usage.completion_tokens is None:
            return None
        inp, out = self.rates(batch=batch)
        prompt, completion = usage.prompt_tokens or 0, usage.completion_tokens or 0
        cached = min(usage.cached_tokens or 0, prompt)
        reasoning = min(usage.reasoning_tokens or 0, completion)
        cached_rate = self.cached_input if self.cached_input is not None else inp
        reasoning_rate = self.reasoning if self.reasoning is not None else out
        total = (
            (prompt - cached) * inp
            + cached * cached_rate
            + (completion - reasoning) * out
            + reasoning * reasoning_rate
        )
        return total / PER

    def bound(self, request: Request, *, batch: bool = False, extra_output: int = 0) -> float:
        """An upper estimate of what ``request`` can cost: the prompt bounded by its UTF-8 bytes (a
        token is at least one byte) plus media allowances, and the whole ``max_tokens`` (plus a
        thinking budget) as output at the dearer of the output and reasoning rates."""
        inp, out = self.rates(batch=batch)
        out = max(out, self.reasoning or 0.0)
        completion = request.generation.max_tokens + extra_output
        return (prompt_token_bound(request) * inp + completion * out) / PER


def prompt_token_bound(request: Request) -> int:
    """At most this many prompt tokens: text bytes, media allowances, 8 tokens of framing per message."""
    total = 0
    for message in request.messages:
        total += 8
        if isinstance(message.content, str):
            total += len(message.content.encode())
            continue
        for part in message.content:
            text = getattr(part, "text", None)
            total += (
                len(text.encode()) if isinstance(text, str) else MEDIA_TOKEN_ALLOWANCE.get(part.type, 60_000)
            )
    return total + len((request.prompt or "").encode())


class PriceTable(Frozen):
    """``PROVIDER/NAME`` (or an ``fnmatch`` pattern such as ``baseline/*``) → price; ``sources`` says
    where the entries came from (the built-in table's version, user files)."""

    models: dict[str, ModelPrice]
    sources: tuple[str, ...] = ()

    def find(self, model: str) -> ModelPrice | None:
        if model in self.models:
            return self.models[model]
        patterns = sorted((p for p in self.models if any(c in p for c in "*?[")), key=len, reverse=True)
        return next((self.models[p] for p in patterns if fnmatch.fnmatchcase(model, p)), None)

    def require(self, model: str, *, why: str) -> ModelPrice:
        found = self.find(model)
        if found is None:
            raise ConfigError(
                f"{why}: no price for model {model!r} in the price table ({'; '.join(self.sources)}); "
                "add it in a --prices file: "
                f'{{"models": {{"{model}": {{"input": USD_PER_1M, "output": USD_PER_1M}}}}}}'
            )
        return found


def _read(path: Path) -> dict[str, Any]:
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as exc:
        raise ConfigError(f"--prices {path}: cannot read it ({exc.strerror})") from None
    try:
        if path.suffix in (".yaml", ".yml"):
            import yaml

            data = yaml.safe_load(text)
        else:
            data = json.loads(text)
    except ValueError as exc:
        raise ConfigError(
            f"--prices {path}: not valid {'YAML' if path.suffix in ('.yaml', '.yml') else 'JSON'}: {exc}"
        ) from None
    if not isinstance(data, dict) or not isinstance(data.get("models"), dict):
        raise ConfigError(
            f'--prices {path}: expected {{"models": {{"PROVIDER/NAME": {{"input": …, "output": …}}}}}}'
        )
    return data


def _entries(data: dict[str, Any], *, where: str) -> dict[str, ModelPrice]:
    out = {}
    for name, entry in data["models"].items():
        try:
            out[name] = ModelPrice.model_validate(entry)
        except ValidationError as exc:
            problems = "; ".join(
                f"{'.'.join(map(str, e['loc'])) or 'entry'}: {e['msg']}" for e in exc.errors()
            )
            raise ConfigError(f"{where}: model {name!r}: {problems}") from None
    return out


def load_prices(user_file: Path | None = None) -> PriceTable:
    """The built-in table, with ``user_file``'s entries replacing or adding whole models."""
    builtin = json.loads((Path(__file__).parent / "prices.json").read_text(encoding="utf-8"))
    models = _entries(builtin, where="built-in prices.json")
    sources = [f"built-in table {builtin['version']}"]
    if user_file is not None:
        models |= _entries(_read(user_file), where=f"--prices {user_file}")
        sources.append(f"--prices {user_file}")
    return PriceTable(models=models, sources=tuple(sources))
