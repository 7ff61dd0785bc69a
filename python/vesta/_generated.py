"""Types generated from openapi/openapi.json by python/scripts/generate_types.py.

Do not edit: run `npm run generate:sdk` after the API changes (a test fails on drift).
"""
# fmt: off
from __future__ import annotations

from typing import Any, Dict, List, Literal, Optional, Tuple, Type, TypedDict, Union

from ._exceptions import ApiError

#: The error classes, re-exported by the vesta package.
__all__ = ["ValidationFailedError", "InvalidFieldError", "RankPromptMismatchError", "InvalidVideoError", "UnauthorizedError", "ForbiddenError", "NotFoundError", "RequestTimeoutError", "ConflictError", "IdempotencyMismatchError", "PayloadTooLargeError", "UriTooLongError", "UnsupportedMediaTypeError", "RangeNotSatisfiableError", "RateLimitedError", "HeadersTooLargeError", "InternalError", "UpstreamUnavailableError"]

API_VERSION = "1.0.0"

#: Every error code of the server's catalogue (ErrorBody.code).
ErrorCode = Literal["validation_failed", "invalid_field", "RANK_PROMPT_MISMATCH", "invalid_video", "unauthorized", "forbidden", "not_found", "request_timeout", "conflict", "idempotency_mismatch", "payload_too_large", "uri_too_long", "unsupported_media_type", "range_not_satisfiable", "rate_limited", "headers_too_large", "internal_error", "upstream_unavailable"]
ERROR_CODES: Tuple[str, ...] = ("validation_failed", "invalid_field", "RANK_PROMPT_MISMATCH", "invalid_video", "unauthorized", "forbidden", "not_found", "request_timeout", "conflict", "idempotency_mismatch", "payload_too_large", "uri_too_long", "unsupported_media_type", "range_not_satisfiable", "rate_limited", "headers_too_large", "internal_error", "upstream_unavailable", )

#: operationId -> (HTTP method, path) of every operation.
OPERATIONS: Dict[str, Tuple[str, str]] = {
    "acceptInvite": ("POST", "/api/v1/auth/accept-invite"),
    "cancelBenchRun": ("POST", "/api/v1/bench/{id}/cancel"),
    "changePassword": ("POST", "/api/v1/account/password"),
    "claimRunnerTask": ("POST", "/api/v1/runners/{id}/claim"),
    "completeRunnerTask": ("POST", "/api/v1/runner-tasks/{taskId}/complete"),
    "confirmRankUpload": ("POST", "/api/v1/rank/{id}/videos/confirm-upload"),
    "confirmScoreUpload": ("POST", "/api/v1/score/{id}/videos/confirm-upload"),
    "createApiKey": ("POST", "/api/v1/api-keys"),
    "createBenchRun": ("POST", "/api/v1/bench"),
    "createInvite": ("POST", "/api/v1/invites"),
    "createRankUploadUrl": ("POST", "/api/v1/rank/{id}/videos/upload-url"),
    "createRunnerTaskUploadUrl": ("POST", "/api/v1/runner-tasks/{taskId}/upload-url"),
    "createScoreUploadUrl": ("POST", "/api/v1/score/{id}/videos/upload-url"),
    "deleteBenchRun": ("DELETE", "/api/v1/bench/{id}"),
    "deregisterRunner": ("DELETE", "/api/v1/runners/{id}"),
    "disableUser": ("POST", "/api/v1/users/{id}/disable"),
    "failRunnerTask": ("POST", "/api/v1/runner-tasks/{taskId}/fail"),
    "getBenchCsv": ("GET", "/api/v1/bench/{id}/csv"),
    "getBenchLogs": ("GET", "/api/v1/bench/{id}/logs"),
    "getBenchRun": ("GET", "/api/v1/bench/{id}"),
    "getCurrentSession": ("GET", "/api/v1/auth/session"),
    "getRankLeaderboard": ("GET", "/api/v1/rank/{id}/ranked"),
    "getRankSession": ("GET", "/api/v1/rank"),
    "getRunner": ("GET", "/api/v1/runners/{id}"),
    "getScoreSession": ("GET", "/api/v1/score"),
    "getSetupState": ("GET", "/api/v1/auth/setup"),
    "getVideoContent": ("GET", "/api/v1/videos/{videoId}/content"),
    "heartbeatRunnerTask": ("POST", "/api/v1/runner-tasks/{taskId}/heartbeat"),
    "listApiKeys": ("GET", "/api/v1/api-keys"),
    "listBenchRuns": ("GET", "/api/v1/bench"),
    "listBenchVideos": ("GET", "/api/v1/bench/{id}/videos"),
    "listDimensionPrompts": ("GET", "/api/v1/dimensions/{id}/prompts"),
    "listDimensions": ("GET", "/api/v1/dimensions"),
    "listInvites": ("GET", "/api/v1/invites"),
    "listModels": ("GET", "/api/v1/models"),
    "listRunners": ("GET", "/api/v1/runners"),
    "listUsers": ("GET", "/api/v1/users"),
    "listWebSessions": ("GET", "/api/v1/account/sessions"),
    "putUpload": ("PUT", "/api/v1/uploads/{videoId}"),
    "registerRunner": ("POST", "/api/v1/runners"),
    "resetRankSession": ("POST", "/api/v1/rank/reset"),
    "resetScoreSession": ("POST", "/api/v1/score/reset"),
    "revokeApiKey": ("DELETE", "/api/v1/api-keys/{id}"),
    "revokeInvite": ("DELETE", "/api/v1/invites/{id}"),
    "revokeWebSession": ("DELETE", "/api/v1/account/sessions/{id}"),
    "setupFirstAdmin": ("POST", "/api/v1/auth/setup"),
    "signIn": ("POST", "/api/v1/auth/sign-in"),
    "signOut": ("POST", "/api/v1/auth/sign-out"),
}

