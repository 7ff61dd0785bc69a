"""The Python SDK against a real Vesta server (real engine, real corpus clips)."""
from __future__ import annotations

import http.server
import importlib
import io
import json
import os
import signal
import subprocess
import sys
import tempfile
import threading
import time
import traceback
import unittest
import urllib.request
from typing import Any, Callable, Dict, List, Tuple
from unittest import mock
from urllib.parse import parse_qs, urlsplit

from tests.support.server import CutProxy, FlakyProxy, Server, corpus_clip, free_port

import vesta
import vesta._runner
from vesta import _plans
from vesta._drive import run
from vesta._upload import Source, open_source

server: Server


def setUpModule() -> None:
    global server
    # A short lease, so heartbeats (every ttl/3) run often and a cancel is seen within a second.
    server = Server({"VESTA_RUNNER_LEASE_SECONDS": "3"}, keys=9)


def tearDownModule() -> None:
    server.stop()


def put_ticket(client: vesta.Vesta, ticket: Any, source: Source) -> None:
    """Step 2 of the upload flow alone (the PUT with its retries), as score.upload runs it."""
    cfg = client._config  # pyright: ignore[reportPrivateUsage]
    run(_plans.put_ticket(cfg, vesta.UploadUrlResponse(ticket), source, None, client.max_retries), client._transport)  # pyright: ignore[reportPrivateUsage]


def raw_get(path: str, key: str) -> Any:
    req = urllib.request.Request(server.base_url + path, headers={"X-API-Key": key})
    with urllib.request.urlopen(req, timeout=30) as res:
        return json.loads(res.read())


CLIP = "real__sam2-dog-walk.mp4"


class ScoreAndRank(unittest.TestCase):
    def test_score_upload_wait_shows_real_scores_with_progress(self) -> None:
        client = vesta.Vesta(api_key=server.keys[0], base_url=server.base_url)
        events: List[Dict[str, Any]] = []
        result = client.score.upload(corpus_clip(CLIP), prompt="a dog walking", wait=True, progress=events.append)
        self.assertEqual(result.state, "scored")
        video = result.video
        assert video is not None
        scores = {s["dimension"]: s["value"] for s in video["scores"]}
        self.assertIn("subject_consistency", scores)
        self.assertTrue(all(isinstance(v, float) or isinstance(v, int) for v in scores.values()))
        self.assertTrue(0.0 < scores["subject_consistency"] <= 1.0)
        size = os.path.getsize(corpus_clip(CLIP))
        uploads = [e for e in events if e["phase"] == "upload"]
        self.assertEqual(uploads[-1], {"phase": "upload", "loaded": size, "total": size})
        self.assertIn({"phase": "wait", "videoId": result.video_id, "state": "scored"}, events)
        # The session lists the same scores.
        session = client.score.get_or_create()
        listed = next(v for v in session["videos"] if v["videoId"] == result.video_id)
        self.assertEqual({s["dimension"]: s["value"] for s in listed["scores"]}, scores)

    def test_upload_from_bytes_and_binary_file_object(self) -> None:
        client = vesta.Vesta(api_key=server.keys[1], base_url=server.base_url)
        with open(corpus_clip(CLIP), "rb") as f:
            data = f.read()
        a = client.score.upload(data, prompt="a dog walking")
        self.assertEqual(a.state, "queued")
        with open(corpus_clip(CLIP), "rb") as f:
            b = client.score.upload(f, prompt="a dog walking")
        c = client.score.upload(io.BytesIO(data), prompt="a dog walking", file_name="dog.mp4")
        session = client.score.get_or_create()
        names = {v["videoId"]: (v["fileName"], v["sizeBytes"]) for v in session["videos"]}
        self.assertEqual(names[a.video_id], ("clip.mp4", len(data)))
        self.assertEqual(names[b.video_id], (CLIP, len(data)))
        self.assertEqual(names[c.video_id], ("dog.mp4", len(data)))
        # The stored bytes come back whole and by range; another user's clip is not found.
        self.assertEqual(client.videos.content(a.video_id), data)
        self.assertEqual(client.videos.content(a.video_id, start=10, end=99), data[10:100])
        self.assertEqual(client.videos.content(a.video_id, start=len(data) - 5), data[-5:])
        with self.assertRaises(vesta.RangeNotSatisfiableError):
            client.videos.content(a.video_id, start=len(data))
        other = vesta.Vesta(api_key=server.keys[3], base_url=server.base_url)
        with self.assertRaises(vesta.NotFoundError):
            other.videos.content(a.video_id)

    def test_a_session_reset_elsewhere_ends_the_wait_at_once(self) -> None:
        # #24 item 9: the wait polled until its deadline (900 s) when the session was reset.
        client = vesta.Vesta(api_key=server.keys[1], base_url=server.base_url)
        other = vesta.Vesta(api_key=server.keys[1], base_url=server.base_url)
        resets: List[str] = []

        def progress(event: Any) -> None:
            # The first poll saw the clip confirmed, not yet scored: another process resets.
            if event["phase"] == "wait" and not resets:
                self.assertNotEqual(event["state"], "scored")
                resets.append(other.score.reset()["runId"])

        started = time.monotonic()
        with self.assertRaises(vesta.VideoGoneError) as caught:
            client.score.upload(corpus_clip(CLIP), prompt="a dog walking", wait=True, progress=progress)
        self.assertLess(time.monotonic() - started, 30)
        err = caught.exception
        self.assertEqual((err.code, err.current_run_id), ("video_gone", resets[0]))
        self.assertNotEqual(err.run_id, err.current_run_id)
        self.assertIn(f"was reset (it is now {resets[0]})", str(err))

    def test_a_wait_past_its_deadline_names_the_clip(self) -> None:
        # #24 item 9: WaitTimeoutError carries the video id, so the clip can be looked up later.
        client = vesta.Vesta(api_key=server.keys[8], base_url=server.base_url)
        with self.assertRaises(vesta.WaitTimeoutError) as caught:
            client.score.upload(corpus_clip(CLIP), prompt="a dog walking", wait=True, wait_timeout=0.001)
        video_id = caught.exception.video_id
        self.assertIsNotNone(video_id)
        self.assertIsNone(caught.exception.run_id)
        self.assertIn(video_id, [v.video_id for v in client.score.get_or_create().videos])
        self.assertIn(f"Video {video_id}", str(caught.exception))

    def test_rank_order_equals_ranked_and_prompt_lock(self) -> None:
        key = server.keys[2]
        client = vesta.Vesta(api_key=key, base_url=server.base_url)
        first = client.rank.upload(corpus_clip("runway-gen2__snail-macro.mp4"), prompt="a snail, macro shot", wait=True)
        second = client.rank.upload(corpus_clip("show-1__snail-macro.mp4"), wait=True)  # prompt locked: optional
        with self.assertRaises(vesta.RankPromptMismatchError) as caught:
            client.rank.upload(corpus_clip("show-1__toad-karate.mp4"), prompt="a toad doing karate")
        self.assertEqual((caught.exception.status, caught.exception.code), (400, "RANK_PROMPT_MISMATCH"))
        self.assertTrue(caught.exception.request_id)
        board = client.rank.get_ranked(first.run_id)
        raw = raw_get(f"/api/v1/rank/{first.run_id}/ranked", key)
        self.assertEqual([e["videoId"] for e in board["entries"]], [e["videoId"] for e in raw["entries"]])
        self.assertEqual(board.to_dict(), raw)
        self.assertEqual({e["videoId"] for e in board["entries"]}, {first.video_id, second.video_id})
        self.assertEqual([e["rank"] for e in board["entries"]], [1, 2])
        self.assertEqual(client.rank.get_ranked(), board)  # the current session by default
        # #24 item 7: one candidate removed; the other is ranked alone, the session keeps its run id.
        top = board["entries"][0]["videoId"]
        self.assertIsNone(client.rank.remove_video(top))
        after = client.rank.get_ranked()
        self.assertEqual(after["runId"], first.run_id)
        self.assertEqual([(e["rank"], e["videoId"]) for e in after["entries"]], [(1, board["entries"][1]["videoId"])])
        with self.assertRaises(vesta.NotFoundError):
            client.rank.remove_video(top, first.run_id)
        stranger = vesta.Vesta(api_key=server.keys[0], base_url=server.base_url)
        with self.assertRaises(vesta.ForbiddenError):
            stranger.rank.remove_video(board["entries"][1]["videoId"], first.run_id)
        reset = client.rank.reset()
        self.assertNotEqual(reset["runId"], first.run_id)
        self.assertEqual(reset["videos"], [])


