"""The Python SDK against a server whose blob store is S3 (VESTA_BLOB_STORE=s3 on a real
S3-compatible server with SigV4 checked): uploads go to the presigned bucket URL, with the clip's
size and type signed, and never through the API."""
from __future__ import annotations

import os
import unittest
from typing import Any, List
from urllib.parse import parse_qs, urlsplit

from tests.support.server import Server, corpus_clip
from tests.test_sdk import frames

import vesta

server: Server


def setUpModule() -> None:
    global server
    server = Server({"VESTA_TEST_S3": "1"}, keys=3)


def tearDownModule() -> None:
    server.stop()


CLIP = "modelscope-t2v__toad-karate.mp4"


class S3Uploads(unittest.TestCase):
    def test_upload_url_is_a_presigned_bucket_put_with_size_and_type_signed(self) -> None:
        client = vesta.Vesta(api_key=server.keys[0], base_url=server.base_url)
        run_id = client.score.get_or_create()["runId"]
        size = os.path.getsize(corpus_clip(CLIP))
        ticket = client.score.create_upload_url(
            run_id, {"fileName": CLIP, "contentType": "video/mp4", "prompt": "x", "sizeBytes": size}
        )
        assert server.s3_endpoint is not None
        self.assertTrue(ticket["uploadUrl"].startswith(server.s3_endpoint + "/"), ticket["uploadUrl"])
        query = parse_qs(urlsplit(ticket["uploadUrl"]).query)
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
            lambda prompt, seed, context: frames(seed), dimensions=["subject_consistency"], run_name="py s3",
            model_id="py-s3-model", samples_per_prompt=1, prompts_per_dimension=2,
        )
        self.assertEqual(run["status"], "completed", run)
        videos = list(client.bench.all_videos(run["id"]))
        self.assertEqual(len(videos), run["progress"]["tasks_total"])
        self.assertTrue(all(v["state"] == "done" and v["scores"] for v in videos))


if __name__ == "__main__":
    unittest.main()
