"""Build a Sequential-NIAH release: needle QAs from three pipelines, long texts by length bucket,
samples in train/dev/test, noise variants of test samples, and judge-training data."""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from tqdm.autonotebook import tqdm

from builders.base import Builder, wrote_line
from builders.card import CardFacts
from builders.features import Features, List, Value
from builders.hashing import file_sha256
from builders.release import ReleaseWriter, base_manifest
from builders.sources.names import WORLD
from builders.specs.sequential_niah import SequentialNiahBuild
from builders.sources.filler import text_attribution
from builders.sources.icews import read_icews
from builders.sources.tkg_time import parse_start, parse_unit
from builders.sources.long_texts import read_long_texts
from builders.sources.ordered_qa import read_ordered_questions
from needlework.errors import SpecError
from generators.seeding import rng_for
from generators.sequential_niah.assemble import check_stated_once, generate_samples
from generators.sequential_niah.judge import build_judge_sets
from generators.sequential_niah.logical import LogicalSpec, logical_qas
from generators.sequential_niah.noise import (
    NOISE_TYPES, generate_noise,
)
from generators.sequential_niah.qa import SequentialQA
from generators.sequential_niah.spec import BENCHMARK, QA_SHARES, JudgeSpec, bucket_named
from generators.sequential_niah.splits import assign_splits, pair_texts, paired, scaled_counts
from generators.sequential_niah.synthetic import SyntheticSpec
from generators.sequential_niah.texts import LongText, bucket_texts
from generators.sequential_niah.tkg import TkgSpec, tkg_qas
from generators.sequential_niah.world_qa import (
    WorldTemporalSpec, world_logical_qas, world_synthetic_qas, world_temporal_qas,
)
from needlework.tokens import TokenCounter
from generators.world.spec import WorldSpec
from generators.world.tables import generate_world
from needlework.tokenizers import load_tokenizer

SPLITS = ("train", "dev", "test")
QA_MARGIN = 1.25
"""QAs drawn per (pipeline, language) beyond the samples they feed, so pairing can choose."""
NEEDLE = {"text": Value("string"), "answer_index": Value("int32"),
          "char_offset": Value("int64"), "token_offset": Value("int64"),
          "segment": Value("int32")}
DISTRACTOR = {"text": Value("string"), "char_offset": Value("int64"),
              "token_offset": Value("int64"), "cut": Value("int64")}
FEATURES = Features({
    "id": Value("string"), "input": Value("string"), "question": Value("string"),
    "answers": List(Value("string")), "reference": Value("string"),
    "ordered": Value("bool"), "needles": List(NEEDLE), "lang": Value("string"),
    "pipeline": Value("string"), "length_bucket": Value("string"),
    "n_tokens": Value("int32"), "text_id": Value("string"),
    "cuts": List(Value("int64")), "qid": Value("string"), "source": Value("string"),
    "variant": Value("string"), "original_id": Value("string"), "text_end": Value("int64"),
    "distractors": List(DISTRACTOR),
})
"""Samples and noise variants: needles in text order, ``answers`` in true order."""
TEXT_FEATURES = Features({
    "text_id": Value("string"), "lang": Value("string"), "source": Value("string"),
    "text": Value("string"), "n_tokens": Value("int32"), "length_bucket": Value("string"),
    "origin": Value("string"), "parts": List(Value("string")),
})
JUDGE_FEATURES = Features({
    "id": Value("string"), "split": Value("string"), "qid": Value("string"),
    "lang": Value("string"), "pipeline": Value("string"), "source": Value("string"),
    "order_type": Value("string"), "ordered": Value("bool"), "group": Value("string"),
    "shuffled": Value("bool"), "label": Value("string"), "question": Value("string"),
    "reference": Value("string"), "answers": List(Value("string")),
    "candidate": Value("string"), "candidate_items": List(Value("string")),
    "item_answer_index": List(Value("int32")), "prompt": Value("string"),
    "reason_prompt": Value("string"),
})
FACTS = CardFacts(
    benchmark=BENCHMARK, pretty_name="Sequential-NIAH (needlework build)", license="apache-2.0",
    language=("en", "zh"), task_categories=("question-answering", "text-generation"),
    tags=("long-context", "needle-in-a-haystack", "sequential-niah", "temporal-reasoning"), attribution="",
)


