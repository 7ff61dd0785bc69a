"""The client: ``vesta.Vesta`` and its namespaces (score, rank, bench, dimensions, models, runners)."""
from __future__ import annotations

import datetime as _dt
import os
import time
from typing import Any, Callable, Dict, Iterator, List, Optional, Sequence, cast

from . import _generated as g
from ._exceptions import (
    ApiConnectionError,
    ApiTimeoutError,
    InvalidArgumentError,
    MissingApiKeyError,
    ScoringFailedError,
    VestaError,
    VideoGoneError,
    WaitTimeoutError,
)
from ._http import Body, HttpClient, backoff_delay, is_transient, path_segment, upload_url_for_errors
from ._upload import UploadInput, open_source, split_ticket_headers

DEFAULT_BASE_URL = "http://localhost:8080"
DEFAULT_API_KEY_ENV = "VESTA_API_KEY"
DEFAULT_BASE_URL_ENV = "VESTA_BASE_URL"
DEFAULT_TIMEOUT = 60.0
DEFAULT_MAX_RETRIES = 2
TERMINAL_RUN_STATES = ("completed", "failed", "cancelled")

#: ``progress(event)``: ``{"phase": "upload", "loaded": n, "total": n}``, then
#: ``{"phase": "confirm", "videoId": id}``, then (with wait) ``{"phase": "wait", "videoId": id, "state": s}``.
ProgressCallback = Callable[[Dict[str, Any]], None]


class UploadResult(dict):  # type: ignore[type-arg]
    """``{"runId", "videoId", "state", "video"}``; ``video`` (with its scores) is set after ``wait=True``."""

    @property
    def run_id(self) -> str:
        return cast(str, self["runId"])

    @property
    def video_id(self) -> str:
        return cast(str, self["videoId"])

    @property
    def state(self) -> str:
        return cast(str, self["state"])

    @property
    def video(self) -> Optional[g.Video]:
        return cast(Optional[g.Video], self.get("video"))


class _Session:
    kind = ""

    def __init__(self, http: HttpClient) -> None:
        self._http = http

    def _get(self) -> Any:
        return self._http.request("GET", f"/api/v1/{self.kind}").json()

    def _reset(self) -> Any:
        return self._http.request("POST", f"/api/v1/{self.kind}/reset").json()

    def create_upload_url(self, run_id: str, body: Dict[str, Any]) -> g.UploadUrlResponse:
        """Step 1 of the upload flow: a video row and a short-lived URL to PUT the bytes to."""
        path = f"/api/v1/{self.kind}/{path_segment(run_id)}/videos/upload-url"
        return cast(g.UploadUrlResponse, self._http.request("POST", path, json_body=body).json())

    def confirm_upload(self, run_id: str, video_id: str) -> g.Video:
        """Step 3: the server checks the bytes and queues the clip for scoring."""
        path = f"/api/v1/{self.kind}/{path_segment(run_id)}/videos/confirm-upload"
        return cast(g.Video, self._http.request("POST", path, json_body={"videoId": video_id}).json())

    def _upload(
        self,
        file: UploadInput,
        prompt: Optional[str],
        wait: bool,
        auxiliary: Optional[g.Auxiliary],
        file_name: Optional[str],
        content_type: Optional[str],
        progress: Optional[ProgressCallback],
        wait_timeout: float,
        poll_interval: float,
    ) -> UploadResult:
        source = open_source(file, file_name, content_type)  # read errors before anything is created
        try:
            run_id = cast(str, self._get()["runId"])
            body: Dict[str, Any] = {"fileName": source.file_name, "contentType": source.content_type}
            # The size lets an S3 store bind it into the presigned URL (and refuses too large a clip at once).
            if source.length > 0:
                body["sizeBytes"] = source.length
            if prompt is not None:
                body["prompt"] = prompt
            if auxiliary is not None:
                body["auxiliary"] = auxiliary
            ticket = self.create_upload_url(run_id, body)
            put_ticket(self._http, ticket, source, progress)
        finally:
            source.close()
        video_id = ticket["videoId"]
        if progress:
            progress({"phase": "confirm", "videoId": video_id})
        confirmed = self.confirm_upload(run_id, video_id)
        state = confirmed.get("state", "uploaded") if isinstance(confirmed, dict) else "uploaded"
        if not wait:
            return UploadResult(runId=run_id, videoId=video_id, state=state, video=None)
        video = self._wait_for(run_id, video_id, wait_timeout, poll_interval, progress)
        return UploadResult(runId=run_id, videoId=video_id, state=video["state"], video=video)

    def _wait_for(
        self, run_id: str, video_id: str, timeout: float, interval: float, progress: Optional[ProgressCallback]
    ) -> g.Video:
        """Polls the session until the clip is scored or failed. A session that has another run id
        now (reset elsewhere), or that no longer lists the clip, ends the wait (VideoGoneError)."""
        deadline = time.monotonic() + timeout
        last: Optional[str] = None
        while True:
            session = self._get()
            videos: List[g.Video] = session["videos"]
            video = next((v for v in videos if v["videoId"] == video_id), None)
            if session["runId"] != run_id or video is None:
                raise VideoGoneError(video_id, run_id, session["runId"])
            if video["state"] != last:
                last = video["state"]
                if progress:
                    progress({"phase": "wait", "videoId": video_id, "state": last})
            if video["state"] == "scored":
                return video
            if video["state"] == "failed":
                err = video.get("error")
                raise ScoringFailedError(video_id, video, (err or {}).get("detail") or (err or {}).get("code"))
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                raise WaitTimeoutError(f"Video {video_id}", timeout, last)
            time.sleep(min(interval, remaining))
            interval = min(interval * 1.5, 5.0)