BenchStatus = Literal["queued", "generating", "evaluating", "completed", "failed", "cancelled"]
VideoState = Union[Literal["awaiting_upload"], Literal["uploaded"], Literal["queued"], Literal["scoring"], Literal["scored"], Literal["failed"]]


class Auxiliary(TypedDict, total=False):
    """Optional auxiliary prompt info for VBench's semantic dimensions (VBench's `auxiliary_info`): object, color, relationship, scene, appearance_style, action; object_a/object_b for multiple_objects."""
    object: str
    color: str
    relationship: str
    scene: str
    appearance_style: str
    action: str
    object_a: str
    object_b: str


class BenchLogLine(TypedDict):
    #: Position in the log.
    seq: int
    #: ISO 8601, UTC.
    time: str
    source: Union[Literal["server"], Literal["runner"], Literal["evaluator"]]
    level: Union[Literal["info"], Literal["warn"], Literal["error"]]
    message: str


class BenchLogPage(TypedDict):
    """A page of the run's log lines, oldest first."""
    items: List[BenchLogLine]
    page: int
    limit: int
    #: Items in the whole list.
    total: int
    #: True when a later page has items.
    hasMore: bool


class BenchRunProgress(TypedDict):
    """Progress of the run, counted over its tasks (one task = one clip)."""
    #: Clips to generate (prompt × sample), planned when the run is created.
    tasks_total: int
    #: Clips uploaded by runners and accepted.
    tasks_generated: int
    #: Clips generated and evaluated.
    tasks_done: int
    #: Clips that failed for good (generation or upload).
    tasks_failed: int
    #: Clips the run expects to evaluate: tasks_total minus failed and cancelled tasks.
    clips_total: int
    #: Clips whose evaluation finished (scored, or its scoring failed).
    clips_evaluated: int


class BenchRunError(TypedDict):
    code: str
    detail: str


class BenchRun(TypedDict):
    """A Bench run."""
    id: str
    name: str
    #: The run's dimensions in VBench order.
    dimensions: List[str]
    model_id: str
    #: The only runner allowed to take the run, or null for any runner serving the model.
    runner_id: Optional[str]
    #: Clips generated per prompt.
    samples_per_prompt: int
    #: The per-clip-group prompt limit; null: every prompt of the suite.
    prompts_per_dimension: Optional[int]
    #: The prompt suite the tasks were planned from (GET /api/v1/dimensions/{id}/prompts).
    suite_version: Optional[str]
    status: BenchStatus
    #: Progress of the run, counted over its tasks (one task = one clip).
    progress: BenchRunProgress
    #: Why the run failed; null otherwise.
    error: Optional[BenchRunError]
    #: ISO 8601, UTC.
    created_at: str
    #: ISO 8601, UTC.
    updated_at: str
    #: When the run left queued.
    started_at: Optional[str]
    #: When the run reached a terminal status.
    finished_at: Optional[str]


