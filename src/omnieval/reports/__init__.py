"""Reports: HTML report (:mod:`omnieval.reports.html`), terminal tables, run diffs
(:mod:`omnieval.reports.diff`), warnings about failed samples (:mod:`omnieval.reports.problems`).

Nothing is imported here: ``omnieval run`` imports :mod:`omnieval.reports.tail` before its first request,
and the report's modules (jinja2's page environment among them) are only needed at its end, each
imported from its own module where it is used.
"""
