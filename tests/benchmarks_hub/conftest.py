"""The vendored official scorers import themselves by their own package names (``vlmeval.…``)."""

import sys
from pathlib import Path

VENDOR = Path(__file__).parent / "vendor"
if str(VENDOR) not in sys.path:
    sys.path.append(str(VENDOR))
