"""Types generated from openapi/openapi.json by python/scripts/generate_types.py.

Do not edit: run `npm run generate:sdk` after the API changes (a test fails on drift). Every
object schema of the API is a read-only class with snake_case attributes (``to_dict()`` gives
the API's own JSON back); every code of the error catalogue an exception class under its
status family.
"""
# fmt: off
from __future__ import annotations

from typing import Any, ClassVar, Dict, List, Literal, Optional, Tuple, Type, Union

from ._exceptions import ApiError, AuthenticationError, BadRequestError, ConflictError, InternalServerError, NotFoundError, PermissionDeniedError, RateLimitError
from ._object import ApiObject

__all__ = ["API_VERSION", "ERROR_CLASSES", "ERROR_CLASS_NAMES", "ERROR_CODES", "ERROR_STATUSES", "ErrorCode", "OPERATIONS", "BenchStatus", "VideoState", "AcceptInviteResponse", "AcceptInviteResponseUser", "AddedJudge", "AddedJudgeInvite", "Auxiliary", "BenchComparison", "BenchComparisonComparisonsItem", "BenchComparisonComparisonsItemPromptsItem", "BenchComparisonComparisonsItemPromptsItemBaselineClipsItem", "BenchComparisonComparisonsItemPromptsItemCandidateClipsItem", "BenchComparisonComparisonsItemPromptsItemDimensionsItem", "BenchComparisonComparisonsItemRowsItem", "BenchComparisonComparisonsItemUnmatchedClips", "BenchComparisonCorrection", "BenchComparisonGate", "BenchComparisonGateRowsItem", "BenchComparisonNotComparableItem", "BenchComparisonRunsItem", "BenchLogLine", "BenchLogPage", "BenchRun", "BenchRunError", "BenchRunPage", "BenchRunProgress", "BenchScorecard", "BenchScorecardAggregatesItem", "BenchScorecardDimensionsItem", "BenchVideo", "BenchVideoError", "BenchVideoFailuresItem", "BenchVideoPage", "BenchVideoScoresItem", "ClaimResponse", "CompleteRunnerTaskResponse", "CreateApiKeyResponse", "CreateApiKeyResponseApiKey", "CreateInviteResponse", "CreateInviteResponseInvite", "Dimension", "DimensionFailure", "DimensionList", "DimensionMethodsItem", "DimensionMethodsItemRequires", "DimensionNormalisation", "DimensionPrompts", "DimensionPromptsPromptsItem", "DimensionRange", "DisableUserResponse", "FailResponse", "FramesUsed", "FramesUsedSampling", "GetCurrentSessionResponse", "GetCurrentSessionResponseUser", "GetSetupStateResponse", "HeartbeatResponse", "Judge", "JudgeList", "JudgingAgreement", "JudgingAgreementDimensionsItem", "JudgingAgreementFitted", "JudgingCampaign", "JudgingCampaignItemsItem", "JudgingCampaignList", "JudgingCampaignProgress", "JudgingCampaignQuestion", "JudgingCampaignSource", "JudgingOffer", "JudgingOfferLeft", "JudgingOfferRight", "JudgingRatings", "JudgingRatingsItemsItem", "JudgingRatingsJudgesItem", "JudgingRatingsWinMatrixItem", "JudgingVote", "Leaderboard", "LeaderboardEntry", "Lease", "ListApiKeysResponse", "ListApiKeysResponseItemsItem", "ListInvitesResponse", "ListInvitesResponseItemsItem", "ListUsersResponse", "ListUsersResponseItemsItem", "ListWebSessionsResponse", "ListWebSessionsResponseItemsItem", "Model", "ModelBaseline", "ModelList", "ModelRunnersItem", "NextJudgingPairs", "PromptNotice", "RankSession", "Runner", "RunnerList", "RunnerLogLine", "RunnerTask", "RunnerTaskError", "Score", "ScoreModelsItem", "ScoreSession", "SetupFirstAdminResponse", "SetupFirstAdminResponseUser", "SignInResponse", "SignInResponseUser", "UnscoredDimension", "UploadPutResponse", "UploadUrlResponse", "Video", "VideoError", "ValidationFailedError", "InvalidFieldError", "RankPromptMismatchError", "InvalidVideoError", "UnauthorizedError", "ForbiddenError", "RequestTimeoutError", "IdempotencyMismatchError", "NoScoredClipsError", "JudgingClosedError", "PairNotOfferedError", "JudgeNotInvitedError", "AlreadyVotedError", "PayloadTooLargeError", "UriTooLongError", "UnsupportedMediaTypeError", "RangeNotSatisfiableError", "RateLimitedError", "HeadersTooLargeError", "InternalError", "UpstreamUnavailableError"]

#: The error classes of the catalogue's codes, re-exported by the vesta package.
ERROR_CLASS_NAMES = ("ValidationFailedError", "InvalidFieldError", "RankPromptMismatchError", "InvalidVideoError", "UnauthorizedError", "ForbiddenError", "NotFoundError", "RequestTimeoutError", "ConflictError", "IdempotencyMismatchError", "NoScoredClipsError", "JudgingClosedError", "PairNotOfferedError", "JudgeNotInvitedError", "AlreadyVotedError", "PayloadTooLargeError", "UriTooLongError", "UnsupportedMediaTypeError", "RangeNotSatisfiableError", "RateLimitedError", "HeadersTooLargeError", "InternalError", "UpstreamUnavailableError", )

API_VERSION = "1.0.0"

#: Every error code of the server's catalogue (ErrorBody.code).
ErrorCode = Literal["validation_failed", "invalid_field", "RANK_PROMPT_MISMATCH", "invalid_video", "unauthorized", "forbidden", "not_found", "request_timeout", "conflict", "idempotency_mismatch", "no_scored_clips", "judging_closed", "pair_not_offered", "judge_not_invited", "already_voted", "payload_too_large", "uri_too_long", "unsupported_media_type", "range_not_satisfiable", "rate_limited", "headers_too_large", "internal_error", "upstream_unavailable"]
ERROR_CODES: Tuple[str, ...] = ("validation_failed", "invalid_field", "RANK_PROMPT_MISMATCH", "invalid_video", "unauthorized", "forbidden", "not_found", "request_timeout", "conflict", "idempotency_mismatch", "no_scored_clips", "judging_closed", "pair_not_offered", "judge_not_invited", "already_voted", "payload_too_large", "uri_too_long", "unsupported_media_type", "range_not_satisfiable", "rate_limited", "headers_too_large", "internal_error", "upstream_unavailable", )
#: The HTTP status of each code (packages/server/src/errors.ts).
ERROR_STATUSES: Dict[str, int] = {"validation_failed": 400, "invalid_field": 400, "RANK_PROMPT_MISMATCH": 400, "invalid_video": 400, "unauthorized": 401, "forbidden": 403, "not_found": 404, "request_timeout": 408, "conflict": 409, "idempotency_mismatch": 409, "no_scored_clips": 409, "judging_closed": 409, "pair_not_offered": 409, "judge_not_invited": 409, "already_voted": 409, "payload_too_large": 413, "uri_too_long": 414, "unsupported_media_type": 415, "range_not_satisfiable": 416, "rate_limited": 429, "headers_too_large": 431, "internal_error": 500, "upstream_unavailable": 503}

#: operationId -> (HTTP method, path) of every operation.
OPERATIONS: Dict[str, Tuple[str, str]] = {
    "acceptInvite": ("POST", "/api/v1/auth/accept-invite"),
    "addJudgingJudge": ("POST", "/api/v1/judging/campaigns/{id}/judges"),
    "cancelBenchRun": ("POST", "/api/v1/bench/{id}/cancel"),
    "castJudgingVote": ("POST", "/api/v1/judging/campaigns/{id}/votes"),
    "changePassword": ("POST", "/api/v1/account/password"),
    "claimRunnerTask": ("POST", "/api/v1/runners/{id}/claim"),
    "clearModelBaseline": ("DELETE", "/api/v1/models/{id}/baseline"),
    "closeJudgingCampaign": ("POST", "/api/v1/judging/campaigns/{id}/close"),
    "compareBenchRuns": ("GET", "/api/v1/bench/compare"),
    "completeRunnerTask": ("POST", "/api/v1/runner-tasks/{taskId}/complete"),
    "confirmRankUpload": ("POST", "/api/v1/rank/{id}/videos/confirm-upload"),
    "confirmScoreUpload": ("POST", "/api/v1/score/{id}/videos/confirm-upload"),
    "createApiKey": ("POST", "/api/v1/api-keys"),
    "createBenchRun": ("POST", "/api/v1/bench"),
    "createInvite": ("POST", "/api/v1/invites"),
    "createJudgingCampaign": ("POST", "/api/v1/judging/campaigns"),
    "createRankUploadUrl": ("POST", "/api/v1/rank/{id}/videos/upload-url"),
    "createRunnerTaskUploadUrl": ("POST", "/api/v1/runner-tasks/{taskId}/upload-url"),
    "createScoreUploadUrl": ("POST", "/api/v1/score/{id}/videos/upload-url"),
    "deleteBenchRun": ("DELETE", "/api/v1/bench/{id}"),
    "deleteJudgingCampaign": ("DELETE", "/api/v1/judging/campaigns/{id}"),
    "deregisterRunner": ("DELETE", "/api/v1/runners/{id}"),
    "disableUser": ("POST", "/api/v1/users/{id}/disable"),
    "exportJudgingVotes": ("GET", "/api/v1/judging/campaigns/{id}/export"),
    "failRunnerTask": ("POST", "/api/v1/runner-tasks/{taskId}/fail"),
    "getBenchCsv": ("GET", "/api/v1/bench/{id}/csv"),
    "getBenchLogs": ("GET", "/api/v1/bench/{id}/logs"),
    "getBenchRun": ("GET", "/api/v1/bench/{id}"),
    "getBenchScorecard": ("GET", "/api/v1/bench/{id}/scorecard"),
    "getCurrentSession": ("GET", "/api/v1/auth/session"),
    "getJudgingAgreement": ("GET", "/api/v1/judging/campaigns/{id}/agreement"),
    "getJudgingCampaign": ("GET", "/api/v1/judging/campaigns/{id}"),
    "getJudgingClipContent": ("GET", "/api/v1/judging/campaigns/{id}/clips/{clipId}/content"),
    "getJudgingRatings": ("GET", "/api/v1/judging/campaigns/{id}/ratings"),
    "getModelBaseline": ("GET", "/api/v1/models/{id}/baseline"),
    "getNextJudgingPairs": ("GET", "/api/v1/judging/campaigns/{id}/next-pairs"),
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
    "listJudgingCampaigns": ("GET", "/api/v1/judging/campaigns"),
    "listJudgingJudges": ("GET", "/api/v1/judging/campaigns/{id}/judges"),
    "listModels": ("GET", "/api/v1/models"),
    "listRunners": ("GET", "/api/v1/runners"),
    "listUsers": ("GET", "/api/v1/users"),
    "listWebSessions": ("GET", "/api/v1/account/sessions"),
    "putUpload": ("PUT", "/api/v1/uploads/{videoId}"),
    "registerRunner": ("POST", "/api/v1/runners"),
    "removeJudgingJudge": ("DELETE", "/api/v1/judging/campaigns/{id}/judges/{judgeId}"),
    "removeRankVideo": ("DELETE", "/api/v1/rank/{id}/videos/{videoId}"),
    "removeScoreVideo": ("DELETE", "/api/v1/score/{id}/videos/{videoId}"),
    "resetRankSession": ("POST", "/api/v1/rank/reset"),
    "resetScoreSession": ("POST", "/api/v1/score/reset"),
    "revealJudgingCampaign": ("POST", "/api/v1/judging/campaigns/{id}/reveal"),
    "revokeApiKey": ("DELETE", "/api/v1/api-keys/{id}"),
    "revokeInvite": ("DELETE", "/api/v1/invites/{id}"),
    "revokeWebSession": ("DELETE", "/api/v1/account/sessions/{id}"),
    "setModelBaseline": ("PUT", "/api/v1/models/{id}/baseline"),
    "setupFirstAdmin": ("POST", "/api/v1/auth/setup"),
    "signIn": ("POST", "/api/v1/auth/sign-in"),
    "signOut": ("POST", "/api/v1/auth/sign-out"),
}

BenchStatus = Literal["queued", "generating", "evaluating", "completed", "failed", "cancelled"]
VideoState = Union[Literal["awaiting_upload"], Literal["uploaded"], Literal["queued"], Literal["scoring"], Literal["scored"], Literal["failed"]]


class AddedJudgeInvite(ApiObject):
    """`AddedJudgeInvite` of the API."""

    __slots__ = ()
    _FIELDS: ClassVar[Tuple[str, ...]] = ("url", "expires_at", )

    @property
    def url(self) -> str:
        """The single-use invite link (shown once)."""
        return self._data["url"]

    @property
    def expires_at(self) -> str:
        """When the link stops working."""
        return self._data["expiresAt"]


class AddedJudge(ApiObject):
    """`AddedJudge` of the API."""

    __slots__ = ()
    _FIELDS: ClassVar[Tuple[str, ...]] = ("judge", "invite", )

    @property
    def judge(self) -> Judge:
        return Judge(self._data["judge"])

    @property
    def invite(self) -> Optional[AddedJudgeInvite]:
        """An invite made for an email with no account (only when the caller is an admin; otherwise an admin must invite that email, and the judge becomes active once the account exists). Null for an existing user."""
        v = self._data["invite"]
        return None if v is None else AddedJudgeInvite(v)


