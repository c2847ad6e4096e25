"""The response cache commits by time as well as by count: an answer waits at most ``commit_after_s``
in memory, so a killed process or a lost node (whose worker's entries are read from its committed rows)
loses at most the last half second of answers, not up to 255 of them."""

from __future__ import annotations

import asyncio
import time
from pathlib import Path

from omnieval.store import ResponseCache, read_entries
from omnieval.store.cache import COMMIT_AFTER_S
from omnieval.types import Response


def _committed(path: Path) -> int:
    return len(read_entries(path)[0])


async def test_a_lone_answer_is_committed_within_the_time_bound_without_another_put(tmp_path: Path) -> None:
    assert COMMIT_AFTER_S <= 0.5
    path = tmp_path / "cache.sqlite"
    cache = ResponseCache(path, commit_after_s=0.1)
    cache.put("a", Response.from_text("1"))
    assert _committed(path) == 0, "one answer does not make a transaction of its own"
    await asyncio.sleep(0.3)
    assert _committed(path) == 1, "committed by the timer, with nothing else put"
    cache.close()


def test_without_an_event_loop_the_next_put_past_the_bound_commits(tmp_path: Path) -> None:
    path = tmp_path / "cache.sqlite"
    cache = ResponseCache(path, commit_after_s=0.1)
    cache.put("a", Response.from_text("1"))
    cache.put("b", Response.from_text("2"))
    assert _committed(path) == 0
    time.sleep(0.15)
    cache.put("c", Response.from_text("3"))
    assert _committed(path) == 3
    cache.close()


def test_the_count_bound_still_commits_a_burst_at_once(tmp_path: Path) -> None:
    path = tmp_path / "cache.sqlite"
    cache = ResponseCache(path, commit_every=4, commit_after_s=60)
    for i in range(5):
        cache.put(str(i), Response.from_text(str(i)))
    assert _committed(path) == 4
    cache.close()
    assert _committed(path) == 5
