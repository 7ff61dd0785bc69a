"""``AsyncVesta.bench.run_with_pipeline``: the runner plan of ``vesta._runner`` on the event loop.

The heartbeats run as an asyncio task beside the pipeline. A coroutine function is awaited; a
plain function runs in a worker thread (``asyncio.to_thread``), so a pipeline that blocks for
minutes on a GPU never blocks the event loop; FFmpeg's encoding of frames runs in a thread too.
Cancelling the task that awaits ``run_with_pipeline`` hands the task in progress back, cancels
the run and deregisters the runner, then the cancellation goes on up; a plain function already
running in its thread is told through ``context.cancelled`` and finishes there.
"""
from __future__ import annotations

import asyncio
import inspect
from typing import TYPE_CHECKING, Any, Callable, Optional, Sequence, cast

from . import types as g
from ._drive import arun
from ._runner import Encode, Generate, StartBeats, StopBeats, pipeline_plan
from ._video import clip_from_output

if TYPE_CHECKING:
    from ._client import AsyncVesta


async def run_with_pipeline(
    client: "AsyncVesta",
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
    """See :func:`vesta._runner.run_with_pipeline`; ``pipeline`` may be a coroutine function."""
    plan = pipeline_plan(
        client._config, pipeline, dimensions=dimensions, run_name=run_name, model_id=model_id,  # pyright: ignore[reportPrivateUsage]
        samples_per_prompt=samples_per_prompt, prompts_per_dimension=prompts_per_dimension, fps=fps,
        runner_name=runner_name, poll_interval=poll_interval, on_progress=on_progress,
    )
    transport = client._transport  # pyright: ignore[reportPrivateUsage]

    async def effect(e: Any) -> Any:
        if isinstance(e, Generate):
            if inspect.iscoroutinefunction(pipeline) or inspect.iscoroutinefunction(getattr(pipeline, "__call__", None)):
                return await pipeline(*e.args, **e.kwargs)
            worker = asyncio.ensure_future(asyncio.to_thread(pipeline, *e.args, **e.kwargs))
            try:
                result = await asyncio.shield(worker)
            except asyncio.CancelledError:
                e.context.cancelled.set()  # the thread cannot be stopped: the pipeline is told
                raise
            if inspect.isawaitable(result):  # a plain function that returned a coroutine
                return await result
            return result
        if isinstance(e, Encode):
            return await asyncio.to_thread(clip_from_output, e.output, e.fps)
        if isinstance(e, StartBeats):
            e.beats.handle = asyncio.ensure_future(arun(e.beats.plan(), transport))
            return None
        if isinstance(e, StopBeats):
            e.beats.stop.set()
            task: Any = e.beats.handle
            if task is not None:
                await asyncio.wait([cast("asyncio.Future[None]", task)], timeout=5)
            return None
        raise TypeError(f"not an effect: {e!r}")

    return await arun(plan, transport, effect)