def frames(seed: int, count: int = 12, size: int = 64) -> List[vesta.Frame]:
    """A small rendered clip: a bright square moving over a gradient (deterministic per seed)."""
    out: List[vesta.Frame] = []
    for t in range(count):
        rows: List[bytes] = []
        x0 = (seed + t * 3) % (size - 16)
        for y in range(size):
            row = bytearray()
            for x in range(size):
                inside = x0 <= x < x0 + 16 and 24 <= y < 40
                row += bytes((250, 240, 60)) if inside else bytes(((x * 4) % 256, (y * 4) % 256, 128))
            rows.append(bytes(row))
        out.append(vesta.Frame(size, size, b"".join(rows)))
    return out


def out_of_memory(prompt: str) -> bytes:
    raise vesta.GenerationError("CUDA out of memory", retryable=False)


class Pipelines(unittest.TestCase):
    def test_run_with_pipeline_rendering_frames_completes_with_correct_csv(self) -> None:
        client = vesta.Vesta(api_key=server.keys[3], base_url=server.base_url)
        seen: List[Any] = []

        def render(prompt: str, seed: int, context: vesta.PipelineContext) -> List[vesta.Frame]:
            seen.append((prompt, seed, context.sample_index, context.run_id))
            context.log(f"rendering {prompt!r}")
            return frames(seed)

        progress: List[str] = []
        run = client.bench.run_with_pipeline(
            render, dimensions=["subject_consistency", "motion_smoothness"], run_name="py pipeline",
            model_id="py-frames-model", samples_per_prompt=1, prompts_per_dimension=1,
            on_progress=lambda r: progress.append(r["status"]),
        )
        self.assertEqual(run["status"], "completed", run)
        self.assertEqual(run["progress"]["tasks_failed"], 0)
        self.assertEqual(len(seen), run["progress"]["tasks_total"])
        self.assertEqual(progress[-1], "completed")
        videos = list(client.bench.all_videos(run["id"]))
        self.assertTrue(all(v["state"] == "done" for v in videos))
        # The CSV's per-dimension value is the mean of the clips' scores.
        csv = client.bench.csv(run["id"]).splitlines()
        header = csv[0].split(",")
        rows = {r.split(",")[0]: r.split(",") for r in csv[1:]}
        for dim in ("subject_consistency", "motion_smoothness"):
            values = [s["value"] for v in videos for s in v["scores"] if s["dimension"] == dim]
            self.assertTrue(values)
            mean = sum(values) / len(values)
            col = next(i for i, h in enumerate(header) if h in ("score", "value", "mean", "raw"))
            self.assertAlmostEqual(float(rows[dim][col]), mean, places=4)
        logs = [l["message"] for l in client.bench.all_logs(run["id"])]
        self.assertTrue(any("rendering" in m for m in logs), logs)
        # The runner deregistered itself.
        self.assertEqual(client.runners.list()["items"], [])

    def test_raising_or_wrong_output_fails_the_task_with_its_message_in_the_logs(self) -> None:
        client = vesta.Vesta(api_key=server.keys[4], base_url=server.base_url)
        def nothing(prompt: str) -> None:
            return None

        def a_number(prompt: str) -> int:
            return 42

        cases: List[Tuple[Callable[[str], Any], str]] = [
            (out_of_memory, "CUDA out of memory"), (nothing, "returned nothing"), (a_number, "returned a int"),
        ]
        for fn, message in cases:
            run = client.bench.run_with_pipeline(fn, dimensions=["subject_consistency"], run_name="bad", model_id="py-bad",
                                                 samples_per_prompt=1, prompts_per_dimension=1)
            self.assertEqual(run["status"], "failed", run)
            logs = " | ".join(l["message"] for l in client.bench.all_logs(run["id"]))
            self.assertIn(message, logs)

    def test_cancellation_mid_run_and_ctrl_c(self) -> None:
        key = server.keys[5]
        client = vesta.Vesta(api_key=key, base_url=server.base_url)
        other = vesta.Vesta(api_key=key, base_url=server.base_url)
        noticed = threading.Event()

        def slow(prompt: str, seed: int, context: vesta.PipelineContext) -> List[vesta.Frame]:
            other.bench.cancel(context.run_id)  # someone cancels the run while this clip renders
            if context.cancelled.wait(15):  # the heartbeat thread learns of it
                noticed.set()
            return frames(seed)

        run = client.bench.run_with_pipeline(slow, dimensions=["subject_consistency"], run_name="cancel me",
                                             model_id="py-cancel", samples_per_prompt=2, prompts_per_dimension=1)
        self.assertEqual(run["status"], "cancelled")
        self.assertTrue(noticed.is_set())
        self.assertEqual(client.bench.get(run["id"])["progress"]["tasks_generated"], 0)

        def interrupted(prompt: str, seed: int, context: vesta.PipelineContext) -> Any:
            raise KeyboardInterrupt  # what Ctrl-C raises in the main thread

        with self.assertRaises(KeyboardInterrupt):
            client.bench.run_with_pipeline(interrupted, dimensions=["subject_consistency"], run_name="ctrl-c",
                                           model_id="py-cancel", samples_per_prompt=1, prompts_per_dimension=1)
        latest = next(iter(client.bench.list()))
        self.assertEqual((latest["name"], latest["status"]), ("ctrl-c", "cancelled"))
        self.assertEqual(client.runners.list()["items"], [])
        client.bench.delete(latest["id"])
        with self.assertRaises(vesta.NotFoundError):
            client.bench.get(latest["id"])