class BenchRunPage(TypedDict):
    """A page of the caller's Bench runs, newest first."""
    items: List[BenchRun]
    page: int
    limit: int
    #: Items in the whole list.
    total: int
    #: True when a later page has items.
    hasMore: bool


class BenchVideoError(TypedDict):
    code: str
    detail: str


class BenchVideoScoresItem(TypedDict):
    dimension: str
    value: float
    method: str
    method_version: str


class BenchVideoFailuresItem(TypedDict):
    dimension: str
    code: str
    detail: str


class BenchVideo(TypedDict):
    """One clip of a Bench run and its per-dimension results."""
    task_id: str
    #: Position in the run's task list.
    seq: int
    prompt: str
    #: Auxiliary prompt info (object, color, …) for semantic dimensions.
    auxiliary: Optional[Dict[str, str]]
    #: The suite prompt (`<clip group>-<nn>`).
    prompt_id: Optional[str]
    #: The clip group whose dimensions this clip is scored on.
    clip_group: Optional[str]
    #: The run's dimensions this clip is scored on.
    dimensions: List[str]
    sample_index: int
    seed: int
    #: pending → claimed → uploaded → evaluating → done, or failed / cancelled.
    state: Literal["pending", "claimed", "uploaded", "evaluating", "done", "failed", "cancelled"]
    runner_id: Optional[str]
    attempts: int
    #: The uploaded clip, once there is one.
    video_id: Optional[str]
    error: Optional[BenchVideoError]
    scores: List[BenchVideoScoresItem]
    failures: List[BenchVideoFailuresItem]


class BenchVideoPage(TypedDict):
    """A page of the run's clips, in task order."""
    items: List[BenchVideo]
    page: int
    limit: int
    #: Items in the whole list.
    total: int
    #: True when a later page has items.
    hasMore: bool


class ClaimBody(TypedDict, total=False):
    """An empty body is the same as {}."""
    #: How long to wait for a task (long-poll), 0–30 s, default 20. 0 answers at once.
    waitSeconds: int


class ClaimResponse(TypedDict):
    task: RunnerTask


class _CompleteBodyRequired(TypedDict):
    #: The lease id from the claim.
    leaseId: str
    #: The videoId from upload-url, after the PUT.
    videoId: str


class CompleteBody(_CompleteBodyRequired, total=False):
    #: Log lines to add to the run's log (source `runner`), at most 100 per call.
    logs: List[RunnerLogLine]


class ConfirmUploadBody(TypedDict):
    videoId: str


class _CreateBenchRunBodyRequired(TypedDict):
    #: A label for the run: 1–200 characters, no control characters.
    name: str
    #: Dimension ids from GET /api/v1/dimensions; each must be used by Bench and have a method available now (defaultMethod not null). Stored in VBench order. An unknown id is 400 validation_failed naming it.
    dimensions: List[str]
    #: A model id from GET /api/v1/models. An unknown id is 400 validation_failed naming it.
    model_id: str


class CreateBenchRunBody(_CreateBenchRunBodyRequired, total=False):
    #: Optional. When given, one of the caller's registered runners serving model_id, and only it may generate the clips; when left out, any of the caller's runners serving the model may. An unknown runner, another user's, or one not serving the model is 400 validation_failed.
    runner_id: str
    #: Clips generated per prompt, 1–10; default 5 as VBench samples (VBench samples 25 for temporal_flickering and keeps 5 after a static filter; Vesta uses this value for every dimension).
    samples_per_prompt: int
    #: At most this many prompts of each clip group (the first ones of the suite); default all. Small values make quick runs; scores from a subset are not comparable with full runs.
    prompts_per_dimension: int


class DimensionRange(TypedDict):
    """Range of a per-clip value."""
    min: float
    max: float


class DimensionMethodsItemRequires(TypedDict):
    """What the method needs before it can run."""
    #: Model ids the method needs (empty for model-free methods).
    models: List[str]
    #: Auxiliary prompt info keys it reads: object, color, relationship, scene, appearance_style, action.
    auxiliary: List[str]
    #: True when it reads the clip's text prompt.
    prompt: bool


class DimensionMethodsItem(TypedDict):
    #: `vbench`: VBench protocol and model; `lite`: model-free.
    id: str
    version: str
    description: str
    #: What the method needs before it can run.
    requires: DimensionMethodsItemRequires
    #: True when this server can run it now.
    available: bool
    #: Why it is not available; null when it is.
    unavailableReason: Optional[str]


