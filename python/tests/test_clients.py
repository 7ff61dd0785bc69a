"""Issue #22 against a real server: AsyncVesta's surface, cancellation and bad input; typed results;
exception families; per-call options, a timeout object, raw answers, debug logging; proxies
(a forward and CONNECT proxy written here, and a TLS endpoint with its own certificate)."""
from __future__ import annotations

import asyncio
import http.server
import logging
import os
import select
import socket
import ssl
import subprocess
import tempfile
import threading
import time
import unittest
from typing import Any, Callable, Dict, List, Tuple
from unittest import mock

from tests.support.server import FlakyProxy, Server, corpus_clip
from tests.test_sdk import frames

import vesta

server: Server
CLIP = "real__sam2-dog-walk.mp4"


def setUpModule() -> None:
    global server
    server = Server({"VESTA_RUNNER_LEASE_SECONDS": "3"}, keys=8)


def tearDownModule() -> None:
    server.stop()


def aclient(key: int, **kwargs: Any) -> vesta.AsyncVesta:
    return vesta.AsyncVesta(api_key=server.keys[key], base_url=kwargs.pop("base_url", server.base_url), **kwargs)


class Async(unittest.TestCase):
    def test_the_same_surface_awaited_upload_wait_list_and_concurrent_calls(self) -> None:
        async def main() -> Tuple[vesta.ScoredUpload, List[str], List[str], vesta.ScoreSession]:
            async with aclient(0) as client:
                result = await client.score.upload(corpus_clip(CLIP), prompt="a dog walking", wait=True)
                sessions = await asyncio.gather(*(client.score.get_or_create() for _ in range(16)))
                created = await client.bench.create("async", "py-async", ["subject_consistency"], prompts_per_dimension=1)
                runs = [run.id async for run in client.bench.list(limit=1)]
                await client.bench.cancel(created.id)
                runs.append(created.id)
                dims = [d.id for d in (await client.dimensions.list()).items]
                session = await client.score.get_or_create()
                # #24 item 7, awaited: one clip removed, the session keeps its run id.
                extra = await client.score.upload(corpus_clip(CLIP), prompt="a dog walking")
                await client.score.remove_video(extra.video_id)
                after = await client.score.get_or_create()
                assert after.run_id == session.run_id
                assert [v.video_id for v in after.videos] == [v.video_id for v in session.videos]
                return result, runs, dims, sessions[0]

        vesta_sync = vesta.Vesta(api_key=server.keys[0], base_url=server.base_url)
        vesta_sync.runners.register("async-model-owner", ["py-async"])
        result, runs, dims, session = asyncio.run(main())
        self.assertEqual(result.state, "scored")
        scores = {s.dimension: s.value for s in result.video.scores}  # video is present: no None check
        self.assertTrue(0.0 < scores["subject_consistency"] <= 1.0)
        self.assertEqual(runs[0], runs[-1])  # the run just created, through the async iterator
        self.assertIn("subject_consistency", dims)
        self.assertEqual(session.run_id, result.run_id)
        self.assertEqual(session.to_dict(), vesta_sync.score.get_or_create().to_dict())
        for r in vesta_sync.runners.list().items:
            vesta_sync.runners.deregister(r.id)

    def test_run_with_pipeline_async_and_blocking_callables_never_block_the_loop(self) -> None:
        ticks: List[float] = []
        seen: List[str] = []

        async def render(prompt: str, seed: int) -> List[vesta.Frame]:
            await asyncio.sleep(0.05)
            seen.append("async")
            return frames(seed)

        def blocking(prompt: str, seed: int, context: vesta.PipelineContext) -> List[vesta.Frame]:
            time.sleep(1.0)  # a GPU call holding its thread
            seen.append("blocking")
            return frames(seed)

        async def ticker(stop: asyncio.Event) -> None:
            while not stop.is_set():
                ticks.append(time.monotonic())
                await asyncio.sleep(0.05)

        async def main() -> List[vesta.BenchRun]:
            stop = asyncio.Event()
            tick = asyncio.ensure_future(ticker(stop))
            async with aclient(1) as client:
                out: List[vesta.BenchRun] = []
                pipelines: List[Callable[..., Any]] = [render, blocking]
                for fn in pipelines:
                    out.append(await client.bench.run_with_pipeline(
                        fn, dimensions=["subject_consistency"], run_name=f"async {fn.__name__}", model_id="py-async-pipe",
                        samples_per_prompt=1, prompts_per_dimension=1,
                    ))
            stop.set()
            await tick
            return out

        runs = asyncio.run(main())
        self.assertEqual([r.status for r in runs], ["completed", "completed"])
        self.assertEqual(seen, ["async", "blocking"])
        gaps = [b - a for a, b in zip(ticks, ticks[1:])]
        self.assertLess(max(gaps), 0.5, "the event loop was blocked")  # the blocking callable ran in a thread

    def test_cancelling_run_with_pipeline_hands_the_task_back_and_cancels_the_run(self) -> None:
        started = threading.Event()
        run_ids: List[str] = []

        async def slow(prompt: str, seed: int, context: vesta.PipelineContext) -> bytes:
            run_ids.append(context.run_id)
            started.set()
            await asyncio.sleep(60)
            return b""

        async def main() -> None:
            async with aclient(2) as client:
                task = asyncio.ensure_future(client.bench.run_with_pipeline(
                    slow, dimensions=["subject_consistency"], run_name="async cancel", model_id="py-async-cancel",
                    samples_per_prompt=1, prompts_per_dimension=1,
                ))
                while not started.is_set():
                    await asyncio.sleep(0.05)
                task.cancel()
                with self.assertRaises(asyncio.CancelledError):
                    await task

        asyncio.run(main())
        client = vesta.Vesta(api_key=server.keys[2], base_url=server.base_url)
        run = client.bench.get(run_ids[0])
        self.assertEqual(run.status, "cancelled")
        self.assertEqual(client.runners.list().items, [])
        logs = " | ".join(line.message for line in client.bench.all_logs(run.id))
        self.assertIn("interrupted before the clip was finished; handed back", logs)

    def test_a_cancelled_upload_drops_its_connection_and_confirms_nothing(self) -> None:
        data = os.urandom(64 * 1024 * 1024)
        phases: List[str] = []

        async def main() -> None:
            async with aclient(3) as client:
                tasks: List["asyncio.Future[vesta.UploadResult]"] = []

                def progress(event: Dict[str, Any]) -> None:
                    phases.append(event["phase"])
                    if event["phase"] == "upload" and len(phases) == 1:
                        tasks[0].cancel()  # 1 MiB of 64 sent: the caller gives up

                tasks.append(asyncio.ensure_future(client.score.upload(data, prompt="p", content_type="video/mp4", progress=progress)))
                with self.assertRaises(asyncio.CancelledError):
                    await tasks[0]

        asyncio.run(main())
        self.assertNotIn("confirm", phases)
        client = vesta.Vesta(api_key=server.keys[3], base_url=server.base_url)
        videos = client.score.get_or_create().videos
        self.assertEqual([v.state for v in videos], ["awaiting_upload"])  # nothing stored or scored
        with self.assertRaises(vesta.ApiError):
            client.videos.content(videos[0].video_id)

    def test_bad_input_closed_client_timeouts_and_unknown_options(self) -> None:
        async def main() -> None:
            client = aclient(4)
            await client.aclose()
            with self.assertRaises(vesta.ClientClosedError) as closed:
                await client.score.get_or_create()
            self.assertIsInstance(closed.exception, RuntimeError)
            self.assertEqual(closed.exception.code, "client_closed")
            async with aclient(4) as open_client:
                for bad in (0, -1.5):
                    with self.assertRaises(vesta.InvalidArgumentError) as caught:
                        await open_client.score.get_or_create(timeout=bad)
                    self.assertEqual(caught.exception.argument, "timeout")
                with self.assertRaises(TypeError) as unknown:
                    await open_client.bench.get("x", retries=3)  # type: ignore[call-arg]
                self.assertIn("retries", str(unknown.exception))

        asyncio.run(main())
        for bad in (0, -1):
            with self.assertRaises(vesta.InvalidArgumentError):
                vesta.Vesta(api_key="k", base_url=server.base_url, timeout=bad)
            with self.assertRaises(vesta.InvalidArgumentError):
                vesta.Timeout(60.0, connect=bad)
        with self.assertRaises(TypeError) as unknown:
            vesta.Vesta(api_key="k", base_url=server.base_url).bench.list_page(pages=2)  # type: ignore[call-arg]
        self.assertIn("pages", str(unknown.exception))
        closed_sync = vesta.Vesta(api_key="k", base_url=server.base_url)
        closed_sync.close()
        with self.assertRaises(vesta.ClientClosedError):
            closed_sync.dimensions.list()


