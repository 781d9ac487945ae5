"""A citation-only edit's rebuild, for two or more code trees taking turns: what an author waits for after fixing a title.

Each code tree builds its own copy of a knowledge base once (warm: artifact and embedding cache), then, round after
round, the same edit (a citation's title changes) is made in each copy and ``unitrag build`` runs in a fresh process
(the CLI, as an author runs it); the wall time of each is printed, then each tree's median and its ratio to the first
tree's (the baseline).

    python benchmarks/build/citation_edit.py examples/bike-care --code /tmp/base --code . --rounds 3
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

RUN = ("import sys; sys.path.insert(0, sys.argv.pop(1)); sys.argv[0] = 'unitrag'; "
       "from unitrag.cli import main; sys.exit(main())")


def build(code: Path, kb: Path) -> float:
    started = time.perf_counter()
    subprocess.run([sys.executable, "-c", RUN, str(code), "build"], cwd=kb, check=True, capture_output=True)
    return time.perf_counter() - started


def retitle(kb: Path, round_no: int) -> None:
    """The first citation's title, changed: a registry edit, nothing to embed."""
    path = sorted((kb / "content" / "citations").glob("*.yaml"))[0]
    text = path.read_text(encoding="utf-8")
    marker = 'title: "'
    at = text.index(marker) + len(marker)
    path.write_text(f"{text[:at]}(r{round_no}) {text[at:]}", encoding="utf-8")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("kb", type=Path, help="a knowledge base folder (unitrag.toml, content/, prompts/)")
    parser.add_argument("--code", type=Path, action="append", required=True, help="a code tree; the first is the baseline")
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        copies = {}
        for i, code in enumerate(args.code):
            copy = Path(tmp) / f"kb{i}"
            shutil.copytree(args.kb, copy, ignore=shutil.ignore_patterns("dist", ".unitrag"))
            build(code.resolve(), copy)  # warm: the artifact and the embedding cache exist
            copies[code] = copy
        times: dict[Path, list[float]] = {code: [] for code in args.code}
        for round_no in range(args.rounds):
            for code, copy in copies.items():
                retitle(copy, round_no)
                times[code].append(build(code.resolve(), copy))
                print(f"round {round_no + 1} {code}: {times[code][-1]:.2f} s", flush=True)
        base = statistics.median(times[args.code[0]])
        print(f"load average {os.getloadavg()[0]:.1f}")
        for code, found in times.items():
            median = statistics.median(found)
            print(f"{code}: median {median:.2f} s ({median / base:.2f}x the baseline)")


if __name__ == "__main__":
    main()
