"""``--tasks BENCH:DIR``: a published benchmark read from a local copy of its Hub dataset repository.

DIR is what ``huggingface-cli download --repo-type dataset ORG/NAME --local-dir DIR`` leaves: Parquet
files with the published columns and feature types (images as ``{bytes, path}`` structs), configs as
sub-folders, split files named ``SPLIT-00000-of-00001.parquet`` (or ``data/SPLIT-*.parquet``, or a file a
benchmark names itself). Rows are streamed row group by row group; nothing holds the split in memory.

A benchmark is a :class:`HubBenchmark` registered with :func:`register_hub_benchmark` from its own package
(``omnieval/benchmarks/<bench>/``, one ``omnieval.plugins`` entry point): the registration also makes the
``BENCH:`` importer, so the engine never names a benchmark. Every data problem (a missing config, split
or column, an undecodable image, a duplicate id) is a :class:`~omnieval.errors.SourceError` naming the
benchmark, the file, the sample and the field.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs

from omnieval.errors import SourceError, TaskFileError
from omnieval.registry import Registry
from omnieval.sources.ids import IdLedger
from omnieval.sources.importers import importers
from omnieval.sources.task import Task
from omnieval.types import (
    GenerationConfig,
    MediaRef,
    MetricRef,
    PluginRef,
    PromptSpec,
    PromptVariant,
    Sample,
    TaskSpec,
)

__all__ = [
    "HubBenchmark",
    "HubRow",
    "hub_benchmarks",
    "image_ref",
    "load_hub_tasks",
    "prompted_spec",
    "register_hub_benchmark",
    "reworded",
    "split_files",
    "with_variants",
]

_BATCH = 512
"""Rows decoded at a time inside a row group (bounds memory for row groups of large images)."""


@dataclass(frozen=True)
class HubRow:
    """One row of a benchmark's scored split and where it sits (for ids and error messages)."""

    bench: str
    file: Path
    config: str | None
    row: int
    """0-based row in its file."""
    position: int
    """0-based row position over the whole scored split, in file order (the positional sample id)."""
    data: dict[str, Any]

    def error(self, message: str, *, field: str | None = None, sample_id: str | None = None) -> SourceError:
        """A data error naming the benchmark, the file and row, the sample and the field."""
        return SourceError(
            f"{self.bench}: {message} (row {self.row})",
            path=str(self.file),
            sample_id=sample_id if sample_id is not None else str(self.position),
            field=field,
        )

    def get(self, column: str) -> Any:
        """A column the benchmark requires (checked against the schema before any row is read)."""
        return self.data[column]


@dataclass(frozen=True)
class HubBenchmark:
    """A published benchmark: where its data lies in the Hub repository and how it is scored.

    ``spec`` is the task without its source (prompt, parser, metrics, aggregation, breakdowns); the
    importer binds it to the rows of DIR. ``to_sample`` turns one :class:`HubRow` into a
    :class:`~omnieval.types.Sample` (raising ``row.error(...)`` on bad data); its id is the ``id_column``
    value, or the row position when the dataset has no id column.
    """

    name: str
    """The ``BENCH`` of ``--tasks BENCH:DIR`` and the task's name."""
    dataset: str
    """``ORG/NAME`` of the dataset repository on the Hub."""
    split: str
    """The split scored."""
    columns: tuple[str, ...]
    """Columns every scored file must have."""
    spec: Callable[[], TaskSpec]
    to_sample: Callable[[HubRow], Sample]
    id_column: str | None = None
    optional_columns: tuple[str, ...] = ()
    """Columns read when a file has them (a name that differs between configs, a late addition)."""
    configs: tuple[str, ...] | None = None
    """Config sub-folders read, in this order; ``None``: the repository root holds the split."""
    files: Mapping[str, str] = field(default_factory=dict)
    """A split file the repository names itself, by config (``""`` for the root): a glob under it."""
    modality: str = "image"
    size: int | None = None
    """Rows of the scored split as published."""
    licence: str = ""
    homepage: str = ""
    scorer: str = ""
    """The official scorer matched: ``repo@commit:path``."""
    docs: str = ""
    """The docs page (``docs/benchmarks/hub/<name>.md``)."""
    features: Mapping[str, Any] = field(default_factory=dict)
    """The dataset's Hub features (``datasets`` JSON form), written by the test-copy generator."""
    example_row: Callable[[int, str | None], dict[str, Any]] | None = None
    """A synthetic row in the published schema (position, config) for the test-copy generator."""
    variants: tuple[PromptVariant, ...] = ()
    """Alternative instruction wordings beside the authors' prompt (variant ``default``), used only when
    ``DIR?prompts=…`` asks for them: then they are spread over the samples as a task's ``prompt.variants``
    always are (MERA's prompts included), and ``results.json`` gives each its ``by_variant`` score."""

    def sample_id(self, row: HubRow) -> str:
        """The dataset's own id where it has an id column, else the row's 0-based position."""
        if self.id_column is None:
            return str(row.position)
        value = row.data.get(self.id_column)
        if value is None or value == "":
            raise row.error("the id column is empty", field=self.id_column)
        return str(value)


