"""n-gram overlap between a benchmark and a streamed corpus."""

from __future__ import annotations

import gzip
import json
from pathlib import Path

from typer.testing import CliRunner

from omnieval.cli.app import app
from omnieval.protect.contamination import ngram_overlap, word_ngrams
from omnieval.types import Sample

Q1 = "В каком году был основан город Санкт-Петербург и кто стал его основателем по указу царя"
Q2 = "Сколько ног у паука и чем паукообразные отличаются от насекомых в школьной биологии"
Q3 = "Какой химический элемент обозначается символом Fe и где он встречается в природе чаще всего"


def test_word_ngrams_fold_case_and_yo() -> None:
    assert word_ngrams("Ёлка, зелёная!", 2) == word_ngrams("елка зеленая", 2)
    assert len(word_ngrams("a b c d", 2)) == 3
    assert len(word_ngrams("a b", 5)) == 1  # shorter than n: one n-gram of the whole text


def test_overlap_counts_per_sample() -> None:
    samples = [("t", Sample(id=str(i), input=q, targets=("x",))) for i, q in enumerate((Q1, Q2, Q3))]
    half = " ".join(Q2.split()[:8])  # 8 of 13 words: 8 - 5 + 1 = 4 of the 13 - 5 + 1 = 9 five-grams
    corpus = iter([("doc1", f"Пролог. {Q1.upper()} — эпилог."), ("doc2", half), ("doc3", "ничего общего")])
    report = ngram_overlap(iter(samples), corpus, n=5, threshold=0.5, include_targets=False)
    rows = {r["sample_id"]: r for r in report["samples"]}
    assert rows["0"]["overlap"] == 1.0 and rows["0"]["contaminated"] and rows["0"]["first_document"] == "doc1"
    assert rows["1"]["ngrams"] == 9 and rows["1"]["matched"] == 4 and not rows["1"]["contaminated"]
    assert rows["2"]["matched"] == 0 and rows["2"]["first_document"] is None
    assert report["documents"] == 3 and report["tasks"]["t"] == {
        "samples": 3,
        "contaminated": 1,
        "rate": 0.333333,
    }


def test_cli_reads_gzip_jsonl_and_text_folders(tmp_path: Path) -> None:
    task = tmp_path / "qa.jsonl"
    task.write_text(
        "\n".join(
            json.dumps({"id": str(i), "question": q, "answer": "x"}, ensure_ascii=False)
            for i, q in enumerate((Q1, Q2, Q3))
        ),
        encoding="utf-8",
    )
    corpus = tmp_path / "corpus"
    corpus.mkdir()
    with gzip.open(corpus / "part1.jsonl.gz", "wt", encoding="utf-8") as fh:
        fh.write(json.dumps({"text": "шум " * 50}, ensure_ascii=False) + "\n")
        fh.write(json.dumps({"text": f"Форум: {Q3}"}, ensure_ascii=False) + "\n")
    (corpus / "part2.txt").write_text(f"строка\n{Q1}\n", encoding="utf-8")
    result = CliRunner().invoke(
        app, ["protect", "ngram", "--tasks", f"jsonl:{task}", "--corpus", str(corpus), "--n", "8", "--json"]
    )
    assert result.exit_code == 0, result.output
    report = json.loads(result.output)
    flagged = {r["sample_id"]: r["first_document"] for r in report["samples"] if r["contaminated"]}
    assert flagged == {"0": f"{corpus / 'part2.txt'}:2", "2": f"{corpus / 'part1.jsonl.gz'}:2"}
    (corpus / "bad.jsonl").write_text('{"body": "no text field"}\n', encoding="utf-8")
    result = CliRunner().invoke(
        app, ["protect", "ngram", "--tasks", f"jsonl:{task}", "--corpus", str(corpus)]
    )
    assert result.exit_code != 0 and "bad.jsonl, line 1" in result.output


def test_ngrams_split_by_a_line_break_in_a_plain_text_corpus_are_found(tmp_path: Path) -> None:
    """A wrapped text (Q1 broken over three lines) still matches: each line carries the previous n − 1
    words."""
    from omnieval.protect.contamination import iter_corpus

    words = Q1.split()
    wrapped = tmp_path / "wrapped.txt"
    wrapped.write_text(
        "Начало статьи.\n"
        + " ".join(words[:5])
        + "\n"
        + " ".join(words[5:11])
        + "\n"
        + " ".join(words[11:])
        + "\n",
        encoding="utf-8",
    )
    samples = [("t", Sample(id="0", input=Q1))]
    found = ngram_overlap(iter(samples), iter_corpus([wrapped], carry_words=7), n=8, include_targets=False)
    assert found["samples"][0]["overlap"] == 1.0 and found["samples"][0]["first_document"] == f"{wrapped}:3"
    split = ngram_overlap(iter(samples), iter_corpus([wrapped]), n=8, include_targets=False)
    assert split["samples"][0]["matched"] == 0  # without the carried words no 8-gram survives the wrapping
    assert [d for d, _ in iter_corpus([wrapped], carry_words=7)] == [f"{wrapped}:{i}" for i in range(1, 5)]
