"""``bench.run_with_pipeline``: benchmark an in-process generator (mirrors packages/sdk/src/runner).

This process registers as a runner for ``model_id``, creates a run that only it may serve, claims
the run's tasks one at a time, calls the pipeline for each (a background
thread renews the lease meanwhile and learns of a cancel), uploads what it returns, and polls the
run until its evaluation ends. Ctrl-C cancels the run, hands the task back and deregisters.

Faults are met as the TypeScript runner meets them: while the service cannot be reached (no
connection, a timeout, 408/429/5xx) the claims and polls wait and try again, the heartbeats keep
trying within the lease, a clip's upload is sent again, and a completion or failure is repeated
with one Idempotency-Key until the lease would expire. Each wait is logged as a warning on the
``vesta`` logger.
"""
from __future__ import annotations

import datetime as _dt
import logging
import threading
import time
import uuid
from typing import TYPE_CHECKING, Any, Callable, Dict, List, Optional, Sequence, Tuple, TypeVar, cast

from . import _generated as g
from ._calling import PROGRAMMING_ERRORS, PipelineCall, resolve_call
from ._client import TERMINAL_RUN_STATES, put_ticket
from ._exceptions import ApiError, GenerationError, PipelineOutputError, VestaError
from ._http import backoff_delay, is_transient
from ._upload import open_source
from ._video import clip_from_output

if TYPE_CHECKING:
    from ._client import Vesta


#: How long (seconds) a generated clip is sent again while its upload cannot reach the storage
#: (the task's lease is held by the heartbeats meanwhile); after that the attempt fails as any other.
UPLOAD_RETRY_WINDOW = 600.0
#: Waits (seconds) between claims or polls that could not reach the service: 0.5 doubling up to 30,
#: minus up to 25 % jitter (the TypeScript runner's CLAIM_BACKOFF).
CLAIM_BACKOFF_INITIAL = 0.5
CLAIM_BACKOFF_MAX = 30.0
#: A heartbeat's timeout is max(its interval, this) seconds, with one retry (as the TypeScript
#: runner's): a hung service cannot hold a heartbeat past the lease it renews.
HEARTBEAT_MIN_TIMEOUT = 5.0
HEARTBEAT_MAX_RETRIES = 1

_log = logging.getLogger("vesta")
T = TypeVar("T")


class PipelineContext:
    """What the pipeline gets besides prompt and seed, for one clip."""

    def __init__(self, task: g.RunnerTask) -> None:
        self.task_id: str = task["id"]
        self.run_id: str = task["runId"]
        self.model_id: str = task["modelId"]
        self.prompt: str = task["prompt"]
        self.seed: int = task["seed"]
        self.sample_index: int = task["sampleIndex"]
        #: Auxiliary prompt info (object, color, scene, …) for semantic dimensions; {} when none.
        self.auxiliary: Dict[str, str] = dict(task.get("auxiliary") or {})
        self.dimensions: List[str] = list(task["dimensions"])
        self.attempt: int = task["attempt"]
        #: Set when the run is cancelled: stop early (what is returned then is not uploaded).
        self.cancelled = threading.Event()
        self._logs: List[g.RunnerLogLine] = []
        self._lock = threading.Lock()

    def log(self, message: str, level: str = "info") -> None:
        """Adds a line to the run's log (sent with the next heartbeat)."""
        line = cast(g.RunnerLogLine, {"level": level, "message": str(message)[:4000] or "-", "at": _now()})
        with self._lock:
            self._logs.append(line)

    def _take_logs(self) -> Optional[List[g.RunnerLogLine]]:
        with self._lock:
            lines, self._logs = self._logs[:100], self._logs[100:]
        return lines or None

    def _give_back_logs(self, lines: List[g.RunnerLogLine]) -> None:
        """Lines a heartbeat could not deliver, first in line for the next one."""
        with self._lock:
            self._logs[:0] = lines


def _now() -> str:
    return _dt.datetime.now(_dt.timezone.utc).isoformat(timespec="milliseconds").replace("+00:00", "Z")


