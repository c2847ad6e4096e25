"""Refuse an oversized request before its body is read.

The multipart parser reads a whole upload (spooling it to the system's temp dir above 1 MiB) before any
route runs, so the upload's own size cap (``storage.files.save_upload``) would only act after a 10 GB body
had been received and written. This check answers from the headers instead: a body declared larger than
the cap plus the form's overhead is a 413, and a body of undeclared length (chunked) is a 411, since
every browser and HTTP client states the length of a form it posts.
"""

from __future__ import annotations

from typing import Any

from starlette.requests import Request

__all__ = ["BodyLimit"]

FORM_OVERHEAD = 1 << 20
"""Room for the multipart boundaries and the small fields that travel with the file."""


class BodyLimit:
    """ASGI middleware: at most ``max_bytes`` (plus ``FORM_OVERHEAD``) of declared body per request."""

    def __init__(self, app: Any, *, max_bytes: int) -> None:
        self.app, self.limit = app, max_bytes + FORM_OVERHEAD

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        if scope["type"] == "http":
            refusal = self._refusal(dict(scope["headers"]))
            if refusal is not None:
                from omnieval.platform.routes.page_errors import error_answer

                await error_answer(Request(scope, receive), *refusal)(scope, receive, send)
                return
        await self.app(scope, receive, send)

    def _refusal(self, headers: dict[bytes, bytes]) -> tuple[int, str] | None:
        length = headers.get(b"content-length")
        if length is None:
            chunked = b"chunked" in headers.get(b"transfer-encoding", b"").lower()
            return (411, "send the request with a Content-Length header") if chunked else None
        if not length.isdigit() or int(length) > self.limit:
            return 413, f"the request is larger than the {self.limit - FORM_OVERHEAD} byte upload limit"
        return None
