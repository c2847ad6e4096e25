"""Taxonomy data files and the criteria matcher on the paper's documented cases."""

from __future__ import annotations

import json
import subprocess
import sys
from collections import Counter
from pathlib import Path

import pytest

from omnieval.benchmarks.pollux.matcher import match_criteria, mean_set_size
from omnieval.benchmarks.pollux.taxonomy import DATA, criteria_taxonomy, task_taxonomy
from omnieval.errors import TaskFileError

UNIVERSAL = 13  # 2 critical + 6 general + 5 subjective


def test_task_taxonomy_shape() -> None:
    tax = task_taxonomy()
    assert len(tax.task_types) == 35 and len(tax.macrogroups) == 8
    zero_shot = {t.name for t in tax.task_types if t.zero_shot}
    assert zero_shot == {
        "AI as a character (formal setting)",
        "AI as a character (informal setting)",
        "Applied brainstorming",
        "Recommendations",
        "Literary text",
        "Code modification",
        "Style transfer",
        "Text-dependent questions",
    }  # (§3.3)
    assert tax.get("STEM exercises").levels == ("high_school", "college")
    assert tax.get("Questions Generation").name == "Text-dependent questions"  # alias
    word = tax.get("Word tasks (editorial brainstorming)")
    assert word.macrogroup == "qa" and word.results_macrogroup == "brainstorming"
    assert sum(t.models == 3 for t in tax.task_types) == 9  # Table 1's three-model task types


def test_criteria_groups_scales_and_polarity() -> None:
    variants = criteria_taxonomy().variants
    universal = Counter(v.group for v in variants if not v.domains and not v.task_types and not v.ethics_only)
    assert universal == {"critical": 2, "general": 6, "subjective": 5}
    assert len({v.criterion_id for v in variants}) == 58  # distinct names (note §2.1)
    crit = criteria_taxonomy().get("critical_format@universal")
    assert (crit.min, crit.max, crit.higher_is_better, crit.allows_na, crit.perfect) == (
        0,
        1,
        False,
        False,
        0,
    )
    by_scale = {(v.criterion_id, tuple(v.task_types)): v.max for v in variants if v.task_types}
    assert by_scale[("sufficiency", ("STEM exercises", "Data analysis"))] == 3
    assert by_scale[("sufficiency", ("Code analysis",))] == 2
    assert by_scale[("operability", ("Code creation", "Code modification"))] == 1
    assert max(v.max for v in variants if v.criterion_id == "apprehensibility") == 4
    assert all(set(v.rubrics) == set(range(v.min, v.max + 1)) for v in variants)
    assert [v.requires_reference for v in variants if v.criterion_id == "correctness_results"].count(
        True
    ) == 1


def test_data_files_name_their_corrections() -> None:
    for name in ("tasks.yaml", "criteria.yaml"):
        text = (DATA / name).read_text(encoding="utf-8")
        assert "version: pollux-" in text and "corrections:" in text
    crit = (DATA / "criteria.yaml").read_text(encoding="utf-8")
    assert "not the 'eight'" in crit and "Summarizing quality' twice" in crit and "App. P" in crit
    assert "Word tasks" in (DATA / "tasks.yaml").read_text(encoding="utf-8")


def ids(**kwargs: object) -> list[str]:
    return [v.id for v in match_criteria(**kwargs)]  # type: ignore[arg-type]


def test_code_creation_set_is_universal_plus_its_task_criteria() -> None:
    got = ids(task_type="Code creation", subtype="Python")
    assert got[:2] == ["critical_format@universal", "critical_censor@universal"]
    assert got[UNIVERSAL:] == [
        "code_cleanliness@task1",
        "correctness_results@task5",
        "operability@task1",
        "optimal_solution@task2",
    ]


def test_journalistic_text_has_domain_but_no_task_criteria() -> None:
    variants = match_criteria(task_type="Journalistic text")
    assert not [v for v in variants if v.group == "task"]  # Table 65 gives it none
    assert [v.criterion_id for v in variants if v.group == "domain"] == [
        "fluff",
        "genre",
        "cohesion",
        "real_world_facts",
        "creativity",
        "depth",
        "linguistic_competence",
    ]
    assert all(v.domains == ("Journalism",) for v in variants if v.group == "domain")


def test_style_transfer_gets_literature_criteria_as_task_specific() -> None:
    got = ids(task_type="Style transfer", subtype="Authors")
    for name in (
        "accents@task1",
        "dramaturgy@task1",
        "dialogs@task1",
        "meter@task1",
        "rhyme@task1",
        "main_idea@task1",
    ):
        assert name in got
    assert "main_idea@task2" not in got  # the Style-transfer-specific variant only
    groups = [v.group for v in match_criteria(task_type="Style transfer", subtype="Authors")]
    assert groups == sorted(groups, key=["critical", "general", "subjective", "domain", "task"].index)


