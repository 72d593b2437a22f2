"""The names `xenophon serve` answers to (docs/web.md, "What the server
protects"), parsed strictly: a request's Host (and a socket's Origin) must
name this server exactly as a browser writes it when it was opened at that
name: a loopback name, the address given with --host, or a name given with
--allow-host, and the server's port. Nothing here touches the network, so
the command line checks its --allow-host names with it before serving.

>>> parse_host("localhost:8765")
('localhost', 8765)
>>> parse_host("[::1]:8765")
('::1', 8765)
>>> parse_host("127.0.0.1:8765@evil.example") is None
True
"""

from __future__ import annotations

import ipaddress
import re

#: this machine's own names, always allowed
LOOPBACK_NAMES = frozenset({"localhost", "127.0.0.1", "::1"})
#: the addresses that listen on every interface: not names anyone browses to
ANY_ADDRESSES = frozenset({"0.0.0.0", "::", ""})
HTTP_PORT = 80  # the port a Host without one means

_LABEL = r"[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?"
_NAME = rf"{_LABEL}(?:\.{_LABEL})*"
# a name or a bracketed IPv6 address, then an optional port without leading zeros
_HOST = re.compile(rf"(?:\[([0-9A-Fa-f:.]+)\]|({_NAME}))(?::([1-9][0-9]{{0,4}}))?")
MAX_NAME = 253


class HostError(ValueError):
    """A name that cannot be allowed (for --allow-host: one line)."""


def parse_host(text: str) -> tuple[str, int | None] | None:
    """The name (lower case; an IPv6 address without brackets, compressed)
    and the port of a Host header's text, or None when it is not exactly
    `name[:port]` or `[IPv6][:port]`: userinfo, paths, spaces, empty or
    leading-zero ports and ports above 65535 are refused."""
    match = _HOST.fullmatch(text)
    if match is None:
        return None
    v6, name, port = match.groups()
    if v6 is not None:
        try:
            name = ipaddress.IPv6Address(v6).compressed
        except ValueError:
            return None
    elif len(name) > MAX_NAME:
        return None
    number = int(port) if port is not None else None
    if number is not None and number > 65535:
        return None
    return name.lower(), number


def allowed_name(text: str) -> str:
    """A name given with --allow-host, as the Host header writes it: a host
    name or an IPv4 address, or an IPv6 address (bracketed or not); no port
    (the server's own is meant). HostError otherwise."""
    try:
        return ipaddress.IPv6Address(text).compressed  # a bare IPv6 address
    except ValueError:
        pass
    parsed = parse_host(text)
    if parsed is None or parsed[1] is not None:
        raise HostError(
            f"not a host name: {text!r} (a name such as box.lan or an address, without a port)"
        )
    return parsed[0]


def served_names(host: str, allowed: tuple[str, ...] = ()) -> frozenset[str]:
    """The names a server listening on `host` answers to: the loopback
    names, `host` itself unless it is every address, and the `allowed` ones
    (each an `allowed_name`)."""
    names = set(LOOPBACK_NAMES) | {allowed_name(name) for name in allowed}
    if host not in ANY_ADDRESSES:
        try:
            names.add(allowed_name(host))
        except HostError:
            pass  # no Host header can name it: nothing to allow
    return frozenset(names)


def is_own_host(header: str | None, names: frozenset[str], port: int) -> bool:
    """Whether a request's Host header names this server: one of `names`,
    with the server's `port` (none only when that is 80)."""
    parsed = parse_host(header) if header is not None else None
    return parsed is not None and parsed[0] in names and (parsed[1] or HTTP_PORT) == port


def is_own_origin(origin: str | None, host: str) -> bool:
    """Whether a socket's Origin is the page this server serves at `host`
    (a Host header already found to be its own): http://, the same name and
    port, nothing else. A browser always sends it on a socket: one without
    it is refused."""
    scheme = "http://"
    if origin is None or not origin.startswith(scheme):
        return False
    mine, theirs = parse_host(host), parse_host(origin[len(scheme) :])
    if mine is None or theirs is None:
        return False
    return mine[0] == theirs[0] and (mine[1] or HTTP_PORT) == (theirs[1] or HTTP_PORT)
