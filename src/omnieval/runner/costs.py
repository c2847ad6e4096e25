"""Spending under ``--cost-limit``: each request's worst case is reserved before it is sent, and the
run stops (``CostLimitReached``, exit code 4) rather than send one that could pass the limit."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from omnieval.backends.prices import ModelPrice, PriceTable, load_prices
from omnieval.errors import CostLimitReached
from omnieval.store import recorded_spend
from omnieval.types import Request, Response

__all__ = ["CostMeter", "Priced", "RunCosts"]


@dataclass
class CostMeter:
    """The run's spending: what earlier invocations and finished requests cost, plus what requests in
    flight may cost at most. One meter serves the model and the judges."""

    limit: float | None
    spent: float = 0.0
    reserved: float = 0.0

    def reserve(self, amount: float, *, what: str) -> None:
        if self.limit is not None and self.spent + self.reserved + amount > self.limit:
            raise CostLimitReached(
                f"--cost-limit {self.limit:g} USD: {self.spent:.6f} USD spent and {self.reserved:.6f} in "
                "flight; the next "
                f"{what} request could cost up to {amount:.6f} USD, so the run stops here. Finished samples "
                "are saved: "
                "run the same command with a higher --cost-limit to go on."
            )
        self.reserved += amount

    def settle(self, reserved: float, actual: float) -> None:
        self.reserved = max(0.0, self.reserved - reserved)
        self.spent += actual


@dataclass
class Priced:
    """One endpoint's price and the shared meter, as a fetcher uses them."""

    price: ModelPrice | None
    meter: CostMeter
    what: str
    batch: bool = False

    def reserve(self, request: Request) -> float:
        if self.price is None:
            return 0.0
        amount = (
            0.0
            if self.price.free
            else self.price.bound(request, batch=self.batch, extra_output=_thinking(request))
        )
        self.meter.reserve(amount, what=self.what)
        return amount

    def settle(self, reserved: float, response: Response) -> Response:
        """The response with its cost; without reported usage the reserved worst case is counted."""
        if self.price is None:
            self.meter.settle(reserved, 0.0)
            return response
        free = self.price.free or response.error is not None
        cost = 0.0 if free else self.price.cost(response.usage, batch=self.batch)
        actual = cost if cost is not None else reserved
        self.meter.settle(reserved, actual)
        return response.model_copy(update={"cost_usd": actual})


def _thinking(request: Request) -> int:
    budget = getattr(request.generation, "reasoning_budget", None)
    return int(budget) if isinstance(budget, int) else 0


@dataclass
class RunCosts:
    """The run's price table and meter; ``price_for`` is ``None`` for a model the table lacks (no cost
    recorded), which :meth:`check` turns into an error under ``--cost-limit``."""

    table: PriceTable
    meter: CostMeter
    batch: bool = False
    checked: dict[str, ModelPrice | None] = field(default_factory=dict)

    @classmethod
    def create(
        cls, *, prices: Path | None, limit: float | None, output: Path, batch: bool = False
    ) -> RunCosts:
        spent = recorded_spend(output / "samples.jsonl") if limit is not None else 0.0
        return cls(load_prices(prices), CostMeter(limit=limit, spent=spent), batch=batch)

    def check(self, model: str, *, role: str) -> None:
        """Under ``--cost-limit`` every model called must have a price (before any request)."""
        if self.meter.limit is not None:
            self.table.require(model, why=f"--cost-limit needs the {role}'s price")

    def priced(self, model: str, *, role: str) -> Priced:
        return Priced(self.table.find(model), self.meter, what=f"{role} ({model})", batch=self.batch)
