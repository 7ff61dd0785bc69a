"""The request core both clients share, written once without I/O ("sans-I/O").

Every call is a *plan*: a generator that yields effects — :class:`Send` (one HTTP exchange) and
:class:`Sleep` — and gets their results back. ``vesta.Vesta`` runs plans with a blocking
transport (``http.client``) and ``time.sleep``; ``vesta.AsyncVesta`` with an asyncio transport and
``asyncio.sleep`` (``vesta._drive``). Retries, back-off, ``Retry-After``, idempotency keys, typed
errors, the upload flow, waits and the runner's reports are plans, so each exists once.
"""
from __future__ import annotations

import email.utils
import json
import logging
import random
import threading
import time
import uuid
from typing import Any, Callable, Dict, Generator, Mapping, Optional, TypeVar, Union
from urllib.parse import parse_qsl, quote, urlencode, urljoin, urlsplit

from ._exceptions import (
    ApiConnectionError,
    ApiError,
    ApiTimeoutError,
    InvalidArgumentError,
    UploadSourceError,
    VestaError,
    family_of,
)
from ._generated import ERROR_CLASSES

T = TypeVar("T")
log = logging.getLogger("vesta")

#: Longest server-requested wait (``Retry-After``) honoured, in seconds.
MAX_RETRY_AFTER = 60.0
#: Largest chunk written to a socket while streaming an upload.
CHUNK = 1 << 20
DEFAULT_TIMEOUT = 60.0
DEFAULT_MAX_RETRIES = 2

_random = random.SystemRandom()
QueryValue = Union[str, int, None]


# -- options --------------------------------------------------------------------------------------
class Timeout:
    """Seconds a request may wait, per phase and per attempt: ``connect`` (opening the
    connection), ``read`` (each wait for bytes of the answer) and ``write`` (each wait while
    sending, an upload's chunks included). ``Timeout(30.0)`` sets all three; keywords override
    one: ``Timeout(60.0, connect=5.0)``. Every value must be more than 0."""

    __slots__ = ("connect", "read", "write")

    def __init__(
        self,
        timeout: Optional[float] = None,
        *,
        connect: Optional[float] = None,
        read: Optional[float] = None,
        write: Optional[float] = None,
    ) -> None:
        base = DEFAULT_TIMEOUT if timeout is None else _positive("timeout", timeout)
        self.connect: float = base if connect is None else _positive("connect", connect)
        self.read: float = base if read is None else _positive("read", read)
        self.write: float = base if write is None else _positive("write", write)

    def __repr__(self) -> str:
        return f"Timeout(connect={self.connect:g}, read={self.read:g}, write={self.write:g})"

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Timeout) and (self.connect, self.read, self.write) == (other.connect, other.read, other.write)


def _positive(name: str, value: object) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise InvalidArgumentError(name, f"{name} must be a number of seconds, got {type(value).__name__}")
    if not value > 0:
        raise InvalidArgumentError(name, f"{name} must be more than 0 seconds, got {value!r}")
    return float(value)


TimeoutTypes = Union[float, Timeout]


def to_timeout(value: TimeoutTypes) -> Timeout:
    return value if isinstance(value, Timeout) else Timeout(value)


def check_retries(value: object) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        raise InvalidArgumentError("max_retries", f"max_retries must be a whole number of at least 0, got {value!r}")
    return value


class CallOptions:
    """Per-call overrides of the client's defaults (every method takes them as keywords)."""

    __slots__ = ("timeout", "max_retries", "extra_headers")

    def __init__(
        self,
        timeout: Optional[TimeoutTypes] = None,
        max_retries: Optional[int] = None,
        extra_headers: Optional[Mapping[str, str]] = None,
    ) -> None:
        self.timeout = None if timeout is None else to_timeout(timeout)
        self.max_retries = None if max_retries is None else check_retries(max_retries)
        self.extra_headers = dict(extra_headers) if extra_headers else None


NO_OPTIONS = CallOptions()


