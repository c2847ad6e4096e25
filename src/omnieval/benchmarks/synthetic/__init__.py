"""Generated image and video suites (issue 11): fresh, verified instances on demand, never downloaded.

Importing registers the generators ``shapes``, ``charts``, ``tables``, ``text``, ``clocks``, ``math``
(Pillow pictures) and ``video-motion`` (PyAV clips), the ``generated:DIR`` importer and the
``clock_time_match`` metric. ``omnieval generate SUITE --output DIR --seed S [--n N]`` writes a set;
``omnieval run --tasks generated:DIR`` runs it.
"""

from omnieval.benchmarks.synthetic import arith as arith
from omnieval.benchmarks.synthetic import charts as charts
from omnieval.benchmarks.synthetic import clocks as clocks
from omnieval.benchmarks.synthetic import importer as importer
from omnieval.benchmarks.synthetic import metrics as metrics
from omnieval.benchmarks.synthetic import shapes as shapes
from omnieval.benchmarks.synthetic import tables as tables
from omnieval.benchmarks.synthetic import text as text
from omnieval.benchmarks.synthetic import video as video

__all__ = ["arith", "charts", "clocks", "importer", "metrics", "shapes", "tables", "text", "video"]