class _Heartbeat(threading.Thread):
    def __init__(self, client: "Vesta", task: g.RunnerTask, ctx: PipelineContext) -> None:
        super().__init__(name=f"vesta-heartbeat-{task['id']}", daemon=True)
        self._client = client
        self._task = task
        self._ctx = ctx
        self._stop_event = threading.Event()
        lease = task["lease"]
        self.ttl = float(lease["ttlSeconds"]) if lease is not None else 15.0
        self.interval = max(0.2, self.ttl / 3.0)
        self.timeout = max(self.interval, HEARTBEAT_MIN_TIMEOUT)
        #: Why ``context.cancelled`` was set: "cancelled" (the run) or "lease_lost" (the task went back).
        self.reason: Optional[str] = None
        #: When (``time.monotonic()``) the lease ends unless renewed: the last renewal sent + its TTL.
        self.lease_until = time.monotonic() + self.ttl

    def _end(self, reason: str) -> None:
        self.reason = reason
        self._ctx.cancelled.set()

    def run(self) -> None:
        lease = self._task["lease"]
        assert lease is not None
        while not self._stop_event.wait(self.interval):
            logs = self._ctx._take_logs()
            sent = time.monotonic()
            try:
                reply = self._client.runners.heartbeat(
                    self._task["id"], lease["id"], logs, timeout=self.timeout, max_retries=HEARTBEAT_MAX_RETRIES
                )
            except VestaError as err:
                if logs:
                    self._ctx._give_back_logs(logs)  # first in line for the next beat, or the completion
                if self._stop_event.is_set():
                    return  # the task is over: what the beat would have said no longer matters
                if not is_transient(err):
                    # 409: the lease was taken over (expired, re-queued); 403/404: the task is gone.
                    self._end("lease_lost")
                    return
                _retrying("heartbeat", err, self.interval)
                if time.monotonic() >= self.lease_until:
                    self._end("lease_lost")  # unrenewed past its end: the server has re-queued the task
                    return
                continue  # transient: the next beat tries again (the lease outlives two misses)
            self.lease_until = sent + self.ttl
            if reply.get("cancelled"):
                self._end("cancelled")
                return

    def stop(self) -> None:
        self._stop_event.set()
        if self.is_alive():
            self.join(timeout=5)


def _serve(
    client: "Vesta", pipeline: Callable[..., Any], call: PipelineCall, task: g.RunnerTask, fps: float, first: bool
) -> None:
    """Generates, uploads and reports one task. ``first``: the pipeline's first call of this run,
    where a programming error (TypeError, NameError, AttributeError, ImportError) is raised here
    after the task is handed back, instead of failing the clip."""
    lease = task["lease"]
    if lease is None:
        raise VestaError("protocol_error", f"The service answered a claim with task {task['id']} but no lease.")
    ctx = PipelineContext(task)
    runners = client.runners
    beat = _Heartbeat(client, task, ctx)
    beat.start()

    def fail(message: str, retryable: bool, patient: bool = True) -> None:
        """Reports the failure, repeated (one Idempotency-Key, one body) while the service cannot
        be reached until the lease would expire; ``patient=False`` (Ctrl-C): the call's own retries only."""
        logs = ctx._take_logs()
        try:
            _report(
                "fail",
                lambda key: runners.fail(task["id"], lease["id"], message, retryable, logs, idempotency_key=key),
                beat.lease_until if patient else 0.0,
            )
        except ApiError as err:
            if err.status not in (403, 404, 409) and not is_transient(err):  # 403/404/409: gone already
                raise
        except VestaError as err:
            # The failure cannot be reported (the service unreachable until the lease's end): the
            # lease expires and the server re-queues the task.
            if not is_transient(err):
                raise

    try:
        try:
            args, kwargs = call.arguments(task["prompt"], task["seed"], ctx)
            output = pipeline(*args, **kwargs)
        except KeyboardInterrupt:
            beat.stop()
            fail("the runner was interrupted (Ctrl-C) before the clip was finished; handed back", True, patient=False)
            raise
        except GenerationError as err:
            beat.stop()
            fail(str(err) or type(err).__name__, err.retryable)
            return
        except PROGRAMMING_ERRORS as err:
            beat.stop()
            if first:
                # A mistake in the code, not a failed clip: every call would fail the same way.
                fail(
                    f"{type(err).__name__}: {err} (the pipeline's first call, {call.description}); "
                    "handed back, the run is cancelled and the error raised in the runner's process",
                    True,
                    patient=False,
                )
                raise
            fail(f"{type(err).__name__}: {err}", True)
            return
        except Exception as err:  # noqa: BLE001 - a generator's own failure fails the clip, with its message
            beat.stop()
            fail(f"{type(err).__name__}: {err}", True)
            return
        if ctx.cancelled.is_set():
            beat.stop()
            fail("the run was cancelled; generation stopped", False)
            return
        try:
            clip, content_type = clip_from_output(output, fps)
        except PipelineOutputError as err:
            beat.stop()
            fail(str(err), False)
            return
        try:
            video_id = _send_clip(client, task, ctx, clip, content_type)
        except VestaError as err:
            beat.stop()
            if beat.reason == "cancelled":
                fail("the run was cancelled; generation stopped", False)
            elif beat.reason == "lease_lost" or (isinstance(err, ApiError) and err.status in (403, 404, 409)):
                return  # the run was cancelled or the lease ended meanwhile: nothing to report
            elif isinstance(err, ApiError) and not is_transient(err):
                fail(f"the server refused the clip: {err.detail}", True)
            else:  # the storage unreachable past the window, or the clip unreadable
                fail(_error_text(err), True)
            return
        beat.stop()
        logs = ctx._take_logs()
        try:
            # Repeated while the service cannot be reached (an api process restarting), until the
            # lease would expire: one Idempotency-Key and one body, so a completion that arrived
            # but whose answer was lost is replayed, not refused.
            _report(
                "complete",
                lambda key: runners.complete(task["id"], lease["id"], video_id, logs, idempotency_key=key),
                beat.lease_until,
            )
        except ApiError as err:
            if err.status in (403, 404, 409):
                return
            if logs:
                ctx._give_back_logs(logs)
            fail(_error_text(err) if is_transient(err) else f"the server refused the clip: {err.detail}", True)
        except VestaError as err:
            if not is_transient(err):
                raise
            # The service unreachable until the lease's end: the lease expires and the server
            # re-queues the task (a failure could not be reported either).
    finally:
        beat.stop()


