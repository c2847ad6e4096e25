"""Store: response cache, append-only run records, manifest."""

from omnieval.store.cache import ResponseCache
from omnieval.store.manifest import environment_info, read_json, write_json
from omnieval.store.records import (
    RecordKey,
    RecordWriter,
    iter_records,
    open_records,
    read_records,
    rewrite_lines,
    rewrite_records,
    scan_keys,
)
from omnieval.store.spend import record_cost, recorded_spend

__all__ = [
    "RecordKey",
    "RecordWriter",
    "ResponseCache",
    "environment_info",
    "iter_records",
    "open_records",
    "read_json",
    "read_records",
    "record_cost",
    "recorded_spend",
    "rewrite_lines",
    "rewrite_records",
    "scan_keys",
    "write_json",
]
