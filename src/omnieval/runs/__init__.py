"""A run directory's life below the public API (:mod:`omnieval.api`): run a configuration and aggregate
it (:mod:`~omnieval.runs.evaluation`), score and judge it again from its stored responses
(:mod:`~omnieval.runs.stored`), run many models as a sweep (:mod:`~omnieval.runs.sweep`), and the
warnings a finished run prints (:mod:`~omnieval.runs.notices`). Internal: callers use :mod:`omnieval.api`.
"""
