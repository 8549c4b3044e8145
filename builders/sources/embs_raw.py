"""Raw sources of EverMemBench-S's Table 5 standardized into (Query, Answer, RefDoc) triples (paper §3.1-3.2, A.4).

Three of the paper's nine sources (spec §2): LongBench, BABILong and RAGBench. Each reader takes
local record files in the source's real format (``.jsonl``, ``.json``, ``.parquet``) or Hub specs
``hub:REPO[:CONFIG][@SPLIT]`` and returns a :class:`RawRead`: an :class:`EmbsSource` and the
triples it could not keep, with the reason (never a silent drop).

Long contexts become documents (OURS, spec §2) of at most ``max_doc_tokens`` (2,000) by
:func:`split_document`, counted with a :class:`TokenCounter` if given, else by :func:`estimate_tokens`.
Pieces are titled ``"{source} {record id} ({i}/{n})"`` and de-duplicated by :func:`text_key` within a
read; every piece stays a document even when its triple is dropped (the MemoryBank holds all raw data, §3.1).

Domains (OURS; the paper's A.1 guidelines are not public, spec §2 plans an LLM classifier): a
source or subset whose content sits in one of the eight domains gets it by default
(:data:`LONGBENCH_DOMAINS`, :data:`RAGBENCH_DOMAINS`); open-domain ones get null, left to the classifier.
"""

from __future__ import annotations

import json
import math
import re
import string
import zipfile
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pyarrow as pa

from builders.hashing import file_sha256
from builders.sources.embs_source import DOC_SCHEMA, TRIPLE_SCHEMA, EmbsSource, text_key
from builders.sources.names import HUB
from builders.sources.records import read_records, record_error, require_field
from needlework.checks import require_one_of
from needlework.errors import InputError, SpecError
from needlework.hub import hub_errors, load_hub_dataset
from needlework.tokens import TokenCounter

SUFFIXES = (".json", ".jsonl", ".parquet")
SPLITS = ("test", "train")
MAX_DOC_TOKENS = 2000
CHARS_PER_TOKEN = 3  # non-CJK characters per estimated token (conservative: English BPE averages ~4)
LONGBENCH_DOMAINS: Mapping[str, str] = {
    # Tasks not listed (Wikipedia multi-hop, news, meetings, few-shot, synthetic) are mixed-domain: null.
    "narrativeqa": "literature",  # books and movie scripts
    "qasper": "technology",  # NLP papers
    "lcc": "technology", "repobench-p": "technology",  # code
}
RAGBENCH_DOMAINS: Mapping[str, str] = {
    # msmarco (web search) and expertqa (32 expert fields) are mixed-domain: null.
    "pubmedqa": "medical", "covidqa": "medical",
    "finqa": "finance", "tatqa": "finance",
    "cuad": "law",
    "techqa": "technology", "emanual": "technology", "delucionqa": "technology",
    "hotpotqa": "history", "hagrid": "history",  # Wikipedia entities, people and events: the closest label
}
RAGBENCH_SUBSETS = ("covidqa", "cuad", "delucionqa", "emanual", "expertqa", "finqa", "hagrid", "hotpotqa", "msmarco",
                    "pubmedqa", "tatqa", "techqa")
NOT_LOCATABLE = frozenset({"yes", "no"})  # answers no document "contains"; such triples are dropped
ATTRIBUTION = {
    "longbench": "- LongBench (Bai et al., 2023): Hub `THUDM/LongBench` (`data.zip`); licence: see its dataset card.",
    "babilong": "- BABILong (Kuratov et al., 2024): Hub `RMT-team/babilong`; licence: see its dataset card.",
    "ragbench": "- RAGBench (Friel et al., 2024): Hub `rungalileo/ragbench`, cc-by-4.0.",
}

_BOUNDARIES = (
    re.compile(r"\n[ \t\r]*\n\s*"),  # paragraphs
    re.compile(r"\n"),  # lines
    re.compile(r"[.!?。！？]+[\"'”’)\]]*\s*"),  # sentences
)
_PASSAGE = re.compile(r"(?m)^Passage \d+:[ \t]*\n?")  # LongBench multi-doc QA: "Passage 1:\n{title}\n{text}"
_CJK = re.compile(r"[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\uac00-\ud7af]")
_SENTENCE = re.compile(r"(?<=[.!?])\s+")
_KEY_DOC = re.compile(r"^(\d+)")
_WORD = frozenset(string.ascii_lowercase + string.digits)  # text is casefolded before the boundary check
_HARD_CUT_CHARS_PER_TOKEN = 64  # a window wide enough for any token when cutting text that has no boundary


