"""The namespaces of ``vesta.Vesta``: score, rank, bench, dimensions, models, videos, runners.

This file is the source of ``vesta/_async_resources.py`` (``AsyncVesta``'s namespaces), which
``python/scripts/generate_async.py`` writes from it (``def`` -> ``async def``, ``self._run(`` ->
``await self._run(``, ``Iterator`` -> ``AsyncIterator``, ``XResource`` -> ``AsyncXResource``); a
test fails when the two drift. Each method builds its plan (``vesta._plans``) and runs it; every
method takes the per-call options ``timeout``, ``max_retries`` and ``extra_headers``.
"""
from __future__ import annotations

from typing import TYPE_CHECKING, Any, Callable, Iterator, List, Literal, Mapping, Optional, Sequence, TypeVar, overload

from . import types as g
from . import _plans as p
from ._core import CallOptions, Plan, TimeoutTypes
from ._drive import run
from ._exceptions import InvalidArgumentError
from ._models import ScoredUpload, UploadResult
from ._upload import UploadInput

if TYPE_CHECKING:
    from ._client import Vesta

T = TypeVar("T")
ProgressCallback = p.ProgressCallback


class SyncResource:
    """A namespace of one client: runs its plans on the client's transport and configuration."""

    def __init__(self, client: "Vesta") -> None:
        self._client = client

    def _run(self, plan: Plan[T]) -> T:
        return run(plan, self._client._transport)  # pyright: ignore[reportPrivateUsage]

    @property
    def _cfg(self) -> p.Config:
        return self._client._config  # pyright: ignore[reportPrivateUsage]


def _o(timeout: Optional[TimeoutTypes], max_retries: Optional[int], extra_headers: Optional[Mapping[str, str]]) -> CallOptions:
    return CallOptions(timeout, max_retries, extra_headers)


class ScoreResource(SyncResource):
    """The Score workflow: upload a clip, get its scores on every dimension."""

    kind: str = "score"

    def get_or_create(
        self, *, timeout: Optional[TimeoutTypes] = None, max_retries: Optional[int] = None,
        extra_headers: Optional[Mapping[str, str]] = None,
    ) -> g.ScoreSession:
        """The caller's Score session (created if absent), with its clips and their scores."""
        return self._run(p.get_object(self._cfg, g.ScoreSession, p.session_path(self.kind), _o(timeout, max_retries, extra_headers)))

    def reset(
        self, *, timeout: Optional[TimeoutTypes] = None, max_retries: Optional[int] = None,
        extra_headers: Optional[Mapping[str, str]] = None,
    ) -> g.ScoreSession:
        """Retires the Score session and starts an empty one (a new run id)."""
        return self._run(p.post_object(self._cfg, g.ScoreSession, p.session_path(self.kind, None, "/reset"), _o(timeout, max_retries, extra_headers)))

    def create_upload_url(
        self, run_id: str, *, file_name: str, content_type: str, prompt: Optional[str] = None,
        auxiliary: Optional[Mapping[str, str]] = None, size_bytes: Optional[int] = None,
        timeout: Optional[TimeoutTypes] = None, max_retries: Optional[int] = None,
        extra_headers: Optional[Mapping[str, str]] = None,
    ) -> g.UploadUrlResponse:
        """Step 1 of the upload flow: a video row and a short-lived URL to PUT the bytes to."""
        return self._run(p.create_upload_url(
            self._cfg, self.kind, run_id, _o(timeout, max_retries, extra_headers), file_name=file_name,
            content_type=content_type, prompt=prompt, auxiliary=auxiliary, size_bytes=size_bytes,
        ))

    def confirm_upload(
        self, run_id: str, video_id: str, *, timeout: Optional[TimeoutTypes] = None,
        max_retries: Optional[int] = None, extra_headers: Optional[Mapping[str, str]] = None,
    ) -> g.Video:
        """Step 3: the server checks the bytes and queues the clip for scoring."""
        path = p.session_path(self.kind, run_id, "/videos/confirm-upload")
        return self._run(p.post_object(self._cfg, g.Video, path, _o(timeout, max_retries, extra_headers), {"videoId": video_id}))

    def remove_video(
        self, video_id: str, run_id: Optional[str] = None, *, timeout: Optional[TimeoutTypes] = None,
        max_retries: Optional[int] = None, extra_headers: Optional[Mapping[str, str]] = None,
    ) -> None:
        """Removes one clip (``video_id``) of the session (the current one when ``run_id`` is None)
        with its scores and stored bytes; the run id and the other clips stay.
        ``NotFoundError`` when it is not a clip of that session (removed already)."""
        return self._run(p.remove_video(self._cfg, self.kind, run_id, video_id, _o(timeout, max_retries, extra_headers)))

    @overload
    def upload(
        self, file: UploadInput, prompt: str, wait: Literal[True], *, auxiliary: Optional[Mapping[str, str]] = None,
        file_name: Optional[str] = None, content_type: Optional[str] = None, progress: Optional[ProgressCallback] = None,
        wait_timeout: float = 900.0, poll_interval: float = 0.5, timeout: Optional[TimeoutTypes] = None,
        max_retries: Optional[int] = None, extra_headers: Optional[Mapping[str, str]] = None,
    ) -> ScoredUpload: ...

    @overload
    def upload(
        self, file: UploadInput, prompt: str, wait: bool = False, *, auxiliary: Optional[Mapping[str, str]] = None,
        file_name: Optional[str] = None, content_type: Optional[str] = None, progress: Optional[ProgressCallback] = None,
        wait_timeout: float = 900.0, poll_interval: float = 0.5, timeout: Optional[TimeoutTypes] = None,
        max_retries: Optional[int] = None, extra_headers: Optional[Mapping[str, str]] = None,
    ) -> UploadResult: ...

    def upload(
        self, file: UploadInput, prompt: str, wait: bool = False, *, auxiliary: Optional[Mapping[str, str]] = None,
        file_name: Optional[str] = None, content_type: Optional[str] = None, progress: Optional[ProgressCallback] = None,
        wait_timeout: float = 900.0, poll_interval: float = 0.5, timeout: Optional[TimeoutTypes] = None,
        max_retries: Optional[int] = None, extra_headers: Optional[Mapping[str, str]] = None,
    ) -> UploadResult:
        """Uploads a clip (a path, bytes or a binary file object) made from ``prompt``.

        ``wait=True`` polls until it is scored and returns a :class:`ScoredUpload` (``video``
        with its scores); ``ScoringFailedError`` if it fails, ``VideoGoneError`` if the session is
        reset meanwhile, ``WaitTimeoutError`` after ``wait_timeout`` seconds. ``progress(event)``
        gets ``{"phase": "upload", "loaded", "total"}``, ``{"phase": "confirm", "videoId"}`` and
        ``{"phase": "wait", "videoId", "state"}``."""
        if not p.filled(prompt):
            raise InvalidArgumentError("prompt", "score.upload needs prompt=: the text prompt the clip was made from (not empty).")
        return self._run(p.upload(
            self._cfg, self.kind, _o(timeout, max_retries, extra_headers), file, prompt, wait, auxiliary=auxiliary,
            file_name=file_name, content_type=content_type, progress=progress, wait_timeout=wait_timeout,
            poll_interval=poll_interval,
        ))