class TypedResultsAndErrors(unittest.TestCase):
    def test_results_have_snake_case_attributes_and_keep_the_apis_json(self) -> None:
        client = vesta.Vesta(api_key=server.keys[5], base_url=server.base_url)
        client.runners.register("typed", ["py-typed"])
        run = client.bench.create("typed", "py-typed", ["subject_consistency"], samples_per_prompt=1, prompts_per_dimension=1)
        self.assertIsInstance(run, vesta.BenchRun)
        self.assertEqual(run.model_id, "py-typed")
        self.assertEqual(run.progress.tasks_total, run.to_dict()["progress"]["tasks_total"])
        self.assertIn("model_id='py-typed'", repr(run))
        self.assertEqual(run.http_response.status if run.http_response else None, 201)
        session = client.score.get_or_create()
        self.assertTrue({"runId", "createdAt", "videos"} <= set(session.to_dict()), session.to_dict())  # the API's names
        self.assertEqual(session.run_id, session.to_dict()["runId"])
        self.assertEqual(client.bench.get(run.id), client.bench.get(run.id))
        client.bench.cancel(run.id)
        for r in client.runners.list().items:
            client.runners.deregister(r.id)

    def test_exception_families_by_status(self) -> None:
        client = vesta.Vesta(api_key=server.keys[5], base_url=server.base_url)
        with self.assertRaises(vesta.NotFoundError) as missing:
            client.bench.get("bench_missing")
        self.assertEqual((missing.exception.status, missing.exception.code), (404, "not_found"))
        self.assertTrue(missing.exception.request_id)
        with self.assertRaises(vesta.BadRequestError) as bad:
            client.bench.create("x", "no-such-model", ["subject_consistency"])
        self.assertIsInstance(bad.exception, vesta.ValidationFailedError)
        with self.assertRaises(vesta.AuthenticationError) as unauth:
            vesta.Vesta(api_key="vk_wrong_key_0000", base_url=server.base_url).score.get_or_create()
        self.assertIsInstance(unauth.exception, vesta.UnauthorizedError)
        families: List[Tuple[type, type]] = [
            (vesta.IdempotencyMismatchError, vesta.ConflictError), (vesta.RateLimitedError, vesta.RateLimitError),
            (vesta.UpstreamUnavailableError, vesta.InternalServerError), (vesta.ForbiddenError, vesta.PermissionDeniedError),
            (vesta.ApiTimeoutError, vesta.ApiConnectionError),
        ]
        for child, parent in families:
            self.assertTrue(issubclass(child, parent), child)
        # A code this release does not know: the class of its status family.
        proxy = FlakyProxy(server.base_url, failures=1, status=503, match="/api/v1/dimensions")
        try:
            with self.assertRaises(vesta.InternalServerError) as family:
                vesta.Vesta(api_key=server.keys[5], base_url=proxy.base_url, max_retries=0).dimensions.list()
            self.assertEqual(family.exception.status, 503)
        finally:
            proxy.stop()


