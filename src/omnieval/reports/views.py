"""Prompts and media for the sample viewer, rebuilt from the task data.

Records hold the response side (answer, reasoning, extracted value, metrics, judge fields) and reach
the viewer as stored. The prompt and media are rebuilt from the task data when the tasks are at hand
(the run just finished, or the manifest's tasks still resolve); a record that carries ``prompt`` or
``media`` itself wins in the viewer. Images become small JPEG thumbnails (up to ``MAX_THUMBNAILS``
distinct files per report) and videos get a strip of frames (up to ``MAX_FRAME_STRIPS``), written as
files in ``report_samples/media/`` named by content hash: once per media file however many samples
show it, loaded by the browser only when a card shows it, and never part of what a text search
inflates. Audio and video files are copied there too, by content hash (a video whose codec a browser
cannot play gets an H.264/AAC preview: ``reports/playable.py``), so the page plays them from disk
without any network request and a moved or copied run folder keeps them.
"""

from __future__ import annotations

import collections
import contextlib
import hashlib
import io
import os
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path
from typing import Any

import orjson

from omnieval.reports.sidecar import SIDECAR

__all__ = ["PromptSource"]

MAX_TEXT = 20_000
MAX_THUMBNAILS = 2_000
"""Images beyond this are linked by relative path instead (the browser loads them lazily)."""
MAX_FRAME_STRIPS = 200
"""Videos beyond this get a player only (decoding frames costs tens of milliseconds per video)."""
PRERENDER_MAX_SAMPLES = 20_000
"""Prompts rendered ahead (:meth:`PromptSource.prerender`) at most; a larger run renders them at its end."""
THUMB_SIDE = 320


class _SpilledSamples:
    """Samples by id in a private temporary SQLite database (on disk, deleted when closed), pickled:
    a report over 100,000 samples reads each back when its record's part is written."""

    def __init__(self, samples: Iterable[Any]) -> None:
        import pickle
        import sqlite3

        self._loads = pickle.loads
        self._db = sqlite3.connect("")  # "": a private temporary on-disk database
        self._db.execute("CREATE TABLE samples (id TEXT PRIMARY KEY, data BLOB)")
        rows = ((s.id, pickle.dumps(s, protocol=pickle.HIGHEST_PROTOCOL)) for s in samples)
        self._db.executemany("INSERT OR REPLACE INTO samples VALUES (?, ?)", rows)  # the last id wins

    def get(self, sample_id: str, default: Any = None) -> Any:
        row = self._db.execute("SELECT data FROM samples WHERE id = ?", (sample_id,)).fetchone()
        return self._loads(row[0]) if row else default


def _clip(text: Any) -> str | None:
    if text is None:
        return None
    text = text if isinstance(text, str) else orjson.dumps(text, default=str).decode()
    return (
        text if len(text) <= MAX_TEXT else text[:MAX_TEXT] + f"\n… [{len(text) - MAX_TEXT} more characters]"
    )