class DiffusersOutput:
    """What a diffusers text-to-video pipeline returns: ``frames`` holds a batch of videos."""

    def __init__(self, frames: Any) -> None:
        self.frames = frames


class PipelineSignatures(unittest.TestCase):
    """#24 item 8: the pipeline is called with what its signature accepts."""

    def run_pipeline(self, client: vesta.Vesta, fn: Any, name: str) -> Any:
        return client.bench.run_with_pipeline(fn, dimensions=["subject_consistency"], run_name=name, model_id="py-signatures",
                                              samples_per_prompt=1, prompts_per_dimension=1)

    def test_prompt_only_prompt_and_seed_and_keyword_context_all_complete(self) -> None:
        client = vesta.Vesta(api_key=server.keys[4], base_url=server.base_url)
        calls: List[Any] = []

        def generate(prompt: str) -> DiffusersOutput:  # as diffusers pipelines are called
            calls.append(("generate", prompt))
            return DiffusersOutput([frames(1)])  # a batch of one video, as pipe(...).frames

        def gen(prompt: str, seed: Any = None, **kw: Any) -> List[vesta.Frame]:
            calls.append(("gen", prompt, seed, kw))
            return frames(seed)

        def keyword(prompt: str, *, context: vesta.PipelineContext) -> List[vesta.Frame]:
            calls.append(("keyword", prompt, context.seed, context.task_id))
            return frames(context.seed)

        for fn in (generate, gen, keyword):
            run = self.run_pipeline(client, fn, fn.__name__)
            self.assertEqual((run["status"], run["progress"]["tasks_failed"]), ("completed", 0), run)
        self.assertEqual([c[0] for c in calls], ["generate", "gen", "keyword"])
        self.assertEqual(calls[1][3], {})  # nothing pushed into **kw
        self.assertIsInstance(calls[1][2], int)
        self.assertTrue(calls[2][3])

    def test_a_signature_no_call_can_fill_is_a_type_error_before_anything_is_created(self) -> None:
        client = vesta.Vesta(api_key=server.keys[4], base_url=server.base_url)
        before = client.bench.list_page()["total"]

        def needs_steps(prompt: str, *, steps: int) -> bytes:
            return b""

        with self.assertRaises(TypeError) as caught:
            self.run_pipeline(client, needs_steps, "unfillable")
        self.assertIn("'steps'", str(caught.exception))
        self.assertEqual(client.bench.list_page()["total"], before)
        self.assertEqual(client.runners.list()["items"], [])

    def test_a_programming_error_on_the_first_call_cancels_the_run_and_is_raised_here(self) -> None:
        client = vesta.Vesta(api_key=server.keys[4], base_url=server.base_url)
        calls: List[str] = []

        def broken(prompt: str) -> Any:
            calls.append(prompt)
            return prompt.frames  # type: ignore[attr-defined]  # AttributeError: a mistake in the code

        started = time.monotonic()
        try:
            self.run_pipeline(client, broken, "broken pipeline")
        except AttributeError as err:
            tb = traceback.extract_tb(err.__traceback__)
        else:
            self.fail("the AttributeError was not raised")
        self.assertLess(time.monotonic() - started, 20)
        self.assertEqual(len(calls), 1)  # not retried three times
        # The original traceback: its last frame is the pipeline's own line.
        last = tb[-1]
        self.assertEqual((last.name, last.line), ("broken", "return prompt.frames  # type: ignore[attr-defined]  # AttributeError: a mistake in the code"))
        run = next(iter(client.bench.list()))
        self.assertEqual((run["name"], run["status"]), ("broken pipeline", "cancelled"))
        logs = " | ".join(line["message"] for line in client.bench.all_logs(run["id"]))
        self.assertIn("AttributeError: 'str' object has no attribute 'frames'", logs)
        self.assertIn("first call", logs)
        self.assertEqual(client.runners.list()["items"], [])

    def test_diffusers_outputs_become_clips(self) -> None:
        from vesta._video import clip_from_output

        clip, ctype = clip_from_output(DiffusersOutput([frames(2, count=4)]), 8.0)
        self.assertEqual(ctype, "video/mp4")
        self.assertEqual(clip[4:8], b"ftyp")
        with self.assertRaises(vesta.PipelineOutputError) as caught:
            clip_from_output(DiffusersOutput([frames(2, count=4), frames(3, count=4)]), 8.0)
        self.assertIn("2 videos", str(caught.exception))
        try:
            numpy: Any = importlib.import_module("numpy")
        except ImportError:
            return  # NumPy is not installed for this interpreter; the frame lists above are what it checks
        # output_type="np": (batch, frames, H, W, C) floats in [0, 1]; output_type="pt" as NumPy:
        # (batch, frames, C, H, W), channels first.
        video = numpy.stack([numpy.frombuffer(f.rgb, dtype=numpy.uint8).reshape(64, 64, 3) for f in frames(2, count=4)])
        as_np = (video / 255.0)[None]
        as_pt = as_np.transpose(0, 1, 4, 2, 3)
        ref, _ = clip_from_output(DiffusersOutput(video[None]), 8.0)
        for out in (as_np, as_pt):
            clip, _ = clip_from_output(DiffusersOutput(out), 8.0)
            self.assertEqual(clip, ref)


