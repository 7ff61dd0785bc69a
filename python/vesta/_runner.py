"""``bench.run_with_pipeline``: benchmark an in-process generator (mirrors packages/sdk/src/runner).

This process registers as a runner for ``model_id``, creates a run that only it may serve, claims
the run's tasks one at a time, calls the pipeline for each (heartbeats renew the lease meanwhile
and learn of a cancel), uploads what it returns, and polls the run until its evaluation ends.
Ctrl-C (or cancelling the awaiting task with ``AsyncVesta``) hands the task back, cancels the run
and deregisters.

The whole runner is one plan (see ``vesta._core``) with four effects of its own besides Send and
Sleep: :class:`Generate` (call the pipeline), :class:`Encode` (turn its output into a clip),
:class:`StartBeats` / :class:`StopBeats` (the heartbeat plan running beside it). ``Vesta`` drives
it with a thread for the heartbeats and the pipeline called in the caller's thread; ``AsyncVesta``
(``vesta._arunner``) with an asyncio task for the heartbeats and the pipeline awaited (a
coroutine function) or run in a worker thread (a plain function), so it never blocks the loop.

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
from typing import TYPE_CHECKING, Any, Callable, Dict, List, Optional, Sequence, Tuple, TypeVar

from . import types as g
from . import _plans as p
from ._calling import PROGRAMMING_ERRORS, PipelineCall, resolve_call
from ._core import NO_OPTIONS, CallOptions, Config, Effect, Plan, Sleep, backoff_delay, is_transient, retrying
from ._drive import run
from ._exceptions import ApiError, GenerationError, PipelineOutputError, VestaError
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


class LogBuffer:
    """The log lines of one task waiting for the next heartbeat, completion or failure."""

    def __init__(self) -> None:
        self._lines: List[Dict[str, str]] = []
        self._lock = threading.Lock()

    def add(self, line: Dict[str, str]) -> None:
        with self._lock:
            self._lines.append(line)

    def take(self) -> Optional[List[Dict[str, str]]]:
        """Up to 100 lines, oldest first; None when there are none."""
        with self._lock:
            lines, self._lines = self._lines[:100], self._lines[100:]
        return lines or None

    def give_back(self, lines: List[Dict[str, str]]) -> None:
        """Lines a call could not deliver, first in line for the next one."""
        with self._lock:
            self._lines[:0] = lines


class PipelineContext:
    """What the pipeline gets besides prompt and seed, for one clip."""

    def __init__(self, task: g.RunnerTask, logs: Optional[LogBuffer] = None) -> None:
        self.task_id: str = task.id
        self.run_id: str = task.run_id
        self.model_id: str = task.model_id
        self.prompt: str = task.prompt
        self.seed: int = task.seed
        self.sample_index: int = task.sample_index
        #: Auxiliary prompt info (object, color, scene, …) for semantic dimensions; {} when none.
        self.auxiliary: Dict[str, str] = dict(task.auxiliary or {})
        self.dimensions: List[str] = list(task.dimensions)
        self.attempt: int = task.attempt
        #: Set when the run is cancelled or the lease is lost: stop early (what is returned then
        #: is not uploaded). A ``threading.Event``: check ``context.cancelled.is_set()``.
        self.cancelled: threading.Event = threading.Event()
        self._logs = logs or LogBuffer()

    def log(self, message: str, level: str = "info") -> None:
        """Adds a line to the run's log (sent with the next heartbeat)."""
        self._logs.add({"level": level, "message": str(message)[:4000] or "-", "at": _now()})


def _now() -> str:
    return _dt.datetime.now(_dt.timezone.utc).isoformat(timespec="milliseconds").replace("+00:00", "Z")