class Auxiliary(ApiObject):
    """Optional auxiliary prompt info for VBench's semantic dimensions (VBench's `auxiliary_info`): object, color, relationship, scene, appearance_style, action; object_a/object_b for multiple_objects."""

    __slots__ = ()
    _FIELDS: ClassVar[Tuple[str, ...]] = ("object", "color", "relationship", "scene", "appearance_style", "action", "object_a", "object_b", )

    @property
    def object(self) -> Optional[str]:
        return self._data.get("object")

    @property
    def color(self) -> Optional[str]:
        return self._data.get("color")

    @property
    def relationship(self) -> Optional[str]:
        return self._data.get("relationship")

    @property
    def scene(self) -> Optional[str]:
        return self._data.get("scene")

    @property
    def appearance_style(self) -> Optional[str]:
        return self._data.get("appearance_style")

    @property
    def action(self) -> Optional[str]:
        return self._data.get("action")

    @property
    def object_a(self) -> Optional[str]:
        return self._data.get("object_a")

    @property
    def object_b(self) -> Optional[str]:
        return self._data.get("object_b")


class BenchComparisonCorrection(ApiObject):
    """`BenchComparisonCorrection` of the API."""

    __slots__ = ()
    _FIELDS: ClassVar[Tuple[str, ...]] = ("method", "statement", )

    @property
    def method(self) -> Union[Literal["holm"], Literal["none"]]:
        return self._data["method"]

    @property
    def statement(self) -> str:
        return self._data["statement"]


class BenchComparisonRunsItem(ApiObject):
    """`BenchComparisonRunsItem` of the API."""

    __slots__ = ()
    _FIELDS: ClassVar[Tuple[str, ...]] = ("id", "name", "model_id", "status", "suite_version", "clips_scored", "clips_total", "label", )

    @property
    def id(self) -> str:
        return self._data["id"]

    @property
    def name(self) -> str:
        return self._data["name"]

    @property
    def model_id(self) -> str:
        return self._data["model_id"]

    @property
    def status(self) -> str:
        return self._data["status"]

    @property
    def suite_version(self) -> Optional[str]:
        return self._data["suite_version"]

    @property
    def clips_scored(self) -> int:
        return self._data["clips_scored"]

    @property
    def clips_total(self) -> int:
        return self._data["clips_total"]

    @property
    def label(self) -> str:
        """`completed`, or how far a run still going is, e.g. `evaluating: 340 of 1000 clips scored`."""
        return self._data["label"]


class BenchComparisonNotComparableItem(ApiObject):
    """`BenchComparisonNotComparableItem` of the API."""

    __slots__ = ()
    _FIELDS: ClassVar[Tuple[str, ...]] = ("dimension", "reason", )

    @property
    def dimension(self) -> str:
        return self._data["dimension"]

    @property
    def reason(self) -> str:
        return self._data["reason"]


class BenchComparisonComparisonsItemUnmatchedClips(ApiObject):
    """Paired: clips left out because the other run has no clip of the same prompt and sample."""

    __slots__ = ()
    _FIELDS: ClassVar[Tuple[str, ...]] = ("baseline", "candidate", )

    @property
    def baseline(self) -> int:
        return self._data["baseline"]

    @property
    def candidate(self) -> int:
        return self._data["candidate"]


class BenchComparisonComparisonsItemRowsItem(ApiObject):
    """`BenchComparisonComparisonsItemRowsItem` of the API."""

    __slots__ = ()
    _FIELDS: ClassVar[Tuple[str, ...]] = ("name", "kind", "higher_is_better", "baseline", "candidate", "delta", "ci95_low", "ci95_high", "p_value", "p_adjusted", "significant", "pairs", "baseline_clips", "candidate_clips", "prompts", "partial", )

    @property
    def name(self) -> str:
        """A dimension id, or Quality, Semantic, Total (recomputed over the compared dimensions)."""
        return self._data["name"]

    @property
    def kind(self) -> Union[Literal["dimension"], Literal["aggregate"]]:
        return self._data["kind"]

    @property
    def higher_is_better(self) -> bool:
        return self._data["higher_is_better"]

    @property
    def baseline(self) -> float:
        """The baseline's mean over the clips compared (the matched pairs when paired)."""
        return float(self._data["baseline"])

    @property
    def candidate(self) -> float:
        """The candidate's mean over the clips compared."""
        return float(self._data["candidate"])

    @property
    def delta(self) -> float:
        """candidate − baseline."""
        return float(self._data["delta"])

    @property
    def ci95_low(self) -> Optional[float]:
        """Lower end of the 95 % interval of delta (paired or unpaired bootstrap over prompts); null when a clip group has one prompt."""
        v = self._data["ci95_low"]
        return None if v is None else float(v)

    @property
    def ci95_high(self) -> Optional[float]:
        """Upper end of the 95 % interval of delta."""
        v = self._data["ci95_high"]
        return None if v is None else float(v)

    @property
    def p_value(self) -> float:
        """Two-sided permutation p-value of "no difference" (sign flips of prompts when paired, relabelled prompts when unpaired; exact when every pattern fits in the resamples, else (1 + hits)/(B + 1))."""
        return float(self._data["p_value"])

    @property
    def p_adjusted(self) -> float:
        """Holm-adjusted across the comparisons with the baseline (equal to p_value with two runs)."""
        return float(self._data["p_adjusted"])

    @property
    def significant(self) -> bool:
        """The interval leaves out 0 and p_adjusted < 0.05."""
        return self._data["significant"]

    @property
    def pairs(self) -> Optional[int]:
        """Matched (prompt, sample) pairs when paired; null when unpaired."""
        return self._data["pairs"]

    @property
    def baseline_clips(self) -> int:
        return self._data["baseline_clips"]

    @property
    def candidate_clips(self) -> int:
        return self._data["candidate_clips"]

    @property
    def prompts(self) -> int:
        """Prompts behind the row (the resampled units)."""
        return self._data["prompts"]

    @property
    def partial(self) -> bool:
        """Aggregates: some dimension of their VBench group is not among those compared."""
        return self._data["partial"]


class BenchComparisonComparisonsItemPromptsItemDimensionsItem(ApiObject):
    """`BenchComparisonComparisonsItemPromptsItemDimensionsItem` of the API."""

    __slots__ = ()
    _FIELDS: ClassVar[Tuple[str, ...]] = ("dimension", "baseline", "candidate", "delta", )

    @property
    def dimension(self) -> str:
        return self._data["dimension"]

    @property
    def baseline(self) -> float:
        return float(self._data["baseline"])

    @property
    def candidate(self) -> float:
        return float(self._data["candidate"])

    @property
    def delta(self) -> float:
        return float(self._data["delta"])


class BenchComparisonComparisonsItemPromptsItemBaselineClipsItem(ApiObject):
    """`BenchComparisonComparisonsItemPromptsItemBaselineClipsItem` of the API."""

    __slots__ = ()
    _FIELDS: ClassVar[Tuple[str, ...]] = ("sample_index", "video_id", )

    @property
    def sample_index(self) -> int:
        return self._data["sample_index"]

    @property
    def video_id(self) -> str:
        return self._data["video_id"]


class BenchComparisonComparisonsItemPromptsItemCandidateClipsItem(ApiObject):
    """`BenchComparisonComparisonsItemPromptsItemCandidateClipsItem` of the API."""

    __slots__ = ()
    _FIELDS: ClassVar[Tuple[str, ...]] = ("sample_index", "video_id", )

    @property
    def sample_index(self) -> int:
        return self._data["sample_index"]

    @property
    def video_id(self) -> str:
        return self._data["video_id"]


class BenchComparisonComparisonsItemPromptsItem(ApiObject):
    """`BenchComparisonComparisonsItemPromptsItem` of the API."""

    __slots__ = ()
    _FIELDS: ClassVar[Tuple[str, ...]] = ("prompt_id", "prompt", "clip_group", "delta", "dimensions", "baseline_clips", "candidate_clips", )

    @property
    def prompt_id(self) -> str:
        return self._data["prompt_id"]

    @property
    def prompt(self) -> str:
        return self._data["prompt"]

    @property
    def clip_group(self) -> str:
        return self._data["clip_group"]

    @property
    def delta(self) -> float:
        """The prompt's dimension deltas on the leaderboard's scale (weight/(max − min) each, averaged by weight; a lower-is-better dimension turned round): what the list is sorted by, largest drop first."""
        return float(self._data["delta"])

    @property
    def dimensions(self) -> List[BenchComparisonComparisonsItemPromptsItemDimensionsItem]:
        return [BenchComparisonComparisonsItemPromptsItemDimensionsItem(x) for x in self._data["dimensions"]]

    @property
    def baseline_clips(self) -> List[BenchComparisonComparisonsItemPromptsItemBaselineClipsItem]:
        """The baseline's clips of this prompt (GET /api/v1/videos/{videoId}/content plays one)."""
        return [BenchComparisonComparisonsItemPromptsItemBaselineClipsItem(x) for x in self._data["baseline_clips"]]

    @property
    def candidate_clips(self) -> List[BenchComparisonComparisonsItemPromptsItemCandidateClipsItem]:
        return [BenchComparisonComparisonsItemPromptsItemCandidateClipsItem(x) for x in self._data["candidate_clips"]]


class BenchComparisonComparisonsItem(ApiObject):
    """`BenchComparisonComparisonsItem` of the API."""

    __slots__ = ()
    _FIELDS: ClassVar[Tuple[str, ...]] = ("baseline_id", "candidate_id", "mode", "mode_reason", "unmatched_clips", "rows", "prompts", )

    @property
    def baseline_id(self) -> str:
        return self._data["baseline_id"]

    @property
    def candidate_id(self) -> str:
        return self._data["candidate_id"]

    @property
    def mode(self) -> Union[Literal["paired"], Literal["unpaired"]]:
        """paired: both runs were planned from one prompt suite version, so clips are matched on (prompt, sample index) and the difference is taken pair by pair; unpaired: different suites, each run resampled on its own."""
        return self._data["mode"]

    @property
    def mode_reason(self) -> str:
        return self._data["mode_reason"]

    @property
    def unmatched_clips(self) -> BenchComparisonComparisonsItemUnmatchedClips:
        """Paired: clips left out because the other run has no clip of the same prompt and sample."""
        return BenchComparisonComparisonsItemUnmatchedClips(self._data["unmatched_clips"])

    @property
    def rows(self) -> List[BenchComparisonComparisonsItemRowsItem]:
        """The compared dimensions in VBench's order, then Quality, Semantic, Total."""
        return [BenchComparisonComparisonsItemRowsItem(x) for x in self._data["rows"]]

    @property
    def prompts(self) -> List[BenchComparisonComparisonsItemPromptsItem]:
        """Per prompt, largest drop first (paired: by prompt; unpaired: prompts of the same text in both runs)."""
        return [BenchComparisonComparisonsItemPromptsItem(x) for x in self._data["prompts"]]


class BenchComparisonGateRowsItem(ApiObject):
    """`BenchComparisonGateRowsItem` of the API."""

    __slots__ = ()
    _FIELDS: ClassVar[Tuple[str, ...]] = ("name", "delta", "ci95_low", "ci95_high", "p_value", "p_adjusted", "regressed", )

    @property
    def name(self) -> str:
        return self._data["name"]

    @property
    def delta(self) -> float:
        return float(self._data["delta"])

    @property
    def ci95_low(self) -> Optional[float]:
        """As in rows."""
        v = self._data["ci95_low"]
        return None if v is None else float(v)

    @property
    def ci95_high(self) -> Optional[float]:
        """As in rows."""
        v = self._data["ci95_high"]
        return None if v is None else float(v)

    @property
    def p_value(self) -> float:
        """One-sided p of "candidate − baseline ≥ −DELTA"."""
        return float(self._data["p_value"])

    @property
    def p_adjusted(self) -> float:
        """Holm-adjusted over the gated rows."""
        return float(self._data["p_adjusted"])

    @property
    def regressed(self) -> bool:
        """p_adjusted < alpha."""
        return self._data["regressed"]


class BenchComparisonGate(ApiObject):
    """`BenchComparisonGate` of the API."""

    __slots__ = ()
    _FIELDS: ClassVar[Tuple[str, ...]] = ("margin", "alpha", "verdict", "statement", "rows", "regressions", )

    @property
    def margin(self) -> float:
        """DELTA, as sent."""
        return float(self._data["margin"])

    @property
    def alpha(self) -> float:
        """One-sided level, family-wise over the gated rows: 0.025."""
        return float(self._data["alpha"])

    @property
    def verdict(self) -> Union[Literal["pass"], Literal["regression"], Literal["not_comparable"]]:
        return self._data["verdict"]

    @property
    def statement(self) -> str:
        return self._data["statement"]

    @property
    def rows(self) -> List[BenchComparisonGateRowsItem]:
        return [BenchComparisonGateRowsItem(x) for x in self._data["rows"]]

    @property
    def regressions(self) -> List[str]:
        return list(self._data["regressions"])