class CtrlC(unittest.TestCase):
    def test_sigint_stops_a_pipeline_run_cleanly(self) -> None:
        key = server.keys[5]
        script = (
            "import sys, time, vesta\n"
            "c = vesta.Vesta(api_key=sys.argv[1], base_url=sys.argv[2])\n"
            "def slow(prompt, seed, ctx):\n"
            "    print('generating', ctx.run_id, flush=True)\n"
            "    time.sleep(60)\n"
            "try:\n"
            "    c.bench.run_with_pipeline(slow, dimensions=['subject_consistency'], run_name='sigint', model_id='py-sigint',\n"
            "                              samples_per_prompt=1, prompts_per_dimension=1)\n"
            "except KeyboardInterrupt:\n"
            "    print('interrupted', flush=True)\n"
            "    sys.exit(130)\n"
        )
        env = {**os.environ, "PYTHONPATH": os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))}
        proc = subprocess.Popen([sys.executable, "-c", script, key, server.base_url], stdout=subprocess.PIPE, text=True, env=env)
        try:
            assert proc.stdout is not None
            line = proc.stdout.readline()
            self.assertTrue(line.startswith("generating"), line)
            run_id = line.split()[1]
            proc.send_signal(signal.SIGINT)
            rest = proc.communicate(timeout=60)[0]
        finally:
            if proc.poll() is None:
                proc.kill()
                proc.wait()
        self.assertEqual(proc.returncode, 130)
        self.assertIn("interrupted", rest)
        client = vesta.Vesta(api_key=key, base_url=server.base_url)
        self.assertEqual(client.bench.get(run_id)["status"], "cancelled")
        self.assertEqual(client.runners.list()["items"], [])
        logs = " | ".join(l["message"] for l in client.bench.all_logs(run_id))
        self.assertIn("interrupted", logs)


