"""Load on ``unitrag serve``: requests/s and p50/p99 latency for ``/v1/search`` and ``/v1/ask`` (extractive,
no LLM) at 1, 8 and 32 concurrent clients, next to the in-process API (``KnowledgeBase.search``/``ask`` from
as many threads) in the same run; errors counted; the server's resident memory after every level.

The server is the real command (``unitrag serve --kb ... --workers 1``, uvicorn) in a child process on a
free loopback port (127.0.0.1 only); clients are asyncio tasks sharing one ``httpx.AsyncClient`` each,
sending the next request as soon as the last one is answered (closed loop). Questions cycle through
``--questions`` labelled questions taken evenly from ``content/eval/questions.yaml`` (zh and en,
answerable, unanswerable and guarded): after the first pass the query-embedding cache is hot, as for an app whose users ask common
questions; the first pass (cold) is the warm-up and is not measured.

Usage (from the repository root; needs a built artifact)::

    .venv/bin/python benchmarks/serve/serve_load.py --kb dist/kb.duckdb                 # 10 s a level, ~3 min
    .venv/bin/python benchmarks/serve/serve_load.py --kb dist/kb.duckdb --duration 60   # the issue's 60 s a level
    .venv/bin/python benchmarks/serve/serve_load.py --kb dist/kb.duckdb --json out.json --levels 1 8

On shared cores the client, the server and the in-process threads compete for the same CPUs: compare
the two columns of one run, not absolute figures across runs (the load average is printed).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import httpx
import yaml

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO / "benchmarks" / "common"))  # the shared helpers

from measure import percentile, proc_status_kib  # noqa: E402


def questions(n: int) -> list[str]:
    data = yaml.safe_load((REPO / "content/eval/questions.yaml").read_text(encoding="utf-8"))
    items = data["questions"] if isinstance(data, dict) else data
    step = max(1, len(items) // n)  # spread over the file: both languages, answerable and not, guarded
    return [q["question"] for q in items][::step][:n]


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def summary(latencies: list[float], errors: int, seconds: float) -> dict[str, Any]:
    return {"requests": len(latencies), "errors": errors, "rps": round(len(latencies) / seconds, 1),
            "p50_ms": round(percentile(latencies, 50) * 1000, 1), "p99_ms": round(percentile(latencies, 99) * 1000, 1)}


# -- over HTTP -------------------------------------------------------------------------------


async def http_level(base: str, endpoint: str, clients: int, seconds: float, qs: list[str]) -> dict[str, Any]:
    latencies: list[float] = []
    errors = [0]
    stop_at = time.perf_counter() + seconds
    counter = [0]

    async def client() -> None:
        async with httpx.AsyncClient(base_url=base, timeout=120) as http:
            while time.perf_counter() < stop_at:
                q = qs[counter[0] % len(qs)]
                counter[0] += 1
                started = time.perf_counter()
                try:
                    r = (await http.get("/v1/search", params={"q": q}) if endpoint == "search"
                         else await http.post("/v1/ask", json={"question": q}))
                    ok = r.status_code == 200
                except httpx.HTTPError:
                    ok = False
                if ok:
                    latencies.append(time.perf_counter() - started)
                else:
                    errors[0] += 1

    started = time.perf_counter()
    await asyncio.gather(*(client() for _ in range(clients)))
    return summary(latencies, errors[0], time.perf_counter() - started)


def start_server(kb: str, port: int) -> subprocess.Popen[bytes]:
    env = dict(os.environ, UNITRAG_LLM="none")
    cmd = [str(Path(sys.executable).with_name("unitrag")), "serve", "--kb", kb, "--host", "127.0.0.1", "--port", str(port), "--workers", "1"]
    server = subprocess.Popen(cmd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        if server.poll() is not None:
            raise SystemExit(f"unitrag serve exited: {server.stderr.read().decode() if server.stderr else ''}")
        try:
            if httpx.get(f"http://127.0.0.1:{port}/v1/health", timeout=2).status_code == 200:
                return server
        except httpx.HTTPError:
            time.sleep(0.2)
    server.terminate()
    raise SystemExit("unitrag serve did not answer /v1/health within 120 s")


# -- in process --------------------------------------------------------------------------------


def inproc_level(call: Callable[[str], Any], clients: int, seconds: float, qs: list[str]) -> dict[str, Any]:
    latencies: list[float] = []
    errors = [0]
    lock = threading.Lock()
    counter = [0]
    stop_at = time.perf_counter() + seconds

    def client() -> None:
        while time.perf_counter() < stop_at:
            with lock:
                q = qs[counter[0] % len(qs)]
                counter[0] += 1
            started = time.perf_counter()
            try:
                call(q)
                ok = True
            except Exception:
                ok = False
            elapsed = time.perf_counter() - started
            with lock:
                (latencies.append(elapsed) if ok else errors.__setitem__(0, errors[0] + 1))

    started = time.perf_counter()
    with ThreadPoolExecutor(clients) as pool:
        for f in [pool.submit(client) for _ in range(clients)]:
            f.result()
    return summary(latencies, errors[0], time.perf_counter() - started)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--kb", default="dist/kb.duckdb", help="a built artifact (default: dist/kb.duckdb)")
    parser.add_argument("--duration", type=float, default=10.0, help="seconds per level and endpoint (default 10; the issue asks 60)")
    parser.add_argument("--levels", type=int, nargs="+", default=[1, 8, 32], help="concurrent clients (default 1 8 32)")
    parser.add_argument("--questions", type=int, default=40)
    parser.add_argument("--json", type=Path, help="also write the results here")
    args = parser.parse_args()
    if not Path(args.kb).is_file():
        raise SystemExit(f"no artifact at {args.kb}: build one (`unitrag build`) or pass --kb")
    qs = questions(args.questions)
    print(f"load average {os.getloadavg()[0]:.2f} on {os.cpu_count()} CPUs; {len(qs)} questions; {args.duration:g} s a level")
    results: dict[str, Any] = {"duration_s": args.duration, "questions": len(qs), "http": {}, "inproc": {}, "memory_mb": {}}

    port = free_port()
    server = start_server(args.kb, port)
    base = f"http://127.0.0.1:{port}"
    try:
        for q in qs:  # warm-up: the cold pass (model, jieba, query cache)
            httpx.post(f"{base}/v1/ask", json={"question": q}, timeout=120)
        results["memory_mb"]["server_after_warmup"] = round(proc_status_kib("VmRSS", server.pid) / 1024, 1)
        for endpoint in ("search", "ask"):
            for n in args.levels:
                row = asyncio.run(http_level(base, endpoint, n, args.duration, qs))
                results["http"][f"{endpoint}@{n}"] = row
                results["memory_mb"][f"server_after_{endpoint}@{n}"] = round(proc_status_kib("VmRSS", server.pid) / 1024, 1)
                print(f"http    {endpoint:6} {n:3} clients: {row}  rss {results['memory_mb'][f'server_after_{endpoint}@{n}']} MB", flush=True)
    finally:
        server.terminate()
        server.wait(timeout=30)

    from unitrag.config import Config
    from unitrag.rag.knowledge_base import KnowledgeBase

    kb = KnowledgeBase.open(args.kb, config=Config(llm="none"))
    for q in qs:
        kb.ask(q)
    for endpoint, call in (("search", lambda q: kb.search(q)), ("ask", lambda q: kb.ask(q))):
        for n in args.levels:
            row = inproc_level(call, n, args.duration, qs)
            results["inproc"][f"{endpoint}@{n}"] = row
            print(f"inproc  {endpoint:6} {n:3} clients: {row}", flush=True)

    print("\n| endpoint | clients | HTTP req/s | HTTP p50 ms | HTTP p99 ms | HTTP errors | in-process req/s | in-process p50 ms | in-process p99 ms |")
    print("| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |")
    for key, h in results["http"].items():
        endpoint, n = key.split("@")
        i = results["inproc"][key]
        print(f"| `{endpoint}` | {n} | {h['rps']} | {h['p50_ms']} | {h['p99_ms']} | {h['errors']} | {i['rps']} | {i['p50_ms']} | {i['p99_ms']} |")
    print("\nserver RSS (MB): " + ", ".join(f"{k.removeprefix('server_after_')} {v}" for k, v in results["memory_mb"].items()))
    if args.json:
        args.json.write_text(json.dumps(results, indent=2))


if __name__ == "__main__":
    sys.exit(main())
