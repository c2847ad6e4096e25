"""Response headers that keep pages out of frames, stop MIME sniffing and allow only the platform's own
stylesheet and script files (no inline script, no other origin)."""

from __future__ import annotations

from typing import Any

__all__ = ["CSP", "SecurityHeaders"]

CSP = (
    "default-src 'none'; style-src 'self'; script-src 'self'; img-src 'self' data:; form-action 'self'; "
    "frame-ancestors 'none'; base-uri 'none'"
)
"""Styles and the one script (annotation keys) come from ``/static/`` only; no inline style or script."""

HEADERS = (
    (b"x-frame-options", b"DENY"),
    (b"x-content-type-options", b"nosniff"),
    (b"referrer-policy", b"same-origin"),
)
INTERACTIVE_DOCS = ("/docs", "/redoc")
"""FastAPI's API explorer loads its script from a CDN: it gets every header but the CSP."""


class SecurityHeaders:
    """Pure ASGI middleware (streams pass through untouched)."""

    def __init__(self, app: Any) -> None:
        self.app = app

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        docs = str(scope.get("path", "")).startswith(INTERACTIVE_DOCS)

        async def send_with_headers(message: dict[str, Any]) -> None:
            if message["type"] == "http.response.start":
                extra = list(HEADERS) + ([] if docs else [(b"content-security-policy", CSP.encode())])
                message = {**message, "headers": [*message.get("headers", []), *extra]}
            await send(message)

        await self.app(scope, receive, send_with_headers)
