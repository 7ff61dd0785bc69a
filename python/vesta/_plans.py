"""Every API call as a plan (see ``vesta._core``): written once, run by ``Vesta`` and ``AsyncVesta``.

To add a call: write its plan here (build the request with ``cfg.build`` through :func:`call`,
turn the answer into its result class), add the method to ``vesta/_resources.py`` and run
``python3 python/scripts/generate_async.py`` (docs/python.md › "Adding a method").
"""
from __future__ import annotations

import datetime as _dt
import time
from typing import Any, Callable, Dict, List, Mapping, Optional, Sequence, Type, TypeVar, cast

from . import types as g
from ._core import (
    Body,
    CallOptions,
    Config,
    Plan,
    QueryValue,
    Response,
    Sleep,
    backoff_delay,
    is_transient,
    path_segment,
    request_plan,
    retrying,
    upload_url_for_errors,
)
from ._exceptions import (
    InvalidArgumentError,
    ScoringFailedError,
    VestaError,
    VideoGoneError,
    WaitTimeoutError,
)
from ._models import ScoredUpload, UploadResult
from ._object import ApiObject
from ._upload import Source, UploadInput, open_source, split_ticket_headers

O = TypeVar("O", bound=ApiObject)
TERMINAL_RUN_STATES = ("completed", "failed", "cancelled")

#: ``progress(event)``: ``{"phase": "upload", "loaded": n, "total": n}``, then
#: ``{"phase": "confirm", "videoId": id}``, then (with wait) ``{"phase": "wait", "videoId": id, "state": s}``.
ProgressCallback = Callable[[Dict[str, Any]], None]


def call(
    cfg: Config,
    method: str,
    path: str,
    o: CallOptions,
    *,
    query: Optional[Mapping[str, QueryValue]] = None,
    json_body: Any = None,
    accept: str = "application/json",
    headers: Optional[Mapping[str, str]] = None,
    idempotency_key: Optional[str] = None,
    timeout: Optional[float] = None,
) -> Plan[Response]:
    """One API call with the client's (or the call's) retries; ``timeout``: this call's default
    when the caller gave none (a claim's long poll)."""
    request = cfg.build(method, path, o, query=query, json_body=json_body, accept=accept, headers=headers,
                        idempotency_key=idempotency_key, timeout=timeout)
    return (yield from request_plan(request, cfg.retries(o)))


def parsed(cls: Type[O], res: Response) -> O:
    return cls(res.json(), res)


def get_object(cfg: Config, cls: Type[O], path: str, o: CallOptions, query: Optional[Mapping[str, QueryValue]] = None) -> Plan[O]:
    return parsed(cls, (yield from call(cfg, "GET", path, o, query=query)))


def post_object(cfg: Config, cls: Type[O], path: str, o: CallOptions, body: Any = None, idempotency_key: Optional[str] = None) -> Plan[O]:
    return parsed(cls, (yield from call(cfg, "POST", path, o, json_body=body, idempotency_key=idempotency_key)))


def filled(value: object) -> bool:
    """A prompt that says something: a str with more than blanks."""
    return isinstance(value, str) and bool(value.strip())


def nothing(plan: Plan[Response]) -> Plan[None]:
    yield from plan
    return None


# -- Score and Rank -------------------------------------------------------------------------------
def session_path(kind: str, run_id: Optional[str] = None, tail: str = "") -> str:
    return f"/api/v1/{kind}" + (f"/{path_segment(run_id)}" if run_id is not None else "") + tail


def create_upload_url(
    cfg: Config,
    kind: str,
    run_id: str,
    o: CallOptions,
    *,
    file_name: str,
    content_type: str,
    prompt: Optional[str] = None,
    auxiliary: Optional[Mapping[str, str]] = None,
    size_bytes: Optional[int] = None,
) -> Plan[g.UploadUrlResponse]:
    body: Dict[str, Any] = {"fileName": file_name, "contentType": content_type}
    # The size lets an S3 store bind it into the presigned URL (and refuses too large a clip at once).
    if size_bytes:
        body["sizeBytes"] = size_bytes
    if prompt is not None:
        body["prompt"] = prompt
    if auxiliary is not None:
        body["auxiliary"] = dict(auxiliary)
    return (yield from post_object(cfg, g.UploadUrlResponse, session_path(kind, run_id, "/videos/upload-url"), o, body))


