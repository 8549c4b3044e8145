"""Prompts of EverMemBench-S's LLM stages for real sources, as data (``str.format`` templates).

The paper (§3.1, §3.3, Appendix A.1) says *what* an LLM does in the pipeline but publishes no
prompt, guideline, k or threshold: every template here is OURS, written for this project, and the
release records its version. The synthetic-world default needs none of them (its collision oracle
is exact). Four templates, one per stage:

- :data:`DOMAIN_TEMPLATE` (§3.1, A.1): assign a document one of the 8 domains
  (:data:`generators.world.schema.DOMAINS`); the answer is one label.
- :data:`REWRITE_TEMPLATE` (Stage II Track 1, A.1.2): decide whether a retrieved neighbour adds a
  complementary constraint and, if so, rewrite the query so it needs RefDoc *and* the neighbour.
- :data:`ATOMIZE_TEMPLATE` (Stage II Track 2, A.1.2): split a RefDoc into 2-4 sub-documents so that
  no single piece suffices, with a query over the pieces.
- :data:`VERIFY_TEMPLATE` (Stage III, A.1.3): label one retrieved candidate ``conflict``,
  ``hard_negative`` or ``false_negative`` against (Query, Answer, RefList), with the paper's
  definitions.

Each template is one string with named fields (literal JSON braces doubled). Rendering is
``TEMPLATE.format(**fields)``; a field's value may hold any text (braces included). Changing a
template's wording changes every prompt hash, so cached answers are never reused across versions;
bump its version constant too, so the release's manifest says which wording labelled it.
"""

from __future__ import annotations

from generators.world.schema import DOMAINS

VERDICT_LABELS: tuple[str, ...] = ("conflict", "hard_negative", "false_negative")
"""The Stage III outcomes (A.1.3), in the paper's order."""

ATOMIZE_MIN_PIECES = 2
ATOMIZE_MAX_PIECES = 4
"""How many sub-documents an atomized RefDoc has (OURS; the paper only says "multiple")."""

DOMAIN_GUIDE: dict[str, str] = {
    "medical": "medicine, health, diseases, drugs, hospitals, the human body",
    "history": "past events, historical figures, wars, states and dynasties, places and geography, archaeology",
    "education": "schools, universities as institutions, teaching, learning, examinations",
    "math": "mathematics, statistics, formal logic, puzzles solved by calculation",
    "literature": "fiction, poetry, drama, film, music, the arts, journalism, stories and their characters",
    "law": "laws, courts, contracts, regulations, government, politics and political parties",
    "technology": "computing, software, engineering, devices, the natural sciences other than medicine",
    "finance": "money, banking, markets, companies and business, economics",
}
"""One line per domain, in :data:`DOMAINS` order (OURS: the paper's A.1 guidelines are not published).

The lines follow the synthetic world's kinds (``generators.world.schema``: songs, films and
journalism are ``literature``, parties ``law``, places ``history``), so real and world documents
are labelled alike.
"""

DOMAIN_PROMPT_VERSION = 1
DOMAIN_TEMPLATE = (
    "Classify the document below into exactly one of these domains:\n"
    + "".join(f"- {domain}: {DOMAIN_GUIDE[domain]}\n" for domain in DOMAINS)
    + "If several fit, choose the one the document is mostly about. The document may be in any language.\n"
    "\n"
    "Document:\n"
    "<<<\n"
    "{document}\n"
    ">>>\n"
    "\n"
    "Answer with one domain label from the list, in lowercase, and nothing else."
)
"""Domain of one document (§3.1). Field: ``{document}``. Answer: one label of :data:`DOMAINS`."""

