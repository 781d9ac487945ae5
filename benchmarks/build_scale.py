"""Edit-build loop on a large content tree (SciFact: 5,183 units): dry-run plan, no-change build, one body edit.

    .venv/bin/python benchmarks/scifact_corpus.py /tmp/sf/content          # or reuse unitrag eval --beir's tree
    .venv/bin/python benchmarks/build_scale.py /tmp/sf --code /tmp/base --code .   # baseline checkout first

For each checkout (``--code``: a source tree put first on the path, in a fresh process):
(1) ``unitrag build --dry-run`` three times through the CLI (wall, the first fills the parse cache);
(2) a full build through the Python API with a hash embedder (no model: the embedding itself is
not what is measured; a real one-body edit adds one embedding), then a no-change build, then a
one-body edit build; wall seconds and the build's own ``timings_s`` (where the time goes).
Each checkout works on its own copy of the tree, artifact and cache.
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

work = Path(sys.argv[2])
config = Config(content_dir=work / "content", artifact=work / "dist" / "kb.duckdb", prompts_dir=work / "prompts",
                cache_dir=work / "cache", calibration_file=work / "calibration.json", embedder="hash:bench")
out = {}
for step in ("full", "no_change", "edit"):
    if step == "edit":
        unit = sorted((work / "content" / "documents").glob("*.md"))[len(list((work / "content" / "documents").glob("*.md"))) // 2]
        unit.write_text(unit.read_text(encoding="utf-8") + "\nOne more sentence from an author.\n", encoding="utf-8")
    started = time.perf_counter()
    report = build(config, embedder=HashEmbedder("bench"))
    out[step] = {"wall_s": time.perf_counter() - started, "timings_s": report.timings_s, "embedded": report.embedded,
                 "written": report.written, "delta": getattr(report, "delta", False)}
print(json.dumps(out))
'''


def cli_dry_run(code: Path, work: Path) -> float:
    started = time.perf_counter()
    env = {**os.environ, "PYTHONPATH": str(code)}
    subprocess.run([sys.executable, "-m", "unitrag", "build", "--dry-run", "--json", "--content", "content", "--out",
                    "dist/kb.duckdb", "--prompts", "prompts", "--cache-dir", "cache"], cwd=work, env=env,
                   capture_output=True, check=False)
    return time.perf_counter() - started


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("tree", type=Path, help="a folder holding content/ (and prompts/, else the repo's)")
    parser.add_argument("--code", type=Path, action="append", default=[], help="checkout root (repeatable; first = baseline)")
    parser.add_argument("--work", type=Path, default=Path("/tmp/unitrag-build-bench"))
    parser.add_argument("--json", type=Path)
    args = parser.parse_args()
    results = {}
    for n, code in enumerate(args.code or [Path(".")]):
        work = args.work / f"run{n}"
        shutil.rmtree(work, ignore_errors=True)
        shutil.copytree(args.tree / "content", work / "content")
        shutil.copytree(args.tree / "prompts" if (args.tree / "prompts").is_dir() else Path("prompts"), work / "prompts")
        dry = [cli_dry_run(code.resolve(), work) for _ in range(3)]
        child = subprocess.run([sys.executable, "-c", CHILD, str(code.resolve()), str(work)], capture_output=True,
                               text=True, check=True)
        builds = json.loads(child.stdout.strip().splitlines()[-1])
        results[str(code)] = {"dry_run_cli_s": dry, **builds}
        print(f"{code}: dry-run CLI {', '.join(f'{d:.2f}' for d in dry)} s; " + "; ".join(
            f"{step} {b['wall_s']:.2f} s (" + ", ".join(f"{k} {v:.2f}" for k, v in b["timings_s"].items()) + ")"
            for step, b in builds.items()), flush=True)
    if args.json:
        args.json.write_text(json.dumps(results, indent=2))


if __name__ == "__main__":
    main()
