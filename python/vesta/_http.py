"""The request core: headers, timeouts, retries with back-off and jitter, one Idempotency-Key per
call kept across its retries, typed errors. Standard library only (``http.client``), with one
keep-alive connection per thread and host, so the runner's heartbeat thread can share a client.
"""
from __future__ import annotations

import email.utils
import http.client
import json
import random
import socket
import threading
import time
import uuid
from typing import Any, Callable, Dict, Mapping, Optional, Tuple, Union
from urllib.parse import parse_qsl, quote, urlencode, urljoin, urlsplit

from ._exceptions import ApiConnectionError, ApiError, ApiTimeoutError, InvalidArgumentError, UploadSourceError, VestaError
from ._generated import ERROR_CLASSES

#: Longest server-requested wait (``Retry-After``) honoured, in seconds.
MAX_RETRY_AFTER = 60.0
#: Largest chunk written to a socket while streaming an upload.
CHUNK = 1 << 20

_random = random.SystemRandom()
Query = Mapping[str, Union[str, int, None]]


def backoff_delay(retry: int, initial: float = 0.5, maximum: float = 8.0) -> float:
    """Delay before retry ``retry`` (0-based): ``initial * 2**retry`` capped, minus up to 25 % jitter."""
    base = min(initial * (2**retry), maximum)
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


def upload_url_for_errors(url: str) -> str:
    """The upload URL as errors show it: without its query (and fragment), which carries the URL's
    credential (the server's signed token, or an S3 presigned signature); an error may reach a log."""
    cuts = [i for i in (url.find("?"), url.find("#")) if i != -1]
    return url[: min(cuts)] if cuts else url


def redact_query_values(text: str, url: str) -> str:
    """``text`` with the values of ``url``'s query (as sent and decoded) replaced by ``…``: what an
    error excerpt or a low-level error (an invalid-URL message) could echo of the credential."""
    query = urlsplit(url).query
    values = {v for _, v in parse_qsl(query)} | {p.partition("=")[2] for p in query.split("&")}
    values |= {repr(v)[1:-1] for v in values}  # as a message quoting the URL with repr() escapes them
    for value in sorted(values, key=len, reverse=True):
        if len(value) >= 8:  # short values (an expiry in seconds) are no secret and too common to replace
            text = text.replace(value, "…")
    return text


def is_retryable(status: int, headers: Mapping[str, str]) -> bool:
    """408, 429, 5xx, and a 409 carrying Retry-After (a duplicate request still in progress)."""
    return status in (408, 429) or status >= 500 or (status == 409 and "retry-after" in headers)


def is_transient(err: BaseException) -> bool:
    if isinstance(err, (ApiConnectionError, ApiTimeoutError)):
        return True
    return isinstance(err, ApiError) and (err.status >= 500 or err.status in (408, 429))


class Response:
    __slots__ = ("status", "headers", "body")

    def __init__(self, status: int, headers: Dict[str, str], body: bytes) -> None:
        self.status = status
        self.headers = headers
        self.body = body

    def json(self) -> Any:
        return json.loads(self.body) if self.body else None

    def text(self) -> str:
        return self.body.decode("utf-8")


class Body:
    """A request body that can be sent more than once: bytes, or a seekable binary file."""

    def __init__(self, data: Any, length: int, progress: Optional[Callable[[int, int], None]] = None) -> None:
        self.data = data
        self.length = length
        self.progress = progress
        self.start = 0 if isinstance(data, (bytes, bytearray, memoryview)) else data.tell()

    def send(self, conn: http.client.HTTPConnection) -> None:
        if isinstance(self.data, (bytes, bytearray, memoryview)):
            view = memoryview(self.data)
            for offset in range(0, len(view), CHUNK):
                conn.send(view[offset : offset + CHUNK])
                if self.progress:
                    self.progress(min(offset + CHUNK, self.length), self.length)
            return
        # A source that cannot be read is the clip's fault, not the network's: UploadSourceError (not
        # an OSError, which the request would take for a connection failure and send again).
        try:
            self.data.seek(self.start)
        except OSError as err:
            raise UploadSourceError(f"Cannot read the clip: {err.strerror or err}") from None
        sent = 0
        while sent < self.length:
            try:
                chunk = self.data.read(min(CHUNK, self.length - sent))
            except OSError as err:
                raise UploadSourceError(f"Cannot read the clip after {sent} bytes: {err.strerror or err}") from None
            if not chunk:
                raise UploadSourceError(
                    f"The file ended after {sent} of {self.length} bytes (it changed during the upload)."
                )
            conn.send(chunk)
            sent += len(chunk)
            if self.progress:
                self.progress(sent, self.length)