class Options(unittest.TestCase):
    def test_per_call_retries_headers_with_options_raw_answers_and_logging(self) -> None:
        proxy = FlakyProxy(server.base_url, failures=2, status=503, match="/api/v1/dimensions", retry_after="0")
        try:
            client = vesta.Vesta(api_key=server.keys[6], base_url=proxy.base_url, max_retries=0)
            with self.assertRaises(vesta.UpstreamUnavailableError):
                client.dimensions.list()  # the client's 0 retries
            self.assertTrue(client.dimensions.list(max_retries=3, extra_headers={"X-Trace": "t-1"}).items)  # this call's 3
            dims = [r for r in proxy.seen if r["path"] == "/api/v1/dimensions"]
            self.assertEqual([r["failed"] for r in dims], [True, True, False])
            self.assertEqual(dims[-1]["headers"].get("X-Trace"), "t-1")
            patient = client.with_options(max_retries=5, default_headers={"X-Team": "gen"})
            self.assertEqual((patient.max_retries, client.max_retries), (5, 0))
            self.assertIs(patient._transport, client._transport)  # pyright: ignore[reportPrivateUsage]  # the same connections
            patient.models.list()
            self.assertEqual(proxy.seen[-1]["headers"].get("X-Team"), "gen")
            raw = client.request("GET", "/api/v1/score")
            self.assertEqual(raw.status, 200)
            self.assertTrue(raw.request_id)
            self.assertEqual(raw.json()["runId"], client.score.get_or_create().run_id)
            with self.assertLogs("vesta", logging.DEBUG) as logged:
                client.score.get_or_create()
            line = " ".join(logged.output)
            self.assertIn(f"GET {proxy.base_url}/api/v1/score -> 200 in", line)
            self.assertNotIn(server.keys[6], line)
        finally:
            proxy.stop()

    def test_a_timeout_object_read_timeout_is_an_api_timeout_error(self) -> None:
        proxy = FlakyProxy(server.base_url, failures=1, status=0, match="/api/v1/models", hold=3.0)
        try:
            client = vesta.Vesta(api_key=server.keys[6], base_url=proxy.base_url, max_retries=0,
                                 timeout=vesta.Timeout(30.0, read=0.5))
            started = time.monotonic()
            with self.assertRaises(vesta.ApiTimeoutError) as caught:
                client.models.list()
            self.assertLess(time.monotonic() - started, 2.5)
            self.assertEqual((caught.exception.phase, caught.exception.timeout), ("read", 0.5))
            self.assertIsInstance(caught.exception, vesta.ApiConnectionError)

            async def main() -> str:
                async with vesta.AsyncVesta(api_key=server.keys[6], base_url=proxy.base_url, max_retries=0) as a:
                    proxy.remaining = 1
                    try:
                        await a.models.list(timeout=vesta.Timeout(30.0, read=0.5))
                    except vesta.ApiTimeoutError as err:
                        return err.phase
                    return "answered"

            self.assertEqual(asyncio.run(main()), "read")
        finally:
            proxy.stop()


