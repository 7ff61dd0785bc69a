"""Writes vesta/_async_resources.py (AsyncVesta's namespaces) from vesta/_resources.py.

The two differ only in how a plan is run (``await``) and in iterators becoming async ones, so
the async file is derived, never edited: ``def`` -> ``async def``, ``self._run(`` ->
``await self._run(``, ``Iterator`` -> ``AsyncIterator``, ``XResource`` -> ``AsyncXResource``,
``vesta._runner`` -> ``vesta._arunner``. A test runs ``--check`` and fails on drift.

    python3 python/scripts/generate_async.py [--check]
"""
from __future__ import annotations

import os
import re
import sys
from typing import List

HERE = os.path.dirname(os.path.abspath(__file__))
SOURCE = os.path.join(os.path.dirname(HERE), "vesta", "_resources.py")
TARGET = os.path.join(os.path.dirname(HERE), "vesta", "_async_resources.py")

HEADER = '''"""The namespaces of ``vesta.AsyncVesta``: generated from vesta/_resources.py by
python/scripts/generate_async.py. Do not edit: change _resources.py and run the script.
"""
'''


def convert(text: str) -> str:
    body = text[text.index('"""', 3) + 4 :]  # without the module docstring
    swaps = [
        ("from ._drive import run\n", "from ._drive import arun\n"),
        ("Iterator[", "AsyncIterator["),
        ("Callable, Iterator,", "AsyncIterator, Callable,"),
        ('"Vesta"', '"AsyncVesta"'),
        ("from ._client import Vesta\n", "from ._client import AsyncVesta\n"),
        ("from ._runner import run_with_pipeline as _pipeline", "from ._arunner import run_with_pipeline as _pipeline"),
        ("return _pipeline(", "return await _pipeline("),
        ("self._run(", "await self._run("),
        ("class SyncResource:", "class AsyncResource:"),
        ("(SyncResource)", "(AsyncResource)"),
        ("    def _run(self, plan: Plan[T]) -> T:\n        return run(", "    async def _run(self, plan: Plan[T]) -> T:\n        return await arun("),
    ]
    for old, new in swaps:
        if old not in body:
            raise SystemExit(f"generate_async: {old!r} not found in {SOURCE}")
        body = body.replace(old, new)
    body = re.sub(r"^class (\w+Resource)\(", r"class Async\1(", body, flags=re.M)
    body = re.sub(r'"(\w+Resource)"', r'"Async\1"', body)
    body = re.sub(r"^    def (?!_)", "    async def ", body, flags=re.M)
    return HEADER + body


def main(argv: List[str]) -> int:
    with open(SOURCE, encoding="utf-8") as f:
        text = convert(f.read())
    if "--check" in argv:
        with open(TARGET, encoding="utf-8") as f:
            if f.read() != text:
                print(f"{TARGET} is stale: run python3 python/scripts/generate_async.py", file=sys.stderr)
                return 1
        return 0
    with open(TARGET, "w", encoding="utf-8") as f:
        f.write(text)
    print(f"wrote {TARGET}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
