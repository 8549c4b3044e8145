"""The HaystackCraft paper's published static-NIAH results, as data for the report to show beside a run.

Values are copied from ``../shared/papers/haystackcraft.md`` (F1 x 100 with the paper's precision),
one table per retrieval strategy:

- Appendix M, Tables 6-11: retriever-ranked descending ordering (the values Figure 3 plots);
- Appendix N, Tables 12-17: the mean ± std over three random orderings (Figure 4 plots the
  descending value minus this mean); size 0 (the needles alone) has no std;
- Appendix J, Table 3: the ordering ablation at 128K tokens with the hybrid retriever.

Sizes are the paper's: 0 (no distractors), 8K, 16K, 32K, 64K, 128K tokens of the whole prompt,
counted with the Qwen2.5-1M tokenizer; the dense retriever is Qwen3-Embedding-0.6B ("Qwen3-0.6B"
in the tables, ``dense`` here); F1 is read after the first "The correct answer is"
(Graph-COM/HaystackCraft ``utils/llm.py``, ``eval.py``). Appendix G's no-context results (Figure
7) are drawn, not tabulated, so none are here. These are the paper's numbers for its models, not a
needlework run.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

SOURCE = ("Haystack Engineering: Context Engineering for Heterogeneous and Agentic Long-Context Evaluation "
          "(Li et al., 2025, arXiv:2510.07414), ../shared/papers/haystackcraft.md")
SIZES: tuple[int, ...] = (0, 8_000, 16_000, 32_000, 64_000, 128_000)
"""The columns of Tables 6-17, in tokens."""
STRATEGY_NAMES: Mapping[str, str] = {
    "bm25": "BM25", "dense": "Qwen3-0.6B", "hybrid": "hybrid retriever", "bm25+ppr": "BM25 + PPR",
    "dense+ppr": "Qwen3-0.6B + PPR", "hybrid+ppr": "hybrid + PPR retriever",
}
"""How the tables' captions name each strategy."""
ABLATION_SIZE = 128_000
ABLATION_STRATEGY = "hybrid"


@dataclass(frozen=True)
class PaperTable:
    """One Appendix M or N table.

    Attributes:
        number: The table's number in the paper.
        rows: ``{model: values}``, one value per size of :data:`SIZES`: an F1 (Appendix M) or a
            ``(mean, std)`` pair (Appendix N; std ``None`` at size 0).
    """

    number: int
    rows: Mapping[str, tuple]


def _random(first: float, *pairs: float) -> tuple[tuple[float, float | None], ...]:
    """An Appendix N row: the size-0 F1, then (mean, std) for 8K ... 128K."""
    return ((first, None), *((pairs[i], pairs[i + 1]) for i in range(0, len(pairs), 2)))