# -- the runner's own effects ---------------------------------------------------------------------
class Generate(Effect):
    """Effect: call the pipeline; the driver sends back its output or throws its exception in."""

    __slots__ = ("args", "kwargs", "context")

    def __init__(self, args: Tuple[Any, ...], kwargs: Dict[str, Any], context: PipelineContext) -> None:
        self.args = args
        self.kwargs = kwargs
        self.context = context


class Encode(Effect):
    """Effect: ``clip_from_output(output, fps)`` (FFmpeg for frames: a thread under asyncio)."""

    __slots__ = ("output", "fps")

    def __init__(self, output: Any, fps: float) -> None:
        self.output = output
        self.fps = fps


class StartBeats(Effect):
    """Effect: run ``beats`` (a plan) beside the runner until :class:`StopBeats`."""

    __slots__ = ("beats",)

    def __init__(self, beats: "Heartbeats") -> None:
        self.beats = beats


class StopBeats(Effect):
    """Effect: stop the heartbeats and wait for the one in flight."""

    __slots__ = ("beats",)

    def __init__(self, beats: "Heartbeats") -> None:
        self.beats = beats


class Heartbeats:
    """The heartbeats of one task: a plan renewing the lease every third of its length, shipping
    log lines, and setting ``context.cancelled`` when the run is cancelled or the lease lost."""

    def __init__(self, cfg: Config, task: g.RunnerTask, ctx: PipelineContext, logs: LogBuffer) -> None:
        self.cfg = cfg
        self.task = task
        self.ctx = ctx
        self.logs = logs
        self.stop = threading.Event()
        lease = task.lease
        self.ttl = float(lease.ttl_seconds) if lease is not None else 15.0
        self.interval = max(0.2, self.ttl / 3.0)
        #: Why ``context.cancelled`` was set: "cancelled" (the run) or "lease_lost" (the task went back).
        self.reason: Optional[str] = None
        #: When (``time.monotonic()``) the lease ends unless renewed: the last renewal sent + its TTL.
        self.lease_until = time.monotonic() + self.ttl
        #: What runs the plan (a thread or a task), kept by the driver.
        self.handle: Any = None

    def _end(self, reason: str) -> None:
        self.reason = reason
        self.ctx.cancelled.set()

    def plan(self) -> Plan[None]:
        lease = self.task.lease
        assert lease is not None
        options = CallOptions(timeout=max(self.interval, HEARTBEAT_MIN_TIMEOUT), max_retries=HEARTBEAT_MAX_RETRIES)
        while not (yield Sleep(self.interval, self.stop)):
            logs = self.logs.take()
            sent = time.monotonic()
            try:
                reply = yield from p.runner_heartbeat(self.cfg, options, self.task.id, lease.id, logs)
            except VestaError as err:
                if logs:
                    self.logs.give_back(logs)  # first in line for the next beat, or the completion
                if self.stop.is_set():
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
            if reply.cancelled:
                self._end("cancelled")
                return


# -- one task -------------------------------------------------------------------------------------
def report(operation: str, make: Callable[[str], Plan[T]], deadline: float) -> Plan[T]:
    """``make(idempotency_key)`` until it succeeds, fails for good, or the next wait would pass
    ``deadline`` (``time.monotonic()``): 0.5 s doubling up to 8 s, one key for every try (the
    TypeScript runner's retryTransient)."""
    key = str(uuid.uuid4())

    def delay_for(err: VestaError, n: int) -> Optional[float]:
        delay = backoff_delay(min(n, 4))
        return None if not is_transient(err) or time.monotonic() + delay >= deadline else delay

    return (yield from retrying(lambda _n: make(key), delay_for, lambda err, delay: _retrying(operation, err, delay)))


def _upload_clip(cfg: Config, task: g.RunnerTask, clip: Any, content_type: Optional[str]) -> Plan[str]:
    """One upload of the clip: upload-url (with the lease) then the PUT; returns the video id."""
    lease = task.lease
    assert lease is not None
    source = open_source(clip, None, content_type)
    try:
        ticket = yield from p.runner_upload_url(cfg, NO_OPTIONS, task.id, lease.id, source.file_name, source.content_type, source.length)
        yield from p.put_ticket(cfg, ticket, source, None, cfg.max_retries)
    finally:
        source.close()
    return ticket.video_id


