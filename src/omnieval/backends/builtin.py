"""Imports every built-in backends module so that it registers itself."""

import importlib
import pkgutil

import omnieval.backends as _pkg

for _info in pkgutil.walk_packages(_pkg.__path__, prefix=f"{_pkg.__name__}."):
    if _info.name.rsplit(".", 1)[-1].startswith("_") or _info.name.endswith((".base", ".builtin")):
        continue
    importlib.import_module(_info.name)