def put_ticket(cfg: Config, ticket: g.UploadUrlResponse, source: Source, progress: Optional[ProgressCallback], max_retries: int) -> Plan[None]:
    """Step 2: PUT the bytes to the minted URL, sent again from the first byte (same URL) on a
    transient failure while retries remain and the URL is valid. Errors name the URL without its
    query (its credential) and count every attempt made."""
    method, headers = split_ticket_headers(ticket.to_dict(), source)
    url = cfg.absolute(ticket.upload_url)
    expires_at = _epoch(ticket.expires_at)
    def report(loaded: int, total: int) -> None:
        if progress is not None:
            progress({"phase": "upload", "loaded": loaded, "total": total})

    body = Body(source.data, source.length, report if progress else None)
    request = cfg.build(method, url, body=body, headers=headers, authenticated=False, shown_url=upload_url_for_errors(url))

    def delay_for(err: VestaError, n: int) -> Optional[float]:
        delay = backoff_delay(n)
        if not is_transient(err) or n >= max_retries or (expires_at is not None and time.time() + delay >= expires_at):
            return None
        return delay

    yield from retrying(lambda _n: request_plan(request, 0), delay_for)


def upload(
    cfg: Config,
    kind: str,
    o: CallOptions,
    file: UploadInput,
    prompt: Optional[str],
    wait: bool,
    *,
    auxiliary: Optional[Mapping[str, str]],
    file_name: Optional[str],
    content_type: Optional[str],
    progress: Optional[ProgressCallback],
    wait_timeout: float,
    poll_interval: float,
) -> Plan[UploadResult]:
    """upload-url, PUT, confirm-upload; with ``wait``, polls until the clip is scored."""
    if wait_timeout <= 0 or poll_interval <= 0:
        name = "wait_timeout" if wait_timeout <= 0 else "poll_interval"
        raise InvalidArgumentError(name, f"{name} must be more than 0 seconds")
    source = open_source(file, file_name, content_type)  # read errors before anything is created
    try:
        session = yield from call(cfg, "GET", session_path(kind), o)
        run_id = str(session.json()["runId"])
        ticket = yield from create_upload_url(
            cfg, kind, run_id, o, file_name=source.file_name, content_type=source.content_type,
            prompt=prompt, auxiliary=auxiliary, size_bytes=source.length,
        )
        yield from put_ticket(cfg, ticket, source, progress, cfg.retries(o))
    finally:
        source.close()
    video_id = ticket.video_id
    if progress:
        progress({"phase": "confirm", "videoId": video_id})
    confirmed = yield from call(cfg, "POST", session_path(kind, run_id, "/videos/confirm-upload"), o, json_body={"videoId": video_id})
    answer: Any = confirmed.json()
    state = str(cast(Dict[str, Any], answer).get("state") or "uploaded") if isinstance(answer, dict) else "uploaded"
    if not wait:
        return UploadResult.of(run_id, video_id, state, None)
    video = yield from wait_for_video(cfg, kind, o, run_id, video_id, wait_timeout, poll_interval, progress)
    return ScoredUpload.of(run_id, video_id, video.state, video)


def wait_for_video(
    cfg: Config, kind: str, o: CallOptions, run_id: str, video_id: str, timeout: float, interval: float,
    progress: Optional[ProgressCallback],
) -> Plan[g.Video]:
    """Polls the session (×1.5 up to 5 s) until the clip is scored or failed. A session that has
    another run id now (reset elsewhere), or that no longer lists the clip, ends the wait."""
    deadline = time.monotonic() + timeout
    last: Optional[str] = None
    while True:
        session = (yield from call(cfg, "GET", session_path(kind), o)).json()
        video = next((g.Video(v) for v in session["videos"] if v["videoId"] == video_id), None)
        if session["runId"] != run_id or video is None:
            raise VideoGoneError(video_id, run_id, str(session["runId"]))
        if video.state != last:
            last = video.state
            if progress:
                progress({"phase": "wait", "videoId": video_id, "state": last})
        if video.state == "scored":
            return video
        if video.state == "failed":
            err = video.error
            raise ScoringFailedError(video_id, video, None if err is None else (err.detail or err.code))
        remaining = deadline - time.monotonic()
        if remaining <= 0:
            raise WaitTimeoutError(f"Video {video_id}", timeout, last, video_id=video_id)
        yield Sleep(min(interval, remaining))
        interval = min(interval * 1.5, 5.0)