DESCENDING: Mapping[str, PaperTable] = {
    "bm25": PaperTable(6, {
        "Llama-3.1-8B-Instruct": (59.8, 58.41, 53.81, 46.16, 42.06, 37.24),
        "Llama-3.1-70B-Instruct": (67.7, 66.28, 62.56, 57.72, 48.2, 30.71),
        "Qwen2.5-7B-Instruct-1M": (55.56, 52.12, 48.42, 44.39, 42.38, 39.5),
        "Qwen2.5-14B-Instruct-1M": (61.76, 59.46, 55.28, 51.3, 46.65, 45.87),
        "Gemma-3-12B-IT": (67.49, 64.15, 59.54, 56.47, 52.4, 44.45),
        "Gemma-3-27B-IT": (67.71, 66.24, 62.25, 58.05, 54.34, 51.68),
        "GPT-4.1 mini": (70.19, 69.05, 67.36, 64.28, 60.73, 60.55),
        "Qwen3-8B": (71.66, 71.62, 69.84, 67.94, 61.72, 60.1),
        "Qwen3-14B": (71.9, 71.08, 69.5, 67.7, 64.74, 62.42),
        "Qwen3-32B": (71.32, 73.62, 69.97, 68.59, 67.15, 64.87),
        "Gemini 2.5 Flash-Lite": (71.6, 70.96, 69.94, 69.36, 68.93, 66.14),
        "o4-mini": (75.95, 76.34, 74.24, 74.02, 70.36, 67.58),
    }),
    "dense": PaperTable(7, {
        "Llama-3.1-8B-Instruct": (59.8, 57.22, 52.92, 44.74, 40.42, 31.51),
        "Llama-3.1-70B-Instruct": (67.7, 64.36, 61.6, 54.42, 45.73, 25.85),
        "Qwen2.5-7B-Instruct-1M": (55.56, 52.59, 47.04, 42.9, 39.23, 36.14),
        "Qwen2.5-14B-Instruct-1M": (61.76, 56.4, 51.66, 49.61, 45.8, 42.39),
        "Gemma-3-12B-IT": (67.49, 60.75, 57.24, 52.01, 48.21, 42.43),
        "Gemma-3-27B-IT": (67.71, 63.86, 60.92, 55.5, 53.05, 48.98),
        "GPT-4.1 mini": (70.19, 67.6, 66.49, 62.73, 61.33, 60.05),
        "Qwen3-8B": (71.66, 70.41, 68.15, 65.14, 62.2, 59.22),
        "Qwen3-14B": (71.9, 69.29, 69.38, 65.96, 64.89, 61.39),
        "Qwen3-32B": (71.32, 69.49, 69.14, 68.65, 64.01, 62.41),
        "Gemini 2.5 Flash-Lite": (71.6, 70.81, 70.69, 70.27, 64.72, 63.49),
        "o4-mini": (75.95, 75.28, 73.42, 73.73, 69.62, 66.98),
    }),
    "hybrid": PaperTable(8, {
        "Llama-3.1-8B-Instruct": (59.8, 56.71, 53.41, 43.02, 36.99, 30.22),
        "Llama-3.1-70B-Instruct": (67.7, 66.09, 62.44, 52.04, 42.33, 25.11),
        "Qwen2.5-7B-Instruct-1M": (55.56, 52.54, 48.42, 42.16, 37.5, 35.16),
        "Qwen2.5-14B-Instruct-1M": (61.76, 57.17, 52.48, 50.7, 46.24, 42.91),
        "Gemma-3-12B-IT": (67.49, 62.26, 56.63, 53.68, 48.62, 44.1),
        "Gemma-3-27B-IT": (67.71, 65.79, 60.7, 54.78, 50.73, 48.4),
        "GPT-4.1 mini": (70.19, 68.56, 66.02, 64.42, 60.72, 58.27),
        "Qwen3-8B": (71.66, 71.36, 68.74, 66.52, 61.54, 57.29),
        "Qwen3-14B": (71.9, 70.46, 68.82, 67.29, 64.42, 61.28),
        "Qwen3-32B": (71.32, 71.19, 69.98, 67.55, 64.66, 62.07),
        "Gemini 2.5 Flash-Lite": (71.6, 70.78, 69.08, 67.69, 64.83, 62.78),
        "o4-mini": (75.95, 76.43, 73.54, 73.12, 68.46, 67.9),
        "GPT-5": (77.28, 77.21, 75.37, 75.15, 74.99, 73.76),
    }),
    "bm25+ppr": PaperTable(9, {
        "Llama-3.1-8B-Instruct": (59.8, 60.52, 53.63, 49.81, 45.87, 42.8),
        "Llama-3.1-70B-Instruct": (67.7, 66.49, 64.14, 60.66, 51.26, 37.08),
        "Qwen2.5-7B-Instruct-1M": (55.56, 51.69, 49.6, 46.16, 46.91, 45.95),
        "Qwen2.5-14B-Instruct-1M": (61.76, 58.17, 56.17, 54.61, 51.68, 49.78),
        "Gemma-3-12B-IT": (67.49, 64.11, 60.85, 58.82, 54.43, 47.89),
        "Gemma-3-27B-IT": (67.71, 65.98, 63.08, 58.13, 56.23, 53.71),
        "GPT-4.1 mini": (70.19, 69.07, 66.67, 64.46, 63.36, 62.2),
        "Qwen3-8B": (71.66, 71.32, 71.23, 69.38, 64.44, 62.37),
        "Qwen3-14B": (71.9, 72.62, 71.33, 70.19, 66.31, 66.17),
        "Qwen3-32B": (71.32, 71.58, 71.37, 69.13, 67.93, 65.7),
        "Gemini 2.5 Flash-Lite": (71.6, 71.95, 71.72, 69.52, 69.18, 64.86),
        "o4-mini": (75.95, 75.42, 74.82, 74.67, 72.88, 69.88),
    }),
    "dense+ppr": PaperTable(10, {
        "Llama-3.1-8B-Instruct": (59.8, 55.85, 54.26, 45.25, 41.37, 36.69),
        "Llama-3.1-70B-Instruct": (67.7, 65.75, 63.01, 55.82, 48.65, 33.42),
        "Qwen2.5-7B-Instruct-1M": (55.56, 52.51, 50.93, 46.47, 42.88, 42.96),
        "Qwen2.5-14B-Instruct-1M": (61.76, 57.95, 52.83, 54.41, 50.96, 48.82),
        "Gemma-3-12B-IT": (67.49, 64.25, 59.27, 56.33, 53.72, 47.2),
        "Gemma-3-27B-IT": (67.71, 65.08, 61.46, 59.64, 57.39, 50.93),
        "GPT-4.1 mini": (70.19, 67.64, 65.43, 64.74, 61.92, 61.45),
        "Qwen3-8B": (71.66, 71.35, 70.08, 66.23, 62.68, 60.94),
        "Qwen3-14B": (71.9, 69.97, 69.46, 68.39, 65.33, 62.42),
        "Qwen3-32B": (71.32, 71.11, 70.8, 70.28, 68.26, 64.55),
        "Gemini 2.5 Flash-Lite": (71.6, 71.48, 70.43, 70.33, 66.05, 66.53),
        "o4-mini": (75.95, 73.73, 74.18, 72.7, 70.24, 69.03),
    }),
    "hybrid+ppr": PaperTable(11, {
        "Llama-3.1-8B-Instruct": (59.8, 55.04, 50.45, 46.64, 45.41, 38.11),
        "Llama-3.1-70B-Instruct": (67.7, 65.85, 61.56, 56.6, 48.64, 36.22),
        "Qwen2.5-7B-Instruct-1M": (55.56, 52.06, 49.07, 46.02, 44.31, 45.65),
        "Qwen2.5-14B-Instruct-1M": (61.76, 57.92, 52.93, 51.29, 51.14, 49.88),
        "Gemma-3-12B-IT": (67.49, 62.95, 58.43, 57.35, 54.0, 48.8),
        "Gemma-3-27B-IT": (67.71, 65.45, 60.97, 59.56, 57.55, 52.51),
        "GPT-4.1 mini": (70.19, 69.48, 66.63, 65.23, 64.73, 62.09),
        "Qwen3-8B": (71.66, 71.37, 69.22, 68.45, 63.59, 63.98),
        "Qwen3-14B": (71.9, 70.32, 69.0, 67.97, 67.0, 63.85),
        "Qwen3-32B": (71.32, 71.11, 70.93, 69.29, 65.8, 64.14),
        "Gemini 2.5 Flash-Lite": (71.6, 71.86, 68.79, 69.51, 68.07, 66.07),
        "o4-mini": (75.95, 75.1, 73.7, 73.61, 70.23, 70.06),
        "GPT-5": (77.28, 77.15, 77.04, 76.12, 73.83, 73.64),
    }),
}
RANDOM: Mapping[str, PaperTable] = {
    "bm25": PaperTable(12, {
        "Llama-3.1-8B-Instruct": _random(59.8, 56.18, 0.85, 52.25, 1.21, 44.71, 0.86, 40.43, 1.78, 34.3, 0.76),
        "Llama-3.1-70B-Instruct": _random(67.7, 66.51, 0.15, 63.79, 1.21, 58.41, 0.57, 49.14, 1.0, 30.58, 0.72),
        "Qwen2.5-7B-Instruct-1M": _random(55.56, 50.7, 1.3, 45.73, 0.66, 39.22, 0.17, 36.85, 0.38, 33.66, 0.47),
        "Qwen2.5-14B-Instruct-1M": _random(61.76, 58.32, 0.73, 53.95, 1.4, 48.86, 0.75, 44.16, 0.7, 37.7, 0.42),
        "Gemma-3-12B-IT": _random(67.49, 62.66, 0.97, 57.18, 0.78, 52.39, 1.69, 45.88, 1.31, 33.39, 0.42),
        "Gemma-3-27B-IT": _random(67.71, 63.17, 0.65, 60.53, 0.26, 53.19, 1.44, 47.35, 0.94, 38.93, 1.21),
        "GPT-4.1 mini": _random(70.19, 69.04, 0.27, 67.41, 0.26, 64.57, 0.86, 60.28, 0.4, 56.84, 0.36),
        "Qwen3-8B": _random(71.66, 71.3, 0.81, 71.02, 0.82, 67.13, 0.39, 58.53, 1.33, 53.48, 1.55),
        "Qwen3-14B": _random(71.9, 71.39, 0.43, 69.8, 1.18, 68.39, 0.69, 66.22, 0.41, 61.1, 0.62),
        "Qwen3-32B": _random(71.32, 71.73, 0.46, 71.22, 0.9, 68.94, 1.1, 67.71, 0.61, 62.11, 1.81),
        "Gemini 2.5 Flash-Lite": _random(71.6, 72.16, 0.89, 72.07, 0.73, 69.52, 1.35, 67.66, 0.19, 65.61, 0.34),
        "o4-mini": _random(75.95, 75.6, 0.41, 74.73, 0.43, 73.39, 0.2, 70.48, 1.09, 67.24, 0.57),
    }),
    "dense": PaperTable(13, {
        "Llama-3.1-8B-Instruct": _random(59.8, 54.87, 0.75, 50.71, 0.89, 43.41, 0.6, 39.08, 1.0, 33.33, 0.5),
        "Llama-3.1-70B-Instruct": _random(67.7, 65.69, 0.77, 62.52, 1.01, 56.81, 1.1, 47.87, 0.2, 26.49, 0.73),
        "Qwen2.5-7B-Instruct-1M": _random(55.56, 50.79, 1.29, 46.75, 0.85, 41.05, 1.0, 34.85, 0.5, 29.55, 0.46),
        "Qwen2.5-14B-Instruct-1M": _random(61.76, 57.1, 0.39, 52.83, 1.81, 48.7, 0.22, 40.78, 0.88, 35.36, 0.28),
        "Gemma-3-12B-IT": _random(67.49, 61.2, 0.2, 55.51, 1.0, 51.24, 0.46, 42.66, 0.79, 32.37, 1.66),
        "Gemma-3-27B-IT": _random(67.71, 62.87, 0.39, 57.77, 0.26, 51.71, 0.37, 42.95, 1.05, 34.67, 0.38),
        "GPT-4.1 mini": _random(70.19, 68.2, 0.53, 66.09, 1.67, 63.57, 0.45, 59.97, 0.55, 56.74, 1.38),
        "Qwen3-8B": _random(71.66, 71.69, 0.81, 69.9, 0.52, 64.12, 0.82, 54.24, 0.41, 48.89, 1.62),
        "Qwen3-14B": _random(71.9, 69.83, 0.98, 69.04, 1.14, 68.03, 0.13, 64.21, 0.52, 56.77, 1.45),
        "Qwen3-32B": _random(71.32, 70.66, 1.22, 70.29, 0.76, 68.68, 0.56, 64.65, 0.39, 57.11, 1.22),
        "Gemini 2.5 Flash-Lite": _random(71.6, 71.39, 0.49, 70.61, 0.68, 69.67, 0.87, 67.39, 0.35, 62.58, 0.64),
        "o4-mini": _random(75.95, 74.54, 0.17, 75.33, 0.43, 72.93, 0.44, 69.72, 0.59, 63.91, 1.39),
    }),
    "hybrid": PaperTable(14, {
        "Llama-3.1-8B-Instruct": _random(59.8, 54.95, 1.16, 51.33, 0.85, 43.77, 1.42, 37.42, 0.92, 33.34, 0.58),
        "Llama-3.1-70B-Instruct": _random(67.7, 66.29, 0.19, 62.54, 0.25, 57.51, 0.05, 47.76, 1.77, 28.82, 1.01),
        "Qwen2.5-7B-Instruct-1M": _random(55.56, 52.46, 1.21, 46.7, 1.14, 40.32, 0.78, 35.26, 1.37, 32.52, 0.61),
        "Qwen2.5-14B-Instruct-1M": _random(61.76, 58.28, 0.29, 52.69, 0.46, 47.98, 0.8, 42.9, 0.71, 36.16, 1.04),
        "Gemma-3-12B-IT": _random(67.49, 62.41, 0.43, 56.83, 0.77, 51.66, 0.25, 44.11, 0.63, 32.51, 1.72),
        "Gemma-3-27B-IT": _random(67.71, 64.26, 0.43, 57.56, 0.35, 52.08, 0.22, 44.95, 1.07, 36.85, 1.16),
        "GPT-4.1 mini": _random(70.19, 68.46, 0.53, 66.4, 0.81, 62.48, 0.39, 59.72, 0.38, 56.77, 0.81),
        "Qwen3-8B": _random(71.66, 72.03, 0.68, 69.57, 0.42, 65.96, 0.97, 57.68, 0.65, 51.85, 0.86),
        "Qwen3-14B": _random(71.9, 70.21, 0.15, 69.97, 0.4, 66.74, 0.37, 65.4, 0.71, 59.58, 1.13),
        "Qwen3-32B": _random(71.32, 71.61, 0.69, 70.66, 0.84, 68.19, 1.14, 63.68, 0.59, 57.99, 0.65),
        "Gemini 2.5 Flash-Lite": _random(71.6, 71.56, 0.81, 70.04, 0.6, 69.24, 0.78, 66.75, 0.65, 64.06, 0.51),
        "o4-mini": _random(75.95, 74.67, 0.32, 74.73, 1.23, 72.88, 0.38, 70.22, 0.18, 65.64, 0.2),
    }),
    "bm25+ppr": PaperTable(15, {
        "Llama-3.1-8B-Instruct": _random(59.8, 56.76, 0.34, 51.34, 0.64, 45.13, 1.19, 41.23, 1.16, 37.44, 2.2),
        "Llama-3.1-70B-Instruct": _random(67.7, 66.83, 0.41, 63.39, 0.96, 59.46, 0.95, 50.4, 1.22, 33.53, 1.22),
        "Qwen2.5-7B-Instruct-1M": _random(55.56, 52.14, 0.51, 45.37, 1.58, 42.73, 1.63, 37.8, 1.88, 37.74, 0.19),
        "Qwen2.5-14B-Instruct-1M": _random(61.76, 58.73, 0.73, 53.72, 1.03, 49.81, 1.26, 44.38, 1.29, 41.94, 0.79),
        "Gemma-3-12B-IT": _random(67.49, 62.8, 0.42, 58.08, 0.49, 52.37, 0.85, 45.95, 1.31, 38.5, 0.21),
        "Gemma-3-27B-IT": _random(67.71, 64.31, 0.83, 60.06, 0.64, 53.15, 1.13, 49.49, 0.64, 42.65, 0.94),
        "GPT-4.1 mini": _random(70.19, 69.12, 0.28, 67.36, 0.96, 64.48, 0.71, 60.93, 0.7, 59.26, 1.29),
        "Qwen3-8B": _random(71.66, 71.71, 0.35, 70.6, 0.78, 66.74, 0.81, 60.06, 0.4, 57.87, 0.37),
        "Qwen3-14B": _random(71.9, 70.93, 0.11, 70.24, 0.81, 68.22, 0.51, 66.72, 1.13, 62.8, 0.65),
        "Qwen3-32B": _random(71.32, 71.48, 0.25, 70.86, 0.26, 69.2, 0.96, 66.73, 0.96, 63.91, 0.68),
        "Gemini 2.5 Flash-Lite": _random(71.6, 72.66, 1.48, 72.69, 0.66, 69.43, 0.96, 66.61, 0.52, 65.64, 0.26),
        "o4-mini": _random(75.95, 75.86, 0.71, 74.77, 0.8, 73.73, 0.22, 71.73, 0.36, 68.96, 0.47),
    }),
    "dense+ppr": PaperTable(16, {
        "Llama-3.1-8B-Instruct": _random(59.8, 55.22, 1.19, 51.4, 1.12, 46.64, 0.94, 41.6, 1.04, 36.71, 0.6),
        "Llama-3.1-70B-Instruct": _random(67.7, 66.49, 0.78, 62.85, 0.07, 57.63, 0.3, 50.4, 0.95, 33.35, 0.65),
        "Qwen2.5-7B-Instruct-1M": _random(55.56, 51.54, 0.68, 47.34, 1.24, 44.77, 0.48, 41.14, 1.06, 36.05, 1.55),
        "Qwen2.5-14B-Instruct-1M": _random(61.76, 58.45, 0.29, 53.54, 0.49, 49.4, 1.65, 44.76, 1.43, 39.46, 1.15),
        "Gemma-3-12B-IT": _random(67.49, 62.78, 0.38, 56.4, 0.75, 53.29, 0.87, 46.8, 0.77, 38.47, 0.21),
        "Gemma-3-27B-IT": _random(67.71, 63.72, 0.52, 59.01, 1.53, 54.35, 0.84, 49.01, 1.02, 40.79, 0.93),
        "GPT-4.1 mini": _random(70.19, 68.08, 1.18, 66.18, 0.3, 63.23, 0.56, 61.09, 0.61, 57.49, 0.31),
        "Qwen3-8B": _random(71.66, 71.53, 0.59, 69.82, 0.89, 67.09, 0.52, 58.84, 1.45, 57.84, 1.53),
        "Qwen3-14B": _random(71.9, 70.46, 1.0, 70.19, 0.77, 67.61, 0.1, 66.08, 0.66, 61.4, 0.64),
        "Qwen3-32B": _random(71.32, 70.63, 0.57, 70.19, 0.22, 68.77, 1.35, 65.64, 0.47, 61.54, 1.12),
        "Gemini 2.5 Flash-Lite": _random(71.6, 72.13, 1.34, 70.21, 0.25, 69.26, 0.77, 67.64, 0.64, 65.26, 1.6),
        "o4-mini": _random(75.95, 74.49, 0.38, 74.35, 0.19, 73.86, 0.51, 70.81, 0.63, 67.71, 0.41),
    }),
    "hybrid+ppr": PaperTable(17, {
        "Llama-3.1-8B-Instruct": _random(59.8, 55.19, 1.37, 51.69, 0.71, 45.57, 1.02, 41.97, 0.54, 38.99, 1.78),
        "Llama-3.1-70B-Instruct": _random(67.7, 66.97, 0.78, 62.81, 1.17, 58.75, 0.6, 51.36, 0.61, 33.16, 1.12),
        "Qwen2.5-7B-Instruct-1M": _random(55.56, 52.21, 1.02, 47.8, 0.19, 44.18, 0.38, 40.59, 0.49, 39.17, 1.27),
        "Qwen2.5-14B-Instruct-1M": _random(61.76, 58.03, 0.55, 53.63, 0.79, 50.8, 0.69, 46.9, 1.25, 42.15, 0.7),
        "Gemma-3-12B-IT": _random(67.49, 62.2, 0.98, 57.27, 1.04, 53.32, 0.47, 48.2, 0.88, 37.51, 4.94),
        "Gemma-3-27B-IT": _random(67.71, 64.02, 1.13, 58.84, 0.49, 55.6, 0.68, 50.27, 0.14, 41.95, 1.08),
        "GPT-4.1 mini": _random(70.19, 68.7, 0.76, 66.51, 0.81, 64.43, 0.61, 61.79, 1.28, 60.75, 0.31),
        "Qwen3-8B": _random(71.66, 71.5, 0.71, 69.7, 0.32, 66.95, 0.51, 60.46, 0.28, 58.62, 0.52),
        "Qwen3-14B": _random(71.9, 70.14, 0.32, 68.83, 0.74, 66.87, 2.12, 66.81, 0.78, 62.13, 0.47),
        "Qwen3-32B": _random(71.32, 71.96, 0.67, 71.03, 0.57, 70.13, 0.43, 65.37, 0.55, 63.4, 0.62),
        "Gemini 2.5 Flash-Lite": _random(71.6, 71.57, 0.87, 70.39, 0.6, 69.07, 0.35, 66.42, 0.4, 65.27, 0.52),
        "o4-mini": _random(75.95, 75.59, 0.19, 74.14, 0.7, 73.68, 0.23, 71.03, 0.61, 68.13, 0.4),
    }),
}

ORDERING_ABLATION: Mapping[str, Mapping[str, float]] = {
    "Gemma-3-12B-IT": {"descending": 44.1, "ascending": 39.97, "random": 32.51, "middle": 29.36},
    "Gemini 2.5 Flash": {"descending": 63.28, "ascending": 65.44, "random": 64.06, "middle": 65.31},
}
"""Appendix J, Table 3: F1 per ordering, hybrid retriever, 128K tokens."""


def paper_cell(view: str, strategy: str, model: str, size: int) -> tuple[float, float | None] | None:
    """The paper's (F1, std) for a view (``descending`` or ``random-mean``), strategy, model and size;
    ``None`` where the paper has no such value. Descending values have no std."""
    tables = DESCENDING if view == "descending" else RANDOM if view == "random-mean" else {}
    table = tables.get(strategy)
    if table is None or model not in table.rows or size not in SIZES:
        return None
    value = table.rows[model][SIZES.index(size)]
    return value if isinstance(value, tuple) else (value, None)
