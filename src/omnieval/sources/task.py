"""A loaded task: its validated spec plus a lazy sample stream."""

from __future__ import annotations

import dataclasses
import hashlib
import json
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from omnieval.errors import SourceError
from omnieval.types import Sample, TaskSpec

__all__ = ["Task"]


@dataclass(frozen=True)
class Task:
    """A task ready to run: the spec, where it lives, and how to stream its samples.

    ``iter_samples`` is called anew for every pass, so a dataset is never held in memory whole.
    ``iter_demos`` yields the few-shot pool (MERA ``shots`` split) when the task has one.
    """

    spec: TaskSpec
    iter_samples: Callable[[], Iterator[Sample]]
    base_dir: Path | None = None
    size: int | None = None
    iter_demos: Callable[[], Iterator[Sample]] | None = None
    data_fingerprint: str | None = None
    """Hash of the data files (path, size, mtime, or content) the samples come from."""
    origin: str = ""
    """Where the task came from: a YAML path, ``FORMAT:PATH``, or ``builtin``."""
    extra: dict[str, object] = field(default_factory=dict)
    check_ids: Callable[[], None] | None = None
    """Reads only the ids and raises on a duplicate; ``None`` means :meth:`scan_ids` streams the samples."""
    positions: tuple[int, ...] | None = None
    """Set on a :meth:`view`: each sample's position in the full task (prompts and seeds depend on it)."""

    @property
    def name(self) -> str:
        return self.spec.name

    @property
    def content_hash(self) -> str:
        """Hash of the full effective spec: changes whenever the task definition changes. ``repeats``,
        ``breakdowns`` and ``agent`` enter it only when set: a task without them hashes as it did before
        the fields existed, so run folders made then still resume."""
        unset = {k for k in ("repeats", "breakdowns", "agent") if not getattr(self.spec, k)}
        dumped = self.spec.model_dump(mode="json", exclude=unset or None)
        body = json.dumps(dumped, sort_keys=True, ensure_ascii=False)
        return hashlib.sha256(body.encode()).hexdigest()[:16]

    def positioned(self) -> Iterator[tuple[int, Sample]]:
        """``(position, sample)`` pairs, the position counted in the full task's data (a view keeps its
        own)."""
        if self.positions is None:
            return enumerate(self.iter_samples())
        return zip(self.positions, self.iter_samples(), strict=True)

    def view(self, pairs: Sequence[tuple[int, Sample]]) -> Task:
        """The same task over only ``pairs`` (``(position, sample)``, held in memory): spec, origin and
        fingerprints unchanged, so a run over the view records exactly what a run over the task would
        for those samples, without streaming the rest of the data (a Ray shard's set-up)."""
        samples = [s for _, s in pairs]
        return dataclasses.replace(
            self,
            iter_samples=lambda: iter(samples),
            size=len(samples),
            check_ids=None,
            positions=tuple(p for p, _ in pairs),
        )

    def scan_ids(self) -> None:
        """Raise :class:`~omnieval.errors.SourceError` if two samples share an id (before a run starts)."""
        if self.check_ids is not None:
            self.check_ids()
            return
        seen: dict[str, int] = {}
        for position, sample in enumerate(self.iter_samples(), 1):
            first = seen.setdefault(sample.id, position)
            if first != position:
                raise SourceError(
                    f"duplicate sample id {sample.id!r} at samples {first} and {position}",
                    path=self.origin or self.name,
                    sample_id=sample.id,
                    field="id",
                )

    @classmethod
    def from_samples(cls, spec: TaskSpec, samples: Iterable[Sample], **kwargs: object) -> Task:
        """A task over an in-memory list (tests, generated tasks)."""
        items = list(samples)
        return cls(spec=spec, iter_samples=lambda: iter(items), size=len(items), **kwargs)  # type: ignore[arg-type]