def put_ticket(http: HttpClient, ticket: Any, source: Any, progress: Optional[ProgressCallback]) -> None:
    """Step 2: PUT the bytes to the minted URL, retried from the start (same URL) while it is valid.

    Errors name the URL without its query (its credential: the server's token or an S3
    signature) and count every attempt made."""
    method, headers = split_ticket_headers(ticket, source)
    url = http.absolute(ticket["uploadUrl"])
    shown = upload_url_for_errors(url)
    expires_at = _epoch(ticket.get("expiresAt"))
    report = (lambda loaded, total: progress({"phase": "upload", "loaded": loaded, "total": total})) if progress else None
    body = Body(source.data, source.length, report)
    attempt = 0
    while True:
        try:
            http.request(method, url, body=body, headers=headers, authenticated=False, max_retries=0, error_url=shown)
            return
        except VestaError as err:
            delay = backoff_delay(attempt)
            if (
                not is_transient(err)
                or attempt >= http.max_retries
                or (expires_at is not None and time.time() + delay >= expires_at)
            ):
                raise _with_attempts(err, attempt + 1) from None
            time.sleep(delay)
            attempt += 1


def _with_attempts(err: VestaError, attempts: int) -> VestaError:
    """A network error or timeout of the PUT, counting every attempt the loop made."""
    if attempts <= 1:
        return err
    if isinstance(err, ApiConnectionError):
        return ApiConnectionError(err.url, attempts, err.cause)
    if isinstance(err, ApiTimeoutError):
        return ApiTimeoutError(err.url, err.timeout, attempts)
    return err


def _epoch(value: Any) -> Optional[float]:
    """An ISO 8601 instant (``2026-01-01T00:00:00.000Z``) in seconds since the epoch; None if not one."""
    if not isinstance(value, str) or not value:
        return None
    try:
        return _dt.datetime.fromisoformat(value.replace("Z", "+00:00")).timestamp()
    except ValueError:
        return None


