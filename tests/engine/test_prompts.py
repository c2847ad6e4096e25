from __future__ import annotations

from collections import Counter

import pytest

from omnieval.errors import TaskFileError
from omnieval.prompts import build_request, gold_answers, variant_index
from omnieval.types import (
    FewShotSpec,
    GenerationConfig,
    ImagePart,
    MediaPolicy,
    MediaRef,
    PromptSpec,
    PromptVariant,
    Sample,
    TaskSpec,
    TextPart,
)


def _req(sample: Sample, spec: TaskSpec, **kw: object):
    return build_request(
        sample,
        spec,
        position=kw.pop("position", 0),
        seed=7,
        generation=GenerationConfig(),  # type: ignore[arg-type]
        media_policy=MediaPolicy(),
        **kw,
    )  # type: ignore[arg-type]


@pytest.mark.parametrize("n", [1, 3, 10])
def test_variants_are_spread_evenly_and_deterministically(n: int) -> None:
    picks = [variant_index(i, n_variants=n, seed=3) for i in range(1003)]
    counts = Counter(picks)
    assert set(counts) == set(range(n))
    assert max(counts.values()) - min(counts.values()) <= 1
    assert picks == [variant_index(i, n_variants=n, seed=3) for i in range(1003)]
    if n > 2:
        assert picks != [variant_index(i, n_variants=n, seed=4) for i in range(1003)]


def test_variant_id_recorded_on_request() -> None:
    spec = TaskSpec(
        name="t",
        prompt=PromptSpec(
            variants=tuple(PromptVariant(id=f"p{i}", template=f"{i}:{{{{ input }}}}") for i in range(10))
        ),
    )
    requests = [_req(Sample(id=str(i), input="q"), spec, position=i) for i in range(20)]
    ids = Counter(r.variant for r in requests)
    assert len(ids) == 10 and set(ids.values()) == {2}
    for r in requests:
        assert r.messages[-1].text.startswith(r.variant[1:] + ":")  # type: ignore[index]


def test_system_fewshot_and_options() -> None:
    spec = TaskSpec(
        name="t",
        prompt=PromptSpec(
            system="Будь точен.", template="{{ input }}\n{{ options_block }}", fewshot=FewShotSpec(n=1)
        ),
    )
    demo = Sample(id="d", input="1+1?", choices=("2", "3"), targets=("2",))
    sample = Sample(id="s", input="2+2?", choices=("3", "4"), targets=("4",))
    req = _req(sample, spec, demos=[demo])
    roles = [m.role for m in req.messages]
    assert roles == ["system", "user", "assistant", "user"]
    assert req.messages[1].text == "1+1?\nA. 2\nB. 3" and req.messages[2].text == "A"
    assert req.messages[3].text == "2+2?\nA. 3\nB. 4"
    assert req.targets == ("B",)


def test_completion_format_flattens() -> None:
    spec = TaskSpec(
        name="t", prompt=PromptSpec(format="completion", system="S", template="Q: {{ input }}\nA:")
    )
    req = _req(Sample(id="1", input="x"), spec)
    assert req.prompt == "S\n\nQ: x\nA:"


def test_media_placed_at_placeholders_and_unplaced_first() -> None:
    a1 = MediaRef(kind="audio", name="audio_1", path="/a1.wav")
    a2 = MediaRef(kind="audio", name="audio_2", path="/a2.wav")
    img = MediaRef(kind="image", name="image", path="/i.png")
    sample = Sample(id="1", input="Сравни <audio_2> и <audio_1>.", media=(a1, a2, img))
    content = _req(sample, TaskSpec(name="t", prompt=PromptSpec(template="{{ input }}"))).messages[-1].content
    kinds = [(p.type, getattr(p, "media", None) and p.media.name) for p in content]  # type: ignore[union-attr]
    assert kinds == [
        ("image", "image"),
        ("text", None),
        ("audio", "audio_2"),
        ("text", None),
        ("audio", "audio_1"),
        ("text", None),
    ]
    blind = _req(sample, TaskSpec(name="t", prompt=PromptSpec(template="{{ input }}")), blind=True)
    assert blind.blind and not blind.media and isinstance(blind.messages[-1].content, str)


def test_gold_answers_for_letters_indices_and_text() -> None:
    spec = TaskSpec(name="t")
    assert gold_answers(Sample(id="1", choices=("x", "y"), targets=("y",)), spec) == ("B",)
    assert gold_answers(Sample(id="1", choices=("x", "y"), targets=("b",)), spec) == ("B",)
    assert gold_answers(Sample(id="1", choices=("x", "y"), targets=("1",)), spec) == ("B",)
    assert gold_answers(Sample(id="1", targets=("free text",)), spec) == ("free text",)


def test_undefined_template_variable_is_an_error() -> None:
    spec = TaskSpec(name="t", prompt=PromptSpec(template="{{ nope }}"))
    with pytest.raises(TaskFileError, match="nope"):
        _req(Sample(id="1"), spec)


def test_target_template_for_oracle() -> None:
    spec = TaskSpec(
        name="t", prompt=PromptSpec(template="{{ input }}", target_template="Answer: {{ target }}")
    )
    assert _req(Sample(id="1", input="q", targets=("42",)), spec).targets == ("Answer: 42",)


def test_text_parts_and_images_in_messages() -> None:
    img = MediaRef(kind="image", name="image", path="/i.png")
    req = _req(
        Sample(id="1", input="<image> what?", media=(img,)),
        TaskSpec(name="t", prompt=PromptSpec(template="{{ input }}")),
    )
    parts = req.messages[-1].content
    assert isinstance(parts[0], ImagePart) and isinstance(parts[1], TextPart)  # type: ignore[index]


def test_plain_templates_render_as_jinja_renders_them() -> None:
    """``{{ name }}`` and text (most task templates) are joined without jinja, which costs ≈ 10 µs a request:
    the output must be jinja's, character for character, for any text jinja would leave alone, and every
    other template still goes through jinja."""
    import random

    from omnieval.prompts import templates

    pieces = ["Вопрос: ", "{", "}", "}}", "%", "#", "{ x }", "\n", " ", "a{b", "\t", "ё", "{{ input }}"]
    pieces += [
        "{{input}}",
        "{{ n }}",
        "{{ none }}",
        "{{ missing }}",
        "{%- if n %}y{% endif %}",
        "{# c #}",
        "\r\n",
    ]
    values = {"input": "Сколько будет 2 + 2?\n", "n": 7, "items": [1, "a"], "nothing": None}
    rng = random.Random(5)
    fast = 0
    for _ in range(3000):
        source = "".join(rng.choice(pieces) for _ in range(rng.randint(0, 6)))
        source += rng.choice(["", "\n", "\n\n", "{{ items }}", "{{ nothing }}{"])
        try:
            expected: str | type[Exception] = templates._ENV.from_string(source).render(**values)
        except Exception as exc:  # a syntax or undefined error: the fast path must not hide it
            expected = type(exc)
        try:
            got: str | type[Exception] = templates.render_template(source, **values)
        except TaskFileError:
            got = TaskFileError
        if isinstance(expected, str):
            assert got == expected, source
        else:
            assert got is TaskFileError, source
        fast += templates._plain(source) is not None and "{{ missing }}" not in source
    assert fast > 300  # the joined path was exercised, not only jinja's
    assert templates._plain("{{ input }}") == (("", ""), ("input",))
    assert templates._plain("{{ true }}") is None and templates._plain("a{{{ input }}") is None
