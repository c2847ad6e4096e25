"""Expert annotation: panel routing, overlap targets, the POLLUX rationale rule, progress, export."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from tests.platform.conftest import create, make_settings, token


def triple(item: str, criterion: str, panel: str, overlap: int = 2, **extra: Any) -> dict[str, Any]:
    return {
        "item_id": item,
        "criterion": criterion,
        "panel": panel,
        "overlap": overlap,
        "instruction": "Перепишите текст в стиле Набокова.",
        "answer": "В дни моей юности...",
        "description": "Связность и логичность текста.",
        "rubric": {"0": "бессвязно", "1": "есть сбои", "2": "связно"},
        "scale": [0, 1, 2],
        **extra,
    }


def test_routing_overlap_rationale_progress_export(platform: Any, data_dir: Path) -> None:
    routing_overlap_rationale_progress_export(platform, make_settings(data_dir))


def routing_overlap_rationale_progress_export(platform: Any, settings: Any) -> None:
    """The whole annotation flow on ``platform`` (whose database ``settings`` point at)."""
    for name, panel in (("lit2", "literature"), ("lit3", "literature"), ("sci1", "science")):
        create(settings, name, "annotator", panel=panel)
    admin = token(platform, "admin")
    items = [
        triple("a1", "Связность", "literature"),
        triple("a2", "Связность", "literature", overlap=1),
        triple("a1", "Цензор", "literature", allow_na=False, perfect=0),
        triple("s1", "Точность", "science"),
    ]
    assert platform.post("/api/v1/annotation/items", headers=admin, json={"items": items}).json() == {
        "loaded": 4
    }
    lit = {n: token(platform, n) for n in ("annotator", "lit2", "lit3")}
    sci = token(platform, "sci1")
    first = platform.get("/api/v1/annotation/next", headers=sci).json()["item"]
    assert first["item_id"] == "s1" and first["rubric"]["2"] == "связно"  # only its own panel

    def post(headers: dict[str, str], pk: int, score: int | None, rationale: str) -> Any:
        return platform.post(
            f"/api/v1/annotation/items/{pk}/scores",
            headers=headers,
            json={"score": score, "rationale": rationale},
        )

    item = platform.get("/api/v1/annotation/next", headers=lit["annotator"]).json()["item"]
    assert (item["item_id"], item["criterion"]) == ("a1", "Связность")
    refusals = {
        (1, ""): "empty",
        (1, "Хорошо"): "one-word",
        (1, "good enough text"): "Russian",
        (7, "Текст связный и логичный"): "one of",
    }
    for (score, text), reason in refusals.items():
        r = post(lit["annotator"], item["id"], score, text)
        assert r.status_code == 422 and reason in r.json()["detail"], (score, text, r.text)
    assert post(lit["annotator"], item["id"], 2, "Отлично").status_code == 201  # one word: perfect score only
    assert post(lit["annotator"], item["id"], 1, "Ещё раз оцениваю").status_code == 422  # never twice
    assert post(sci, item["id"], 1, "Чужая панель здесь").status_code == 404  # not routed to science
    assert post(lit["lit2"], item["id"], None, "Критерий здесь неприменим").status_code == 201
    assert post(lit["lit3"], item["id"], 1, "Третий голос лишний").status_code == 422  # overlap 2 reached
    censor = next(i for i in items if i["criterion"] == "Цензор")
    nxt = platform.get("/api/v1/annotation/next", headers=lit["lit3"]).json()["item"]
    assert (nxt["item_id"], nxt["criterion"]) == ("a2", "Связность")  # fewest scores first, then load order
    censor_pk = nxt["id"] + 1  # loaded right after a2
    assert post(lit["lit3"], censor_pk, None, "Неприменимо для цензора").status_code == 422  # NA not allowed
    assert post(lit["lit3"], censor_pk, 0, "Нет").status_code == 201  # perfect of a Critical criterion is 0
    assert post(lit["lit2"], censor_pk, 0, "Цензор не сработал").status_code == 201
    assert censor["perfect"] == 0
    prog = platform.get("/api/v1/annotation/progress", headers=admin).json()["criteria"]
    assert prog["Связность"] == {
        "triples": 2,
        "target": 3,
        "done": 2,
        "complete": 1,
        "agreement": 0.5,
        "agreement_n": 1,
    }
    assert prog["Цензор"]["agreement"] == 1.0 and prog["Точность"]["done"] == 0
    lines = [
        json.loads(x) for x in platform.get("/api/v1/annotation/export", headers=admin).text.splitlines()
    ]
    assert lines[0] == {"item_id": "a1", "criterion": "Связность", "annotator": "annotator", "score": 2}
    assert {"item_id": "a1", "criterion": "Связность", "annotator": "lit2", "score": None} in lines
    assert len(lines) == 4 and all(set(x) == {"item_id", "criterion", "annotator", "score"} for x in lines)
    _judge_agreement_reads(platform.get("/api/v1/annotation/export", headers=admin).text)


def _judge_agreement_reads(export: str) -> None:
    """``omnieval judge-agreement`` imports the export as its human file (NA lines counted, not scored)."""
    import tempfile

    from typer.testing import CliRunner

    from omnieval.cli.app import app

    with tempfile.TemporaryDirectory() as tmp:
        human, judge = Path(tmp) / "human.jsonl", Path(tmp) / "judge.jsonl"
        human.write_text(export, encoding="utf-8")
        judge.write_text(
            '{"item_id": "a1", "criterion": "Связность", "score": 2}\n'
            '{"item_id": "a1", "criterion": "Цензор", "score": 0}\n',
            encoding="utf-8",
        )
        r = CliRunner().invoke(
            app, ["judge-agreement", "--human", str(human), "--judge", str(judge), "--json"]
        )
    assert r.exit_code == 0, r.output
    assert json.loads(r.output)["n_human_na"] == 1


def test_load_triples_cli(data_dir: Path, tmp_path: Path) -> None:
    from typer.testing import CliRunner

    from omnieval.cli.app import app

    path = tmp_path / "triples.jsonl"
    path.write_text(
        json.dumps(triple("x1", "Связность", "literature"), ensure_ascii=False) + "\n", encoding="utf-8"
    )
    r = CliRunner().invoke(
        app, ["platform", "load-triples", "--data-dir", str(data_dir), "--file", str(path)]
    )
    assert r.exit_code == 0 and json.loads(r.output) == {"loaded": 1}
    path.write_text('{"item_id": "x2", "criterion": "C"}\n', encoding="utf-8")
    r = CliRunner().invoke(
        app, ["platform", "load-triples", "--data-dir", str(data_dir), "--file", str(path)]
    )
    assert r.exit_code == 2 and "triples.jsonl:1: field panel" in r.output


def test_loading_thousands_of_triples_takes_a_few_queries_and_repeats_update_one_row(data_dir: Path) -> None:
    """Schemathesis: 10,000 triples of one id (one query and flush each) held POST /annotation/items over
    10 s. Now the stored ones are read in chunks; a triple repeated in the batch is one row, the last wins."""
    from sqlalchemy import event, func, select

    from omnieval.platform.services.annotation import Triple, load_triples
    from omnieval.platform.storage.db import Database
    from omnieval.platform.storage.models import AnnotationItem

    db = Database(make_settings(data_dir))
    with db.session() as session:
        load_triples(session, [Triple(**triple("x0", "c", "literature"))])  # one stored before
    batch = [Triple(**triple(f"x{i % 1500}", "c", "literature", overlap=1 + i % 3)) for i in range(3000)]
    statements: list[str] = []
    event.listen(db.engine, "before_cursor_execute", lambda *a: statements.append(a[2]))
    with db.session() as session:
        assert load_triples(session, batch) == 3000
    selects = [s for s in statements if s.lstrip().upper().startswith("SELECT")]
    assert len(selects) <= 4, len(selects)  # 1,500 ids in chunks of 500
    with db.session() as session:
        assert session.scalar(select(func.count(AnnotationItem.id))) == 1500
        x0 = session.scalar(select(AnnotationItem).where(AnnotationItem.item_id == "x0"))
        assert x0 is not None and x0.overlap == 1 + 1500 % 3  # the last of its repeats
    db.dispose()