class BenchComparison(ApiObject):
    """Bench runs compared with the first: differences with 95 % intervals and permutation p-values, per prompt deltas, and the optional regression gate."""

    __slots__ = ()
    _FIELDS: ClassVar[Tuple[str, ...]] = ("baseline_id", "level", "resamples", "interval_method", "correction", "runs", "comparable", "dimensions", "not_comparable", "comparisons", "gate", )

    @property
    def baseline_id(self) -> str:
        return self._data["baseline_id"]

    @property
    def level(self) -> float:
        """Confidence level of the intervals: 0.95."""
        return float(self._data["level"])

    @property
    def resamples(self) -> int:
        """Bootstrap replicates and permutations drawn (10,000)."""
        return self._data["resamples"]

    @property
    def interval_method(self) -> str:
        return self._data["interval_method"]

    @property
    def correction(self) -> BenchComparisonCorrection:
        return BenchComparisonCorrection(self._data["correction"])

    @property
    def runs(self) -> List[BenchComparisonRunsItem]:
        return [BenchComparisonRunsItem(x) for x in self._data["runs"]]

    @property
    def comparable(self) -> bool:
        """False when no dimension can be compared (see not_comparable)."""
        return self._data["comparable"]

    @property
    def dimensions(self) -> List[str]:
        """The compared dimensions: scored by every run with one and the same method version."""
        return list(self._data["dimensions"])

    @property
    def not_comparable(self) -> List[BenchComparisonNotComparableItem]:
        """Dimensions left out, with why (not scored in a run, a run mixing methods, different methods or versions)."""
        return [BenchComparisonNotComparableItem(x) for x in self._data["not_comparable"]]

    @property
    def comparisons(self) -> List[BenchComparisonComparisonsItem]:
        """Each candidate against the baseline."""
        return [BenchComparisonComparisonsItem(x) for x in self._data["comparisons"]]

    @property
    def gate(self) -> Optional[BenchComparisonGate]:
        """The regression gate, when fail_on_regression was sent."""
        v = self._data["gate"]
        return None if v is None else BenchComparisonGate(v)


class BenchLogLine(ApiObject):
    """`BenchLogLine` of the API."""

    __slots__ = ()
    _FIELDS: ClassVar[Tuple[str, ...]] = ("seq", "time", "source", "level", "message", )

    @property
    def seq(self) -> int:
        """Position in the log."""
        return self._data["seq"]

    @property
    def time(self) -> str:
        """ISO 8601, UTC."""
        return self._data["time"]

    @property
    def source(self) -> Union[Literal["server"], Literal["runner"], Literal["evaluator"]]:
        return self._data["source"]

    @property
    def level(self) -> Union[Literal["info"], Literal["warn"], Literal["error"]]:
        return self._data["level"]

    @property
    def message(self) -> str:
        return self._data["message"]


class BenchLogPage(ApiObject):
    """A page of the run's log lines, oldest first."""

    __slots__ = ()
    _FIELDS: ClassVar[Tuple[str, ...]] = ("items", "page", "limit", "total", "has_more", )

    @property
    def items(self) -> List[BenchLogLine]:
        return [BenchLogLine(x) for x in self._data["items"]]

    @property
    def page(self) -> int:
        return self._data["page"]

    @property
    def limit(self) -> int:
        return self._data["limit"]

    @property
    def total(self) -> int:
        """Items in the whole list."""
        return self._data["total"]

    @property
    def has_more(self) -> bool:
        """True when a later page has items."""
        return self._data["hasMore"]


class BenchRunProgress(ApiObject):
    """Progress of the run, counted over its tasks (one task = one clip)."""

    __slots__ = ()
    _FIELDS: ClassVar[Tuple[str, ...]] = ("tasks_total", "tasks_generated", "tasks_done", "tasks_failed", "clips_total", "clips_evaluated", )

    @property
    def tasks_total(self) -> int:
        """Clips to generate (prompt × sample), planned when the run is created."""
        return self._data["tasks_total"]

    @property
    def tasks_generated(self) -> int:
        """Clips uploaded by runners and accepted."""
        return self._data["tasks_generated"]

    @property
    def tasks_done(self) -> int:
        """Clips generated and evaluated."""
        return self._data["tasks_done"]

    @property
    def tasks_failed(self) -> int:
        """Clips that failed for good (generation or upload)."""
        return self._data["tasks_failed"]

    @property
    def clips_total(self) -> int:
        """Clips the run expects to evaluate: tasks_total minus failed and cancelled tasks."""
        return self._data["clips_total"]

    @property
    def clips_evaluated(self) -> int:
        """Clips whose evaluation finished (scored, or its scoring failed)."""
        return self._data["clips_evaluated"]


class BenchRunError(ApiObject):
    """`BenchRunError` of the API."""

    __slots__ = ()
    _FIELDS: ClassVar[Tuple[str, ...]] = ("code", "detail", )

    @property
    def code(self) -> str:
        return self._data["code"]

    @property
    def detail(self) -> str:
        return self._data["detail"]


class BenchRun(ApiObject):
    """A Bench run."""

    __slots__ = ()
    _FIELDS: ClassVar[Tuple[str, ...]] = ("id", "name", "dimensions", "model_id", "runner_id", "samples_per_prompt", "prompts_per_dimension", "suite_version", "status", "progress", "error", "created_at", "updated_at", "started_at", "finished_at", "prompt_notice", "unscored_dimensions", "scorecard", )

    @property
    def id(self) -> str:
        return self._data["id"]

    @property
    def name(self) -> str:
        return self._data["name"]

    @property
    def dimensions(self) -> List[str]:
        """The run's dimensions in VBench order."""
        return list(self._data["dimensions"])

    @property
    def model_id(self) -> str:
        return self._data["model_id"]

    @property
    def runner_id(self) -> Optional[str]:
        """The only runner allowed to take the run, or null for any runner serving the model."""
        return self._data["runner_id"]

    @property
    def samples_per_prompt(self) -> int:
        """Clips generated per prompt."""
        return self._data["samples_per_prompt"]

    @property
    def prompts_per_dimension(self) -> Optional[int]:
        """The per-clip-group prompt limit; null: every prompt of the suite."""
        return self._data["prompts_per_dimension"]

    @property
    def suite_version(self) -> Optional[str]:
        """The prompt suite the tasks were planned from (GET /api/v1/dimensions/{id}/prompts)."""
        return self._data["suite_version"]

    @property
    def status(self) -> BenchStatus:
        return self._data["status"]

    @property
    def progress(self) -> BenchRunProgress:
        """Progress of the run, counted over its tasks (one task = one clip)."""
        return BenchRunProgress(self._data["progress"])

    @property
    def error(self) -> Optional[BenchRunError]:
        """Why the run failed; null otherwise."""
        v = self._data["error"]
        return None if v is None else BenchRunError(v)

    @property
    def created_at(self) -> str:
        """ISO 8601, UTC."""
        return self._data["created_at"]

    @property
    def updated_at(self) -> str:
        """ISO 8601, UTC."""
        return self._data["updated_at"]

    @property
    def started_at(self) -> Optional[str]:
        """When the run left queued."""
        return self._data["started_at"]

    @property
    def finished_at(self) -> Optional[str]:
        """When the run reached a terminal status."""
        return self._data["finished_at"]

    @property
    def prompt_notice(self) -> Optional[PromptNotice]:
        """Set when none of the run's scores reads the prompts: no dimension of the run reads them, and those that would (overall_consistency, temporal_style) cannot be scored on this server because their models are missing. Null otherwise (also when such a dimension could be scored and was not chosen)."""
        v = self._data["prompt_notice"]
        return None if v is None else PromptNotice(v)

    @property
    def unscored_dimensions(self) -> List[UnscoredDimension]:
        """The run's dimensions that could not be scored: those with no method on this server now (their models are missing), and, once the run has ended, those with no scored clip, with the failure its clips recorded. Each says why and, where models would fix it, the command that fetches them. Empty otherwise."""
        return [UnscoredDimension(x) for x in self._data["unscored_dimensions"]]

    @property
    def scorecard(self) -> Optional[BenchScorecard]:
        """The final scorecard with its 95 % intervals, once the run has ended (stored then; null while it runs: GET /api/v1/bench/{id}/scorecard has the scores so far)."""
        v = self._data["scorecard"]
        return None if v is None else BenchScorecard(v)


class BenchRunPage(ApiObject):
    """A page of the caller's Bench runs, newest first."""

    __slots__ = ()
    _FIELDS: ClassVar[Tuple[str, ...]] = ("items", "page", "limit", "total", "has_more", )

    @property
    def items(self) -> List[BenchRun]:
        return [BenchRun(x) for x in self._data["items"]]

    @property
    def page(self) -> int:
        return self._data["page"]

    @property
    def limit(self) -> int:
        return self._data["limit"]

    @property
    def total(self) -> int:
        """Items in the whole list."""
        return self._data["total"]

    @property
    def has_more(self) -> bool:
        """True when a later page has items."""
        return self._data["hasMore"]


class BenchScorecardDimensionsItem(ApiObject):
    """`BenchScorecardDimensionsItem` of the API."""

    __slots__ = ()
    _FIELDS: ClassVar[Tuple[str, ...]] = ("dimension", "category", "score", "normalised_score", "clips", "prompts", "methods", "ci95_low", "ci95_high", )

    @property
    def dimension(self) -> str:
        return self._data["dimension"]

    @property
    def category(self) -> Union[Literal["quality"], Literal["semantic"]]:
        return self._data["category"]

    @property
    def score(self) -> Optional[float]:
        """Mean of the per-clip values (VBench's aggregate); null before a clip is scored."""
        v = self._data["score"]
        return None if v is None else float(v)

    @property
    def normalised_score(self) -> Optional[float]:
        """weight·(score − min)/(max − min) with VBench's leaderboard constants."""
        v = self._data["normalised_score"]
        return None if v is None else float(v)

    @property
    def clips(self) -> int:
        """Scored clips behind the score."""
        return self._data["clips"]

    @property
    def prompts(self) -> int:
        """Prompts behind the score (the units the bootstrap resamples)."""
        return self._data["prompts"]

    @property
    def methods(self) -> List[str]:
        """Methods that produced the scores."""
        return list(self._data["methods"])

    @property
    def ci95_low(self) -> Optional[float]:
        """Lower end of the 95 % confidence interval of the score; null when there is no score, or the score rests on a clip group of one prompt (its spread cannot be estimated)."""
        v = self._data["ci95_low"]
        return None if v is None else float(v)

    @property
    def ci95_high(self) -> Optional[float]:
        """Upper end of the 95 % confidence interval of the score; null as ci95_low."""
        v = self._data["ci95_high"]
        return None if v is None else float(v)


class BenchScorecardAggregatesItem(ApiObject):
    """`BenchScorecardAggregatesItem` of the API."""

    __slots__ = ()
    _FIELDS: ClassVar[Tuple[str, ...]] = ("name", "value", "clips", "prompts", "partial", "ci95_low", "ci95_high", )

    @property
    def name(self) -> Union[Literal["Quality"], Literal["Semantic"], Literal["Total"]]:
        return self._data["name"]

    @property
    def value(self) -> Optional[float]:
        """VBench's leaderboard value (normalised scale); null when its group has no scored dimension."""
        v = self._data["value"]
        return None if v is None else float(v)

    @property
    def clips(self) -> int:
        return self._data["clips"]

    @property
    def prompts(self) -> int:
        return self._data["prompts"]

    @property
    def partial(self) -> bool:
        """True when some dimension of its VBench group is not scored: the value is averaged over those that are (VBench would count the others as 0)."""
        return self._data["partial"]

    @property
    def ci95_low(self) -> Optional[float]:
        """Lower end of the 95 % confidence interval of the value; null when there is no score, or the score rests on a clip group of one prompt (its spread cannot be estimated)."""
        v = self._data["ci95_low"]
        return None if v is None else float(v)

    @property
    def ci95_high(self) -> Optional[float]:
        """Upper end of the 95 % confidence interval of the value; null as ci95_low."""
        v = self._data["ci95_high"]
        return None if v is None else float(v)


class BenchScorecard(ApiObject):
    """A run's scorecard: per dimension the mean of its clips and Quality, Semantic and Total as VBench's leaderboard computes them, each with a 95 % confidence interval and the clips and prompts behind it."""

    __slots__ = ()
    _FIELDS: ClassVar[Tuple[str, ...]] = ("level", "resamples", "interval_method", "final", "dimensions", "aggregates", )

    @property
    def level(self) -> float:
        """Confidence level of every interval: 0.95."""
        return float(self._data["level"])

    @property
    def resamples(self) -> int:
        """Bootstrap replicates drawn (10,000)."""
        return self._data["resamples"]

    @property
    def interval_method(self) -> str:
        """`prompt_bootstrap_t`: prompts resampled with replacement (a prompt's clips together), n − 1 of the n prompts of each clip group, seeded from the run id (the same run always gives the same interval); the interval is score ± t(0.975; df)·SE with SE the replicates' standard deviation and df by Welch–Satterthwaite over the clip groups. Quality, Semantic and Total are recomputed from every replicate's dimension means. See docs/statistics.md."""
        return self._data["interval_method"]

    @property
    def final(self) -> bool:
        """True once the run has ended: the scorecard no longer changes (it is stored with the run)."""
        return self._data["final"]

    @property
    def dimensions(self) -> List[BenchScorecardDimensionsItem]:
        """One row per dimension of the run, in VBench's order."""
        return [BenchScorecardDimensionsItem(x) for x in self._data["dimensions"]]

    @property
    def aggregates(self) -> List[BenchScorecardAggregatesItem]:
        return [BenchScorecardAggregatesItem(x) for x in self._data["aggregates"]]


