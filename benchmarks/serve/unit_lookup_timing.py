"""Does ``/v1/units/{id}`` take as long for a clinician-only unit as for one that does not exist?

An anonymous caller gets the same 404 for both; if one took measurably longer, the time would still
confirm that a restricted id exists (issue 22: 0.2 ms apart, median of 400, before the fix). This asks
the real app in process (Starlette's TestClient: no network noise) for a restricted id, a missing id
of the same length and a public one, interleaved, and prints each median and the difference.

Usage (from the repository root; needs a built artifact holding a clinician-only unit)::

    .venv/bin/python benchmarks/serve/unit_lookup_timing.py --kb dist/kb.duckdb
    .venv/bin/python benchmarks/serve/unit_lookup_timing.py --kb dist/kb.duckdb --rounds 2000
"""

from __future__ import annotations

import argparse
import statistics
import time
from pathlib import Path


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--kb", type=Path, required=True, help="a built artifact")
    parser.add_argument("--rounds", type=int, default=400, help="requests per id (the issue's 400)")
    args = parser.parse_args()

    from fastapi.testclient import TestClient

    from unitrag.config import Config
    from unitrag.serve import ServeSettings, create_app

    app = create_app(ServeSettings(kb=str(args.kb), reload_poll_s=0), config=Config(llm="none"))
    with TestClient(app) as client:
        store = app.state.unitrag.holder.current.kb.store
        unit_ids = store.columns["unit_id"]
        restricted = next(unit_ids[i] for i in range(len(store)) if store.access[i] != "public")
        public = next(unit_ids[i] for i in range(len(store)) if store.access[i] == "public")
        missing = restricted[:-1] + ("x" if restricted[-1] != "x" else "y")
        ids = {"restricted": restricted, "missing": missing, "public": public}
        times: dict[str, list[float]] = {name: [] for name in ids}
        names = list(ids)
        for n in range(args.rounds):
            for name in names[n % 3:] + names[:n % 3]:  # interleaved, order rotated: drift and GC hit each alike
                unit_id = ids[name]
                started = time.perf_counter()
                response = client.get(f"/v1/units/{unit_id}")
                times[name].append((time.perf_counter() - started) * 1000)
                assert response.status_code == (200 if name == "public" else 404), (name, response.status_code)
        work = route_work(app, ids, args.rounds * 10)
    report("over HTTP (in process)", ids, times, args.rounds)
    report("the route's own work (no HTTP)", ids, work, args.rounds * 10)


def route_work(app: object, ids: dict[str, str], rounds: int) -> dict[str, list[float]]:
    """The handler alone, as an anonymous caller: what the fix made equal, without the HTTP stack's noise."""
    from starlette.exceptions import HTTPException

    from unitrag.serve.routes import unit

    server = app.state.unitrag  # type: ignore[attr-defined]
    times: dict[str, list[float]] = {name: [] for name in ids}
    names = list(ids)
    for n in range(rounds):
        for name in names[n % 3:] + names[:n % 3]:
            started = time.perf_counter()
            try:
                unit(ids[name], server, ())
            except HTTPException:
                pass
            times[name].append((time.perf_counter() - started) * 1000)
    return times


def report(title: str, ids: dict[str, str], times: dict[str, list[float]], rounds: int) -> None:
    medians = {name: statistics.median(values) for name, values in times.items()}
    print(title)
    for name, median in medians.items():
        print(f"  {name:>10} {ids[name]!r:40} median {median:.4f} ms over {rounds}")
    print(f"  restricted - missing: {medians['restricted'] - medians['missing']:+.4f} ms")


if __name__ == "__main__":
    main()
