"""The EverMemBench-S paper's published results (Tables 3 and 4), as data for the report to show beside a run.

Values are copied from ``../shared/papers/evermembench-s.md`` (Table 3: retrieval at 64K, 512K,
30M and 326M; Table 4: Grok-4 judge scores 0–5 at 64K, 256K and 1M, "–" where the full input
exceeds the model's window). They are the paper's numbers on its 483 queries and 326M-token
MemoryBank, not a needlework run.
"""

from __future__ import annotations

from collections.abc import Mapping

TABLE3_SCALES: tuple[str, ...] = ("64K", "512K", "30M", "326M")
"""The ladder scales Table 3 reports."""
TABLE4_SCALES: tuple[str, ...] = ("64K", "256K", "1M")
"""The ladder scales Table 4 reports."""

Access = tuple[float, float, float]
"""(R@1, SR@10, FR@10) at one scale."""


def _row(*values: float) -> dict[str, Access]:
    """Twelve Table 3 values in the paper's column order -> ``{scale: (R@1, SR@10, FR@10)}``."""
    return {scale: (values[3 * i], values[3 * i + 1], values[3 * i + 2]) for i, scale in enumerate(TABLE3_SCALES)}


TABLE3: Mapping[str, Mapping[str, Access]] = {
    "SFR-Embedding-Mistral": _row(.858, .874, .648, .845, .864, .621, .750, .755, .436, .554, .607, .209),
    "BGE-M3": _row(.831, .861, .642, .811, .847, .615, .696, .724, .397, .480, .591, .173),
    "Snowflake-Arctic-M-v2.0": _row(.831, .848, .609, .818, .827, .573, .736, .703, .361, .446, .572, .173),
    "Qwen3-Embedding-8B": _row(.872, .930, .800, .865, .928, .788, .804, .831, .585, .622, .682, .304),
    "Qwen3-Embedding-4B": _row(.872, .921, .767, .858, .912, .749, .804, .818, .561, .588, .675, .304),
    "Qwen3-Embedding-0.6B": _row(.851, .897, .716, .831, .884, .684, .784, .778, .478, .568, .644, .248),
    "KaLM-Embedding-Gemma3-12B": _row(.905, .908, .734, .892, .899, .713, .818, .806, .540, .622, .657, .263),
    "BM25": _row(.655, .687, .358, .622, .616, .266, .514, .461, .116, .345, .327, .030),
    "Qwen3-Embedding-8B + Qwen3-Reranker-8B": _row(.872, .913, .770, .865, .908, .758, .818, .846, .600, .689, .745, .400),
    "KaLM-Embedding-Gemma3-12B + Qwen3-Reranker-8B": _row(.885, .911, .761, .865, .903, .740, .838, .834, .567, .676, .739,
                                                          .391),
}
"""Table 3 (RAG / evidence access): retriever -> scale -> (R@1, SR@10, FR@10)."""

TABLE4: Mapping[str, tuple[str, Mapping[str, float]]] = {
    "Qwen3-235B-A22B-Instruct": ("256K", {"64K": 3.35, "256K": 3.20}),
    "Qwen3-Next-80B": ("256K", {"64K": 3.35, "256K": 3.30}),
    "DeepSeek-V3.2": ("128K", {"64K": 3.40}),
    "GLM-4.7": ("200K", {"64K": 3.18}),
    "Gemini-3-Pro-Preview": ("1M", {"64K": 3.55, "256K": 3.45, "1M": 3.28}),
    "GLM-4.7-Flash": ("200K", {"64K": 3.10}),
    "MiniMax-M2.1": ("204K", {"64K": 3.38}),
    "Grok-4.1-Fast": ("2M", {"64K": 3.45, "256K": 3.36, "1M": 3.01}),
    "Kimi-Linear-48B-A3B-Instruct": ("1M", {"64K": 3.42, "256K": 3.38, "1M": 3.22}),
    "Gemini-3-Flash-Preview": ("1M", {"64K": 3.48, "256K": 3.40, "1M": 3.25}),
}
"""Table 4 (generative QA, Grok-4 judge 0–5, full context): model -> (context window, scale -> score)."""
