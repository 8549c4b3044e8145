"""The words a source option is spelled with: the embedded default, the Hub prefix, the paper's datasets, the base tasks.

One light module (no reader imported), so the build specs that offer these words as option values
(:mod:`builders.specs`) and the adapters that read them agree, and ``--help`` loads no reader.
"""

from __future__ import annotations

WORLD = "world"
"""A source option's embedded default: generated from needlework's synthetic world, offline."""
HUB = "hub:"
"""Prefix of a source read from the Hugging Face Hub (``hub:REPO`` or ``hub:REPO/CONFIG``)."""

PAPER_MCQ = "hub:cais/mmlu"
"""``prepare_mmlu.py``: ``load_dataset("cais/mmlu", "all")``; gold from ``test``, distractors from ``auxiliary_train``."""
PAPER_DOCQA = "hub:hotpotqa/hotpot_qa"
"""``prepare_qa.py``: ``load_dataset("hotpotqa/hotpot_qa", "distractor")``; questions from ``validation``,
distractors filled from every ``train`` paragraph."""

MATH_BASES = ("gsm8k", "math500")
"""The math base tasks a multi-key NIAH build can hide instead of MMLU (``--mk-base``)."""
CODE_BASES = ("mbpp",)
"""The code base tasks (scored by running the problem's tests)."""
SOLVE_BASES = (*MATH_BASES, *CODE_BASES)
"""Every base task a multi-key NIAH build can hide instead of MMLU (``--mk-base``)."""
