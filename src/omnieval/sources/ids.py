"""Unique sample ids within a task.

A resumed run skips every sample whose id it has already recorded, so a second row with the same
id would be taken for done and silently lost. Duplicates are therefore an error, found before the
first request (:func:`check_unique_ids`) and again whenever the data is streamed.
"""

from __future__ import annotations

from collections.abc import Iterable

from omnieval.errors import SourceError
from omnieval.sources.task import Task

__all__ = ["IdLedger", "check_unique_ids"]


class IdLedger:
    """Where each sample id was first seen; seeing it again raises an error naming both places."""

    def __init__(self, *, path: str, field: str | None, unit: str = "line") -> None:
        self.path, self.field, self.unit = path, field, unit
        self._first: dict[str, int | str] = {}

    def add(self, sample_id: str, line: int | str) -> None:
        """``line``: a number in ``unit``s, or a place already spelt out (``test-1.parquet row 3``)."""
        first = self._first.setdefault(sample_id, line)
        if first != line:
            places = f"{self.unit}s {first} and {line}" if isinstance(line, int) else f"{first} and {line}"
            raise SourceError(
                f"duplicate sample id {sample_id!r} at {places}: a resumed run would "
                "take the second for done; give every row its own id",
                path=self.path,
                sample_id=sample_id,
                field=self.field,
            )


def check_unique_ids(tasks: Iterable[Task]) -> None:
    """Scan every task's ids (cheaply where the task can) so a duplicate fails before any request."""
    for task in tasks:
        task.scan_ids()