class DimensionNormalisation(TypedDict):
    """VBench's leaderboard constants: a score x counts as weight·(x − min)/(max − min) in Quality, Semantic and Total."""
    min: float
    max: float
    weight: float


class Dimension(TypedDict):
    """An evaluation dimension (VBench)."""
    id: str
    name: str
    description: str
    #: The leaderboard group it counts in.
    category: Union[Literal["quality"], Literal["semantic"]]
    higherIsBetter: bool
    #: Range of a per-clip value.
    range: DimensionRange
    methods: List[DimensionMethodsItem]
    #: The method used when none is chosen: the best available (vbench before lite); null when none is available (Bench runs then refuse the dimension).
    defaultMethod: Optional[str]
    #: VBench's leaderboard constants: a score x counts as weight·(x − min)/(max − min) in Quality, Semantic and Total.
    normalisation: DimensionNormalisation
    #: The workflows that score it; dimensions needing a prompt suite are bench only.
    workflows: List[Union[Literal["score"], Literal["rank"], Literal["bench"]]]


class DimensionFailure(TypedDict):
    dimension: str
    code: str
    detail: str


class DimensionList(TypedDict):
    """VBench's 16 dimensions, in VBench's order."""
    items: List[Dimension]


class DimensionPromptsPromptsItem(TypedDict):
    #: `<clip group>-<nn>`, stable within a suite version.
    id: str
    text: str
    #: What the dimension checks: object; object ("a and b") for multiple_objects; action; color (+ object); object_a, object_b, relationship; scene; appearance_style. {} when none.
    auxiliary: Dict[str, str]


class DimensionPrompts(TypedDict):
    """Vesta's own prompts for one dimension (written for Vesta, not copied from VBench)."""
    #: The prompt suite version (changes whenever a prompt does).
    suiteVersion: str
    dimension: str
    #: The clip group this dimension is evaluated on; dimensions of one group share clips (VBench: subject_consistency with motion_smoothness and dynamic_degree; scene with background_consistency; overall_consistency with aesthetic_quality and imaging_quality).
    clipGroup: str
    prompts: List[DimensionPromptsPromptsItem]


class ErrorBody(TypedDict):
    #: Stable error code from the catalogue (packages/server/src/errors.ts); branch on it, never on detail.
    code: Literal["validation_failed", "invalid_field", "RANK_PROMPT_MISMATCH", "invalid_video", "unauthorized", "forbidden", "not_found", "request_timeout", "conflict", "idempotency_mismatch", "payload_too_large", "uri_too_long", "unsupported_media_type", "range_not_satisfiable", "rate_limited", "headers_too_large", "internal_error", "upstream_unavailable"]
    #: Human-readable explanation; may change over time.
    detail: str
    #: The request id, also sent in the X-Request-Id header.
    requestId: str


class _FailBodyRequired(TypedDict):
    #: The lease id from the claim.
    leaseId: str
    #: Why the clip could not be generated.
    error: str


class FailBody(_FailBodyRequired, total=False):
    #: false: fail the task now; true (default): re-queue it while attempts remain.
    retryable: bool
    #: Log lines to add to the run's log (source `runner`), at most 100 per call.
    logs: List[RunnerLogLine]


class FailResponse(TypedDict):
    task: RunnerTask


class FramesUsedSampling(TypedDict):
    """How frames were sampled (all, every, uniform, fps)."""
    kind: str


class _FramesUsedRequired(TypedDict):
    count: int
    width: int
    height: int
    #: How frames were sampled (all, every, uniform, fps).
    sampling: FramesUsedSampling


class FramesUsed(_FramesUsedRequired, total=False):
    #: The clip's frame rate, in frames per second, that the sampling and the frames' times were computed with: the container's mean rate, or an assumed one (`fpsAssumed`). Absent on scores stored before the rate was recorded.
    fps: float
    #: True when the clip states no usable frame rate and `fps` is assumed: a GIF whose frames carry no delay or one under 2 hundredths of a second is read at 10 cs per such frame (the convention browsers follow), a stream with neither a rate nor a duration at 25 fps. Dimensions that sample by time (dynamic_degree) read this rate. Absent on scores stored before it was recorded.
    fpsAssumed: bool


class _HeartbeatBodyRequired(TypedDict):
    #: The lease id from the claim.
    leaseId: str


class HeartbeatBody(_HeartbeatBodyRequired, total=False):
    #: Log lines to add to the run's log (source `runner`), at most 100 per call.
    logs: List[RunnerLogLine]


