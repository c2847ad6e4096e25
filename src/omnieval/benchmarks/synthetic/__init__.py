"""Generated image and video suites (issue 11): fresh, verified instances on demand, never downloaded.

Importing registers the generators ``shapes``, ``charts``, ``tables``, ``text``, ``clocks``, ``math``
(Pillow pictures) and ``video-motion`` (PyAV clips), the ``generated:DIR`` importer and the
``clock_time_match`` metric. ``omnieval generate SUITE --output DIR --seed S [--n N]`` writes a set;
``omnieval run --tasks generated:DIR`` runs it.
"""

from omnieval.benchmarks.synthetic import importer as importer
from omnieval.benchmarks.synthetic import metrics as metrics
from omnieval.benchmarks.synthetic import shapes as shapes

__all__ = ["importer", "metrics", "shapes"]