@dataclass(frozen=True)
class RawRead:
    """A raw source standardized, and the triples left out.

    Attributes:
        source: Documents and the kept triples.
        dropped: ``(qid, reason)`` per triple left out, in input order.
    """

    source: EmbsSource
    dropped: tuple[tuple[str, str], ...]


@dataclass(frozen=True)
class _Input:
    records: list[dict[str, Any]]
    name: str  # file path or Hub spec, for errors
    stem: str  # file stem or Hub config/split, for ids
    fingerprint: str
    key: str = ""  # what names it in the manifest's fingerprints: the Hub spec, or a file's folder/name (not where it lies)


class _Builder:
    """Collects documents (de-duplicated by text) and triples for one read."""

    def __init__(self, source: str, split: str, max_doc_tokens: int, tokens: TokenCounter | None) -> None:
        if max_doc_tokens < 1:
            raise SpecError(f"max_doc_tokens must be >= 1, got {max_doc_tokens}")
        require_one_of("split", split, SPLITS)
        self.source, self.split, self.cap = source, split, max_doc_tokens
        self.measure: Callable[[str], int] = tokens.count if tokens is not None else estimate_tokens
        self.docs: list[dict[str, Any]] = []
        self.position: dict[str, int] = {}
        self.triples: list[dict[str, Any]] = []
        self.dropped: list[tuple[str, str]] = []

    def add_pieces(self, record_id: str, pieces: Sequence[str], lang: str, domain: str | None) -> list[int]:
        positions = []
        for number, text in enumerate(pieces, start=1):
            key = text_key(text)
            if key not in self.position:
                self.position[key] = len(self.docs)
                title = f"{self.source} {record_id} ({number}/{len(pieces)})"
                self.docs.append({"title": title, "text": text, "lang": lang, "source": self.source, "domain": domain})
            positions.append(self.position[key])
        return positions

    def add_triple(self, qid: str, query: str, answers: list[str], refs: Iterable[int], lang: str,
                   domain: str | None) -> None:
        self.triples.append({"qid": qid, "query": query, "answer": answers[0], "answers": answers,
                             "ref_docs": list(dict.fromkeys(refs)), "source": self.source, "lang": lang,
                             "split": self.split, "domain": domain})

    def result(self, inputs: Sequence[_Input]) -> RawRead:
        label = f"{self.source}({', '.join(i.stem for i in inputs)})"
        source = EmbsSource(pa.Table.from_pylist(self.docs, schema=DOC_SCHEMA),
                            pa.Table.from_pylist(self.triples, schema=TRIPLE_SCHEMA), label,
                            {(i.key or i.name): i.fingerprint for i in inputs}, ATTRIBUTION[self.source])
        return RawRead(source, tuple(self.dropped))


def estimate_tokens(text: str) -> int:
    """A token count that errs high without a tokenizer: 1 per CJK character + 1 per 3 other characters.

    BPE tokenizers give about 4 characters per token on English prose, so the cap holds for them.
    """
    cjk = len(_CJK.findall(text))
    return cjk + math.ceil((len(text) - cjk) / CHARS_PER_TOKEN)


def split_document(text: str, max_tokens: int, measure: Callable[[str], int] = estimate_tokens) -> list[str]:
    """Cut a long context into documents of at most ``max_tokens`` (spec §2, OURS), at the coarsest boundaries that fit.

    Why: the MemoryBank holds documents of ~2K tokens (paper §3.1: 326M tokens / 160,280 docs);
    a whole book or multi-document context would be one unretrievable blob. Consecutive units
    (paragraphs; lines, sentences or character runs of over-long ones) are packed greedily.

    Args:
        text: The context.
        max_tokens: The cap per document, as ``measure`` counts.
        measure: Token count of a text (a :class:`TokenCounter`'s ``count``, or :func:`estimate_tokens`).

    Returns:
        The non-empty pieces in order, each an exact stripped substring of ``text``.
    """
    units = _units(text, 0, max_tokens, measure)
    groups: list[list[tuple[str, int]]] = [[]]
    total = 0
    for unit in units:
        if groups[-1] and total + unit[1] > max_tokens:
            groups.append([])
            total = 0
        groups[-1].append(unit)
        total += unit[1]
    pieces = [piece for group in groups for piece in _verified(group, max_tokens, measure)]
    return [p.strip() for p in pieces if p.strip()]


