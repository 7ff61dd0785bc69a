"""The Python half of `npm run bench:python` (driven by scripts/bench-python.ts).

    python3 bench_client.py BASE_URL KEY get N      -> medians of SDK GETs and bare urllib GETs, interleaved
    python3 bench_client.py BASE_URL KEY upload FILE REPEATS -> SDK upload throughput and RSS growth
Prints one JSON line.
"""
from __future__ import annotations

import json
import os
import statistics
import sys
import time
import urllib.request

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))

import vesta  # noqa: E402


def rss_kib() -> int:
    with open("/proc/self/status", encoding="ascii") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    return 0


def peak_kib() -> int:
    with open("/proc/self/status", encoding="ascii") as f:
        for line in f:
            if line.startswith("VmHWM:"):
                return int(line.split()[1])
    return 0


def bench_get(base: str, key: str, n: int) -> dict:
    client = vesta.Vesta(api_key=key, base_url=base)
    headers = {"X-API-Key": key, "Accept": "application/json", "X-Service-Source": "sdk"}
    url = f"{base}/api/v1/score"

    def bare() -> object:
        with urllib.request.urlopen(urllib.request.Request(url, headers=headers), timeout=30) as res:
            return json.loads(res.read())

    for _ in range(20):  # warm-up
        client.score.get_or_create()
        bare()
    sdk_ms, bare_ms = [], []
    for i in range(n):
        order = [("sdk", client.score.get_or_create), ("bare", bare)]
        if i % 2:
            order.reverse()
        for name, call in order:
            t0 = time.perf_counter()
            call()
            (sdk_ms if name == "sdk" else bare_ms).append((time.perf_counter() - t0) * 1000)
    return {"calls": n, "sdk_median_ms": statistics.median(sdk_ms), "urllib_median_ms": statistics.median(bare_ms)}


def bench_upload(base: str, key: str, path: str, repeats: int) -> dict:
    client = vesta.Vesta(api_key=key, base_url=base)
    size = os.path.getsize(path)
    client.score.get_or_create()
    base_rss = rss_kib()
    rates = []
    for _ in range(repeats):
        marks: dict = {}

        def progress(event: dict) -> None:
            if event["phase"] == "confirm" and "done" not in marks:
                marks["done"] = time.perf_counter()

        t0 = time.perf_counter()
        try:
            client.score.upload(path, prompt="bench", progress=progress)
        except vesta.InvalidVideoError:
            pass  # random bytes: confirm refuses them after the PUT, which is what is timed
        rates.append(size / (marks["done"] - t0) / (1024 * 1024))
    return {"bytes": size, "repeats": repeats, "median_mib_s": statistics.median(rates),
            "rss_growth_mib": (peak_kib() - base_rss) / 1024}


def main() -> None:
    base, key, mode = sys.argv[1], sys.argv[2], sys.argv[3]
    if mode == "get":
        out = bench_get(base, key, int(sys.argv[4]))
    else:
        out = bench_upload(base, key, sys.argv[4], int(sys.argv[5]))
    print(json.dumps(out))


if __name__ == "__main__":
    main()
