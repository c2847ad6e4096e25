"""hf/ and vllm/ pass tools through the model's chat template and read the calls back from the text; a
template without tools support refuses the task (never drops the tools)."""

from __future__ import annotations

import json
from typing import Any

import pytest

from omnieval.backends._tool_text import parse_tool_calls, template_takes_tools
from omnieval.backends.hf.prompting import build_prompt
from omnieval.errors import BackendError
from omnieval.types import Message, Request
from omnieval.types.tools import ToolCall, ToolSpec

TOOL_TEMPLATE = (
    "{% if tools %}TOOLS:{% for t in tools %}{{ t.function.name }};{% endfor %}\n{% endif %}"
    "{% for m in messages %}[{{ m.role }}]{{ m.content }}"
    "{% for c in m.tool_calls or [] %}"
    "<tool_call>{{ c.function.name }}{{ c.function.arguments | tojson }}</tool_call>"
    "{% endfor %}{% if m.tool_call_id %}({{ m.name }} {{ m.tool_call_id }}){% endif %}\n{% endfor %}"
)


class Tokenizer:
    """What build_prompt needs of a tokenizer: its template and apply_chat_template (rendered by jinja)."""

    def __init__(self, template: str) -> None:
        self.chat_template = template
        self.kwargs: dict[str, Any] = {}

    def apply_chat_template(self, messages: list[dict[str, Any]], **kwargs: Any) -> str:
        import jinja2

        self.kwargs = kwargs
        return (
            jinja2.Environment()
            .from_string(self.chat_template)
            .render(messages=messages, tools=kwargs.get("tools"))
        )


def _request() -> Request:
    call = ToolCall(id="c1", name="zoom", arguments='{"x0": 1}')
    return Request(
        task="t",
        sample_id="s",
        messages=(
            Message(role="user", content="look"),
            Message(role="assistant", content="", tool_calls=(call,)),
            Message(role="tool", content="zoomed", tool_call_id="c1"),
        ),
        tools=(ToolSpec(name="zoom", description="zoom in"),),
    )


def test_the_chat_template_gets_the_tools_the_calls_and_the_results() -> None:
    tokenizer = Tokenizer(TOOL_TEMPLATE)
    built = build_prompt(_request(), processor=None, tokenizer=tokenizer)
    assert built.text.startswith("TOOLS:zoom;\n")
    assert '[assistant]<tool_call>zoom{"x0": 1}</tool_call>' in built.text
    assert "[tool]zoomed(zoom c1)" in built.text


def test_a_template_without_tools_refuses_instead_of_dropping_them() -> None:
    plain = "{% for m in messages %}{{ m.content }}{% endfor %}"
    assert not template_takes_tools(plain) and template_takes_tools(TOOL_TEMPLATE)
    with pytest.raises(BackendError, match="chat template takes no tools"):
        build_prompt(_request(), processor=None, tokenizer=Tokenizer(plain))


def test_calls_are_read_in_the_hermes_and_the_llama_formats() -> None:
    text = 'Let me look.<tool_call>{"name": "zoom", "arguments": {"x0": 2}}</tool_call>'
    text += "<tool_call>oops</tool_call>"
    rest, calls = parse_tool_calls(text)
    assert rest == "Let me look."
    assert [(c.name, json.loads(c.arguments) if c.name else c.arguments) for c in calls] == [
        ("zoom", {"x0": 2}),
        ("", "oops"),  # kept and counted by the loop as an unknown tool, never dropped
    ]
    assert (
        parse_tool_calls('{"name": "submit", "parameters": {"answer": "4"}}')[1][0].arguments
        == '{"answer": "4"}'
    )
    assert parse_tool_calls("just 4") == ("just 4", ())


def test_vllm_reads_calls_from_its_output_when_the_request_had_tools() -> None:
    from types import SimpleNamespace

    from omnieval.backends.vllm_backend import _response

    out = SimpleNamespace(
        prompt_token_ids=[1, 2],
        outputs=[
            SimpleNamespace(
                text='<tool_call>{"name": "zoom", "arguments": {}}</tool_call>',
                finish_reason="stop",
                token_ids=[3],
            )
        ],
    )
    assert _response(out, applied={}, latency=0.1, tools=True).tool_calls[0].name == "zoom"
    assert _response(out, applied={}, latency=0.1).tool_calls == ()
