"""Every public package's ``__all__`` resolves, and the core data model's export list is pinned."""

from __future__ import annotations

import importlib

import pytest

PACKAGES = [
    "omnieval.types",
    "omnieval.sources",
    "omnieval.prompts",
    "omnieval.backends",
    "omnieval.parsers",
    "omnieval.metrics",
    "omnieval.media",
    "omnieval.store",
    "omnieval.runner",
    "omnieval.aggregate",
    "omnieval.textkit",
    "omnieval.judges",
]


# omnieval.reports exports nothing itself: each report module is imported where it is used (html's jinja2
# environment only at a run's end).
@pytest.mark.parametrize("name", PACKAGES)
def test_all_names_resolve(name: str) -> None:
    module = importlib.import_module(name)
    assert module.__all__, name
    for symbol in module.__all__:
        assert hasattr(module, symbol), f"{name}.{symbol}"


def test_types_export_list_is_pinned() -> None:
    import omnieval.types as types

    assert set(types.__all__) == {
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
    }