class ScoreResource(_Session):
    """The Score workflow: upload a clip, get its scores on every dimension."""

    kind = "score"

    def get_or_create(self) -> g.ScoreSession:
        """The caller's Score session (created if absent)."""
        return cast(g.ScoreSession, self._get())

    def reset(self) -> g.ScoreSession:
        """Retires the Score session and starts an empty one (new run id)."""
        return cast(g.ScoreSession, self._reset())

    def upload(
        self,
        file: UploadInput,
        prompt: str,
        wait: bool = False,
        *,
        auxiliary: Optional[g.Auxiliary] = None,
        file_name: Optional[str] = None,
        content_type: Optional[str] = None,
        progress: Optional[ProgressCallback] = None,
        wait_timeout: float = 900.0,
        poll_interval: float = 0.5,
    ) -> UploadResult:
        """Uploads a clip (path, bytes or binary file object); ``wait=True`` returns it scored."""
        if not isinstance(prompt, str) or not prompt.strip():
            raise InvalidArgumentError("prompt", "score.upload needs prompt=: the text prompt the clip was made from (not empty).")
        return self._upload(file, prompt, wait, auxiliary, file_name, content_type, progress, wait_timeout, poll_interval)


class RankResource(_Session):
    """The Rank workflow: candidates for one prompt, then the leaderboard."""

    kind = "rank"

    def get_or_create(self) -> g.RankSession:
        """The caller's Rank session (created if absent), with its locked prompt."""
        return cast(g.RankSession, self._get())

    def reset(self) -> g.RankSession:
        """Retires the Rank session and starts an empty one."""
        return cast(g.RankSession, self._reset())

    def upload(
        self,
        file: UploadInput,
        prompt: Optional[str] = None,
        wait: bool = False,
        *,
        auxiliary: Optional[g.Auxiliary] = None,
        file_name: Optional[str] = None,
        content_type: Optional[str] = None,
        progress: Optional[ProgressCallback] = None,
        wait_timeout: float = 900.0,
        poll_interval: float = 0.5,
    ) -> UploadResult:
        """Uploads a candidate; ``prompt`` may be left out once the session is locked to one."""
        return self._upload(file, prompt, wait, auxiliary, file_name, content_type, progress, wait_timeout, poll_interval)

    def get_ranked(self, run_id: Optional[str] = None) -> g.Leaderboard:
        """The ranked leaderboard of a Rank session (the current one when ``run_id`` is None)."""
        rid = run_id if run_id is not None else cast(str, self._get()["runId"])
        return cast(g.Leaderboard, self._http.request("GET", f"/api/v1/rank/{path_segment(rid)}/ranked").json())


