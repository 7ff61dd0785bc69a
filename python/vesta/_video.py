"""Turns what a generator returns into clip bytes: a file path, bytes, or frames encoded with FFmpeg."""
from __future__ import annotations

import os
import platform
import shutil
import subprocess
import sys
import tempfile
from typing import Any, Iterable, List, Optional, Sequence, Tuple, cast

from ._exceptions import PipelineOutputError


class Frame:
    """One RGB frame without NumPy or Pillow: ``width * height * 3`` bytes, row by row."""

    __slots__ = ("width", "height", "rgb")
    width: int
    height: int
    rgb: bytes

    def __init__(self, width: int, height: int, rgb: bytes) -> None:
        if len(rgb) != width * height * 3:
            raise ValueError(f"a {width}x{height} RGB frame has {width * height * 3} bytes, got {len(rgb)}")
        self.width = width
        self.height = height
        self.rgb = bytes(rgb)


def find_ffmpeg() -> Optional[str]:
    """``VESTA_FFMPEG``, then ``ffmpeg`` on PATH, then the binary of npm's @ffmpeg-installer near here."""
    explicit = os.environ.get("VESTA_FFMPEG")
    if explicit:
        return explicit if os.path.isfile(explicit) else None
    found = shutil.which("ffmpeg")
    if found:
        return found
    arch = {"x86_64": "x64", "amd64": "x64", "aarch64": "arm64", "arm64": "arm64"}.get(platform.machine().lower(), "")
    plat = {"linux": "linux", "darwin": "darwin", "win32": "win32"}.get(sys.platform, "")
    for start in (os.getcwd(), os.path.dirname(os.path.abspath(__file__))):
        d = start
        while True:
            candidate = os.path.join(d, "node_modules", "@ffmpeg-installer", f"{plat}-{arch}", "ffmpeg")
            if os.path.isfile(candidate):
                return candidate
            parent = os.path.dirname(d)
            if parent == d:
                break
            d = parent
    return None


def _as_array(value: Any) -> Any:
    """A PyTorch tensor as a NumPy array (``.detach().cpu().numpy()``); anything else as it is."""
    if not hasattr(value, "tobytes") and all(hasattr(value, a) for a in ("detach", "cpu", "numpy")):
        return value.detach().cpu().numpy()
    return value


def _frame_bytes(frame: Any) -> Tuple[int, int, bytes]:
    if isinstance(frame, Frame):
        return frame.width, frame.height, frame.rgb
    frame = _as_array(frame)
    shape = getattr(frame, "shape", None)
    if shape is not None and len(shape) == 3 and shape[2] not in (3, 4) and shape[0] in (3, 4):
        frame = frame.transpose(1, 2, 0)  # channels first (C, H, W), as diffusers' output_type="pt"
        shape = frame.shape
    if shape is not None and hasattr(frame, "tobytes"):  # a NumPy array (H, W, 3), uint8 or float in [0, 1]
        if len(shape) != 3 or shape[2] not in (3, 4):
            raise PipelineOutputError(f"a frame array must be (height, width, 3), got shape {tuple(shape)}")
        kind = getattr(getattr(frame, "dtype", None), "kind", "u")
        if kind == "f":
            frame = (frame.clip(0, 1) * 255).round().astype("uint8")
        elif str(getattr(frame, "dtype", "uint8")) != "uint8":
            frame = frame.clip(0, 255).astype("uint8")
        if shape[2] == 4:
            frame = frame[:, :, :3]
        return int(shape[1]), int(shape[0]), frame.tobytes()
    if hasattr(frame, "size") and hasattr(frame, "mode") and hasattr(frame, "convert"):  # a PIL image
        rgb = frame.convert("RGB")
        return int(rgb.size[0]), int(rgb.size[1]), rgb.tobytes()
    raise PipelineOutputError(
        f"cannot use a {type(frame).__name__} as a frame: use NumPy arrays (H, W, 3), PIL images or vesta.Frame"
    )


