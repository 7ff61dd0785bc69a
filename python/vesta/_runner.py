"""``bench.run_with_pipeline``: benchmark an in-process generator (mirrors packages/sdk/src/runner).

This process registers as a runner for ``model_id``, creates a run that only it may serve, claims
the run's tasks one at a time, calls ``pipeline(prompt, seed, context)`` for each (a background
thread renews the lease meanwhile and learns of a cancel), uploads what it returns, and polls the
run until its evaluation ends. Ctrl-C cancels the run, hands the task back and deregisters.
"""
from __future__ import annotations

import datetime as _dt
import threading
import time
from typing import TYPE_CHECKING, Any, Callable, Dict, List, Optional, Sequence, cast

from . import _generated as g
from ._client import TERMINAL_RUN_STATES, put_ticket
from ._exceptions import ApiError, GenerationError, PipelineOutputError, VestaError
from ._upload import open_source
from ._video import clip_from_output

if TYPE_CHECKING:
    from ._client import Vesta


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
        self.interval = max(0.2, lease["ttlSeconds"] / 3.0) if lease is not None else 5.0

    def run(self) -> None:
        lease = self._task["lease"]
        assert lease is not None
        while not self._stop_event.wait(self.interval):
            logs = self._ctx._take_logs()
            try:
                reply = self._client.runners.heartbeat(self._task["id"], lease["id"], logs)
            except VestaError as err:
                if isinstance(err, ApiError) and err.status in (403, 404, 409):
                    self._ctx.cancelled.set()  # the lease is gone: the run ended or the task went back
                    return
                continue  # transient: the next beat tries again (the lease outlives two misses)
            if reply.get("cancelled"):
                self._ctx.cancelled.set()
                return

    def stop(self) -> None:
        self._stop_event.set()
        if self.is_alive():
            self.join(timeout=5)


def _serve(client: "Vesta", pipeline: Callable[..., Any], task: g.RunnerTask, fps: float) -> None:
    lease = task["lease"]
    if lease is None:
        raise VestaError("protocol_error", f"The service answered a claim with task {task['id']} but no lease.")
    ctx = PipelineContext(task)
    runners = client.runners
    beat = _Heartbeat(client, task, ctx)
    beat.start()

    def fail(message: str, retryable: bool) -> None:
        try:
            runners.fail(task["id"], lease["id"], message, retryable, ctx._take_logs())
        except ApiError as err:
            if err.status not in (403, 404, 409):  # gone already (cancelled, lease lost): nothing to hand back
                raise

    try:
        try:
            output = pipeline(task["prompt"], task["seed"], ctx)
        except KeyboardInterrupt:
            beat.stop()
            fail("the runner was interrupted (Ctrl-C) before the clip was finished; handed back", True)
            raise
        except GenerationError as err:
            beat.stop()
            fail(str(err) or type(err).__name__, err.retryable)
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
        source = open_source(clip, None, content_type)
        try:
            ticket = runners.create_upload_url(
                task["id"], lease["id"], source.file_name, source.content_type, source.length
            )
            put_ticket(client._http, ticket, source, None)
        except ApiError as err:
            beat.stop()
            if err.status in (403, 404, 409):
                return  # the run was cancelled or the lease ended meanwhile
            fail(f"the server refused the clip: {err.detail}", True)
            return
        finally:
            source.close()
        beat.stop()
        try:
            runners.complete(task["id"], lease["id"], ticket["videoId"], ctx._take_logs())
        except ApiError as err:
            if err.status in (403, 404, 409):
                return
            fail(f"the server refused the clip: {err.detail}", True)
    finally:
        beat.stop()


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
    """Registers a runner for ``model_id``, creates the run, serves every task by calling
    ``pipeline(prompt, seed, context)``, and returns the finished run (completed, failed or cancelled).

    The pipeline returns a file path, the clip's bytes, or a sequence of frames (NumPy arrays, PIL
    images or :class:`vesta.Frame`, encoded to MP4 at ``fps`` with FFmpeg).
    """
    if not callable(pipeline):
        raise TypeError("run_with_pipeline needs a callable: pipeline(prompt, seed, context) -> clip")
    runners = client.runners
    runner = runners.register((runner_name or f"pipeline: {run_name}")[:100], [model_id])
    run: Optional[g.BenchRun] = None
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
            if run["status"] in ("queued", "generating"):
                task = runners.claim(runner["id"], wait_seconds=1)
                if task is not None:
                    _serve(client, pipeline, task, fps)
            else:  # evaluating: only scoring remains, poll closer so the end is seen sooner
                time.sleep(min(poll_interval, 0.15))
            run = client.bench.get(run["id"])
    except BaseException:
        # Leave nothing behind: the run is cancelled (best effort); the runner is deregistered below.
        if run is not None and run["status"] not in TERMINAL_RUN_STATES:
            try:
                client.bench.cancel(run["id"])
            except VestaError:
                pass
        raise
    finally:
        try:
            runners.deregister(runner["id"])
        except VestaError:
            pass


def _progress_key(run: g.BenchRun) -> str:
    p = run["progress"]
    return f"{run['status']}:{p['tasks_total']}:{p['tasks_generated']}:{p['tasks_done']}:{p['tasks_failed']}"