# -- requests and answers -------------------------------------------------------------------------
class Body:
    """A request body that can be sent more than once: bytes, or a seekable binary file, with a
    progress callback ``(sent, total)``."""

    def __init__(self, data: Any, length: int, progress: Optional[Callable[[int, int], None]] = None) -> None:
        self.data = data
        self.length = length
        self.progress = progress
        self.in_memory = isinstance(data, (bytes, bytearray, memoryview))
        self.start = 0 if self.in_memory else int(data.tell())

    def rewind(self) -> None:
        if self.in_memory:
            return
        try:
            self.data.seek(self.start)
        except OSError as err:
            raise UploadSourceError(f"Cannot read the clip: {err.strerror or err}") from None

    def read(self, sent: int) -> bytes:
        """The next chunk after ``sent`` bytes. A source that cannot be read is the clip's fault,
        not the network's: UploadSourceError (an OSError would be taken for a connection failure)."""
        size = min(CHUNK, self.length - sent)
        if self.in_memory:
            return bytes(memoryview(self.data)[sent : sent + size])
        try:
            chunk: bytes = self.data.read(size)
        except OSError as err:
            raise UploadSourceError(f"Cannot read the clip after {sent} bytes: {err.strerror or err}") from None
        if not chunk:
            raise UploadSourceError(f"The file ended after {sent} of {self.length} bytes (it changed during the upload).")
        return chunk

    def sent(self, sent: int) -> None:
        if self.progress is not None:
            self.progress(sent, self.length)


class Request:
    """One HTTP exchange to make (and to make again on a retry)."""

    __slots__ = ("method", "url", "headers", "body", "timeout", "shown_url", "secret_query")

    def __init__(
        self,
        method: str,
        url: str,
        headers: Dict[str, str],
        body: Union[bytes, Body, None],
        timeout: Timeout,
        shown_url: Optional[str] = None,
    ) -> None:
        self.method = method
        self.url = url
        self.headers = headers
        self.body = body
        self.timeout = timeout
        #: The URL errors and logs name: an upload URL without its query (its credential).
        self.shown_url = shown_url or url
        self.secret_query = shown_url is not None and shown_url != url


class Response:
    """An HTTP answer: ``status``, ``headers`` (lower-cased names), ``content`` (bytes)."""

    __slots__ = ("status", "headers", "content", "method", "url", "elapsed")
    status: int
    headers: Dict[str, str]
    content: bytes
    method: str
    url: str
    elapsed: float

    def __init__(self, status: int, headers: Dict[str, str], content: bytes, method: str = "", url: str = "", elapsed: float = 0.0) -> None:
        self.status = status
        self.headers = headers
        self.content = content
        self.method = method
        #: The URL called (an upload URL without its query).
        self.url = url
        #: Seconds from sending the request to reading the whole answer.
        self.elapsed = elapsed

    @property
    def request_id(self) -> Optional[str]:
        """The ``X-Request-Id`` the service gave this answer."""
        return self.headers.get("x-request-id")

    def json(self) -> Any:
        return json.loads(self.content) if self.content else None

    @property
    def text(self) -> str:
        return self.content.decode("utf-8")

    def __repr__(self) -> str:
        return f"<Response {self.status} {self.method} {self.url}>"


class TransportFailure:
    """A request that got no answer: no connection, a cut, or a timeout in ``phase``."""

    __slots__ = ("error", "timeout_phase")

    def __init__(self, error: BaseException, timeout_phase: Optional[str] = None) -> None:
        self.error = error
        self.timeout_phase = timeout_phase

    def to_error(self, request: Request) -> VestaError:
        if self.timeout_phase is not None:
            seconds = getattr(request.timeout, self.timeout_phase)
            return ApiTimeoutError(request.shown_url, seconds, 1, self.timeout_phase)
        cause = self.error if not request.secret_query else redacted(self.error, request.url)
        return ApiConnectionError(request.shown_url, 1, cause)


Outcome = Union[Response, TransportFailure]


