"""Exceptions of the Vesta SDK.

Every error the SDK raises is a :class:`VestaError` with a stable ``code`` and, where they apply,
``status``, ``request_id`` and (inside ``run_with_pipeline``) ``task_id`` / ``run_id``. Error
answers of the API are :class:`ApiError` subclasses in two layers: one class per HTTP status
family (:class:`BadRequestError`, :class:`AuthenticationError`, :class:`PermissionDeniedError`,
:class:`NotFoundError`, :class:`ConflictError`, :class:`RateLimitError`,
:class:`InternalServerError`), and one class per code of the server's catalogue (generated from
openapi/openapi.json into ``vesta._generated``) inheriting its family. Network failures are
:class:`ApiConnectionError`; :class:`ApiTimeoutError` is one of them. The API key never appears in
a message, a repr or an attribute.
"""
from __future__ import annotations

from typing import Any, Dict, Mapping, Optional, Type


class VestaError(Exception):
    """Base class of every SDK error; branch on ``code`` (or the class), never on the message."""

    #: Stable code: the API's error code, or the SDK's own (``connection_failed``, ``timeout``, …).
    code: str
    #: The request id of the answer that caused it (``X-Request-Id``), for the server's logs.
    request_id: Optional[str] = None
    #: Inside ``run_with_pipeline``: the runner task and run the error happened in.
    task_id: Optional[str] = None
    run_id: Optional[str] = None

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code

    @property
    def message(self) -> str:
        """The message (``str(err)``)."""
        return str(self.args[0]) if self.args else ""

    @property
    def status(self) -> Optional[int]:
        """The HTTP status of the answer that caused it; None when no answer was received."""
        return None


class ApiError(VestaError):
    """The service answered with an error status (``{code, detail, requestId}``)."""

    #: The answer's explanation (may change between releases; branch on ``code``).
    detail: str
    method: str
    #: The URL called (an upload URL without its query, which is its credential).
    url: str
    #: The answer's headers, lower-cased names.
    headers: Mapping[str, str]

    def __init__(
        self,
        *,
        status: int,
        code: str,
        detail: str,
        request_id: Optional[str] = None,
        method: str = "",
        url: str = "",
        headers: Optional[Mapping[str, str]] = None,
    ) -> None:
        suffix = f" (request {request_id})" if request_id else ""
        super().__init__(code, f"{status} {code}: {detail}{suffix}")
        self._status = status
        self.detail = detail
        self.request_id = request_id
        self.method = method
        self.url = url
        self.headers = dict(headers or {})

    @property
    def status(self) -> int:
        """The answer's HTTP status."""
        return self._status


class BadRequestError(ApiError):
    """400: the request is invalid (its body, a field, a clip the server cannot use)."""


class AuthenticationError(ApiError):
    """401: no key, or a key the service does not accept."""


class PermissionDeniedError(ApiError):
    """403: the key may not do this (the resource is someone else's)."""


class NotFoundError(ApiError):
    """404 (code ``not_found``): the resource does not exist or is not the caller's."""


class ConflictError(ApiError):
    """409 (code ``conflict``): the resource's state does not allow the call."""


class RateLimitError(ApiError):
    """429: too many requests; retried after ``Retry-After`` while retries remain."""


class InternalServerError(ApiError):
    """5xx: the service failed; retried while retries remain."""


#: The family class of each status (5xx: :class:`InternalServerError`).
STATUS_FAMILIES: Dict[int, Type[ApiError]] = {
    400: BadRequestError,
    401: AuthenticationError,
    403: PermissionDeniedError,
    404: NotFoundError,
    409: ConflictError,
    429: RateLimitError,
}


def family_of(status: int) -> Type[ApiError]:
    """The class for an error answer whose code this release does not know."""
    if status >= 500:
        return InternalServerError
    return STATUS_FAMILIES.get(status, ApiError)


class MissingApiKeyError(VestaError):
    """No key was passed and the named environment variable is unset or empty."""

    def __init__(self, env_var: str) -> None:
        super().__init__(
            "missing_api_key",
            f"No API key: set the {env_var} environment variable or pass api_key= to vesta.Vesta().",
        )
        self.env_var = env_var