def unwrap_frames(value: Any) -> Any:
    """The frames of a diffusers-style output (an object with ``frames``): ``frames`` itself, or
    the first video when it holds a batch (a list of frame lists, or a 5-dimensional array or
    tensor); anything else as it is. A batch of more than one video is a PipelineOutputError."""
    if isinstance(value, (str, bytes, bytearray, memoryview, os.PathLike)) or not hasattr(value, "frames"):
        return cast(Any, value)
    frames: Any = _as_array(value.frames)
    shape = getattr(frames, "shape", None)
    if shape is not None:
        batched = len(shape) == 5
        count = int(shape[0]) if batched else 1
    else:
        items: Optional[List[Any]] = list(cast(Sequence[Any], frames)) if isinstance(frames, (list, tuple)) else None
        batched = items is not None and len(items) > 0 and is_frame_sequence(_as_array(items[0]))
        count = len(items) if items is not None and batched else 1
    if not batched:
        return cast(Any, frames)
    if count != 1:
        raise PipelineOutputError(
            f"The pipeline returned {count} videos in its frames; return one (num_videos_per_prompt=1)."
        )
    return _as_array(frames[0])


def is_frame_sequence(value: Any) -> bool:
    if isinstance(value, (str, bytes, bytearray, memoryview)) or value is None:
        return False
    shape = getattr(value, "shape", None)
    if shape is not None:
        return len(shape) == 4  # one array (T, H, W, C)
    return isinstance(value, (list, tuple)) or (hasattr(value, "__iter__") and not hasattr(value, "read"))


def encode_frames(frames: Iterable[Any], fps: float = 8.0, ffmpeg: Optional[str] = None) -> bytes:
    """Encodes RGB frames to an H.264 MP4 (yuv420p) with FFmpeg; returns the file's bytes."""
    binary = ffmpeg or find_ffmpeg()
    if binary is None:
        raise PipelineOutputError(
            "The pipeline returned frames, but no FFmpeg binary was found to encode them to MP4. "
            "Install FFmpeg (apt-get install ffmpeg, brew install ffmpeg), or set VESTA_FFMPEG to its path, "
            "or return a file path or MP4 bytes instead (e.g. diffusers' export_to_video)."
        )
    items: List[Tuple[int, int, bytes]] = [_frame_bytes(f) for f in frames]
    if not items:
        raise PipelineOutputError("The pipeline returned an empty sequence of frames.")
    width, height = items[0][0], items[0][1]
    if any((w, h) != (width, height) for w, h, _ in items):
        raise PipelineOutputError("All frames must have the same size.")
    with tempfile.TemporaryDirectory(prefix="vesta-frames-") as tmp:
        out = os.path.join(tmp, "clip.mp4")
        # Even sizes for yuv420p: pad by one pixel when needed.
        args = [
            binary, "-hide_banner", "-loglevel", "error", "-y",
            "-f", "rawvideo", "-pix_fmt", "rgb24", "-s", f"{width}x{height}", "-r", f"{fps:g}", "-i", "-",
            "-vf", "pad=ceil(iw/2)*2:ceil(ih/2)*2",
            "-c:v", "libx264", "-pix_fmt", "yuv420p", "-movflags", "+faststart", out,
        ]
        proc = subprocess.run(args, input=b"".join(b for _, _, b in items), capture_output=True)
        if proc.returncode != 0:
            raise PipelineOutputError(f"FFmpeg could not encode the frames: {proc.stderr.decode('utf-8', 'replace').strip()[-500:]}")
        with open(out, "rb") as f:
            return f.read()


def clip_from_output(value: Any, fps: float) -> Tuple[Any, Optional[str]]:
    """(upload input, content type) of what a generator returned; raises PipelineOutputError."""
    if value is None:
        raise PipelineOutputError(
            "The pipeline returned nothing: return a file path, the clip's bytes, or a sequence of frames."
        )
    value = _as_array(unwrap_frames(value))
    if isinstance(value, (str, os.PathLike)):
        path: str = os.fspath(cast("str | os.PathLike[str]", value))
        if not os.path.isfile(path):
            raise PipelineOutputError(f"The pipeline returned the path {path}, which is not a file.")
        return path, None
    if isinstance(value, (bytes, bytearray, memoryview)):
        data = bytes(cast("bytes | bytearray | memoryview", value))
        if len(data) == 0:
            raise PipelineOutputError("The pipeline returned 0 bytes.")
        return data, None
    if is_frame_sequence(value):
        return encode_frames(value, fps), "video/mp4"
    raise PipelineOutputError(
        f"The pipeline returned a {type(value).__name__}: return a file path, the clip's bytes, or a sequence of frames."
    )


