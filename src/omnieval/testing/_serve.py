"""Serve an aiohttp application from a background thread (the fake provider servers)."""

from __future__ import annotations

import asyncio
import contextlib
import threading
from collections.abc import Iterator

from aiohttp import web

__all__ = ["serve_in_thread"]


@contextlib.contextmanager
def serve_in_thread(app: web.Application) -> Iterator[int]:
    """Yields the port ``app`` listens on at 127.0.0.1; stops it on exit."""
    loop = asyncio.new_event_loop()
    ready = threading.Event()
    runner = web.AppRunner(app, access_log=None)
    port: list[int] = []

    async def start() -> None:
        await runner.setup()
        site = web.TCPSite(runner, "127.0.0.1", 0)
        await site.start()
        port.append(site._server.sockets[0].getsockname()[1])  # type: ignore[union-attr]
        ready.set()

    def serve() -> None:
        asyncio.set_event_loop(loop)
        loop.run_until_complete(start())
        loop.run_forever()

    thread = threading.Thread(target=serve, daemon=True)
    thread.start()
    ready.wait(10)
    try:
        yield port[0]
    finally:
        asyncio.run_coroutine_threadsafe(runner.cleanup(), loop).result(10)
        loop.call_soon_threadsafe(loop.stop)
        thread.join(10)
