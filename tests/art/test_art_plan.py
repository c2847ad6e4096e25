"""The sampler: pool sizes against the paper's counts, exact balance, template coverage, bad rules."""

from __future__ import annotations

import dataclasses
from collections import Counter

import pytest

from omnieval.benchmarks.art.expr import compile_expr
from omnieval.benchmarks.art.sampler import check_satisfiable, plan_task, pools
from omnieval.benchmarks.art.spec import TASKS, load_spec
from omnieval.errors import SourceError


@pytest.fixture(scope="module")
def spec():  # type: ignore[no-untyped-def]
    return load_spec()


def test_fifty_five_templates_in_nine_tasks(spec) -> None:  # type: ignore[no-untyped-def]
    counts = {task: len(spec.templates[task]) for task in TASKS}
    assert counts == {
        "AA": 6,
        "ATD": 4,
        "CRLI": 6,
        "CRSI": 4,
        "STI": 4,
        "SR": 15,
        "SFC": 4,
        "TSR": 8,
        "TTLR": 4,
    }
    assert sum(counts.values()) == 55


def _sizes(spec, template_id: str) -> tuple[int, int]:  # type: ignore[no-untyped-def]
    task = template_id.split("_")[0]
    template = next(t for t in spec.templates[task] if t.id == template_id)
    found = pools(template, spec)
    return sum(len(y) for y, _ in found.values()), sum(len(n) for _, n in found.values())


def test_slot_spaces_match_the_counts_worked_out_from_the_paper(spec) -> None:  # type: ignore[no-untyped-def]
    # art_audio.md §3.1 (AA table), §3.2 (32 + 24 ATD_0/1 Yes), §3.3 (CRLI), §3.4 (CRSI): hand-derived counts
    assert _sizes(spec, "AA_0") == (80, 240)
    assert _sizes(spec, "AA_1") == (40, 280)
    assert _sizes(spec, "AA_2") == (200, 200)
    assert _sizes(spec, "AA_4") == (120, 200)
    assert _sizes(spec, "ATD_0")[0] == 32 + 24
    assert (
        _sizes(spec, "ATD_2")[0] == 4 * 28
    )  # one clean side: 2 sides x (6 x 2 wordings + reversed + truncated)
    assert _sizes(spec, "CRLI_0") == (24, 1296)
    assert _sizes(spec, "CRLI_3") == (12, 36)
    assert sum(_sizes(spec, "CRLI_2")) == 1320 and _sizes(spec, "CRLI_2")[0] == 648
    assert _sizes(spec, "CRSI_0") == (48, 144)
    assert _sizes(spec, "CRSI_2")[0] == 288 and sum(_sizes(spec, "CRSI_2")) == 1728
    assert _sizes(spec, "CRSI_3")[0] == 144


@pytest.mark.parametrize("total", [24, 1000])
def test_every_task_is_balanced_exactly_and_covers_every_template(spec, total: int) -> None:  # type: ignore[no-untyped-def]
    for task in TASKS:
        plan = plan_task(spec, task, seed=3, total=total)
        assert len(plan) == total
        answers = Counter(p.answer for p in plan)
        assert answers["Yes"] == answers["No"] == total // 2, task
        by_template = Counter((p.template, p.answer) for p in plan)
        ids = [t.id for t in spec.templates[task]]
        assert {p.template for p in plan} == set(ids), task
        if total == 1000:
            for tid in ids:
                assert abs(by_template[(tid, "Yes")] - by_template[(tid, "No")]) <= 1, (task, tid)