def _upload_clip(client: "Vesta", task: g.RunnerTask, clip: Any, content_type: Optional[str]) -> str:
    """One upload of the clip: upload-url (with the lease) then the PUT; returns the video id."""
    lease = task["lease"]
    assert lease is not None
    source = open_source(clip, None, content_type)
    try:
        ticket = client.runners.create_upload_url(
            task["id"], lease["id"], source.file_name, source.content_type, source.length
        )
        put_ticket(client._http, ticket, source, None)
    finally:
        source.close()
    return ticket["videoId"]


def _send_clip(client: "Vesta", task: g.RunnerTask, ctx: PipelineContext, clip: Any, content_type: Optional[str]) -> str:
    """Uploads the clip; while the storage cannot be reached (the blob store down: no connection, a
    timeout, 5xx) the clip is kept and sent again with growing waits (0.5 s doubling up to 8 s) for
    up to :data:`UPLOAD_RETRY_WINDOW` seconds, the heartbeats holding the lease, so that an outage
    of the store costs no attempt of the task and no second generation. A cancel or a lost lease
    ends the waits; the last error is raised."""
    deadline = time.monotonic() + UPLOAD_RETRY_WINDOW
    told = False
    attempt = 0
    while True:
        try:
            return _upload_clip(client, task, clip, content_type)
        except VestaError as err:
            delay = backoff_delay(min(attempt, 4))
            if not is_transient(err) or ctx.cancelled.is_set() or time.monotonic() + delay >= deadline:
                raise
            _retrying("upload", err, delay)
            if not told:
                ctx.log(f"the upload failed ({_error_text(err)}); sending the clip again", "warn")
                told = True
            if ctx.cancelled.wait(delay):
                raise
            attempt += 1


def _report(operation: str, call: Callable[[str], T], deadline: float) -> T:
    """``call(idempotency_key)`` until it succeeds, fails for good, or the next wait would pass
    ``deadline`` (``time.monotonic()``): waits of 0.5 s doubling up to 8 s, one key for every try
    (the TypeScript runner's retryTransient). The last error is raised."""
    key = str(uuid.uuid4())
    attempt = 0
    while True:
        try:
            return call(key)
        except VestaError as err:
            delay = backoff_delay(min(attempt, 4))
            if not is_transient(err) or time.monotonic() + delay >= deadline:
                raise
            _retrying(operation, err, delay)
            time.sleep(delay)
            attempt += 1


def _retrying(operation: str, err: VestaError, delay: float) -> None:
    """What the TypeScript runner emits as a ``retrying`` event, as a warning of the ``vesta`` logger."""
    _log.warning("vesta runner: %s failed (%s); trying again in %.1f s", operation, _error_text(err), delay)


def _error_text(err: VestaError) -> str:
    return f"{err.code}: {err.detail}" if isinstance(err, ApiError) else err.message