@dataclass(frozen=True)
class BuildReport:
    """What a build wrote: rows per config and split, and the samples it had to skip."""

    out: Path
    rows: dict[str, int] = field(default_factory=dict)
    skipped: dict[str, str] = field(default_factory=dict)

    def lines(self) -> list[str]:
        """The rows written, and the samples skipped because their needles do not fit their bucket."""
        lines = [wrote_line(self.out, self.rows)]
        if self.skipped:
            first, why = next(iter(self.skipped.items()))
            lines.append(f"skipped {len(self.skipped)} samples whose needles do not fit their bucket (e.g. {first}: "
                         f"{why}); see manifest.json")
        return lines


def question_counts(spec: SequentialNiahBuild) -> dict[tuple[str, str], int]:
    """QAs to draw per (pipeline, language): Table 1's shares of ``size``, with a margin."""
    shares = {key: n for key, n in QA_SHARES.items() if key[1] in spec.langs}
    return {key: max(3, round(n * QA_MARGIN)) for key, n in scaled_counts(shares, spec.size).items()}


def read_questions(spec: SequentialNiahBuild, inputs: dict[str, str],
                   facts: dict[str, object] | None = None) -> list[SequentialQA]:
    """Every pipeline's QAs in every language of the build (the world stands in for missing sources);
    ``facts`` receives how the TKG's time stamps were read (``tkg``: unit, origin, split files)."""
    counts = question_counts(spec)
    # The world is always made: its people are the subjects of synthetic-temporal questions.
    world = generate_world(WorldSpec(docs=spec.world_docs, langs=spec.langs, questions=0), spec.seed)[0]
    graph = None if spec.tkg == WORLD else read_icews(
        Path(spec.tkg), unit=parse_unit(spec.tkg_time_unit) if spec.tkg_time_unit else None,
        start=parse_start(spec.tkg_start) if spec.tkg_start else None)
    if graph is not None:
        inputs.update(graph.fingerprints)
        if facts is not None:
            facts["tkg"] = graph.time
    ordered = None if spec.logical == WORLD else read_ordered_questions(Path(spec.logical))
    if ordered is not None:
        inputs[spec.logical] = file_sha256(Path(spec.logical))
    qas: list[SequentialQA] = []
    for lang in spec.langs:
        qas += world_synthetic_qas(world, SyntheticSpec(lang, counts[("synthetic-temporal", lang)]), seed=spec.seed)
        temporal = counts[("real-temporal", lang)]
        if graph is None:
            qas += world_temporal_qas(world, WorldTemporalSpec(lang, temporal), seed=spec.seed)
        else:
            qas += tkg_qas(graph.quads, TkgSpec(lang, temporal, source=Path(spec.tkg).name), seed=spec.seed)
        if ordered is None:
            logical = world_logical_qas(world, lang, LogicalSpec(), seed=spec.seed)
        else:
            logical = logical_qas([q for q in ordered if q.lang == lang], LogicalSpec(), seed=spec.seed)
        qas += logical[: counts[("real-logical", lang)]]
    return qas


