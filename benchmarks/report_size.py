"""Benchmark: report size, render time and time to interactive for 1,000 / 10,000 / 100,000 samples.

Run: ``.venv/bin/python benchmarks/report_size.py [--sizes 1000,10000,100000] [--prose]``

For each size a synthetic run directory is written (records with long responses, reasoning, judge
fields, every state, a task and sample taxonomy; see ``omnieval.testing.runs``), then:

``--prose`` writes varied pseudo-Russian text and a prompt per record instead of repeated filler words,
so the sidecar's compressed size is measured on text that compresses about as model output does.

* render: ``write_report`` wall time (records read, breakdowns, sidecar and tables written);
* size: ``report.html`` alone and with its ``report_samples/`` sidecar;
* first paint: header, summary and task table are drawn before plotly.js is parsed (it sits at the
  end of the page);
* interactive: Debian's headless Chromium (Playwright) from navigation to every chart drawn and the
  first page of samples shown (with its two largest parts: loading the inlined plotly.js, drawing the
  charts); then the time a state filter takes to update the list, and a full-text search over every
  sample: the first (inflates every part and builds its lowercase haystack) and a second query (scans
  the haystacks kept in memory), both without the 250 ms typing pause.

Browser timings depend on the machine's load: compare sizes within one run of this script.

Goals (issue 12): the 100,000-sample report is interactive in < 3 s and renders in < 10 s.
"""

from __future__ import annotations

import argparse
import tempfile
import time
from pathlib import Path
from typing import Any

from omnieval.reports.html import write_report
from omnieval.testing.browser import chromium_path, open_page
from omnieval.testing.runs import write_synthetic_run

NAN = float("nan")

READY = "body[data-viewer=ready]"
DEBOUNCE_S = 0.25
CHARTS = "[...document.querySelectorAll('div.chart')].every(d => d.querySelector('svg.main-svg'))"


def _mb(path: Path) -> float:
    if path.is_dir():
        return sum(p.stat().st_size for p in path.rglob("*") if p.is_file()) / 1e6
    return path.stat().st_size / 1e6


def _search_s(page: Any, query: str) -> float:
    page.evaluate("document.body.dataset.viewer = 'busy'")
    t0 = time.perf_counter()
    page.fill("#f-search", query)
    page.wait_for_selector(READY, state="attached", timeout=120_000)
    return time.perf_counter() - t0 - DEBOUNCE_S


def measure(n: int, root: Path, *, prose: bool) -> dict[str, float]:
    run = write_synthetic_run(root / f"run{n}", n_samples=n, n_tasks=8, seed=n, prose=prose)
    start, cpu = time.perf_counter(), time.process_time()
    report = write_report(run)
    render_s, render_cpu_s = time.perf_counter() - start, time.process_time() - cpu
    row = {
        "n": n,
        "render_s": render_s,
        "render_cpu_s": render_cpu_s,
        "html_mb": _mb(report),
        "sidecar_mb": _mb(run / "report_samples"),
    }
    if chromium_path() is None:
        return row
    with open_page(report, wait_for=READY, timeout_ms=60_000) as probe:
        probe.page.wait_for_function(CHARTS)
        row["interactive_s"] = probe.page.evaluate("performance.now()") / 1000
        marks = probe.page.evaluate(
            "Object.fromEntries(performance.getEntriesByType('mark').map(m => [m.name, m.startTime]))"
        )
        row["plotly_s"] = marks["omni-plotly-loaded"] / 1000
        row["charts_s"] = (marks["omni-charts-drawn"] - marks["omni-plotly-loaded"]) / 1000
        paint = probe.page.evaluate(
            "(performance.getEntriesByName('first-contentful-paint')[0] || {}).startTime || null"
        )
        row["first_paint_s"] = paint / 1000 if paint else float("nan")
        assert not probe.console_errors and not probe.remote_requests, (
            probe.console_errors,
            probe.remote_requests,
        )
        probe.page.evaluate("document.body.dataset.viewer = 'busy'")
        t0 = time.perf_counter()
        probe.page.select_option("#f-state", label="judge_failed")
        probe.page.wait_for_selector(READY, state="attached")
        row["filter_s"] = time.perf_counter() - t0
        probe.page.select_option("#f-state", label="all states")
        probe.page.wait_for_selector(READY, state="attached")
        row["search_s"] = _search_s(probe.page, "примере 77.")
        row["search2_s"] = _search_s(probe.page, "ответ: b")
    return row


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--sizes", default="1000,10000,100000")
    parser.add_argument(
        "--prose", action="store_true", help="varied text and prompts instead of repeated filler words"
    )
    args = parser.parse_args()
    sizes = [int(s) for s in args.sizes.split(",")]
    if chromium_path() is None:
        print("note: Chromium not found (apt-get install chromium): browser timings skipped")
    print(
        f"{'samples':>8} {'render s':>9} {'(cpu s)':>8} {'html MB':>8} {'sidecar MB':>11} "
        f"{'first paint s':>14} {'interactive s':>14} {'(plotly.js':>11} {'charts)':>8} {'filter s':>9} "
        f"{'search s':>9} {'(again)':>8}"
    )
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        for n in sizes:
            row = measure(n, Path(tmp), prose=args.prose)
            rows.append(row)
            print(
                f"{n:>8} {row['render_s']:>9.2f} {row['render_cpu_s']:>8.2f} {row['html_mb']:>8.2f} "
                f"{row['sidecar_mb']:>11.1f} {row.get('first_paint_s', float('nan')):>14.2f} "
                f"{row.get('interactive_s', float('nan')):>14.2f} {row.get('plotly_s', float('nan')):>11.2f} "
                f"{row.get('charts_s', float('nan')):>8.2f} {row.get('filter_s', float('nan')):>9.2f} "
                f"{row.get('search_s', float('nan')):>9.2f} {row.get('search2_s', float('nan')):>8.2f}"
            )
    big = rows[-1]
    print(
        f"\nlargest ({big['n']:,} samples): render {big['render_s']:.1f} s wall, {big['render_cpu_s']:.1f} s "
        "CPU (goal < 10 s), "
        f"interactive {big.get('interactive_s', float('nan')):.2f} s (goal < 3 s)"
    )
    if len(rows) > 1:
        print(
            f"ratio interactive {rows[-1]['n']:,} / {rows[0]['n']:,} samples: "
            f"{rows[-1].get('interactive_s', NAN) / rows[0].get('interactive_s', NAN):.2f}x "
            f"(html {rows[-1]['html_mb'] / rows[0]['html_mb']:.2f}x)"
        )


if __name__ == "__main__":
    main()