class HeartbeatResponse(TypedDict):
    #: ISO 8601, UTC.
    expiresAt: str
    #: True when the run was cancelled (or has ended): stop generating, do not upload or complete.
    cancelled: bool


class Leaderboard(TypedDict):
    runId: str
    prompt: Optional[str]
    #: How `overall` is computed.
    formula: str
    entries: List[LeaderboardEntry]


class LeaderboardEntry(TypedDict):
    #: Position among scored candidates; null for unscored ones (listed last).
    rank: Optional[int]
    videoId: str
    fileName: str
    overall: Optional[float]
    scores: List[Score]
    state: VideoState


class Lease(TypedDict):
    """The lease on a claimed task."""
    #: The lease id: send it with every call about this task (a fencing token).
    id: str
    #: ISO 8601, UTC.
    expiresAt: str
    #: Lease length; heartbeat well within it (every ttlSeconds/3 is a good rhythm).
    ttlSeconds: int


class ModelRunnersItem(TypedDict):
    id: str
    name: str
    #: Seen in the last 60 seconds (2 × the longest claim wait).
    online: bool
    lastSeenAt: Optional[str]


class Model(TypedDict):
    """A video generator that Bench runs can evaluate."""
    id: str
    name: str
    description: str
    #: The caller's registered runners serving the model, online ones first.
    runners: List[ModelRunnersItem]
    #: True when at least one runner serving it is online.
    online: bool
    createdAt: str


class ModelList(TypedDict):
    """The global models and the caller's private ones, by id; a fresh server lists only the demo generator `vesta-demo`."""
    items: List[Model]


class RankSession(TypedDict):
    #: The run id used in paths; a reset gives a new one.
    runId: str
    kind: Literal["rank"]
    #: The locked prompt; null until the first candidate is stored (its upload confirmed): an upload-url whose bytes never arrive locks nothing.
    prompt: Optional[str]
    promptLocked: bool
    createdAt: str
    videos: List[Video]


class _RankUploadUrlBodyRequired(TypedDict):
    #: Name of the clip file: 1-255 characters, no path separators, no "..", no control characters.
    fileName: str
    #: Media type of the clip; one of video/mp4, video/webm, video/quicktime, video/x-msvideo, video/x-matroska, video/mpeg, video/x-m4v, image/gif.
    contentType: str


class RankUploadUrlBody(_RankUploadUrlBodyRequired, total=False):
    #: Required until the session is locked (by the first confirmed candidate); afterwards optional, and when sent it must equal the locked prompt (compared after trimming surrounding white space).
    prompt: str
    auxiliary: Auxiliary
    #: The clip's exact size in bytes (optional). Over the upload limit it is refused at once with 413. With an S3-compatible blob store it is bound into the presigned upload URL: the PUT must then carry exactly this Content-Length (returned in `headers`). Without it, the size limit is checked when the upload is confirmed.
    sizeBytes: int


class _RegisterRunnerBodyRequired(TypedDict):
    #: A label for the runner (1–100 characters, no control characters), e.g. the host name.
    name: str
    #: The model ids this runner generates clips for. An id that names neither a global model nor one of the caller's private models becomes a private model of the caller (name = id), which no other user sees.
    models: List[str]


class RegisterRunnerBody(_RegisterRunnerBodyRequired, total=False):
    #: Tasks the runner may hold at once (default 1); claims beyond it wait.
    maxConcurrency: int
    #: The runner software's version, for operators.
    version: str


class Runner(TypedDict):
    """A registered runner: a process that generates clips for Bench runs."""
    id: str
    name: str
    #: Model ids it serves.
    models: List[str]
    maxConcurrency: int
    version: Optional[str]
    #: ISO 8601, UTC.
    createdAt: str
    #: Last register, claim, heartbeat, upload-url or complete.
    lastSeenAt: Optional[str]
    #: Seen within the last 60 seconds (2 × the longest claim wait).
    online: bool


class RunnerList(TypedDict):
    """The caller's runners, oldest first."""
    items: List[Runner]


class _RunnerLogLineRequired(TypedDict):
    message: str


class RunnerLogLine(_RunnerLogLineRequired, total=False):
    #: When it happened (default: now).
    at: str
    level: Union[Literal["info"], Literal["warn"], Literal["error"]]


class RunnerTaskError(TypedDict):
    code: str
    detail: str


