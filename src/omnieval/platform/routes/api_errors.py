"""The error answers of the REST API, documented per route in the OpenAPI schema.

Every error body is ``{"detail": ...}``. A 422 carries one of three documented shapes: FastAPI's list of
field errors (a request that does not match the schema), a message (a value the schema allows but the
server refuses: a taken name, a zip that is not a submission), or an invalid submission's per-task report.
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel

__all__ = ["errors"]


class Error(BaseModel):
    detail: str


class FieldError(BaseModel):
    loc: list[str | int]
    msg: str
    type: str


class SubmissionReport(BaseModel):
    message: str
    report: dict[str, Any]


class Unprocessable(BaseModel):
    detail: list[FieldError] | str | SubmissionReport


WHY = {
    400: "the body could not be parsed (a JSON body that is not UTF-8, a broken multipart form)",
    401: "missing, expired or revoked token",
    403: "the account's role may not do this (or it awaits approval)",
    404: "absent, or not visible to this account",
    408: "the upload's body stalled (no part of it within the body timeout)",
    409: "the request conflicts with the current state (e.g. a taken name, not yet scored)",
    411: "a chunked body without Content-Length",
    413: "the body is larger than the upload limit",
    422: "invalid input: field errors, a refusal message, or a submission's per-task report",
    429: "a rate limit or the daily submission cap",
    503: "too many password checks are waiting; retry after the Retry-After seconds",
}


def errors(*codes: int, text: bool = False) -> dict[int | str, dict[str, Any]]:
    """OpenAPI ``responses`` for the error statuses a route can answer (always JSON). ``text``: the route
    answers plain text on success, so FastAPI would document its errors as text too; spell them out."""
    out: dict[int | str, dict[str, Any]] = {}
    for code in codes:
        model = Unprocessable if code == 422 else Error
        if text:
            ref = {"$ref": f"#/components/schemas/{model.__name__}"}
            out[code] = {"description": WHY[code], "content": {"application/json": {"schema": ref}}}
        else:
            out[code] = {"model": model, "description": WHY[code]}
    return out