class RankResource(SyncResource):
    """The Rank workflow: candidates for one prompt, then the leaderboard."""

    kind: str = "rank"

    def get_or_create(
        self, *, timeout: Optional[TimeoutTypes] = None, max_retries: Optional[int] = None,
        extra_headers: Optional[Mapping[str, str]] = None,
    ) -> g.RankSession:
        """The caller's Rank session (created if absent), with its locked prompt."""
        return self._run(p.get_object(self._cfg, g.RankSession, p.session_path(self.kind), _o(timeout, max_retries, extra_headers)))

    def reset(
        self, *, timeout: Optional[TimeoutTypes] = None, max_retries: Optional[int] = None,
        extra_headers: Optional[Mapping[str, str]] = None,
    ) -> g.RankSession:
        """Retires the Rank session and starts an empty one."""
        return self._run(p.post_object(self._cfg, g.RankSession, p.session_path(self.kind, None, "/reset"), _o(timeout, max_retries, extra_headers)))

    def create_upload_url(
        self, run_id: str, *, file_name: str, content_type: str, prompt: Optional[str] = None,
        auxiliary: Optional[Mapping[str, str]] = None, size_bytes: Optional[int] = None,
        timeout: Optional[TimeoutTypes] = None, max_retries: Optional[int] = None,
        extra_headers: Optional[Mapping[str, str]] = None,
    ) -> g.UploadUrlResponse:
        """Step 1 of the upload flow: a video row and a short-lived URL to PUT the bytes to."""
        return self._run(p.create_upload_url(
            self._cfg, self.kind, run_id, _o(timeout, max_retries, extra_headers), file_name=file_name,
            content_type=content_type, prompt=prompt, auxiliary=auxiliary, size_bytes=size_bytes,
        ))

    def confirm_upload(
        self, run_id: str, video_id: str, *, timeout: Optional[TimeoutTypes] = None,
        max_retries: Optional[int] = None, extra_headers: Optional[Mapping[str, str]] = None,
    ) -> g.Video:
        """Step 3: the server checks the bytes and queues the clip for scoring."""
        path = p.session_path(self.kind, run_id, "/videos/confirm-upload")
        return self._run(p.post_object(self._cfg, g.Video, path, _o(timeout, max_retries, extra_headers), {"videoId": video_id}))

    def remove_video(
        self, video_id: str, run_id: Optional[str] = None, *, timeout: Optional[TimeoutTypes] = None,
        max_retries: Optional[int] = None, extra_headers: Optional[Mapping[str, str]] = None,
    ) -> None:
        """Removes one candidate (``video_id``) of the session (the current one when ``run_id`` is None)
        with its scores and stored bytes; the run id and the other clips stay. The leaderboard ranks the
        others again; removing the last stored candidate lifts the prompt lock.
        ``NotFoundError`` when it is not a candidate of that session (removed already)."""
        return self._run(p.remove_video(self._cfg, self.kind, run_id, video_id, _o(timeout, max_retries, extra_headers)))

    @overload
    def upload(
        self, file: UploadInput, prompt: Optional[str], wait: Literal[True], *, auxiliary: Optional[Mapping[str, str]] = None,
        file_name: Optional[str] = None, content_type: Optional[str] = None, progress: Optional[ProgressCallback] = None,
        wait_timeout: float = 900.0, poll_interval: float = 0.5, timeout: Optional[TimeoutTypes] = None,
        max_retries: Optional[int] = None, extra_headers: Optional[Mapping[str, str]] = None,
    ) -> ScoredUpload: ...

    @overload
    def upload(
        self, file: UploadInput, prompt: Optional[str] = None, *, wait: Literal[True], auxiliary: Optional[Mapping[str, str]] = None,
        file_name: Optional[str] = None, content_type: Optional[str] = None, progress: Optional[ProgressCallback] = None,
        wait_timeout: float = 900.0, poll_interval: float = 0.5, timeout: Optional[TimeoutTypes] = None,
        max_retries: Optional[int] = None, extra_headers: Optional[Mapping[str, str]] = None,
    ) -> ScoredUpload: ...

    @overload
    def upload(
        self, file: UploadInput, prompt: Optional[str] = None, wait: bool = False, *, auxiliary: Optional[Mapping[str, str]] = None,
        file_name: Optional[str] = None, content_type: Optional[str] = None, progress: Optional[ProgressCallback] = None,
        wait_timeout: float = 900.0, poll_interval: float = 0.5, timeout: Optional[TimeoutTypes] = None,
        max_retries: Optional[int] = None, extra_headers: Optional[Mapping[str, str]] = None,
    ) -> UploadResult: ...

    def upload(
        self, file: UploadInput, prompt: Optional[str] = None, wait: bool = False, *, auxiliary: Optional[Mapping[str, str]] = None,
        file_name: Optional[str] = None, content_type: Optional[str] = None, progress: Optional[ProgressCallback] = None,
        wait_timeout: float = 900.0, poll_interval: float = 0.5, timeout: Optional[TimeoutTypes] = None,
        max_retries: Optional[int] = None, extra_headers: Optional[Mapping[str, str]] = None,
    ) -> UploadResult:
        """Uploads a candidate; ``prompt`` may be left out once the session is locked to one.
        ``wait=True`` returns a :class:`ScoredUpload` (see ``score.upload``)."""
        if prompt is not None and not p.filled(prompt):
            raise InvalidArgumentError("prompt", "rank.upload's prompt= must not be empty (leave it out once the session is locked).")
        return self._run(p.upload(
            self._cfg, self.kind, _o(timeout, max_retries, extra_headers), file, prompt, wait, auxiliary=auxiliary,
            file_name=file_name, content_type=content_type, progress=progress, wait_timeout=wait_timeout,
            poll_interval=poll_interval,
        ))

    def get_ranked(
        self, run_id: Optional[str] = None, *, timeout: Optional[TimeoutTypes] = None,
        max_retries: Optional[int] = None, extra_headers: Optional[Mapping[str, str]] = None,
    ) -> g.Leaderboard:
        """The ranked leaderboard of a Rank session (the current one when ``run_id`` is None)."""
        return self._run(p.rank_board(self._cfg, run_id, _o(timeout, max_retries, extra_headers)))