hub_benchmarks: Registry[HubBenchmark] = Registry("hub benchmark", group="omnieval.hub_benchmarks")


def prompted_spec(
    name: str,
    *,
    description: str,
    modality: str,
    language: str,
    parser: str,
    metric: MetricRef | tuple[MetricRef, ...],
    breakdowns: tuple[str, ...],
    max_tokens: int,
    source: str,
    **more: Any,
) -> TaskSpec:
    """A benchmark's task whose samples carry their whole prompt (``Sample.input``, media placed by their
    ``<name>``): its metric(s), breakdowns, the answer budget and the dataset named in the metadata."""
    return TaskSpec(
        name=name,
        description=description,
        modalities=(modality, "text"),  # type: ignore[arg-type]  # a benchmark names a known modality
        language=language,
        prompt=PromptSpec(template="{{ input }}"),
        parser=PluginRef(name=parser),
        metrics=metric if isinstance(metric, tuple) else (metric,),
        breakdowns=breakdowns,
        generation=GenerationConfig(max_tokens=max_tokens),
        metadata={"source": source, **more.pop("metadata", {})},
        **more,
    )


def reworded(variant_id: str, *changes: tuple[str, str]) -> PromptVariant:
    """A variant of a ``{{ input }}`` prompt with each ``(authors' text, new text)`` instruction replaced
    (a sample whose prompt lacks one keeps it as is), so media placement and question stay the authors'."""
    template = (
        "{{ input" + "".join(f" | replace({_literal(old)}, {_literal(new)})" for old, new in changes) + " }}"
    )
    return PromptVariant(id=variant_id, template=template)


def _literal(text: str) -> str:
    """``text`` as a jinja string literal (ASCII escapes, which jinja reads back exactly)."""
    return json.dumps(text, ensure_ascii=True)


def with_variants(bench: HubBenchmark, spec: TaskSpec, chosen: str, *, path: str | None = None) -> TaskSpec:
    """The task with the prompt variants ``chosen`` names (``all``, or ids joined by ``+``) as its
    ``prompt.variants``; ``default`` is the authors' prompt. An unknown id is an error naming the known."""
    default = PromptVariant(id="default", template=spec.prompt.template or "{{ input }}")
    known = {v.id: v for v in (default, *bench.variants)}
    ids = list(known) if chosen.strip() == "all" else chosen.replace(",", " ").split()
    unknown = [i for i in ids if i not in known]
    if unknown or not ids:
        raise TaskFileError(
            f"{bench.name}: unknown prompt variant(s) {unknown or [chosen]}; known: all, {', '.join(known)}",
            path=path,
            key="prompts",
        )
    variants = tuple(known[i] for i in dict.fromkeys(ids))
    return spec.model_copy(update={"prompt": spec.prompt.model_copy(update={"variants": variants})})


def register_hub_benchmark(bench: HubBenchmark) -> HubBenchmark:
    """Register ``bench`` and its ``BENCH:DIR`` importer (called from the benchmark's own package)."""
    hub_benchmarks.add(bench.name, bench)
    importers.add(bench.name, lambda spec: load_hub_tasks(bench, spec))
    return bench


def _split_options(bench: HubBenchmark, spec: str) -> tuple[Path, dict[str, str]]:
    path, _, query = spec.partition("?")
    options = {k: v[-1] for k, v in parse_qs(query, keep_blank_values=True).items()}
    unknown = sorted(set(options) - {"split", "prompts"})
    if unknown:
        raise TaskFileError(f"{bench.name}: unknown option(s) {unknown}; known: prompts, split", path=path)
    return Path(path).expanduser().resolve(), options


def split_files(bench: HubBenchmark, root: Path, config: str | None, split: str) -> list[Path]:
    """The Parquet files of ``split`` in ``config`` (a sub-folder) or the root, in name order."""
    where = root / config if config else root
    if not where.is_dir():
        raise SourceError(
            f"{bench.name}: config {config!r} is missing (no folder {where.name!r}; "
            f"download {bench.dataset} with huggingface-cli)",
            path=str(root),
            field="config",
        )
    named = bench.files.get(config or "")
    if named is not None:
        candidates = sorted(where.glob(named))
    else:
        candidates = sorted(
            {
                *where.glob(f"{split}-*.parquet"),
                *where.glob(f"{split}.parquet"),
                *where.glob(f"{split}/*.parquet"),
                *where.glob(f"data/{split}-*.parquet"),
            }
        )
    if not candidates:
        found = sorted(p.name for p in where.glob("**/*.parquet"))[:8]
        raise SourceError(
            f"{bench.name}: split {split!r} is missing (Parquet files there: {found or 'none'})",
            path=str(where),
            field="split",
        )
    return candidates


def _configs(bench: HubBenchmark) -> tuple[str | None, ...]:
    return bench.configs if bench.configs is not None else (None,)


