"""A minimal PEP 517 build backend for the `vesta-sdk` package, standard library only.

`pip install ./python` works offline because nothing has to be downloaded to build: pip loads
this module from the source tree (`backend-path` in pyproject.toml). It builds a pure-Python wheel
of the `vesta` package (plus an sdist, and editable installs through a .pth file).
"""
from __future__ import annotations

import ast
import base64
import hashlib
import io
import os
import re
import tarfile
import zipfile
from typing import Any, Dict, List, Optional, Tuple, cast

try:  # Python 3.11+
    import tomllib as _toml  # type: ignore[import-not-found]
except ModuleNotFoundError:  # pragma: no cover - Python 3.9/3.10
    _toml = None  # type: ignore[assignment]

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
PACKAGE = "vesta"


def _project() -> Dict[str, Any]:
    path = os.path.join(ROOT, "pyproject.toml")
    with open(path, "rb") as f:
        text = f.read().decode("utf-8")
    project: Dict[str, Any] = dict(_toml.loads(text)["project"]) if _toml is not None else _read_toml(text).get("project", {})
    project["version"] = _version()
    return project


def _version() -> str:
    """The one version source: ``__version__`` in vesta/_version.py."""
    with open(os.path.join(ROOT, PACKAGE, "_version.py"), encoding="utf-8") as f:
        found = re.search(r"^__version__ = \"([^\"]+)\"", f.read(), re.M)
    if found is None:
        raise RuntimeError("vesta/_version.py has no __version__")
    return found.group(1)


def _read_toml(text: str) -> Dict[str, Any]:
    """Python < 3.11 has no TOML parser: enough of TOML for this pyproject.toml — tables, dotted
    table names, and values that are strings, booleans, numbers, arrays (over several lines) and
    inline tables, read as Python literals."""
    out: Dict[str, Any] = {}
    table = out
    pending = ""
    for raw in text.splitlines():
        line = raw.split(" #", 1)[0].strip() if not raw.strip().startswith("#") else ""
        if not line and not pending:
            continue
        if pending:
            pending += " " + line
            if pending.count("[") > pending.count("]"):
                continue
            line, pending = pending, ""
        if line.startswith("[") and "=" not in line:
            table = out
            for part in line.strip("[]").split("."):
                table = table.setdefault(part.strip().strip('"'), {})
            continue
        key, _, value = line.partition("=")
        if value.strip().startswith("[") and value.count("[") > value.count("]"):
            pending = line
            continue
        literal = re.sub(r"([{,]\s*)([A-Za-z_][\w-]*)\s*=", r'\1"\2":', value.strip())
        literal = re.sub(r"\btrue\b", "True", re.sub(r"\bfalse\b", "False", literal))
        table[key.strip().strip('"')] = ast.literal_eval(literal)
    return out


def _dist_name(project: Dict[str, Any]) -> str:
    return str(project["name"]).replace("-", "_")


def _metadata(project: Dict[str, Any]) -> str:
    """The core metadata (METADATA / PKG-INFO) of the [project] table."""
    lines = [
        "Metadata-Version: 2.1",
        f"Name: {project['name']}",
        f"Version: {project['version']}",
        f"Summary: {project.get('description', '')}",
        f"Requires-Python: {project.get('requires-python', '>=3.9')}",
    ]
    licence = project.get("license")
    if isinstance(licence, dict) and "text" in licence:
        lines.append(f"License: {cast(Dict[str, str], licence)['text']}")
    for author in cast(List[Dict[str, str]], project.get("authors") or []):
        if "email" in author:
            lines.append(f"Author-email: {author.get('name', '')} <{author['email']}>")
        elif "name" in author:
            lines.append(f"Author: {author['name']}")
    keywords = cast(List[str], project.get("keywords") or [])
    if keywords:
        lines.append("Keywords: " + ",".join(keywords))
    lines += [f"Classifier: {c}" for c in cast(List[str], project.get("classifiers") or [])]
    lines += [f"Project-URL: {k}, {v}" for k, v in cast(Dict[str, str], project.get("urls") or {}).items()]
    readme = os.path.join(ROOT, "README.md")
    body = ""
    if os.path.exists(readme):
        lines.append("Description-Content-Type: text/markdown")
        with open(readme, encoding="utf-8") as f:
            body = f.read()
    return "\n".join(lines) + "\n\n" + body


def _entry_points(project: Dict[str, Any]) -> str:
    scripts = cast(Dict[str, str], project.get("scripts") or {})
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
    licence_file = os.path.join(ROOT, "LICENSE")
    if os.path.exists(licence_file):
        with open(licence_file, "rb") as f:
            meta.append((f"{info}/LICENSE", f.read()))
    entry_points = _entry_points(project)
    if entry_points:
        meta.append((f"{info}/entry_points.txt", entry_points.encode("utf-8")))
    everything = files + meta
    record = [_record_line(n, d) for n, d in everything] + [f"{info}/RECORD,,"]
    path = os.path.join(wheel_directory, wheel_name)
    with zipfile.ZipFile(path, "w", compression=zipfile.ZIP_DEFLATED) as zf:
        for name, data in everything + [(f"{info}/RECORD", ("\n".join(record) + "\n").encode("utf-8"))]:
            entry = zipfile.ZipInfo(name, date_time=(2020, 1, 1, 0, 0, 0))
            entry.compress_type = zipfile.ZIP_DEFLATED  # a ZipInfo is stored uncompressed unless told
            entry.external_attr = 0o644 << 16
            zf.writestr(entry, data)
    return wheel_name


def get_requires_for_build_wheel(config_settings: Optional[Dict[str, Any]] = None) -> List[str]:
    return []


def get_requires_for_build_sdist(config_settings: Optional[Dict[str, Any]] = None) -> List[str]:
    return []


def get_requires_for_build_editable(config_settings: Optional[Dict[str, Any]] = None) -> List[str]:
    return []


def build_wheel(wheel_directory: str, config_settings: Optional[Dict[str, Any]] = None, metadata_directory: Optional[str] = None) -> str:
    files: List[Tuple[str, bytes]] = []
    for full, arc in _package_files():
        with open(full, "rb") as f:
            files.append((arc, f.read()))
    return _write_wheel(wheel_directory, files)


def build_editable(wheel_directory: str, config_settings: Optional[Dict[str, Any]] = None, metadata_directory: Optional[str] = None) -> str:
    pth = (ROOT + "\n").encode("utf-8")
    return _write_wheel(wheel_directory, [("vesta_sdk_editable.pth", pth)])


def build_sdist(sdist_directory: str, config_settings: Optional[Dict[str, Any]] = None) -> str:
    project = _project()
    base = f"{_dist_name(project)}-{project['version']}"
    name = f"{base}.tar.gz"
    members = [(os.path.join(ROOT, p), p) for p in ("pyproject.toml", "README.md", "LICENSE", "_build/vesta_build.py")]
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
