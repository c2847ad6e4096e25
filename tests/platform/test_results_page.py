"""The private results page: per-task metrics, state counts and the report's capability breakdowns."""

from __future__ import annotations

import html
from pathlib import Path
from typing import Any

from tests.platform.conftest import register, submission_zip, upload, wait_status
from tests.platform.test_page_errors import _page_login


def test_results_carry_the_reports_task_breakdowns(platform: Any, mera_root: Path) -> None:
    from omnieval.benchmarks.mera.catalog import catalogue

    alice = register(platform, "alice")
    right = {"ruclevr": 3, "rucommonvqa": 6, "ruslun": 6, "aquaria": 1}
    body = wait_status(
        platform, alice, upload(platform, alice, submission_zip(mera_root, right=right)).json()["id"]
    )
    tasks = body["results"]["tasks"]
    by_name = catalogue().by_name()
    expected: dict[str, list[float]] = {}
    for name, block in tasks.items():  # the macro mean per modality, computed here from the catalogue
        expected.setdefault(by_name[name].modality, []).append(block["score"])
    dims = {d["name"]: d for d in body["results"]["breakdowns"]}
    groups = {g["value"]: (g["score"], g["n"]) for g in dims["modalities"]["groups"]}
    assert set(groups) == {"image", "audio"}
    for modality, scores in expected.items():
        # task scores are shown rounded to 3 decimals (policy score_digits), the group mean from the exact
        # ones
        assert abs(groups[modality][0] - sum(scores) / len(scores)) <= 1e-3 and groups[modality][1] == 2
    assert all(d["level"] == "task" for d in dims.values())  # never sample-level (hidden metadata)


def test_results_page_shows_metrics_states_and_breakdowns(platform: Any, mera_root: Path) -> None:
    alice = register(platform, "alice")
    sub = upload(platform, alice, submission_zip(mera_root, right={"ruclevr": 3, "ruslun": 6})).json()["id"]
    body = wait_status(platform, alice, sub)
    assert _page_login(platform, "alice").status_code == 303
    page = html.unescape(platform.get(f"/submissions/{sub}").text)
    results = page.split('id="results"')[1].split("</table>")[0]
    for metric, value in body["results"]["tasks"]["ruclevr"]["metrics"].items():
        assert f"{metric}: {value:.4f}" in results
    assert "ok: 6" in results
    breakdowns = page.split('id="breakdowns"')[1].split("</table>")[0]
    for dim in body["results"]["breakdowns"]:
        for group in dim["groups"]:
            cells = (
                f'<td>{dim["name"]}</td><td>{group["value"]}</td><td class="num">{group["score"]:.4f}</td>'
            )
            assert cells in breakdowns
