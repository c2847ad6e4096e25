"""MSMIA end to end on tiny local models: a LoRA-leaked copy is told apart from the base model."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("torch")
pytest.importorskip("peft")
pytest.importorskip("sklearn")

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "hf"))
import tiny_models
from typer.testing import CliRunner

from omnieval.backends.base import BackendOptions, create_backend
from omnieval.backends.embeddings import create_embedder
from omnieval.cli.app import app
from omnieval.protect.msmia import auc_roc, extract_features, perturb, train_detector
from omnieval.protect.msmia.io import write_features
from omnieval.types import Sample

WORDS = (
    "кот",
    "дом",
    "река",
    "лес",
    "red",
    "blue",
    "green",
    "один",
    "два",
    "три",
    "circle",
    "square",
    "город",
    "небо",
    "Paris",
    "France",
    "ответ",
    "вопрос",
    "sun",
    "moon",
    "ветер",
    "снег",
    "tree",
    "stone",
)


def _items(n: int, seed: int) -> list[str]:
    rng = np.random.default_rng(seed)
    return [" ".join(rng.choice(WORDS, size=10)) for _ in range(n)]


def _tiny_bert(out: Path) -> Path:
    import torch
    from transformers import BertConfig, BertModel

    tok = tiny_models.bpe_tokenizer([])
    tok.save_pretrained(out)
    torch.manual_seed(0)
    BertModel(
        BertConfig(
            vocab_size=len(tok),
            hidden_size=16,
            num_hidden_layers=1,
            num_attention_heads=2,
            intermediate_size=32,
            max_position_embeddings=128,
        )
    ).save_pretrained(out)
    return out


def _leak(base: Path, out: Path, texts: list[str]) -> Path:
    """LoRA-fine-tune a copy of ``base`` on ``texts`` (the simulated leak), merge and save it."""
    import torch
    from peft import LoraConfig, get_peft_model
    from transformers import AutoModelForCausalLM, AutoTokenizer

    tok = AutoTokenizer.from_pretrained(base)
    model = get_peft_model(
        AutoModelForCausalLM.from_pretrained(base),
        LoraConfig(
            r=16, lora_alpha=32, target_modules=["q_proj", "v_proj", "o_proj", "up_proj", "down_proj"]
        ),
    )
    for p in model.parameters():  # the tiny model's embeddings too, so 2 layers can memorise
        p.requires_grad = p.requires_grad or (p.ndim == 2 and p.shape[0] == len(tok))
    optim = torch.optim.AdamW([p for p in model.parameters() if p.requires_grad], lr=3e-3)
    torch.manual_seed(0)
    enc = tok(texts, return_tensors="pt", padding=True)
    labels = enc["input_ids"].masked_fill(enc["attention_mask"] == 0, -100)
    for _ in range(100):
        loss = model(**enc, labels=labels).loss
        loss.backward()
        optim.step()
        optim.zero_grad()
    model.merge_and_unload().save_pretrained(out)
    tok.save_pretrained(out)
    return out


def test_perturbations_are_seeded_and_of_each_kind() -> None:
    text = "один два три четыре пять шесть семь восемь"
    first = perturb(text, k_per_kind=3, seed=5)
    assert first == perturb(text, k_per_kind=3, seed=5) and first != perturb(text, k_per_kind=3, seed=6)
    assert [k for k, _ in first] == ["delete"] * 3 + ["duplicate"] * 3 + ["swap"] * 3
    assert all(len(n.split()) < 8 for k, n in first if k == "delete")
    assert all(len(n.split()) > 8 for k, n in first if k == "duplicate")
    assert all(sorted(n.split()) == sorted(text.split()) for k, n in first if k == "swap")
    masked = perturb(
        text, k_per_kind=2, seed=1, fill=lambda w, pos: ["X" if i in pos else x for i, x in enumerate(w)]
    )
    assert [k for k, _ in masked][:2] == ["mask", "mask"] and "X" in masked[0][1]


def test_auc_by_hand() -> None:
    assert auc_roc([0.9, 0.8, 0.3, 0.1], [1, 1, 0, 0]) == 1.0
    assert auc_roc([0.5, 0.5], [1, 0]) == 0.5
    assert auc_roc([0.2, 0.9, 0.4], [1, 0, 0]) == 0.0


@pytest.mark.slow
def test_detector_separates_leaked_items_on_held_out_split(tmp_path: Path) -> None:
    texts = _items(28, seed=1)
    leaked_texts, clean_texts = texts[:16], texts[16:]
    base = tiny_models.build_llama(tmp_path / "base")
    leak = _leak(base, tmp_path / "leak", leaked_texts)
    embed = create_embedder(f"hf/{_tiny_bert(tmp_path / 'bert')}").embed

    backends = {m: create_backend(f"hf/{m}", options=BackendOptions()) for m in (base, leak)}

    def features(model: Path, chosen: list[str], tag: str) -> list:
        items = [("leak", Sample(id=f"{tag}{i}", input=t), t) for i, t in enumerate(chosen)]
        return extract_features(items, losses=backends[model].text_losses, embed=embed, k_per_kind=2, seed=0)

    train, held_out = leaked_texts[:8], leaked_texts[8:]
    base_train, leak_train = features(base, train, "m"), features(leak, train, "m")
    detector = train_detector(base_train, leak_train)
    members_f, non_members_f = features(leak, held_out, "h"), features(leak, clean_texts, "c")
    members = [detector.item_score(f) for f in members_f]
    non_members = [detector.item_score(f) for f in non_members_f]
    base_on_members = [detector.item_score(f) for f in features(base, held_out, "h")]
    assert auc_roc(members + non_members, [1] * len(members) + [0] * len(non_members)) > 0.8
    assert auc_roc(members + base_on_members, [1] * len(members) + [0] * len(base_on_members)) > 0.8
    assert np.mean(members) > np.mean(non_members)
    # the same through the CLI: train from feature files, detect with labels -> AUC
    write_features(tmp_path / "base.jsonl", base_train)
    write_features(tmp_path / "leak.jsonl", leak_train)
    write_features(tmp_path / "test.jsonl", members_f + non_members_f)
    (tmp_path / "labels.jsonl").write_text(
        "".join(
            json.dumps({"task": "leak", "sample_id": f.sample_id, "leaked": int(f.sample_id.startswith("h"))})
            + "\n"
            for f in members_f + non_members_f
        ),
        encoding="utf-8",
    )
    cli = CliRunner()
    trained = cli.invoke(
        app,
        [
            "protect",
            "msmia",
            "train",
            "--base",
            str(tmp_path / "base.jsonl"),
            "--leaked",
            str(tmp_path / "leak.jsonl"),
            "--output",
            str(tmp_path / "det"),
        ],
    )
    assert trained.exit_code == 0, trained.output
    found = cli.invoke(
        app,
        [
            "protect",
            "msmia",
            "detect",
            "--detector",
            str(tmp_path / "det"),
            "--features",
            str(tmp_path / "test.jsonl"),
            "--labels",
            str(tmp_path / "labels.jsonl"),
            "--json",
        ],
    )
    report = json.loads(found.output)
    assert report["n"] == len(members_f) + len(non_members_f) and report["auc_roc"] > 0.8
    assert 0.0 <= report["dataset_leak_probability"] <= 1.0


def test_loss_is_conditioned_on_the_image(tmp_path: Path) -> None:
    from PIL import Image

    from omnieval.protect.msmia.features import media_request
    from omnieval.types import MediaRef

    llava = tiny_models.build_llava(tmp_path / "llava")
    backend = create_backend(f"hf/{llava}", options=BackendOptions())
    paths = []
    for i, colour in enumerate(((250, 10, 10), (10, 10, 250))):
        path = tmp_path / f"{i}.png"
        Image.new("RGB", (32, 32), colour).save(path)
        paths.append(path)

    def loss(path: Path) -> float:
        sample = Sample(
            id="s", input="red circle", media=(MediaRef(kind="image", name="image", path=str(path)),)
        )
        return backend.text_losses(media_request("t", sample), ["red blue green"])[0]

    first, again, other = loss(paths[0]), loss(paths[0]), loss(paths[1])
    assert first == again and np.isfinite(first) and first > 0
    assert abs(first - other) > 1e-6  # a different image changes the text's loss


def test_loss_is_conditioned_on_audio_and_video(tmp_path: Path) -> None:
    """The same text's loss changes with the item's audio (Qwen2-Audio) and video (LLaVA, sampled frames)."""
    import soundfile

    from omnieval.protect.msmia.features import media_request
    from omnieval.types import MediaRef

    rate = 16_000
    tones = []
    for i, freq in enumerate((220.0, 1_760.0)):
        tones.append(tmp_path / f"tone{i}.wav")
        soundfile.write(
            tones[-1], (0.3 * np.sin(2 * np.pi * freq * np.arange(rate) / rate)).astype("float32"), rate
        )
    clips = [tiny_models.write_video(tmp_path / f"clip{i}.mp4", frames=4 + 8 * i, fps=4) for i in range(2)]
    for model, kind, files in (
        (tiny_models.build_qwen2_audio(tmp_path / "qa"), "audio", tones),
        (tiny_models.build_llava(tmp_path / "llava"), "video", clips),
    ):
        backend = create_backend(f"hf/{model}", options=BackendOptions())

        def loss(path: Path, kind: str = kind, backend: object = backend) -> float:
            sample = Sample(id="s", input="x", media=(MediaRef(kind=kind, name=kind, path=str(path)),))
            return backend.text_losses(media_request("t", sample), ["red blue green"])[0]  # type: ignore[attr-defined]

        first, again, other = loss(files[0]), loss(files[0]), loss(files[1])
        assert first == again and np.isfinite(first) and first > 0, kind
        assert abs(first - other) > 1e-6, kind  # different media, different loss of the same text


def test_masking_with_a_local_fill_model(tmp_path: Path) -> None:
    import torch
    from transformers import BertConfig, BertForMaskedLM

    from omnieval.protect.msmia.perturb import masked_lm_filler

    tok = tiny_models.bpe_tokenizer(["[MASK]"])
    tok.mask_token = "[MASK]"
    tok.save_pretrained(tmp_path / "mlm")
    torch.manual_seed(0)
    BertForMaskedLM(
        BertConfig(
            vocab_size=len(tok),
            hidden_size=16,
            num_hidden_layers=1,
            num_attention_heads=2,
            intermediate_size=32,
            max_position_embeddings=128,
        )
    ).save_pretrained(tmp_path / "mlm")
    fill = masked_lm_filler(str(tmp_path / "mlm"))
    words = ["red", "blue", "green", "один", "два", "три"]
    out = fill(list(words), [1, 4])
    assert len(out) == len(words)
    assert [w for i, w in enumerate(out) if i not in (1, 4)] == [
        w for i, w in enumerate(words) if i not in (1, 4)
    ]
    assert "[MASK]" not in " ".join(out) and all(out[i] for i in (1, 4))
    neighbours = perturb(" ".join(words), k_per_kind=2, seed=3, fill=fill)
    assert [k for k, _ in neighbours].count("mask") == 2
    assert neighbours == perturb(" ".join(words), k_per_kind=2, seed=3, fill=fill)


def test_bad_embedder_fails_before_any_model_loads(tmp_path: Path) -> None:
    """The embedder spec is checked first: the model and tasks named here do not exist and are never
    opened."""
    args = [
        "protect",
        "msmia",
        "features",
        "--model",
        f"hf/{tmp_path / 'nowhere'}",
        "--tasks",
        "no_such_task",
        "--output",
        str(tmp_path / "f.jsonl"),
        "--embedder",
    ]
    done = CliRunner().invoke(app, [*args, "gte/qwen2"])
    assert done.exit_code != 0 and "unknown embedder provider 'gte'" in done.output
    done = CliRunner().invoke(app, [*args, "frida"])
    assert done.exit_code != 0 and "PROVIDER/NAME" in done.output