class BenchResource(SyncResource):
    """Bench runs: create, list, get, cancel, delete; videos, CSV scorecard, logs; pipelines."""

    def create(
        self, name: str, model_id: str, dimensions: Sequence[str], runner_id: Optional[str] = None, *,
        samples_per_prompt: Optional[int] = None, prompts_per_dimension: Optional[int] = None,
        idempotency_key: Optional[str] = None, timeout: Optional[TimeoutTypes] = None,
        max_retries: Optional[int] = None, extra_headers: Optional[Mapping[str, str]] = None,
    ) -> g.BenchRun:
        """Creates a run of ``model_id`` on ``dimensions`` (any runner serving the model when no
        ``runner_id``). ``idempotency_key``: one key for every repeat of this creation."""
        return self._run(p.bench_create(
            self._cfg, _o(timeout, max_retries, extra_headers), name, model_id, dimensions, runner_id,
            samples_per_prompt, prompts_per_dimension, idempotency_key,
        ))

    def list_page(
        self, page: int = 1, limit: Optional[int] = None, *, timeout: Optional[TimeoutTypes] = None,
        max_retries: Optional[int] = None, extra_headers: Optional[Mapping[str, str]] = None,
    ) -> g.BenchRunPage:
        """One page of the caller's runs, newest first."""
        return self._run(p.get_object(self._cfg, g.BenchRunPage, "/api/v1/bench", _o(timeout, max_retries, extra_headers), p.page_query(page, limit)))

    def list(
        self, limit: int = 100, *, timeout: Optional[TimeoutTypes] = None, max_retries: Optional[int] = None,
        extra_headers: Optional[Mapping[str, str]] = None,
    ) -> Iterator[g.BenchRun]:
        """Every run, newest first, fetched page by page as the loop consumes them."""
        page = 1
        while True:
            result = self._run(p.get_object(self._cfg, g.BenchRunPage, "/api/v1/bench", _o(timeout, max_retries, extra_headers), p.page_query(page, limit)))
            for item in result.items:
                yield item
            if not result.has_more or not result.items:
                return
            page = result.page + 1

    def get(
        self, run_id: str, *, timeout: Optional[TimeoutTypes] = None, max_retries: Optional[int] = None,
        extra_headers: Optional[Mapping[str, str]] = None,
    ) -> g.BenchRun:
        """A run with its ``status`` and ``progress``."""
        return self._run(p.get_object(self._cfg, g.BenchRun, p.bench_path(run_id), _o(timeout, max_retries, extra_headers)))

    def cancel(
        self, run_id: str, *, timeout: Optional[TimeoutTypes] = None, max_retries: Optional[int] = None,
        extra_headers: Optional[Mapping[str, str]] = None,
    ) -> g.BenchRun:
        """Cancels a queued, generating or evaluating run (409 ``ConflictError`` otherwise)."""
        return self._run(p.post_object(self._cfg, g.BenchRun, p.bench_path(run_id, "/cancel"), _o(timeout, max_retries, extra_headers)))

    def delete(
        self, run_id: str, *, timeout: Optional[TimeoutTypes] = None, max_retries: Optional[int] = None,
        extra_headers: Optional[Mapping[str, str]] = None,
    ) -> None:
        """Deletes a finished run with its clips, scores and logs."""
        return self._run(p.nothing(p.call(self._cfg, "DELETE", p.bench_path(run_id), _o(timeout, max_retries, extra_headers))))

    def videos(
        self, run_id: str, page: int = 1, limit: Optional[int] = None, *, timeout: Optional[TimeoutTypes] = None,
        max_retries: Optional[int] = None, extra_headers: Optional[Mapping[str, str]] = None,
    ) -> g.BenchVideoPage:
        """One page of a run's clips with their per-dimension results."""
        return self._run(p.get_object(self._cfg, g.BenchVideoPage, p.bench_path(run_id, "/videos"), _o(timeout, max_retries, extra_headers), p.page_query(page, limit)))

    def all_videos(
        self, run_id: str, limit: int = 100, *, timeout: Optional[TimeoutTypes] = None,
        max_retries: Optional[int] = None, extra_headers: Optional[Mapping[str, str]] = None,
    ) -> Iterator[g.BenchVideo]:
        """Every clip of a run, fetched page by page."""
        page = 1
        while True:
            result = self._run(p.get_object(self._cfg, g.BenchVideoPage, p.bench_path(run_id, "/videos"), _o(timeout, max_retries, extra_headers), p.page_query(page, limit)))
            for item in result.items:
                yield item
            if not result.has_more or not result.items:
                return
            page = result.page + 1

    def scorecard(
        self, run_id: str, *, timeout: Optional[TimeoutTypes] = None, max_retries: Optional[int] = None,
        extra_headers: Optional[Mapping[str, str]] = None,
    ) -> g.BenchScorecard:
        """The scorecard with 95 % intervals (bootstrap over prompts, seeded from the run id): final
        once the run has ended (``final`` True), else from the clips scored so far."""
        return self._run(p.get_object(self._cfg, g.BenchScorecard, p.bench_path(run_id, "/scorecard"), _o(timeout, max_retries, extra_headers)))

    def compare(
        self, runs: Sequence[str], *, dimensions: Optional[Sequence[str]] = None,
        fail_on_regression: Optional[float] = None, prompt_limit: Optional[int] = None,
        timeout: Optional[TimeoutTypes] = None, max_retries: Optional[int] = None,
        extra_headers: Optional[Mapping[str, str]] = None,
    ) -> g.BenchComparison:
        """Compares runs with the first (the baseline): per compared dimension and Quality/Semantic/Total
        the delta with its 95 % interval and a permutation p-value (paired when the runs share a prompt
        suite version), per-prompt deltas largest drop first. ``fail_on_regression`` (DELTA ≥ 0, two
        runs) adds the regression gate: ``result.gate.verdict`` is ``"pass"``, ``"regression"`` or
        ``"not_comparable"``. ``prompt_limit`` keeps at most that many per-prompt rows per comparison (the
        largest drops; ``0`` for none)."""
        return self._run(p.bench_compare(
            self._cfg, _o(timeout, max_retries, extra_headers), runs, dimensions, fail_on_regression, prompt_limit,
        ))

    def csv(
        self, run_id: str, *, timeout: Optional[TimeoutTypes] = None, max_retries: Optional[int] = None,
        extra_headers: Optional[Mapping[str, str]] = None,
    ) -> str:
        """The scorecard as CSV text."""
        res = self._run(p.call(self._cfg, "GET", p.bench_path(run_id, "/csv"), _o(timeout, max_retries, extra_headers), accept="text/csv, text/plain, application/json"))
        return res.text

    def logs(
        self, run_id: str, page: int = 1, limit: Optional[int] = None, *, timeout: Optional[TimeoutTypes] = None,
        max_retries: Optional[int] = None, extra_headers: Optional[Mapping[str, str]] = None,
    ) -> g.BenchLogPage:
        """One page of a run's log lines, oldest first."""
        return self._run(p.get_object(self._cfg, g.BenchLogPage, p.bench_path(run_id, "/logs"), _o(timeout, max_retries, extra_headers), p.page_query(page, limit)))

    def all_logs(
        self, run_id: str, limit: int = 1000, *, timeout: Optional[TimeoutTypes] = None,
        max_retries: Optional[int] = None, extra_headers: Optional[Mapping[str, str]] = None,
    ) -> Iterator[g.BenchLogLine]:
        """Every log line of a run, fetched page by page."""
        page = 1
        while True:
            result = self._run(p.get_object(self._cfg, g.BenchLogPage, p.bench_path(run_id, "/logs"), _o(timeout, max_retries, extra_headers), p.page_query(page, limit)))
            for item in result.items:
                yield item
            if not result.has_more or not result.items:
                return
            page = result.page + 1

    def wait(
        self, run_id: str, wait_timeout: Optional[float] = None, poll_interval: float = 1.0, *,
        timeout: Optional[TimeoutTypes] = None, max_retries: Optional[int] = None,
        extra_headers: Optional[Mapping[str, str]] = None,
    ) -> g.BenchRun:
        """Polls the run (growing intervals, at most 10 s) until it is completed, failed or
        cancelled; ``WaitTimeoutError`` after ``wait_timeout`` seconds (no deadline when None)."""
        return self._run(p.bench_wait(self._cfg, _o(timeout, max_retries, extra_headers), run_id, wait_timeout, poll_interval))

    def run_with_pipeline(
        self, pipeline: Callable[..., Any], dimensions: Sequence[str], run_name: str, model_id: str, *,
        samples_per_prompt: Optional[int] = None, prompts_per_dimension: Optional[int] = None, fps: float = 8.0,
        runner_name: Optional[str] = None, poll_interval: float = 0.5,
        on_progress: Optional[Callable[[g.BenchRun], None]] = None,
    ) -> g.BenchRun:
        """Benchmarks an in-process generator: registers this process as a runner for
        ``model_id``, creates the run, calls ``pipeline`` for each clip (with what its signature
        accepts: ``generate(prompt)``, ``generate(prompt, seed=None)``,
        ``generate(prompt, seed, context)``), uploads what it returns and returns the finished
        run (completed, failed or cancelled). See docs/python.md › run_with_pipeline."""
        from ._runner import run_with_pipeline as _pipeline

        return _pipeline(
            self._client, pipeline, dimensions=dimensions, run_name=run_name, model_id=model_id,
            samples_per_prompt=samples_per_prompt, prompts_per_dimension=prompts_per_dimension, fps=fps,
            runner_name=runner_name, poll_interval=poll_interval, on_progress=on_progress,
        )