def _open(bench: HubBenchmark, file: Path) -> Any:
    import pyarrow.parquet as pq

    try:
        reader = pq.ParquetFile(file)
    except Exception as exc:
        raise SourceError(f"{bench.name}: cannot read Parquet ({exc})", path=str(file)) from None
    missing = [c for c in bench.columns if c not in reader.schema_arrow.names]
    if missing:
        raise SourceError(
            f"{bench.name}: column(s) {missing} missing (has {reader.schema_arrow.names})",
            path=str(file),
            field=missing[0],
        )
    return reader


def iter_rows(
    bench: HubBenchmark, root: Path, *, split: str, columns: tuple[str, ...] | None = None
) -> Iterator[HubRow]:
    """Every row of the scored split, config by config, file by file, row group by row group."""
    position = 0
    for config in _configs(bench):
        for file in split_files(bench, root, config, split):
            reader = _open(bench, file)
            names = reader.schema_arrow.names
            wanted = list(columns) if columns is not None else [*bench.columns]
            wanted += [c for c in bench.optional_columns if columns is None and c in names]
            row = 0
            for group in range(reader.num_row_groups):
                table = reader.read_row_group(group, columns=wanted)
                for batch in table.to_batches(max_chunksize=_BATCH):
                    for data in batch.to_pylist():
                        yield HubRow(bench.name, file, config, row, position, data)
                        row += 1
                        position += 1


def _samples(bench: HubBenchmark, root: Path, split: str) -> Iterator[Sample]:
    ledger = IdLedger(path=str(root), field=bench.id_column, unit="row")
    for row in iter_rows(bench, root, split=split):
        sample = bench.to_sample(row)
        if bench.id_column is not None:
            ledger.add(sample.id, f"{row.file.name} row {row.row}")
        yield sample


def _scan_ids(bench: HubBenchmark, root: Path, split: str) -> None:
    """Read only the id column and raise on a duplicate (before any request)."""
    if bench.id_column is None:
        return
    ledger = IdLedger(path=str(root), field=bench.id_column, unit="row")
    for row in iter_rows(bench, root, split=split, columns=(bench.id_column,)):
        ledger.add(bench.sample_id(row), f"{row.file.name} row {row.row}")


def _size(bench: HubBenchmark, root: Path, split: str) -> int:
    total = 0
    for config in _configs(bench):
        for file in split_files(bench, root, config, split):
            total += _open(bench, file).metadata.num_rows
    return total


def _fingerprint(bench: HubBenchmark, root: Path, split: str) -> str:
    digest = hashlib.sha256()
    for config in _configs(bench):
        for file in split_files(bench, root, config, split):
            stat = file.stat()
            digest.update(f"{config}/{file.name}:{stat.st_size}:{int(stat.st_mtime)}".encode())
    return digest.hexdigest()[:16]


def load_hub_tasks(bench: HubBenchmark, spec: str) -> list[Task]:
    """The benchmark's task over the local copy ``DIR`` (``DIR?split=NAME`` scores another split,
    ``DIR?prompts=all`` or ``?prompts=default+ID`` spreads those prompt variants over the samples)."""
    root, options = _split_options(bench, spec)
    if not root.is_dir():
        raise SourceError(
            f"{bench.name}: no such folder (download it: huggingface-cli download --repo-type dataset "
            f"{bench.dataset} --local-dir DIR)",
            path=str(root),
        )
    split = options.get("split", bench.split)
    size = _size(bench, root, split)  # also checks every config, split and column up front
    task_spec = bench.spec()
    if "prompts" in options:
        task_spec = with_variants(bench, task_spec, options["prompts"], path=str(root))
    return [
        Task(
            spec=task_spec,
            iter_samples=lambda: _samples(bench, root, split),
            check_ids=lambda: _scan_ids(bench, root, split),
            base_dir=root,
            size=size,
            data_fingerprint=_fingerprint(bench, root, split),
            origin=f"{bench.name}:{root}",
        )
    ]


_IMAGE_MAGIC = (b"\x89PNG\r\n\x1a\n", b"\xff\xd8\xff", b"GIF87a", b"GIF89a", b"BM", b"II*\x00", b"MM\x00*")


def _is_image(data: bytes) -> bool:
    return data.startswith(_IMAGE_MAGIC) or (data[:4] == b"RIFF" and data[8:12] == b"WEBP")


def image_ref(row: HubRow, column: str, *, name: str, sample_id: str) -> MediaRef:
    """An HF ``Image`` cell (``{bytes, path}``) as embedded image media; an empty or undecodable cell
    is an error naming the benchmark, file, sample and field."""
    value = row.data.get(column)
    data = value.get("bytes") if isinstance(value, dict) else value if isinstance(value, bytes) else None
    if not data:
        raise row.error("the image is missing (no bytes)", field=column, sample_id=sample_id)
    if not _is_image(data):
        raise row.error(
            "the image cannot be decoded (not PNG, JPEG, GIF, BMP, TIFF or WebP)",
            field=column,
            sample_id=sample_id,
        )
    return MediaRef(kind="image", name=name, data=data)
