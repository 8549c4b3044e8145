"""``needlework build haystackcraft``: HaystackCraft's build spec (light; see :mod:`builders.specs`)."""

from __future__ import annotations

from dataclasses import dataclass

from builders.engine import ENGINE_HELP, RAY_ADDRESS_HELP, RAY_WORKERS_HELP, EngineName, engine_of
from builders.options import option, parse_names
from builders.retrieval.analysis import ANALYZERS, PLAIN
from builders.retrieval.query_prompts import AUTO
from generators.haystackcraft.preset import Preset, apply_preset
from generators.haystackcraft.prompt import PromptLayout, check_layout
from generators.haystackcraft.spec import BUDGET_RULES, DEFAULT_SIZES, ORDERINGS, BudgetRule, HaystackSpec
from generators.strategies import STRATEGIES
from needlework.checks import require_one_of
from needlework.errors import SpecError
from needlework.lengths import TOKENS_HELP, parse_token_list

DEFAULT_TOKENIZER = "qwen2.5"
"""The paper counts every budget with the Qwen2.5-1M tokenizer (§4.1)."""
DEFAULT_TOP_K = 1000
def parse_materialize(text: str) -> tuple[str, ...]:
    """``descending,middle`` -> the orderings; ``none`` -> none."""
    return () if text.strip() == "none" else parse_names(text)


def show_materialize(orderings: tuple[str, ...]) -> str:
    """The inverse of :func:`parse_materialize`."""
    return ",".join(orderings) or "none"


