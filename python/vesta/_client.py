"""The clients: ``vesta.Vesta`` (blocking) and ``vesta.AsyncVesta`` (asyncio), the same surface."""
from __future__ import annotations

import logging
import os
import ssl
import sys
from typing import Any, Mapping, Optional

from . import _plans as p
from ._async_resources import (
    AsyncBenchResource,
    AsyncDimensionsResource,
    AsyncModelsResource,
    AsyncJudgingResource,
    AsyncRankResource,
    AsyncRunnersResource,
    AsyncScoreResource,
    AsyncVideosResource,
)
from ._atransport import AsyncTransport
from ._core import (
    DEFAULT_MAX_RETRIES,
    DEFAULT_TIMEOUT,
    CallOptions,
    Config,
    QueryValue,
    Response,
    Timeout,
    TimeoutTypes,
    check_retries,
    to_timeout,
)
from ._drive import arun, run
from ._exceptions import MissingApiKeyError
from ._resources import (
    BenchResource,
    DimensionsResource,
    ModelsResource,
    JudgingResource,
    RankResource,
    RunnersResource,
    ScoreResource,
    VideosResource,
)
from ._transport import SyncTransport

DEFAULT_BASE_URL = "http://localhost:8080"
DEFAULT_API_KEY_ENV = "VESTA_API_KEY"
DEFAULT_BASE_URL_ENV = "VESTA_BASE_URL"
#: ``VESTA_LOG=debug`` (or ``info``) logs every request of the ``vesta`` logger to stderr.
LOG_ENV = "VESTA_LOG"


def _config(
    api_key: Optional[str], base_url: Optional[str], api_key_env: str, timeout: TimeoutTypes, max_retries: int,
    source: str, default_headers: Optional[Mapping[str, str]],
) -> Config:
    key = api_key if api_key is not None else os.environ.get(api_key_env)
    if not key:
        raise MissingApiKeyError(api_key_env)
    _log_from_env()
    url = base_url or os.environ.get(DEFAULT_BASE_URL_ENV) or DEFAULT_BASE_URL
    return Config(api_key=key, base_url=url, timeout=to_timeout(timeout), max_retries=check_retries(max_retries),
                  source=source, default_headers=default_headers)


def _log_from_env() -> None:
    level = os.environ.get(LOG_ENV, "").strip().upper()
    logger = logging.getLogger("vesta")
    if level in ("DEBUG", "INFO") and not logger.handlers:
        handler = logging.StreamHandler(sys.stderr)
        handler.setFormatter(logging.Formatter("%(asctime)s %(levelname)s %(name)s: %(message)s"))
        logger.addHandler(handler)
        logger.setLevel(level)


class Vesta:
    """The Vesta client (blocking; safe to share between threads).

    >>> import vesta
    >>> client = vesta.Vesta()  # reads VESTA_API_KEY (and VESTA_BASE_URL)
    >>> client.dimensions.list().items[0].id

    Arguments: ``api_key`` (default: the variable ``api_key_env`` names, ``VESTA_API_KEY``),
    ``base_url`` (``$VESTA_BASE_URL``, else http://localhost:8080), ``timeout`` (seconds, or a
    :class:`vesta.Timeout` with connect/read/write), ``max_retries`` (retries of transient
    failures, default 2), ``default_headers`` (sent on every API call), ``ssl_context`` (for
    https with your own CA). ``HTTPS_PROXY`` / ``HTTP_PROXY`` / ``NO_PROXY`` are honoured.
    """

    #: The Score workflow: upload a clip, get its scores.
    score: ScoreResource
    #: The Rank workflow: candidates for one prompt, the leaderboard.
    rank: RankResource
    #: Bench runs and ``run_with_pipeline``.
    bench: BenchResource
    #: The evaluation dimensions and their prompts.
    dimensions: DimensionsResource
    #: The video generators Bench can evaluate.
    models: ModelsResource
    #: Stored clips' bytes.
    videos: VideosResource
    #: The runner protocol.
    runners: RunnersResource
    #: Judging campaigns: blind pairwise votes.
    judging: JudgingResource

    def __init__(
        self,
        api_key: Optional[str] = None,
        base_url: Optional[str] = None,
        api_key_env: str = DEFAULT_API_KEY_ENV,
        timeout: TimeoutTypes = DEFAULT_TIMEOUT,
        max_retries: int = DEFAULT_MAX_RETRIES,
        source: str = "sdk",
        *,
        default_headers: Optional[Mapping[str, str]] = None,
        ssl_context: Optional[ssl.SSLContext] = None,
    ) -> None:
        self._config = _config(api_key, base_url, api_key_env, timeout, max_retries, source, default_headers)
        self._transport = SyncTransport(ssl_context)
        self._attach()

    def _attach(self) -> None:
        self.score = ScoreResource(self)
        self.rank = RankResource(self)
        self.bench = BenchResource(self)
        self.dimensions = DimensionsResource(self)
        self.models = ModelsResource(self)
        self.videos = VideosResource(self)
        self.runners = RunnersResource(self)
        self.judging = JudgingResource(self)

    @property
    def base_url(self) -> str:
        """The service address (without a trailing slash)."""
        return self._config.base_url

    @property
    def timeout(self) -> Timeout:
        return self._config.timeout

    @property
    def max_retries(self) -> int:
        return self._config.max_retries

    def with_options(
        self,
        *,
        timeout: Optional[TimeoutTypes] = None,
        max_retries: Optional[int] = None,
        default_headers: Optional[Mapping[str, str]] = None,
    ) -> "Vesta":
        """A client with other defaults, sharing this one's connections:
        ``client.with_options(timeout=5, max_retries=0).bench.get(run_id)``."""
        other = Vesta.__new__(Vesta)
        other._config = self._config.copy(timeout, max_retries, default_headers)
        other._transport = self._transport
        other._attach()
        return other

    def request(
        self,
        method: str,
        path: str,
        *,
        query: Optional[Mapping[str, QueryValue]] = None,
        json: Any = None,
        timeout: Optional[TimeoutTypes] = None,
        max_retries: Optional[int] = None,
        extra_headers: Optional[Mapping[str, str]] = None,
    ) -> Response:
        """Any API call with the client's key, retries and errors, returning the raw
        :class:`vesta.Response` (``status``, ``headers``, ``content``, ``json()``, ``request_id``):
        ``client.request("GET", "/api/v1/score").headers``."""
        o = CallOptions(timeout, max_retries, extra_headers)
        return run(p.call(self._config, method.upper(), path, o, query=query, json_body=json), self._transport)

    def __repr__(self) -> str:
        return f"Vesta(base_url={self.base_url!r})"

    def close(self) -> None:
        """Closes the kept-alive connections; the client cannot be used after (ClientClosedError)."""
        self._transport.close()

    def __enter__(self) -> "Vesta":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


