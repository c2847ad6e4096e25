"""One-line warnings about a task's samples that did not count: errors by cause, rows without a gold
answer, answers holding a chat template's tokens."""

from __future__ import annotations

from omnieval.types.files import TaskResults

__all__ = ["error_warning", "leak_warning", "truncated_note", "unscored_warning"]


def error_warning(task: str, block: TaskResults) -> str | None:
    """``warning: 18 of 100 samples of T ended in error (HTTP 503 ×10, timeout ×8), e.g.: …``; None without
    errors."""
    errors, n = block.states.get("error", 0), block.n
    if not errors:
        return None
    causes = {c: row for c, row in block.error_causes.items() if c != "parse"}
    top = ", ".join(f"{cause} ×{row.n}" for cause, row in list(causes.items())[:3])
    first = next(iter(causes.values()), None)
    example = first.example if first else (block.example_reasons.get("error") or ["?"])[0]
    return (
        f"warning: {errors} of {n} samples of {task} ended in error"
        + (f" ({top})" if top else "")
        + f", e.g.: {example}"
    )


def unscored_warning(task: str, block: TaskResults) -> str | None:
    """Samples left unscored because their row has no gold answer: a note for a hidden-answer test set, a
    warning naming the rows when only some lack it (a forgotten ``answer`` field)."""
    unscored, n = block.prediction_only, block.n
    if not unscored:
        return None
    if unscored == n:
        return (
            f"note: no sample of {task} has a gold answer (hidden test set?): all {n} are predictions "
            "only, not scored"
        )
    ids = block.unscored_ids
    named = ", ".join(map(repr, ids)) + (" …" if unscored > len(ids) else "")
    return (
        f"warning: {unscored} of {n} samples of {task} have no gold answer and are not scored (ids {named})"
    )


def truncated_note(task: str, block: TaskResults) -> str | None:
    """Why a task scores with few or no samples ``ok``: responses cut at ``max_tokens`` are scored as they
    stand under the task's ``truncated: score_text`` (the demo's cascade showed 0.333 with none ok and no
    word why); None when no truncated response was scored."""
    truncated = block.states.get("truncated", 0)
    if not truncated or block.truncated_scoring != "score_text":
        return None
    return (
        f"note: {truncated} of {block.n} responses of {task} were cut at max_tokens (state truncated) and "
        "are scored as they stand (the task's `truncated: score_text`): they count in the score, not as ok"
    )


def leak_warning(task: str, block: TaskResults) -> str | None:
    """Answers holding chat-template tokens score 0 without an error: say how many and the fix."""
    leaks = block.template_leaks
    if not leaks:
        return None
    return (
        f"warning: {leaks} of {block.n} answers of {task} hold chat template tokens "
        f"({block.template_leak_example or '?'}): the server wrapped the prompt in a chat template the model "
        "was not trained with (a base model, or a GGUF without one). Fix: --backend-opt endpoint=completions "
        "(the task's own prompt as plain text), or start the server with the model's chat template"
    )