class TunnelProxy:
    """A forward proxy (absolute-form requests) with CONNECT tunnels, as squid answers them."""

    def __init__(self) -> None:
        self.seen: List[str] = []
        proxy = self

        class Handler(http.server.BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, format: str, *args: Any) -> None:  # noqa: A002
                pass

            def do_CONNECT(self) -> None:  # noqa: N802
                proxy.seen.append(f"CONNECT {self.path}")
                host, _, port = self.path.rpartition(":")
                upstream = socket.create_connection((host, int(port)))
                self.send_response(200, "Connection established")
                self.end_headers()
                pump(self.connection, upstream)
                self.close_connection = True

            def forward(self) -> None:
                proxy.seen.append(f"{self.command} {self.path}")
                from urllib.parse import urlsplit

                target = urlsplit(self.path)
                length = int(self.headers.get("Content-Length") or 0)
                body = self.rfile.read(length) if length else b""
                upstream = socket.create_connection((target.hostname or "", target.port or 80))
                lines = [f"{self.command} {target.path}{'?' + target.query if target.query else ''} HTTP/1.1"]
                lines += [f"{k}: {v}" for k, v in self.headers.items() if k.lower() not in ("proxy-connection", "connection")]
                lines.append("Connection: close")
                upstream.sendall(("\r\n".join(lines) + "\r\n\r\n").encode("latin-1") + body)
                answer = b""
                while True:
                    chunk = upstream.recv(65536)
                    if not chunk:
                        break
                    answer += chunk
                upstream.close()
                self.wfile.write(answer)
                self.close_connection = True

            do_GET = do_POST = do_PUT = do_DELETE = forward

        self.httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.httpd.server_address[1]}"
        threading.Thread(target=self.httpd.serve_forever, daemon=True).start()

    def stop(self) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()