class Retries(unittest.TestCase):
    def test_5xx_then_recovery_is_retried_with_one_idempotency_key(self) -> None:
        proxy = FlakyProxy(server.base_url, failures=2, status=503, match="/api/v1/score/reset", retry_after="0")
        try:
            client = vesta.Vesta(api_key=server.keys[0], base_url=proxy.base_url, max_retries=3)
            session = client.score.reset()
            self.assertTrue(session["runId"])
            attempts = [r for r in proxy.seen if r["path"] == "/api/v1/score/reset"]
            self.assertEqual([a["failed"] for a in attempts], [True, True, False])
            keys = {a["headers"].get("Idempotency-Key") for a in attempts}
            self.assertEqual(len(keys), 1)
            self.assertTrue(all(a["headers"].get("X-Service-Source") == "sdk" for a in attempts))
        finally:
            proxy.stop()

    def test_dropped_connections_and_interrupted_upload_are_retried(self) -> None:
        proxy = FlakyProxy(server.base_url, failures=1, status=0, match="/api/v1/dimensions")
        try:
            client = vesta.Vesta(api_key=server.keys[0], base_url=proxy.base_url)
            self.assertTrue(client.dimensions.list()["items"])
            self.assertEqual([r["failed"] for r in proxy.seen], [True, False])
        finally:
            proxy.stop()

    def test_interrupted_upload_is_retried_from_the_start(self) -> None:
        # A server whose upload URLs point at the proxy; the first PUT is cut after 1 KiB.
        port = free_port()
        own = Server({"VESTA_PUBLIC_URL": f"http://127.0.0.1:{port}"}, keys=1)
        proxy = FlakyProxy(own.base_url, failures=1, match="/api/v1/uploads/", method="PUT", cut_body=True, port=port)
        try:
            client = vesta.Vesta(api_key=own.keys[0], base_url=proxy.base_url)
            result = client.score.upload(corpus_clip(CLIP), prompt="a dog walking")
            puts = [r for r in proxy.seen if r["method"] == "PUT"]
            self.assertEqual([p["failed"] for p in puts], [True, False])
            self.assertEqual(puts[0]["path"], puts[1]["path"])
            listed = next(v for v in client.score.get_or_create()["videos"] if v["videoId"] == result.video_id)
            self.assertEqual(listed["sizeBytes"], os.path.getsize(corpus_clip(CLIP)))
        finally:
            proxy.stop()
            own.stop()

    def test_idempotency_mismatch_is_not_retried(self) -> None:
        proxy = FlakyProxy(server.base_url, failures=0)
        try:
            client = vesta.Vesta(api_key=server.keys[4], base_url=proxy.base_url, max_retries=3)
            client.runners.register("idem", ["py-idem"])
            first = client.bench.create("idem", "py-idem", ["subject_consistency"], idempotency_key="same-key-1")
            replay = client.bench.create("idem", "py-idem", ["subject_consistency"], idempotency_key="same-key-1")
            self.assertEqual(first["id"], replay["id"])
            before = len(proxy.seen)
            with self.assertRaises(vesta.IdempotencyMismatchError) as caught:
                client.bench.create("other", "py-idem", ["subject_consistency"], idempotency_key="same-key-1")
            self.assertEqual(caught.exception.status, 409)
            self.assertEqual(len(proxy.seen) - before, 1)
            client.bench.cancel(first["id"])
        finally:
            proxy.stop()


def everything_shown(err: BaseException) -> str:
    """What an error can show: its message, repr, attributes and the traceback Python prints."""
    return " ".join(
        [str(err), repr(err), repr(vars(err)), "".join(traceback.format_exception(type(err), err, err.__traceback__))]
    )