def read_longbench(inputs: Sequence[str | Path] | str | Path, *, tasks: Iterable[str] | None = None, split: str = "test",
                   max_doc_tokens: int = MAX_DOC_TOKENS, tokens: TokenCounter | None = None,
                   domains: Mapping[str, str] = LONGBENCH_DOMAINS) -> RawRead:
    """Read LongBench (v1) records: ``input`` -> Query, ``answers`` -> Answer, the context pieces holding an answer -> RefDoc.

    Multi-document contexts are first split at their ``Passage n:`` markers (one passage per
    document, cut further only if over the cap); others at paragraph boundaries.

    Args:
        inputs: Files of LongBench records (``input``, ``context``, ``answers``, ``dataset``,
            ``language``, ``_id``) or Hub specs ``hub:THUDM/LongBench:<task>`` (the repo's
            ``data.zip`` member ``data/<task>.jsonl``).
        tasks: Keep only these ``dataset`` values (default: all).
        split: The triples' split, ``test`` or ``train``.
        max_doc_tokens: Cap per document.
        tokens: Counts tokens for the cap; None estimates from characters.
        domains: ``dataset`` -> domain; tasks not in it get null.

    Returns:
        qid ``longbench/<dataset>/<_id>``; a triple whose answers no piece contains (summaries,
        counts, yes/no) is in ``dropped``.

    Raises:
        InputError: A file is unreadable or a record lacks a field or has the wrong type.
    """
    builder = _Builder("longbench", split, max_doc_tokens, tokens)
    read = [_load(i, "THUDM/LongBench") for i in _as_list(inputs)]
    keep = None if tasks is None else set(tasks)
    for source in read:
        for index, record in enumerate(source.records):
            task = _text(record, "dataset", source, index)
            if keep is None or task in keep:
                _longbench_record(builder, record, source, index, task, domains.get(task))
    return builder.result(read)


def read_babilong(inputs: Sequence[str | Path] | str | Path, *, facts: Sequence[str | Path] | str | Path | None = None,
                  split: str = "test", max_doc_tokens: int = MAX_DOC_TOKENS, tokens: TokenCounter | None = None) -> RawRead:
    """Read BABILong records: ``question`` -> Query, ``target`` -> Answer, the pieces holding the facts -> RefDoc.

    The facts are the sentences of the same task's ``0k`` sample (the bAbI story without filler),
    so the RefDoc is where those sentences landed in the long ``input`` (spec §2). Answers such as
    "yes" or "two" need not appear in the text; the facts locate the evidence instead.

    Args:
        inputs: Files of one length config's records (``input``, ``question``, ``target``), or
            Hub specs ``hub:RMT-team/babilong:<length>@<qaN>``.
        facts: The ``0k`` records of the same tasks, one per input, in the same order (a Hub
            input defaults to its ``0k`` config); None for a local input reads its own
            ``input`` as the facts (the input is the ``0k`` config).
        split: The triples' split, ``test`` or ``train``.
        max_doc_tokens: Cap per document.
        tokens: Counts tokens for the cap; None estimates from characters.

    Returns:
        qid ``babilong/<stem>/<00000>`` (0-based record position); a triple with a fact sentence
        in no piece is in ``dropped``.

    Raises:
        InputError: A record is malformed, or a facts file differs from its input in length,
            question or target (the files are not the same task).
    """
    builder = _Builder("babilong", split, max_doc_tokens, tokens)
    read = [_load(i, "RMT-team/babilong") for i in _as_list(inputs)]
    fact_inputs = [None] * len(read) if facts is None else _as_list(facts)
    if len(fact_inputs) != len(read):
        raise SpecError(f"read_babilong: {len(fact_inputs)} facts inputs for {len(read)} inputs; give one per input")
    fact_read = [_babilong_facts(spec, source) for spec, source in zip(fact_inputs, read)]
    for source, fact_source in zip(read, fact_read):
        for index, (record, fact_record) in enumerate(zip(source.records, fact_source.records)):
            _babilong_record(builder, record, fact_record, source, fact_source, index)
    return builder.result(read + [f for f, s in zip(fact_read, read) if f is not s])