class HttpClient:
    """One configuration: base URL, key, timeout, retries. Safe to use from several threads."""

    def __init__(self, *, api_key: str, base_url: str, timeout: float, max_retries: int, source: str) -> None:
        self.base_url = base_url.rstrip("/")
        parts = urlsplit(self.base_url)
        if parts.scheme not in ("http", "https") or not parts.hostname:
            raise InvalidArgumentError(
                "base_url", f"base_url must be an http:// or https:// address, e.g. http://localhost:8080 (got {base_url!r})"
            )
        self._base_path = parts.path
        self.__key = api_key
        self.timeout = timeout
        self.max_retries = max(0, max_retries)
        self.source = source
        self._local = threading.local()
        self._open: "set[http.client.HTTPConnection]" = set()  # every thread's, closed with the client
        self._open_lock = threading.Lock()

    def __repr__(self) -> str:
        return f"HttpClient(base_url={self.base_url!r})"

    # -- connections -------------------------------------------------------------------------
    def _connection(self, scheme: str, netloc: str, timeout: float) -> Tuple[http.client.HTTPConnection, bool]:
        pool: Dict[Tuple[str, str], http.client.HTTPConnection] = getattr(self._local, "pool", None) or {}
        self._local.pool = pool
        conn = pool.get((scheme, netloc))
        if conn is not None:
            conn.timeout = timeout
            if conn.sock is not None:
                conn.sock.settimeout(timeout)
            return conn, True
        cls = http.client.HTTPSConnection if scheme == "https" else http.client.HTTPConnection
        conn = cls(netloc, timeout=timeout, blocksize=CHUNK)
        pool[(scheme, netloc)] = conn
        with self._open_lock:
            self._open.add(conn)
        return conn, False

    def _drop(self, scheme: str, netloc: str) -> None:
        pool = getattr(self._local, "pool", None) or {}
        conn = pool.pop((scheme, netloc), None)
        if conn is not None:
            conn.close()
            with self._open_lock:
                self._open.discard(conn)

    def close(self) -> None:
        """Closes the kept-alive connections of every thread."""
        with self._open_lock:
            conns, self._open = list(self._open), set()
        for conn in conns:
            conn.close()
        pool = getattr(self._local, "pool", None)
        if pool:
            pool.clear()

    def __del__(self) -> None:
        try:
            self.close()
        except Exception:  # noqa: BLE001 - interpreter shutdown
            pass

    # -- requests ----------------------------------------------------------------------------
    def url(self, path: str, query: Optional[Query] = None) -> str:
        url = f"{self.base_url}{path}"
        if query:
            pairs = {k: str(v) for k, v in query.items() if v is not None}
            if pairs:
                url += "?" + urlencode(pairs)
        return url

    def absolute(self, url: str) -> str:
        return urljoin(self.base_url + "/", url)

    def _once(
        self,
        method: str,
        url: str,
        headers: Dict[str, str],
        body: Union[bytes, Body, None],
        timeout: float,
    ) -> Response:
        parts = urlsplit(url)
        target = parts.path or "/"
        if parts.query:
            target += "?" + parts.query
        for fresh_try in range(2):
            conn, reused = self._connection(parts.scheme, parts.netloc, timeout)
            try:
                conn.putrequest(method, target, skip_accept_encoding=True)
                for k, v in headers.items():
                    conn.putheader(k, v)
                if isinstance(body, Body):
                    conn.putheader("Content-Length", str(body.length))
                    conn.endheaders()
                    body.send(conn)
                elif body is not None:
                    conn.putheader("Content-Length", str(len(body)))
                    conn.endheaders(body)
                else:
                    if method in ("POST", "PUT"):
                        conn.putheader("Content-Length", "0")
                    conn.endheaders()
                res = conn.getresponse()
                data = res.read()
                out_headers = {k.lower(): v for k, v in res.getheaders()}
                if res.will_close:
                    self._drop(parts.scheme, parts.netloc)
                return Response(res.status, out_headers, data)
            except (http.client.RemoteDisconnected, BrokenPipeError, ConnectionResetError) as err:
                self._drop(parts.scheme, parts.netloc)
                # A kept-alive connection the server closed meanwhile: one fresh connection, free.
                if reused and fresh_try == 0:
                    continue
                raise err
            except BaseException:
                self._drop(parts.scheme, parts.netloc)
                raise
        raise AssertionError("unreachable")

    def request(
        self,
        method: str,
        path_or_url: str,
        *,
        query: Optional[Query] = None,
        json_body: Any = None,
        body: Union[bytes, Body, None] = None,
        headers: Optional[Mapping[str, str]] = None,
        accept: str = "application/json",
        idempotency_key: Optional[str] = None,
        timeout: Optional[float] = None,
        max_retries: Optional[int] = None,
        authenticated: bool = True,
        error_url: Optional[str] = None,
    ) -> Response:
        """Sends one call with its retries; returns the 2xx response or raises a VestaError.

        ``error_url``: the URL errors name instead of the one sent (an upload URL without its
        query, see :func:`upload_url_for_errors`); what they quote of the answer or of a low-level
        error then has the sent URL's query values replaced."""
        url = path_or_url if "://" in path_or_url else self.url(path_or_url, query)
        shown = url if error_url is None else error_url
        timeout = self.timeout if timeout is None else timeout
        retries = self.max_retries if max_retries is None else max(0, max_retries)
        send_headers: Dict[str, str] = {"Accept": accept, "X-Service-Source": self.source}
        if authenticated:
            send_headers["X-API-Key"] = self.__key
        if headers:
            send_headers.update(headers)
        payload: Union[bytes, Body, None] = body
        if json_body is not None:
            payload = json.dumps(json_body, separators=(",", ":")).encode("utf-8")
            send_headers["Content-Type"] = "application/json"
        if method == "POST":
            send_headers["Idempotency-Key"] = idempotency_key or str(uuid.uuid4())
        attempt = 0
        while True:
            res: Union[Response, VestaError]
            try:
                res = self._once(method, url, send_headers, payload, timeout)
            except (socket.timeout, TimeoutError):
                res = ApiTimeoutError(shown, timeout, attempt + 1)
            except (OSError, http.client.HTTPException) as err:
                res = ApiConnectionError(shown, attempt + 1, err if shown == url else _redacted(err, url))
            if isinstance(res, VestaError):
                # Raised outside the handler: the low-level error (which may quote the sent URL)
                # stays out of the chain; its description is in the message.
                if attempt >= retries:
                    raise res
                time.sleep(backoff_delay(attempt))
                attempt += 1
                continue
            if 200 <= res.status < 300:
                return res
            error = to_api_error(res, method, shown, None if shown == url else url)
            if not is_retryable(res.status, res.headers) or attempt >= retries:
                raise error
            hinted = parse_retry_after(res.headers.get("retry-after"))
            time.sleep(backoff_delay(attempt) if hinted is None else hinted)
            attempt += 1