def _epoch(value: Any) -> Optional[float]:
    """An ISO 8601 instant (``2026-01-01T00:00:00.000Z``) in seconds since the epoch; None if not one."""
    if not isinstance(value, str) or not value:
        return None
    try:
        return _dt.datetime.fromisoformat(value.replace("Z", "+00:00")).timestamp()
    except ValueError:
        return None


def rank_board(cfg: Config, run_id: Optional[str], o: CallOptions) -> Plan[g.Leaderboard]:
    if run_id is None:
        run_id = str((yield from call(cfg, "GET", "/api/v1/rank", o)).json()["runId"])
    return (yield from get_object(cfg, g.Leaderboard, session_path("rank", run_id, "/ranked"), o))


def remove_video(cfg: Config, kind: str, run_id: Optional[str], video_id: str, o: CallOptions) -> Plan[None]:
    if run_id is None:
        run_id = str((yield from call(cfg, "GET", session_path(kind), o)).json()["runId"])
    path = session_path(kind, run_id, f"/videos/{path_segment(video_id)}")
    yield from call(cfg, "DELETE", path, o)
    return None


# -- Bench ----------------------------------------------------------------------------------------
def bench_path(run_id: str, tail: str = "") -> str:
    return f"/api/v1/bench/{path_segment(run_id)}{tail}"


def bench_create(
    cfg: Config, o: CallOptions, name: str, model_id: str, dimensions: Sequence[str], runner_id: Optional[str],
    samples_per_prompt: Optional[int], prompts_per_dimension: Optional[int], idempotency_key: Optional[str],
) -> Plan[g.BenchRun]:
    dims = [d for d in dimensions.split(",") if d] if isinstance(dimensions, str) else list(dimensions)
    body: Dict[str, Any] = {"name": name, "model_id": model_id, "dimensions": dims}
    if runner_id is not None:
        body["runner_id"] = runner_id
    if samples_per_prompt is not None:
        body["samples_per_prompt"] = samples_per_prompt
    if prompts_per_dimension is not None:
        body["prompts_per_dimension"] = prompts_per_dimension
    return (yield from post_object(cfg, g.BenchRun, "/api/v1/bench", o, body, idempotency_key))


def bench_wait(cfg: Config, o: CallOptions, run_id: str, timeout: Optional[float], interval: float) -> Plan[g.BenchRun]:
    """Polls the run (×1.5 up to 10 s) until it is completed, failed or cancelled."""
    if (timeout is not None and timeout <= 0) or interval <= 0:
        name = "poll_interval" if interval <= 0 else "timeout"
        raise InvalidArgumentError(name, f"{name} must be more than 0 seconds")
    deadline = None if timeout is None else time.monotonic() + timeout
    while True:
        run = yield from get_object(cfg, g.BenchRun, bench_path(run_id), o)
        if run.status in TERMINAL_RUN_STATES:
            return run
        if deadline is not None and time.monotonic() >= deadline:
            raise WaitTimeoutError(f"Bench run {run_id}", timeout or 0.0, run.status, run_id=run_id)
        pause = interval if deadline is None else max(0.0, min(interval, deadline - time.monotonic()))
        yield Sleep(pause)
        interval = min(interval * 1.5, 10.0)


def bench_compare(
    cfg: Config, o: CallOptions, runs: Sequence[str], dimensions: Optional[Sequence[str]],
    fail_on_regression: Optional[float], prompt_limit: Optional[int] = None,
) -> Plan[g.BenchComparison]:
    query: Dict[str, QueryValue] = {"runs": ",".join(runs)}
    if dimensions:
        query["dimensions"] = ",".join(dimensions)
    if fail_on_regression is not None:
        query["fail_on_regression"] = repr(float(fail_on_regression))
    if prompt_limit is not None:
        query["prompt_limit"] = prompt_limit
    return (yield from get_object(cfg, g.BenchComparison, "/api/v1/bench/compare", o, query))


def baseline_path(model_id: str) -> str:
    return f"/api/v1/models/{path_segment(model_id)}/baseline"


def set_baseline(cfg: Config, o: CallOptions, model_id: str, run_id: str) -> Plan[g.ModelBaseline]:
    return parsed(g.ModelBaseline, (yield from call(cfg, "PUT", baseline_path(model_id), o, json_body={"run_id": run_id})))


def page_query(page: int, limit: Optional[int]) -> Dict[str, QueryValue]:
    return {"page": page, "limit": limit}


