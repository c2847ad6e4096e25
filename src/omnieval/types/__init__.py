"""The one typed data model shared by every stage (frozen pydantic, ``extra="forbid"``)."""

from omnieval.types.audio import AUDIO_PROBLEMS, AudioAnswer, AudioProblem, SpokenAudio
from omnieval.types.content import (
    AudioPart,
    ContentPart,
    ImagePart,
    MediaKind,
    MediaRef,
    Message,
    Role,
    TextPart,
    VideoPart,
)
from omnieval.types.judge import JudgeAttempt, JudgeCall, JudgeRecord
from omnieval.types.request import GenerationConfig, Request, RequestKind
from omnieval.types.response import FinishReason, Response, StreamTiming, Usage
from omnieval.types.result import STATES, Parsed, ParseFailure, ParseOutcome, SampleResult, State
from omnieval.types.sample import Sample
from omnieval.types.scoring import ScoringInput
from omnieval.types.task import (
    FewShotSpec,
    FieldMap,
    JudgeSpec,
    MediaField,
    MediaPolicy,
    MetricRef,
    PluginRef,
    PromptSpec,
    PromptVariant,
    RepeatsSpec,
    SourceSpec,
    TaskSpec,
)

__all__ = [
    "AUDIO_PROBLEMS",
    "STATES",
    "AudioAnswer",
    "AudioPart",
    "AudioProblem",
    "ContentPart",
    "FewShotSpec",
    "FieldMap",
    "FinishReason",
    "GenerationConfig",
    "ImagePart",
    "JudgeAttempt",
    "JudgeCall",
    "JudgeRecord",
    "JudgeSpec",
    "MediaField",
    "MediaKind",
    "MediaPolicy",
    "MediaRef",
    "Message",
    "MetricRef",
    "ParseFailure",
    "ParseOutcome",
    "Parsed",
    "PluginRef",
    "PromptSpec",
    "PromptVariant",
    "RepeatsSpec",
    "Request",
    "RequestKind",
    "Response",
    "Role",
    "Sample",
    "SampleResult",
    "ScoringInput",
    "SourceSpec",
    "SpokenAudio",
    "State",
    "StreamTiming",
    "TaskSpec",
    "TextPart",
    "Usage",
    "VideoPart",
]