class ApiOutage(unittest.TestCase):
    """run_with_pipeline while the service itself cannot be reached (an api process restarting
    during a rolling deploy), as the TypeScript runner: it waits and goes on."""

    def clip(self) -> bytes:
        with open(corpus_clip(CLIP), "rb") as f:
            return f.read()

    def test_claims_and_polls_wait_while_the_api_is_down_and_the_run_completes_once_it_is_back(self) -> None:
        proxy = CutProxy(server.base_url)
        client = vesta.Vesta(api_key=server.keys[6], base_url=proxy.base_url)
        clip = self.clip()
        generated: List[str] = []
        outage: List[threading.Timer] = []

        def on_progress(run: Any) -> None:
            if not outage:  # the run exists, nothing is claimed yet: the api goes away for 2 s
                proxy.cut()
                outage.append(threading.Timer(2.0, proxy.restore))
                outage[0].start()

        def pipeline(prompt: str, seed: int, context: vesta.PipelineContext) -> bytes:
            generated.append(context.task_id)
            return clip

        try:
            with self.assertLogs("vesta", "WARNING") as logged:
                run = client.bench.run_with_pipeline(
                    pipeline, dimensions=["subject_consistency"], run_name="py api outage", model_id="py-api-outage",
                    samples_per_prompt=1, prompts_per_dimension=1, on_progress=on_progress,
                )
        finally:
            for restore in outage:
                restore.join()
            proxy.stop()
        self.assertEqual(run["status"], "completed", run)
        self.assertEqual(run["progress"]["tasks_failed"], 0)
        self.assertEqual(sorted(set(generated)), sorted(generated))
        self.assertEqual(len(generated), run["progress"]["tasks_total"])
        waits = " | ".join(logged.output)
        self.assertIn(f"claim failed (Could not reach {proxy.base_url}/api/v1/runners/", waits)
        self.assertIn(f"poll failed (Could not reach {proxy.base_url}/api/v1/bench/{run['id']} after 3 attempts", waits)
        self.assertIn("trying again in", waits)
        direct = vesta.Vesta(api_key=server.keys[6], base_url=server.base_url)
        self.assertEqual(direct.runners.list()["items"], [])  # deregistered once the api was back

    def test_ctrl_c_while_the_api_is_down_stops_at_once(self) -> None:
        proxy = CutProxy(server.base_url)
        script = (
            "import sys, vesta\n"
            "c = vesta.Vesta(api_key=sys.argv[1], base_url=sys.argv[2])\n"
            "def started(run):\n"
            "    print('started', run['id'], flush=True)\n"
            "    sys.stdin.readline()  # until the api is gone\n"
            "try:\n"
            "    c.bench.run_with_pipeline(lambda p, s, ctx: None, dimensions=['subject_consistency'], run_name='sigint down',\n"
            "                              model_id='py-sigint-down', samples_per_prompt=1, prompts_per_dimension=1,\n"
            "                              on_progress=started)\n"
            "except KeyboardInterrupt:\n"
            "    sys.exit(130)\n"
        )
        env = {**os.environ, "PYTHONPATH": os.path.dirname(os.path.dirname(os.path.abspath(__file__)))}
        proc = subprocess.Popen([sys.executable, "-c", script, server.keys[7], proxy.base_url], stdin=subprocess.PIPE,
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
        try:
            assert proc.stdin is not None and proc.stdout is not None and proc.stderr is not None
            line = proc.stdout.readline()
            self.assertTrue(line.startswith("started"), line)
            run_id = line.split()[1]
            proxy.cut()
            proc.stdin.write("\n")
            proc.stdin.flush()
            warned = proc.stderr.readline()  # the first wait, logged as a warning (stderr when unconfigured)
            self.assertIn("failed (Could not reach", warned)
            proc.send_signal(signal.SIGINT)
            sent = time.monotonic()
            proc.wait(timeout=30)
            took = time.monotonic() - sent
        finally:
            if proc.poll() is None:
                proc.kill()
                proc.wait()
            proxy.stop()
            for stream in (proc.stdin, proc.stdout, proc.stderr):
                if stream:
                    stream.close()
        self.assertEqual(proc.returncode, 130)
        # No waiting out the back-off, and one try of the cleanup calls (the client's 2 retries
        # would add 1.1-1.5 s each).
        self.assertLess(took, 1.0)
        direct = vesta.Vesta(api_key=server.keys[7], base_url=server.base_url)
        self.assertEqual(direct.bench.get(run_id)["status"], "queued")  # nothing claimed; the cancel could not get through
        direct.bench.cancel(run_id)
        for runner in direct.runners.list()["items"]:
            direct.runners.deregister(runner["id"])

    def test_a_run_cancelled_while_claims_fail_ends_the_loop(self) -> None:
        proxy = FlakyProxy(server.base_url, failures=1000, status=503, match="/claim", retry_after="0")
        client = vesta.Vesta(api_key=server.keys[7], base_url=proxy.base_url)
        other = vesta.Vesta(api_key=server.keys[7], base_url=server.base_url)
        cancels: List[threading.Timer] = []

        def on_progress(run: Any) -> None:
            if not cancels:  # someone cancels the run a second after it starts
                cancels.append(threading.Timer(1.0, other.bench.cancel, (run["id"],)))
                cancels[0].start()

        try:
            with self.assertLogs("vesta", "WARNING") as logged:
                started = time.monotonic()
                run = client.bench.run_with_pipeline(
                    self.fail, dimensions=["subject_consistency"],
                    run_name="py claims refused", model_id="py-claims-refused", samples_per_prompt=1,
                    prompts_per_dimension=1, on_progress=on_progress,
                )
                took = time.monotonic() - started
        finally:
            for cancel in cancels:
                cancel.join()
            proxy.stop()
        self.assertEqual(run["status"], "cancelled", run)
        self.assertLess(took, 6.0)  # the poll after the next wait (at most 2 s) sees it
        self.assertIn("claim failed (upstream_unavailable: proxy says no)", " | ".join(logged.output))
        self.assertNotIn("poll failed", " | ".join(logged.output))
        self.assertEqual(client.runners.list()["items"], [])

    def test_a_completion_the_api_refuses_for_a_moment_is_sent_again_with_one_key(self) -> None:
        # A 503 past the client's own retries (a load balancer with no api process ready).
        proxy = FlakyProxy(server.base_url, failures=3, status=503, match="/complete", retry_after="0")
        client = vesta.Vesta(api_key=server.keys[6], base_url=proxy.base_url)
        clip = self.clip()
        generated: List[str] = []

        def pipeline(prompt: str, seed: int, context: vesta.PipelineContext) -> bytes:
            generated.append(context.task_id)
            context.log("rendered")
            return clip

        try:
            with self.assertLogs("vesta", "WARNING") as logged:
                run = client.bench.run_with_pipeline(
                    pipeline, dimensions=["subject_consistency"], run_name="py complete refused",
                    model_id="py-complete-refused", samples_per_prompt=1, prompts_per_dimension=1,
                )
        finally:
            proxy.stop()
        self.assertEqual(run["status"], "completed", run)
        self.assertEqual(len(generated), 1)  # no second attempt, no second generation
        completes = [r for r in proxy.seen if r["path"].endswith("/complete")]
        self.assertEqual([r["failed"] for r in completes], [True, True, True, False])
        self.assertEqual(len({r["headers"].get("Idempotency-Key") for r in completes}), 1)
        self.assertIn("complete failed (upstream_unavailable: proxy says no); trying again in", logged.output[0])
        # The log lines went with the completion that got through (the same body each time).
        messages = [line["message"] for line in client.bench.all_logs(run["id"]) if line["source"] == "runner"]
        self.assertEqual(len([m for m in messages if m.endswith("] rendered")]), 1, messages)

    def test_a_heartbeat_the_api_does_not_answer_gives_up_in_time_and_tries_again(self) -> None:
        # Heartbeats every second (lease 3 s); the first one gets no answer (a hung api). Its timeout
        # is max(interval, HEARTBEAT_MIN_TIMEOUT), here 1 s, and it is sent once more; with the
        # client's 60 s it would hold the heartbeat past the lease.
        proxy = FlakyProxy(server.base_url, failures=1, status=0, match="/heartbeat", hold=4.0)
        client = vesta.Vesta(api_key=server.keys[7], base_url=proxy.base_url)
        clip = self.clip()

        def beats() -> List[Any]:
            return [r for r in proxy.seen if r["path"].endswith("/heartbeat")]

        def pipeline(prompt: str, seed: int, context: vesta.PipelineContext) -> bytes:
            deadline = time.monotonic() + 10
            while time.monotonic() < deadline and not (len(beats()) >= 2 and "status" in beats()[1]):
                time.sleep(0.05)  # generating until the heartbeat after the hung one has been answered
            return clip

        try:
            with mock.patch.object(vesta._runner, "HEARTBEAT_MIN_TIMEOUT", 0.5):
                run = client.bench.run_with_pipeline(
                    pipeline, dimensions=["subject_consistency"], run_name="py heartbeat hung",
                    model_id="py-heartbeat-hung", samples_per_prompt=1, prompts_per_dimension=1,
                )
        finally:
            proxy.stop()
        self.assertEqual(run["status"], "completed", run)
        hung, retried = beats()[:2]
        self.assertTrue(hung["failed"])
        self.assertEqual(hung["headers"].get("Idempotency-Key"), retried["headers"].get("Idempotency-Key"))
        # Given up after its 1 s timeout and sent again after the back-off (0.375-0.5 s).
        self.assertGreater(retried["at"] - hung["at"], 1.0)
        self.assertLess(retried["at"] - hung["at"], 2.5)


class UploadUrlsInErrors(unittest.TestCase):
    """An upload URL's query is its credential (the server's token, an S3 signature): no error
    shows it, whatever fails. (A stopped S3 store: test_s3.StoreOutage.)"""

    SIGNATURE = "5e1f0c2a9b7d4e3f8a6c1b0d2e4f6a8c0b2d4f6e8a0c2e4f6b8d0a2c4e6f8b0d"

    def ticket(self, upload_url: str) -> Any:
        expires = time.strftime("%Y-%m-%dT%H:%M:%S.000Z", time.gmtime(time.time() + 600))
        return {"videoId": "vid_x", "uploadUrl": upload_url, "method": "PUT", "headers": {"Content-Type": "video/mp4"},
                "expiresAt": expires}

    def test_the_servers_upload_token_stays_out_of_a_connection_error(self) -> None:
        # The server's own upload URL (local blob store), its address unreachable (a wrong public URL).
        client = vesta.Vesta(api_key=server.keys[3], base_url=server.base_url, max_retries=1)
        run_id = client.score.get_or_create()["runId"]
        ticket = client.score.create_upload_url(run_id, file_name="x.mp4", content_type="video/mp4", prompt="p", size_bytes=4)
        token = parse_qs(urlsplit(ticket.upload_url).query)["token"][0]
        path = urlsplit(ticket.upload_url).path
        dead = f"http://127.0.0.1:{free_port()}{path}"
        source = open_source(b"\0\0\0\0")
        with self.assertRaises(vesta.ApiConnectionError) as caught:
            put_ticket(client, dict(ticket.to_dict(), uploadUrl=f"{dead}?{urlsplit(ticket.upload_url).query}"), source)
        err = caught.exception
        self.assertEqual(err.url, dead)
        self.assertEqual(err.attempts, 2)
        self.assertIn(f"Could not reach {dead} after 2 attempts", str(err))
        self.assertNotIn(token, everything_shown(err))

    def test_a_store_quoting_the_signature_in_its_refusal_has_it_redacted_from_the_detail(self) -> None:
        # A store that refuses the PUT quoting what it was given (as S3's SignatureDoesNotMatch
        # does), the signature straddling the 200 characters the detail keeps of a non-JSON answer.
        signature = self.SIGNATURE

        class Store(http.server.BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, format: str, *args: Any) -> None:  # noqa: A002
                pass

            def do_PUT(self) -> None:  # noqa: N802
                self.rfile.read(int(self.headers.get("Content-Length") or 0))
                query = urlsplit(self.path).query
                given = parse_qs(query)["X-Amz-Signature"][0]
                head = '<?xml version="1.0" encoding="UTF-8"?>\n<Error><Code>SignatureDoesNotMatch</Code><Message>no</Message>'
                body = (head + " " * (180 - len(head)) + f"<SignatureProvided>{given}</SignatureProvided>"
                        + f"<CanonicalQueryString>{query}</CanonicalQueryString></Error>").encode()
                self.send_response(403)
                self.send_header("Content-Type", "application/xml")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

        store = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Store)
        threading.Thread(target=store.serve_forever, daemon=True).start()
        try:
            base = f"http://127.0.0.1:{store.server_address[1]}/bucket/clip.mp4"
            url = f"{base}?X-Amz-Credential=AKIDEXAMPLE%2F20261126%2Fus-east-1%2Fs3%2Faws4_request&X-Amz-Signature={signature}"
            client = vesta.Vesta(api_key="k", base_url=server.base_url)
            with self.assertRaises(vesta.ForbiddenError) as caught:
                put_ticket(client, self.ticket(url), open_source(b"\0\0\0\0"))
        finally:
            store.shutdown()
            store.server_close()
        err = caught.exception
        self.assertEqual((err.status, err.url), (403, base))
        self.assertIn("SignatureDoesNotMatch", err.detail)
        self.assertIn("<SignatureProvided>…", err.detail)  # the excerpt reaches the value, replaced whole
        shown = everything_shown(err)
        self.assertNotIn(signature[:8], shown)
        self.assertNotIn("AKIDEXAMPLE", shown)

    def test_a_url_python_refuses_to_send_is_quoted_without_its_query_values(self) -> None:
        # http.client refuses a URL with a control character, quoting it (with repr) in its error.
        url = f"http://127.0.0.1:{free_port()}/bucket/clip.mp4?X-Amz-Signature={self.SIGNATURE}\x01&x-id=PutObject"
        client = vesta.Vesta(api_key="k", base_url=server.base_url, max_retries=0)
        with self.assertRaises(vesta.ApiConnectionError) as caught:
            put_ticket(client, self.ticket(url), open_source(b"\0\0\0\0"))
        err = caught.exception
        self.assertIn("control characters", str(err))
        self.assertNotIn(self.SIGNATURE[:8], everything_shown(err))
        self.assertIsNone(err.__context__)


