"""The ``speech-output`` group: tasks answered by voice, scored through speech recognition (issue 37).

Importing registers the generators ``speech.tts`` (sentences to read aloud, Russian or English) and
``speech.spoken_qa`` (short questions answered aloud), and the task folder with ``tts_ru``, ``tts_en``
and ``spoken_qa_ru``, and the submission format ``spoken`` (spoken answers packed with their
audio). Every sentence and question is generated from templates by a seeded
``random.Random``: the same seed gives the same set. See docs/running/spoken-answers.md.
"""

from pathlib import Path

from omnieval.benchmarks.speech import sentences as sentences
from omnieval.benchmarks.speech import submission as submission
from omnieval.sources.catalog import register_task_dir

register_task_dir(Path(__file__).parent / "tasks")

__all__ = ["sentences", "submission"]
