"""The judge stage: a judge is a model role (any backend) with a protocol, a versioned prompt template,
a verdict parser (an ordinary registered parser) and a cache. Sits between the runner and the stages
below it; the runner wires it in (``runner/judging.py``)."""

from omnieval.judges.backends import create_judge_backend, effective_judge_spec, is_classifier_folder
from omnieval.judges.judge import FetchFn, Judge, direct_fetch
from omnieval.judges.protocols import (
    CallSpec,
    JudgeInput,
    JudgePlan,
    judge_protocols,
    register_judge_protocol,
)
from omnieval.judges.templates import (
    JudgeTemplate,
    get_judge_template,
    judge_templates,
    register_judge_template,
)

__all__ = [
    "CallSpec",
    "FetchFn",
    "Judge",
    "JudgeInput",
    "JudgePlan",
    "JudgeTemplate",
    "create_judge_backend",
    "direct_fetch",
    "effective_judge_spec",
    "get_judge_template",
    "is_classifier_folder",
    "judge_protocols",
    "judge_templates",
    "register_judge_protocol",
    "register_judge_template",
]