class BenchResource:
    """Bench runs: create, list, get, cancel, delete; videos, CSV scorecard, logs; pipelines."""

    def __init__(self, http: HttpClient, client: "Vesta") -> None:
        self._http = http
        self._client = client

    @staticmethod
    def _path(run_id: str) -> str:
        return f"/api/v1/bench/{path_segment(run_id)}"

    def create(
        self,
        name: str,
        model_id: str,
        dimensions: Sequence[str],
        runner_id: Optional[str] = None,
        *,
        samples_per_prompt: Optional[int] = None,
        prompts_per_dimension: Optional[int] = None,
        idempotency_key: Optional[str] = None,
    ) -> g.BenchRun:
        """Creates a run of ``model_id`` on ``dimensions`` (any runner serving the model when no ``runner_id``)."""
        if isinstance(dimensions, str):
            dimensions = [d for d in dimensions.split(",") if d]
        body: Dict[str, Any] = {"name": name, "model_id": model_id, "dimensions": list(dimensions)}
        if runner_id is not None:
            body["runner_id"] = runner_id
        if samples_per_prompt is not None:
            body["samples_per_prompt"] = samples_per_prompt
        if prompts_per_dimension is not None:
            body["prompts_per_dimension"] = prompts_per_dimension
        res = self._http.request("POST", "/api/v1/bench", json_body=body, idempotency_key=idempotency_key)
        return cast(g.BenchRun, res.json())

    def list_page(self, page: int = 1, limit: Optional[int] = None) -> g.BenchRunPage:
        """One page of the caller's runs, newest first."""
        return cast(g.BenchRunPage, self._http.request("GET", "/api/v1/bench", query={"page": page, "limit": limit}).json())

    def list(self, limit: int = 100) -> Iterator[g.BenchRun]:
        """Every run, newest first, fetched page by page as the loop consumes them."""
        return _iterate(lambda p: self.list_page(p, limit))

    def get(self, run_id: str) -> g.BenchRun:
        """A run with its ``status`` and ``progress``."""
        return cast(g.BenchRun, self._http.request("GET", self._path(run_id)).json())

    def cancel(self, run_id: str, *, max_retries: Optional[int] = None) -> g.BenchRun:
        """Cancels a queued, generating or evaluating run (409 ``conflict`` otherwise).
        ``max_retries``: this call's retries instead of the client's."""
        return cast(g.BenchRun, self._http.request("POST", f"{self._path(run_id)}/cancel", max_retries=max_retries).json())

    def delete(self, run_id: str) -> None:
        """Deletes a finished run with its clips, scores and logs."""
        self._http.request("DELETE", self._path(run_id))

    def videos(self, run_id: str, page: int = 1, limit: Optional[int] = None) -> g.BenchVideoPage:
        """One page of a run's clips with their per-dimension results."""
        res = self._http.request("GET", f"{self._path(run_id)}/videos", query={"page": page, "limit": limit})
        return cast(g.BenchVideoPage, res.json())

    def all_videos(self, run_id: str, limit: int = 100) -> Iterator[g.BenchVideo]:
        return _iterate(lambda p: self.videos(run_id, p, limit))

    def csv(self, run_id: str) -> str:
        """The scorecard as CSV text."""
        return self._http.request("GET", f"{self._path(run_id)}/csv", accept="text/csv, text/plain, application/json").text()

    def logs(self, run_id: str, page: int = 1, limit: Optional[int] = None) -> g.BenchLogPage:
        """One page of a run's log lines, oldest first."""
        res = self._http.request("GET", f"{self._path(run_id)}/logs", query={"page": page, "limit": limit})
        return cast(g.BenchLogPage, res.json())

    def all_logs(self, run_id: str, limit: int = 1000) -> Iterator[g.BenchLogLine]:
        return _iterate(lambda p: self.logs(run_id, p, limit))

    def wait(self, run_id: str, timeout: Optional[float] = None, poll_interval: float = 1.0) -> g.BenchRun:
        """Polls the run (growing intervals, at most 10 s) until it is completed, failed or cancelled."""
        deadline = None if timeout is None else time.monotonic() + timeout
        interval = poll_interval
        while True:
            run = self.get(run_id)
            if run["status"] in TERMINAL_RUN_STATES:
                return run
            if deadline is not None and time.monotonic() >= deadline:
                raise WaitTimeoutError(f"Bench run {run_id}", timeout or 0.0, run["status"])
            pause = interval if deadline is None else max(0.0, min(interval, deadline - time.monotonic()))
            time.sleep(pause)
            interval = min(interval * 1.5, 10.0)

    def run_with_pipeline(
        self,
        pipeline: Callable[..., Any],
        dimensions: Sequence[str],
        run_name: str,
        model_id: str,
        **options: Any,
    ) -> g.BenchRun:
        """Benchmarks an in-process generator: registers this process as a runner for ``model_id``,
        creates the run, calls ``pipeline`` for each clip and returns the finished run (see
        :func:`vesta._runner.run_with_pipeline` and docs/python.md)."""
        from ._runner import run_with_pipeline

        return run_with_pipeline(self._client, pipeline, dimensions=dimensions, run_name=run_name, model_id=model_id, **options)


class DimensionsResource:
    def __init__(self, http: HttpClient) -> None:
        self._http = http

    def list(self) -> g.DimensionList:
        """Every evaluation dimension (VBench's 16) with its methods and workflows."""
        return cast(g.DimensionList, self._http.request("GET", "/api/v1/dimensions").json())

    def prompts(self, dimension_id: str) -> g.DimensionPrompts:
        """Vesta's prompt suite of one dimension."""
        return cast(g.DimensionPrompts, self._http.request("GET", f"/api/v1/dimensions/{path_segment(dimension_id)}/prompts").json())


