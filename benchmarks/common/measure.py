"""What every benchmark here measures with: wall-clock timers, percentiles, ratios, process memory, the machine.

One copy of each, so that two scripts' p95 or RSS mean the same thing. On shared, busy
cores absolute figures drift from run to run: compare ratios measured in the same run
(``ratio``), and print ``machine()`` (load average included) beside every result.
"""

from __future__ import annotations

import json
import os
import platform
import subprocess
import sys
import time
from pathlib import Path
from typing import Any, Callable

import numpy as np


def machine() -> str:
    """One line about where the numbers come from."""
    load = ", ".join(f"{x:.2f}" for x in os.getloadavg()) if hasattr(os, "getloadavg") else "n/a"
    return f"{platform.processor() or platform.machine()}, {os.cpu_count()} cores, load average {load}, Python {platform.python_version()}"


class Timer:
    """``with Timer() as t: ...`` then ``t.s``."""

    def __enter__(self) -> "Timer":
        self._start = time.perf_counter()
        self.s = 0.0
        return self

    def __exit__(self, *exc: object) -> None:
        self.s = time.perf_counter() - self._start


def elapsed_ms(call: Callable[[], Any]) -> float:
    """Wall-clock milliseconds of one ``call()`` (``time.perf_counter``)."""
    start = time.perf_counter()
    call()
    return (time.perf_counter() - start) * 1000


def percentile(values: list[float], q: float) -> float:
    """The ``q``-th percentile (linear interpolation), NaN for no values: p95 of 40 samples is about the second-worst."""
    return float(np.percentile(np.asarray(values, dtype=np.float64), q)) if values else float("nan")


def p50_p95(values: list[float]) -> dict[str, float]:
    """The two figures the latency tables print, with the sample count they rest on."""
    return {"p50": percentile(values, 50), "p95": percentile(values, 95), "n": len(values)}


def fmt_ms(x: float) -> str:
    """Milliseconds with the digits that mean something at that size; ``-`` for NaN."""
    if x != x:  # nan
        return "-"
    return f"{x:.3f}" if x < 1 else f"{x:.2f}" if x < 100 else f"{x:.0f}"


def ratio(a: float, b: float) -> str:
    """``a / b`` as ``2.5x``, or ``n/a`` where either side is missing (NaN) or ``b`` is zero."""
    return f"{a / b:.1f}x" if b and b == b and a == a else "n/a"


def proc_status_kib(field: str, pid: int | str = "self") -> int:
    """A ``/proc/<pid>/status`` memory field (``VmRSS``, ``VmHWM``) in KiB; -1 where there is none (not Linux)."""
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith(field + ":"):
                return int(line.split()[1])
    except OSError:
        pass
    return -1


def child_output(argv: list[str], env_extra: dict[str, str] | None = None, timeout: float | None = None) -> str:
    """The last stdout line of a fresh process (a cold start is what is measured); its stderr tail if it fails."""
    out = subprocess.run(argv, capture_output=True, text=True, env={**os.environ, **(env_extra or {})}, timeout=timeout)
    if out.returncode != 0:
        raise SystemExit(f"child {' '.join(argv[1:])[:120]} failed ({out.returncode}):\n{out.stderr[-3000:]}")
    return out.stdout.strip().splitlines()[-1]


def child_json(script: Path, args: list[str], env_extra: dict[str, str] | None = None, timeout: float = 600) -> dict[str, Any]:
    """Run ``script args`` with this interpreter in a fresh process; its last stdout line, parsed as JSON."""
    return json.loads(child_output([sys.executable, str(script), *args], env_extra, timeout))


# -- the thread settings the figures were taken under --------------------------------------------


def omp_env() -> dict[str, str]:
    """The OpenMP variables of this process (they decide a C embedder's threads on shared cores)."""
    return {k: v for k, v in os.environ.items() if k.startswith(("OMP_", "GOMP_"))}


def blas_threads() -> str:
    """NumPy's BLAS libraries and their thread counts, in words."""
    try:
        from threadpoolctl import threadpool_info
    except ImportError:
        return "unknown (no threadpoolctl)"
    return ", ".join(f"{i['internal_api']} {i['version']} {i['num_threads']} threads ({i['threading_layer']})"
                     for i in threadpool_info() if i["user_api"] == "blas") or "none found"


def blas_one_thread() -> Callable[[], Any] | None:
    """A context factory limiting NumPy's BLAS to one thread (threadpoolctl), or None without threadpoolctl."""
    try:
        from threadpoolctl import threadpool_limits
    except ImportError:
        return None
    return lambda: threadpool_limits(limits=1, user_api="blas")
