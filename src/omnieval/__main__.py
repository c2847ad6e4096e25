"""``python -m omnieval``."""

from omnieval.cli import main

main()