# -- videos ---------------------------------------------------------------------------------------
def video_content(cfg: Config, o: CallOptions, video_id: str, start: Optional[int], end: Optional[int]) -> Plan[bytes]:
    headers = None
    if start is not None or end is not None:
        headers = {"Range": f"bytes={start or 0}-{'' if end is None else end}"}
    res = yield from call(cfg, "GET", f"/api/v1/videos/{path_segment(video_id)}/content", o, headers=headers, accept="*/*")
    return res.content


# -- judging campaigns ----------------------------------------------------------------------------
def judging_path(campaign_id: Optional[str] = None, tail: str = "") -> str:
    return "/api/v1/judging/campaigns" + (f"/{path_segment(campaign_id)}" if campaign_id is not None else "") + tail


def judging_clip(cfg: Config, o: CallOptions, campaign_id: str, clip_id: str, start: Optional[int], end: Optional[int]) -> Plan[bytes]:
    headers = None
    if start is not None or end is not None:
        headers = {"Range": f"bytes={start or 0}-{'' if end is None else end}"}
    path = judging_path(campaign_id, f"/clips/{path_segment(clip_id)}/content")
    res = yield from call(cfg, "GET", path, o, headers=headers, accept="*/*")
    return res.content


# -- runners --------------------------------------------------------------------------------------
def runner_register(cfg: Config, o: CallOptions, name: str, models: Sequence[str], max_concurrency: int, version: Optional[str]) -> Plan[g.Runner]:
    body: Dict[str, Any] = {"name": name, "models": list(models), "maxConcurrency": max_concurrency}
    if version is not None:
        body["version"] = version
    return (yield from post_object(cfg, g.Runner, "/api/v1/runners", o, body))


def runner_claim(cfg: Config, o: CallOptions, runner_id: str, wait_seconds: int) -> Plan[Optional[g.RunnerTask]]:
    res = yield from call(cfg, "POST", f"/api/v1/runners/{path_segment(runner_id)}/claim", o,
                          json_body={"waitSeconds": wait_seconds}, timeout=wait_seconds + 30.0)
    if res.status == 204 or not res.content:
        return None
    return g.ClaimResponse(res.json(), res).task


def task_path(task_id: str, tail: str) -> str:
    return f"/api/v1/runner-tasks/{path_segment(task_id)}{tail}"


def log_lines(logs: Optional[Sequence[Mapping[str, str]]]) -> Optional[List[Dict[str, str]]]:
    return [dict(line) for line in logs] if logs else None


def runner_heartbeat(cfg: Config, o: CallOptions, task_id: str, lease_id: str, logs: Optional[Sequence[Mapping[str, str]]]) -> Plan[g.HeartbeatResponse]:
    body: Dict[str, Any] = {"leaseId": lease_id}
    lines = log_lines(logs)
    if lines:
        body["logs"] = lines
    return (yield from post_object(cfg, g.HeartbeatResponse, task_path(task_id, "/heartbeat"), o, body))


def runner_upload_url(cfg: Config, o: CallOptions, task_id: str, lease_id: str, file_name: str, content_type: str, size_bytes: Optional[int]) -> Plan[g.UploadUrlResponse]:
    body: Dict[str, Any] = {"leaseId": lease_id, "fileName": file_name, "contentType": content_type}
    if size_bytes:
        body["sizeBytes"] = size_bytes
    return (yield from post_object(cfg, g.UploadUrlResponse, task_path(task_id, "/upload-url"), o, body))


def runner_complete(cfg: Config, o: CallOptions, task_id: str, lease_id: str, video_id: str, logs: Optional[Sequence[Mapping[str, str]]], idempotency_key: Optional[str]) -> Plan[g.CompleteRunnerTaskResponse]:
    body: Dict[str, Any] = {"leaseId": lease_id, "videoId": video_id}
    lines = log_lines(logs)
    if lines:
        body["logs"] = lines
    return (yield from post_object(cfg, g.CompleteRunnerTaskResponse, task_path(task_id, "/complete"), o, body, idempotency_key))


def runner_fail(cfg: Config, o: CallOptions, task_id: str, lease_id: str, error: str, retryable: bool, logs: Optional[Sequence[Mapping[str, str]]], idempotency_key: Optional[str]) -> Plan[g.FailResponse]:
    body: Dict[str, Any] = {"leaseId": lease_id, "error": error[:4000] or "failed", "retryable": retryable}
    lines = log_lines(logs)
    if lines:
        body["logs"] = lines
    return (yield from post_object(cfg, g.FailResponse, task_path(task_id, "/fail"), o, body, idempotency_key))
