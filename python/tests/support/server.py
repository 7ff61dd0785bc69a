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
import time
import unittest
import urllib.error
import urllib.request
from typing import Any, Dict, List, Optional, Tuple
from urllib.parse import urlsplit

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
    ``match`` with ``status`` (or drops the connection when status is 0), then forwards. ``hold``:
    a failing request gets no answer for that many seconds first (a hung service)."""

    def __init__(self, upstream: str, failures: int, status: int = 503, match: str = "", method: Optional[str] = None,
                 retry_after: Optional[str] = None, cut_body: bool = False, port: int = 0, hold: float = 0.0) -> None:
        self.upstream = upstream.rstrip("/")
        self.remaining = failures
        self.status = status
        self.match = match
        self.method = method
        self.retry_after = retry_after
        self.cut_body = cut_body
        self.hold = hold
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
                    entry: Dict[str, Any] = {"method": self.command, "path": self.path, "headers": dict(self.headers),
                                             "failed": fail, "at": time.monotonic()}
                    proxy.seen.append(entry)
                if fail and proxy.cut_body and length:
                    self.rfile.read(min(length, 1024))  # read a little, then drop the connection mid-upload
                    self.close_connection = True
                    self.connection.shutdown(socket.SHUT_RDWR)
                    return
                body = self.rfile.read(length) if length else b""
                if fail and proxy.hold:
                    time.sleep(proxy.hold)  # the client may give up meanwhile
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


class CutProxy:
    """A TCP proxy in front of the server that a test cuts and restores, as an api process that
    restarts: :meth:`cut` closes every open connection and the port then refuses new ones;
    :meth:`restore` listens on the same port again. Bytes pass through untouched."""

    def __init__(self, upstream: str) -> None:
        parts = urlsplit(upstream)
        self.upstream: Tuple[str, int] = (parts.hostname or "127.0.0.1", parts.port or 80)
        self.port = 0
        self._lock = threading.Lock()
        self._sockets: "set[socket.socket]" = set()
        self._listener: Optional[socket.socket] = None
        self.restore()
        self.base_url = f"http://127.0.0.1:{self.port}"

    def restore(self) -> None:
        listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)  # the cut connections' TIME_WAIT
        listener.bind(("127.0.0.1", self.port))
        listener.listen(64)
        listener.settimeout(0.1)
        self.port = int(listener.getsockname()[1])
        with self._lock:
            self._listener = listener
        threading.Thread(target=self._accept, args=(listener,), daemon=True).start()

    def cut(self) -> None:
        with self._lock:
            listener, self._listener = self._listener, None
            sockets, self._sockets = list(self._sockets), set()
        if listener is not None:
            listener.close()
        for sock in sockets:
            try:
                sock.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass
            sock.close()

    stop = cut

    def _accept(self, listener: socket.socket) -> None:
        while True:
            with self._lock:
                if self._listener is not listener:
                    return
            try:
                client, _ = listener.accept()
            except socket.timeout:
                continue
            except OSError:
                return
            try:
                upstream = socket.create_connection(self.upstream, timeout=5)
            except OSError:
                client.close()
                continue
            client.settimeout(None)
            upstream.settimeout(None)
            with self._lock:
                if self._listener is not listener:  # cut meanwhile
                    client.close()
                    upstream.close()
                    return
                self._sockets.update((client, upstream))
            threading.Thread(target=self._pump, args=(client, upstream), daemon=True).start()
            threading.Thread(target=self._pump, args=(upstream, client), daemon=True).start()

    def _pump(self, src: socket.socket, dst: socket.socket) -> None:
        try:
            while True:
                data = src.recv(65536)
                if not data:
                    break
                dst.sendall(data)
        except OSError:
            pass
        try:
            dst.shutdown(socket.SHUT_WR)
        except OSError:
            pass