class BenchVideoError(ApiObject):
    """`BenchVideoError` of the API."""

    __slots__ = ()
    _FIELDS: ClassVar[Tuple[str, ...]] = ("code", "detail", )

    @property
    def code(self) -> str:
        return self._data["code"]

    @property
    def detail(self) -> str:
        return self._data["detail"]


class BenchVideoScoresItem(ApiObject):
    """`BenchVideoScoresItem` of the API."""

    __slots__ = ()
    _FIELDS: ClassVar[Tuple[str, ...]] = ("dimension", "value", "method", "method_version", )

    @property
    def dimension(self) -> str:
        return self._data["dimension"]

    @property
    def value(self) -> float:
        return float(self._data["value"])

    @property
    def method(self) -> str:
        return self._data["method"]

    @property
    def method_version(self) -> str:
        return self._data["method_version"]


class BenchVideoFailuresItem(ApiObject):
    """`BenchVideoFailuresItem` of the API."""

    __slots__ = ()
    _FIELDS: ClassVar[Tuple[str, ...]] = ("dimension", "code", "detail", )

    @property
    def dimension(self) -> str:
        return self._data["dimension"]

    @property
    def code(self) -> str:
        return self._data["code"]

    @property
    def detail(self) -> str:
        return self._data["detail"]


class BenchVideo(ApiObject):
    """One clip of a Bench run and its per-dimension results."""

    __slots__ = ()
    _FIELDS: ClassVar[Tuple[str, ...]] = ("task_id", "seq", "prompt", "auxiliary", "prompt_id", "clip_group", "dimensions", "sample_index", "seed", "state", "runner_id", "attempts", "video_id", "error", "scores", "failures", )

    @property
    def task_id(self) -> str:
        return self._data["task_id"]

    @property
    def seq(self) -> int:
        """Position in the run's task list."""
        return self._data["seq"]

    @property
    def prompt(self) -> str:
        return self._data["prompt"]

    @property
    def auxiliary(self) -> Optional[Dict[str, str]]:
        """Auxiliary prompt info (object, color, …) for semantic dimensions."""
        v = self._data["auxiliary"]
        return None if v is None else dict(v)

    @property
    def prompt_id(self) -> Optional[str]:
        """The suite prompt (`<clip group>-<nn>`)."""
        return self._data["prompt_id"]

    @property
    def clip_group(self) -> Optional[str]:
        """The clip group whose dimensions this clip is scored on."""
        return self._data["clip_group"]

    @property
    def dimensions(self) -> List[str]:
        """The run's dimensions this clip is scored on."""
        return list(self._data["dimensions"])

    @property
    def sample_index(self) -> int:
        return self._data["sample_index"]

    @property
    def seed(self) -> int:
        return self._data["seed"]

    @property
    def state(self) -> Literal["pending", "claimed", "uploaded", "evaluating", "done", "failed", "cancelled"]:
        """pending → claimed → uploaded → evaluating → done, or failed / cancelled."""
        return self._data["state"]

    @property
    def runner_id(self) -> Optional[str]:
        return self._data["runner_id"]

    @property
    def attempts(self) -> int:
        return self._data["attempts"]

    @property
    def video_id(self) -> Optional[str]:
        """The uploaded clip, once there is one."""
        return self._data["video_id"]

    @property
    def error(self) -> Optional[BenchVideoError]:
        v = self._data["error"]
        return None if v is None else BenchVideoError(v)

    @property
    def scores(self) -> List[BenchVideoScoresItem]:
        return [BenchVideoScoresItem(x) for x in self._data["scores"]]

    @property
    def failures(self) -> List[BenchVideoFailuresItem]:
        return [BenchVideoFailuresItem(x) for x in self._data["failures"]]


class BenchVideoPage(ApiObject):
    """A page of the run's clips, in task order."""

    __slots__ = ()
    _FIELDS: ClassVar[Tuple[str, ...]] = ("items", "page", "limit", "total", "has_more", )

    @property
    def items(self) -> List[BenchVideo]:
        return [BenchVideo(x) for x in self._data["items"]]

    @property
    def page(self) -> int:
        return self._data["page"]

    @property
    def limit(self) -> int:
        return self._data["limit"]

    @property
    def total(self) -> int:
        """Items in the whole list."""
        return self._data["total"]

    @property
    def has_more(self) -> bool:
        """True when a later page has items."""
        return self._data["hasMore"]


class ClaimResponse(ApiObject):
    """`ClaimResponse` of the API."""

    __slots__ = ()
    _FIELDS: ClassVar[Tuple[str, ...]] = ("task", )

    @property
    def task(self) -> RunnerTask:
        return RunnerTask(self._data["task"])


class DimensionRange(ApiObject):
    """Range of a per-clip value."""

    __slots__ = ()
    _FIELDS: ClassVar[Tuple[str, ...]] = ("min", "max", )

    @property
    def min(self) -> float:
        return float(self._data["min"])

    @property
    def max(self) -> float:
        return float(self._data["max"])


class DimensionMethodsItemRequires(ApiObject):
    """What the method needs before it can run."""

    __slots__ = ()
    _FIELDS: ClassVar[Tuple[str, ...]] = ("models", "auxiliary", "prompt", )

    @property
    def models(self) -> List[str]:
        """Model ids the method needs (empty for model-free methods)."""
        return list(self._data["models"])

    @property
    def auxiliary(self) -> List[str]:
        """Auxiliary prompt info keys it reads: object, color, relationship, scene, appearance_style, action."""
        return list(self._data["auxiliary"])

    @property
    def prompt(self) -> bool:
        """True when it reads the clip's text prompt."""
        return self._data["prompt"]


class DimensionMethodsItem(ApiObject):
    """`DimensionMethodsItem` of the API."""

    __slots__ = ()
    _FIELDS: ClassVar[Tuple[str, ...]] = ("id", "version", "description", "requires", "available", "unavailable_reason", )

    @property
    def id(self) -> str:
        """`vbench`: VBench protocol and model; `lite`: model-free."""
        return self._data["id"]

    @property
    def version(self) -> str:
        return self._data["version"]

    @property
    def description(self) -> str:
        return self._data["description"]

    @property
    def requires(self) -> DimensionMethodsItemRequires:
        """What the method needs before it can run."""
        return DimensionMethodsItemRequires(self._data["requires"])

    @property
    def available(self) -> bool:
        """True when this server can run it now."""
        return self._data["available"]

    @property
    def unavailable_reason(self) -> Optional[str]:
        """Why it is not available; null when it is."""
        return self._data["unavailableReason"]


class DimensionNormalisation(ApiObject):
    """VBench's leaderboard constants: a score x counts as weight·(x − min)/(max − min) in Quality, Semantic and Total."""

    __slots__ = ()
    _FIELDS: ClassVar[Tuple[str, ...]] = ("min", "max", "weight", )

    @property
    def min(self) -> float:
        return float(self._data["min"])

    @property
    def max(self) -> float:
        return float(self._data["max"])

    @property
    def weight(self) -> float:
        return float(self._data["weight"])


class Dimension(ApiObject):
    """An evaluation dimension (VBench)."""

    __slots__ = ()
    _FIELDS: ClassVar[Tuple[str, ...]] = ("id", "name", "description", "category", "higher_is_better", "range", "methods", "default_method", "normalisation", "workflows", )

    @property
    def id(self) -> str:
        return self._data["id"]

    @property
    def name(self) -> str:
        return self._data["name"]

    @property
    def description(self) -> str:
        return self._data["description"]

    @property
    def category(self) -> Union[Literal["quality"], Literal["semantic"]]:
        """The leaderboard group it counts in."""
        return self._data["category"]

    @property
    def higher_is_better(self) -> bool:
        return self._data["higherIsBetter"]

    @property
    def range(self) -> DimensionRange:
        """Range of a per-clip value."""
        return DimensionRange(self._data["range"])

    @property
    def methods(self) -> List[DimensionMethodsItem]:
        return [DimensionMethodsItem(x) for x in self._data["methods"]]

    @property
    def default_method(self) -> Optional[str]:
        """The method used when none is chosen: the best available (vbench before lite); null when none is available (Bench runs then refuse the dimension)."""
        return self._data["defaultMethod"]

    @property
    def normalisation(self) -> DimensionNormalisation:
        """VBench's leaderboard constants: a score x counts as weight·(x − min)/(max − min) in Quality, Semantic and Total."""
        return DimensionNormalisation(self._data["normalisation"])

    @property
    def workflows(self) -> List[Union[Literal["score"], Literal["rank"], Literal["bench"]]]:
        """The workflows that score it; dimensions needing a prompt suite are bench only."""
        return list(self._data["workflows"])


class DimensionFailure(ApiObject):
    """`DimensionFailure` of the API."""

    __slots__ = ()
    _FIELDS: ClassVar[Tuple[str, ...]] = ("dimension", "code", "detail", )

    @property
    def dimension(self) -> str:
        return self._data["dimension"]

    @property
    def code(self) -> str:
        return self._data["code"]

    @property
    def detail(self) -> str:
        return self._data["detail"]


class DimensionList(ApiObject):
    """VBench's 16 dimensions, in VBench's order."""

    __slots__ = ()
    _FIELDS: ClassVar[Tuple[str, ...]] = ("items", )

    @property
    def items(self) -> List[Dimension]:
        return [Dimension(x) for x in self._data["items"]]


class DimensionPromptsPromptsItem(ApiObject):
    """`DimensionPromptsPromptsItem` of the API."""

    __slots__ = ()
    _FIELDS: ClassVar[Tuple[str, ...]] = ("id", "text", "auxiliary", )

    @property
    def id(self) -> str:
        """`<clip group>-<nn>`, stable within a suite version."""
        return self._data["id"]

    @property
    def text(self) -> str:
        return self._data["text"]

    @property
    def auxiliary(self) -> Dict[str, str]:
        """What the dimension checks: object; object ("a and b") for multiple_objects; action; color (+ object); object_a, object_b, relationship; scene; appearance_style. {} when none."""
        return dict(self._data["auxiliary"])


class DimensionPrompts(ApiObject):
    """Vesta's own prompts for one dimension (written for Vesta, not copied from VBench)."""

    __slots__ = ()
    _FIELDS: ClassVar[Tuple[str, ...]] = ("suite_version", "dimension", "clip_group", "prompts", )

    @property
    def suite_version(self) -> str:
        """The prompt suite version (changes whenever a prompt does)."""
        return self._data["suiteVersion"]

    @property
    def dimension(self) -> str:
        return self._data["dimension"]

    @property
    def clip_group(self) -> str:
        """The clip group this dimension is evaluated on; dimensions of one group share clips (VBench: subject_consistency with motion_smoothness and dynamic_degree; scene with background_consistency; overall_consistency with aesthetic_quality and imaging_quality)."""
        return self._data["clipGroup"]

    @property
    def prompts(self) -> List[DimensionPromptsPromptsItem]:
        return [DimensionPromptsPromptsItem(x) for x in self._data["prompts"]]


class FailResponse(ApiObject):
    """`FailResponse` of the API."""

    __slots__ = ()
    _FIELDS: ClassVar[Tuple[str, ...]] = ("task", )

    @property
    def task(self) -> RunnerTask:
        return RunnerTask(self._data["task"])


class FramesUsedSampling(ApiObject):
    """How frames were sampled (all, every, uniform, fps)."""

    __slots__ = ()
    _FIELDS: ClassVar[Tuple[str, ...]] = ("kind", )

    @property
    def kind(self) -> str:
        return self._data["kind"]


class FramesUsed(ApiObject):
    """`FramesUsed` of the API."""

    __slots__ = ()
    _FIELDS: ClassVar[Tuple[str, ...]] = ("count", "width", "height", "sampling", "fps", "fps_assumed", )

    @property
    def count(self) -> int:
        return self._data["count"]

    @property
    def width(self) -> int:
        return self._data["width"]

    @property
    def height(self) -> int:
        return self._data["height"]

    @property
    def sampling(self) -> FramesUsedSampling:
        """How frames were sampled (all, every, uniform, fps)."""
        return FramesUsedSampling(self._data["sampling"])

    @property
    def fps(self) -> Optional[float]:
        """The clip's frame rate, in frames per second, that the sampling and the frames' times were computed with: the container's mean rate, or an assumed one (`fpsAssumed`). Absent on scores stored before the rate was recorded."""
        v = self._data.get("fps")
        return None if v is None else float(v)

    @property
    def fps_assumed(self) -> Optional[bool]:
        """True when the clip states no usable frame rate and `fps` is assumed: a GIF whose frames carry no delay or one under 2 hundredths of a second is read at 10 cs per such frame (the convention browsers follow), a stream with neither a rate nor a duration at 25 fps. Dimensions that sample by time (dynamic_degree) read this rate. Absent on scores stored before it was recorded."""
        return self._data.get("fpsAssumed")


class HeartbeatResponse(ApiObject):
    """`HeartbeatResponse` of the API."""

    __slots__ = ()
    _FIELDS: ClassVar[Tuple[str, ...]] = ("expires_at", "cancelled", )

    @property
    def expires_at(self) -> str:
        """ISO 8601, UTC."""
        return self._data["expiresAt"]

    @property
    def cancelled(self) -> bool:
        """True when the run was cancelled (or has ended): stop generating, do not upload or complete."""
        return self._data["cancelled"]


