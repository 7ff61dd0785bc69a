"""Upload sources (a path, bytes, or a binary file object), streamed without reading a file whole."""
from __future__ import annotations

import io
import os
from typing import IO, Any, Dict, Mapping, Optional, Tuple, Union

from ._exceptions import UploadSourceError

UploadInput = Union[str, "os.PathLike[str]", bytes, bytearray, memoryview, IO[bytes]]

CONTENT_TYPES = {
    ".mp4": "video/mp4",
    ".m4v": "video/x-m4v",
    ".webm": "video/webm",
    ".mov": "video/quicktime",
    ".avi": "video/x-msvideo",
    ".mkv": "video/x-matroska",
    ".mpeg": "video/mpeg",
    ".mpg": "video/mpeg",
    ".gif": "image/gif",
}


def sniff_content_type(head: bytes) -> Optional[str]:
    """The media type of a clip from its first bytes (mp4/mov, webm/mkv, gif, avi), if known."""
    if head[4:8] == b"ftyp":
        return "video/quicktime" if head[8:10] == b"qt" else "video/mp4"
    if head[:4] == b"\x1a\x45\xdf\xa3":
        return "video/webm" if b"webm" in head[:64] else "video/x-matroska"
    if head[:4] == b"GIF8":
        return "image/gif"
    if head[:4] == b"RIFF" and head[8:12] == b"AVI ":
        return "video/x-msvideo"
    return None


class Source:
    """What is sent: a re-readable body of known length, its name and media type."""

    def __init__(self, data: Any, length: int, file_name: str, content_type: str, owned: bool) -> None:
        self.data = data
        self.length = length
        self.file_name = file_name
        self.content_type = content_type
        self._owned = owned

    def close(self) -> None:
        if self._owned:
            self.data.close()


def open_source(
    file: UploadInput, file_name: Optional[str] = None, content_type: Optional[str] = None
) -> Source:
    """Checks and opens the source before anything is created on the server."""
    if isinstance(file, (bytes, bytearray, memoryview)):
        data = bytes(file) if isinstance(file, memoryview) else file
        if len(data) == 0:
            raise UploadSourceError("The clip is empty (0 bytes).")
        ctype = content_type or sniff_content_type(bytes(data[:64])) or "video/mp4"
        ext = next((e for e, t in CONTENT_TYPES.items() if t == ctype), ".mp4")
        return Source(data, len(data), file_name or f"clip{ext}", ctype, False)
    if isinstance(file, (str, os.PathLike)):
        path = os.fspath(file)
        if not os.path.exists(path):
            raise UploadSourceError(f"No such file: {path}")
        if os.path.isdir(path):
            raise UploadSourceError(f"{path} is a directory, not a clip file.")
        try:
            handle = open(path, "rb")
        except OSError as err:
            raise UploadSourceError(f"Cannot read {path}: {err.strerror or err}") from None
        size = os.fstat(handle.fileno()).st_size
        if size == 0:
            handle.close()
            raise UploadSourceError(f"{path} is empty (0 bytes).")
        name = file_name or os.path.basename(path)
        ctype = content_type or CONTENT_TYPES.get(os.path.splitext(path)[1].lower())
        if ctype is None:
            ctype = sniff_content_type(handle.read(64)) or "video/mp4"
            handle.seek(0)
        return Source(handle, size, name, ctype, True)
    if hasattr(file, "read"):
        stream = file
        if isinstance(stream, io.TextIOBase):
            raise UploadSourceError("The file object is open in text mode; open it with 'rb'.")
        if not (hasattr(stream, "seekable") and stream.seekable()):
            # A pipe or socket: its length is unknown, so it is read into memory (send a path for large clips).
            data = stream.read()
            return open_source(data, file_name or _name_of(stream), content_type)
        start = stream.tell()
        end = stream.seek(0, io.SEEK_END)
        stream.seek(start)
        if end - start <= 0:
            raise UploadSourceError("The file object has no bytes left to read.")
        head = stream.read(64)
        stream.seek(start)
        name = file_name or _name_of(stream) or "clip.mp4"
        ctype = content_type or CONTENT_TYPES.get(os.path.splitext(name)[1].lower()) or sniff_content_type(head) or "video/mp4"
        return Source(stream, end - start, name, ctype, False)
    raise UploadSourceError(
        f"Cannot upload a {type(file).__name__}: pass a path, bytes, or a binary file object."
    )


def _name_of(stream: Any) -> Optional[str]:
    name = getattr(stream, "name", None)
    return os.path.basename(name) if isinstance(name, str) and name else None


def split_ticket_headers(ticket: Mapping[str, Any], source: Source) -> Tuple[str, Dict[str, str]]:
    # Content-Length is the body's own, set when it is sent (an S3 store's presigned URL binds the
    # declared size, which is this body's size): never twice.
    given: Mapping[str, Any] = ticket.get("headers") or {}
    headers = {str(k): str(v) for k, v in given.items() if str(k).lower() != "content-length"}
    headers["Content-Type"] = headers.get("Content-Type") or source.content_type
    return str(ticket.get("method") or "PUT"), headers
