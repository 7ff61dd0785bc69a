"""The Python half of `npm run bench:python` (driven by scripts/bench-python.ts).

    python3 bench_client.py BASE_URL KEY get N              -> medians of SDK GETs and bare urllib GETs, interleaved
    python3 bench_client.py BASE_URL KEY upload FILE N      -> sync SDK upload throughput and RSS growth
    python3 bench_client.py BASE_URL KEY rps N              -> requests/s: one sequential Vesta, then AsyncVesta
                                                               with 16 calls in flight (N calls each)
    python3 bench_client.py BASE_URL KEY aupload FILE COUNT -> aggregate MiB/s of COUNT concurrent AsyncVesta uploads
Prints one JSON line.
"""
from __future__ import annotations

import asyncio
import json
import os
import statistics
import sys
import time
import urllib.request
from typing import Any, Dict, List

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))

import vesta  # noqa: E402

Result = Dict[str, Any]


def status_kib(field: str) -> int:
    with open("/proc/self/status", encoding="ascii") as f:
        for line in f:
            if line.startswith(field + ":"):
                return int(line.split()[1])
    return 0


def bench_get(base: str, key: str, n: int) -> Result:
    client = vesta.Vesta(api_key=key, base_url=base)
    headers = {"X-API-Key": key, "Accept": "application/json", "X-Service-Source": "sdk"}
    url = f"{base}/api/v1/score"

    def bare() -> object:
        with urllib.request.urlopen(urllib.request.Request(url, headers=headers), timeout=30) as res:
            return json.loads(res.read())

    def sdk() -> object:
        return client.score.get_or_create()

    for _ in range(20):  # warm-up
        sdk()
        bare()
    sdk_ms: List[float] = []
    bare_ms: List[float] = []
    for i in range(n):
        order = [(sdk_ms, sdk), (bare_ms, bare)]
        if i % 2:
            order.reverse()
        for times, call in order:
            t0 = time.perf_counter()
            call()
            times.append((time.perf_counter() - t0) * 1000)
    return {"calls": n, "sdk_median_ms": statistics.median(sdk_ms), "urllib_median_ms": statistics.median(bare_ms)}


def bench_upload(base: str, key: str, path: str, repeats: int) -> Result:
    client = vesta.Vesta(api_key=key, base_url=base)
    size = os.path.getsize(path)
    client.score.get_or_create()
    base_rss = status_kib("VmRSS")
    rates: List[float] = []
    for _ in range(repeats):
        marks: Dict[str, float] = {}

        def progress(event: Dict[str, Any]) -> None:
            if event["phase"] == "confirm" and "done" not in marks:
                marks["done"] = time.perf_counter()

        t0 = time.perf_counter()
        try:
            client.score.upload(path, prompt="bench", progress=progress)
        except vesta.InvalidVideoError:
            pass  # random bytes: confirm refuses them after the PUT, which is what is timed
        rates.append(size / (marks["done"] - t0) / (1024 * 1024))
    return {"bytes": size, "repeats": repeats, "median_mib_s": statistics.median(rates),
            "rss_growth_mib": (status_kib("VmHWM") - base_rss) / 1024}


def bench_rps(base: str, key: str, n: int, concurrency: int = 16) -> Result:
    """Requests/s of ``score.get_or_create()``: one sync client calling in sequence, then one
    AsyncVesta with ``concurrency`` calls in flight, ``n`` calls each (after a warm-up)."""
    client = vesta.Vesta(api_key=key, base_url=base)
    for _ in range(20):
        client.score.get_or_create()
    t0 = time.perf_counter()
    for _ in range(n):
        client.score.get_or_create()
    sync_rps = n / (time.perf_counter() - t0)

    async def run_async() -> float:
        async with vesta.AsyncVesta(api_key=key, base_url=base) as aclient:
            await asyncio.gather(*(aclient.score.get_or_create() for _ in range(concurrency)))  # warm-up: the connections
            left = [n]

            async def worker() -> None:
                while left[0] > 0:
                    left[0] -= 1
                    await aclient.score.get_or_create()

            start = time.perf_counter()
            await asyncio.gather(*(worker() for _ in range(concurrency)))
            return n / (time.perf_counter() - start)

    async_rps = asyncio.run(run_async())
    return {"calls": n, "concurrency": concurrency, "sync_rps": sync_rps, "async_rps": async_rps}


def bench_aupload(base: str, key: str, path: str, count: int) -> Result:
    """Aggregate MiB/s of ``count`` uploads in flight at once through one AsyncVesta, from the
    calls to the last confirm-upload's start."""
    size = os.path.getsize(path)

    async def main() -> float:
        async with vesta.AsyncVesta(api_key=key, base_url=base) as aclient:
            await aclient.score.get_or_create()
            done: List[float] = []

            async def one() -> None:
                def progress(event: Dict[str, Any]) -> None:
                    if event["phase"] == "confirm":
                        done.append(time.perf_counter())

                try:
                    await aclient.score.upload(path, prompt="bench", progress=progress)
                except vesta.InvalidVideoError:
                    pass  # random bytes: refused at confirm, after the PUT that is timed

            start = time.perf_counter()
            await asyncio.gather(*(one() for _ in range(count)))
            return size * count / (max(done) - start) / (1024 * 1024)

    return {"bytes": size, "count": count, "mib_s": asyncio.run(main())}


def main() -> None:
    base, key, mode = sys.argv[1], sys.argv[2], sys.argv[3]
    if mode == "get":
        out = bench_get(base, key, int(sys.argv[4]))
    elif mode == "upload":
        out = bench_upload(base, key, sys.argv[4], int(sys.argv[5]))
    elif mode == "rps":
        out = bench_rps(base, key, int(sys.argv[4]))
    else:
        out = bench_aupload(base, key, sys.argv[4], int(sys.argv[5]))
    print(json.dumps(out))


if __name__ == "__main__":
    main()
