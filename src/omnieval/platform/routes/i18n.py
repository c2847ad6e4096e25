"""Page languages: Russian and English, from gettext catalogues read with Babel.

Templates are written in English (the message ids); ``locale/ru/LC_MESSAGES/messages.po`` translates them.
The language comes from ``?lang=`` (remembered in a cookie), else the cookie, else ``Accept-Language``;
Russian when none of them names a language the platform has.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

from markupsafe import Markup

__all__ = [
    "DEFAULT",
    "DYNAMIC_MESSAGES",
    "LANGUAGES",
    "LANG_COOKIE",
    "Translator",
    "message_ids",
    "pick_language",
    "translator",
]

LANGUAGES = ("ru", "en")
DEFAULT = "ru"
LANG_COOKIE = "lang"
LOCALE_DIR = Path(__file__).with_name("locale")
TEMPLATES_DIR = Path(__file__).with_name("templates")
DYNAMIC_MESSAGES = (
    "Total",
    "Attempted",
    "Coverage",
    "Text",
    "Image",
    "Audio",
    "Video",
    "Multi",
    "Model",
    "Score",
    "Publication requests",
    "My submissions",
    "Register",
    "Log in",
)
"""Message ids that templates translate from a variable (column, modality and board names, headings)."""
_CALL = re.compile(r"""(?<![A-Za-z0-9_])_\((["'])((?:(?!\1).)*)\1""")
_PLURAL = re.compile(r'ngettext\("([^"]*)", "([^"]*)"')


def pick_language(*, query: str | None, cookie: str | None, accept: str | None) -> str:
    """The page language: an explicit choice first, then the browser's preference, then Russian."""
    for choice in (query, cookie):
        if choice in LANGUAGES:
            return str(choice)
    if accept:
        from babel import Locale, UnknownLocaleError

        preferred = [part.split(";")[0].strip().replace("-", "_") for part in accept.split(",")]
        try:
            found = Locale.negotiate([p for p in preferred if p and p != "*"], list(LANGUAGES))
        except (UnknownLocaleError, ValueError):
            found = None
        if found is not None:
            return found.language
    return DEFAULT


@dataclass(frozen=True)
class Translator:
    """``gettext``/``ngettext`` for one language, in Jinja's new style (``%(name)s`` filled and escaped)."""

    language: str
    messages: dict[str, Any]

    def gettext(self, message: str, /, **variables: Any) -> Markup:
        found = self.messages.get(message)
        text = found if isinstance(found, str) and found else message
        return Markup(text) % variables if variables else Markup(text)

    def ngettext(self, singular: str, plural: str, n: int, /, **variables: Any) -> Markup:
        found = self.messages.get(singular)
        variables.setdefault("num", n)
        if isinstance(found, tuple) and all(found):
            text = found[_plural_index(self.language, n)] if len(found) > 1 else found[0]
        else:
            text = singular if n == 1 else plural
        return Markup(text) % variables

    def context(self) -> dict[str, Any]:
        """What a template needs: ``_``/``gettext``/``ngettext`` and ``lang``."""
        return {"_": self.gettext, "gettext": self.gettext, "ngettext": self.ngettext, "lang": self.language}


def _plural_index(language: str, n: int) -> int:
    if language != "ru":
        return 0 if n == 1 else 1
    if n % 10 == 1 and n % 100 != 11:
        return 0
    return 1 if 2 <= n % 10 <= 4 and not 12 <= n % 100 <= 14 else 2


@cache
def translator(language: str) -> Translator:
    """The catalogue of ``language`` (read once); English is the templates' own text."""
    if language == "en":
        return Translator(language, {})
    from babel.messages.pofile import read_po

    with (LOCALE_DIR / language / "LC_MESSAGES" / "messages.po").open("rb") as handle:
        catalog = read_po(handle, locale=language)
    messages: dict[str, Any] = {}
    for message in catalog:
        if not message.id or message.fuzzy:
            continue
        key = str(message.id[0]) if isinstance(message.id, tuple | list) else str(message.id)
        messages[key] = tuple(message.string) if isinstance(message.string, tuple | list) else message.string
    return Translator(language, messages)


def message_ids(*extra: str) -> tuple[set[str], set[tuple[str, str]]]:
    """Every message the pages can show: ``_("...")`` and ``ngettext`` in the templates, the dynamic ids,
    and ``extra`` (messages chosen in Python: flashes, error titles). Used to keep the catalogue complete."""
    singles, plurals = set(DYNAMIC_MESSAGES) | set(extra), set()
    for template in TEMPLATES_DIR.glob("*.html"):
        text = template.read_text(encoding="utf-8")
        singles |= {m.group(2) for m in _CALL.finditer(text)}
        plurals |= set(_PLURAL.findall(text))
    return singles, plurals