# -- effects and plans ----------------------------------------------------------------------------
class Effect:
    """Something a plan asks its driver to do."""

    __slots__ = ()


class Send(Effect):
    """Effect: make ``request`` once; the driver sends back a Response or a TransportFailure."""

    __slots__ = ("request",)

    def __init__(self, request: Request) -> None:
        self.request = request


class Sleep(Effect):
    """Effect: wait ``seconds``; with ``stop`` (a threading.Event) the wait ends when it is set,
    and the driver sends back True then."""

    __slots__ = ("seconds", "stop")

    def __init__(self, seconds: float, stop: Optional[threading.Event] = None) -> None:
        self.seconds = max(0.0, seconds)
        self.stop = stop


Plan = Generator[Effect, Any, T]


def backoff_delay(retry: int, initial: float = 0.5, maximum: float = 8.0) -> float:
    """Delay before retry ``retry`` (0-based): ``initial * 2**retry`` capped, minus up to 25 % jitter."""
    base = min(initial * (2 ** min(retry, 30)), maximum)
    return base * (1 - 0.25 * _random.random())


def parse_retry_after(value: Optional[str], now: Optional[float] = None) -> Optional[float]:
    """``Retry-After`` (seconds or an HTTP date) in seconds, capped; None when absent or invalid."""
    if value is None or not value.strip():
        return None
    text = value.strip()
    try:
        seconds = float(text)
    except ValueError:
        try:
            when = email.utils.parsedate_to_datetime(text)
        except (TypeError, ValueError):
            return None
        seconds = when.timestamp() - (time.time() if now is None else now)
    return max(0.0, min(seconds, MAX_RETRY_AFTER))


def is_transient(err: BaseException) -> bool:
    """No answer (connection, timeout), or 408, 429, 5xx, or a 409 with ``Retry-After`` (a
    duplicate request still in progress): worth sending again."""
    if isinstance(err, ApiConnectionError):
        return True
    if isinstance(err, ApiError):
        return err.status in (408, 429) or err.status >= 500 or (err.status == 409 and "retry-after" in err.headers)
    return False


def with_attempts(err: VestaError, attempts: int) -> VestaError:
    """A network error or timeout, counting every attempt a retry loop made."""
    if attempts <= 1:
        return err
    if isinstance(err, ApiTimeoutError):
        return ApiTimeoutError(err.url, err.timeout, attempts, err.phase)
    if isinstance(err, ApiConnectionError) and err.cause is not None:
        return ApiConnectionError(err.url, attempts, err.cause)
    return err


def retrying(
    make: Callable[[int], Plan[T]],
    delay_for: Callable[[VestaError, int], Optional[float]],
    on_retry: Optional[Callable[[VestaError, float], None]] = None,
    stop: Optional[threading.Event] = None,
) -> Plan[T]:
    """The one retry loop: runs ``make(attempt)`` until it returns, or until ``delay_for(error,
    attempt)`` answers None (the error, counting the attempts, is raised). A ``stop`` event set
    during a wait ends the loop with the last error."""
    attempt = 0
    while True:
        failed: Optional[VestaError] = None
        try:
            return (yield from make(attempt))
        except VestaError as err:
            failed = err
        delay = delay_for(failed, attempt)
        if delay is None:
            raise with_attempts(failed, attempt + 1)
        if on_retry is not None:
            on_retry(failed, delay)
        if (yield Sleep(delay, stop)):
            raise with_attempts(failed, attempt + 1)
        attempt += 1


def attempt(request: Request) -> Plan[Response]:
    """One exchange: the 2xx answer, or its typed error."""
    outcome = yield Send(request)
    if isinstance(outcome, TransportFailure):
        raise outcome.to_error(request)
    assert isinstance(outcome, Response)
    if 200 <= outcome.status < 300:
        return outcome
    raise to_api_error(outcome, request)