class Judge(ApiObject):
    """`Judge` of the API."""

    __slots__ = ()
    _FIELDS: ClassVar[Tuple[str, ...]] = ("id", "pseudonym", "user_name", "email", "status", "added_at", "removed_at", "votes", )

    @property
    def id(self) -> str:
        return self._data["id"]

    @property
    def pseudonym(self) -> str:
        """What the export and the ratings name the judge (`judge-1`, …)."""
        return self._data["pseudonym"]

    @property
    def user_name(self) -> Optional[str]:
        return self._data["userName"]

    @property
    def email(self) -> Optional[str]:
        return self._data["email"]

    @property
    def status(self) -> Union[Literal["active"], Literal["invited"], Literal["removed"]]:
        """`invited`: an email with no account yet; it becomes `active` when that account is made (an invite accepted)."""
        return self._data["status"]

    @property
    def added_at(self) -> str:
        """When the judge was added."""
        return self._data["addedAt"]

    @property
    def removed_at(self) -> Optional[str]:
        """When the owner removed them."""
        return self._data["removedAt"]

    @property
    def votes(self) -> int:
        return self._data["votes"]


class JudgeList(ApiObject):
    """`JudgeList` of the API."""

    __slots__ = ()
    _FIELDS: ClassVar[Tuple[str, ...]] = ("items", )

    @property
    def items(self) -> List[Judge]:
        return [Judge(x) for x in self._data["items"]]


class JudgingAgreementDimensionsItem(ApiObject):
    """`JudgingAgreementDimensionsItem` of the API."""

    __slots__ = ()
    _FIELDS: ClassVar[Tuple[str, ...]] = ("dimension", "pairs", "agreement", "ci95_low", "ci95_high", "kendall_tau", )

    @property
    def dimension(self) -> str:
        return self._data["dimension"]

    @property
    def pairs(self) -> int:
        """Decided votes whose two clips both have a score of this dimension."""
        return self._data["pairs"]

    @property
    def agreement(self) -> Optional[float]:
        """Share of them where the dimension prefers the clip people chose (equal scores ½)."""
        v = self._data["agreement"]
        return None if v is None else float(v)

    @property
    def ci95_low(self) -> Optional[float]:
        """95 % interval over prompts."""
        v = self._data["ci95Low"]
        return None if v is None else float(v)

    @property
    def ci95_high(self) -> Optional[float]:
        """Upper end of the interval."""
        v = self._data["ci95High"]
        return None if v is None else float(v)

    @property
    def kendall_tau(self) -> Optional[float]:
        """Kendall τ-b between the dimension's per-item means and the human ratings."""
        v = self._data["kendallTau"]
        return None if v is None else float(v)


class JudgingAgreementFitted(ApiObject):
    """`JudgingAgreementFitted` of the API."""

    __slots__ = ()
    _FIELDS: ClassVar[Tuple[str, ...]] = ("held_out_accuracy", "best_single_dimension", "best_single_accuracy", "weights", "label", )

    @property
    def held_out_accuracy(self) -> float:
        """Share of held-out votes predicted (cross-validated over prompts)."""
        return float(self._data["heldOutAccuracy"])

    @property
    def best_single_dimension(self) -> str:
        return self._data["bestSingleDimension"]

    @property
    def best_single_accuracy(self) -> float:
        return float(self._data["bestSingleAccuracy"])

    @property
    def weights(self) -> Dict[str, float]:
        """Per dimension: weight per unit of score."""
        return dict(self._data["weights"])

    @property
    def label(self) -> str:
        """"fitted to this campaign": never a replacement for VBench's Total."""
        return self._data["label"]


class JudgingAgreement(ApiObject):
    """`JudgingAgreement` of the API."""

    __slots__ = ()
    _FIELDS: ClassVar[Tuple[str, ...]] = ("campaign_id", "votes", "dimensions", "fitted", )

    @property
    def campaign_id(self) -> str:
        return self._data["campaignId"]

    @property
    def votes(self) -> int:
        return self._data["votes"]

    @property
    def dimensions(self) -> List[JudgingAgreementDimensionsItem]:
        return [JudgingAgreementDimensionsItem(x) for x in self._data["dimensions"]]

    @property
    def fitted(self) -> Optional[JudgingAgreementFitted]:
        """A logistic team score fitted to these votes; null with too few decided votes."""
        v = self._data["fitted"]
        return None if v is None else JudgingAgreementFitted(v)


class JudgingCampaignQuestion(ApiObject):
    """`JudgingCampaignQuestion` of the API."""

    __slots__ = ()
    _FIELDS: ClassVar[Tuple[str, ...]] = ("kind", "text", )

    @property
    def kind(self) -> Union[Literal["overall"], Literal["prompt_fit"], Literal["motion"], Literal["visual_quality"], Literal["custom"]]:
        """The question asked: `overall` ("Which clip is better overall for this prompt?", the default), `prompt_fit`, `motion`, `visual_quality`, or `custom` (its `text` required)."""
        return self._data["kind"]

    @property
    def text(self) -> str:
        return self._data["text"]


class JudgingCampaignSource(ApiObject):
    """`JudgingCampaignSource` of the API."""

    __slots__ = ()
    _FIELDS: ClassVar[Tuple[str, ...]] = ("kind", "ids", )

    @property
    def kind(self) -> Union[Literal["rank"], Literal["bench"]]:
        return self._data["kind"]

    @property
    def ids(self) -> List[str]:
        """The Rank session id, or the Bench run ids."""
        return list(self._data["ids"])


class JudgingCampaignItemsItem(ApiObject):
    """`JudgingCampaignItemsItem` of the API."""

    __slots__ = ()
    _FIELDS: ClassVar[Tuple[str, ...]] = ("id", "label", "clips", )

    @property
    def id(self) -> str:
        """The run id (Bench) or the candidate video id (Rank)."""
        return self._data["id"]

    @property
    def label(self) -> str:
        """The model and run name, or the candidate's file name."""
        return self._data["label"]

    @property
    def clips(self) -> int:
        """Clips of the item in the campaign."""
        return self._data["clips"]


class JudgingCampaignProgress(ApiObject):
    """`JudgingCampaignProgress` of the API."""

    __slots__ = ()
    _FIELDS: ClassVar[Tuple[str, ...]] = ("pairs", "pairs_complete", "clips", "clips_deleted", "votes", "judges", "your_votes", )

    @property
    def pairs(self) -> int:
        return self._data["pairs"]

    @property
    def pairs_complete(self) -> int:
        """Pairs with their target number of votes."""
        return self._data["pairsComplete"]

    @property
    def clips(self) -> int:
        return self._data["clips"]

    @property
    def clips_deleted(self) -> int:
        """Clips deleted since the campaign was made: their pairs are offered no more; votes already cast stand."""
        return self._data["clipsDeleted"]

    @property
    def votes(self) -> int:
        """Votes cast, skips included."""
        return self._data["votes"]

    @property
    def judges(self) -> int:
        """Judges (not removed)."""
        return self._data["judges"]

    @property
    def your_votes(self) -> int:
        """The caller's own votes."""
        return self._data["yourVotes"]


class JudgingCampaign(ApiObject):
    """`JudgingCampaign` of the API."""

    __slots__ = ()
    _FIELDS: ClassVar[Tuple[str, ...]] = ("id", "name", "role", "is_judge", "question", "status", "votes_per_pair", "created_at", "closed_at", "revealed_at", "names_visible", "source", "items", "progress", )

    @property
    def id(self) -> str:
        return self._data["id"]

    @property
    def name(self) -> str:
        return self._data["name"]

    @property
    def role(self) -> Union[Literal["owner"], Literal["judge"]]:
        """How the caller takes part: `owner` sees everything; `judge` sees the campaign blinded."""
        return self._data["role"]

    @property
    def is_judge(self) -> bool:
        """The caller judges this campaign (an owner may add themselves; their votes are not blind)."""
        return self._data["isJudge"]

    @property
    def question(self) -> JudgingCampaignQuestion:
        return JudgingCampaignQuestion(self._data["question"])

    @property
    def status(self) -> Union[Literal["open"], Literal["closed"]]:
        return self._data["status"]

    @property
    def votes_per_pair(self) -> int:
        return self._data["votesPerPair"]

    @property
    def created_at(self) -> str:
        """When it was made."""
        return self._data["createdAt"]

    @property
    def closed_at(self) -> Optional[str]:
        """When the owner closed it."""
        return self._data["closedAt"]

    @property
    def revealed_at(self) -> Optional[str]:
        """When the owner revealed the names to the judges."""
        return self._data["revealedAt"]

    @property
    def names_visible(self) -> bool:
        """Model, run and file names are shown: always to the owner; to judges once closed or revealed."""
        return self._data["namesVisible"]

    @property
    def source(self) -> Optional[JudgingCampaignSource]:
        """What the campaign was made from; null for a judge until names are visible."""
        v = self._data["source"]
        return None if v is None else JudgingCampaignSource(v)

    @property
    def items(self) -> Optional[List[JudgingCampaignItemsItem]]:
        """The rated items (runs or candidates); null for a judge until names are visible."""
        v = self._data["items"]
        return None if v is None else [JudgingCampaignItemsItem(x) for x in v]

    @property
    def progress(self) -> JudgingCampaignProgress:
        return JudgingCampaignProgress(self._data["progress"])


class JudgingCampaignList(ApiObject):
    """The campaigns the caller owns or judges, newest first."""

    __slots__ = ()
    _FIELDS: ClassVar[Tuple[str, ...]] = ("items", )

    @property
    def items(self) -> List[JudgingCampaign]:
        return [JudgingCampaign(x) for x in self._data["items"]]


class JudgingOfferLeft(ApiObject):
    """`JudgingOfferLeft` of the API."""

    __slots__ = ()
    _FIELDS: ClassVar[Tuple[str, ...]] = ("clip_id", "content_url", )

    @property
    def clip_id(self) -> str:
        """The campaign's id for the clip (not its video id)."""
        return self._data["clipId"]

    @property
    def content_url(self) -> str:
        """Root-relative path of its bytes (campaign-scoped; byte ranges supported)."""
        return self._data["contentUrl"]


class JudgingOfferRight(ApiObject):
    """`JudgingOfferRight` of the API."""

    __slots__ = ()
    _FIELDS: ClassVar[Tuple[str, ...]] = ("clip_id", "content_url", )

    @property
    def clip_id(self) -> str:
        """The campaign's id for the clip (not its video id)."""
        return self._data["clipId"]

    @property
    def content_url(self) -> str:
        """Root-relative path of its bytes (campaign-scoped; byte ranges supported)."""
        return self._data["contentUrl"]


class JudgingOffer(ApiObject):
    """`JudgingOffer` of the API."""

    __slots__ = ()
    _FIELDS: ClassVar[Tuple[str, ...]] = ("offer_id", "campaign_id", "question", "prompt", "left", "right", "offered_at", )

    @property
    def offer_id(self) -> str:
        """Send it back with the vote."""
        return self._data["offerId"]

    @property
    def campaign_id(self) -> str:
        return self._data["campaignId"]

    @property
    def question(self) -> str:
        return self._data["question"]

    @property
    def prompt(self) -> str:
        """The prompt both clips were made from."""
        return self._data["prompt"]

    @property
    def left(self) -> JudgingOfferLeft:
        return JudgingOfferLeft(self._data["left"])

    @property
    def right(self) -> JudgingOfferRight:
        return JudgingOfferRight(self._data["right"])

    @property
    def offered_at(self) -> str:
        """When it was offered."""
        return self._data["offeredAt"]


class JudgingRatingsItemsItem(ApiObject):
    """`JudgingRatingsItemsItem` of the API."""

    __slots__ = ()
    _FIELDS: ClassVar[Tuple[str, ...]] = ("item", "label", "rating", "ci95_low", "ci95_high", "votes", "wins", "losses", "ties", )

    @property
    def item(self) -> str:
        """The run id (Bench) or candidate video id (Rank)."""
        return self._data["item"]

    @property
    def label(self) -> str:
        return self._data["label"]

    @property
    def rating(self) -> Optional[float]:
        """Log-strength (natural log, mean 0 over the items; a difference of 1 is odds e:1); null without counted votes."""
        v = self._data["rating"]
        return None if v is None else float(v)

    @property
    def ci95_low(self) -> Optional[float]:
        """95 % interval (prompt bootstrap); null where it cannot be estimated."""
        v = self._data["ci95Low"]
        return None if v is None else float(v)

    @property
    def ci95_high(self) -> Optional[float]:
        """Upper end of the interval."""
        v = self._data["ci95High"]
        return None if v is None else float(v)

    @property
    def votes(self) -> int:
        return self._data["votes"]

    @property
    def wins(self) -> int:
        return self._data["wins"]

    @property
    def losses(self) -> int:
        return self._data["losses"]

    @property
    def ties(self) -> int:
        return self._data["ties"]


class JudgingRatingsWinMatrixItem(ApiObject):
    """`JudgingRatingsWinMatrixItem` of the API."""

    __slots__ = ()
    _FIELDS: ClassVar[Tuple[str, ...]] = ("item", "opponent", "wins", "losses", "ties", )

    @property
    def item(self) -> str:
        return self._data["item"]

    @property
    def opponent(self) -> str:
        return self._data["opponent"]

    @property
    def wins(self) -> int:
        return self._data["wins"]

    @property
    def losses(self) -> int:
        return self._data["losses"]

    @property
    def ties(self) -> int:
        return self._data["ties"]