def read_texts(spec: SequentialNiahBuild, tokens: TokenCounter, inputs: dict[str, str]) -> tuple[list[LongText], set[str]]:
    """The long texts of every language, bucketed by ``tokens``, in the build's buckets only, and
    the labels of their sources."""
    buckets = tuple(bucket_named(name) for name in spec.buckets)
    texts: list[LongText] = []
    labels: set[str] = set()
    for lang in spec.langs:
        read = read_long_texts(spec.texts_source(lang), lang, seed=spec.seed, world_docs=spec.world_docs)
        inputs.update(read.fingerprints)
        labels.add(read.label)
        bucketed, _ = bucket_texts(read.documents, tokens, buckets=buckets, join_to=spec.buckets)
        if not bucketed:
            raise SpecError(f"no {lang} long text of {read.label} reaches the buckets {', '.join(spec.buckets)}; "
                            f"give --texts-{lang} longer texts, or leave {lang} out of --langs")
        texts += bucketed
    return texts, labels


def attribution(spec: SequentialNiahBuild, text_labels: set[str]) -> str:
    """The card's Sources section: where the needles' facts and the long texts come from."""
    lines = ["- synthetic-temporal subjects: people of needlework's synthetic world (Apache-2.0)"]
    lines.append("- real-temporal events: " + ("the synthetic world's timelines (Apache-2.0)" if spec.tkg == WORLD else
                 f"the temporal knowledge graph `{Path(spec.tkg).name}` (ICEWS data: Boschee et al., Harvard Dataverse)"))
    lines.append("- real-logical questions: " + ("career paths and place chains of the synthetic world (Apache-2.0)"
                                                if spec.logical == WORLD else f"`{Path(spec.logical).name}`"))
    lines += [f"- long texts: {text_attribution(label)}" for label in sorted(text_labels)]
    return "## Sources\n\n" + "\n".join(lines)


def build(spec: SequentialNiahBuild, out: Path, *, tokens: TokenCounter | None = None, progress: bool = True) -> BuildReport:
    """Build a Sequential-NIAH release at ``out`` (replacing a previous release there atomically).

    Configs: ``default`` (train/dev/test samples, stratified by language, length bucket and
    pipeline), ``noise-<type>`` (three variations of each of ``noise_samples`` test samples, linked
    by ``original_id``), ``texts`` (the raw long texts, so any variant can be rebuilt), and
    ``judge-train`` / ``judge-test`` (candidate answers labelled by the paper's rule). A sample
    whose needles cannot fit its bucket is skipped and named in the manifest.
    """
    tokens = tokens or load_tokenizer(spec.tokenizer)
    buckets = tuple(bucket_named(name) for name in spec.buckets)
    inputs: dict[str, str] = {}
    facts: dict[str, object] = {}
    qas = read_questions(spec, inputs, facts)
    texts, text_labels = read_texts(spec, tokens, inputs)
    pairings, pairing_report = pair_texts(qas, texts, seed=spec.seed, size=spec.size)
    by_sample = {f"{p.qid}@{p.text_id}": p for p in pairings}  # a QA goes into one text: ids are unique
    split_of = assign_splits({sample: (p.lang, p.length_bucket, p.pipeline) for sample, p in by_sample.items()},
                             seed=spec.seed)
    skipped: dict[str, str] = {}
    manifest = base_manifest(BENCHMARK, spec, tokens, inputs) | facts
    if spec.preset:
        manifest["preset"] = spec.preset_record()
    manifest["pairing"] = {"requested": pairing_report.requested, "paired": pairing_report.paired,
                           "texts_reused": pairing_report.reused, "text_moved": pairing_report.text_moved,
                           "articles_kept": pairing_report.articles_kept, "no_text": pairing_report.no_text}
    rows: dict[str, int] = {}
    qa_by = {q.qid: q for q in qas}
    text_by = {t.text_id: t for t in texts}
    with ReleaseWriter(out, replace(FACTS, attribution=attribution(spec, text_labels)), manifest) as release:
        release.declare("default", FEATURES)
        test_rows: list[tuple[dict[str, Any], SequentialQA, LongText]] = []
        samples = generate_samples(paired(pairings, qas, texts), seed=spec.seed, tokens=tokens, buckets=buckets,
                                   on_error=lambda sample, err: skipped.__setitem__(sample, str(err)),
                                   frames=spec.frames)
        for row in tqdm(samples, total=len(pairings), desc="samples", disable=not progress, unit="row"):
            pairing = by_sample[row["id"]]
            check_stated_once(row, qa_by[pairing.qid])
            split = split_of[row["id"]]
            release.write("default", split, row)
            rows[f"default/{split}"] = rows.get(f"default/{split}", 0) + 1
            if split == "test":
                test_rows.append((row, qa_by[pairing.qid], text_by[pairing.text_id]))
        chosen = _noise_originals(test_rows, spec)
        for noise_type in NOISE_TYPES if chosen else ():  # --noise-samples 0 builds no noise configs
            config = f"noise-{noise_type}"
            release.declare(config, FEATURES)
            variants = generate_noise(chosen, seed=spec.seed, tokens=tokens, types=(noise_type,), buckets=buckets,
                                      on_error=lambda sample, err: skipped.__setitem__(sample, str(err)),
                                      rules=spec.noise_rules())
            for row in tqdm(variants, desc=config, disable=not progress, unit="row"):
                check_stated_once(row, qa_by[row["qid"]])
                release.write(config, "test", row)
                rows[f"{config}/test"] = rows.get(f"{config}/test", 0) + 1
        release.declare("texts", TEXT_FEATURES)
        for text in sorted({p.text_id for p in pairings}):
            t = text_by[text]
            release.write("texts", "test", {"text_id": t.text_id, "lang": t.lang, "source": t.source, "text": t.text,
                                            "n_tokens": t.n_tokens, "length_bucket": t.length_bucket,
                                            "origin": t.origin, "parts": list(t.parts)})
            rows["texts/test"] = rows.get("texts/test", 0) + 1
        for split, records in build_judge_sets(qas, JudgeSpec(spec.judge_train, spec.judge_test), seed=spec.seed).items():
            if not records:  # --judge-train 0 or --judge-test 0: no such config
                continue
            config = f"judge-{split}"
            release.declare(config, JUDGE_FEATURES)
            for record in records:
                release.write(config, split, record.to_row())
            rows[f"{config}/{split}"] = len(records)
        release.manifest["skipped"] = dict(sorted(skipped.items()))
    return BuildReport(Path(out), rows, skipped)