def request_plan(request: Request, max_retries: int) -> Plan[Response]:
    """An exchange with the client's retries: transient failures are sent again after the
    back-off or the answer's ``Retry-After``, with the same request (and Idempotency-Key)."""

    def delay_for(err: VestaError, n: int) -> Optional[float]:
        if n >= max_retries or not is_transient(err):
            return None
        hinted = parse_retry_after(err.headers.get("retry-after")) if isinstance(err, ApiError) else None
        return backoff_delay(n) if hinted is None else hinted

    return (yield from retrying(lambda _n: attempt(request), delay_for))


# -- errors ---------------------------------------------------------------------------------------
def to_api_error(res: Response, request: Request) -> ApiError:
    """The typed error of an error answer: the class of its catalogue code, else of its status
    family. What it quotes of an upload's answer has the URL's query values replaced."""
    code: Optional[str] = None
    detail: Optional[str] = None
    request_id: Optional[str] = None
    try:
        parsed = json.loads(res.content)
        if isinstance(parsed, dict):
            fields: Dict[str, Any] = parsed  # type: ignore[assignment]
            if isinstance(fields.get("code"), str):
                code = str(fields["code"])
            if isinstance(fields.get("detail"), str):
                detail = str(fields["detail"])
            elif isinstance(fields.get("message"), str):
                detail = str(fields["message"])
            if isinstance(fields.get("requestId"), str):
                request_id = str(fields["requestId"])
    except ValueError:
        pass  # not JSON (a proxy's page): the status and an excerpt still say what happened
    if code is None:
        code = _fallback_code(res.status)
    if detail is None:
        text = res.content.decode("utf-8", "replace").strip()
        # Redacted before the excerpt is cut, so that no part of a value is left at its end.
        detail = (redact_query_values(text, request.url) if request.secret_query else text)[:200] or f"HTTP {res.status}"
    elif request.secret_query:
        detail = redact_query_values(detail, request.url)
    cls = ERROR_CLASSES.get(code) or family_of(res.status)
    return cls(
        status=res.status,
        code=code,
        detail=detail,
        request_id=request_id or res.headers.get("x-request-id"),
        method=request.method,
        url=request.shown_url,
        headers=res.headers,
    )


def _fallback_code(status: int) -> str:
    known = {401: "unauthorized", 403: "forbidden", 404: "not_found", 409: "conflict", 500: "internal_error", 503: "upstream_unavailable"}
    return known.get(status, "internal_error" if status >= 500 else "http_error")


def upload_url_for_errors(url: str) -> str:
    """The upload URL as errors show it: without its query (and fragment), which carries the URL's
    credential (the server's signed token, or an S3 presigned signature); an error may reach a log."""
    cuts = [i for i in (url.find("?"), url.find("#")) if i != -1]
    return url[: min(cuts)] if cuts else url


def redact_query_values(text: str, url: str) -> str:
    """``text`` with the values of ``url``'s query (as sent and decoded) replaced by ``…``."""
    query = urlsplit(url).query
    values = {v for _, v in parse_qsl(query)} | {p.partition("=")[2] for p in query.split("&")}
    values |= {repr(v)[1:-1] for v in values}  # as a message quoting the URL with repr() escapes them
    for value in sorted(values, key=len, reverse=True):
        if len(value) >= 8:  # short values (an expiry in seconds) are no secret and too common to replace
            text = text.replace(value, "…")
    return text


def redacted(err: BaseException, url: str) -> BaseException:
    """``err``, or one of its type saying the same without ``url``'s query values."""
    text = str(err)
    clean = redact_query_values(text, url)
    if clean == text:
        return err
    try:
        return type(err)(clean)
    except Exception:  # noqa: BLE001 - a type that wants other arguments: the text is what matters
        return OSError(clean)


