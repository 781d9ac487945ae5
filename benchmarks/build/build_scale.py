"""Edit-build loop on a large content tree (SciFact: 5,183 units): dry-run plan, no-change build, one body edit.

    .venv/bin/python benchmarks/common/scifact_corpus.py /tmp/sf/content          # or reuse unitrag eval --beir's tree
    .venv/bin/python benchmarks/build/build_scale.py /tmp/sf --code /tmp/base --code .   # baseline checkout first

For each checkout (``--code``: a source tree put first on the path, in a fresh process):
(0) the CLI's start-up, ``unitrag build --help`` (wall, best of three);
(1) ``unitrag build --dry-run`` three times through the CLI (wall and the plan's ``timings_s``; the
first fills the caches);
(2) a full build through the Python API with a hash embedder (no model: the embedding itself is
not what is measured; a real one-body edit adds one embedding), then a no-change build, then a
one-body edit build, each in a fresh process; wall seconds of ``build()`` and its own
``timings_s`` (where the time goes).
Each checkout works on its own copy of the tree, artifact and cache; the checkouts take turns at
every step, so a change in the machine's load falls on all of them alike.

``--cold-parse``: instead, whether parsing the tree's units in a process pool pays (the unit cache
empty: a first run, or a new unitrag): serial and a pool of ``--workers`` processes take turns, 3 rounds.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

CHILD = r'''
import hashlib, json, sys, time
from pathlib import Path
sys.path.insert(0, sys.argv[1])
import numpy as np
from unitrag.compiler.pipeline import build
from unitrag.config import Config
from unitrag.providers.embedders.base import Embedder

class HashEmbedder(Embedder):
    provider = "hash"
    @property
    def dim(self): return 384
    def embed(self, texts, *, query=False):
        out = np.stack([np.random.default_rng(int(hashlib.sha256(t.encode()).hexdigest()[:8], 16)).standard_normal(384)
                        .astype(np.float32) for t in texts])
        return out / np.linalg.norm(out, axis=1, keepdims=True)

work, step = Path(sys.argv[2]), sys.argv[3]
config = Config(content_dir=work / "content", artifact=work / "dist" / "kb.duckdb", prompts_dir=work / "prompts",
                cache_dir=work / "cache", calibration_file=work / "calibration.json", embedder="hash:bench")
if step == "edit":
    documents = sorted((work / "content" / "documents").glob("*.md"))
    unit = documents[len(documents) // 2]
    unit.write_text(unit.read_text(encoding="utf-8") + "\nOne more sentence from an author.\n", encoding="utf-8")
started = time.perf_counter()
report = build(config, embedder=HashEmbedder("bench"))
print(json.dumps({"wall_s": time.perf_counter() - started, "timings_s": report.timings_s, "embedded": report.embedded,
                  "written": report.written, "delta": getattr(report, "delta", False)}))
'''
STEPS = ("full", "no_change", "edit")


def cli(code: Path, work: Path, *args: str) -> tuple[float, dict]:
    """Wall seconds of one ``unitrag`` command line, and its ``timings_s`` when it printed a JSON report."""
    started = time.perf_counter()
    env = {**os.environ, "PYTHONPATH": str(code)}
    done = subprocess.run([sys.executable, "-m", "unitrag", *args], cwd=work, env=env, capture_output=True, text=True,
                          check=False)
    wall = time.perf_counter() - started
    try:
        return wall, json.loads(done.stdout).get("timings_s", {})
    except ValueError:
        return wall, {}


DRY_RUN = ("build", "--dry-run", "--json", "--content", "content", "--out", "dist/kb.duckdb", "--prompts", "prompts",
           "--cache-dir", "cache")


POOL_CHILD = r'''
import sys, time
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path
sys.path.insert(0, sys.argv[1])
from unitrag.content.files import display_under, tree_files
from unitrag.content.loader import _read_unit

root, workers = Path(sys.argv[2]) / "content", int(sys.argv[3])
rels = [r for r in tree_files(root)[0] if r.endswith(".md")]

def parse(batch):
    return [_read_unit(root / r, display_under("content", r), (root / r).read_bytes()) for r in batch]

def pooled():
    size = -(-len(rels) // (4 * workers))
    with ProcessPoolExecutor(workers) as pool:  # units come back pickled, as a loader using a pool would get them
        return [u for part in pool.map(parse, [rels[i:i + size] for i in range(0, len(rels), size)]) for u in part]

for _ in range(3):
    for name, run in (("serial", lambda: parse(rels)), (f"pool of {workers}", pooled)):
        started = time.perf_counter()
        assert len(run()) == len(rels)
        print(f"{name}: {time.perf_counter() - started:.2f} s for {len(rels)} units", flush=True)
'''


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("tree", type=Path, help="a folder holding content/ (and prompts/, else the repo's)")
    parser.add_argument("--code", type=Path, action="append", default=[], help="checkout root (repeatable; first = baseline)")
    parser.add_argument("--work", type=Path, default=Path("/tmp/unitrag-build-bench"))
    parser.add_argument("--json", type=Path)
    parser.add_argument("--cold-parse", action="store_true", help="serial vs a process pool for a cold parse, and stop")
    parser.add_argument("--workers", type=int, default=2)
    args = parser.parse_args()
    if args.cold_parse:
        code = (args.code or [Path(".")])[-1]
        subprocess.run([sys.executable, "-c", POOL_CHILD, str(code.resolve()), str(args.tree), str(args.workers)], check=True)
        return
    codes = args.code or [Path(".")]
    works = [args.work / f"run{n}" for n in range(len(codes))]
    for work in works:
        shutil.rmtree(work, ignore_errors=True)
        shutil.copytree(args.tree / "content", work / "content")
        shutil.copytree(args.tree / "prompts" if (args.tree / "prompts").is_dir() else Path("prompts"), work / "prompts")
    results: dict[str, dict] = {str(code): {"startup_s": [], "dry_run_cli_s": [], "dry_run_timings_s": []} for code in codes}
    for _ in range(3):
        for code, work in zip(codes, works):
            results[str(code)]["startup_s"].append(cli(code.resolve(), work, "build", "--help")[0])
    for _ in range(3):
        for code, work in zip(codes, works):
            wall, timings = cli(code.resolve(), work, *DRY_RUN)
            results[str(code)]["dry_run_cli_s"].append(wall)
            results[str(code)]["dry_run_timings_s"].append(timings)
    for step in STEPS:
        for code, work in zip(codes, works):
            child = subprocess.run([sys.executable, "-c", CHILD, str(code.resolve()), str(work), step],
                                   capture_output=True, text=True, check=True)
            results[str(code)][step] = json.loads(child.stdout.strip().splitlines()[-1])
    for code in codes:
        r = results[str(code)]
        print(f"{code}: start-up {min(r['startup_s']):.2f} s; dry-run CLI "
              + ", ".join(f"{d:.2f}" for d in r["dry_run_cli_s"]) + " s (last: "
              + ", ".join(f"{k} {v:.2f}" for k, v in r["dry_run_timings_s"][-1].items()) + "); "
              + "; ".join(f"{step} {r[step]['wall_s']:.2f} s (" + ", ".join(f"{k} {v:.2f}" for k, v in r[step]["timings_s"].items())
                          + ")" for step in STEPS), flush=True)
    if args.json:
        args.json.write_text(json.dumps(results, indent=2))


if __name__ == "__main__":
    main()