def _noise_originals(test_rows: list[tuple[dict[str, Any], SequentialQA, LongText]],
                     spec: SequentialNiahBuild) -> list[tuple[dict[str, Any], SequentialQA, LongText]]:
    """``spec.noise_samples`` test samples drawn at random (all of them when there are fewer)."""
    if len(test_rows) <= spec.noise_samples:
        return test_rows
    rng = rng_for(spec.seed, BENCHMARK, "noise", "originals")
    keep = sorted(rng.choice(len(test_rows), size=spec.noise_samples, replace=False).tolist())
    return [test_rows[i] for i in keep]


def demo_spec(seed: int, tokenizer: str) -> SequentialNiahBuild:
    """Every pipeline, language, noise type and judge set, in the two shortest buckets: 4k-7k fits
    a model with an 8K window (not a paper bucket), 8k-16k is the paper's shortest."""
    return SequentialNiahBuild(size=60, buckets=("4k-7k", "8k-16k"), noise_samples=4, judge_train=80, judge_test=40,
                               world_docs=400, seed=seed, tokenizer=tokenizer)


FEATURES_BY_KIND = {"default": FEATURES, "noise": FEATURES, "texts": TEXT_FEATURES, "judge": JUDGE_FEATURES}


def features(config: str) -> Features:
    """The features of a config: samples and ``noise-<type>`` variants, ``texts``, ``judge-<split>``."""
    return FEATURES_BY_KIND[config.split("-", 1)[0]]


BUILDER = Builder(id=BENCHMARK, spec=SequentialNiahBuild, features=features, facts=FACTS, build=build, demo=demo_spec)
