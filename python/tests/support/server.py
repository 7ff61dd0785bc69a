"""Starts the real Vesta server (tests/support/server.mjs) for a test module, and a retrying proxy."""
from __future__ import annotations

import http.server
import json
import os
import shutil
import socket
import subprocess
import sys
import threading
import unittest
import urllib.error
import urllib.request
from typing import Any, Dict, List, Optional

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.abspath(os.path.join(HERE, "..", "..", ".."))
_CANDIDATES = [
    os.environ.get("VESTA_CORPUS_DIR") or "",
    os.path.abspath(os.path.join(REPO, "..", "shared", "corpus")),
    os.path.abspath(os.path.join(REPO, "..", "..", "shared", "corpus")),
    "/work/shared/corpus",
]
CORPUS = next((c for c in _CANDIDATES if c and os.path.isdir(c)), "/work/shared/corpus")

sys.path.insert(0, os.path.join(REPO, "python"))


def corpus_clip(name: str) -> str:
    path = os.path.join(CORPUS, name)
    if not os.path.isfile(path):
        raise unittest.SkipTest(f"corpus clip {path} is missing")
    return path


class Server:
    def __init__(self, env: Optional[Dict[str, str]] = None, keys: int = 3) -> None:
        node = shutil.which("node")
        if node is None:
            raise RuntimeError("node is needed to start the Vesta server for the Python tests")
        self.proc = subprocess.Popen(
            [node, os.path.join(HERE, "server.mjs"), json.dumps(env or {})],
            cwd=REPO,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            env={**os.environ, "VESTA_TEST_KEYS": str(keys)},
        )
        assert self.proc.stdout is not None
        line = self.proc.stdout.readline()
        if not line:
            self.proc.wait(timeout=10)
            raise RuntimeError(f"the test server did not start (exit {self.proc.returncode})")
        info = json.loads(line)
        self.base_url: str = info["baseUrl"]
        self.keys: List[str] = info["keys"]
        # With {"VESTA_TEST_S3": "1"}: the S3-compatible server the blob store uses.
        self.s3_endpoint: Optional[str] = info.get("s3Endpoint")
        self._control = threading.Lock()

    def s3(self, command: str) -> None:
        """``"stop"`` stops the S3 server (its port then refuses connections); ``"start"`` starts it
        again on the same port. Needs ``{"VESTA_TEST_S3": "1"}``."""
        assert self.proc.stdin is not None and self.proc.stdout is not None
        with self._control:
            self.proc.stdin.write(f"s3 {command}\n".encode())
            self.proc.stdin.flush()
            reply = json.loads(self.proc.stdout.readline() or b'{"error": "the test server exited"}')
        if "error" in reply:
            raise RuntimeError(f"s3 {command}: {reply['error']}")

    def stop(self) -> None:
        if self.proc.stdin:
            self.proc.stdin.close()
        try:
            self.proc.wait(timeout=20)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
        if self.proc.stdout:
            self.proc.stdout.close()


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


class FlakyProxy:
    """A real HTTP proxy in front of the server: answers the first ``failures`` requests matching
    ``match`` with ``status`` (or drops the connection when status is 0), then forwards."""

    def __init__(self, upstream: str, failures: int, status: int = 503, match: str = "", method: Optional[str] = None,
                 retry_after: Optional[str] = None, cut_body: bool = False, port: int = 0) -> None:
        self.upstream = upstream.rstrip("/")
        self.remaining = failures
        self.status = status
        self.match = match
        self.method = method
        self.retry_after = retry_after
        self.cut_body = cut_body
        self.seen: List[Dict[str, Any]] = []
        self.lock = threading.Lock()
        proxy = self

        class Handler(http.server.BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, format: str, *args: Any) -> None:  # noqa: A002
                pass

            def _handle(self) -> None:
                length = int(self.headers.get("Content-Length") or 0)
                with proxy.lock:
                    fail = (
                        proxy.remaining > 0
                        and proxy.match in self.path
                        and (proxy.method is None or proxy.method == self.command)
                    )
                    if fail:
                        proxy.remaining -= 1
                    entry: Dict[str, Any] = {"method": self.command, "path": self.path, "headers": dict(self.headers), "failed": fail}
                    proxy.seen.append(entry)
                if fail and proxy.cut_body and length:
                    self.rfile.read(min(length, 1024))  # read a little, then drop the connection mid-upload
                    self.close_connection = True
                    self.connection.shutdown(socket.SHUT_RDWR)
                    return
                body = self.rfile.read(length) if length else b""
                if fail:
                    if proxy.status == 0:
                        self.close_connection = True
                        self.connection.shutdown(socket.SHUT_RDWR)
                        return
                    payload = json.dumps({"code": "upstream_unavailable", "detail": "proxy says no", "requestId": "proxy"}).encode()
                    self.send_response(proxy.status)
                    self.send_header("Content-Type", "application/json")
                    self.send_header("Content-Length", str(len(payload)))
                    if proxy.retry_after is not None:
                        self.send_header("Retry-After", proxy.retry_after)
                    self.end_headers()
                    self.wfile.write(payload)
                    return
                headers = {k: v for k, v in self.headers.items() if k.lower() not in ("host", "connection", "content-length")}
                req = urllib.request.Request(proxy.upstream + self.path, data=body if body else None,
                                             method=self.command, headers=headers)
                try:
                    res = urllib.request.urlopen(req, timeout=60)
                    status, data, rh = res.status, res.read(), res.headers
                except urllib.error.HTTPError as err:
                    status, data, rh = err.code, err.read(), err.headers
                entry["status"] = status
                entry["retry_after"] = rh.get("Retry-After")
                self.send_response(status)
                for k, v in rh.items():
                    if k.lower() not in ("connection", "content-length", "transfer-encoding", "keep-alive", "date"):
                        self.send_header(k, v)
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            do_GET = do_POST = do_PUT = do_DELETE = _handle

        self.httpd = http.server.ThreadingHTTPServer(("127.0.0.1", port), Handler)
        self.base_url = f"http://127.0.0.1:{self.httpd.server_address[1]}"
        self.thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)
        self.thread.start()

    def stop(self) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()