class DimensionsResource(SyncResource):
    """The evaluation dimensions (VBench's 16) and their prompt suites."""

    def list(
        self, *, timeout: Optional[TimeoutTypes] = None, max_retries: Optional[int] = None,
        extra_headers: Optional[Mapping[str, str]] = None,
    ) -> g.DimensionList:
        """Every evaluation dimension with its methods and workflows."""
        return self._run(p.get_object(self._cfg, g.DimensionList, "/api/v1/dimensions", _o(timeout, max_retries, extra_headers)))

    def prompts(
        self, dimension_id: str, *, timeout: Optional[TimeoutTypes] = None, max_retries: Optional[int] = None,
        extra_headers: Optional[Mapping[str, str]] = None,
    ) -> g.DimensionPrompts:
        """Vesta's prompt suite of one dimension."""
        path = f"/api/v1/dimensions/{p.path_segment(dimension_id)}/prompts"
        return self._run(p.get_object(self._cfg, g.DimensionPrompts, path, _o(timeout, max_retries, extra_headers)))


class ModelsResource(SyncResource):
    """The video generators Bench runs can evaluate."""

    def list(
        self, *, timeout: Optional[TimeoutTypes] = None, max_retries: Optional[int] = None,
        extra_headers: Optional[Mapping[str, str]] = None,
    ) -> g.ModelList:
        """Every model with the runners serving it."""
        return self._run(p.get_object(self._cfg, g.ModelList, "/api/v1/models", _o(timeout, max_retries, extra_headers)))

    def baseline(
        self, model_id: str, *, timeout: Optional[TimeoutTypes] = None, max_retries: Optional[int] = None,
        extra_headers: Optional[Mapping[str, str]] = None,
    ) -> g.ModelBaseline:
        """The caller's baseline run of a model (``run_id`` None when none is set)."""
        return self._run(p.get_object(self._cfg, g.ModelBaseline, p.baseline_path(model_id), _o(timeout, max_retries, extra_headers)))

    def set_baseline(
        self, model_id: str, run_id: str, *, timeout: Optional[TimeoutTypes] = None, max_retries: Optional[int] = None,
        extra_headers: Optional[Mapping[str, str]] = None,
    ) -> g.ModelBaseline:
        """Makes a completed run of the model its baseline (replacing any earlier one)."""
        return self._run(p.set_baseline(self._cfg, _o(timeout, max_retries, extra_headers), model_id, run_id))

    def clear_baseline(
        self, model_id: str, *, timeout: Optional[TimeoutTypes] = None, max_retries: Optional[int] = None,
        extra_headers: Optional[Mapping[str, str]] = None,
    ) -> None:
        """Clears the model's baseline."""
        self._run(p.nothing(p.call(self._cfg, "DELETE", p.baseline_path(model_id), _o(timeout, max_retries, extra_headers))))


