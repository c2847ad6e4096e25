"""Write docs/running/options.md from the option models: ``python scripts/options_doc.py`` (``--check``:
exit 1 when the page is out of date)."""

from __future__ import annotations

import sys
from pathlib import Path

from omnieval.options.reference import options_page

PAGE = Path(__file__).resolve().parents[1] / "docs" / "running" / "options.md"


def main() -> int:
    text = options_page()
    if "--check" in sys.argv[1:]:
        if PAGE.read_text(encoding="utf-8") != text:
            print(f"{PAGE} is out of date: run python scripts/options_doc.py", file=sys.stderr)
            return 1
        return 0
    PAGE.write_text(text, encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
