"""Keep the platform's Russian catalogue in step with the pages: adds new message ids (untranslated) and
drops ids no page uses any more, keeping every translation that still applies.

    python scripts/platform_messages.py          # update platform/routes/locale/ru/.../messages.po
    python scripts/platform_messages.py --check  # exit 1 when an id is missing or untranslated (as the tests)
"""

from __future__ import annotations

import sys

from babel.messages.catalog import Catalog
from babel.messages.pofile import read_po, write_po

from omnieval.platform.routes.i18n import LOCALE_DIR, message_ids
from omnieval.platform.routes.page_errors import TITLES
from omnieval.platform.routes.pages import FLASHES, PAGE_MESSAGES

PO = LOCALE_DIR / "ru" / "LC_MESSAGES" / "messages.po"


def wanted() -> tuple[set[str], set[tuple[str, str]]]:
    return message_ids(*FLASHES.values(), *TITLES.values(), *PAGE_MESSAGES)


def main() -> int:
    singles, plurals = wanted()
    with PO.open("rb") as handle:
        old = read_po(handle, locale="ru")
    new = Catalog(
        locale="ru", project="omnieval platform", header_comment="# Russian texts of the omnieval platform."
    )
    for message_id in sorted(singles):
        found = old.get(message_id)
        new.add(message_id, found.string if found is not None else "")
    for singular, plural in sorted(plurals):
        found = old.get(singular)
        new.add((singular, plural), found.string if found is not None else ("", "", ""))
    missing = [m.id for m in new if m.id and not (all(m.string) if isinstance(m.string, tuple) else m.string)]
    if "--check" in sys.argv:
        for message_id in missing:
            print(f"untranslated: {message_id!r}")
        return 1 if missing else 0
    with PO.open("wb") as handle:
        write_po(handle, new, width=0, omit_header=False)
    print(f"{PO}: {len(new)} messages, {len(missing)} untranslated")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