class JudgingRatingsJudgesItem(ApiObject):
    """`JudgingRatingsJudgesItem` of the API."""

    __slots__ = ()
    _FIELDS: ClassVar[Tuple[str, ...]] = ("judge", "votes", "agreement", "below_chance", )

    @property
    def judge(self) -> str:
        """Pseudonym."""
        return self._data["judge"]

    @property
    def votes(self) -> int:
        return self._data["votes"]

    @property
    def agreement(self) -> Optional[float]:
        """Share of the judge's decided votes agreeing with the other judges' majority (or the ratings without them)."""
        v = self._data["agreement"]
        return None if v is None else float(v)

    @property
    def below_chance(self) -> bool:
        """Agreement below ½ by a one-sided binomial test, Holm-adjusted over the judges, at 5 %."""
        return self._data["belowChance"]


class JudgingRatings(ApiObject):
    """`JudgingRatings` of the API."""

    __slots__ = ()
    _FIELDS: ClassVar[Tuple[str, ...]] = ("campaign_id", "votes", "votes_excluded", "resamples", "items", "win_matrix", "judges", )

    @property
    def campaign_id(self) -> str:
        return self._data["campaignId"]

    @property
    def votes(self) -> int:
        """Votes counted (every answer of the judges not removed, skips included)."""
        return self._data["votes"]

    @property
    def votes_excluded(self) -> int:
        """Votes of removed judges: kept, not counted."""
        return self._data["votesExcluded"]

    @property
    def resamples(self) -> int:
        """Bootstrap replicates behind the intervals."""
        return self._data["resamples"]

    @property
    def items(self) -> List[JudgingRatingsItemsItem]:
        """Best first."""
        return [JudgingRatingsItemsItem(x) for x in self._data["items"]]

    @property
    def win_matrix(self) -> List[JudgingRatingsWinMatrixItem]:
        """Every ordered pair of items that met: the item's wins, losses and ties against the opponent."""
        return [JudgingRatingsWinMatrixItem(x) for x in self._data["winMatrix"]]

    @property
    def judges(self) -> Optional[List[JudgingRatingsJudgesItem]]:
        """Per judge (the owner only; null for a judge)."""
        v = self._data["judges"]
        return None if v is None else [JudgingRatingsJudgesItem(x) for x in v]


class JudgingVote(ApiObject):
    """`JudgingVote` of the API."""

    __slots__ = ()
    _FIELDS: ClassVar[Tuple[str, ...]] = ("id", "offer_id", "answer", "created_at", "your_votes", )

    @property
    def id(self) -> str:
        return self._data["id"]

    @property
    def offer_id(self) -> str:
        return self._data["offerId"]

    @property
    def answer(self) -> Union[Literal["left"], Literal["right"], Literal["tie"], Literal["both_bad"], Literal["skip"]]:
        """`left` or `right`: that clip is better; `tie`: equally good; `both_bad`: neither is acceptable; `skip`: the judge passes (the pair is not offered to them again and the vote does not count toward the pair's target or the ratings)."""
        return self._data["answer"]

    @property
    def created_at(self) -> str:
        """When it was recorded."""
        return self._data["createdAt"]

    @property
    def your_votes(self) -> int:
        return self._data["yourVotes"]


class Leaderboard(ApiObject):
    """`Leaderboard` of the API."""

    __slots__ = ()
    _FIELDS: ClassVar[Tuple[str, ...]] = ("run_id", "prompt", "formula", "uncertainty", "prompt_notice", "entries", )

    @property
    def run_id(self) -> str:
        return self._data["runId"]

    @property
    def prompt(self) -> Optional[str]:
        return self._data["prompt"]

    @property
    def formula(self) -> str:
        """How `overall` is computed."""
        return self._data["formula"]

    @property
    def uncertainty(self) -> str:
        """Why the entries carry no confidence interval: each candidate is one clip, scored once on deterministically sampled frames, so there is nothing to resample (Bench runs, with many clips per prompt and many prompts, carry 95 % intervals)."""
        return self._data["uncertainty"]

    @property
    def prompt_notice(self) -> Optional[PromptNotice]:
        """Set when the ranking reads nothing of the locked prompt: no scored candidate has a dimension that reads it (their models are not on the server), so the order judges the pixels alone. Null otherwise."""
        v = self._data["promptNotice"]
        return None if v is None else PromptNotice(v)

    @property
    def entries(self) -> List[LeaderboardEntry]:
        return [LeaderboardEntry(x) for x in self._data["entries"]]


class LeaderboardEntry(ApiObject):
    """`LeaderboardEntry` of the API."""

    __slots__ = ()
    _FIELDS: ClassVar[Tuple[str, ...]] = ("rank", "video_id", "file_name", "overall", "scores", "state", )

    @property
    def rank(self) -> Optional[int]:
        """Position among scored candidates; null for unscored ones (listed last)."""
        return self._data["rank"]

    @property
    def video_id(self) -> str:
        return self._data["videoId"]

    @property
    def file_name(self) -> str:
        return self._data["fileName"]

    @property
    def overall(self) -> Optional[float]:
        v = self._data["overall"]
        return None if v is None else float(v)

    @property
    def scores(self) -> List[Score]:
        return [Score(x) for x in self._data["scores"]]

    @property
    def state(self) -> VideoState:
        return self._data["state"]


class Lease(ApiObject):
    """The lease on a claimed task."""

    __slots__ = ()
    _FIELDS: ClassVar[Tuple[str, ...]] = ("id", "expires_at", "ttl_seconds", )

    @property
    def id(self) -> str:
        """The lease id: send it with every call about this task (a fencing token)."""
        return self._data["id"]

    @property
    def expires_at(self) -> str:
        """ISO 8601, UTC."""
        return self._data["expiresAt"]

    @property
    def ttl_seconds(self) -> int:
        """Lease length; heartbeat well within it (every ttlSeconds/3 is a good rhythm)."""
        return self._data["ttlSeconds"]


class ModelRunnersItem(ApiObject):
    """`ModelRunnersItem` of the API."""

    __slots__ = ()
    _FIELDS: ClassVar[Tuple[str, ...]] = ("id", "name", "online", "last_seen_at", )

    @property
    def id(self) -> str:
        return self._data["id"]

    @property
    def name(self) -> str:
        return self._data["name"]

    @property
    def online(self) -> bool:
        """Seen in the last 60 seconds (2 × the longest claim wait)."""
        return self._data["online"]

    @property
    def last_seen_at(self) -> Optional[str]:
        return self._data["lastSeenAt"]


class Model(ApiObject):
    """A video generator that Bench runs can evaluate."""

    __slots__ = ()
    _FIELDS: ClassVar[Tuple[str, ...]] = ("id", "name", "description", "runners", "online", "created_at", )

    @property
    def id(self) -> str:
        return self._data["id"]

    @property
    def name(self) -> str:
        return self._data["name"]

    @property
    def description(self) -> str:
        return self._data["description"]

    @property
    def runners(self) -> List[ModelRunnersItem]:
        """The caller's registered runners serving the model, online ones first."""
        return [ModelRunnersItem(x) for x in self._data["runners"]]

    @property
    def online(self) -> bool:
        """True when at least one runner serving it is online."""
        return self._data["online"]

    @property
    def created_at(self) -> str:
        return self._data["createdAt"]


class ModelBaseline(ApiObject):
    """A model's baseline run (the caller's): what new runs of the model are compared with."""

    __slots__ = ()
    _FIELDS: ClassVar[Tuple[str, ...]] = ("model_id", "run_id", "set_at", )

    @property
    def model_id(self) -> str:
        return self._data["model_id"]

    @property
    def run_id(self) -> Optional[str]:
        """The caller's baseline run of the model; null when none is set."""
        return self._data["run_id"]

    @property
    def set_at(self) -> Optional[str]:
        return self._data["set_at"]


class ModelList(ApiObject):
    """The global models and the caller's private ones, by id; a fresh server lists only the demo generator `vesta-demo`."""

    __slots__ = ()
    _FIELDS: ClassVar[Tuple[str, ...]] = ("items", )

    @property
    def items(self) -> List[Model]:
        return [Model(x) for x in self._data["items"]]


class NextJudgingPairs(ApiObject):
    """`NextJudgingPairs` of the API."""

    __slots__ = ()
    _FIELDS: ClassVar[Tuple[str, ...]] = ("offers", "done", "your_votes", )

    @property
    def offers(self) -> List[JudgingOffer]:
        """The caller's open offers, oldest first (asking again without voting answers the same)."""
        return [JudgingOffer(x) for x in self._data["offers"]]

    @property
    def done(self) -> bool:
        """Nothing is left for the caller to judge."""
        return self._data["done"]

    @property
    def your_votes(self) -> int:
        return self._data["yourVotes"]


class PromptNotice(ApiObject):
    """Scores of a clip made from a prompt that read nothing of the prompt: no dimension that reads it (overall_consistency, temporal_style) was scored, because the server lacks their models. The numbers judge the pixels alone."""

    __slots__ = ()
    _FIELDS: ClassVar[Tuple[str, ...]] = ("code", "detail", "dimensions", "models", "command", )

    @property
    def code(self) -> Literal["prompt_not_read"]:
        return self._data["code"]

    @property
    def detail(self) -> str:
        """In words, to show beside the numbers, e.g. 'this ranking does not read the prompt: overall_consistency and temporal_style need the model clip-vit-b32 — `vesta models pull clip-vit-b32`'."""
        return self._data["detail"]

    @property
    def dimensions(self) -> List[str]:
        """The dimensions that read the prompt and were not scored."""
        return list(self._data["dimensions"])

    @property
    def models(self) -> List[str]:
        """The model ids that would score them."""
        return list(self._data["models"])

    @property
    def command(self) -> str:
        """The command that fetches those models on the server."""
        return self._data["command"]


class RankSession(ApiObject):
    """`RankSession` of the API."""

    __slots__ = ()
    _FIELDS: ClassVar[Tuple[str, ...]] = ("run_id", "kind", "prompt", "prompt_locked", "created_at", "videos", )

    @property
    def run_id(self) -> str:
        """The run id used in paths; a reset gives a new one."""
        return self._data["runId"]

    @property
    def kind(self) -> Literal["rank"]:
        return self._data["kind"]

    @property
    def prompt(self) -> Optional[str]:
        """The locked prompt; null until the first candidate is stored (its upload confirmed): an upload-url whose bytes never arrive locks nothing."""
        return self._data["prompt"]

    @property
    def prompt_locked(self) -> bool:
        return self._data["promptLocked"]

    @property
    def created_at(self) -> str:
        return self._data["createdAt"]

    @property
    def videos(self) -> List[Video]:
        return [Video(x) for x in self._data["videos"]]


class Runner(ApiObject):
    """A registered runner: a process that generates clips for Bench runs."""

    __slots__ = ()
    _FIELDS: ClassVar[Tuple[str, ...]] = ("id", "name", "models", "max_concurrency", "version", "created_at", "last_seen_at", "online", )

    @property
    def id(self) -> str:
        return self._data["id"]

    @property
    def name(self) -> str:
        return self._data["name"]

    @property
    def models(self) -> List[str]:
        """Model ids it serves."""
        return list(self._data["models"])

    @property
    def max_concurrency(self) -> int:
        return self._data["maxConcurrency"]

    @property
    def version(self) -> Optional[str]:
        return self._data["version"]

    @property
    def created_at(self) -> str:
        """ISO 8601, UTC."""
        return self._data["createdAt"]

    @property
    def last_seen_at(self) -> Optional[str]:
        """Last register, claim, heartbeat, upload-url or complete."""
        return self._data["lastSeenAt"]

    @property
    def online(self) -> bool:
        """Seen within the last 60 seconds (2 × the longest claim wait)."""
        return self._data["online"]


class RunnerList(ApiObject):
    """The caller's runners, oldest first."""

    __slots__ = ()
    _FIELDS: ClassVar[Tuple[str, ...]] = ("items", )

    @property
    def items(self) -> List[Runner]:
        return [Runner(x) for x in self._data["items"]]


class RunnerLogLine(ApiObject):
    """`RunnerLogLine` of the API."""

    __slots__ = ()
    _FIELDS: ClassVar[Tuple[str, ...]] = ("at", "level", "message", )

    @property
    def at(self) -> Optional[str]:
        """When it happened (default: now)."""
        return self._data.get("at")

    @property
    def level(self) -> Optional[Union[Literal["info"], Literal["warn"], Literal["error"]]]:
        return self._data.get("level")

    @property
    def message(self) -> str:
        return self._data["message"]


class RunnerTaskError(ApiObject):
    """`RunnerTaskError` of the API."""

    __slots__ = ()
    _FIELDS: ClassVar[Tuple[str, ...]] = ("code", "detail", )

    @property
    def code(self) -> str:
        return self._data["code"]

    @property
    def detail(self) -> str:
        return self._data["detail"]


