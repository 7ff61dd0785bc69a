"""The results of the upload flow, whose shape the OpenAPI document does not name."""
from __future__ import annotations

from typing import ClassVar, Optional, Tuple

from ._generated import Video
from ._object import ApiObject


class UploadResult(ApiObject):
    """What ``score.upload`` / ``rank.upload`` return: the clip's ids and state; ``video`` (the clip
    as the session lists it, with its scores) only after ``wait=True``, see :class:`ScoredUpload`.
    ``to_dict()``: ``{"runId", "videoId", "state", "video"}``, as the TypeScript SDK's result."""

    __slots__ = ()
    _FIELDS: ClassVar[Tuple[str, ...]] = ("run_id", "video_id", "state", "video")

    @classmethod
    def of(cls, run_id: str, video_id: str, state: str, video: Optional[Video]) -> "UploadResult":
        return cls({"runId": run_id, "videoId": video_id, "state": state, "video": None if video is None else video.to_dict()})

    @property
    def run_id(self) -> str:
        """The session run the clip was uploaded to."""
        return str(self._data["runId"])

    @property
    def video_id(self) -> str:
        return str(self._data["videoId"])

    @property
    def state(self) -> str:
        """``uploaded``/``queued`` after the upload; ``scored`` after ``wait=True``."""
        return str(self._data["state"])

    @property
    def video(self) -> Optional[Video]:
        """The clip with its scores after ``wait=True``; None without waiting."""
        raw = self._data.get("video")
        return None if raw is None else Video(raw)


class ScoredUpload(UploadResult):
    """The result of ``upload(..., wait=True)``: the clip is scored and ``video`` is always there."""

    __slots__ = ()

    @property
    def video(self) -> Video:
        """The scored clip: ``video.scores`` holds a value per dimension."""
        return Video(self._data["video"])