class RateLimits(unittest.TestCase):
    def test_429_waits_the_retry_after_then_succeeds(self) -> None:
        # One request per 3 s per key: the second call is refused once, then served after the wait.
        own = Server({"VESTA_RATE_LIMIT_PER_KEY": "1/3"}, keys=2)
        proxy = FlakyProxy(own.base_url, failures=0)
        try:
            client = vesta.Vesta(api_key=own.keys[0], base_url=proxy.base_url, max_retries=2)
            self.assertTrue(client.dimensions.list()["items"])
            started = time.monotonic()
            self.assertTrue(client.dimensions.list()["items"])
            waited = time.monotonic() - started
            self.assertEqual([r.get("status") for r in proxy.seen], [200, 429, 200])
            hinted = int(proxy.seen[1]["retry_after"])
            self.assertGreaterEqual(hinted, 1)
            self.assertGreaterEqual(waited, hinted - 0.05)
            # With no retries left, the refusal is the typed error with its code.
            impatient = vesta.Vesta(api_key=own.keys[1], base_url=own.base_url, max_retries=0)
            impatient.dimensions.list()
            with self.assertRaises(vesta.RateLimitedError) as caught:
                impatient.dimensions.list()
            self.assertEqual(caught.exception.status, 429)
            self.assertEqual(caught.exception.code, "rate_limited")
        finally:
            proxy.stop()
            own.stop()


