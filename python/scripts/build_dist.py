"""Builds the sdist and the wheel of vesta-sdk offline, as `python -m build` does (which is not
installed here, and would need a package index for its isolated environment): the sdist from the
source tree, then the wheel from the unpacked sdist (so an sdist missing a file fails here), both
through the in-tree PEP 517 backend (python/_build/vesta_build.py). Standard library only.

    python3 python/scripts/build_dist.py [OUTDIR]     (default: python/dist)
"""
from __future__ import annotations

import os
import subprocess
import sys
import tarfile
import tempfile
from typing import List

HERE = os.path.dirname(os.path.abspath(__file__))
PROJECT = os.path.dirname(HERE)

HOOK = """
import sys
sys.path.insert(0, "_build")
import vesta_build
print(getattr(vesta_build, sys.argv[1])(sys.argv[2]))
"""


def hook(source: str, name: str, outdir: str) -> str:
    """Calls the backend's ``name`` hook in a fresh interpreter with ``source`` as the current
    directory, as a build frontend does; returns the file it wrote."""
    out = subprocess.run([sys.executable, "-c", HOOK, name, outdir], cwd=source, check=True,
                         capture_output=True, text=True)
    return os.path.join(outdir, out.stdout.strip().splitlines()[-1])


def build(outdir: str) -> List[str]:
    os.makedirs(outdir, exist_ok=True)
    outdir = os.path.abspath(outdir)
    sdist = hook(PROJECT, "build_sdist", outdir)
    with tempfile.TemporaryDirectory(prefix="vesta-build-") as tmp:
        with tarfile.open(sdist) as tar:
            if hasattr(tarfile, "data_filter"):  # 3.12+, and the security releases before
                tar.extractall(tmp, filter="data")
            else:
                tar.extractall(tmp)  # our own archive, just written
        (unpacked,) = os.listdir(tmp)
        wheel = hook(os.path.join(tmp, unpacked), "build_wheel", outdir)
    return [sdist, wheel]


def main(argv: List[str]) -> int:
    for path in build(argv[0] if argv else os.path.join(PROJECT, "dist")):
        print(path)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
