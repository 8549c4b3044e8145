"""A prompt's token ids packed as bytes: 4 bytes a token, compared as the id sequences compare.

The ``vllm`` backend renders every prompt's ids on the driver and keeps them packed (a 128K-token
prompt is 512 KB, not a list of 128K Python ints), sorts them by these bytes so that prompts sharing
a prefix run together, and ships them packed to the data-parallel replicas, which unpack them for
vLLM's ``TokensPrompt``.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

TOKEN_ID_DTYPE = np.dtype(">u4")
"""Token ids are kept as big-endian uint32 bytes: 4 bytes a token, and byte order is token order."""

TokenIds = bytes
"""A prompt's token ids packed by :func:`pack_ids`."""


def pack_ids(ids: Sequence[int]) -> TokenIds:
    """Pack token ids compactly so that comparing the bytes compares the id sequences.

    Args:
        ids: Token ids, each in ``[0, 2**32)``.

    Returns:
        The ids as big-endian uint32 bytes (4 bytes per token).
    """
    return np.asarray(ids, dtype=np.int64).astype(TOKEN_ID_DTYPE).tobytes()


def unpack_ids(packed: TokenIds) -> list[int]:
    """Inverse of :func:`pack_ids`.

    Args:
        packed: Bytes from :func:`pack_ids`.

    Returns:
        The token ids as Python ints, as vLLM's ``TokensPrompt`` takes them.
    """
    return np.frombuffer(packed, dtype=TOKEN_ID_DTYPE).tolist()


def count_tokens(packed: TokenIds) -> int:
    """The number of tokens in ids packed by :func:`pack_ids`."""
    return len(packed) // TOKEN_ID_DTYPE.itemsize