def pump(a: socket.socket, b: socket.socket) -> None:
    """Copies bytes both ways until either side closes."""
    sockets = [a, b]
    try:
        while True:
            readable, _, _ = select.select(sockets, [], [], 30)
            if not readable:
                return
            for s in readable:
                data = s.recv(65536)
                if not data:
                    return
                (b if s is a else a).sendall(data)
    finally:
        b.close()


class TlsFront:
    """https://127.0.0.1:PORT in front of the server: TLS with a certificate made here, bytes passed on."""

    def __init__(self, upstream_port: int, tmp: str) -> None:
        cert, keyfile = os.path.join(tmp, "cert.pem"), os.path.join(tmp, "key.pem")
        subprocess.run(["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "1", "-subj", "/CN=127.0.0.1",
                        "-addext", "subjectAltName=IP:127.0.0.1", "-keyout", keyfile, "-out", cert],
                       check=True, capture_output=True)
        self.cert = cert
        context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        context.load_cert_chain(cert, keyfile)
        self.listener = socket.socket()
        self.listener.bind(("127.0.0.1", 0))
        self.listener.listen(16)
        self.port = int(self.listener.getsockname()[1])
        self.upstream_port = upstream_port
        self.context = context
        threading.Thread(target=self._accept, daemon=True).start()

    def _accept(self) -> None:
        while True:
            try:
                raw, _ = self.listener.accept()
            except OSError:
                return
            threading.Thread(target=self._serve, args=(raw,), daemon=True).start()

    def _serve(self, raw: socket.socket) -> None:
        try:
            tls = self.context.wrap_socket(raw, server_side=True)
        except (ssl.SSLError, OSError):
            raw.close()
            return
        pump(tls, socket.create_connection(("127.0.0.1", self.upstream_port)))

    def stop(self) -> None:
        self.listener.close()


class Proxies(unittest.TestCase):
    def test_http_proxy_https_proxy_connect_and_no_proxy_are_honoured_by_both_clients(self) -> None:
        proxy = TunnelProxy()
        port = int(server.base_url.rsplit(":", 1)[1])
        with tempfile.TemporaryDirectory() as tmp:
            front = TlsFront(port, tmp)
            trusted = ssl.create_default_context(cafile=front.cert)
            https_url = f"https://127.0.0.1:{front.port}"
            env = {"HTTP_PROXY": proxy.url, "HTTPS_PROXY": proxy.url, "NO_PROXY": ""}
            try:
                with mock.patch.dict(os.environ, env):
                    sync_http = vesta.Vesta(api_key=server.keys[7], base_url=server.base_url)
                    self.assertTrue(sync_http.dimensions.list().items)
                    sync_https = vesta.Vesta(api_key=server.keys[7], base_url=https_url, ssl_context=trusted)
                    self.assertTrue(sync_https.score.get_or_create().run_id)

                    async def main() -> None:
                        async with vesta.AsyncVesta(api_key=server.keys[7], base_url=server.base_url) as a:
                            await a.models.list()
                        async with vesta.AsyncVesta(api_key=server.keys[7], base_url=https_url, ssl_context=trusted) as b:
                            await b.score.get_or_create()

                    asyncio.run(main())
                self.assertIn(f"GET {server.base_url}/api/v1/dimensions", proxy.seen)
                self.assertIn(f"GET {server.base_url}/api/v1/models", proxy.seen)
                self.assertEqual(proxy.seen.count(f"CONNECT 127.0.0.1:{front.port}"), 2, proxy.seen)
                before = len(proxy.seen)
                with mock.patch.dict(os.environ, {**env, "NO_PROXY": "127.0.0.1"}):
                    vesta.Vesta(api_key=server.keys[7], base_url=server.base_url).dimensions.list()
                self.assertEqual(len(proxy.seen), before)  # went straight to the server
            finally:
                front.stop()
                proxy.stop()


if __name__ == "__main__":
    unittest.main()
