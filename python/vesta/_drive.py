"""The two drivers of plans (``vesta._core``): blocking for ``Vesta``, asyncio for ``AsyncVesta``.

A driver makes each effect happen and sends its result back: :class:`Send` through the
transport, :class:`Sleep` as a wait, any other effect through ``effect`` (the runner's). An
exception the plan raises comes out of the driver as it is. An interrupt or a cancellation while
an effect runs closes the plan (its ``finally`` blocks run) and goes on up — except for a plan
driven with ``effect`` (``run_with_pipeline``), into which it is thrown, so that the plan hands its
task back, cancels its run and deregisters before it goes on up.
"""
from __future__ import annotations

import asyncio
import time
from typing import Any, Awaitable, Callable, Optional, TypeVar

from ._atransport import AsyncTransport
from ._core import Plan, Send, Sleep
from ._exceptions import VestaError
from ._transport import SyncTransport

T = TypeVar("T")


def run(plan: Plan[T], transport: SyncTransport, effect: Optional[Callable[[Any], Any]] = None) -> T:
    """Runs ``plan`` to its end, blocking."""
    value: Any = None
    error: Optional[BaseException] = None
    try:
        while True:
            try:
                step = plan.throw(error) if error is not None else plan.send(value)
            except StopIteration as done:
                return done.value  # type: ignore[no-any-return]
            value, error = None, None
            try:
                if isinstance(step, Send):
                    value = transport.send(step.request)
                elif isinstance(step, Sleep):
                    if step.stop is not None:
                        value = step.stop.wait(step.seconds)
                    else:
                        time.sleep(step.seconds)
                        value = False
                elif effect is not None:
                    value = effect(step)
                else:
                    raise TypeError(f"not an effect: {step!r}")
            except VestaError as err:  # the body could not be read, the client is closed: the plan decides
                error = err
            except BaseException as err:
                if effect is None:
                    raise
                error = err
    finally:
        plan.close()


async def arun(plan: Plan[T], transport: AsyncTransport, effect: Optional[Callable[[Any], Awaitable[Any]]] = None) -> T:
    """Runs ``plan`` to its end on the running event loop."""
    value: Any = None
    error: Optional[BaseException] = None
    try:
        while True:
            try:
                step = plan.throw(error) if error is not None else plan.send(value)
            except StopIteration as done:
                return done.value  # type: ignore[no-any-return]
            value, error = None, None
            try:
                if isinstance(step, Send):
                    value = await transport.send(step.request)
                elif isinstance(step, Sleep):
                    value = await _asleep(step)
                elif effect is not None:
                    value = await effect(step)
                else:
                    raise TypeError(f"not an effect: {step!r}")
            except VestaError as err:
                error = err
            except BaseException as err:
                if effect is None:
                    raise
                error = err
    finally:
        plan.close()


async def _asleep(step: Sleep) -> bool:
    """A wait; with a stop event (a threading.Event, set from any thread) it is checked every
    50 ms and ends the wait early (True)."""
    if step.stop is None:
        await asyncio.sleep(step.seconds)
        return False
    deadline = time.monotonic() + step.seconds
    while not step.stop.is_set():
        left = deadline - time.monotonic()
        if left <= 0:
            return False
        await asyncio.sleep(min(left, 0.05))
    return True
