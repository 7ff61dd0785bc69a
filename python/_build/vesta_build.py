"""A minimal PEP 517 build backend for the `vesta-sdk` package, standard library only.

`pip install ./python` works offline because nothing has to be downloaded to build: pip loads
this module from the source tree (`backend-path` in pyproject.toml). It builds a pure-Python wheel
of the `vesta` package (plus an sdist, and editable installs through a .pth file).
"""
from __future__ import annotations

import base64
import hashlib
import io
import os
import tarfile
import zipfile
from typing import Dict, List, Optional, Tuple

try:  # Python 3.11+
    import tomllib as _toml  # type: ignore[import-not-found]
except ModuleNotFoundError:  # pragma: no cover - Python 3.9/3.10
    _toml = None  # type: ignore[assignment]

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
PACKAGE = "vesta"


def _project() -> Dict[str, object]:
    path = os.path.join(ROOT, "pyproject.toml")
    with open(path, "rb") as f:
        raw = f.read()
    if _toml is not None:
        return dict(_toml.loads(raw.decode("utf-8"))["project"])
    # Python < 3.11 has no TOML parser: read the few flat keys this file uses.
    project: Dict[str, object] = {}
    section = ""
    scripts: Dict[str, str] = {}
    for line in raw.decode("utf-8").splitlines():
        line = line.strip()
        if line.startswith("["):
            section = line.strip("[]")
            continue
        if "=" not in line or line.startswith("#"):
            continue
        key, value = (part.strip() for part in line.split("=", 1))
        if value.startswith('"'):
            value = value.strip('"')
        if section == "project":
            project[key] = value
        elif section == "project.scripts":
            scripts[key] = value
    project["scripts"] = scripts
    return project


def _dist_name(project: Dict[str, object]) -> str:
    return str(project["name"]).replace("-", "_")


def _metadata(project: Dict[str, object]) -> str:
    lines = [
        "Metadata-Version: 2.1",
        f"Name: {project['name']}",
        f"Version: {project['version']}",
        f"Summary: {project.get('description', '')}",
        f"Requires-Python: {project.get('requires-python', '>=3.9')}",
    ]
    readme = os.path.join(ROOT, "README.md")
    body = ""
    if os.path.exists(readme):
        lines.append("Description-Content-Type: text/markdown")
        with open(readme, encoding="utf-8") as f:
            body = f.read()
    return "\n".join(lines) + "\n\n" + body


def _entry_points(project: Dict[str, object]) -> str:
    scripts = project.get("scripts") or {}
    assert isinstance(scripts, dict)
    if not scripts:
        return ""
    return "[console_scripts]\n" + "".join(f"{k} = {v}\n" for k, v in scripts.items())


def _package_files() -> List[Tuple[str, str]]:
    """(absolute path, path in the archive) of every file of the package."""
    out: List[Tuple[str, str]] = []
    base = os.path.join(ROOT, PACKAGE)
    for dirpath, dirnames, filenames in os.walk(base):
        dirnames[:] = sorted(d for d in dirnames if d != "__pycache__")
        for name in sorted(filenames):
            if name.endswith((".pyc", ".pyo")):
                continue
            full = os.path.join(dirpath, name)
            out.append((full, os.path.relpath(full, ROOT).replace(os.sep, "/")))
    return out


def _record_line(name: str, data: bytes) -> str:
    digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
    return f"{name},sha256={digest},{len(data)}"


def _write_wheel(wheel_directory: str, files: List[Tuple[str, bytes]]) -> str:
    project = _project()
    dist = _dist_name(project)
    version = str(project["version"])
    info = f"{dist}-{version}.dist-info"
    wheel_name = f"{dist}-{version}-py3-none-any.whl"
    meta: List[Tuple[str, bytes]] = [
        (f"{info}/METADATA", _metadata(project).encode("utf-8")),
        (f"{info}/WHEEL", b"Wheel-Version: 1.0\nGenerator: vesta_build\nRoot-Is-Purelib: true\nTag: py3-none-any\n"),
    ]
    entry_points = _entry_points(project)
    if entry_points:
        meta.append((f"{info}/entry_points.txt", entry_points.encode("utf-8")))
    everything = files + meta
    record = [_record_line(n, d) for n, d in everything] + [f"{info}/RECORD,,"]
    path = os.path.join(wheel_directory, wheel_name)
    with zipfile.ZipFile(path, "w", compression=zipfile.ZIP_DEFLATED) as zf:
        for name, data in everything:
            zf.writestr(zipfile.ZipInfo(name, date_time=(2020, 1, 1, 0, 0, 0)), data)
        zf.writestr(zipfile.ZipInfo(f"{info}/RECORD", date_time=(2020, 1, 1, 0, 0, 0)), "\n".join(record) + "\n")
    return wheel_name


def get_requires_for_build_wheel(config_settings: Optional[dict] = None) -> List[str]:
    return []


def get_requires_for_build_sdist(config_settings: Optional[dict] = None) -> List[str]:
    return []


def get_requires_for_build_editable(config_settings: Optional[dict] = None) -> List[str]:
    return []


def build_wheel(wheel_directory: str, config_settings: Optional[dict] = None, metadata_directory: Optional[str] = None) -> str:
    files = []
    for full, arc in _package_files():
        with open(full, "rb") as f:
            files.append((arc, f.read()))
    return _write_wheel(wheel_directory, files)


def build_editable(wheel_directory: str, config_settings: Optional[dict] = None, metadata_directory: Optional[str] = None) -> str:
    pth = (ROOT + "\n").encode("utf-8")
    return _write_wheel(wheel_directory, [("vesta_sdk_editable.pth", pth)])


def build_sdist(sdist_directory: str, config_settings: Optional[dict] = None) -> str:
    project = _project()
    base = f"{_dist_name(project)}-{project['version']}"
    name = f"{base}.tar.gz"
    members = [(os.path.join(ROOT, p), p) for p in ("pyproject.toml", "README.md", "_build/vesta_build.py")]
    members += _package_files()
    with tarfile.open(os.path.join(sdist_directory, name), "w:gz") as tar:
        for full, arc in members:
            if os.path.exists(full):
                tar.add(full, arcname=f"{base}/{arc}")
        pkg_info = _metadata(project).encode("utf-8")
        ti = tarfile.TarInfo(f"{base}/PKG-INFO")
        ti.size = len(pkg_info)
        tar.addfile(ti, io.BytesIO(pkg_info))
    return name