def read_ragbench(inputs: Sequence[str | Path] | str | Path, *, subset: str | None = None, split: str = "test",
                  key_field: str = "all_relevant_sentence_keys", max_doc_tokens: int = MAX_DOC_TOKENS,
                  tokens: TokenCounter | None = None, domains: Mapping[str, str] = RAGBENCH_DOMAINS) -> RawRead:
    """Read RAGBench records: ``question`` -> Query, ``response`` -> Answer, the documents its relevance keys cite -> RefDoc.

    A key such as ``"0a"`` or ``"1c"`` names sentence ``a``/``c`` of document 0/1 (its leading
    integer). A document over the cap is split; its RefDoc pieces are those holding a relevant
    sentence (``documents_sentences``), or all of its pieces when none can be located.

    Args:
        inputs: Files of one subset's records (``id``, ``question``, ``documents``, ``response``,
            ``documents_sentences``, the relevance keys), e.g. ``covidqa/test-00000-of-00001.parquet``,
            or Hub specs ``hub:rungalileo/ragbench:<subset>@<split>``.
        subset: The subset's name (``covidqa``...); default: the record's ``dataset_name``, else the
            Hub config or the file's folder or stem that names a subset, else the file's stem.
        split: The triples' split, ``test`` or ``train``.
        key_field: The relevance keys (``all_utilized_sentence_keys`` is the other annotation).
        max_doc_tokens: Cap per document.
        tokens: Counts tokens for the cap; None estimates from characters.
        domains: Subset -> domain; subsets not in it get null.

    Returns:
        qid ``ragbench/<subset>/<id>``; a triple with no relevance key is in ``dropped``.

    Raises:
        InputError: A record is malformed, or a key names no document of the record.
    """
    builder = _Builder("ragbench", split, max_doc_tokens, tokens)
    read = [_load(i, "rungalileo/ragbench") for i in _as_list(inputs)]
    for source in read:
        for index, record in enumerate(source.records):
            name = subset or record.get("dataset_name") or _ragbench_subset(source.stem)
            _ragbench_record(builder, record, source, index, name, key_field, domains.get(name))
    return builder.result(read)


READERS: Mapping[str, Callable[..., RawRead]] = {"longbench": read_longbench, "babilong": read_babilong,
                                                "ragbench": read_ragbench}


def read_raw(kind: str, path: str | Path | Sequence[str | Path], **kw: Any) -> RawRead:
    """Read a raw source by name, so a CLI option or a spec can name it (keywords go to the reader).

    Raises:
        SpecError: ``kind`` is not one of :data:`READERS` (the message lists them).
    """
    require_one_of("raw EMB-S source", kind, READERS)
    return READERS[kind](path, **kw)


def _longbench_record(builder: _Builder, record: Mapping[str, Any], source: _Input, index: int, task: str,
                      domain: str | None) -> None:
    record_id = _text(record, "_id", source, index)
    qid = f"longbench/{task}/{record_id}"
    query, context = _text(record, "input", source, index), _text(record, "context", source, index)
    answers, lang = _texts(record, "answers", source, index), _text(record, "language", source, index)
    passages = [p for p in _PASSAGE.split(context) if p.strip()] if _PASSAGE.search(context) else [context]
    pieces = [piece for passage in passages for piece in split_document(passage, builder.cap, builder.measure)]
    positions = builder.add_pieces(record_id, pieces, lang, domain)
    refs = [positions[i] for i in _holding(pieces, (a for a in answers if _normalize(a) not in NOT_LOCATABLE))]
    if refs:
        builder.add_triple(qid, query, answers, refs, lang, domain)
    else:
        builder.dropped.append((qid, f"no document piece contains an answer ({', '.join(map(repr, answers))})"))


def _babilong_facts(spec: str | Path | None, source: _Input) -> _Input:
    if spec is None and source.name.startswith(HUB):
        repo, config, split = _hub_parts(source.name, "RMT-team/babilong")
        spec = None if config == "0k" else f"{HUB}{repo}:0k@{split}"
    facts = source if spec is None else _load(spec, "RMT-team/babilong")
    if len(facts.records) != len(source.records):
        raise InputError(facts.name, None, None, f"{len(facts.records)} fact records for {len(source.records)} in {source.name}")
    return facts


