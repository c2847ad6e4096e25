"""Seeded sentences to read aloud and questions to answer aloud.

``speech.tts`` mixes five kinds of sentence in turn, the things a speech engine's text front end must
get right: ``numbers`` (counts, prices, years in digits), ``dates`` (day and year in digits, month
in words), ``abbreviations`` (МГУ, США, ООН...), ``names`` (people and cities) and ``homographs``
(stress homographs: за́мок/замо́к, му́ка/мука́...: the text is the reference, so what is scored is
that the word is heard, not where the stress fell). ``speech.spoken_qa`` asks arithmetic and
everyday-knowledge questions whose gold answers are listed in digits and in words.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from pathlib import Path
from typing import Any

from omnieval.benchmarks.demo._common import write_manifest
from omnieval.errors import SourceError
from omnieval.sources.plugins import register_generator

__all__ = ["KINDS", "spoken_qa", "tts_sentences"]

KINDS = ("numbers", "dates", "abbreviations", "names", "homographs")

_RU: dict[str, Any] = {
    "numbers": (
        "В классе {a} учеников.",
        "Билет стоит {b} рублей.",
        "До города осталось {a} километров.",
        "Этот дом построили в {y} году.",
        "На складе лежит {b} коробок.",
        "Поезд прибывает на {s} путь.",
        "Температура воды сегодня {s} градусов.",
        "В библиотеке {b} книг.",
    ),
    "dates": (
        "Встреча назначена на {d} {m} {y} года.",
        "Он родился {d} {m} {y} года.",
        "Выставка откроется {d} {m}.",
        "Договор подписали {d} {m} {y} года.",
    ),
    "abbreviations": (
        "Он окончил {abbr} и уехал в {city}.",
        "Доклад {abbr} обсуждали всю неделю.",
        "Новости {abbr} вышли утром.",
        "Представитель {abbr} приехал в {city}.",
    ),
    "names": (
        "{name} живёт в городе {city}.",
        "{name} летит в {city} вечером.",
        "{name} звонит из города {city}.",
        "{name} ждёт {name2} у входа.",
    ),
    "homographs": (
        "{name} долго смотрит на старый замок.",
        "{name} чинит замок на двери.",
        "{name} покупает муку для пирога.",
        "Для {name2} эта мука длилась целый год.",
        "{name} ищет горы в атласе.",
        "{name} шьёт платье из атласа.",
        "{name} слушает орган в соборе.",
        "{name} знает, что сердце важный орган.",
        "{name} сажает ирис у дома.",
        "{name} покупает детям сладкий ирис.",
        "{name} слышит громкий хлопок.",
        "{name} выбирает рубашку из хлопка.",
        "{name} говорит, что пора подписать бумаги.",
        "{name} часто видит в лесу белок.",
    ),
}
_RU_MONTHS = (
    "января", "февраля", "марта", "апреля", "мая", "июня",
    "июля", "августа", "сентября", "октября", "ноября", "декабря",
)  # fmt: skip
_RU_ABBR = ("МГУ", "МВД", "ООН", "США", "РЖД", "ФСБ", "ВВС", "СМИ")
_RU_CITIES = ("Москву", "Казань", "Самару", "Тверь", "Омск", "Пермь", "Томск", "Сочи")
_RU_CITY_NOM = ("Москва", "Казань", "Самара", "Тверь", "Омск", "Пермь", "Томск", "Сочи")
_GENITIVE = {
    "Иван Петров": "Ивана Петрова", "Анна Смирнова": "Анны Смирновой", "Сергей Кузнецов": "Сергея Кузнецова",
    "Мария Иванова": "Марии Ивановой", "Олег Соколов": "Олега Соколова", "Елена Попова": "Елены Поповой",
    "Дмитрий Волков": "Дмитрия Волкова", "Ольга Морозова": "Ольги Морозовой",
}  # fmt: skip
"""Names as ``{name2}`` takes them in Russian (``для Ивана Петрова``)."""
_RU_NAMES = ("Иван Петров", "Анна Смирнова", "Сергей Кузнецов", "Мария Иванова", "Олег Соколов",
             "Елена Попова", "Дмитрий Волков", "Ольга Морозова")  # fmt: skip

_EN: dict[str, Any] = {
    "numbers": (
        "There are {a} students in the class.",
        "The ticket costs {b} dollars.",
        "The house was built in {y}.",
        "The train arrives at platform {s}.",
    ),
    "dates": ("The meeting is on {m} {d}, {y}.", "She was born on {m} {d}, {y}."),
    "abbreviations": ("He works for the {abbr} in {city}.", "The {abbr} report came out today."),
    "names": ("{name} lives in {city}.", "{name} and {name2} work together."),
    "homographs": (
        "{name} will lead the team to victory.",
        "{name} found a pipe made of lead.",
        "{name} wound the bandage around the wound.",
        "{name} read the book yesterday.",
        "{name} must record the record today.",
        "{name} saw the dove dove into the bushes.",
        "{name} closed the door when {name2} was close.",
        "{name} wants to live in a live music venue.",
    ),
}
_EN_MONTHS = (
    "January", "February", "March", "April", "May", "June",
    "July", "August", "September", "October", "November", "December",
)  # fmt: skip
_EN_ABBR = ("BBC", "NASA", "FBI", "UN", "NHS", "IMF")
_EN_CITIES = ("London", "Boston", "Denver", "Dublin", "Seattle", "Chicago")
_EN_NAMES = ("John Smith", "Mary Brown", "David Wilson", "Susan Clark", "Peter Hall", "Laura King")


def _fill(template: str, rng: random.Random, *, ru: bool) -> str:
    names = _RU_NAMES if ru else _EN_NAMES
    two = rng.sample(names, 2)
    values = {
        "a": rng.randint(2, 99),
        "b": rng.randint(100, 9999),
        "s": rng.randint(2, 40),
        "y": rng.randint(1900, 2030),
        "d": rng.randint(2, 28),
        "m": rng.choice(_RU_MONTHS if ru else _EN_MONTHS),
        "abbr": rng.choice(_RU_ABBR if ru else _EN_ABBR),
        "city": rng.choice(
            _EN_CITIES
            if not ru
            else _RU_CITY_NOM
            if "города {city}" in template or "городе {city}" in template
            else _RU_CITIES
        ),
        "name": two[0],
        "name2": two[1] if ru is False else _GENITIVE.get(two[1], two[1]),
    }
    return template.format(**values)


def _check(generator: str, n: int, high: int) -> None:
    if not isinstance(n, int) or isinstance(n, bool) or not 1 <= n <= high:
        raise SourceError(f"{generator}: n must be an integer in [1, {high}], got {n!r}", field="n")


def _write(path: Path, rows: list[dict[str, Any]]) -> Path:
    import json

    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("w", encoding="utf-8") as fh:
        fh.writelines(json.dumps(row, ensure_ascii=False) + "\n" for row in rows)
    return path


@register_generator("speech.tts")
def tts_sentences(out_dir: Path, /, *, language: str = "ru", n: int = 240, seed: int = 0) -> Path:
    """``n`` distinct sentences to read aloud (the kinds in turn), ``tts_LANGUAGE.jsonl``."""
    if language not in ("ru", "en"):
        raise SourceError(f"speech.tts: language must be ru or en, not {language!r}", field="language")
    _check("speech.tts", n, 2000)
    bank = _RU if language == "ru" else _EN
    rng = random.Random(f"speech.tts:{language}:{seed}")
    rows: list[dict[str, Any]] = []
    seen: set[str] = set()
    tries = 0
    while len(rows) < n:
        kind = KINDS[len(rows) % len(KINDS)]
        text = _fill(rng.choice(bank[kind]), rng, ru=language == "ru")
        tries += 1
        if text in seen:
            if tries > 50 * n:  # the fixed homographs run out first
                raise SourceError(f"speech.tts: only {len(rows)} distinct {language} sentences", field="n")
            continue
        seen.add(text)
        rows.append({"id": f"tts-{language}-{len(rows):04d}", "text": text, "kind": kind, "lang": language})
    manifest = [
        {
            "id": r["id"],
            "task": f"tts_{language}",
            "question": r["text"],
            "answer": r["text"],
            "answer_type": "text",
        }
        for r in rows
    ]
    write_manifest(out_dir, manifest)
    return _write(Path(out_dir) / f"tts_{language}.jsonl", rows)


def _arith(rng: random.Random) -> tuple[str, int]:
    a, b = rng.randint(2, 20), rng.randint(2, 20)
    op: Callable[[int, int], int]
    word, op = rng.choice((("плюс", int.__add__), ("умножить на", int.__mul__)))
    return f"Сколько будет {a} {word} {b}?", op(a, b)


_FACTS = (
    ("Какая столица России?", ("Москва",)),
    ("Какая столица Франции?", ("Париж",)),
    ("Какая столица Японии?", ("Токио",)),
    ("Сколько дней в неделе?", ("7", "семь")),
    ("Сколько месяцев в году?", ("12", "двенадцать")),
    ("Какого цвета снег?", ("белый", "белого")),
    ("Какой месяц идёт после мая?", ("июнь",)),
    ("Сколько минут в часе?", ("60", "шестьдесят")),
    ("Какая планета ближе всего к Солнцу?", ("Меркурий",)),
    ("Как называется самая длинная река Европы?", ("Волга",)),
)


@register_generator("speech.spoken_qa")
def spoken_qa(out_dir: Path, /, *, n: int = 60, seed: int = 0) -> Path:
    """``n`` short Russian questions (arithmetic in turn with facts), gold answers in digits and words."""
    from num2words import num2words

    _check("speech.spoken_qa", n, 1000)
    rng = random.Random(f"speech.spoken_qa:{seed}")
    rows = []
    for i in range(n):
        if i % 2 == 0:
            question, value = _arith(rng)
            answers: tuple[str, ...] = (str(value), str(num2words(value, lang="ru")))
            kind = "arithmetic"
        else:
            question, answers = _FACTS[(i // 2) % len(_FACTS)]
            kind = "fact"
        rows.append({"id": f"qa-ru-{i:04d}", "question": question, "answers": list(answers), "kind": kind})
    manifest = [
        {
            "id": r["id"],
            "task": "spoken_qa_ru",
            "question": r["question"],
            "answer": r["answers"][0],
            "answer_type": "text",  # one type per task: the digits are matched as text
        }
        for r in rows
    ]
    write_manifest(out_dir, manifest)
    return _write(Path(out_dir) / "spoken_qa_ru.jsonl", rows)
