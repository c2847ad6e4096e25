"""Server-rendered pages (Jinja2, no build step); forms carry a per-session CSRF token."""

from __future__ import annotations

from fastapi import APIRouter

__all__ = ["router"]

router = APIRouter()
