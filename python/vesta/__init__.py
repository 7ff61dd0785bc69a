"""Vesta: the Python SDK of the Video Evaluation Service (no dependencies beyond the standard library).

    import vesta
    client = vesta.Vesta()                      # key from VESTA_API_KEY
    result = client.score.upload("clip.mp4", prompt="a cat surfing", wait=True)
    print(result.video["scores"])

See docs/python.md for every call.
"""
from ._client import (
    DEFAULT_API_KEY_ENV,
    DEFAULT_BASE_URL,
    BenchResource,
    DimensionsResource,
    ModelsResource,
    RankResource,
    RunnersResource,
    ScoreResource,
    VideosResource,
    UploadResult,
    Vesta,
)
from ._exceptions import (
    ApiConnectionError,
    ApiError,
    ApiTimeoutError,
    GenerationError,
    InvalidArgumentError,
    MissingApiKeyError,
    PipelineOutputError,
    ScoringFailedError,
    UploadSourceError,
    VestaError,
    VideoGoneError,
    WaitTimeoutError,
)
from . import _generated
from ._generated import *  # noqa: F401,F403 - one exception class per code of the error catalogue
from ._generated import ERROR_CLASSES, ERROR_CODES
from ._runner import PipelineContext
from ._video import Frame, encode_frames, find_ffmpeg

__version__ = "0.1.0"

__all__ = [
    "DEFAULT_API_KEY_ENV", "DEFAULT_BASE_URL", "BenchResource", "DimensionsResource", "ModelsResource",
    "RankResource", "RunnersResource", "ScoreResource", "VideosResource", "UploadResult", "Vesta",
    "ApiConnectionError", "ApiError", "ApiTimeoutError", "GenerationError", "InvalidArgumentError", "MissingApiKeyError",
    "PipelineOutputError", "ScoringFailedError", "UploadSourceError", "VestaError", "VideoGoneError", "WaitTimeoutError",
    "ERROR_CLASSES", "ERROR_CODES", "PipelineContext", "Frame", "encode_frames", "find_ffmpeg",
]
__all__ += _generated.__all__