def test_task_variant_replaces_universal_and_domain_variants() -> None:
    got = ids(task_type="Data analysis")
    assert "apprehensibility@task2" in got and "apprehensibility@universal" not in got
    sci = ids(task_type="Applied brainstorming", subtype="Scientific brainstorming")
    assert "safety@task2" in sci and "citing_sources@Science" in sci


def test_ethics_flag_forces_safety_once() -> None:
    assert "safety@ethics" in ids(task_type="Editing", ethics=True)
    assert "safety@ethics" not in ids(task_type="Editing")
    advice = ids(task_type="Advice", ethics=True)
    assert [i for i in advice if i.startswith("safety@")] == ["safety@task2"]


def test_style_from_subtype_and_explicit_override() -> None:
    assert "monologue@Law" in ids(task_type="Extract", subtype="Official text")
    assert "monologue@Law" not in ids(task_type="Extract", subtype="General-purpose")
    assert "monologue@Law" in ids(task_type="Extract", subtype="General-purpose", style="Law")


@pytest.mark.parametrize(
    ("kwargs", "needle"),
    [
        ({"task_type": "Cooking"}, "unknown POLLUX task type"),
        ({"task_type": "Editting"}, "did you mean 'Editing'"),
        ({"task_type": "Extract", "subtype": "Poems"}, "has no subtype 'Poems'"),
        ({"task_type": "Extract", "style": "Poetry"}, "unknown functional style"),
    ],
)
def test_bad_matcher_input_is_a_clear_error(kwargs: dict[str, str], needle: str) -> None:
    with pytest.raises(TaskFileError, match=needle):
        match_criteria(**kwargs)  # type: ignore[arg-type]


def test_mean_set_size_reports_the_average() -> None:
    items = [("Code creation", "Python", None, False), ("Journalistic text", None, None, False)]
    assert mean_set_size(items) == pytest.approx((17 + 20) / 2)
    assert mean_set_size([]) is None


def test_cli_criteria_json() -> None:
    proc = subprocess.run(
        [sys.executable, "-m", "omnieval", "pollux", "criteria", "--task-type", "STEM exercises", "--json"],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert proc.returncode == 0, proc.stderr
    rows = {r["id"]: r for r in json.loads(proc.stdout)}
    assert rows["sufficiency@task1"]["scale"] == [0, 3] and rows["units@task1"]["scale"] == [0, 1]
    assert rows["correctness_results@task3"]["requires_reference"] is True
    bad = subprocess.run(
        [sys.executable, "-m", "omnieval", "pollux", "criteria", "--task-type", "Nope"],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert bad.returncode == 2 and "unknown POLLUX task type" in bad.stderr and "Traceback" not in bad.stderr


def test_every_task_type_gets_criteria_beyond_the_universal_ones() -> None:
    for task in task_taxonomy().task_types:
        for sub in task.subtypes or (None,):
            variants = match_criteria(task_type=task.name, subtype=sub.name if sub else None)
            specific = [v for v in variants if v.group in ("domain", "task")]
            assert specific, (task.name, sub)


def test_a_task_type_with_no_criteria_is_a_clear_error(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Were criteria.yaml to lose Code creation's variants, its items would get only the 13 universal
    criteria: that is an error naming the task type, and loading such items names file, item and field."""
    from omnieval.benchmarks.pollux import matcher
    from omnieval.benchmarks.pollux.items import load_items
    from omnieval.errors import SourceError

    full = criteria_taxonomy()
    stripped = full.model_copy(
        update={"variants": tuple(v for v in full.variants if "Code creation" not in v.task_types)}
    )
    monkeypatch.setattr(matcher, "criteria_taxonomy", lambda: stripped)
    with pytest.raises(TaskFileError, match=r"task type 'Code creation' .*has no criteria of its own"):
        match_criteria(task_type="Code creation", subtype="Python")
    assert len(match_criteria(task_type="Editing")) == 17  # other task types are untouched
    items = tmp_path / "items.jsonl"
    items.write_text(
        json.dumps(
            {"id": "c1", "instruction": "Напиши функцию", "task_type": "Code creation", "complexity": "easy"}
        )
        + "\n",
        encoding="utf-8",
    )
    with pytest.raises(SourceError, match="has no criteria of its own") as info:
        load_items(items)
    assert "items.jsonl" in str(info.value) and "'c1'" in str(info.value) and "'task_type'" in str(info.value)