class VideosResource(SyncResource):
    """A stored clip's bytes (a Score or Rank ``video_id``, or a Bench clip's)."""

    def content(
        self, video_id: str, start: Optional[int] = None, end: Optional[int] = None, *,
        timeout: Optional[TimeoutTypes] = None, max_retries: Optional[int] = None,
        extra_headers: Optional[Mapping[str, str]] = None,
    ) -> bytes:
        """The clip's bytes: whole, or ``start``..``end`` inclusive (to the end when ``end`` is
        None). Another user's clip raises NotFoundError, exactly as a missing id; a range past the
        end raises RangeNotSatisfiableError."""
        return self._run(p.video_content(self._cfg, _o(timeout, max_retries, extra_headers), video_id, start, end))


class JudgingResource(SyncResource):
    """Judging campaigns: blind pairwise votes on the caller's clips (the owner's calls, and a
    judge's next pairs and votes)."""

    def create(
        self, name: str, *, bench_run_ids: Optional[Sequence[str]] = None, rank_session_id: Optional[str] = None,
        question: Optional[str] = None, question_text: Optional[str] = None, votes_per_pair: Optional[int] = None,
        timeout: Optional[TimeoutTypes] = None, max_retries: Optional[int] = None,
        extra_headers: Optional[Mapping[str, str]] = None,
    ) -> g.JudgingCampaign:
        """Creates a campaign from two or more Bench runs (``bench_run_ids``) or a Rank session
        (``rank_session_id``); ``question`` is ``overall`` (default), ``prompt_fit``, ``motion``,
        ``visual_quality`` or ``custom`` (with ``question_text``)."""
        body: dict[str, Any] = {"name": name}
        if bench_run_ids is not None:
            body["benchRunIds"] = list(bench_run_ids)
        if rank_session_id is not None:
            body["rankSessionId"] = rank_session_id
        if question is not None or question_text is not None:
            body["question"] = {"kind": question or "overall", **({"text": question_text} if question_text else {})}
        if votes_per_pair is not None:
            body["votesPerPair"] = votes_per_pair
        return self._run(p.post_object(self._cfg, g.JudgingCampaign, p.judging_path(), _o(timeout, max_retries, extra_headers), body))

    def list(
        self, *, timeout: Optional[TimeoutTypes] = None, max_retries: Optional[int] = None,
        extra_headers: Optional[Mapping[str, str]] = None,
    ) -> g.JudgingCampaignList:
        """The campaigns the caller owns or judges, newest first."""
        return self._run(p.get_object(self._cfg, g.JudgingCampaignList, p.judging_path(), _o(timeout, max_retries, extra_headers)))

    def get(
        self, campaign_id: str, *, timeout: Optional[TimeoutTypes] = None, max_retries: Optional[int] = None,
        extra_headers: Optional[Mapping[str, str]] = None,
    ) -> g.JudgingCampaign:
        """One campaign (blinded for a judge until it is closed or revealed)."""
        return self._run(p.get_object(self._cfg, g.JudgingCampaign, p.judging_path(campaign_id), _o(timeout, max_retries, extra_headers)))

    def close(
        self, campaign_id: str, *, timeout: Optional[TimeoutTypes] = None, max_retries: Optional[int] = None,
        extra_headers: Optional[Mapping[str, str]] = None,
    ) -> g.JudgingCampaign:
        """Closes the campaign (owner): no more votes; the judges see the names."""
        return self._run(p.post_object(self._cfg, g.JudgingCampaign, p.judging_path(campaign_id, "/close"), _o(timeout, max_retries, extra_headers)))

    def reveal(
        self, campaign_id: str, *, timeout: Optional[TimeoutTypes] = None, max_retries: Optional[int] = None,
        extra_headers: Optional[Mapping[str, str]] = None,
    ) -> g.JudgingCampaign:
        """Reveals the names to the judges (owner)."""
        return self._run(p.post_object(self._cfg, g.JudgingCampaign, p.judging_path(campaign_id, "/reveal"), _o(timeout, max_retries, extra_headers)))

    def delete(
        self, campaign_id: str, *, timeout: Optional[TimeoutTypes] = None, max_retries: Optional[int] = None,
        extra_headers: Optional[Mapping[str, str]] = None,
    ) -> None:
        """Deletes the campaign with its votes (owner)."""
        self._run(p.nothing(p.call(self._cfg, "DELETE", p.judging_path(campaign_id), _o(timeout, max_retries, extra_headers))))

    def judges(
        self, campaign_id: str, *, timeout: Optional[TimeoutTypes] = None, max_retries: Optional[int] = None,
        extra_headers: Optional[Mapping[str, str]] = None,
    ) -> g.JudgeList:
        """The campaign's judges (owner)."""
        return self._run(p.get_object(self._cfg, g.JudgeList, p.judging_path(campaign_id, "/judges"), _o(timeout, max_retries, extra_headers)))

    def add_judge(
        self, campaign_id: str, *, email: Optional[str] = None, user_name: Optional[str] = None,
        timeout: Optional[TimeoutTypes] = None, max_retries: Optional[int] = None,
        extra_headers: Optional[Mapping[str, str]] = None,
    ) -> g.AddedJudge:
        """Adds a judge by ``email`` or ``user_name`` (owner)."""
        body = {"email": email} if email is not None else {"userName": user_name}
        return self._run(p.post_object(self._cfg, g.AddedJudge, p.judging_path(campaign_id, "/judges"), _o(timeout, max_retries, extra_headers), body))

    def remove_judge(
        self, campaign_id: str, judge_id: str, *, timeout: Optional[TimeoutTypes] = None, max_retries: Optional[int] = None,
        extra_headers: Optional[Mapping[str, str]] = None,
    ) -> None:
        """Removes a judge (owner): their votes are kept but no longer counted."""
        self._run(p.nothing(p.call(self._cfg, "DELETE", p.judging_path(campaign_id, f"/judges/{p.path_segment(judge_id)}"), _o(timeout, max_retries, extra_headers))))

    def next_pairs(
        self, campaign_id: str, count: int = 1, *, timeout: Optional[TimeoutTypes] = None, max_retries: Optional[int] = None,
        extra_headers: Optional[Mapping[str, str]] = None,
    ) -> g.NextJudgingPairs:
        """The calling judge's open offers, topped up to ``count`` (1-3)."""
        return self._run(p.get_object(self._cfg, g.NextJudgingPairs, p.judging_path(campaign_id, "/next-pairs"), _o(timeout, max_retries, extra_headers), {"count": count}))

    def vote(
        self, campaign_id: str, offer_id: str, answer: str, *, timeout: Optional[TimeoutTypes] = None,
        max_retries: Optional[int] = None, extra_headers: Optional[Mapping[str, str]] = None,
    ) -> g.JudgingVote:
        """Answers an offer: ``left``, ``right``, ``tie``, ``both_bad`` or ``skip``."""
        return self._run(p.post_object(self._cfg, g.JudgingVote, p.judging_path(campaign_id, "/votes"), _o(timeout, max_retries, extra_headers), {"offerId": offer_id, "answer": answer}))

    def clip_content(
        self, campaign_id: str, clip_id: str, start: Optional[int] = None, end: Optional[int] = None, *,
        timeout: Optional[TimeoutTypes] = None, max_retries: Optional[int] = None,
        extra_headers: Optional[Mapping[str, str]] = None,
    ) -> bytes:
        """An offered clip's bytes by the campaign's clip id: whole, or ``start``..``end`` inclusive."""
        return self._run(p.judging_clip(self._cfg, _o(timeout, max_retries, extra_headers), campaign_id, clip_id, start, end))

    def ratings(
        self, campaign_id: str, *, timeout: Optional[TimeoutTypes] = None, max_retries: Optional[int] = None,
        extra_headers: Optional[Mapping[str, str]] = None,
    ) -> g.JudgingRatings:
        """Ratings with 95 % intervals, the win matrix and each judge's agreement."""
        return self._run(p.get_object(self._cfg, g.JudgingRatings, p.judging_path(campaign_id, "/ratings"), _o(timeout, max_retries, extra_headers)))

    def agreement(
        self, campaign_id: str, *, timeout: Optional[TimeoutTypes] = None, max_retries: Optional[int] = None,
        extra_headers: Optional[Mapping[str, str]] = None,
    ) -> g.JudgingAgreement:
        """How well each automated dimension agrees with the judges, and the fitted team score."""
        return self._run(p.get_object(self._cfg, g.JudgingAgreement, p.judging_path(campaign_id, "/agreement"), _o(timeout, max_retries, extra_headers)))

    def export(
        self, campaign_id: str, format: str = "csv", *, timeout: Optional[TimeoutTypes] = None,
        max_retries: Optional[int] = None, extra_headers: Optional[Mapping[str, str]] = None,
    ) -> str:
        """Every vote as CSV (default) or JSON Lines (``format="jsonl"``) (owner)."""
        res = self._run(p.call(self._cfg, "GET", p.judging_path(campaign_id, "/export"), _o(timeout, max_retries, extra_headers), query={"format": format}, accept="text/csv, application/x-ndjson, application/json"))
        return res.text


