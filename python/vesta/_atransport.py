"""The asyncio transport of ``vesta.AsyncVesta``: HTTP/1.1 over asyncio streams, standard library
only, with a pool of kept-alive connections per host and proxy (any number in flight at once).

Why streams rather than ``http.client`` in a thread pool: a cancelled task aborts its connection at
once (an upload PUT stops mid-body, the server drops the partial bytes), nothing keeps running
in a thread after the caller has gone, and 16 or 100 calls in flight cost 16 or 100 sockets, not
threads. docs/python.md › "AsyncVesta" has the measurements. Like the blocking transport it
returns a :class:`TransportFailure` for a network failure instead of raising.
"""
from __future__ import annotations

import asyncio
import socket
import ssl
import time
from typing import Dict, List, Optional, Tuple
from urllib.parse import urlsplit

from ._core import CHUNK, Body, Outcome, Request, Response, TransportFailure, log_exchange
from ._exceptions import ClientClosedError
from ._proxy import Proxy, environment, proxy_for, target

PoolKey = Tuple[str, str, Optional[Tuple[str, int]]]
#: The longest answer head (status line and headers) read.
HEAD_LIMIT = 1 << 20
#: Idle connections kept per host.
MAX_IDLE = 64


class _Connection:
    __slots__ = ("reader", "writer")

    def __init__(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self.reader = reader
        self.writer = writer

    def usable(self) -> bool:
        return not self.reader.at_eof() and not self.writer.is_closing()

    def abort(self) -> None:
        self.writer.transport.abort()


class _Watch:
    """A phase's timeout without ``asyncio.wait_for`` (which, before Python 3.12, can swallow a
    cancellation that arrives as the awaited step ends): a timer that aborts the connection when
    a read or a write waits too long; the aborted step then fails and the phase is known."""

    __slots__ = ("conn", "fired", "_handle", "_loop")

    def __init__(self, conn: _Connection) -> None:
        self.conn = conn
        self.fired: Optional[str] = None
        self._handle: Optional[asyncio.TimerHandle] = None
        self._loop = asyncio.get_running_loop()

    def arm(self, seconds: float, phase: str) -> None:
        if self._handle is not None:
            self._handle.cancel()
        self._handle = self._loop.call_later(seconds, self._fire, phase)

    def _fire(self, phase: str) -> None:
        self.fired = phase
        self.conn.abort()

    def disarm(self) -> None:
        if self._handle is not None:
            self._handle.cancel()
            self._handle = None


class _Cut(Exception):
    """A kept-alive connection the server had closed: worth one fresh connection."""


class AsyncTransport:
    def __init__(self, ssl_context: Optional[ssl.SSLContext] = None) -> None:
        self._ssl = ssl_context
        self._proxies = environment()
        self._idle: Dict[PoolKey, List[_Connection]] = {}
        self._loop: Optional[asyncio.AbstractEventLoop] = None
        self.closed = False

    def _context(self) -> ssl.SSLContext:
        if self._ssl is None:
            self._ssl = ssl.create_default_context()
        return self._ssl

    async def aclose(self) -> None:
        """Closes the idle connections; calls after it raise ClientClosedError."""
        self.closed = True
        idle, self._idle = self._idle, {}
        for conns in idle.values():
            for conn in conns:
                conn.writer.close()

    def _take(self, key: PoolKey) -> Optional[_Connection]:
        loop = asyncio.get_running_loop()
        if self._loop is not loop:  # connections belong to the loop that opened them
            for conns in self._idle.values():
                for conn in conns:
                    conn.abort()
            self._idle = {}
            self._loop = loop
        conns = self._idle.get(key)
        while conns:
            conn = conns.pop()
            if conn.usable():
                return conn
            conn.abort()
        return None

    def _give_back(self, key: PoolKey, conn: _Connection) -> None:
        conns = self._idle.setdefault(key, [])
        if self.closed or len(conns) >= MAX_IDLE or asyncio.get_running_loop() is not self._loop:
            conn.writer.close()
        else:
            conns.append(conn)

    async def _open(self, scheme: str, host: str, port: int, proxy: Optional[Proxy]) -> _Connection:
        tls = self._context() if scheme == "https" else None
        if proxy is None:
            reader, writer = await asyncio.open_connection(host, port, ssl=tls, server_hostname=host if tls else None, limit=HEAD_LIMIT)
            return _Connection(reader, writer)
        if tls is None:  # an http URL: the proxy forwards the request itself
            reader, writer = await asyncio.open_connection(proxy.host, proxy.port, limit=HEAD_LIMIT)
            return _Connection(reader, writer)
        # An https URL: a CONNECT tunnel through the proxy, then TLS with the host inside it.
        loop = asyncio.get_running_loop()
        infos = await loop.getaddrinfo(proxy.host, proxy.port, type=socket.SOCK_STREAM)
        family, kind, proto, _, address = infos[0]
        sock = socket.socket(family, kind, proto)
        try:
            sock.setblocking(False)
            await loop.sock_connect(sock, address)
            lines = [f"CONNECT {host}:{port} HTTP/1.1", f"Host: {host}:{port}"]
            lines += [f"{k}: {v}" for k, v in proxy.headers().items()]
            await loop.sock_sendall(sock, ("\r\n".join(lines) + "\r\n\r\n").encode("latin-1"))
            head = b""
            while b"\r\n\r\n" not in head:
                chunk = await loop.sock_recv(sock, 4096)
                if not chunk or len(head) > HEAD_LIMIT:
                    raise ConnectionError("the proxy closed the connection during CONNECT")
                head += chunk
            first = head.split(b"\r\n", 1)[0]
            status = first.split(b" ", 2)
            if len(status) < 2 or status[1] != b"200":
                raise ConnectionError(f"the proxy refused CONNECT {host}:{port}: {first.decode('latin-1')}")
            reader, writer = await asyncio.open_connection(sock=sock, ssl=tls, server_hostname=host, limit=HEAD_LIMIT)
        except BaseException:
            sock.close()
            raise
        return _Connection(reader, writer)

    async def send(self, request: Request) -> Outcome:
        if self.closed:
            raise ClientClosedError("AsyncVesta client")
        started = time.monotonic()
        outcome = await self._send(request)
        log_exchange(request, outcome, time.monotonic() - started)
        return outcome

    async def _send(self, request: Request) -> Outcome:
        parts = urlsplit(request.url)
        scheme = parts.scheme
        host, port = target(scheme, parts.netloc)
        proxy = proxy_for(self._proxies, scheme, host, port)
        key: PoolKey = (scheme, parts.netloc, None if proxy is None else (proxy.host, proxy.port))
        path = (parts.path or "/") + (f"?{parts.query}" if parts.query else "")
        forward = proxy is not None and scheme == "http"
        lines = [f"{request.method} {f'{scheme}://{parts.netloc}{path}' if forward else path} HTTP/1.1", f"Host: {parts.netloc}"]
        if forward:
            assert proxy is not None
            lines += [f"{k}: {v}" for k, v in proxy.headers().items()]
        lines += [f"{k}: {v}" for k, v in request.headers.items()]
        body = request.body
        if isinstance(body, Body):
            lines.append(f"Content-Length: {body.length}")
        elif body is not None:
            lines.append(f"Content-Length: {len(body)}")
        elif request.method in ("POST", "PUT"):
            lines.append("Content-Length: 0")
        head = ("\r\n".join(lines) + "\r\n\r\n").encode("latin-1")
        timeout = request.timeout
        for fresh_try in range(2):
            conn = self._take(key)
            reused = conn is not None
            phase = "connect"
            watch: Optional[_Watch] = None
            try:
                if conn is None:
                    conn = await self._connect(scheme, host, port, proxy, timeout.connect)
                watch = _Watch(conn)
                phase = "write"
                await self._write(conn, watch, head, body, timeout.write)
                phase = "read"
                response, keep = await self._read(conn, watch, request, timeout.read)
            except asyncio.TimeoutError as err:  # the connection was not opened in time
                return TransportFailure(err, phase)
            except (_Cut, asyncio.IncompleteReadError, OSError, ValueError, asyncio.LimitOverrunError) as err:
                if conn is not None:
                    conn.abort()
                if watch is not None and watch.fired is not None:
                    return TransportFailure(asyncio.TimeoutError(), watch.fired)
                if reused and fresh_try == 0 and phase != "connect" and isinstance(err, (_Cut, asyncio.IncompleteReadError, ConnectionError)):
                    continue  # a kept-alive connection the server had closed: one fresh connection
                return TransportFailure(ConnectionResetError(str(err)) if isinstance(err, _Cut) else err)
            except BaseException:
                # Cancelled (or interrupted) mid-exchange: the connection is dropped at once, so an
                # upload stops mid-body and the server discards what it got.
                if conn is not None:
                    conn.abort()
                raise
            finally:
                if watch is not None:
                    watch.disarm()
            if keep:
                self._give_back(key, conn)
            else:
                conn.writer.close()
            return response
        raise AssertionError("unreachable")

    async def _connect(self, scheme: str, host: str, port: int, proxy: Optional[Proxy], timeout: float) -> _Connection:
        """Opens a connection within ``timeout`` (asyncio.TimeoutError otherwise); a cancellation
        arriving meanwhile closes what was opened."""
        opening = asyncio.ensure_future(self._open(scheme, host, port, proxy))
        try:
            done, _ = await asyncio.wait({opening}, timeout=timeout)
        except BaseException:
            opening.cancel()
            if opening.done() and not opening.cancelled() and opening.exception() is None:
                opening.result().abort()
            raise
        if not done:
            opening.cancel()
            raise asyncio.TimeoutError()
        return opening.result()

    @staticmethod
    async def _write(conn: _Connection, watch: _Watch, head: bytes, body: "bytes | Body | None", timeout: float) -> None:
        writer = conn.writer
        if body is None or isinstance(body, bytes):
            writer.write(head + body if body else head)
            watch.arm(timeout, "write")
            await writer.drain()
            return
        writer.write(head)
        body.rewind()
        sent = 0
        while sent < body.length:
            chunk = body.read(sent)
            writer.write(chunk)
            watch.arm(timeout, "write")
            await writer.drain()
            sent += len(chunk)
            body.sent(sent)
            await asyncio.sleep(0)  # a cancellation lands between chunks even when drain never waits

    @staticmethod
    async def _read(conn: _Connection, watch: _Watch, request: Request, timeout: float) -> Tuple[Response, bool]:
        reader = conn.reader
        try:
            watch.arm(timeout, "read")
            raw = await reader.readuntil(b"\r\n\r\n")
        except asyncio.IncompleteReadError as err:
            if not err.partial:
                raise _Cut("the server closed the connection before answering") from None
            raise
        lines = raw.decode("latin-1").split("\r\n")
        status_line = lines[0].split(" ", 2)
        if len(status_line) < 2 or not status_line[0].startswith("HTTP/"):
            raise ValueError(f"not an HTTP answer: {lines[0][:80]!r}")
        status = int(status_line[1])
        headers: Dict[str, str] = {}
        for line in lines[1:]:
            if not line:
                continue
            name, _, value = line.partition(":")
            name = name.strip().lower()
            value = value.strip()
            headers[name] = f"{headers[name]}, {value}" if name in headers else value
        keep = status_line[0] == "HTTP/1.1" and headers.get("connection", "").lower() != "close"
        if request.method == "HEAD" or status in (204, 304) or 100 <= status < 200:
            content = b""
        elif "chunked" in headers.get("transfer-encoding", "").lower():
            parts: List[bytes] = []
            while True:
                watch.arm(timeout, "read")
                size_line = await reader.readuntil(b"\r\n")
                size = int(size_line.split(b";", 1)[0].strip(), 16)
                if size == 0:
                    while (await reader.readuntil(b"\r\n")) != b"\r\n":
                        pass  # trailers
                    break
                parts.append(await reader.readexactly(size + 2))
            content = b"".join(p[:-2] for p in parts)
        elif "content-length" in headers:
            length = int(headers["content-length"])
            if length <= CHUNK:
                watch.arm(timeout, "read")
                content = await reader.readexactly(length) if length else b""
            else:
                chunks: List[bytes] = []
                left = length
                while left:
                    watch.arm(timeout, "read")
                    chunk = await reader.readexactly(min(CHUNK, left))
                    chunks.append(chunk)
                    left -= len(chunk)
                content = b"".join(chunks)
        else:
            keep = False
            watch.arm(timeout, "read")
            content = await reader.read()
        return Response(status, headers, content, request.method, request.shown_url), keep