class RunnerTask(ApiObject):
    """A generation task: one clip (prompt × sample) of a Bench run."""

    __slots__ = ()
    _FIELDS: ClassVar[Tuple[str, ...]] = ("id", "run_id", "model_id", "prompt", "auxiliary", "dimensions", "sample_index", "seed", "attempt", "max_attempts", "state", "lease", "error", )

    @property
    def id(self) -> str:
        return self._data["id"]

    @property
    def run_id(self) -> str:
        return self._data["runId"]

    @property
    def model_id(self) -> str:
        """The model to generate with."""
        return self._data["modelId"]

    @property
    def prompt(self) -> str:
        """The text prompt to generate the clip from."""
        return self._data["prompt"]

    @property
    def auxiliary(self) -> Dict[str, str]:
        """Auxiliary prompt info of the suite prompt (object, color, …); {} when none."""
        return dict(self._data["auxiliary"])

    @property
    def dimensions(self) -> List[str]:
        """The run's dimensions the clip will be scored on."""
        return list(self._data["dimensions"])

    @property
    def sample_index(self) -> int:
        """Which sample of the prompt this is (0-based)."""
        return self._data["sampleIndex"]

    @property
    def seed(self) -> int:
        """The random seed to generate with (recorded with the run)."""
        return self._data["seed"]

    @property
    def attempt(self) -> int:
        """This attempt, from 1."""
        return self._data["attempt"]

    @property
    def max_attempts(self) -> int:
        return self._data["maxAttempts"]

    @property
    def state(self) -> Literal["pending", "claimed", "uploaded", "evaluating", "done", "failed", "cancelled"]:
        """claimed while leased; evaluating/done once completed; pending when re-queued; failed; cancelled."""
        return self._data["state"]

    @property
    def lease(self) -> Optional[Lease]:
        """The lease while the task is claimed; null otherwise."""
        v = self._data["lease"]
        return None if v is None else Lease(v)

    @property
    def error(self) -> Optional[RunnerTaskError]:
        """The last failure of the task, if any."""
        v = self._data["error"]
        return None if v is None else RunnerTaskError(v)


class ScoreModelsItem(ApiObject):
    """`ScoreModelsItem` of the API."""

    __slots__ = ()
    _FIELDS: ClassVar[Tuple[str, ...]] = ("id", "revision", )

    @property
    def id(self) -> str:
        return self._data["id"]

    @property
    def revision(self) -> str:
        return self._data["revision"]


class Score(ApiObject):
    """`Score` of the API."""

    __slots__ = ()
    _FIELDS: ClassVar[Tuple[str, ...]] = ("dimension", "value", "method", "method_version", "frames", "models", "elapsed_ms", )

    @property
    def dimension(self) -> str:
        return self._data["dimension"]

    @property
    def value(self) -> float:
        """The per-clip value in the dimension's range."""
        return float(self._data["value"])

    @property
    def method(self) -> str:
        """`vbench` (VBench protocol and model) or `lite` (model-free)."""
        return self._data["method"]

    @property
    def method_version(self) -> str:
        return self._data["methodVersion"]

    @property
    def frames(self) -> FramesUsed:
        return FramesUsed(self._data["frames"])

    @property
    def models(self) -> List[ScoreModelsItem]:
        return [ScoreModelsItem(x) for x in self._data["models"]]

    @property
    def elapsed_ms(self) -> float:
        return float(self._data["elapsedMs"])


class ScoreSession(ApiObject):
    """`ScoreSession` of the API."""

    __slots__ = ()
    _FIELDS: ClassVar[Tuple[str, ...]] = ("run_id", "kind", "created_at", "videos", )

    @property
    def run_id(self) -> str:
        """The run id used in paths; a reset gives a new one."""
        return self._data["runId"]

    @property
    def kind(self) -> Literal["score"]:
        return self._data["kind"]

    @property
    def created_at(self) -> str:
        return self._data["createdAt"]

    @property
    def videos(self) -> List[Video]:
        return [Video(x) for x in self._data["videos"]]


class UnscoredDimension(ApiObject):
    """A dimension the user asked for that could not be scored on this server, why, and the fix."""

    __slots__ = ()
    _FIELDS: ClassVar[Tuple[str, ...]] = ("dimension", "code", "detail", "models", "command", )

    @property
    def dimension(self) -> str:
        return self._data["dimension"]

    @property
    def code(self) -> str:
        """model_unavailable (its models are not on this server), method_unavailable (no method of it in this build), or the engine's code recorded on its clips' failures."""
        return self._data["code"]

    @property
    def detail(self) -> str:
        """In words, to show beside the numbers, e.g. 'overall_consistency was not scored: it needs the model clip-vit-b32, not on this server — `vesta models pull clip-vit-b32`'."""
        return self._data["detail"]

    @property
    def models(self) -> List[str]:
        """The model ids that would score it; empty when no model would."""
        return list(self._data["models"])

    @property
    def command(self) -> Optional[str]:
        """The command that fetches those models on the server; null when none would help."""
        return self._data["command"]


class UploadPutResponse(ApiObject):
    """`UploadPutResponse` of the API."""

    __slots__ = ()
    _FIELDS: ClassVar[Tuple[str, ...]] = ("video_id", "state", "size_bytes", )

    @property
    def video_id(self) -> str:
        return self._data["videoId"]

    @property
    def state(self) -> Literal["uploaded"]:
        return self._data["state"]

    @property
    def size_bytes(self) -> int:
        return self._data["sizeBytes"]


class UploadUrlResponse(ApiObject):
    """`UploadUrlResponse` of the API."""

    __slots__ = ()
    _FIELDS: ClassVar[Tuple[str, ...]] = ("video_id", "upload_url", "method", "headers", "expires_at", "max_bytes", )

    @property
    def video_id(self) -> str:
        return self._data["videoId"]

    @property
    def upload_url(self) -> str:
        """PUT the raw bytes here, with exactly the headers below and no others that authenticate (no API key: the URL is its own credential). With the default local blob store the URL is the service's own upload route and carries a signed single-use token; it is minted under VESTA_PUBLIC_URL, or, where that is unset, under the origin this request was sent to (so a page loaded from http://127.0.0.1:8080 uploads there), whose Host must name this machine (loopback, the listen address or an address of the machine, its host name) or be listed in VESTA_ALLOWED_HOSTS, else 400 `validation_failed`. With an S3-compatible blob store (VESTA_BLOB_STORE=s3) it is a presigned PUT straight to the bucket: the bytes never pass through the API, Content-Type (and Content-Length when sizeBytes was declared) are part of its signature, the store itself answers the PUT (its own XML errors, e.g. 403 SignatureDoesNotMatch for another type or size), and the URL can be used again until it expires; the clip is only taken once confirm-upload checked it."""
        return self._data["uploadUrl"]

    @property
    def method(self) -> Literal["PUT"]:
        return self._data["method"]

    @property
    def headers(self) -> Dict[str, Any]:
        """Headers to send with the PUT, exactly as given."""
        return dict(self._data["headers"])

    @property
    def expires_at(self) -> str:
        return self._data["expiresAt"]

    @property
    def max_bytes(self) -> int:
        """Largest body the PUT accepts (the declared size where the store binds it)."""
        return self._data["maxBytes"]


class Video(ApiObject):
    """`Video` of the API."""

    __slots__ = ()
    _FIELDS: ClassVar[Tuple[str, ...]] = ("video_id", "file_name", "content_type", "prompt", "auxiliary", "state", "error", "size_bytes", "dimensions", "scores", "failures", "prompt_notice", "created_at", "uploaded_at", "confirmed_at", "scored_at", )

    @property
    def video_id(self) -> str:
        return self._data["videoId"]

    @property
    def file_name(self) -> str:
        return self._data["fileName"]

    @property
    def content_type(self) -> str:
        return self._data["contentType"]

    @property
    def prompt(self) -> Optional[str]:
        return self._data["prompt"]

    @property
    def auxiliary(self) -> Optional[Auxiliary]:
        v = self._data["auxiliary"]
        return None if v is None else Auxiliary(v)

    @property
    def state(self) -> VideoState:
        return self._data["state"]

    @property
    def error(self) -> Optional[VideoError]:
        v = self._data["error"]
        return None if v is None else VideoError(v)

    @property
    def size_bytes(self) -> Optional[int]:
        return self._data["sizeBytes"]

    @property
    def dimensions(self) -> List[str]:
        """Dimensions scheduled for scoring (set at confirm)."""
        return list(self._data["dimensions"])

    @property
    def scores(self) -> List[Score]:
        return [Score(x) for x in self._data["scores"]]

    @property
    def failures(self) -> List[DimensionFailure]:
        """Dimensions that could not be scored, with the engine code."""
        return [DimensionFailure(x) for x in self._data["failures"]]

    @property
    def prompt_notice(self) -> Optional[PromptNotice]:
        """Set on a scored clip made from a prompt when none of its scores reads the prompt (its models are not on the server); null otherwise."""
        v = self._data["promptNotice"]
        return None if v is None else PromptNotice(v)

    @property
    def created_at(self) -> str:
        return self._data["createdAt"]

    @property
    def uploaded_at(self) -> Optional[str]:
        return self._data["uploadedAt"]

    @property
    def confirmed_at(self) -> Optional[str]:
        return self._data["confirmedAt"]

    @property
    def scored_at(self) -> Optional[str]:
        return self._data["scoredAt"]


class VideoError(ApiObject):
    """`VideoError` of the API."""

    __slots__ = ()
    _FIELDS: ClassVar[Tuple[str, ...]] = ("code", "detail", )

    @property
    def code(self) -> str:
        """An engine error code such as not_a_video, truncated, unsupported_codec."""
        return self._data["code"]

    @property
    def detail(self) -> str:
        return self._data["detail"]


class CompleteRunnerTaskResponse(ApiObject):
    """`CompleteRunnerTaskResponse` of the API."""

    __slots__ = ()
    _FIELDS: ClassVar[Tuple[str, ...]] = ("task", "video", )

    @property
    def task(self) -> RunnerTask:
        return RunnerTask(self._data["task"])

    @property
    def video(self) -> Video:
        return Video(self._data["video"])


class GetSetupStateResponse(ApiObject):
    """`GetSetupStateResponse` of the API."""

    __slots__ = ()
    _FIELDS: ClassVar[Tuple[str, ...]] = ("setup_required", )

    @property
    def setup_required(self) -> bool:
        """True while no account exists: POST /api/v1/auth/setup creates the first admin."""
        return self._data["setupRequired"]


class SetupFirstAdminResponseUser(ApiObject):
    """`SetupFirstAdminResponseUser` of the API."""

    __slots__ = ()
    _FIELDS: ClassVar[Tuple[str, ...]] = ("id", "name", "email", "role", )

    @property
    def id(self) -> str:
        return self._data["id"]

    @property
    def name(self) -> str:
        """User name (owner of runs and keys)."""
        return self._data["name"]

    @property
    def email(self) -> str:
        return self._data["email"]

    @property
    def role(self) -> Union[Literal["admin"], Literal["user"]]:
        """`admin` or `user`."""
        return self._data["role"]


class SetupFirstAdminResponse(ApiObject):
    """A signed-in dashboard session; the `vesta_session` cookie is set (HttpOnly, SameSite=Lax)."""

    __slots__ = ()
    _FIELDS: ClassVar[Tuple[str, ...]] = ("user", "csrf_token", "expires_at", )

    @property
    def user(self) -> SetupFirstAdminResponseUser:
        return SetupFirstAdminResponseUser(self._data["user"])

    @property
    def csrf_token(self) -> str:
        """Send it as `X-CSRF-Token` on every state-changing request made with the session cookie."""
        return self._data["csrfToken"]

    @property
    def expires_at(self) -> str:
        """When the session ends unless used (idle or absolute expiry)."""
        return self._data["expiresAt"]


class SignInResponseUser(ApiObject):
    """`SignInResponseUser` of the API."""

    __slots__ = ()
    _FIELDS: ClassVar[Tuple[str, ...]] = ("id", "name", "email", "role", )

    @property
    def id(self) -> str:
        return self._data["id"]

    @property
    def name(self) -> str:
        """User name (owner of runs and keys)."""
        return self._data["name"]

    @property
    def email(self) -> str:
        return self._data["email"]

    @property
    def role(self) -> Union[Literal["admin"], Literal["user"]]:
        """`admin` or `user`."""
        return self._data["role"]


class SignInResponse(ApiObject):
    """A signed-in dashboard session; the `vesta_session` cookie is set (HttpOnly, SameSite=Lax)."""

    __slots__ = ()
    _FIELDS: ClassVar[Tuple[str, ...]] = ("user", "csrf_token", "expires_at", )

    @property
    def user(self) -> SignInResponseUser:
        return SignInResponseUser(self._data["user"])

    @property
    def csrf_token(self) -> str:
        """Send it as `X-CSRF-Token` on every state-changing request made with the session cookie."""
        return self._data["csrfToken"]

    @property
    def expires_at(self) -> str:
        """When the session ends unless used (idle or absolute expiry)."""
        return self._data["expiresAt"]


class AcceptInviteResponseUser(ApiObject):
    """`AcceptInviteResponseUser` of the API."""

    __slots__ = ()
    _FIELDS: ClassVar[Tuple[str, ...]] = ("id", "name", "email", "role", )

    @property
    def id(self) -> str:
        return self._data["id"]

    @property
    def name(self) -> str:
        """User name (owner of runs and keys)."""
        return self._data["name"]

    @property
    def email(self) -> str:
        return self._data["email"]

    @property
    def role(self) -> Union[Literal["admin"], Literal["user"]]:
        """`admin` or `user`."""
        return self._data["role"]