class PromptSource:
    """Prompts and media of the run's samples, rebuilt from its tasks (best effort, said when missing)."""

    def __init__(self, tasks: Iterable[Any] | None, *, report_dir: Path) -> None:
        self.report_dir = report_dir
        self.media_dir = report_dir / SIDECAR / "media"
        self.tasks = {t.name: t for t in tasks or ()}
        self.samples: dict[str, dict[str, Any] | _SpilledSamples] = {}
        self.thumbnails = 0
        self.strips = 0
        self.problems: list[str] = []
        self._seen: dict[str, dict[str, Any] | None] = {}
        self._rendered: dict[tuple[str, str], str] = {}
        self._observed = 0
        self._full = False
        self._unrendered: collections.deque[tuple[Any, Any]] = collections.deque()
        self._single_variant: dict[str, bool] = {}

    def prerender(self, *, max_samples: int = PRERENDER_MAX_SAMPLES) -> int:
        """Read every task's samples and render their prompts now, so the report at a run's end does
        neither; the number rendered. See :meth:`prerender_steps`."""
        for _ in self.prerender_steps(max_samples=max_samples):
            pass
        return len(self._rendered)

    def prerender_steps(
        self,
        *,
        max_samples: int = PRERENDER_MAX_SAMPLES,
        step: int = 32,
        samples_of: Callable[[Any], Iterable[Any]] | None = None,
    ) -> Iterator[None]:
        """:meth:`prerender` in steps of ``step`` samples, pausing (a ``yield``) after each: an event loop
        runs it between its responses while a run waits on the model. Stopped at any pause, what is done
        stays usable: a task's samples are kept only once read whole, and the report renders any prompt
        not rendered here. Tasks with one prompt variant only (another variant's sample would be
        rendered for nothing), up to ``max_samples`` in all: a task past the cap is left whole to
        :meth:`load`, which spills a large run to disk. ``samples_of``: the samples a run takes of a
        task (``--limit``, ``--sample-ids``); default all of them."""
        budget = max_samples
        for name, task in self.tasks.items():
            if len(task.spec.prompt.all_variants()) != 1 or name in self.samples:
                continue
            if samples_of is None and (task.size or 0) > budget:  # past the cap: not read in vain
                return
            samples: dict[str, Any] = {}
            for sample in samples_of(task) if samples_of is not None else task.iter_samples():
                if len(samples) == budget:
                    return
                samples[sample.id] = sample
                if len(samples) % step == 0:
                    yield
            budget -= len(samples)
            self.samples[name] = samples
            for n, (sample_id, sample) in enumerate(samples.items(), 1):
                with contextlib.suppress(Exception):  # the report renders it again and says why
                    self._rendered[(name, sample_id)] = self._prompt(task.spec, sample, None)
                if n % step == 0:
                    yield

    def observe(self, task: Any, sample: Any, *, max_samples: int = PRERENDER_MAX_SAMPLES) -> None:
        """A sample the run read itself: held, so the report does not read the task data again, and
        queued for :meth:`render_observed_steps` (one-variant tasks only, as :meth:`prerender_steps`). Past
        ``max_samples`` in all, the task being read is let go whole (the report reads it, spilled to disk
        when large) and nothing more is held: memory stays bounded."""
        if self._full:
            return
        if self._observed >= max_samples:
            self._full = True
            self.samples.pop(task.name, None)
            self._unrendered = collections.deque(x for x in self._unrendered if x[0].name != task.name)
            return
        held = self.samples.setdefault(task.name, {})
        if not isinstance(held, dict) or sample.id in held:
            return
        self.tasks.setdefault(task.name, task)
        held[sample.id] = sample
        self._observed += 1
        single = self._single_variant.get(task.name)
        if single is None:
            single = self._single_variant[task.name] = len(task.spec.prompt.all_variants()) == 1
        if single:
            self._unrendered.append((task, sample))

    def render_observed_steps(self, *, step: int = 32) -> Iterator[None]:
        """Render the observed samples' prompts not rendered yet, pausing (a ``yield``) after each
        ``step``; what is left when it stops is rendered by the report."""
        while self._unrendered:
            for _ in range(min(step, len(self._unrendered))):
                task, sample = self._unrendered.popleft()
                with contextlib.suppress(Exception):  # the report renders it again and says why
                    self._rendered[(task.name, sample.id)] = self._prompt(task.spec, sample, None)
            yield

    def load(self, wanted: dict[str, set[str]], *, spill: bool = False) -> None:
        """Read the wanted samples of each task; with ``spill`` (a large run) they go to a temporary
        on-disk table read back one sample at a time, instead of being held. A task whose wanted
        samples are all at hand already (:meth:`prerender`) is not read again."""
        for name, ids in wanted.items():
            task = self.tasks.get(name)
            held = self.samples.get(name)
            if task is None or (isinstance(held, dict) and ids <= held.keys()):
                continue
            try:
                wanted_samples = (s for s in task.iter_samples() if s.id in ids)
                self.samples[name] = (
                    _SpilledSamples(wanted_samples) if spill else {s.id: s for s in wanted_samples}
                )
            except Exception as exc:  # the data may have moved since the run: the report still renders
                self.problems.append(f"prompts of task {name!r} unavailable: {type(exc).__name__}: {exc}")

    def extra(self, record: dict[str, Any]) -> dict[str, Any] | None:
        """``{"prompt", "media"}`` for one record, or None when its sample is not at hand."""
        prompt, media = self.view(record)
        if prompt is None and not media:
            return None
        return {"prompt": _clip(prompt), "media": media}

    def view(self, record: dict[str, Any]) -> tuple[str | None, list[dict[str, Any]]]:
        task = self.tasks.get(str(record["task"]))
        sample = self.samples.get(str(record["task"]), {}).get(str(record["sample_id"]))
        if task is None or sample is None:
            return None, []
        try:
            prompt = self._rendered.get((task.name, sample.id)) or self._prompt(
                task.spec, sample, record.get("variant")
            )
        except Exception as exc:  # a renderer needing run-time context (history, demos): say so, keep going
            prompt = f"(prompt could not be rebuilt: {type(exc).__name__}: {exc})"
        return prompt, [m for m in (self._media(ref) for ref in sample.media) if m]

    @staticmethod
    def _prompt(spec: Any, sample: Any, variant_id: str | None) -> str:
        from omnieval.prompts.render import render_messages

        variants = spec.prompt.all_variants()
        variant = next((v for v in variants if v.id == variant_id), variants[0])
        messages = render_messages(sample, spec, variant=variant)
        if len(messages) == 1 and messages[0].role == "user":
            return messages[0].text
        return "\n\n".join(f"[{m.role}]\n{m.text}" for m in messages)

    def _media(self, ref: Any) -> dict[str, Any] | None:
        """The viewer's entry for one media reference, built once per file (or embedded content)."""
        key = (
            f"{ref.kind}:{ref.path}"
            if ref.path
            else f"{ref.kind}:{hashlib.sha1(ref.data or b'').hexdigest()}"
        )
        if key not in self._seen:
            self._seen[key] = self._build_media(ref)
        return self._seen[key]

    def _build_media(self, ref: Any) -> dict[str, Any] | None:
        label = ref.path.rsplit("/", 1)[-1] if ref.path else ref.name
        if ref.kind == "image" and self.thumbnails < MAX_THUMBNAILS:
            thumb = _thumbnail(ref)
            if thumb is not None:
                self.thumbnails += 1
                return {"kind": "image", "src": self._store(thumb, ".jpg"), "label": label}
        if ref.kind == "video" and ref.path and self.strips < MAX_FRAME_STRIPS:
            self.strips += 1
            frames = [self._store(frame, ".jpg") for frame in _frames(ref.path)]
            return {
                "kind": "video",
                "src": self._inside(ref.path, ref.kind),
                "label": label,
                "frames": frames,
            }
        if ref.path:
            return {"kind": ref.kind, "src": self._inside(ref.path, ref.kind), "label": label}
        if ref.data and len(ref.data) <= 1_000_000 and ref.kind == "audio":
            return {"kind": "audio", "src": self._store(ref.data, _audio_suffix(ref.data)), "label": label}
        return {"kind": ref.kind, "src": "", "label": f"{label} (embedded, not shown)"}

    def _inside(self, path: str, kind: str) -> str:
        """Audio and video copied into the report's media folder by content hash (a video browsers cannot
        play transcoded to H.264/AAC), so a moved run folder keeps them; very large files stay linked."""
        from omnieval.reports.playable import MAX_COPY_BYTES, playable_video, source_digest

        src = Path(path)
        try:
            size = src.stat().st_size
        except OSError:
            return _relative(path, self.report_dir)
        if kind not in ("audio", "video") or size > MAX_COPY_BYTES:
            return _relative(path, self.report_dir)
        digest = source_digest(src)
        known = next(iter(self.media_dir.glob(f"{digest}*")), None) if self.media_dir.is_dir() else None
        if known is not None:
            return f"{SIDECAR}/media/{known.name}"
        preview = playable_video(src) if kind == "video" else None
        data, suffix = preview or (src.read_bytes(), src.suffix.lower())
        name = f"{digest}{'-preview' if preview else ''}{suffix}"
        self.media_dir.mkdir(parents=True, exist_ok=True)
        (self.media_dir / name).write_bytes(data)
        return f"{SIDECAR}/media/{name}"

    def _store(self, data: bytes, suffix: str) -> str:
        """Write ``data`` once under ``media/`` (named by its hash); its path relative to the report."""
        name = hashlib.sha1(data).hexdigest()[:20] + suffix
        path = self.media_dir / name
        if not path.exists():
            self.media_dir.mkdir(parents=True, exist_ok=True)
            path.write_bytes(data)
        return f"{SIDECAR}/media/{name}"