class AsyncVesta:
    """The Vesta client for asyncio: the surface of :class:`Vesta`, every call awaited.

    >>> async with vesta.AsyncVesta() as client:
    ...     result = await client.score.upload("clip.mp4", prompt="a cat surfing", wait=True)
    ...     async for run in client.bench.list():
    ...         print(run.id, run.status)

    Calls run on the event loop over asyncio streams (no thread per call); any number may be in
    flight at once. A cancelled call drops its connection at once. Arguments as :class:`Vesta`.
    Use one client per event loop; ``aclose()`` (or ``async with``) when done.
    """

    score: AsyncScoreResource
    rank: AsyncRankResource
    bench: AsyncBenchResource
    dimensions: AsyncDimensionsResource
    models: AsyncModelsResource
    videos: AsyncVideosResource
    runners: AsyncRunnersResource
    judging: AsyncJudgingResource

    def __init__(
        self,
        api_key: Optional[str] = None,
        base_url: Optional[str] = None,
        api_key_env: str = DEFAULT_API_KEY_ENV,
        timeout: TimeoutTypes = DEFAULT_TIMEOUT,
        max_retries: int = DEFAULT_MAX_RETRIES,
        source: str = "sdk",
        *,
        default_headers: Optional[Mapping[str, str]] = None,
        ssl_context: Optional[ssl.SSLContext] = None,
    ) -> None:
        self._config = _config(api_key, base_url, api_key_env, timeout, max_retries, source, default_headers)
        self._transport = AsyncTransport(ssl_context)
        self._attach()

    def _attach(self) -> None:
        self.score = AsyncScoreResource(self)
        self.rank = AsyncRankResource(self)
        self.bench = AsyncBenchResource(self)
        self.dimensions = AsyncDimensionsResource(self)
        self.models = AsyncModelsResource(self)
        self.videos = AsyncVideosResource(self)
        self.runners = AsyncRunnersResource(self)
        self.judging = AsyncJudgingResource(self)

    @property
    def base_url(self) -> str:
        return self._config.base_url

    @property
    def timeout(self) -> Timeout:
        return self._config.timeout

    @property
    def max_retries(self) -> int:
        return self._config.max_retries

    def with_options(
        self,
        *,
        timeout: Optional[TimeoutTypes] = None,
        max_retries: Optional[int] = None,
        default_headers: Optional[Mapping[str, str]] = None,
    ) -> "AsyncVesta":
        """A client with other defaults, sharing this one's connections."""
        other = AsyncVesta.__new__(AsyncVesta)
        other._config = self._config.copy(timeout, max_retries, default_headers)
        other._transport = self._transport
        other._attach()
        return other

    async def request(
        self,
        method: str,
        path: str,
        *,
        query: Optional[Mapping[str, QueryValue]] = None,
        json: Any = None,
        timeout: Optional[TimeoutTypes] = None,
        max_retries: Optional[int] = None,
        extra_headers: Optional[Mapping[str, str]] = None,
    ) -> Response:
        """Any API call, returning the raw :class:`vesta.Response` (see :meth:`Vesta.request`)."""
        o = CallOptions(timeout, max_retries, extra_headers)
        return await arun(p.call(self._config, method.upper(), path, o, query=query, json_body=json), self._transport)

    def __repr__(self) -> str:
        return f"AsyncVesta(base_url={self.base_url!r})"

    async def aclose(self) -> None:
        """Closes the kept-alive connections; the client cannot be used after (ClientClosedError)."""
        await self._transport.aclose()

    async def __aenter__(self) -> "AsyncVesta":
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.aclose()


__all__ = ["Vesta", "AsyncVesta", "DEFAULT_BASE_URL", "DEFAULT_API_KEY_ENV"]