def run_with_pipeline(
    client: "Vesta",
    pipeline: Callable[..., Any],
    *,
    dimensions: Sequence[str],
    run_name: str,
    model_id: str,
    samples_per_prompt: Optional[int] = None,
    prompts_per_dimension: Optional[int] = None,
    fps: float = 8.0,
    runner_name: Optional[str] = None,
    poll_interval: float = 0.5,
    on_progress: Optional[Callable[[g.BenchRun], None]] = None,
) -> g.BenchRun:
    """Registers a runner for ``model_id``, creates the run, serves every task by calling the
    pipeline, and returns the finished run (completed, failed or cancelled).

    The pipeline is called with what its signature accepts: the prompt first, then the seed and
    the context (:class:`PipelineContext`) to parameters named ``seed`` and ``context`` (by
    position or keyword), or to required positional parameters in that order:
    ``generate(prompt)``, ``generate(prompt, seed=None, **kw)``, ``generate(prompt, seed, context)``.
    A signature it cannot fill is a ``TypeError`` before anything is created. A programming error
    of the first call (TypeError, NameError, AttributeError, ImportError) hands the task back,
    cancels the run, deregisters and is raised here with its own traceback.

    The pipeline returns a file path, the clip's bytes, a sequence of frames (NumPy arrays, PIL
    images or :class:`vesta.Frame`, encoded to MP4 at ``fps`` with FFmpeg), or a diffusers-style
    output whose ``frames`` holds them (the first video of a batch).

    While the service cannot be reached (an api process restarting: no connection, a timeout,
    408/429/5xx past the client's retries) the claims and polls wait and try again, 0.5 s doubling
    up to 30 s (:data:`CLAIM_BACKOFF_INITIAL`, :data:`CLAIM_BACKOFF_MAX`), each wait a warning on
    the ``vesta`` logger; Ctrl-C still stops at once, and a run that ended meanwhile ends the loop.
    """
    call = resolve_call(pipeline)  # a signature no call could fill: TypeError before anything is created
    runners = client.runners
    runner = runners.register((runner_name or f"pipeline: {run_name}")[:100], [model_id])
    run: Optional[g.BenchRun] = None
    failures = 0  # rounds in a row whose claim or poll could not reach the service
    quick = False  # leaving on an error while the service cannot be reached: one try per cleanup call
    served = 0  # tasks given to the pipeline so far
    try:
        run = client.bench.create(
            run_name,
            model_id,
            dimensions,
            runner["id"],
            samples_per_prompt=samples_per_prompt,
            prompts_per_dimension=prompts_per_dimension,
        )
        last_key = ""
        while True:
            key = _progress_key(run)
            if key != last_key:
                last_key = key
                if on_progress:
                    on_progress(run)
            if run["status"] in TERMINAL_RUN_STATES:
                return run
            unreachable: List[Tuple[str, VestaError]] = []  # (operation, error) of calls that did not get through
            if run["status"] in ("queued", "generating"):
                try:
                    # No retries of its own (as the TypeScript loop's claim): this loop waits and claims again.
                    task = runners.claim(runner["id"], wait_seconds=1, max_retries=0)
                except VestaError as err:
                    if not is_transient(err):
                        raise
                    unreachable.append(("claim", err))
                else:
                    if task is not None:
                        served += 1
                        _serve(client, pipeline, call, task, fps, first=served == 1)
            else:  # evaluating: only scoring remains, poll closer so the end is seen sooner
                time.sleep(min(poll_interval, 0.15))
            # Polled even when the claim failed: a run that ended (cancelled, say) ends the loop.
            try:
                run = client.bench.get(run["id"])
            except VestaError as err:
                if not is_transient(err):
                    raise
                unreachable.append(("poll", err))
            if not unreachable:
                failures = 0
                continue
            if run["status"] in TERMINAL_RUN_STATES:
                continue  # the poll got through: the run is over, whatever the claim met
            delay = backoff_delay(min(failures, 6), CLAIM_BACKOFF_INITIAL, CLAIM_BACKOFF_MAX)
            failures += 1
            for operation, err in unreachable:
                _retrying(operation, err, delay)
            time.sleep(delay)  # Ctrl-C (KeyboardInterrupt) ends the wait at once
    except BaseException:
        # Leave nothing behind: the run is cancelled (best effort); the runner is deregistered below.
        # While the service cannot be reached, one try each: Ctrl-C then ends the call at once.
        quick = failures > 0
        if run is not None and run["status"] not in TERMINAL_RUN_STATES:
            try:
                client.bench.cancel(run["id"], max_retries=0 if quick else None)
            except VestaError:
                pass
        raise
    finally:
        try:
            runners.deregister(runner["id"], max_retries=0 if quick else None)
        except VestaError:
            pass


def _progress_key(run: g.BenchRun) -> str:
    p = run["progress"]
    return f"{run['status']}:{p['tasks_total']}:{p['tasks_generated']}:{p['tasks_done']}:{p['tasks_failed']}"