def _redacted(err: BaseException, url: str) -> BaseException:
    """``err``, or one of its type saying the same without ``url``'s query values."""
    text = str(err)
    clean = redact_query_values(text, url)
    if clean == text:
        return err
    try:
        return type(err)(clean)
    except Exception:  # noqa: BLE001 - a type that wants other arguments: the text is what matters
        return OSError(clean)


def to_api_error(res: Response, method: str, url: str, secret_url: Optional[str] = None) -> ApiError:
    """The typed error of an error answer; ``secret_url``: a URL whose query values are kept out of
    the detail (an upload's, whose store may quote the signature it was given)."""
    code: Optional[str] = None
    detail: Optional[str] = None
    request_id: Optional[str] = None
    try:
        parsed = json.loads(res.body)
        if isinstance(parsed, dict):
            if isinstance(parsed.get("code"), str):
                code = parsed["code"]
            if isinstance(parsed.get("detail"), str):
                detail = parsed["detail"]
            elif isinstance(parsed.get("message"), str):
                detail = parsed["message"]
            if isinstance(parsed.get("requestId"), str):
                request_id = parsed["requestId"]
    except ValueError:
        pass  # not JSON (a proxy's page): the status and an excerpt still say what happened
    if code is None:
        code = _fallback_code(res.status)
    if detail is None:
        text = res.body.decode("utf-8", "replace").strip()
        # Redacted before the excerpt is cut, so that no part of a value is left at its end.
        detail = (redact_query_values(text, secret_url) if secret_url else text)[:200] or f"HTTP {res.status}"
    elif secret_url is not None:
        detail = redact_query_values(detail, secret_url)
    cls = ERROR_CLASSES.get(code, ApiError)
    return cls(
        status=res.status,
        code=code,
        detail=detail,
        request_id=request_id or res.headers.get("x-request-id"),
        method=method,
        url=url,
        headers=res.headers,
    )


def _fallback_code(status: int) -> str:
    return {401: "unauthorized", 403: "forbidden", 404: "not_found", 409: "conflict", 500: "internal_error", 503: "upstream_unavailable"}.get(
        status, "internal_error" if status >= 500 else "http_error"
    )


def path_segment(value: str) -> str:
    return quote(value, safe="")
