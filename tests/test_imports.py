"""Every module of the package imports first, on its own: no import cycle waits for whichever module a caller
happens to import before it (``from unitrag.rag.guard.screen import Guard`` once failed only when nothing else came first)."""

from __future__ import annotations

import subprocess
import sys

SCRIPT = """
import importlib, pkgutil, sys, traceback
import unitrag
names = sorted(m.name for m in pkgutil.walk_packages(unitrag.__path__, "unitrag.") if ".template" not in m.name and not m.name.endswith("__main__"))
failed = []
for name in names:
    for loaded in [m for m in list(sys.modules) if m == "unitrag" or m.startswith("unitrag.")]:
        del sys.modules[loaded]  # third-party modules stay loaded: only the package's own order is under test
    try:
        importlib.import_module(name)
    except Exception:
        failed.append(name + ": " + traceback.format_exc().strip().splitlines()[-1])
print(len(names))
print("\\n".join(failed))
"""


def test_every_module_imports_first_on_its_own() -> None:
    result = subprocess.run([sys.executable, "-c", SCRIPT], capture_output=True, text=True, timeout=300, check=False)
    assert result.returncode == 0, result.stderr
    count, *failed = result.stdout.strip().splitlines()
    assert int(count) > 80, "the walk found the package's modules"
    assert failed == [], "\n".join(failed)


def test_dir_lists_the_lazy_names() -> None:
    import unitrag

    assert {"KnowledgeBase", "UserContext", "check_citations", "__version__"} <= set(dir(unitrag))
