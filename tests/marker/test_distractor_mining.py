"""MARKER distractor mining: top-k sampling, the LLM swap pass (replayed verdicts), a tiny local encoder."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, ClassVar

import numpy as np
import pytest
from typer.testing import CliRunner

from omnieval.backends import Backend, backends
from omnieval.benchmarks.marker.distractors import Item, MinedItem, load_items, mine, option_pool
from omnieval.benchmarks.marker.validation import VALIDATION_TASK, apply_verdict, parse_verdict, validate
from omnieval.errors import SourceError
from omnieval.types import Request, Response, Sample


class AngleEmbedder:
    """Option ``aN`` sits at N×10° on the unit circle: cosine neighbours are known by hand."""

    spec = "test/angles"

    def embed(self, texts: list[str]) -> Any:
        angles = [np.radians(10 * int(t.strip(".").lstrip("aA"))) for t in texts]
        return np.array([[np.cos(a), np.sin(a)] for a in angles])


def _items(n: int = 10) -> list[Item]:
    return [Item(f"q{i}", f"question {i}", f"a{i}") for i in range(n)]


def test_distractors_come_from_the_k_nearest_options() -> None:
    mined = mine(_items(), AngleEmbedder(), k=3, n_main=2, n_spare=1, seed=5)
    first = mined[0]
    assert [t for t, _ in first.neighbours] == ["a1", "a2", "a3"]  # 10°, 20°, 30° away from a0
    assert first.neighbours[0][1] == pytest.approx(np.cos(np.radians(10)))
    for m in mined:
        picked = [*m.main, *m.spares]
        assert len(picked) == 3 and len(set(picked)) == 3 and m.item.answer not in picked
        assert set(picked) <= {t for t, _ in m.neighbours}
    middle = mined[5]
    assert {t for t, _ in middle.neighbours} == {"a4", "a6", "a3"} or {t for t, _ in middle.neighbours} == {
        "a4",
        "a6",
        "a7",
    }


def test_sampling_is_reproducible_and_depends_on_the_seed() -> None:
    a = mine(_items(), AngleEmbedder(), k=6, n_main=2, n_spare=2, seed=1)
    b = mine(_items(), AngleEmbedder(), k=6, n_main=2, n_spare=2, seed=1)
    c = mine(_items(), AngleEmbedder(), k=6, n_main=2, n_spare=2, seed=2)
    assert a == b
    assert [m.main for m in a] != [m.main for m in c]


def test_the_pool_drops_duplicates_after_normalisation() -> None:
    items = [Item("1", "q", "a1", options=("A1.", "a2")), Item("2", "q", "a2")]
    assert option_pool(items) == ["a1", "a2"]
    [first, _] = mine(items, AngleEmbedder(), k=5, n_main=4, n_spare=4)
    assert first.main == ("a2",) and first.spares == ()  # a short pool gives fewer, never the answer


def test_verdicts_swap_bad_main_options_for_good_spares() -> None:
    mined = MinedItem(Item("x", "q", "gold"), main=("m1", "m2", "m3"), spares=("s1", "s2"), neighbours=())
    checked = apply_verdict(mined, (1, 4))  # main 1 bad, spare 1 (#4) bad too
    assert checked.main == ("s2", "m2", "m3") and checked.swaps == (("m1", "s2"),)
    worse = apply_verdict(mined, (1, 2, 3))
    assert worse.main == ("s1", "s2", "m3") and worse.unreplaced == 1
    assert parse_verdict('Sure: {"bad": [2, 1]}', 5) == (1, 2)
    assert parse_verdict('{"bad": []}', 5) == ()
    assert parse_verdict('{"bad": [6]}', 5) is None and parse_verdict("2 and 3", 5) is None


def test_the_llm_pass_counts_failed_and_unreadable_verdicts(tmp_path: Path) -> None:
    mined = mine(_items(8), AngleEmbedder(), k=4, n_main=2, n_spare=2, seed=0)[:3]
    replay = tmp_path / "verdicts.jsonl"
    replay.write_text(
        json.dumps({"task": VALIDATION_TASK, "sample_id": "q0", "response": '{"bad": [2]}'})
        + "\n"
        + json.dumps({"task": VALIDATION_TASK, "sample_id": "q1", "response": "option two looks weak"})
        + "\n",
        encoding="utf-8",
    )  # q2 has no recorded verdict: the call fails
    checked = {c.mined.item.id: c for c in validate(mined, judge=f"replay/{replay}")}
    assert checked["q0"].state == "ok" and checked["q0"].main[1] == mined[0].spares[0]
    assert checked["q1"].state == "judge_failed" and checked["q1"].main == mined[1].main
    assert checked["q2"].state == "judge_failed" and "no response" in checked["q2"].reason


def test_items_file_errors_name_the_line_and_field(tmp_path: Path) -> None:
    bad = tmp_path / "items.jsonl"
    bad.write_text(
        '{"id": "1", "question": "q", "answer": "a"}\n{"id": "2", "question": "q"}\n', encoding="utf-8"
    )
    with pytest.raises(SourceError, match=r"sample '2'.*field 'answer'.*item 2"):
        load_items(bad)


def _tiny_encoder(folder: Path, corpus: list[str]) -> Path:
    """A random-weight BERT with a word-level tokenizer over ``corpus``, saved like a hub checkpoint."""
    from tokenizers import Tokenizer, models, pre_tokenizers
    from transformers import BertConfig, BertModel, PreTrainedTokenizerFast

    words = sorted({w for text in corpus for w in text.lower().split()})
    vocab = {w: i for i, w in enumerate(["[PAD]", "[UNK]", *words])}
    tk = Tokenizer(models.WordLevel(vocab=vocab, unk_token="[UNK]"))
    tk.pre_tokenizer = pre_tokenizers.Whitespace()
    fast = PreTrainedTokenizerFast(tokenizer_object=tk, pad_token="[PAD]", unk_token="[UNK]")
    fast.save_pretrained(folder)
    import torch

    torch.manual_seed(0)
    config = BertConfig(
        vocab_size=len(vocab),
        hidden_size=16,
        num_hidden_layers=1,
        num_attention_heads=2,
        intermediate_size=32,
        max_position_embeddings=32,
    )
    BertModel(config).save_pretrained(folder)
    return folder


@pytest.mark.hf
def test_cli_mines_with_a_local_encoder_and_logs_k_and_seed(tmp_path: Path) -> None:
    import omnieval.benchmarks.marker  # noqa: F401  (adds the builder commands)
    from omnieval.benchmarks.marker.cli import app

    answers = [
        "Пётр Первый",
        "Екатерина Вторая",
        "Иван Грозный",
        "Александр Невский",
        "Дмитрий Донской",
        "Пётр Третий",
        "Павел Первый",
        "Николай Второй",
        "Александр Второй",
    ]
    items = tmp_path / "items.jsonl"
    items.write_text(
        "".join(
            json.dumps(
                {"id": f"h{i}", "question": f"Кто правил? {i}", "answer": a, "topic": "история"},
                ensure_ascii=False,
            )
            + "\n"
            for i, a in enumerate(answers)
        ),
        encoding="utf-8",
    )
    encoder = _tiny_encoder(tmp_path / "enc", answers)
    replay = tmp_path / "verdicts.jsonl"
    replay.write_text(
        "".join(
            json.dumps({"task": VALIDATION_TASK, "sample_id": f"h{i}", "response": '{"bad": [1]}'}) + "\n"
            for i in range(len(answers))
        ),
        encoding="utf-8",
    )
    out = tmp_path / "out.jsonl"
    args = [
        "distractors",
        str(items),
        "--embedder",
        f"hf/{encoder}",
        "--output",
        str(out),
        "--k",
        "5",
        "--n-main",
        "3",
        "--n-spare",
        "2",
        "--seed",
        "3",
        "--judge",
        f"replay/{replay}",
    ]
    done = CliRunner().invoke(app, args)
    assert done.exit_code == 0, done.output
    log = json.loads(out.with_name("out.jsonl.log.json").read_text(encoding="utf-8"))
    assert (log["k"], log["seed"], log["items"], log["states"]["ok"]) == (5, 3, 9, 9)
    assert log["prompt_version"] == "marker_distractors@1" and log["judge_version"].startswith("replay/")
    rows = [json.loads(line) for line in out.read_text(encoding="utf-8").splitlines()]
    first = out.read_bytes()
    assert CliRunner().invoke(app, args).exit_code == 0 and out.read_bytes() == first  # reproducible
    _check_against_direct_embeddings(rows, encoder)
    for row in rows:
        mining = row["mining"]
        assert row["answer"] in row["choices"] and len(row["choices"]) == 4 and row["topic"] == "история"
        assert set(row["choices"]) - {row["answer"]} <= {n[0] for n in mining["neighbours"]}
        assert mining["validation"]["swaps"] == [[mining["sampled_main"][0], mining["spares"][0]]]


def _check_against_direct_embeddings(rows: list[dict[str, Any]], encoder: Path) -> None:
    """Recompute the neighbours with transformers directly (mean pooling, cosine) and compare."""
    import torch
    from transformers import AutoModel, AutoTokenizer

    tok, model = AutoTokenizer.from_pretrained(encoder), AutoModel.from_pretrained(encoder).eval()
    texts = [r["answer"] for r in rows]
    with torch.no_grad():
        batch = tok(texts, padding=True, return_tensors="pt")
        hidden = model(**batch).last_hidden_state
        mask = batch["attention_mask"].unsqueeze(-1).float()
        vectors = ((hidden * mask).sum(1) / mask.sum(1)).numpy()
    vectors /= np.linalg.norm(vectors, axis=1, keepdims=True)
    for i, row in enumerate(rows):
        sims = vectors @ vectors[i]
        expected = [texts[j] for j in np.argsort(-sims, kind="stable") if j != i][:5]
        assert [n[0] for n in row["mining"]["neighbours"]] == expected


def test_cli_names_a_bad_embedder_option_before_loading(tmp_path: Path) -> None:
    import omnieval.benchmarks.marker  # noqa: F401  (adds the builder commands)
    from omnieval.benchmarks.marker.cli import app

    items = tmp_path / "items.jsonl"
    items.write_text(json.dumps({"id": "a", "question": "q", "answer": "x"}) + "\n", encoding="utf-8")
    args = ["distractors", str(items), "--output", str(tmp_path / "o.jsonl"), "--embedder", "hf/nowhere"]
    done = CliRunner().invoke(app, [*args, "--embedder-opt", "pool=cls"])
    assert done.exit_code == 2 and "embedder hf/nowhere does not take option(s) ['pool']" in done.output
    assert not (tmp_path / "o.jsonl").exists()


class SecondThoughtJudge(Backend):
    """A judge whose first reply per item is unreadable and whose second names option 1: only the judge
    subsystem's retry of an unparseable verdict gets a swap out of it. Records every prompt it sees."""

    provider = "marker_second_thought"
    prompts: ClassVar[list[str]] = []

    async def generate(self, request: Request) -> Response:
        type(self).prompts.append(request.messages[-1].content)  # type: ignore[arg-type]
        tries = sum(p.startswith("Ты проверяешь") and request.sample_id in p for p in type(self).prompts)
        return Response(text="хм, не уверен" if tries == 1 else '<think>первый плох</think>{"bad": [1]}')


