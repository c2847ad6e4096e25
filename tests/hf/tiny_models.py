"""Tiny random-weight models built from real architectures' configs, saved like hub checkpoints."""

from __future__ import annotations

from pathlib import Path
from typing import Any

CORPUS = [
    "How many circles are there? Answer: 3",
    "Сколько кругов на картинке? Ответ: 2",
    "USER: ASSISTANT: red blue green 1 2 3 4 5",
    "What number is spoken? The capital of France is Paris.",
]

LLAVA_TEMPLATE = (
    "{% for m in messages %}{{ m['role'].upper() }}: {% if m['content'] is string %}{{ m['content'] }}"
    "{% else %}{% for p in m['content'] %}{% if p['type'] == 'image' %}<image>\n{% else %}{{ p['text'] }}"
    "{% endif %}{% endfor %}{% endif %}\n{% endfor %}{% if add_generation_prompt %}ASSISTANT:{% endif %}"
)
AUDIO_TEMPLATE = (
    "{% for m in messages %}{{ m['role'] }}: {% if m['content'] is string %}{{ m['content'] }}"
    "{% else %}{% for p in m['content'] %}{% if p['type'] == 'audio' %}<|audio_bos|><|AUDIO|><|audio_eos|>"
    "{% else %}{{ p['text'] }}{% endif %}{% endfor %}{% endif %}\n{% endfor %}"
    "{% if add_generation_prompt %}assistant:{% endif %}"
)


def bpe_tokenizer(extra_specials: list[str]) -> Any:
    """A byte-level BPE tokenizer trained on a few strings (ids 0-3: pad, bos, eos, unk)."""
    from tokenizers import Tokenizer, decoders, models, pre_tokenizers, trainers
    from transformers import PreTrainedTokenizerFast

    tk = Tokenizer(models.BPE(unk_token="<unk>"))
    tk.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    tk.decoder = decoders.ByteLevel()
    trainer = trainers.BpeTrainer(
        vocab_size=320,
        special_tokens=["<pad>", "<s>", "</s>", "<unk>", *extra_specials],
        initial_alphabet=pre_tokenizers.ByteLevel.alphabet(),
    )
    tk.train_from_iterator(CORPUS * 3, trainer)
    return PreTrainedTokenizerFast(
        tokenizer_object=tk, bos_token="<s>", eos_token="</s>", pad_token="<pad>", unk_token="<unk>"
    )


def _text_config(cls: Any, vocab: int) -> Any:
    return cls(
        vocab_size=vocab,
        hidden_size=32,
        intermediate_size=48,
        num_hidden_layers=2,
        num_attention_heads=2,
        num_key_value_heads=2,
        max_position_embeddings=512,
        pad_token_id=0,
        bos_token_id=1,
        eos_token_id=2,
    )


def build_llama(out: Path, *, chat_template: str | None = None) -> Path:
    """A 2-layer Llama text LM with an optional chat template."""
    import torch
    from transformers import LlamaConfig, LlamaForCausalLM

    tok = bpe_tokenizer([])
    if chat_template:
        tok.chat_template = chat_template
    torch.manual_seed(0)
    LlamaForCausalLM(_text_config(LlamaConfig, len(tok))).save_pretrained(out)
    tok.save_pretrained(out)
    return out


def build_llava(out: Path) -> Path:
    """LLaVA: CLIP vision tower + Llama LM, CLIP PIL image processor, chat template on the processor."""
    import torch
    from transformers import (
        CLIPImageProcessorPil,
        CLIPVisionConfig,
        LlamaConfig,
        LlavaConfig,
        LlavaForConditionalGeneration,
        LlavaProcessor,
    )

    tok = bpe_tokenizer(["<image>"])
    images = CLIPImageProcessorPil(size={"shortest_edge": 32}, crop_size={"height": 32, "width": 32})
    proc = LlavaProcessor(
        image_processor=images,
        tokenizer=tok,
        patch_size=8,
        chat_template=LLAVA_TEMPLATE,
        vision_feature_select_strategy="default",
        num_additional_image_tokens=1,
    )
    vision = CLIPVisionConfig(
        hidden_size=32,
        intermediate_size=37,
        num_hidden_layers=1,
        num_attention_heads=2,
        image_size=32,
        patch_size=8,
        projection_dim=32,
    )
    cfg = LlavaConfig(
        vision_config=vision,
        text_config=_text_config(LlamaConfig, len(tok)),
        image_token_index=tok.convert_tokens_to_ids("<image>"),
        vision_feature_select_strategy="default",
        vision_feature_layer=-1,
    )
    torch.manual_seed(0)
    LlavaForConditionalGeneration(cfg).save_pretrained(out)
    proc.save_pretrained(out)
    return out


def build_qwen2_audio(out: Path) -> Path:
    """Qwen2-Audio: Whisper-style encoder + Qwen2 LM, a locally built Whisper feature extractor."""
    import torch
    from transformers import (
        Qwen2AudioConfig,
        Qwen2AudioEncoderConfig,
        Qwen2AudioForConditionalGeneration,
        Qwen2AudioProcessor,
        Qwen2Config,
        WhisperFeatureExtractor,
    )

    tok = bpe_tokenizer(["<|AUDIO|>", "<|audio_bos|>", "<|audio_eos|>"])
    fe = WhisperFeatureExtractor(feature_size=16, sampling_rate=16000, hop_length=160, chunk_length=2)
    proc = Qwen2AudioProcessor(feature_extractor=fe, tokenizer=tok, chat_template=AUDIO_TEMPLATE)
    enc = Qwen2AudioEncoderConfig(
        num_mel_bins=16,
        encoder_layers=1,
        encoder_attention_heads=2,
        encoder_ffn_dim=32,
        d_model=32,
        max_source_positions=100,
    )
    cfg = Qwen2AudioConfig(
        audio_config=enc,
        text_config=_text_config(Qwen2Config, len(tok)),
        audio_token_index=tok.convert_tokens_to_ids("<|AUDIO|>"),
    )
    torch.manual_seed(0)
    Qwen2AudioForConditionalGeneration(cfg).save_pretrained(out)
    proc.save_pretrained(out)
    return out


def write_video(path: Path, *, frames: int, fps: int, size: int = 32) -> Path:
    """A small MPEG-4 clip whose red channel grows frame by frame."""
    import av
    from PIL import Image

    with av.open(str(path), "w") as out:
        stream: Any = out.add_stream("mpeg4", rate=fps)
        stream.width, stream.height, stream.pix_fmt = size, size, "yuv420p"
        for i in range(frames):
            img = Image.new("RGB", (size, size), (8 * i % 256, 0, 0))
            for packet in stream.encode(av.VideoFrame.from_image(img)):
                out.mux(packet)
        for packet in stream.encode():
            out.mux(packet)
    return path
