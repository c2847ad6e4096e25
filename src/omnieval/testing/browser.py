"""Open an omnieval page in Debian's headless Chromium through Playwright (never a downloaded browser).

Records console errors, page errors and every request that is not a local file or inline data, so tests
can assert "no network request, no console error", and times when the page became interactive.
"""

from __future__ import annotations

import shutil
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

__all__ = ["PageProbe", "chromium_path", "open_page"]

CANDIDATES = ("/usr/bin/chromium", "/usr/bin/chromium-browser", "/usr/lib/chromium/chromium")


def chromium_path() -> str | None:
    """The system Chromium, or None when it is not installed."""
    for candidate in CANDIDATES:
        if Path(candidate).exists():
            return candidate
    return shutil.which("chromium")


@dataclass
class PageProbe:
    """What happened while the page loaded."""

    page: Any
    console_errors: list[str] = field(default_factory=list)
    remote_requests: list[str] = field(default_factory=list)
    requests: list[str] = field(default_factory=list)
    load_s: float = 0.0


@contextmanager
def open_page(path: Path, *, wait_for: str | None = None, timeout_ms: int = 30_000) -> Iterator[PageProbe]:
    """Load ``path`` (file://), wait for ``wait_for`` (a CSS selector), yield the probe."""
    from playwright.sync_api import sync_playwright

    executable = chromium_path()
    if executable is None:
        raise RuntimeError("Chromium is not installed (Debian: apt-get install chromium)")
    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=executable, headless=True, args=["--no-sandbox"])
        try:
            page = browser.new_page(viewport={"width": 1440, "height": 900})
            probe = PageProbe(page)
            page.on("console", lambda m: probe.console_errors.append(m.text) if m.type == "error" else None)
            page.on("pageerror", lambda e: probe.console_errors.append(str(e)))

            def _request(req: Any) -> None:
                probe.requests.append(req.url)
                if not req.url.startswith(("file://", "data:", "blob:", "about:")):
                    probe.remote_requests.append(req.url)

            page.on("request", _request)
            start = time.perf_counter()
            page.goto(Path(path).resolve().as_uri(), wait_until="load", timeout=timeout_ms)
            if wait_for:
                page.wait_for_selector(wait_for, state="attached", timeout=timeout_ms)
            probe.load_s = time.perf_counter() - start
            yield probe
        finally:
            browser.close()