class ModelsResource:
    def __init__(self, http: HttpClient) -> None:
        self._http = http

    def list(self) -> g.ModelList:
        """Every model (video generator) Bench runs can evaluate, with its runners."""
        return cast(g.ModelList, self._http.request("GET", "/api/v1/models").json())


class VideosResource:
    """A stored clip's bytes (a Score or Rank ``videoId``, or a Bench clip's ``video_id``)."""

    def __init__(self, http: HttpClient) -> None:
        self._http = http

    def content(self, video_id: str, start: Optional[int] = None, end: Optional[int] = None) -> bytes:
        """The clip's bytes: whole, or ``start``..``end`` inclusive (to the end when ``end`` is None).

        Another user's clip raises NotFoundError, exactly as a missing id; a range past the end
        raises RangeNotSatisfiableError.
        """
        headers = None
        if start is not None or end is not None:
            headers = {"Range": f"bytes={start or 0}-{'' if end is None else end}"}
        res = self._http.request(
            "GET", f"/api/v1/videos/{path_segment(video_id)}/content", headers=headers, accept="*/*"
        )
        return res.body


class RunnersResource:
    """The runner protocol, one method per operation (``run_with_pipeline`` drives them)."""

    def __init__(self, http: HttpClient) -> None:
        self._http = http

    def register(self, name: str, models: Sequence[str], max_concurrency: int = 1, version: Optional[str] = None) -> g.Runner:
        body: Dict[str, Any] = {"name": name, "models": list(models), "maxConcurrency": max_concurrency}
        if version is not None:
            body["version"] = version
        return cast(g.Runner, self._http.request("POST", "/api/v1/runners", json_body=body).json())

    def list(self) -> g.RunnerList:
        return cast(g.RunnerList, self._http.request("GET", "/api/v1/runners").json())

    def get(self, runner_id: str) -> g.Runner:
        return cast(g.Runner, self._http.request("GET", f"/api/v1/runners/{path_segment(runner_id)}").json())

    def deregister(self, runner_id: str, *, max_retries: Optional[int] = None) -> None:
        """Removes the runner (its leased tasks go back to the queue). ``max_retries``: this call's
        retries instead of the client's."""
        self._http.request("DELETE", f"/api/v1/runners/{path_segment(runner_id)}", max_retries=max_retries)

    def claim(self, runner_id: str, wait_seconds: int = 20, *, max_retries: Optional[int] = None) -> Optional[g.RunnerTask]:
        """Long-polls for a task; None when none arrived within ``wait_seconds``. ``max_retries``:
        this call's retries instead of the client's (``run_with_pipeline`` passes 0: its loop waits
        and claims again itself)."""
        res = self._http.request(
            "POST",
            f"/api/v1/runners/{path_segment(runner_id)}/claim",
            json_body={"waitSeconds": wait_seconds},
            timeout=wait_seconds + 30.0,
            max_retries=max_retries,
        )
        if res.status == 204 or not res.body:
            return None
        return cast(g.ClaimResponse, res.json())["task"]

    def heartbeat(
        self,
        task_id: str,
        lease_id: str,
        logs: Optional[List[g.RunnerLogLine]] = None,
        *,
        timeout: Optional[float] = None,
        max_retries: Optional[int] = None,
    ) -> g.HeartbeatResponse:
        """Renews the lease and ships log lines. ``timeout`` / ``max_retries``: this call's instead of
        the client's (a heartbeat must end well within the lease it renews)."""
        body: Dict[str, Any] = {"leaseId": lease_id}
        if logs:
            body["logs"] = logs
        res = self._http.request(
            "POST",
            f"/api/v1/runner-tasks/{path_segment(task_id)}/heartbeat",
            json_body=body,
            timeout=timeout,
            max_retries=max_retries,
        )
        return cast(g.HeartbeatResponse, res.json())

    def create_upload_url(
        self, task_id: str, lease_id: str, file_name: str, content_type: str, size_bytes: Optional[int] = None
    ) -> g.UploadUrlResponse:
        body: Dict[str, Any] = {"leaseId": lease_id, "fileName": file_name, "contentType": content_type}
        if size_bytes:
            body["sizeBytes"] = size_bytes
        return cast(g.UploadUrlResponse, self._http.request("POST", f"/api/v1/runner-tasks/{path_segment(task_id)}/upload-url", json_body=body).json())

    def complete(
        self,
        task_id: str,
        lease_id: str,
        video_id: str,
        logs: Optional[List[g.RunnerLogLine]] = None,
        *,
        idempotency_key: Optional[str] = None,
    ) -> g.CompleteRunnerTaskResponse:
        """Completes the task with its uploaded clip. ``idempotency_key``: one key for every call
        that repeats this completion (a repeat is then replayed, not done twice)."""
        body: Dict[str, Any] = {"leaseId": lease_id, "videoId": video_id}
        if logs:
            body["logs"] = logs
        res = self._http.request(
            "POST",
            f"/api/v1/runner-tasks/{path_segment(task_id)}/complete",
            json_body=body,
            idempotency_key=idempotency_key,
        )
        return cast(g.CompleteRunnerTaskResponse, res.json())

    def fail(
        self,
        task_id: str,
        lease_id: str,
        error: str,
        retryable: bool = True,
        logs: Optional[List[g.RunnerLogLine]] = None,
        *,
        idempotency_key: Optional[str] = None,
    ) -> g.FailResponse:
        """Fails the attempt (``retryable``: the task goes back to the queue while attempts remain).
        ``idempotency_key`` as on :meth:`complete`."""
        body: Dict[str, Any] = {"leaseId": lease_id, "error": error[:4000] or "failed", "retryable": retryable}
        if logs:
            body["logs"] = logs
        res = self._http.request(
            "POST",
            f"/api/v1/runner-tasks/{path_segment(task_id)}/fail",
            json_body=body,
            idempotency_key=idempotency_key,
        )
        return cast(g.FailResponse, res.json())


