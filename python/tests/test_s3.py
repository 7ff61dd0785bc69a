"""The Python SDK against a server whose blob store is S3 (VESTA_BLOB_STORE=s3 on a real
S3-compatible server with SigV4 checked): uploads go to the presigned bucket URL, with the clip's
size and type signed, and never through the API. With the S3 server stopped, an upload's error
names the bucket without the URL's signature and counts every attempt, the CLIs say the blob store
is unreachable, and run_with_pipeline keeps the generated clip and sends it again."""
from __future__ import annotations

import json
import os
import threading
import unittest
from typing import Any, Dict, List, Optional
from unittest import mock
from urllib.parse import parse_qs, urlsplit

from tests.support.server import Server, corpus_clip
from tests.test_cli import parallel
from tests.test_sdk import everything_shown, frames

import vesta
import vesta._runner
from vesta.cli import describe_error

server: Server


def setUpModule() -> None:
    global server
    # A short lease (heartbeats every second): a 4 s outage of the store outlasts it.
    server = Server({"VESTA_TEST_S3": "1", "VESTA_RUNNER_LEASE_SECONDS": "3"}, keys=6)


def tearDownModule() -> None:
    server.stop()


CLIP = "modelscope-t2v__toad-karate.mp4"


def render_frames(prompt: str, seed: int) -> List[vesta.Frame]:
    return frames(seed)


class S3Uploads(unittest.TestCase):
    def test_upload_url_is_a_presigned_bucket_put_with_size_and_type_signed(self) -> None:
        client = vesta.Vesta(api_key=server.keys[0], base_url=server.base_url)
        run_id = client.score.get_or_create()["runId"]
        size = os.path.getsize(corpus_clip(CLIP))
        ticket = client.score.create_upload_url(run_id, file_name=CLIP, content_type="video/mp4", prompt="x", size_bytes=size)
        assert server.s3_endpoint is not None
        self.assertTrue(ticket["uploadUrl"].startswith(server.s3_endpoint + "/"), ticket["uploadUrl"])
        query = parse_qs(urlsplit(ticket.upload_url).query)
        self.assertEqual(query["X-Amz-SignedHeaders"], ["content-length;content-type;host"])
        self.assertEqual(dict(ticket["headers"]), {"Content-Type": "video/mp4", "Content-Length": str(size)})

    def test_score_upload_by_path_waits_for_real_scores(self) -> None:
        client = vesta.Vesta(api_key=server.keys[1], base_url=server.base_url)
        events: List[Any] = []
        result = client.score.upload(corpus_clip(CLIP), prompt="a toad doing karate", wait=True, progress=events.append)
        self.assertEqual(result.state, "scored")
        assert result.video is not None
        self.assertEqual(result.video["sizeBytes"], os.path.getsize(corpus_clip(CLIP)))
        self.assertTrue(result.video["scores"])
        size = os.path.getsize(corpus_clip(CLIP))
        self.assertEqual([e for e in events if e["phase"] == "upload"][-1], {"phase": "upload", "loaded": size, "total": size})

    def test_rank_upload_of_bytes(self) -> None:
        client = vesta.Vesta(api_key=server.keys[2], base_url=server.base_url)
        with open(corpus_clip("modelscope-t2v__blue-tiger-butterflies.mp4"), "rb") as f:
            data = f.read()
        result = client.rank.upload(data, prompt="a blue tiger among butterflies", file_name="tiger.mp4", wait=True)
        self.assertEqual(result.state, "scored")

    def test_bench_run_with_pipeline_completes(self) -> None:
        client = vesta.Vesta(api_key=server.keys[0], base_url=server.base_url)
        run = client.bench.run_with_pipeline(
            render_frames, dimensions=["subject_consistency"], run_name="py s3",
            model_id="py-s3-model", samples_per_prompt=1, prompts_per_dimension=2,
        )
        self.assertEqual(run["status"], "completed", run)
        videos = list(client.bench.all_videos(run["id"]))
        self.assertEqual(len(videos), run["progress"]["tasks_total"])
        self.assertTrue(all(v["state"] == "done" and v["scores"] for v in videos))


#: What the CLIs add when the address that cannot be reached is not the service's.
BLOB_STORE_HINT = ". That is the service\u2019s blob store (the clip goes straight to it): it must be reachable from this machine."