class RunnersResource(SyncResource):
    """The runner protocol, one method per operation (``run_with_pipeline`` drives them)."""

    def register(
        self, name: str, models: Sequence[str], max_concurrency: int = 1, version: Optional[str] = None, *,
        timeout: Optional[TimeoutTypes] = None, max_retries: Optional[int] = None,
        extra_headers: Optional[Mapping[str, str]] = None,
    ) -> g.Runner:
        """Registers a runner serving ``models``."""
        return self._run(p.runner_register(self._cfg, _o(timeout, max_retries, extra_headers), name, models, max_concurrency, version))

    def list(
        self, *, timeout: Optional[TimeoutTypes] = None, max_retries: Optional[int] = None,
        extra_headers: Optional[Mapping[str, str]] = None,
    ) -> g.RunnerList:
        """The caller's runners."""
        return self._run(p.get_object(self._cfg, g.RunnerList, "/api/v1/runners", _o(timeout, max_retries, extra_headers)))

    def get(
        self, runner_id: str, *, timeout: Optional[TimeoutTypes] = None, max_retries: Optional[int] = None,
        extra_headers: Optional[Mapping[str, str]] = None,
    ) -> g.Runner:
        """One runner."""
        return self._run(p.get_object(self._cfg, g.Runner, f"/api/v1/runners/{p.path_segment(runner_id)}", _o(timeout, max_retries, extra_headers)))

    def deregister(
        self, runner_id: str, *, timeout: Optional[TimeoutTypes] = None, max_retries: Optional[int] = None,
        extra_headers: Optional[Mapping[str, str]] = None,
    ) -> None:
        """Removes the runner (its leased tasks go back to the queue)."""
        path = f"/api/v1/runners/{p.path_segment(runner_id)}"
        return self._run(p.nothing(p.call(self._cfg, "DELETE", path, _o(timeout, max_retries, extra_headers))))

    def claim(
        self, runner_id: str, wait_seconds: int = 20, *, timeout: Optional[TimeoutTypes] = None,
        max_retries: Optional[int] = None, extra_headers: Optional[Mapping[str, str]] = None,
    ) -> Optional[g.RunnerTask]:
        """Long-polls for a task; None when none arrived within ``wait_seconds``. Its timeout is
        ``wait_seconds + 30`` unless ``timeout`` is given."""
        return self._run(p.runner_claim(self._cfg, _o(timeout, max_retries, extra_headers), runner_id, wait_seconds))

    def heartbeat(
        self, task_id: str, lease_id: str, logs: Optional[Sequence[Mapping[str, str]]] = None, *,
        timeout: Optional[TimeoutTypes] = None, max_retries: Optional[int] = None,
        extra_headers: Optional[Mapping[str, str]] = None,
    ) -> g.HeartbeatResponse:
        """Renews the lease and ships log lines (``{"level", "message", "at"}``)."""
        return self._run(p.runner_heartbeat(self._cfg, _o(timeout, max_retries, extra_headers), task_id, lease_id, logs))

    def create_upload_url(
        self, task_id: str, lease_id: str, file_name: str, content_type: str, size_bytes: Optional[int] = None, *,
        timeout: Optional[TimeoutTypes] = None, max_retries: Optional[int] = None,
        extra_headers: Optional[Mapping[str, str]] = None,
    ) -> g.UploadUrlResponse:
        """A URL to PUT the task's clip to."""
        return self._run(p.runner_upload_url(self._cfg, _o(timeout, max_retries, extra_headers), task_id, lease_id, file_name, content_type, size_bytes))

    def complete(
        self, task_id: str, lease_id: str, video_id: str, logs: Optional[Sequence[Mapping[str, str]]] = None, *,
        idempotency_key: Optional[str] = None, timeout: Optional[TimeoutTypes] = None,
        max_retries: Optional[int] = None, extra_headers: Optional[Mapping[str, str]] = None,
    ) -> g.CompleteRunnerTaskResponse:
        """Completes the task with its uploaded clip. ``idempotency_key``: one key for every call
        that repeats this completion (a repeat is then replayed, not done twice)."""
        return self._run(p.runner_complete(self._cfg, _o(timeout, max_retries, extra_headers), task_id, lease_id, video_id, logs, idempotency_key))

    def fail(
        self, task_id: str, lease_id: str, error: str, retryable: bool = True,
        logs: Optional[Sequence[Mapping[str, str]]] = None, *, idempotency_key: Optional[str] = None,
        timeout: Optional[TimeoutTypes] = None, max_retries: Optional[int] = None,
        extra_headers: Optional[Mapping[str, str]] = None,
    ) -> g.FailResponse:
        """Fails the attempt (``retryable``: the task goes back to the queue while attempts
        remain). ``idempotency_key`` as on :meth:`complete`."""
        return self._run(p.runner_fail(self._cfg, _o(timeout, max_retries, extra_headers), task_id, lease_id, error, retryable, logs, idempotency_key))


__all__: List[str] = [
    "ScoreResource", "RankResource", "BenchResource", "DimensionsResource", "ModelsResource", "VideosResource",
    "RunnersResource",
]