@dataclass(frozen=True)
class HaystackCraftBuild:
    """HaystackCraft static NIAH: retriever-built haystacks of every size and ordering, with retrieval metrics.

    Attributes:
        corpus: Corpus sources (MediaWiki ``.xml``/``.xml.bz2`` dumps, passage ``.json``/``.jsonl``/
            ``.parquet`` files), concatenated in order; empty means the synthetic world.
        qa: Question files (MuSiQue, HotpotQA, Natural Questions); empty with the world means its questions.
        world_docs: Articles of the synthetic world (when ``corpus`` is empty).
        world_questions: Questions of the synthetic world.
        max_questions: Keep only the first questions (all when ``None``).
        strategies: Retrieval strategies.
        sizes: Haystack sizes in tokens (0 = needles only).
        orderings: Haystack orderings stored as doc-id lists.
        materialize: Orderings whose full prompts are written as ``static-<ordering>`` configs.
        top_k: Documents kept per ranking (enough to fill the largest size).
        dense_model: Sentence-transformers model of the dense retriever ("" = the offline default).
        bm25_analyzer: BM25 text analysis: ``plain`` (bm25s's tokenizer) or ``lucene`` (Lucene's EnglishAnalyzer,
            as the paper's Pyserini index; :mod:`builders.retrieval.analysis`).
        dense_query_instruction: The dense query prefix: ``auto`` (the paper's instruction for Qwen3-Embedding
            models, the model's own prompt otherwise), ``model``, ``none``, or an instruction
            (:func:`builders.retrieval.query_prompts.query_prompt_for`).
        cache: Cache folder for indexes, embeddings and rankings ("" = the default).
        workers: Processes for parsing dumps (0 = all cores).
        seed: Build seed (random orderings, the world).
        tokenizer: Tokenizer spec counting every budget.
        preset: ``""`` or ``paper`` (the authors' setup; options left at their default take its
            values, :data:`generators.haystackcraft.preset.PAPER_VALUES`).
        prompt_layout: ``needlework`` (Appendix B as printed) or ``official`` (``<text>`` wrapper,
            ``Article {i}`` prefixes).
        budget_rule: ``haystack`` (a size counts the documents) or ``prompt`` (the whole prompt).
        no_context: Also write ``static-no-context`` (Appendix G: each question without documents).
        official_corpus: The authors' ``docs.jsonl`` (``edge_list.csv`` beside it) or their folder.
        qa_ids: Keep only the questions whose ids this file lists (one per line).
    """

    corpus: tuple[str, ...] = option((), "Corpus: a MediaWiki .xml/.xml.bz2 dump or a passage .json/.jsonl/.parquet file "
                                         "(repeatable; concatenated). Default: the synthetic world.", multiple=True)
    qa: tuple[str, ...] = option((), "Questions: MuSiQue, HotpotQA or Natural Questions file (repeatable).", multiple=True)
    world_docs: int = option(2_000, "Synthetic-world articles (without --corpus).")
    world_questions: int = option(200, "Synthetic-world questions (without --corpus).")
    max_questions: int | None = option(None, "Keep only the first N questions.")
    strategies: tuple[str, ...] = option(STRATEGIES, "Retrieval strategies: bm25, dense, hybrid, each optionally +ppr.",
                                         flag="retrievers")
    sizes: tuple[int, ...] = option(DEFAULT_SIZES, "Comma-separated haystack sizes in tokens (0 = needles only). "
                                    + TOKENS_HELP, parse=parse_token_list, default_text="0,8k,16k,32k,64k,128k")
    orderings: tuple[str, ...] = option(ORDERINGS, "Haystack orderings stored as doc-id lists.")
    materialize: tuple[str, ...] = option(("descending",), "Orderings whose full prompts are written (static-<ordering> "
                                          "configs); 'none' for none.", parse=parse_materialize, show=show_materialize)
    top_k: int = option(DEFAULT_TOP_K, "Documents kept per ranking.")
    dense_model: str = option("", "Dense model (e.g. Qwen/Qwen3-Embedding-0.6B, the paper's); default: all-MiniLM-L6-v2 "
                                  "shipped offline.")
    bm25_analyzer: str = option(PLAIN, "BM25 text analysis: plain (bm25s's tokenizer, no stemming) or lucene (Lucene's "
                                       "EnglishAnalyzer as the paper's Pyserini index: possessives, 33 stop words, Porter).")
    dense_query_instruction: str = option(AUTO, "Dense query prefix: auto (the paper's 'Given a query, retrieve relevant "
                                                "documents that answer the query' for Qwen3-Embedding models, the model's "
                                                "own prompt otherwise), model, none, or an instruction text.")
    cache: str = option("", "Cache folder for indexes, embeddings and rankings (default $NEEDLEWORK_CACHE or "
                            "~/.cache/needlework).", record=False)
    workers: int = option(0, "Processes parsing a dump (0 = all cores).", record=False)
    engine: EngineName = option("local", ENGINE_HELP, record=False)  # noqa: RUF009
    ray_address: str = option("", RAY_ADDRESS_HELP, record=False)
    ray_workers: int = option(0, RAY_WORKERS_HELP, record=False)
    seed: int = option(0, "Build seed.")
    tokenizer: str = option(DEFAULT_TOKENIZER, "Tokenizer spec (default: the paper's Qwen2.5-1M tokenizer).")
    preset: Preset = option("", "Reproduce the authors' setup: paper (official prompt layout and whole-prompt "  # noqa: RUF009
                                "budget, top 2560, Lucene-style BM25, the paper's dense query instruction, no-context "
                                "configs); options given explicitly override it.", default_text="")
    prompt_layout: PromptLayout = option("needlework", "Prompt layout: needlework (Appendix B as printed) or official "  # noqa: RUF009
                                                       "(prompts/context.txt: <text> wrapper, 'Article i' prefixes).")
    budget_rule: BudgetRule = option("haystack", "What a size counts: haystack (the documents) or prompt (the whole "  # noqa: RUF009
                                                 "prompt, as the authors' code).")
    no_context: bool = option(False, "Also write static-no-context: every question without documents (Appendix G).")
    official_corpus: str = option("", "The authors' corpus: docs.jsonl (edge_list.csv beside it) or the folder of both; "
                                      "--qa then reads their question files (id, question, answer, answer_aliases, p2d_id).")
    qa_ids: str = option("", "Keep only the questions whose ids this file lists, one per line (e.g. the paper's 500).")
    dynamic: bool = option(False, "Also write the dynamic NIAH config (question subset, needles) and the BM25 index and "
                                  "embeddings its live retrieval needs (builders/haystackcraft_dynamic.py).")
    dynamic_questions: int = option(100, "Dynamic NIAH questions, drawn with the seed (the paper's 100).")
    dynamic_ids: str = option("", "Dynamic NIAH question ids instead: a file of JSON lines with an id field (the official "
                                  "100_for_multi.jsonl) or one id per line.")

    def __post_init__(self) -> None:
        apply_preset(self)
        check_layout(self.prompt_layout)
        engine_of(self)  # refuses --ray-address without --engine ray, negative worker counts
        if not self.dynamic and (self.dynamic_ids or self.dynamic_questions != 100):
            raise SpecError("--dynamic-ids and --dynamic-questions choose the dynamic NIAH questions: add --dynamic")
        require_one_of("budget_rule", self.budget_rule, BUDGET_RULES)
        if self.official_corpus and self.corpus:
            raise SpecError("--official-corpus and --corpus are two corpora; give one")
        spec = self.haystack_spec()
        missing = [o for o in self.materialize if o not in spec.orderings]
        if missing:
            raise SpecError(f"--materialize names orderings that are not built: {missing}; built: {', '.join(spec.orderings)}")
        if self.top_k < 1:
            raise SpecError(f"top_k must be positive, got {self.top_k}")
        require_one_of("bm25_analyzer", self.bm25_analyzer, ANALYZERS)
        if not self.dense_query_instruction.strip():
            raise SpecError("dense_query_instruction is empty; use auto, model, none or an instruction")
        if self.qa and not (self.corpus or self.official_corpus):
            raise SpecError("--qa needs the --corpus its supporting documents come from")

    def haystack_spec(self) -> HaystackSpec:
        """The haystack grid of this build."""
        return HaystackSpec(self.strategies, self.sizes, self.orderings)