class RunnerTask(TypedDict):
    """A generation task: one clip (prompt × sample) of a Bench run."""
    id: str
    runId: str
    #: The model to generate with.
    modelId: str
    #: The text prompt to generate the clip from.
    prompt: str
    #: Auxiliary prompt info of the suite prompt (object, color, …); {} when none.
    auxiliary: Dict[str, str]
    #: The run's dimensions the clip will be scored on.
    dimensions: List[str]
    #: Which sample of the prompt this is (0-based).
    sampleIndex: int
    #: The random seed to generate with (recorded with the run).
    seed: int
    #: This attempt, from 1.
    attempt: int
    maxAttempts: int
    #: claimed while leased; evaluating/done once completed; pending when re-queued; failed; cancelled.
    state: Literal["pending", "claimed", "uploaded", "evaluating", "done", "failed", "cancelled"]
    #: The lease while the task is claimed; null otherwise.
    lease: Optional[Lease]
    #: The last failure of the task, if any.
    error: Optional[RunnerTaskError]


class _RunnerUploadUrlBodyRequired(TypedDict):
    #: The lease id from the claim.
    leaseId: str
    #: Name of the clip file: no path separators, no "..", no control characters.
    fileName: str
    #: Media type of the clip; one of video/mp4, video/webm, video/quicktime, video/x-msvideo, video/x-matroska, video/mpeg, video/x-m4v, image/gif.
    contentType: str


class RunnerUploadUrlBody(_RunnerUploadUrlBodyRequired, total=False):
    #: The clip's exact size in bytes (optional). Over the upload limit it is refused at once with 413. With an S3-compatible blob store it is bound into the presigned upload URL: the PUT must then carry exactly this Content-Length (returned in `headers`). Without it, the size limit is checked when the upload is confirmed.
    sizeBytes: int


class ScoreModelsItem(TypedDict):
    id: str
    revision: str


class Score(TypedDict):
    dimension: str
    #: The per-clip value in the dimension's range.
    value: float
    #: `vbench` (VBench protocol and model) or `lite` (model-free).
    method: str
    methodVersion: str
    frames: FramesUsed
    models: List[ScoreModelsItem]
    elapsedMs: float


class ScoreSession(TypedDict):
    #: The run id used in paths; a reset gives a new one.
    runId: str
    kind: Literal["score"]
    createdAt: str
    videos: List[Video]


class _ScoreUploadUrlBodyRequired(TypedDict):
    #: Name of the clip file: 1-255 characters, no path separators, no "..", no control characters.
    fileName: str
    #: Media type of the clip; one of video/mp4, video/webm, video/quicktime, video/x-msvideo, video/x-matroska, video/mpeg, video/x-m4v, image/gif.
    contentType: str
    #: The text prompt the clip was made from.
    prompt: str


class ScoreUploadUrlBody(_ScoreUploadUrlBodyRequired, total=False):
    auxiliary: Auxiliary
    #: The clip's exact size in bytes (optional). Over the upload limit it is refused at once with 413. With an S3-compatible blob store it is bound into the presigned upload URL: the PUT must then carry exactly this Content-Length (returned in `headers`). Without it, the size limit is checked when the upload is confirmed.
    sizeBytes: int


class UploadPutResponse(TypedDict):
    videoId: str
    state: Literal["uploaded"]
    sizeBytes: int


class UploadUrlResponse(TypedDict):
    videoId: str
    #: PUT the raw bytes here, with exactly the headers below and no others that authenticate (no API key: the URL is its own credential). With the default local blob store the URL is the service's own upload route and carries a signed single-use token; it is minted under VESTA_PUBLIC_URL, or, where that is unset, under the origin this request was sent to (so a page loaded from http://127.0.0.1:8080 uploads there), whose Host must name this machine (loopback, the listen address or an address of the machine, its host name) or be listed in VESTA_ALLOWED_HOSTS, else 400 `validation_failed`. With an S3-compatible blob store (VESTA_BLOB_STORE=s3) it is a presigned PUT straight to the bucket: the bytes never pass through the API, Content-Type (and Content-Length when sizeBytes was declared) are part of its signature, the store itself answers the PUT (its own XML errors, e.g. 403 SignatureDoesNotMatch for another type or size), and the URL can be used again until it expires; the clip is only taken once confirm-upload checked it.
    uploadUrl: str
    method: Literal["PUT"]
    #: Headers to send with the PUT, exactly as given.
    headers: Dict[str, Any]
    expiresAt: str
    #: Largest body the PUT accepts (the declared size where the store binds it).
    maxBytes: int