def send_clip(cfg: Config, task: g.RunnerTask, ctx: PipelineContext, clip: Any, content_type: Optional[str]) -> Plan[str]:
    """Uploads the clip; while the storage cannot be reached (the blob store down: no connection, a
    timeout, 5xx) the clip is kept and sent again with growing waits (0.5 s doubling up to 8 s) for
    up to :data:`UPLOAD_RETRY_WINDOW` seconds, the heartbeats holding the lease, so that an outage
    of the store costs no attempt of the task and no second generation. A cancel or a lost lease
    ends the waits; the last error is raised."""
    deadline = time.monotonic() + UPLOAD_RETRY_WINDOW
    told: List[bool] = []

    def delay_for(err: VestaError, n: int) -> Optional[float]:
        delay = backoff_delay(min(n, 4))
        if not is_transient(err) or ctx.cancelled.is_set() or time.monotonic() + delay >= deadline:
            return None
        return delay

    def on_retry(err: VestaError, delay: float) -> None:
        _retrying("upload", err, delay)
        if not told:
            ctx.log(f"the upload failed ({_error_text(err)}); sending the clip again", "warn")
            told.append(True)

    return (yield from retrying(lambda _n: _upload_clip(cfg, task, clip, content_type), delay_for, on_retry, ctx.cancelled))


