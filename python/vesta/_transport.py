"""The blocking transport of ``vesta.Vesta``: ``http.client``, one keep-alive connection per thread,
host and proxy, so the runner's heartbeat thread can share a client. Never raises for a network
failure: it returns a :class:`TransportFailure` for the plan to judge."""
from __future__ import annotations

import http.client
import socket
import ssl
import threading
import time
from typing import Dict, Optional, Tuple
from urllib.parse import urlsplit

from ._core import CHUNK, Body, Outcome, Request, Response, TransportFailure, log_exchange
from ._exceptions import ClientClosedError
from ._proxy import Proxy, environment, proxy_for, target

PoolKey = Tuple[str, str, Optional[Tuple[str, int]]]


class SyncTransport:
    def __init__(self, ssl_context: Optional[ssl.SSLContext] = None) -> None:
        self._ssl = ssl_context
        self._proxies = environment()
        self._local = threading.local()
        self._open: "set[http.client.HTTPConnection]" = set()  # every thread's, closed with the client
        self._lock = threading.Lock()
        self.closed = False

    def _pool(self) -> Dict[PoolKey, http.client.HTTPConnection]:
        pool: Optional[Dict[PoolKey, http.client.HTTPConnection]] = getattr(self._local, "pool", None)
        if pool is None:
            pool = {}
            self._local.pool = pool
        return pool

    def _connection(self, key: PoolKey, scheme: str, netloc: str, proxy: Optional[Proxy]) -> Tuple[http.client.HTTPConnection, bool]:
        pool = self._pool()
        conn = pool.get(key)
        if conn is not None:
            return conn, True
        if proxy is None and scheme == "https":
            conn = http.client.HTTPSConnection(netloc, blocksize=CHUNK, context=self._ssl)
        elif proxy is None:
            conn = http.client.HTTPConnection(netloc, blocksize=CHUNK)
        elif scheme == "https":
            conn = http.client.HTTPSConnection(proxy.host, proxy.port, blocksize=CHUNK, context=self._ssl)
            host, port = target(scheme, netloc)
            conn.set_tunnel(host, port, headers=proxy.headers())  # CONNECT through the proxy
        else:
            conn = http.client.HTTPConnection(proxy.host, proxy.port, blocksize=CHUNK)
        pool[key] = conn
        with self._lock:
            self._open.add(conn)
        return conn, False

    def _drop(self, key: PoolKey) -> None:
        conn = self._pool().pop(key, None)
        if conn is not None:
            conn.close()
            with self._lock:
                self._open.discard(conn)

    def close(self) -> None:
        """Closes the kept-alive connections of every thread; the transport refuses calls after."""
        self.closed = True
        with self._lock:
            conns, self._open = list(self._open), set()
        for conn in conns:
            conn.close()
        pool = getattr(self._local, "pool", None)
        if pool:
            pool.clear()

    def __del__(self) -> None:
        # A client dropped without close(): its sockets go with it, not at interpreter exit.
        try:
            with self._lock:
                conns = list(self._open)
            for conn in conns:
                conn.close()
        except Exception:  # noqa: BLE001 - interpreter shutdown
            pass

    def send(self, request: Request) -> Outcome:
        if self.closed:
            raise ClientClosedError("Vesta client")
        started = time.monotonic()
        outcome = self._send(request)
        log_exchange(request, outcome, time.monotonic() - started)
        return outcome

    def _send(self, request: Request) -> Outcome:
        parts = urlsplit(request.url)
        scheme = parts.scheme
        host, port = target(scheme, parts.netloc)
        proxy = proxy_for(self._proxies, scheme, host, port)
        key: PoolKey = (scheme, parts.netloc, None if proxy is None else (proxy.host, proxy.port))
        path = (parts.path or "/") + (f"?{parts.query}" if parts.query else "")
        forward = proxy is not None and scheme == "http"  # an http proxy gets the whole URL
        line_target = f"{scheme}://{parts.netloc}{path}" if forward else path
        timeout = request.timeout
        for fresh_try in range(2):
            conn, reused = self._connection(key, scheme, parts.netloc, proxy)
            phase = "connect"
            try:
                # The request head is checked and buffered first (a URL http.client refuses fails
                # before any connection), then the connection opened within the connect timeout.
                conn.putrequest(request.method, line_target, skip_host=forward, skip_accept_encoding=True)
                if forward:
                    assert proxy is not None
                    conn.putheader("Host", parts.netloc)
                    for k, v in proxy.headers().items():
                        conn.putheader(k, v)
                for k, v in request.headers.items():
                    conn.putheader(k, v)
                body = request.body
                if isinstance(body, Body):
                    conn.putheader("Content-Length", str(body.length))
                elif body is not None:
                    conn.putheader("Content-Length", str(len(body)))
                elif request.method in ("POST", "PUT"):
                    conn.putheader("Content-Length", "0")
                if conn.sock is None:
                    conn.timeout = timeout.connect
                    conn.connect()
                phase = "write"
                assert conn.sock is not None
                conn.sock.settimeout(timeout.write)
                if isinstance(body, Body):
                    conn.endheaders()
                    body.rewind()
                    sent = 0
                    while sent < body.length:
                        chunk = body.read(sent)
                        conn.send(chunk)
                        sent += len(chunk)
                        body.sent(sent)
                else:
                    conn.endheaders(body)
                phase = "read"
                conn.sock.settimeout(timeout.read)
                res = conn.getresponse()
                data = res.read()
                headers = {k.lower(): v for k, v in res.getheaders()}
                if res.will_close:
                    self._drop(key)
                return Response(res.status, headers, data, request.method, request.shown_url)
            except (http.client.RemoteDisconnected, BrokenPipeError, ConnectionResetError) as err:
                self._drop(key)
                # A kept-alive connection the server closed meanwhile: one fresh connection, free.
                if reused and fresh_try == 0:
                    continue
                return TransportFailure(err)
            except (socket.timeout, TimeoutError) as err:
                self._drop(key)
                return TransportFailure(err, phase)
            except (OSError, http.client.HTTPException) as err:
                self._drop(key)
                return TransportFailure(err)
            except BaseException:
                self._drop(key)  # an interrupt mid-exchange: the connection is in an unknown state
                raise
        raise AssertionError("unreachable")
