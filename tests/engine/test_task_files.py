from __future__ import annotations

from pathlib import Path

import pytest

from omnieval.errors import SourceError, TaskFileError
from omnieval.runner import resolve_tasks
from omnieval.sources import deep_merge, load_task_file

from .conftest import write_jsonl


def _task(tmp_path: Path, body: str) -> Path:
    write_jsonl(tmp_path / "data.jsonl", [{"id": "1", "question": "q", "answer": "a"}])
    path = tmp_path / "task.yaml"
    path.write_text(body, encoding="utf-8")
    return path


def test_valid_task_file_loads(tmp_path: Path) -> None:
    path = _task(tmp_path, "name: t1\nsource: {type: jsonl, path: data.jsonl}\nmetrics: [exact_match]\n")
    task = load_task_file(path)
    assert task.name == "t1" and task.size == 1
    assert [s.id for s in task.iter_samples()] == ["1"]


def test_unknown_key_names_file_and_key(tmp_path: Path) -> None:
    path = _task(tmp_path, "name: t1\nsource: {type: jsonl, path: data.jsonl, colour: red}\n")
    with pytest.raises(TaskFileError) as err:
        load_task_file(path)
    assert str(path) in str(err.value) and "source.colour" in str(err.value)


def test_wrong_type_names_key(tmp_path: Path) -> None:
    path = _task(tmp_path, "name: t1\ngeneration: {max_tokens: lots}\n")
    with pytest.raises(TaskFileError, match=r"generation\.max_tokens"):
        load_task_file(path)


def test_unknown_metric_fails_at_validation_with_suggestion(tmp_path: Path) -> None:
    path = _task(tmp_path, "name: t1\nsource: {type: jsonl, path: data.jsonl}\nmetrics: [exact_mach]\n")
    with pytest.raises(TaskFileError) as err:
        resolve_tasks([str(path)])
    assert "metrics[0]" in str(err.value) and "exact_match" in str(err.value)


def test_unknown_option_fails_at_validation(tmp_path: Path) -> None:
    body = (
        "name: t1\nsource: {type: jsonl, path: data.jsonl}\nmetrics: [{name: exact_match, options: "
        "{fuzzy: true}}]\n"
    )
    with pytest.raises(TaskFileError, match="fuzzy"):
        resolve_tasks([str(_task(tmp_path, body))])


def test_unknown_parser_fails(tmp_path: Path) -> None:
    body = "name: t1\nsource: {type: jsonl, path: data.jsonl}\nparser: mc_leter\n"
    with pytest.raises(TaskFileError, match="mc_letter"):
        resolve_tasks([str(_task(tmp_path, body))])


def test_extends_deep_merges(tmp_path: Path) -> None:
    _task(
        tmp_path,
        "name: base\nsource: {type: jsonl, path: data.jsonl}\n"
        "generation: {max_tokens: 7, temperature: 0.5}\n",
    )
    child = tmp_path / "child.yaml"
    child.write_text("extends: task.yaml\nname: child\ngeneration: {max_tokens: 9}\n", encoding="utf-8")
    spec = load_task_file(child).spec
    assert spec.name == "child" and spec.generation.max_tokens == 9 and spec.generation.temperature == 0.5


def test_deep_merge_replaces_lists() -> None:
    assert deep_merge({"a": {"b": 1, "c": [1]}}, {"a": {"c": [2]}}) == {"a": {"b": 1, "c": [2]}}


def test_missing_field_names_file_sample_and_field(tmp_path: Path) -> None:
    write_jsonl(tmp_path / "d.jsonl", [{"id": "7", "prompt": "q", "answer": "a"}])
    (tmp_path / "t.yaml").write_text("name: t\nsource: {type: jsonl, path: d.jsonl}\n", encoding="utf-8")
    task = load_task_file(tmp_path / "t.yaml")
    with pytest.raises(SourceError) as err:
        list(task.iter_samples())
    message = str(err.value)
    assert "d.jsonl" in message and "'7'" in message and "'question'" in message


def test_invalid_json_line_is_named(tmp_path: Path) -> None:
    (tmp_path / "d.jsonl").write_text(
        '{"id": "1", "question": "q", "answer": "a"}\n{oops\n', encoding="utf-8"
    )
    (tmp_path / "t.yaml").write_text("name: t\nsource: {type: jsonl, path: d.jsonl}\n", encoding="utf-8")
    with pytest.raises(SourceError, match="line 2"):
        list(load_task_file(tmp_path / "t.yaml").iter_samples())


def test_unknown_task_name(tmp_path: Path) -> None:
    with pytest.raises(TaskFileError, match="unknown task"):
        resolve_tasks(["no_such_task_anywhere"])


def test_duplicate_task_names_rejected(qa_file: Path) -> None:
    with pytest.raises(TaskFileError, match="twice"):
        resolve_tasks([f"jsonl:{qa_file},jsonl:{qa_file}"])