if "marker_second_thought" not in backends:
    backends.add("marker_second_thought", SecondThoughtJudge)


def test_the_check_runs_through_the_judge_subsystem_with_its_retries() -> None:
    from omnieval.judges import get_judge_template, judge_protocols
    from omnieval.parsers import parsers

    assert get_judge_template("marker_distractors").ref == "marker_distractors@1"
    assert judge_protocols.get("marker_distractors") and parsers.get("marker.bad_distractors")
    SecondThoughtJudge.prompts = []
    items = [Item(f"q{i}", f"question q{i}", f"a{i}") for i in range(6)]
    mined = mine(items, AngleEmbedder(), k=4, n_main=2, n_spare=2, seed=0)[:2]
    described: dict[str, Any] = {}
    checked = validate(mined, judge="marker_second_thought/x", described=described)
    assert [c.state for c in checked] == ["ok", "ok"]
    for c, m in zip(checked, mined, strict=True):
        assert c.bad == (1,) and c.swaps == ((m.main[0], m.spares[0]),) and c.main == (m.spares[0], m.main[1])
    assert len(SecondThoughtJudge.prompts) == 4  # one retry per item, no more
    first = next(p for p in SecondThoughtJudge.prompts if "question q0" in p)
    listing = "\n".join(f"{i}. {o}" for i, o in enumerate([*mined[0].main, *mined[0].spares], 1))
    assert "Правильный ответ: a0" in first and listing in first and '{"bad": [номера]}' in first
    assert described["template"] == "marker_distractors@1"
    assert described["version"].startswith("marker_second_thought/x#")


def test_the_verdict_parser_counts_bad_options_and_names_bad_replies() -> None:
    from omnieval.benchmarks.marker.validation import bad_distractors

    sample = Sample(id="x", fields={"options": ["m1", "m2", "s1"]})
    parsed = bad_distractors('{"bad": [3, 1, 3]}', sample)
    assert parsed.ok and parsed.value == 2 and parsed.how == "1,3"
    failed = bad_distractors('{"bad": [4]}', sample)
    assert not failed.ok and "option numbers 1..3" in failed.reason


class LabelOnlyJudge(Backend):
    """A text classifier: it can only label, never list option numbers."""

    provider = "marker_label_only"
    classifies: ClassVar[bool] = True

    async def generate(self, request: Request) -> Response:
        return Response(text="1")


if "marker_label_only" not in backends:
    backends.add("marker_label_only", LabelOnlyJudge)


def test_a_classifier_judge_is_refused_before_any_call() -> None:
    from omnieval.errors import ConfigError

    mined = mine(_items(4), AngleEmbedder(), k=2, n_main=1, n_spare=1, seed=0)
    with pytest.raises(ConfigError, match="needs a generative judge"):
        validate(mined, judge="marker_label_only/x")