def _babilong_record(builder: _Builder, record: Mapping[str, Any], fact_record: Mapping[str, Any], source: _Input,
                     fact_source: _Input, index: int) -> None:
    query, target = _text(record, "question", source, index), _text(record, "target", source, index)
    for name, value in (("question", query), ("target", target)):
        if _text(fact_record, name, fact_source, index).strip() != value.strip():
            raise record_error(fact_source.name, index, name, f"differs from {source.name} record {index + 1}: not the same task")
    record_id = f"{source.stem}/{index:05d}"
    qid = f"babilong/{record_id}"
    pieces = split_document(_text(record, "input", source, index), builder.cap, builder.measure)
    facts = [f for f in _SENTENCE.split(_text(fact_record, "input", fact_source, index)) if f.strip()]
    positions = builder.add_pieces(record_id, pieces, "en", None)
    normalized = [_normalize(piece) for piece in pieces]
    holding = [[positions[i] for i, hay in enumerate(normalized) if _contains(hay, _normalize(fact))] for fact in facts]
    missing = [fact for fact, found in zip(facts, holding) if not found]
    if facts and not missing:
        builder.add_triple(qid, query, [target], [p for found in holding for p in found], "en", None)
    else:
        builder.dropped.append((qid, f"fact sentence(s) in no document piece: {missing or 'no facts'}"))


def _ragbench_record(builder: _Builder, record: Mapping[str, Any], source: _Input, index: int, name: str,
                     key_field: str, domain: str | None) -> None:
    record_id = f"{name}/{_scalar(record, 'id', source, index)}"
    qid = f"ragbench/{record_id}"
    query, answer = _text(record, "question", source, index), _text(record, "response", source, index)
    documents = _texts(record, "documents", source, index)
    keys = require_field(record, key_field, source.name, index)
    if not isinstance(keys, list) or not all(isinstance(k, str) for k in keys):
        raise record_error(source.name, index, key_field, "expected a list of sentence keys such as '0a'")
    cited: dict[int, list[str]] = {}
    for key in keys:
        match = _KEY_DOC.match(key)
        if match is None or int(match.group(1)) >= len(documents):
            raise record_error(source.name, index, key_field, f"key {key!r} names no document of {len(documents)}")
        cited.setdefault(int(match.group(1)), []).append(key)
    pieces = [split_document(d, builder.cap, builder.measure) for d in documents]
    positions = builder.add_pieces(record_id, [p for doc in pieces for p in doc], "en", domain)
    if not cited:
        builder.dropped.append((qid, f"no {key_field}"))
        return
    sentences = _sentence_texts(record.get("documents_sentences"))
    offsets = [sum(map(len, pieces[:d])) for d in range(len(pieces))]
    refs = []
    for doc, doc_keys in sorted(cited.items()):
        holding = _holding(pieces[doc], (sentences[k] for k in doc_keys if k in sentences))
        refs.extend(positions[offsets[doc] + i] for i in (holding or range(len(pieces[doc]))))
    builder.add_triple(qid, query, [answer], refs, "en", domain)


def _ragbench_subset(stem: str) -> str:
    parts = stem.split("/")
    return next((part for part in parts if part in RAGBENCH_SUBSETS), parts[-1])


def _sentence_texts(value: Any) -> dict[str, str]:
    """``documents_sentences`` ([[key, sentence], ...] per document) as key -> sentence; malformed parts are skipped."""
    if not isinstance(value, list):
        return {}
    return {pair[0]: pair[1] for doc in value if isinstance(doc, list) for pair in doc
            if isinstance(pair, list | tuple) and len(pair) == 2 and all(isinstance(x, str) for x in pair)}


def _units(text: str, level: int, cap: int, measure: Callable[[str], int]) -> list[tuple[str, int]]:
    count = measure(text)
    if count <= cap:
        return [(text, count)]
    if level == len(_BOUNDARIES):
        return [(piece, measure(piece)) for piece in _hard_cut(text, cap, measure)]
    ends = [m.end() for m in _BOUNDARIES[level].finditer(text) if 0 < m.end() < len(text)]
    parts = [text[a:b] for a, b in zip([0, *ends], [*ends, len(text)])]
    return [unit for part in parts for unit in _units(part, level + 1, cap, measure)]


def _hard_cut(text: str, cap: int, measure: Callable[[str], int]) -> list[str]:
    pieces = []
    while text:
        low, high = 1, min(len(text), cap * _HARD_CUT_CHARS_PER_TOKEN)
        while low < high:  # the longest prefix within the cap (at least one character)
            middle = (low + high + 1) // 2
            low, high = (middle, high) if measure(text[:middle]) <= cap else (low, middle - 1)
        pieces.append(text[:low])
        text = text[low:]
    return pieces


