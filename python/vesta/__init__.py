"""Vesta: the Python SDK of the Video Evaluation Service (no dependencies beyond the standard library).

    import vesta
    client = vesta.Vesta()                      # key from VESTA_API_KEY
    result = client.score.upload("clip.mp4", prompt="a cat surfing", wait=True)
    print([(s.dimension, s.value) for s in result.video.scores])

    async with vesta.AsyncVesta() as aclient:   # the same surface for asyncio
        run = await aclient.bench.get("bench_...")

See docs/python.md for every call.
"""
from ._client import DEFAULT_API_KEY_ENV, DEFAULT_BASE_URL, AsyncVesta, Vesta
from ._core import Response, Timeout
from ._exceptions import (
    ApiConnectionError,
    ApiError,
    ApiTimeoutError,
    AuthenticationError,
    BadRequestError,
    ClientClosedError,
    ConflictError,
    GenerationError,
    InternalServerError,
    InvalidArgumentError,
    MissingApiKeyError,
    NotFoundError,
    PermissionDeniedError,
    PipelineOutputError,
    RateLimitError,
    ScoringFailedError,
    UploadSourceError,
    VestaError,
    VideoGoneError,
    WaitTimeoutError,
)
from ._generated import (
    ERROR_CLASSES,
    ERROR_CODES,
    BenchLogLine,
    BenchLogPage,
    BenchRun,
    BenchRunPage,
    BenchVideo,
    BenchVideoPage,
    Dimension,
    DimensionList,
    DimensionPrompts,
    HeartbeatResponse,
    HeadersTooLargeError,
    IdempotencyMismatchError,
    NoScoredClipsError,
    JudgingClosedError,
    PairNotOfferedError,
    AlreadyVotedError,
    JudgeNotInvitedError,
    InternalError,
    InvalidFieldError,
    InvalidVideoError,
    Leaderboard,
    LeaderboardEntry,
    Model,
    ModelList,
    PayloadTooLargeError,
    RangeNotSatisfiableError,
    RankPromptMismatchError,
    RankSession,
    RateLimitedError,
    RequestTimeoutError,
    Runner,
    RunnerList,
    RunnerTask,
    Score,
    ScoreSession,
    UnauthorizedError,
    ForbiddenError,
    UnsupportedMediaTypeError,
    UploadUrlResponse,
    UpstreamUnavailableError,
    UriTooLongError,
    ValidationFailedError,
    Video,
)
from ._models import ScoredUpload, UploadResult
from ._object import ApiObject
from ._resources import (
    BenchResource,
    DimensionsResource,
    ModelsResource,
    RankResource,
    RunnersResource,
    ScoreResource,
    VideosResource,
)
from ._async_resources import (
    AsyncBenchResource,
    AsyncDimensionsResource,
    AsyncModelsResource,
    AsyncRankResource,
    AsyncRunnersResource,
    AsyncScoreResource,
    AsyncVideosResource,
)
from ._runner import PipelineContext
from ._version import __version__
from ._video import Frame, encode_frames, find_ffmpeg

__all__ = [
    "__version__", "DEFAULT_API_KEY_ENV", "DEFAULT_BASE_URL", "Vesta", "AsyncVesta", "Timeout", "Response",
    # namespaces
    "ScoreResource", "RankResource", "BenchResource", "DimensionsResource", "ModelsResource", "VideosResource",
    "RunnersResource", "AsyncScoreResource", "AsyncRankResource", "AsyncBenchResource", "AsyncDimensionsResource",
    "AsyncModelsResource", "AsyncVideosResource", "AsyncRunnersResource",
    # results
    "ApiObject", "UploadResult", "ScoredUpload", "BenchLogLine", "BenchLogPage", "BenchRun", "BenchRunPage",
    "BenchVideo", "BenchVideoPage", "Dimension", "DimensionList", "DimensionPrompts", "HeartbeatResponse",
    "Leaderboard", "LeaderboardEntry", "Model", "ModelList", "RankSession", "Runner", "RunnerList", "RunnerTask",
    "Score", "ScoreSession", "UploadUrlResponse", "Video",
    # errors
    "VestaError", "ApiError", "BadRequestError", "AuthenticationError", "PermissionDeniedError", "NotFoundError",
    "ConflictError", "RateLimitError", "InternalServerError", "ApiConnectionError", "ApiTimeoutError",
    "MissingApiKeyError", "UploadSourceError", "ScoringFailedError", "WaitTimeoutError", "VideoGoneError",
    "InvalidArgumentError", "ClientClosedError", "PipelineOutputError", "GenerationError",
    "ValidationFailedError", "InvalidFieldError", "RankPromptMismatchError", "InvalidVideoError",
    "UnauthorizedError", "ForbiddenError", "RequestTimeoutError", "IdempotencyMismatchError", "NoScoredClipsError",
    "JudgingClosedError", "PairNotOfferedError", "AlreadyVotedError", "JudgeNotInvitedError",
    "PayloadTooLargeError", "UriTooLongError", "UnsupportedMediaTypeError", "RangeNotSatisfiableError",
    "RateLimitedError", "HeadersTooLargeError", "InternalError", "UpstreamUnavailableError",
    "ERROR_CLASSES", "ERROR_CODES",
    # pipelines
    "PipelineContext", "Frame", "encode_frames", "find_ffmpeg",
]
