"""Joining a Ray cluster, one rule for the build engine (:mod:`builders.engine`) and eval's vLLM replicas.

Ray is an optional extra, so it is imported here only when a caller asks to join; each caller turns
the two failures into its own one-line error that names its extra.
"""

from __future__ import annotations

from typing import Any


def join_ray(address: str = "", *, log_to_driver: bool = True) -> Any:
    """Ray, connected: to ``address`` if given, else as ``ray.init()`` connects (``$RAY_ADDRESS``, else a
    new local cluster); a process that is already connected (``ray.is_initialized()``, as in tests)
    keeps its connection.

    Args:
        address: ``auto``, ``HEAD_IP:6379`` or ``ray://HEAD_IP:10001``; "" as above.
        log_to_driver: Whether workers' output is printed here (off for the builders' quiet stages).

    Raises:
        ImportError: Ray is not installed.
        ConnectionError: The cluster cannot be joined; the message names the address.
    """
    import ray

    if not ray.is_initialized():
        try:
            ray.init(address=address or None, include_dashboard=False, log_to_driver=log_to_driver)
        except (ConnectionError, RuntimeError, ValueError) as err:
            raise ConnectionError(f"cannot join the Ray cluster at {address or 'a new local cluster'}: {err}") from err
    return ray