class BadInput(unittest.TestCase):
    def test_missing_key_names_the_variable(self) -> None:
        os.environ.pop("MY_VESTA_KEY", None)
        with self.assertRaises(vesta.MissingApiKeyError) as caught:
            vesta.Vesta(api_key_env="MY_VESTA_KEY", base_url=server.base_url)
        self.assertIn("MY_VESTA_KEY", str(caught.exception))
        os.environ["MY_VESTA_KEY"] = server.keys[0]
        try:
            self.assertTrue(vesta.Vesta(api_key_env="MY_VESTA_KEY", base_url=server.base_url).score.get_or_create()["runId"])
        finally:
            del os.environ["MY_VESTA_KEY"]

    def test_wrong_base_url(self) -> None:
        with self.assertRaises(ValueError):
            vesta.Vesta(api_key="k", base_url="localhost:8080")
        client = vesta.Vesta(api_key="k", base_url=f"http://127.0.0.1:{free_port()}", max_retries=1)
        with self.assertRaises(vesta.ApiConnectionError) as caught:
            client.dimensions.list()
        self.assertIn("after 2 attempts", str(caught.exception))

    def test_key_never_shown(self) -> None:
        secret = "vk_not_a_real_key_0123456789"
        client = vesta.Vesta(api_key=secret, base_url=server.base_url)
        self.assertNotIn(secret, repr(client))
        with self.assertRaises(vesta.UnauthorizedError) as caught:
            client.score.get_or_create()
        err = caught.exception
        self.assertEqual((err.status, err.code), (401, "unauthorized"))
        self.assertNotIn(secret, str(err) + repr(err) + repr(vars(err)))

    def test_bad_files_fail_before_anything_is_created(self) -> None:
        client = vesta.Vesta(api_key=server.keys[2], base_url=server.base_url)
        before = len(client.score.get_or_create()["videos"])
        with tempfile.TemporaryDirectory() as tmp:
            unreadable = os.path.join(tmp, "locked.mp4")
            with open(unreadable, "wb") as f:
                f.write(b"\0" * 100)
            os.chmod(unreadable, 0)
            if os.access(unreadable, os.R_OK):  # root reads anything: a path through a file cannot be opened
                unreadable = os.path.join(unreadable, "clip.mp4")
            empty = os.path.join(tmp, "empty.mp4")
            open(empty, "wb").close()
            for bad, words in [
                (os.path.join(tmp, "missing.mp4"), "No such file"),
                (tmp, "is a directory"),
                (unreadable, ""),
                (empty, "empty"),
                (12345, "Cannot upload a int"),
                (io.StringIO("text"), "text mode"),
            ]:
                with self.assertRaises(vesta.UploadSourceError, msg=str(bad)) as caught:
                    client.score.upload(bad, prompt="p")  # type: ignore[arg-type]
                self.assertIn(words, str(caught.exception))
        for empty in ("", "  "):  # a validation error (also a ValueError), not an unreadable file
            with self.assertRaises(vesta.InvalidArgumentError) as bad_prompt:
                client.score.upload(corpus_clip(CLIP), prompt=empty)
            self.assertEqual((bad_prompt.exception.code, bad_prompt.exception.argument), ("invalid_argument", "prompt"))
            self.assertIsInstance(bad_prompt.exception, ValueError)
        self.assertEqual(len(client.score.get_or_create()["videos"]), before)

    def test_bad_bench_input_gets_the_catalogue_code(self) -> None:
        client = vesta.Vesta(api_key=server.keys[2], base_url=server.base_url)
        with self.assertRaises(vesta.ValidationFailedError) as caught:
            client.bench.create("x", "no-such-model", ["subject_consistency"])
        self.assertIn("no-such-model", caught.exception.detail)
        with self.assertRaises(vesta.NotFoundError):
            client.bench.get("bench_missing")
        with self.assertRaises(TypeError):
            client.bench.run_with_pipeline("not callable", dimensions=["subject_consistency"], run_name="x", model_id="m")  # type: ignore[arg-type]


if __name__ == "__main__":
    unittest.main()