class AcceptInviteResponse(ApiObject):
    """A signed-in dashboard session; the `vesta_session` cookie is set (HttpOnly, SameSite=Lax)."""

    __slots__ = ()
    _FIELDS: ClassVar[Tuple[str, ...]] = ("user", "csrf_token", "expires_at", )

    @property
    def user(self) -> AcceptInviteResponseUser:
        return AcceptInviteResponseUser(self._data["user"])

    @property
    def csrf_token(self) -> str:
        """Send it as `X-CSRF-Token` on every state-changing request made with the session cookie."""
        return self._data["csrfToken"]

    @property
    def expires_at(self) -> str:
        """When the session ends unless used (idle or absolute expiry)."""
        return self._data["expiresAt"]


class GetCurrentSessionResponseUser(ApiObject):
    """`GetCurrentSessionResponseUser` of the API."""

    __slots__ = ()
    _FIELDS: ClassVar[Tuple[str, ...]] = ("id", "name", "email", "role", )

    @property
    def id(self) -> str:
        return self._data["id"]

    @property
    def name(self) -> str:
        """User name (owner of runs and keys)."""
        return self._data["name"]

    @property
    def email(self) -> str:
        return self._data["email"]

    @property
    def role(self) -> Union[Literal["admin"], Literal["user"]]:
        """`admin` or `user`."""
        return self._data["role"]


class GetCurrentSessionResponse(ApiObject):
    """A signed-in dashboard session; the `vesta_session` cookie is set (HttpOnly, SameSite=Lax)."""

    __slots__ = ()
    _FIELDS: ClassVar[Tuple[str, ...]] = ("user", "csrf_token", "expires_at", )

    @property
    def user(self) -> GetCurrentSessionResponseUser:
        return GetCurrentSessionResponseUser(self._data["user"])

    @property
    def csrf_token(self) -> str:
        """Send it as `X-CSRF-Token` on every state-changing request made with the session cookie."""
        return self._data["csrfToken"]

    @property
    def expires_at(self) -> str:
        """When the session ends unless used (idle or absolute expiry)."""
        return self._data["expiresAt"]


class ListWebSessionsResponseItemsItem(ApiObject):
    """`ListWebSessionsResponseItemsItem` of the API."""

    __slots__ = ()
    _FIELDS: ClassVar[Tuple[str, ...]] = ("id", "created_at", "last_seen_at", "expires_at", "user_agent", "ip", "current", )

    @property
    def id(self) -> str:
        return self._data["id"]

    @property
    def created_at(self) -> str:
        return self._data["createdAt"]

    @property
    def last_seen_at(self) -> str:
        return self._data["lastSeenAt"]

    @property
    def expires_at(self) -> str:
        return self._data["expiresAt"]

    @property
    def user_agent(self) -> Optional[str]:
        return self._data["userAgent"]

    @property
    def ip(self) -> Optional[str]:
        return self._data["ip"]

    @property
    def current(self) -> bool:
        """The session making this request."""
        return self._data["current"]


class ListWebSessionsResponse(ApiObject):
    """`ListWebSessionsResponse` of the API."""

    __slots__ = ()
    _FIELDS: ClassVar[Tuple[str, ...]] = ("items", )

    @property
    def items(self) -> List[ListWebSessionsResponseItemsItem]:
        return [ListWebSessionsResponseItemsItem(x) for x in self._data["items"]]


class ListApiKeysResponseItemsItem(ApiObject):
    """`ListApiKeysResponseItemsItem` of the API."""

    __slots__ = ()
    _FIELDS: ClassVar[Tuple[str, ...]] = ("id", "name", "prefix", "created_at", "last_used_at", "expires_at", "expired", )

    @property
    def id(self) -> str:
        return self._data["id"]

    @property
    def name(self) -> Optional[str]:
        """Null for keys made by `vesta admin create-key`."""
        return self._data["name"]

    @property
    def prefix(self) -> str:
        """The first 12 characters of the key."""
        return self._data["prefix"]

    @property
    def created_at(self) -> str:
        return self._data["createdAt"]

    @property
    def last_used_at(self) -> Optional[str]:
        """Last successful use, to within about a minute (written in batches)."""
        return self._data["lastUsedAt"]

    @property
    def expires_at(self) -> Optional[str]:
        return self._data["expiresAt"]

    @property
    def expired(self) -> bool:
        return self._data["expired"]


class ListApiKeysResponse(ApiObject):
    """`ListApiKeysResponse` of the API."""

    __slots__ = ()
    _FIELDS: ClassVar[Tuple[str, ...]] = ("items", )

    @property
    def items(self) -> List[ListApiKeysResponseItemsItem]:
        return [ListApiKeysResponseItemsItem(x) for x in self._data["items"]]


class CreateApiKeyResponseApiKey(ApiObject):
    """`CreateApiKeyResponseApiKey` of the API."""

    __slots__ = ()
    _FIELDS: ClassVar[Tuple[str, ...]] = ("id", "name", "prefix", "created_at", "last_used_at", "expires_at", "expired", )

    @property
    def id(self) -> str:
        return self._data["id"]

    @property
    def name(self) -> Optional[str]:
        """Null for keys made by `vesta admin create-key`."""
        return self._data["name"]

    @property
    def prefix(self) -> str:
        """The first 12 characters of the key."""
        return self._data["prefix"]

    @property
    def created_at(self) -> str:
        return self._data["createdAt"]

    @property
    def last_used_at(self) -> Optional[str]:
        """Last successful use, to within about a minute (written in batches)."""
        return self._data["lastUsedAt"]

    @property
    def expires_at(self) -> Optional[str]:
        return self._data["expiresAt"]

    @property
    def expired(self) -> bool:
        return self._data["expired"]


class CreateApiKeyResponse(ApiObject):
    """`CreateApiKeyResponse` of the API."""

    __slots__ = ()
    _FIELDS: ClassVar[Tuple[str, ...]] = ("key", "api_key", )

    @property
    def key(self) -> str:
        """The whole key. Shown once: only a hash is stored."""
        return self._data["key"]

    @property
    def api_key(self) -> CreateApiKeyResponseApiKey:
        return CreateApiKeyResponseApiKey(self._data["apiKey"])


class ListUsersResponseItemsItem(ApiObject):
    """`ListUsersResponseItemsItem` of the API."""

    __slots__ = ()
    _FIELDS: ClassVar[Tuple[str, ...]] = ("id", "name", "email", "role", "created_at", "disabled_at", )

    @property
    def id(self) -> str:
        return self._data["id"]

    @property
    def name(self) -> str:
        return self._data["name"]

    @property
    def email(self) -> Optional[str]:
        return self._data["email"]

    @property
    def role(self) -> Union[Literal["admin"], Literal["user"]]:
        """`admin` or `user`."""
        return self._data["role"]

    @property
    def created_at(self) -> str:
        return self._data["createdAt"]

    @property
    def disabled_at(self) -> Optional[str]:
        return self._data["disabledAt"]


class ListUsersResponse(ApiObject):
    """`ListUsersResponse` of the API."""

    __slots__ = ()
    _FIELDS: ClassVar[Tuple[str, ...]] = ("items", )

    @property
    def items(self) -> List[ListUsersResponseItemsItem]:
        return [ListUsersResponseItemsItem(x) for x in self._data["items"]]


class DisableUserResponse(ApiObject):
    """`DisableUserResponse` of the API."""

    __slots__ = ()
    _FIELDS: ClassVar[Tuple[str, ...]] = ("id", "name", "email", "role", "created_at", "disabled_at", )

    @property
    def id(self) -> str:
        return self._data["id"]

    @property
    def name(self) -> str:
        return self._data["name"]

    @property
    def email(self) -> Optional[str]:
        return self._data["email"]

    @property
    def role(self) -> Union[Literal["admin"], Literal["user"]]:
        """`admin` or `user`."""
        return self._data["role"]

    @property
    def created_at(self) -> str:
        return self._data["createdAt"]

    @property
    def disabled_at(self) -> Optional[str]:
        return self._data["disabledAt"]


class ListInvitesResponseItemsItem(ApiObject):
    """`ListInvitesResponseItemsItem` of the API."""

    __slots__ = ()
    _FIELDS: ClassVar[Tuple[str, ...]] = ("id", "email", "role", "created_at", "expires_at", "used_at", "revoked_at", )

    @property
    def id(self) -> str:
        return self._data["id"]

    @property
    def email(self) -> str:
        return self._data["email"]

    @property
    def role(self) -> Union[Literal["admin"], Literal["user"]]:
        """`admin` or `user`."""
        return self._data["role"]

    @property
    def created_at(self) -> str:
        return self._data["createdAt"]

    @property
    def expires_at(self) -> str:
        return self._data["expiresAt"]

    @property
    def used_at(self) -> Optional[str]:
        return self._data["usedAt"]

    @property
    def revoked_at(self) -> Optional[str]:
        return self._data["revokedAt"]


class ListInvitesResponse(ApiObject):
    """`ListInvitesResponse` of the API."""

    __slots__ = ()
    _FIELDS: ClassVar[Tuple[str, ...]] = ("items", )

    @property
    def items(self) -> List[ListInvitesResponseItemsItem]:
        return [ListInvitesResponseItemsItem(x) for x in self._data["items"]]


class CreateInviteResponseInvite(ApiObject):
    """`CreateInviteResponseInvite` of the API."""

    __slots__ = ()
    _FIELDS: ClassVar[Tuple[str, ...]] = ("id", "email", "role", "created_at", "expires_at", "used_at", "revoked_at", )

    @property
    def id(self) -> str:
        return self._data["id"]

    @property
    def email(self) -> str:
        return self._data["email"]

    @property
    def role(self) -> Union[Literal["admin"], Literal["user"]]:
        """`admin` or `user`."""
        return self._data["role"]

    @property
    def created_at(self) -> str:
        return self._data["createdAt"]

    @property
    def expires_at(self) -> str:
        return self._data["expiresAt"]

    @property
    def used_at(self) -> Optional[str]:
        return self._data["usedAt"]

    @property
    def revoked_at(self) -> Optional[str]:
        return self._data["revokedAt"]


class CreateInviteResponse(ApiObject):
    """`CreateInviteResponse` of the API."""

    __slots__ = ()
    _FIELDS: ClassVar[Tuple[str, ...]] = ("invite", "token", "url", )

    @property
    def invite(self) -> CreateInviteResponseInvite:
        return CreateInviteResponseInvite(self._data["invite"])

    @property
    def token(self) -> str:
        """Single-use token; shown once (only a hash is stored)."""
        return self._data["token"]

    @property
    def url(self) -> str:
        """The invite link to send: `<base>/dashboard/invite#token=…`, the base VESTA_PUBLIC_URL or, where that is unset, the origin this request was sent to (its Host must name this machine or be listed in VESTA_ALLOWED_HOSTS, else 400 `validation_failed` and no invite is made)."""
        return self._data["url"]


# One exception class per code of the catalogue, under its status family; a code this release
# does not know becomes its family's class (vesta._exceptions.family_of).
class ValidationFailedError(BadRequestError):
    """400 `validation_failed`."""


class InvalidFieldError(BadRequestError):
    """400 `invalid_field`."""


class RankPromptMismatchError(BadRequestError):
    """400 `RANK_PROMPT_MISMATCH`."""


class InvalidVideoError(BadRequestError):
    """400 `invalid_video`."""


class UnauthorizedError(AuthenticationError):
    """401 `unauthorized`."""


class ForbiddenError(PermissionDeniedError):
    """403 `forbidden`."""


class RequestTimeoutError(ApiError):
    """408 `request_timeout`."""


class IdempotencyMismatchError(ConflictError):
    """409 `idempotency_mismatch`."""


class NoScoredClipsError(ConflictError):
    """409 `no_scored_clips`."""


class JudgingClosedError(ConflictError):
    """409 `judging_closed`."""


class PairNotOfferedError(ConflictError):
    """409 `pair_not_offered`."""


class JudgeNotInvitedError(ConflictError):
    """409 `judge_not_invited`."""


class AlreadyVotedError(ConflictError):
    """409 `already_voted`."""


class PayloadTooLargeError(ApiError):
    """413 `payload_too_large`."""


class UriTooLongError(ApiError):
    """414 `uri_too_long`."""


class UnsupportedMediaTypeError(ApiError):
    """415 `unsupported_media_type`."""


class RangeNotSatisfiableError(ApiError):
    """416 `range_not_satisfiable`."""


class RateLimitedError(RateLimitError):
    """429 `rate_limited`."""


class HeadersTooLargeError(ApiError):
    """431 `headers_too_large`."""


class InternalError(InternalServerError):
    """500 `internal_error`."""


class UpstreamUnavailableError(InternalServerError):
    """503 `upstream_unavailable`."""


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
    "no_scored_clips": NoScoredClipsError,
    "judging_closed": JudgingClosedError,
    "pair_not_offered": PairNotOfferedError,
    "judge_not_invited": JudgeNotInvitedError,
    "already_voted": AlreadyVotedError,
    "payload_too_large": PayloadTooLargeError,
    "uri_too_long": UriTooLongError,
    "unsupported_media_type": UnsupportedMediaTypeError,
    "range_not_satisfiable": RangeNotSatisfiableError,
    "rate_limited": RateLimitedError,
    "headers_too_large": HeadersTooLargeError,
    "internal_error": InternalError,
    "upstream_unavailable": UpstreamUnavailableError,
}
