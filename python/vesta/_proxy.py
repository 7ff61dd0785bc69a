"""Proxy settings from the environment, as curl and requests read them: ``HTTPS_PROXY`` for https
URLs, ``HTTP_PROXY`` for http URLs (either case; ``ALL_PROXY`` for both), and ``NO_PROXY`` (hosts,
domain suffixes, ``*``) for hosts reached directly. Read when a client is created (reading the
environment on every request cost a third of a call's time). The standard library's
``urllib.request`` does the reading.
"""
from __future__ import annotations

import base64
import urllib.request
from typing import Callable, Dict, Mapping, Optional, Tuple
from urllib.parse import unquote, urlsplit

from ._exceptions import InvalidArgumentError


class Proxy:
    """A proxy to go through: ``host``, ``port`` and, with user info in its URL, the
    ``Proxy-Authorization`` header."""

    __slots__ = ("host", "port", "authorization")

    def __init__(self, host: str, port: int, authorization: Optional[str]) -> None:
        self.host = host
        self.port = port
        self.authorization = authorization

    def headers(self) -> Dict[str, str]:
        return {"Proxy-Authorization": self.authorization} if self.authorization else {}


def _parse(url: str) -> Proxy:
    if "://" not in url:
        url = "http://" + url  # HTTP_PROXY=proxy:3128, as curl reads it
    parts = urlsplit(url)
    if parts.scheme != "http" or not parts.hostname:
        raise InvalidArgumentError("proxy", f"only http:// proxies are supported, got {parts.scheme}:// (from the environment)")
    auth = None
    if parts.username is not None:
        pair = f"{unquote(parts.username)}:{unquote(parts.password or '')}".encode("utf-8")
        auth = "Basic " + base64.b64encode(pair).decode("ascii")
    return Proxy(parts.hostname, parts.port or 80, auth)


#: ``urllib.request.proxy_bypass_environment(host, proxies)``: NO_PROXY's rules (not in typeshed).
_bypass: Callable[[str, Mapping[str, str]], bool] = getattr(urllib.request, "proxy_bypass_environment")


def environment() -> Dict[str, str]:
    """The proxy settings of the environment (scheme -> proxy URL, and ``no``)."""
    return dict(urllib.request.getproxies_environment())


def proxy_for(proxies: Mapping[str, str], scheme: str, host: str, port: Optional[int]) -> Optional[Proxy]:
    """The proxy for a request to ``scheme://host:port``, or None to connect directly."""
    if not proxies:
        return None
    url = proxies.get(scheme) or proxies.get("all")
    if not url:
        return None
    netloc = host if port is None else f"{host}:{port}"
    if _bypass(netloc, proxies) or _bypass(host, proxies):
        return None
    return _parse(url)


def target(scheme: str, netloc: str) -> Tuple[str, int]:
    """(host, port) of a URL's netloc."""
    parts = urlsplit(f"{scheme}://{netloc}")
    return parts.hostname or "", parts.port or (443 if scheme == "https" else 80)
