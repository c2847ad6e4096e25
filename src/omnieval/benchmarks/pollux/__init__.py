"""POLLUX (Martynov et al.): task and criteria taxonomies as data, the criteria matcher, items and
expert-annotation import, judge output parsing and the judge-versus-expert statistics.
Importing registers the ``pollux`` CLI group, the ``pollux:`` importer and the ``pollux_judge`` parser."""

from omnieval.benchmarks.pollux import cli as cli
from omnieval.benchmarks.pollux import items as items
from omnieval.benchmarks.pollux import judge_task as judge_task
from omnieval.benchmarks.pollux import judging as judging
from omnieval.benchmarks.pollux import parser as parser
from omnieval.benchmarks.pollux import regression as regression
from omnieval.benchmarks.pollux import synth_task as synth_task

__all__ = ["cli", "items", "judge_task", "judging", "parser", "regression", "synth_task"]