def _verified(group: list[tuple[str, int]], cap: int, measure: Callable[[str], int]) -> list[str]:
    # Summed unit counts bound the estimate; a tokenizer may merge across a join, so check each piece once.
    text = "".join(unit for unit, _ in group)
    if len(group) == 1 or measure(text) <= cap:
        return [text]
    half = len(group) // 2
    return _verified(group[:half], cap, measure) + _verified(group[half:], cap, measure)


def _normalize(text: str) -> str:
    return " ".join(text.split()).casefold()


def _holding(pieces: Sequence[str], needles: Iterable[str]) -> list[int]:
    """Indices of the pieces that contain any needle, ignoring case and whitespace runs, not inside an ASCII word."""
    pins = [pin for pin in map(_normalize, needles) if pin]
    return [i for i, hay in enumerate(map(_normalize, pieces)) if any(_contains(hay, pin) for pin in pins)]


def _contains(hay: str, pin: str) -> bool:
    start = hay.find(pin)
    while start >= 0:
        end = start + len(pin)
        if not (start and hay[start - 1] in _WORD and pin[0] in _WORD) and \
                not (end < len(hay) and hay[end] in _WORD and pin[-1] in _WORD):
            return True
        start = hay.find(pin, start + 1)
    return False


def _as_list(inputs: Sequence[str | Path] | str | Path) -> list[str | Path]:
    return [inputs] if isinstance(inputs, str | Path) else list(inputs)


def _load(spec: str | Path, default_repo: str) -> _Input:
    text = str(spec)
    if text.startswith(HUB):
        return _load_hub(text, default_repo)
    path = Path(spec)
    return _Input(read_records(path, SUFFIXES), str(path), f"{path.parent.name}/{path.stem}", file_sha256(path),
                  f"local-file/{path.parent.name}/{path.name}")


def _hub_parts(spec: str, default_repo: str) -> tuple[str, str, str]:
    # hub:REPO[:CONFIG][@SPLIT] -> (repo or default_repo, config, split or "test")
    repo_config, _, split = spec[len(HUB):].partition("@")
    repo, _, config = repo_config.partition(":")
    return repo or default_repo, config, split or "test"


def _load_hub(spec: str, default_repo: str) -> _Input:
    """Records of a Hub spec: LongBench from its ``data.zip`` (a script dataset ``datasets`` >= 4 cannot run), others with ``datasets``."""
    import huggingface_hub  # lazy: only a Hub read needs it

    repo, config, split = _hub_parts(spec, default_repo)
    with hub_errors(f"{spec}: cannot read {repo} from the Hub"):
        commit = huggingface_hub.HfApi().dataset_info(repo).sha
        archive_path = huggingface_hub.hf_hub_download(repo, "data.zip", repo_type="dataset", revision=commit) \
            if repo.endswith("/LongBench") else None
    if archive_path is not None:
        member = f"data/{config}.jsonl"
        with zipfile.ZipFile(archive_path) as archive:
            if member not in archive.namelist():
                raise InputError(spec, None, None, f"no {member} in {repo}'s data.zip; give the task as hub:{repo}:<task>")
            lines = archive.read(member).decode("utf-8").split("\n")
        records = [_json_line(line, f"{spec} ({member})", number) for number, line in enumerate(lines, 1) if line.strip()]
    else:
        records = list(load_hub_dataset(repo, config or None, split=split, revision=commit, label=spec))
    return _Input(records, spec, f"{config}/{split}", f"{repo}@{commit}")


def _json_line(line: str, source: str, number: int) -> Any:
    try:
        return json.loads(line)
    except json.JSONDecodeError as err:
        raise InputError(source, None, None, f"line {number} is not valid JSON ({err.msg})") from None


def _text(record: Mapping[str, Any], name: str, source: _Input, index: int) -> str:
    value = require_field(record, name, source.name, index)
    if not isinstance(value, str):
        raise record_error(source.name, index, name, f"expected text, got {type(value).__name__}")
    return value


def _texts(record: Mapping[str, Any], name: str, source: _Input, index: int) -> list[str]:
    value = require_field(record, name, source.name, index)
    if not isinstance(value, list) or not value or not all(isinstance(v, str) for v in value):
        raise record_error(source.name, index, name, "expected a non-empty list of texts")
    return value


def _scalar(record: Mapping[str, Any], name: str, source: _Input, index: int) -> str:
    value = require_field(record, name, source.name, index)
    if not isinstance(value, str | int) or isinstance(value, bool):
        raise record_error(source.name, index, name, f"expected a text or integer id, got {type(value).__name__}")
    return str(value)