def _iterate(fetch: Callable[[int], Any]) -> Iterator[Any]:
    page = 1
    while True:
        result = fetch(page)
        yield from result["items"]
        if not result["hasMore"] or not result["items"]:
            return
        page = result["page"] + 1


class Vesta:
    """The Vesta client.

    >>> import vesta
    >>> client = vesta.Vesta()  # reads VESTA_API_KEY (and VESTA_BASE_URL)
    >>> client.dimensions.list()["items"][0]["id"]
    """

    def __init__(
        self,
        api_key: Optional[str] = None,
        base_url: Optional[str] = None,
        api_key_env: str = DEFAULT_API_KEY_ENV,
        timeout: float = DEFAULT_TIMEOUT,
        max_retries: int = DEFAULT_MAX_RETRIES,
        source: str = "sdk",
    ) -> None:
        key = api_key if api_key is not None else os.environ.get(api_key_env)
        if not key:
            raise MissingApiKeyError(api_key_env)
        url = base_url or os.environ.get(DEFAULT_BASE_URL_ENV) or DEFAULT_BASE_URL
        self._http = HttpClient(api_key=key, base_url=url, timeout=timeout, max_retries=max_retries, source=source)
        self.base_url = self._http.base_url
        self.score = ScoreResource(self._http)
        self.rank = RankResource(self._http)
        self.bench = BenchResource(self._http, self)
        self.dimensions = DimensionsResource(self._http)
        self.models = ModelsResource(self._http)
        self.videos = VideosResource(self._http)
        self.runners = RunnersResource(self._http)

    def __repr__(self) -> str:
        return f"Vesta(base_url={self.base_url!r})"

    def close(self) -> None:
        """Closes the kept-alive connections (also done when the client is garbage-collected)."""
        self._http.close()

    def __enter__(self) -> "Vesta":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
