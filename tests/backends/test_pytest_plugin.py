"""The user-facing ``fake_openai`` pytest fixture."""

from __future__ import annotations

import pytest

from omnieval.backends import BackendOptions
from omnieval.backends.openai_compat import OpenAIBackend
from omnieval.testing.fake_openai import FakeOpenAI
from omnieval.testing.pytest_plugin import fake_openai
from omnieval.types import Message, Request

__all__ = ["fake_openai"]  # re-exported so pytest finds the fixture in this module


@pytest.mark.parametrize("fake_openai", [{"answers": {"столица": "Москва"}}], indirect=True)
async def test_fixture_serves_scripted_answers(fake_openai: FakeOpenAI) -> None:
    backend = OpenAIBackend("fake", options=BackendOptions(base_url=fake_openai.url))
    request = Request(task="t", sample_id="1", messages=(Message(role="user", content="Какая столица?"),))
    assert (await backend.generate(request)).text == "Москва"
    await backend.aclose()
    assert fake_openai.successes == {"Какая столица?": 1}