class Video(TypedDict):
    videoId: str
    fileName: str
    contentType: str
    prompt: Optional[str]
    auxiliary: Optional[Auxiliary]
    state: VideoState
    error: Optional[VideoError]
    sizeBytes: Optional[int]
    #: Dimensions scheduled for scoring (set at confirm).
    dimensions: List[str]
    scores: List[Score]
    #: Dimensions that could not be scored, with the engine code.
    failures: List[DimensionFailure]
    createdAt: str
    uploadedAt: Optional[str]
    confirmedAt: Optional[str]
    scoredAt: Optional[str]


class VideoError(TypedDict):
    #: An engine error code such as not_a_video, truncated, unsupported_codec.
    code: str
    detail: str


class CompleteRunnerTaskResponse(TypedDict):
    task: RunnerTask
    video: Video


class GetSetupStateResponse(TypedDict):
    #: True while no account exists: POST /api/v1/auth/setup creates the first admin.
    setupRequired: bool


class SetupFirstAdminResponseUser(TypedDict):
    id: str
    #: User name (owner of runs and keys).
    name: str
    email: str
    #: `admin` or `user`.
    role: Union[Literal["admin"], Literal["user"]]


class SetupFirstAdminResponse(TypedDict):
    """A signed-in dashboard session; the `vesta_session` cookie is set (HttpOnly, SameSite=Lax)."""
    user: SetupFirstAdminResponseUser
    #: Send it as `X-CSRF-Token` on every state-changing request made with the session cookie.
    csrfToken: str
    #: When the session ends unless used (idle or absolute expiry).
    expiresAt: str


class SignInResponseUser(TypedDict):
    id: str
    #: User name (owner of runs and keys).
    name: str
    email: str
    #: `admin` or `user`.
    role: Union[Literal["admin"], Literal["user"]]


class SignInResponse(TypedDict):
    """A signed-in dashboard session; the `vesta_session` cookie is set (HttpOnly, SameSite=Lax)."""
    user: SignInResponseUser
    #: Send it as `X-CSRF-Token` on every state-changing request made with the session cookie.
    csrfToken: str
    #: When the session ends unless used (idle or absolute expiry).
    expiresAt: str


class AcceptInviteResponseUser(TypedDict):
    id: str
    #: User name (owner of runs and keys).
    name: str
    email: str
    #: `admin` or `user`.
    role: Union[Literal["admin"], Literal["user"]]


class AcceptInviteResponse(TypedDict):
    """A signed-in dashboard session; the `vesta_session` cookie is set (HttpOnly, SameSite=Lax)."""
    user: AcceptInviteResponseUser
    #: Send it as `X-CSRF-Token` on every state-changing request made with the session cookie.
    csrfToken: str
    #: When the session ends unless used (idle or absolute expiry).
    expiresAt: str


class GetCurrentSessionResponseUser(TypedDict):
    id: str
    #: User name (owner of runs and keys).
    name: str
    email: str
    #: `admin` or `user`.
    role: Union[Literal["admin"], Literal["user"]]


class GetCurrentSessionResponse(TypedDict):
    """A signed-in dashboard session; the `vesta_session` cookie is set (HttpOnly, SameSite=Lax)."""
    user: GetCurrentSessionResponseUser
    #: Send it as `X-CSRF-Token` on every state-changing request made with the session cookie.
    csrfToken: str
    #: When the session ends unless used (idle or absolute expiry).
    expiresAt: str


class ListWebSessionsResponseItemsItem(TypedDict):
    id: str
    createdAt: str
    lastSeenAt: str
    expiresAt: str
    userAgent: Optional[str]
    ip: Optional[str]
    #: The session making this request.
    current: bool


class ListWebSessionsResponse(TypedDict):
    items: List[ListWebSessionsResponseItemsItem]


class ListApiKeysResponseItemsItem(TypedDict):
    id: str
    #: Null for keys made by `vesta admin create-key`.
    name: Optional[str]
    #: The first 12 characters of the key.
    prefix: str
    createdAt: str
    #: Last successful use, to within about a minute (written in batches).
    lastUsedAt: Optional[str]
    expiresAt: Optional[str]
    expired: bool


class ListApiKeysResponse(TypedDict):
    items: List[ListApiKeysResponseItemsItem]


class CreateApiKeyResponseApiKey(TypedDict):
    id: str
    #: Null for keys made by `vesta admin create-key`.
    name: Optional[str]
    #: The first 12 characters of the key.
    prefix: str
    createdAt: str
    #: Last successful use, to within about a minute (written in batches).
    lastUsedAt: Optional[str]
    expiresAt: Optional[str]
    expired: bool


