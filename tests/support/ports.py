"""Loopback ports for tests that start servers or need one nobody answers on (parallel-safe: the OS picks)."""

from __future__ import annotations

import socket


def free_port() -> int:
    """A loopback port nothing listens on now (bound, then released): for a server to start on, or, left unused,
    for a connection that is refused at once."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


closed_port = free_port
"""The same port, named for what a test wants of it: a connection refused at once."""