def test_atd_full_scale_reproduces_the_paper_per_template_counts(spec) -> None:  # type: ignore[no-untyped-def]
    plan = plan_task(spec, "ATD", seed=0, total=1000)
    counts = Counter((p.template, p.answer) for p in plan)
    assert counts == {
        ("ATD_0", "Yes"): 56,
        ("ATD_0", "No"): 56,
        ("ATD_1", "Yes"): 56,
        ("ATD_1", "No"): 56,
        ("ATD_2", "Yes"): 112,
        ("ATD_2", "No"): 112,
        ("ATD_3", "Yes"): 276,
        ("ATD_3", "No"): 276,
    }
    # ATD_0/1 Yes items: the exhaustive 32 + 24 distinct configurations, none repeated
    yes0 = [p for p in plan if p.template == "ATD_0" and p.answer == "Yes"]
    assert not any(p.repeat for p in yes0)
    assert len({(p.variant, tuple(sorted(p.values.items()))) for p in yes0}) == 56


def test_small_pools_repeat_and_say_so(spec) -> None:  # type: ignore[no-untyped-def]
    plan = plan_task(spec, "SR", seed=1, per_template=20)
    sr4 = [p for p in plan if p.template == "SR_4" and p.answer == "Yes"]  # only bird/bird2 are nice weather
    assert len(sr4) == 10 and sum(p.repeat for p in sr4) == 8


def test_same_seed_same_plan_other_seed_other_plan(spec) -> None:  # type: ignore[no-untyped-def]
    a = plan_task(spec, "STI", seed=9, total=24)
    assert a == plan_task(spec, "STI", seed=9, total=24)
    assert a != plan_task(spec, "STI", seed=10, total=24)


def test_unsatisfiable_template_fails_before_generation(spec) -> None:  # type: ignore[no-untyped-def]
    template = spec.templates["SR"][2]
    variant = dataclasses.replace(
        template.variants[0], where=(compile_expr("not rideable(s)", where="test"),)
    )
    broken = dataclasses.replace(
        spec,
        templates={**spec.templates, "SR": (dataclasses.replace(template, id="SR_X", variants=(variant,)),)},
    )
    with pytest.raises(SourceError, match="SR_X has no 'Yes' configuration"):
        check_satisfiable(broken, ["SR"])


def test_rules_outside_the_whitelist_are_rejected() -> None:
    with pytest.raises(SourceError, match="Attribute"):
        compile_expr("s.__class__", where="tasks/X.yaml X_0")
    with pytest.raises(SourceError, match="one argument"):
        compile_expr("size(a, b)", where="tasks/X.yaml X_0")


def test_crli_languages_option_extends_speakers_and_rejects_unknown_ones() -> None:
    spec = load_spec(crli_languages=("et", "fi", "hu", "pl", "cs", "lv"))
    assert (
        len(spec.tables["language"]) == 18 and "Prague" in spec.templates["CRLI"][3].variants[0].slots[0][1]
    )
    with pytest.raises(SourceError, match="unknown: \\['xx'\\]"):
        load_spec(crli_languages=("et", "fi", "xx"))


def test_asset_seed_gives_fresh_but_reproducible_sounds() -> None:
    import numpy as np

    from omnieval.benchmarks.art.synth import synthesize

    canonical = synthesize("bell")
    assert np.array_equal(canonical, synthesize("bell", asset_seed=0))
    fresh = synthesize("bell", asset_seed=1)
    assert not np.array_equal(canonical, fresh)
    assert np.array_equal(fresh, synthesize.__wrapped__("bell", asset_seed=1))  # recomputed, not the cache


def test_art_h_subset_is_twelve_yes_twelve_no_over_all_templates(spec) -> None:  # type: ignore[no-untyped-def]
    from omnieval.benchmarks.art.sampler import art_h_subset

    for task in TASKS:
        plan = plan_task(spec, task, seed=4, total=1000)
        subset = art_h_subset(plan, spec, task, seed=4)
        chosen = [plan[i] for i in subset]
        assert len(chosen) == 24 and sum(p.answer == "Yes" for p in chosen) == 12, task
        assert {p.template for p in chosen} == {t.id for t in spec.templates[task]}, task
        assert not any(p.repeat for p in chosen), task