def log_exchange(request: Request, outcome: Outcome, elapsed: float) -> None:
    """A debug line per exchange on the ``vesta`` logger: method, URL (an upload's without its
    query), status or failure, time, request id. Headers are not logged (the key is one)."""
    if not log.isEnabledFor(logging.DEBUG):
        return
    if isinstance(outcome, Response):
        rid = outcome.request_id
        log.debug("%s %s -> %d in %.1f ms%s", request.method, request.shown_url, outcome.status, elapsed * 1000,
                  f" (request {rid})" if rid else "")
    else:
        log.debug("%s %s -> no answer in %.1f ms: %s", request.method, request.shown_url, elapsed * 1000,
                  outcome.to_error(request).message)


def path_segment(value: str) -> str:
    return quote(value, safe="")


# -- the client's configuration -------------------------------------------------------------------
class Config:
    """What a client was configured with; ``with_options`` makes a changed copy sharing the
    transport (its connections)."""

    def __init__(
        self,
        *,
        api_key: str,
        base_url: str,
        timeout: Timeout,
        max_retries: int,
        source: str,
        default_headers: Optional[Mapping[str, str]] = None,
    ) -> None:
        self.base_url = check_base_url(base_url)
        self.__key = api_key
        self.timeout = timeout
        self.max_retries = check_retries(max_retries)
        self.source = source
        self.default_headers: Dict[str, str] = dict(default_headers or {})

    def __repr__(self) -> str:
        return f"Config(base_url={self.base_url!r})"

    def copy(
        self,
        timeout: Optional[TimeoutTypes] = None,
        max_retries: Optional[int] = None,
        default_headers: Optional[Mapping[str, str]] = None,
    ) -> "Config":
        return Config(
            api_key=self.__key,
            base_url=self.base_url,
            timeout=self.timeout if timeout is None else to_timeout(timeout),
            max_retries=self.max_retries if max_retries is None else max_retries,
            source=self.source,
            default_headers={**self.default_headers, **(default_headers or {})},
        )

    def url(self, path: str, query: Optional[Mapping[str, QueryValue]] = None) -> str:
        url = f"{self.base_url}{path}"
        if query:
            pairs = {k: str(v) for k, v in query.items() if v is not None}
            if pairs:
                url += "?" + urlencode(pairs)
        return url

    def absolute(self, url: str) -> str:
        return urljoin(self.base_url + "/", url)

    def build(
        self,
        method: str,
        path_or_url: str,
        options: CallOptions = NO_OPTIONS,
        *,
        query: Optional[Mapping[str, QueryValue]] = None,
        json_body: Any = None,
        body: Union[bytes, Body, None] = None,
        headers: Optional[Mapping[str, str]] = None,
        accept: str = "application/json",
        idempotency_key: Optional[str] = None,
        authenticated: bool = True,
        shown_url: Optional[str] = None,
        timeout: Optional[TimeoutTypes] = None,
    ) -> Request:
        """The request of one call: the client's headers and key, the call's extra headers, an
        Idempotency-Key on every POST (one per call, kept across its retries)."""
        url = path_or_url if "://" in path_or_url else self.url(path_or_url, query)
        send: Dict[str, str] = {"Accept": accept, "X-Service-Source": self.source}
        if authenticated:
            send["X-API-Key"] = self.__key
            send.update(self.default_headers)
        if headers:
            send.update(headers)
        if options.extra_headers and authenticated:
            send.update(options.extra_headers)
        payload: Union[bytes, Body, None] = body
        if json_body is not None:
            payload = json.dumps(json_body, separators=(",", ":")).encode("utf-8")
            send["Content-Type"] = "application/json"
        if method == "POST":
            send["Idempotency-Key"] = idempotency_key or str(uuid.uuid4())
        chosen = options.timeout or (None if timeout is None else to_timeout(timeout)) or self.timeout
        return Request(method, url, send, payload, chosen, shown_url)

    def retries(self, options: CallOptions) -> int:
        return self.max_retries if options.max_retries is None else options.max_retries


def check_base_url(base_url: str) -> str:
    url = base_url.rstrip("/")
    parts = urlsplit(url)
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise InvalidArgumentError(
            "base_url", f"base_url must be an http:// or https:// address, e.g. http://localhost:8080 (got {base_url!r})"
        )
    return url