@unittest.skipIf(os.environ.get("VESTA_TEST_S3_ENDPOINT"), "an external S3 endpoint cannot be stopped from here")
class StoreOutage(unittest.TestCase):
    def test_an_upload_to_a_stopped_store_names_the_bucket_without_the_signature_and_counts_attempts(self) -> None:
        client = vesta.Vesta(api_key=server.keys[3], base_url=server.base_url)  # max_retries=2: 3 attempts
        client.score.get_or_create()
        clip = corpus_clip(CLIP)
        env = {"VESTA_API_KEY": server.keys[3], "VESTA_BASE_URL": server.base_url}
        server.s3("stop")
        try:
            with self.assertRaises(vesta.ApiConnectionError) as caught:
                client.score.upload(clip, prompt="a toad doing karate")
            clis = parallel([(w, ["score", "upload", clip, "--prompt", "a toad", "--json"], env) for w in ("py", "ts")])
        finally:
            server.s3("start")
        err = caught.exception
        assert server.s3_endpoint is not None
        self.assertEqual(err.attempts, 3)
        self.assertIn("after 3 attempts", str(err))
        self.assertTrue(err.url.startswith(f"{server.s3_endpoint}/"), err.url)
        self.assertNotIn("?", err.url)
        self.assertNotIn("X-Amz-", everything_shown(err))
        details: Dict[str, Dict[str, Any]] = {}
        for which, (code, out, stderr) in zip(("py", "ts"), clis):
            self.assertEqual(code, 1, f"{which}: {stderr}")
            self.assertNotIn("X-Amz-", out + stderr, which)
            body = json.loads(stderr.strip().splitlines()[-1])["error"]
            self.assertEqual(body["code"], "connection_failed", which)
            self.assertNotIn("?", body["url"], which)
            self.assertTrue(body["url"].startswith(f"{server.s3_endpoint}/"), which)
            self.assertIn("after 3 attempts", body["detail"], which)
            self.assertTrue(body["detail"].endswith(BLOB_STORE_HINT), f"{which}: {body['detail']}")
            details[which] = body
        self.assertEqual(sorted(details["py"]), sorted(details["ts"]))
        # The hint follows the address in use: the same error with the store's address as the service's.
        self.assertNotIn("--base-url", describe_error(err, server.base_url)[1]["error"]["detail"])
        self.assertIn("Set --base-url", describe_error(err, err.url)[1]["error"]["detail"])

    def test_a_runner_keeps_the_clip_while_the_store_is_down_and_sends_it_once_it_is_back(self) -> None:
        client = vesta.Vesta(api_key=server.keys[4], base_url=server.base_url)
        with open(corpus_clip(CLIP), "rb") as f:
            clip = f.read()
        generated: List[str] = []
        outage: List[threading.Timer] = []

        def pipeline(prompt: str, seed: int, context: vesta.PipelineContext) -> bytes:
            generated.append(context.task_id)
            if not outage:  # the bucket goes away before the first clip's upload, for 4 s (longer than the lease)
                server.s3("stop")
                outage.append(threading.Timer(4.0, server.s3, ("start",)))
                outage[0].start()
            return clip

        try:
            with self.assertLogs("vesta", "WARNING") as logged:
                run = client.bench.run_with_pipeline(
                    pipeline, dimensions=["subject_consistency"], run_name="py s3 outage", model_id="py-s3-outage",
                    samples_per_prompt=1, prompts_per_dimension=2,
                )
        finally:
            for restart in outage:
                restart.join()  # the store is back for the next test whatever happened
        self.assertEqual(run["status"], "completed", run)
        self.assertEqual(run["progress"]["tasks_failed"], 0)
        # Each clip was generated once: the refused uploads cost no attempt and no regeneration.
        self.assertEqual(len(generated), run["progress"]["tasks_total"])
        self.assertEqual(len(set(generated)), len(generated))
        videos = list(client.bench.all_videos(run["id"]))
        self.assertEqual([v["state"] for v in videos], ["done"] * len(videos))
        logs = [line for line in client.bench.all_logs(run["id"]) if line["source"] == "runner"]
        kept = [line for line in logs if "sending the clip again" in line["message"]]
        self.assertEqual(len(kept), 1, logs)
        self.assertEqual(kept[0]["level"], "warn")
        self.assertIn(f"Could not reach {server.s3_endpoint}/", kept[0]["message"])
        self.assertNotIn("X-Amz-", json.dumps([line.to_dict() for line in logs]))
        # Each wait is a warning of the `vesta` logger (the TypeScript runner's `retrying` event).
        self.assertTrue(all(f"upload failed (Could not reach {server.s3_endpoint}/" in o for o in logged.output), logged.output)
        self.assertNotIn("X-Amz-", " ".join(logged.output))

    def test_past_the_window_the_attempt_fails_with_the_bucket_named_and_the_task_is_retried(self) -> None:
        client = vesta.Vesta(api_key=server.keys[5], base_url=server.base_url)
        with open(corpus_clip(CLIP), "rb") as f:
            clip = f.read()
        attempts: List[int] = []
        stopped: Optional[bool] = None

        def pipeline(prompt: str, seed: int, context: vesta.PipelineContext) -> bytes:
            nonlocal stopped
            attempts.append(context.attempt)
            if context.attempt == 1:
                server.s3("stop")
                stopped = True
            elif stopped:
                server.s3("start")
                stopped = False
            return clip

        try:
            with mock.patch.object(vesta._runner, "UPLOAD_RETRY_WINDOW", 1.0):
                run = client.bench.run_with_pipeline(
                    pipeline, dimensions=["subject_consistency"], run_name="py s3 long outage",
                    model_id="py-s3-long-outage", samples_per_prompt=1, prompts_per_dimension=1,
                )
        finally:
            if stopped:
                server.s3("start")
        self.assertEqual(run["status"], "completed", run)
        self.assertEqual(attempts, [1, 2])
        messages = [line["message"] for line in client.bench.all_logs(run["id"])]
        failed = [m for m in messages if "back in the queue" in m]
        self.assertEqual(len(failed), 1, messages)
        self.assertIn(f"Could not reach {server.s3_endpoint}/", failed[0])
        self.assertIn("after 3 attempts", failed[0])
        self.assertNotIn("X-Amz-", json.dumps(messages))


if __name__ == "__main__":
    unittest.main()
