from __future__ import annotations

from collections import Counter
from pathlib import Path

import pyarrow.parquet as pq
import pytest

from omnieval.benchmarks.mera.catalog import catalogue, find_task
from omnieval.benchmarks.mera.mini import hidden_answers
from omnieval.benchmarks.mera.prompts import (
    PromptTask,
    assign_prompts,
    default_config,
    load_config,
    render_prompt,
    validate_config,
)
from omnieval.errors import TaskFileError

NAMES = [
    "aquaria",
    "ruenvaqa",
    "ruslun",
    "rutie_audio",
    "ruclevr",
    "rucommonvqa",
    "runaturalsciencevqa",
    "weird",
    "labtabvqa",
    "realvqa",
    "ruhhh_image",
    "rumathvqa",
    "rutie_image",
    "schoolsciencevqa",
    "unisciencevqa",
    "commonvideoqa",
    "realvideoqa",
    "ruhhh_video",
]


def test_catalogue_has_the_18_tasks_with_table2_facts() -> None:
    tasks = catalogue().by_name()
    assert sorted(tasks) == sorted(NAMES)
    assert Counter(t.modality for t in tasks.values()) == {"image": 11, "audio": 4, "video": 3}
    assert sum(t.public for t in tasks.values()) == 7
    assert tasks["labtabvqa"].options == 7 and tasks["unisciencevqa"].human_baseline == 0.13
    # HB totals in Tables 18-21 are the means of the Table 2 values
    for modality, total in catalogue().human_baseline_totals.items():
        values = [t.human_baseline for t in catalogue().of_modality(modality)]
        assert sum(values) / len(values) == pytest.approx(total, abs=0.006)  # image: 0.7945 printed as 0.80


def test_folder_names_match_case_and_dash_insensitively() -> None:
    for name in ("RuSLUn", "ruHHH-Image", "ruhhh_image", "RUHHH_IMAGE", "ruTiE_Audio"):
        assert find_task(name) is not None
    assert find_task("ruHHH-Image").name == "ruhhh_image"  # type: ignore[union-attr]
    assert find_task("NotATask") is None


def test_default_matrix_has_five_reasoning_prompts_and_a_zero_prompt() -> None:
    config = default_config(PromptTask.from_task(find_task("realvqa")))  # type: ignore[arg-type]
    reasoning = [k for k, p in config.items() if p["reasoning_motivation"] != "none"]
    assert reasoning == ["prompt_3", "prompt_4", "prompt_6", "prompt_7", "prompt_10"]
    zero = config["prompt_1"]
    assert {k for k, v in zero.items() if v != "none"} == {"question", "answer_options"}


def test_ruslun_and_rutie_exceptions() -> None:
    for name in ("ruslun", "rutie_image"):
        config = default_config(PromptTask.from_task(find_task(name)))  # type: ignore[arg-type]
        assert all(p["reasoning_motivation"] == "none" for p in config.values())
        assert config["prompt_1"]["answer_format"] == "informal_technical"
    rutie = default_config(PromptTask.from_task(find_task("rutie_audio")))  # type: ignore[arg-type]
    assert all(p["attention_hook"] == "none" == p["answer_motivation"] for p in rutie.values())


def test_rendered_prompt_keeps_placeholders_and_marker() -> None:
    task = PromptTask.from_task(find_task("aquaria"))  # type: ignore[arg-type]
    text = render_prompt(task, default_config(task)["prompt_2"], lang="ru")
    assert "<audio_1>" in text and "<audio_2>" in text and "{question}" in text and "{option_d}" in text
    assert "ОТВЕТ" in text
    filled = text.format(question="Q?", option_a="a", option_b="b", option_c="c", option_d="d")
    assert "Q?" in filled
    en = render_prompt(task, default_config(task)["prompt_2"], lang="en")
    assert "ANSWER" in en


def test_bad_config_names_prompt_and_block() -> None:
    task = PromptTask.from_task(find_task("weird"))  # type: ignore[arg-type]
    config = default_config(task)
    config["prompt_3"]["limitations"] = "shouting"
    with pytest.raises(TaskFileError, match=r"prompt_3\.limitations.*shouting"):
        validate_config(config)
    del config["prompt_9"]
    with pytest.raises(TaskFileError, match="prompt_9"):
        validate_config(config)


def test_uniform_assignment_is_balanced_and_deterministic() -> None:
    ids = assign_prompts(23, seed=5)
    counts = Counter(ids)
    assert set(counts) == set(range(10)) and max(counts.values()) - min(counts.values()) <= 1
    assert ids == assign_prompts(23, seed=5) and ids != assign_prompts(23, seed=6)


def test_new_dataset_with_task_section(tmp_path: Path) -> None:
    d = tmp_path / "MyNewVQA"
    d.mkdir()
    (d / "prompt_config.yaml").write_text(
        "task:\n  media: {image: image}\n  answer: OE\n  description: {ru: 'описать фото', en: 'describe the "
        "photo'}\n",
        encoding="utf-8",
    )
    task, config = load_config(d)
    assert len(config) == 10 and "describe the photo" in render_prompt(task, config["prompt_2"], lang="en")


def test_mini_datasets_follow_the_published_schema(mini_root: Path) -> None:
    for task in catalogue().tasks:
        table = pq.read_table(mini_root / task.hf_name / "data" / "test-00000-of-00001.parquet")
        assert table.column_names == ["instruction", "inputs", "outputs", "meta"]
        rows = table.to_pylist()
        assert len(rows) >= 3
        for row in rows:
            assert set(task.media) | set(task.text) | set(task.option_fields) == set(row["inputs"])
            assert isinstance(row["meta"]["id"], int)
            assert (row["outputs"] == "") == (not task.public)
        assert (mini_root / task.hf_name / "data" / "shots-00000-of-00001.parquet").exists()
        answers = hidden_answers(mini_root, task)
        assert set(answers) == {str(r["meta"]["id"]) for r in rows} and all(answers.values())


def test_every_task_skill_is_an_atomic_skill_for_its_modality() -> None:
    from omnieval.benchmarks.mera.taxonomy import skills, uncovered_skills

    atomic = skills()
    letter = {"image": "I", "audio": "A", "video": "V"}
    for task in catalogue().tasks:
        for skill in task.skills:
            assert skill in atomic, (task.name, skill)
            assert letter[task.modality] in atomic[skill].modalities, (task.name, skill)
    assert atomic["Ethics"].path == ("Knowledge", "Common everyday knowledge", "Ethics")
    # Table 7 marks these as uncovered (X): e.g. pose recognition for images, plot recognition
    assert {"Human body pose recognition", "Plot recognition", "Visual pattern recognition"} <= set(
        uncovered_skills("image")
    )
    assert "Speech recognition" not in uncovered_skills("audio")
