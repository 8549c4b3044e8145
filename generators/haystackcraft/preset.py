"""HaystackCraft's ``paper`` preset: the authors' static-NIAH setup as build option values.

Every value comes from the paper or the authors' code (Graph-COM/HaystackCraft), file by file:

- ``prompt_layout = official``: ``prompts/context.txt`` (the ``<text>`` wrapper) and
  ``infer_static.py`` ``format_context`` (``Article {i}\\n: `` before each document, i from 1);
- ``budget_rule = prompt``: the size counts the whole prompt (``infer_multi.py``
  ``get_haystack_prompt`` starts from the encoded template with the question and the needles);
- ``top_k = 2560``: every retriever returns its top 2,560 (``retrievers/bm25.py``,
  ``retrievers/qwen.py``, ``retrievers/ppr.py``: ``k=2560``);
- ``bm25_analyzer = lucene``: the paper's BM25 is Pyserini's Lucene index (``retrievers/bm25.py``),
  whose English analyzer stems and drops stop words;
- ``dense_query_instruction = auto``: ``retrievers/qwen.py`` ``get_detailed_instruct``'s task description
  (:data:`PAPER_DENSE_INSTRUCTION`) before each query of the paper's Qwen3-Embedding; ``auto`` gives it to
  Qwen3-Embedding models and leaves another ``--dense-model`` (the offline MiniLM) its own prompt, since
  an instruction that model was never trained with would only add noise to its queries;
- ``no_context = True``: Appendix G's no-context condition is built beside the haystacks.

The retrieval values apply only when the build spec has those fields (they belong to the retrieval
options of ``builders.haystackcraft``). Values the user gives explicitly win over the preset's,
as in the NeedleBench and RULERv2 presets.
"""

from __future__ import annotations

import dataclasses
from typing import Any, Literal, get_args

from needlework.checks import require_one_of

Preset = Literal["", "paper"]
PRESETS: tuple[str, ...] = get_args(Preset)
"""``""``: needlework's setup, unchanged. ``paper``: the authors' static NIAH setup (:data:`PAPER_VALUES`)."""
PAPER_TOP_K = 2560
"""Documents each retriever returns in the authors' code (``k=2560`` in ``retrievers/*.py``)."""
PAPER_DENSE_INSTRUCTION = "Given a query, retrieve relevant documents that answer the query"
"""``retrievers/qwen.py`` ``get_detailed_instruct``: the task description before each dense query."""
OFFICIAL_MAX_NEW_TOKENS = 512
"""``max_new_tokens`` of the authors' ``query_llm`` calls for open non-reasoning models (``infer_static.py``,
``infer_multi.py``): recorded by the paper preset as the evaluation's ``max_tokens``, so the window cut leaves it room."""
PAPER_EVAL: dict[str, Any] = {"eval_generation": {"max_tokens": OFFICIAL_MAX_NEW_TOKENS}, "eval_over_window": "cut-middle"}
"""What a ``paper`` release tells ``python -m eval`` (manifest keys): 512 new tokens, and prompts over the window
cut in the middle as ``utils/llm.py`` ``query_llm(truncate=True)`` does, never skipped."""
PAPER_VALUES: dict[str, Any] = {
    "prompt_layout": "official",
    "budget_rule": "prompt",
    "top_k": PAPER_TOP_K,
    "no_context": True,
    "bm25_analyzer": "lucene",
    "dense_query_instruction": "auto",
}
"""Every option the ``paper`` preset sets, by build-spec field name (see the module docstring)."""
OFFICIAL_FILES: tuple[str, ...] = (
    "prompts/context.txt",
    "infer_static.py",
    "infer_multi.py",
    "retrievers/bm25.py",
    "retrievers/qwen.py",
    "retrievers/ppr.py",
    "utils/llm.py",
    "eval.py",
)
"""The Graph-COM/HaystackCraft files the preset (and the official scoring in eval) reproduce."""
PRESET_DEPARTURES: tuple[str, ...] = (
    ("the whole-prompt budget also counts the 'Article {i}' prefixes, so a prompt never exceeds its size (the "
     "authors count the template and documents, then add the prefixes in infer_static.py)"),
    ("the no-context prompt is Appendix B without the articles, in needlework's words: neither the paper nor the "
     "authors' code prints the Appendix G prompt"),
    ("the dense model stays the build's --dense-model (the offline default is all-MiniLM-L6-v2); the paper's is "
     "Qwen/Qwen3-Embedding-0.6B"),
    ("BM25 runs on bm25s with a Lucene-style English analysis, not on Pyserini's Lucene index"),
    ("the corpus and questions are the build's inputs; the paper's are the official docs.jsonl, edge_list.csv and "
     "its 500 questions (--official-corpus, --qa, --qa-ids)"),
    ("haystack orderings are needlework's seeded permutations (the authors ship three fixed permutations per "
     "question in their context files)"),
)
"""Where a ``paper`` build still differs from the authors' setup (recorded in the manifest and the card)."""


def check_preset(preset: str) -> str:
    """``preset`` if it is one of :data:`PRESETS`.

    Raises:
        SpecError: It is not.
    """
    require_one_of("preset", preset, PRESETS)
    return preset


def apply_preset(spec: Any) -> None:
    """Set every field of a frozen build spec that the ``paper`` preset names and the user left at its
    default to the preset's value (nothing without a preset). Fields the spec lacks are skipped."""
    if not check_preset(spec.preset):
        return
    for field in dataclasses.fields(spec):
        if field.name not in PAPER_VALUES:
            continue
        default = field.default if field.default is not dataclasses.MISSING else field.default_factory()  # type: ignore[misc]
        if getattr(spec, field.name) == default:
            object.__setattr__(spec, field.name, PAPER_VALUES[field.name])


def preset_record(spec: Any) -> dict[str, Any]:
    """What the manifest records of a ``paper`` build under ``preset``: its name, the value of every option
    the preset names (as built, explicit options included), the paper's values, the official files and the
    departures; ``{}`` without a preset."""
    if not spec.preset:
        return {}
    names = {f.name for f in dataclasses.fields(spec)}
    values = {name: getattr(spec, name) for name in PAPER_VALUES if name in names}
    return {"name": spec.preset, "values": values,
            "paper_values": {name: value for name, value in PAPER_VALUES.items() if name in names},
            "official_files": [f"Graph-COM/HaystackCraft/{path}" for path in OFFICIAL_FILES],
            "departures": list(PRESET_DEPARTURES)}