def serve(cfg: Config, call: PipelineCall, task: g.RunnerTask, fps: float, first: bool) -> Plan[None]:
    """Generates, uploads and reports one task. ``first``: the pipeline's first call of this run,
    where a programming error (TypeError, NameError, AttributeError, ImportError) is raised after
    the task is handed back, instead of failing the clip."""
    lease = task.lease
    if lease is None:
        raise VestaError("protocol_error", f"The service answered a claim with task {task.id} but no lease.")
    logbook = LogBuffer()
    ctx = PipelineContext(task, logbook)
    beats = Heartbeats(cfg, task, ctx, logbook)
    yield StartBeats(beats)
    stopped = False

    def stop_beats() -> Plan[None]:
        nonlocal stopped
        if not stopped:
            stopped = True
            yield StopBeats(beats)

    def fail(message: str, retryable: bool, patient: bool = True) -> Plan[None]:
        """Reports the failure, repeated (one Idempotency-Key, one body) while the service cannot
        be reached until the lease would expire; ``patient=False`` (an interrupt): one try."""
        logs = logbook.take()
        try:
            yield from report(
                "fail",
                lambda key: p.runner_fail(cfg, CallOptions(max_retries=None if patient else 0), task.id, lease.id, message, retryable, logs, key),
                beats.lease_until if patient else 0.0,
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
            args, kwargs = call.arguments(task.prompt, task.seed, ctx)
            output = yield Generate(args, kwargs, ctx)
        except GenerationError as err:
            yield from stop_beats()
            yield from fail(str(err) or type(err).__name__, err.retryable)
            return
        except PROGRAMMING_ERRORS as err:
            yield from stop_beats()
            if first:
                # A mistake in the code, not a failed clip: every call would fail the same way.
                yield from fail(
                    f"{type(err).__name__}: {err} (the pipeline's first call, {call.description}); "
                    "handed back, the run is cancelled and the error raised in the runner's process",
                    True,
                    patient=False,
                )
                raise
            yield from fail(f"{type(err).__name__}: {err}", True)
            return
        except Exception as err:  # noqa: BLE001 - a generator's own failure fails the clip, with its message
            yield from stop_beats()
            yield from fail(f"{type(err).__name__}: {err}", True)
            return
        except GeneratorExit:
            raise
        except BaseException:  # Ctrl-C, or the awaiting task cancelled
            yield from stop_beats()
            yield from fail("the runner was interrupted before the clip was finished; handed back", True, patient=False)
            raise
        if ctx.cancelled.is_set():
            yield from stop_beats()
            yield from fail("the run was cancelled; generation stopped", False)
            return
        try:
            clip, content_type = yield Encode(output, fps)
        except PipelineOutputError as err:
            yield from stop_beats()
            yield from fail(str(err), False)
            return
        try:
            video_id = yield from send_clip(cfg, task, ctx, clip, content_type)
        except VestaError as err:
            yield from stop_beats()
            if beats.reason == "cancelled":
                yield from fail("the run was cancelled; generation stopped", False)
            elif beats.reason == "lease_lost" or (isinstance(err, ApiError) and err.status in (403, 404, 409)):
                return  # the run was cancelled or the lease ended meanwhile: nothing to report
            elif isinstance(err, ApiError) and not is_transient(err):
                yield from fail(f"the server refused the clip: {err.detail}", True)
            else:  # the storage unreachable past the window, or the clip unreadable
                yield from fail(_error_text(err), True)
            return
        yield from stop_beats()
        logs = logbook.take()
        try:
            # Repeated while the service cannot be reached (an api process restarting), until the
            # lease would expire: one Idempotency-Key and one body, so a completion that arrived
            # but whose answer was lost is replayed, not refused.
            yield from report(
                "complete",
                lambda key: p.runner_complete(cfg, NO_OPTIONS, task.id, lease.id, video_id, logs, key),
                beats.lease_until,
            )
        except ApiError as err:
            if err.status in (403, 404, 409):
                return
            if logs:
                logbook.give_back(logs)
            yield from fail(_error_text(err) if is_transient(err) else f"the server refused the clip: {err.detail}", True)
        except VestaError as err:
            if not is_transient(err):
                raise
            # The service unreachable until the lease's end: the lease expires and the server
            # re-queues the task (a failure could not be reported either).
    except VestaError as err:
        err.task_id, err.run_id = task.id, task.run_id
        raise
    finally:
        if not stopped:
            beats.stop.set()  # the driver joins it (an error leaving serve)


def _retrying(operation: str, err: VestaError, delay: float) -> None:
    """What the TypeScript runner emits as a ``retrying`` event, as a warning of the ``vesta`` logger."""
    _log.warning("vesta runner: %s failed (%s); trying again in %.1f s", operation, _error_text(err), delay)


def _error_text(err: VestaError) -> str:
    return f"{err.code}: {err.detail}" if isinstance(err, ApiError) else err.message


# -- the run --------------------------------------------------------------------------------------
def pipeline_plan(
    cfg: Config,
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
) -> Plan[g.BenchRun]:
    """The whole of ``run_with_pipeline`` as one plan (drivers: :func:`run_with_pipeline`,
    ``vesta._arunner.run_with_pipeline``). Interrupts are thrown into it, so that it cancels the
    run and deregisters before they go on up."""
    call = resolve_call(pipeline)  # a signature no call could fill: TypeError before anything is created
    o = NO_OPTIONS
    runner = yield from p.runner_register(cfg, o, (runner_name or f"pipeline: {run_name}")[:100], [model_id], 1, None)
    run_: Optional[g.BenchRun] = None
    failures = 0  # rounds in a row whose claim or poll could not reach the service
    quick = False  # leaving on an error while the service cannot be reached: one try per cleanup call
    served = 0  # tasks given to the pipeline so far
    try:
        run_ = yield from p.bench_create(cfg, o, run_name, model_id, dimensions, runner.id, samples_per_prompt,
                                         prompts_per_dimension, None)
        last_key = ""
        while True:
            key = _progress_key(run_)
            if key != last_key:
                last_key = key
                if on_progress:
                    on_progress(run_)
            if run_.status in p.TERMINAL_RUN_STATES:
                return run_
            unreachable: List[Tuple[str, VestaError]] = []  # (operation, error) of calls that did not get through
            if run_.status in ("queued", "generating"):
                try:
                    # No retries of its own (as the TypeScript loop's claim): this loop waits and claims again.
                    task = yield from p.runner_claim(cfg, CallOptions(max_retries=0), runner.id, 1)
                except VestaError as err:
                    if not is_transient(err):
                        raise
                    unreachable.append(("claim", err))
                else:
                    if task is not None:
                        served += 1
                        yield from serve(cfg, call, task, fps, first=served == 1)
            else:  # evaluating: only scoring remains, poll closer so the end is seen sooner
                yield Sleep(min(poll_interval, 0.15))
            # Polled even when the claim failed: a run that ended (cancelled, say) ends the loop.
            try:
                run_ = yield from p.get_object(cfg, g.BenchRun, p.bench_path(run_.id), o)
            except VestaError as err:
                if not is_transient(err):
                    raise
                unreachable.append(("poll", err))
            if not unreachable:
                failures = 0
                continue
            if run_.status in p.TERMINAL_RUN_STATES:
                continue  # the poll got through: the run is over, whatever the claim met
            delay = backoff_delay(min(failures, 6), CLAIM_BACKOFF_INITIAL, CLAIM_BACKOFF_MAX)
            failures += 1
            for operation, err in unreachable:
                _retrying(operation, err, delay)
            yield Sleep(delay)  # Ctrl-C (KeyboardInterrupt) ends the wait at once
    except GeneratorExit:
        raise
    except BaseException:
        # Leave nothing behind: the run is cancelled (best effort); the runner is deregistered below.
        # While the service cannot be reached, one try each: Ctrl-C then ends the call at once.
        quick = failures > 0
        if run_ is not None and run_.status not in p.TERMINAL_RUN_STATES:
            try:
                yield from p.post_object(cfg, g.BenchRun, p.bench_path(run_.id, "/cancel"), CallOptions(max_retries=0 if quick else None))
            except VestaError:
                pass
        raise
    finally:
        try:
            yield from p.call(cfg, "DELETE", f"/api/v1/runners/{p.path_segment(runner.id)}", CallOptions(max_retries=0 if quick else None))
        except VestaError:
            pass


def _progress_key(run: g.BenchRun) -> str:
    pr = run.progress
    return f"{run.status}:{pr.tasks_total}:{pr.tasks_generated}:{pr.tasks_done}:{pr.tasks_failed}"


# -- the blocking driver --------------------------------------------------------------------------
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
    plan = pipeline_plan(
        client._config, pipeline, dimensions=dimensions, run_name=run_name, model_id=model_id,  # pyright: ignore[reportPrivateUsage]
        samples_per_prompt=samples_per_prompt, prompts_per_dimension=prompts_per_dimension, fps=fps,
        runner_name=runner_name, poll_interval=poll_interval, on_progress=on_progress,
    )
    transport = client._transport  # pyright: ignore[reportPrivateUsage]

    def effect(e: Any) -> Any:
        if isinstance(e, Generate):
            return pipeline(*e.args, **e.kwargs)
        if isinstance(e, Encode):
            return clip_from_output(e.output, e.fps)
        if isinstance(e, StartBeats):
            thread = threading.Thread(target=run, args=(e.beats.plan(), transport), daemon=True,
                                      name=f"vesta-heartbeat-{e.beats.task.id}")
            e.beats.handle = thread
            thread.start()
            return None
        if isinstance(e, StopBeats):
            e.beats.stop.set()
            thread = e.beats.handle
            if isinstance(thread, threading.Thread) and thread.is_alive():
                thread.join(timeout=5)
            return None
        raise TypeError(f"not an effect: {e!r}")

    return run(plan, transport, effect)


__all__ = ["PipelineContext", "run_with_pipeline", "pipeline_plan"]