REWRITE_PROMPT_VERSION = 1
REWRITE_TEMPLATE = (
    "You build multi-document questions for a retrieval benchmark.\n"
    "Below are a question, its answer, the reference document that supports the answer, and a second "
    "document retrieved because it is similar to the reference.\n"
    "\n"
    "Question: {query}\n"
    "Answer: {answer}\n"
    "\n"
    "Reference document:\n"
    "<<<\n"
    "{refdoc}\n"
    ">>>\n"
    "\n"
    "Second document:\n"
    "<<<\n"
    "{neighbour}\n"
    ">>>\n"
    "\n"
    "Decide whether the second document states a fact, absent from the reference document, that can be "
    "added to the question as a complementary constraint: a rewritten question that can only be answered by "
    "combining the reference document with the second document, each supplying a part neither supplies alone.\n"
    "If it can, write that question and its answer. The answer must follow from the two documents together, "
    "must be short and unambiguous, and must not be stated in the question. Write in the language of the "
    "original question. If it cannot, or if either document alone would answer the new question, set "
    '"usable" to false.\n'
    "\n"
    "Reply with one JSON object and nothing else:\n"
    '{{"usable": true, "query": "<rewritten question>", "answer": "<its answer>"}}\n'
    "or\n"
    '{{"usable": false, "query": "", "answer": ""}}'
)
"""Track 1 retrieval-guided rewrite (A.1.2). Fields: ``{query}``, ``{answer}``, ``{refdoc}``,
``{neighbour}``. Answer: strict JSON ``{"usable": bool, "query": str, "answer": str}``."""

ATOMIZE_PROMPT_VERSION = 1
ATOMIZE_TEMPLATE = (
    "You build multi-document questions for a retrieval benchmark.\n"
    "Below are a question, its answer, and the reference document that supports the answer.\n"
    "\n"
    "Question: {query}\n"
    "Answer: {answer}\n"
    "\n"
    "Reference document:\n"
    "<<<\n"
    "{refdoc}\n"
    ">>>\n"
    "\n"
    f"Split the reference document into {ATOMIZE_MIN_PIECES} to {ATOMIZE_MAX_PIECES} "
    "sub-documents, each a contiguous part of its text copied word for word (keep every sentence, in order; "
    "do not summarize or add anything), so that no single sub-document is enough to answer the question. "
    "Then write a question, and its answer, that can only be answered by combining facts from at least two "
    "of the sub-documents. Keep the original question and answer if they already need two sub-documents. "
    "The answer must be short and unambiguous and must not be stated in the question. Write the question in "
    "the language of the original question.\n"
    "\n"
    "Reply with one JSON object and nothing else:\n"
    '{{"pieces": ["<sub-document 1>", "<sub-document 2>"], "query": "<question>", "answer": "<its answer>"}}'
)
"""Track 2 RefDoc atomization (A.1.2). Fields: ``{query}``, ``{answer}``, ``{refdoc}``.
Answer: strict JSON ``{"pieces": [str, ...], "query": str, "answer": str}`` with 2-4 pieces."""

VERIFY_PROMPT_VERSION = 1
VERIFY_TEMPLATE = (
    "You check a question of a retrieval benchmark against a document that a retriever found for it.\n"
    "\n"
    "Question: {query}\n"
    "Answer: {answer}\n"
    "\n"
    "Reference documents (the evidence that supports the answer):\n"
    "{references}\n"
    "\n"
    "Candidate document (not among the references):\n"
    "<<<\n"
    "{candidate}\n"
    ">>>\n"
    "\n"
    "Classify the candidate document as exactly one of:\n"
    "- conflict: it contradicts the question, the answer or the reference documents (it states something "
    "incompatible with them); the question would then be discarded.\n"
    "- hard_negative: it is semantically similar but does not support the answer; it is kept as a "
    "distractor.\n"
    "- false_negative: it provides additional valid evidence for the answer; it is added to the reference "
    "documents.\n"
    "\n"
    "Answer with one label (conflict, hard_negative or false_negative) and nothing else."
)
"""Stage III verification of one candidate (A.1.3; the three definitions are the paper's). Fields:
``{query}``, ``{answer}``, ``{references}`` (rendered by :data:`REFERENCE_TEMPLATE`, joined by a
blank line), ``{candidate}``. Answer: one of :data:`VERDICT_LABELS`."""

REFERENCE_TEMPLATE = "[Reference {number}]\n<<<\n{text}\n>>>"
"""One RefList document inside :data:`VERIFY_TEMPLATE`; ``{number}`` counts from 1."""
