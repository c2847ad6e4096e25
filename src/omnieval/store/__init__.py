"""Store: response cache, append-only run records, manifest."""

from omnieval.store.cache import CacheEntry, ResponseCache, read_entries
from omnieval.store.manifest import environment_info, prefetch_environment, read_json, write_json
from omnieval.store.records import (
    RecordId,
    RecordKey,
    RecordWriter,
    iter_records,
    open_records,
    patch_records,
    read_records,
    record_id,
    rewrite_lines,
    rewrite_records,
    scan_keys,
    typed_records,
)
from omnieval.store.spend import record_cost, recorded_spend

__all__ = [
    "CacheEntry",
    "RecordId",
    "RecordKey",
    "RecordWriter",
    "ResponseCache",
    "environment_info",
    "iter_records",
    "open_records",
    "patch_records",
    "prefetch_environment",
    "read_entries",
    "read_json",
    "read_records",
    "record_cost",
    "record_id",
    "recorded_spend",
    "rewrite_lines",
    "rewrite_records",
    "scan_keys",
    "typed_records",
    "write_json",
]