class ApiConnectionError(VestaError):
    """The service (or, for an upload PUT, its blob store) could not be reached (DNS, refused,
    reset), after every retry. ``url`` of an upload is shown without its query (its credential)."""

    #: The low-level error of the last attempt (an ``OSError`` or ``http.client`` error); None
    #: for a timeout.
    cause: Optional[BaseException]

    def __init__(self, url: str, attempts: int, cause: BaseException) -> None:
        plural = "" if attempts == 1 else "s"
        super().__init__("connection_failed", f"Could not reach {url} after {attempts} attempt{plural}: {describe(cause)}")
        self.url = url
        self.attempts = attempts
        self.cause = cause


class ApiTimeoutError(ApiConnectionError):
    """A request did not answer within its timeout, after every retry (a kind of
    :class:`ApiConnectionError`). ``phase``: ``connect``, ``read`` or ``write``."""

    def __init__(self, url: str, timeout: float, attempts: int, phase: str = "read") -> None:
        plural = "" if attempts == 1 else "s"
        VestaError.__init__(
            self, "timeout", f"Request to {url} timed out after {timeout:g} s ({phase}; {attempts} attempt{plural})."
        )
        self.url = url
        self.timeout = timeout
        self.attempts = attempts
        self.phase = phase
        self.cause: Optional[BaseException] = None


class UploadSourceError(VestaError):
    """The upload source (path, bytes, file object) cannot be read."""

    def __init__(self, message: str) -> None:
        super().__init__("file_unreadable", message)


class ScoringFailedError(VestaError):
    """``wait=True`` was asked and the clip ended ``failed``; ``video`` is the clip as listed."""

    def __init__(self, video_id: str, video: Any, reason: Optional[str]) -> None:
        super().__init__("scoring_failed", f"Scoring of video {video_id} failed" + (f": {reason}" if reason else "."))
        self.video_id = video_id
        self.video = video


class WaitTimeoutError(VestaError):
    """A wait (for a clip or a run) passed its deadline."""

    def __init__(self, what: str, timeout: float, last_state: Optional[str], *, video_id: Optional[str] = None,
                 run_id: Optional[str] = None) -> None:
        super().__init__("wait_timeout", f"{what} did not finish within {timeout:g} s (last state: {last_state or 'unknown'}).")
        self.last_state = last_state
        #: The clip waited for (a Score/Rank upload's wait); None for a Bench run's wait.
        self.video_id = video_id
        #: The Bench run waited for (``bench.wait``); None for a clip's wait.
        self.run_id = run_id


class VideoGoneError(VestaError):
    """A wait for a clip ended because the clip is no longer in the session: the session was reset
    (from another process, the dashboard or the CLI) and has another run id now, or the clip was
    removed. Waiting on would only run out the deadline."""

    def __init__(self, video_id: str, run_id: str, current_run_id: str) -> None:
        if run_id == current_run_id:
            message = f"Video {video_id} is no longer in session {run_id} (it was removed) while waiting for its scores."
        else:
            message = (
                f"The session {run_id} was reset (it is now {current_run_id}) while waiting for video {video_id}: "
                "the clip is no longer listed, upload it again to score it."
            )
        super().__init__("video_gone", message)
        self.video_id = video_id
        #: The session run the clip was uploaded to, and the session's run id now.
        self.run_id: Optional[str] = run_id
        self.current_run_id = current_run_id


class InvalidArgumentError(VestaError, ValueError):
    """An argument the SDK refuses before sending anything (an empty prompt, a base URL without
    http:// or https://, a timeout of 0 or less); ``argument`` names it. Also a ``ValueError``."""

    def __init__(self, argument: str, message: str) -> None:
        super().__init__("invalid_argument", message)
        self.argument = argument


class ClientClosedError(VestaError, RuntimeError):
    """The client was used after ``close()`` / ``aclose()``. Also a ``RuntimeError``."""

    def __init__(self, name: str) -> None:
        super().__init__("client_closed", f"This {name} is closed: create a new client (or use it in a with block).")


class PipelineOutputError(VestaError):
    """A pipeline callable returned something that is not a clip (nothing, a wrong type, no FFmpeg for frames)."""

    def __init__(self, message: str) -> None:
        super().__init__("pipeline_output", message)


class GenerationError(Exception):
    """Raise from a pipeline callable to fail the clip; ``retryable=False`` fails it for good."""

    def __init__(self, message: str, retryable: bool = True) -> None:
        super().__init__(message)
        self.retryable = retryable


def describe(cause: BaseException) -> str:
    """A low-level error in words: its text, prefixed by its type unless the text names it."""
    text = str(cause) or type(cause).__name__
    return text if type(cause).__name__ in text else f"{type(cause).__name__}: {text}"
