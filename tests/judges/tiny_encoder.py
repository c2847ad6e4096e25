"""A tiny random-weight BERT sequence classifier (WordPiece tokenizer with [SEP]), saved like a checkpoint."""

from __future__ import annotations

from pathlib import Path

WORDS = [
    "париж",
    "лондон",
    "синий",
    "красный",
    "четыре",
    "пять",
    "да",
    "нет",
    "ответ",
    "столица",
    "цвет",
    "сколько",
    "будет",
    "неба",
    "франции",
    "2",
    "3",
    "4",
    "5",
    "a",
    "b",
    "c",
    "d",
]


def build_tiny_bert_classifier(out: Path) -> Path:
    import torch
    from tokenizers import Tokenizer, models, normalizers, pre_tokenizers, processors, trainers
    from transformers import BertConfig, BertForSequenceClassification, PreTrainedTokenizerFast

    specials = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"]
    tk = Tokenizer(models.WordPiece(unk_token="[UNK]"))
    tk.normalizer = normalizers.Lowercase()
    tk.pre_tokenizer = pre_tokenizers.BertPreTokenizer()
    tk.train_from_iterator(
        [" ".join(WORDS)] * 5, trainers.WordPieceTrainer(vocab_size=200, special_tokens=specials)
    )
    tk.post_processor = processors.TemplateProcessing(
        single="[CLS] $A [SEP]",
        pair="[CLS] $A [SEP] $B [SEP]",
        special_tokens=[("[CLS]", tk.token_to_id("[CLS]")), ("[SEP]", tk.token_to_id("[SEP]"))],
    )
    tok = PreTrainedTokenizerFast(
        tokenizer_object=tk,
        unk_token="[UNK]",
        sep_token="[SEP]",
        cls_token="[CLS]",
        pad_token="[PAD]",
        mask_token="[MASK]",
    )
    config = BertConfig(
        vocab_size=len(tok),
        hidden_size=32,
        num_hidden_layers=2,
        num_attention_heads=2,
        intermediate_size=48,
        max_position_embeddings=512,
        pad_token_id=0,
    )
    config.num_labels = 2
    torch.manual_seed(0)
    BertForSequenceClassification(config).save_pretrained(out)
    tok.save_pretrained(out)
    return out