_AUDIO_MAGIC = (
    (b"RIFF", ".wav"),
    (b"fLaC", ".flac"),
    (b"OggS", ".ogg"),
    (b"ID3", ".mp3"),
    (b"\xff\xfb", ".mp3"),
    (b"\xff\xf3", ".mp3"),
)


def _audio_suffix(data: bytes) -> str:
    """A file extension for embedded audio by its magic bytes (browsers sniff the content anyway)."""
    return next((suffix for magic, suffix in _AUDIO_MAGIC if data.startswith(magic)), ".wav")


def _jpeg(img: Any, side: int) -> bytes:
    img.thumbnail((side, side))
    out = io.BytesIO()
    img.convert("RGB").save(out, format="JPEG", quality=75)
    return out.getvalue()


def _thumbnail(ref: Any) -> bytes | None:
    from PIL import Image

    try:
        with Image.open(ref.path if ref.path else io.BytesIO(ref.data or b"")) as img:
            img.draft(
                "RGB", (THUMB_SIDE, THUMB_SIDE)
            )  # JPEG: decode at reduced scale, much faster for photos
            return _jpeg(img, THUMB_SIDE)
    except (OSError, ValueError):
        return None


def _frames(path: str, *, count: int = 4) -> list[bytes]:
    """A few evenly spaced frames as small thumbnails (empty when the video cannot be decoded)."""
    from omnieval.errors import MediaError
    from omnieval.media.video import sample_video

    try:
        frames, _ = sample_video(
            path, where=path, target_fps=1.0, max_frames=count, mode="uniform", convert=lambda f: f.to_image()
        )
    except (MediaError, OSError, ValueError):
        return []
    return [_jpeg(img, 160) for img, _ in frames]


def _relative(path: str, base: Path) -> str:
    try:
        return Path(os.path.relpath(path, base)).as_posix()
    except ValueError:  # another drive (Windows): an absolute file path still needs no network
        return Path(path).as_uri()