class CreateApiKeyResponse(TypedDict):
    #: The whole key. Shown once: only a hash is stored.
    key: str
    apiKey: CreateApiKeyResponseApiKey


class ListUsersResponseItemsItem(TypedDict):
    id: str
    name: str
    email: Optional[str]
    #: `admin` or `user`.
    role: Union[Literal["admin"], Literal["user"]]
    createdAt: str
    disabledAt: Optional[str]


class ListUsersResponse(TypedDict):
    items: List[ListUsersResponseItemsItem]


class DisableUserResponse(TypedDict):
    id: str
    name: str
    email: Optional[str]
    #: `admin` or `user`.
    role: Union[Literal["admin"], Literal["user"]]
    createdAt: str
    disabledAt: Optional[str]


class ListInvitesResponseItemsItem(TypedDict):
    id: str
    email: str
    #: `admin` or `user`.
    role: Union[Literal["admin"], Literal["user"]]
    createdAt: str
    expiresAt: str
    usedAt: Optional[str]
    revokedAt: Optional[str]


class ListInvitesResponse(TypedDict):
    items: List[ListInvitesResponseItemsItem]


class CreateInviteResponseInvite(TypedDict):
    id: str
    email: str
    #: `admin` or `user`.
    role: Union[Literal["admin"], Literal["user"]]
    createdAt: str
    expiresAt: str
    usedAt: Optional[str]
    revokedAt: Optional[str]


class CreateInviteResponse(TypedDict):
    invite: CreateInviteResponseInvite
    #: Single-use token; shown once (only a hash is stored).
    token: str
    #: The invite link to send: `<base>/dashboard/invite#token=…`, the base VESTA_PUBLIC_URL or, where that is unset, the origin this request was sent to (its Host must name this machine or be listed in VESTA_ALLOWED_HOSTS, else 400 `validation_failed` and no invite is made).
    url: str


# One exception class per code of the catalogue; ApiError for a code this release does not know.
class ValidationFailedError(ApiError):
    """`validation_failed`."""


class InvalidFieldError(ApiError):
    """`invalid_field`."""


class RankPromptMismatchError(ApiError):
    """`RANK_PROMPT_MISMATCH`."""


class InvalidVideoError(ApiError):
    """`invalid_video`."""


class UnauthorizedError(ApiError):
    """`unauthorized`."""


class ForbiddenError(ApiError):
    """`forbidden`."""


class NotFoundError(ApiError):
    """`not_found`."""


class RequestTimeoutError(ApiError):
    """`request_timeout`."""


class ConflictError(ApiError):
    """`conflict`."""


class IdempotencyMismatchError(ApiError):
    """`idempotency_mismatch`."""


class PayloadTooLargeError(ApiError):
    """`payload_too_large`."""


class UriTooLongError(ApiError):
    """`uri_too_long`."""


class UnsupportedMediaTypeError(ApiError):
    """`unsupported_media_type`."""


class RangeNotSatisfiableError(ApiError):
    """`range_not_satisfiable`."""


class RateLimitedError(ApiError):
    """`rate_limited`."""


class HeadersTooLargeError(ApiError):
    """`headers_too_large`."""


class InternalError(ApiError):
    """`internal_error`."""


class UpstreamUnavailableError(ApiError):
    """`upstream_unavailable`."""


ERROR_CLASSES: Dict[str, Type[ApiError]] = {
    "validation_failed": ValidationFailedError,
    "invalid_field": InvalidFieldError,
    "RANK_PROMPT_MISMATCH": RankPromptMismatchError,
    "invalid_video": InvalidVideoError,
    "unauthorized": UnauthorizedError,
    "forbidden": ForbiddenError,
    "not_found": NotFoundError,
    "request_timeout": RequestTimeoutError,
    "conflict": ConflictError,
    "idempotency_mismatch": IdempotencyMismatchError,
    "payload_too_large": PayloadTooLargeError,
    "uri_too_long": UriTooLongError,
    "unsupported_media_type": UnsupportedMediaTypeError,
    "range_not_satisfiable": RangeNotSatisfiableError,
    "rate_limited": RateLimitedError,
    "headers_too_large": HeadersTooLargeError,
    "internal_error": InternalError,
    "upstream_unavailable": UpstreamUnavailableError,
}
