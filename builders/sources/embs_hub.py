"""The official EverMemBench-S release (Hub dataset ``EverMind-AI/EverMemBench-Static``) as an :class:`EmbsSource`.

Layout (spec §2; read by a third-party loader, not verified against the authors' code)::

    qar/test.jsonl, qar/train_sft.jsonl     {query, answer, reference_list: [document texts]}
    data/{64K,128K,256K}/<domain>/unique_reference.pkl    list[str]: a domain-tier corpus
    data/{512K,1M,...,326M}/unique_reference.pkl          list[str]: a shared corpus
    data/.../data.pkl                                     list[dict]: QAR rows again (not read)

The release has no integer document IDs (the paper's A.3 gives every document one), so a
document's id is its position in the largest flat scale's list (326M, the whole MemoryBank), and
every other corpus becomes a :class:`LadderCorpus` of positions in that list: IDs are the same at
every scale. Gold references and corpus texts are matched by :func:`text_key` (sha256 of the NFC
text); a text missing from the bank is an error, never a silent drop. Pickles are read with an
unpickler that loads plain data only (lists, dicts, strings, numbers, booleans, None).
"""

from __future__ import annotations

import pickle
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pyarrow as pa
from tqdm import tqdm

from builders.hashing import file_sha256
from builders.sources.embs_source import (
    DOC_SCHEMA,
    TRIPLE_SCHEMA,
    EmbsSource,
    LadderCorpus,
    text_key,
)
from builders.sources.records import read_records, record_error
from generators.world.schema import DOMAINS
from needlework.checks import is_one_of, one_of_message
from needlework.errors import InputError, SpecError
from needlework.hub import hub_errors

HUB_REPO = "EverMind-AI/EverMemBench-Static"
LICENCE = "cc-by-nc-sa-4.0"
SOURCE = "embs-hub"
QAR_FILES: Mapping[str, str] = {"test": "qar/test.jsonl", "train": "qar/train_sft.jsonl"}
REFERENCE_FILE = "unique_reference.pkl"
REFERENCE_FIELDS = ("reference_list", "references", "ref_list")
DOMAIN_TIER_SCALE = "64K"  # the scale whose domain folders name a query's domain (paper §3.4: C_d^64K)
ZH_CJK_SHARE = 0.3  # OURS: a text whose non-space characters are > 30% CJK is Chinese
ATTRIBUTION = f"""### EverMemBench-S (official release)

- Source: Hugging Face dataset `{HUB_REPO}` ({LICENCE}; non-commercial, share-alike), by EverMind-AI.
- Queries: the card's `qar` config, 1,225 `test` queries and 4,924 `train` pairs (`qar/train_sft.jsonl`).
  The paper (Table 2) reports 483 final queries: this release is not the paper's set, and the two splits are
  kept apart (`split` column), never merged.
- Documents: `data/<scale>/unique_reference.pkl`; document IDs are positions in the largest scale's list
  (the release has no integer IDs)."""

_SCALE = re.compile(r"^(\d+)([KM])$")
_SCALE_UNIT = {"K": 1 << 10, "M": 1 << 20}
_CJK = re.compile(r"[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\uac00-\ud7af]")
_SPACE = re.compile(r"\s")
_LFS_POINTER = b"version https://git-lfs"
_PLAIN_TYPES = frozenset({list, dict, str, int, float, bool, type(None)})
# What a corrupt or hostile byte stream can make Unpickler.load raise besides UnpicklingError.
_UNPICKLE_ERRORS = (pickle.UnpicklingError, EOFError, ValueError, KeyError, IndexError, TypeError,
                    AttributeError, OverflowError)


@dataclass(frozen=True)
class _Corpus:
    scale: str
    domain: str  # "all" for a flat scale
    path: Path


def read_embs_hub(
    root: Path | None = None,
    *,
    repo_id: str = HUB_REPO,
    revision: str | None = None,
    scales: Sequence[str] | None = None,
    splits: Sequence[str] = ("test", "train"),
    progress: bool = False,
) -> EmbsSource:
    """Read the official EMB-S release, from a local copy or the Hub, into documents, triples and its ladder.

    Spec §2: the release's ``reference_list`` holds document *texts*; they become positions in
    the bank (the largest flat scale read), so ``ref_docs`` and every ladder corpus share one ID space.

    Args:
        root: A folder laid out like the Hub repo (``qar/``, ``data/``); None downloads the files
            (``qar/*.jsonl`` and the ``unique_reference.pkl`` of the chosen scales; ``data.pkl`` is
            not needed) with ``huggingface_hub``.
        repo_id: The Hub dataset to download when ``root`` is None.
        revision: A branch, tag or commit to download (default: the main branch); recorded as the
            resolved commit in ``fingerprints``. Ignored when ``root`` is given.
        scales: Scale labels to read (``"64K"``, ``"512K"``, ``"326M"``...); default every scale.
            They must include a flat scale (>= 512K): the largest one read is the bank, so pass the
            same scales to get the same IDs (the default bank is 326M, a 745 MB pickle).
        splits: The ``qar`` splits to read, of ``test`` and ``train``.
        progress: Show a tqdm bar over the pickles read (downloads show the Hub's own bars).

    Returns:
        Documents (bank order; empty titles: the release has none), triples (qid
        ``embs-hub/<split>/<00000>``, 0-based position in the split's file), the ladder corpora
        (ascending scale, then domain), sha256 of every file read, keyed ``hub:<repo>/<path>`` or
        ``local-copy/<path>`` (the path inside the repo: the same files give the same keys wherever they lie).

    Raises:
        SpecError: An unknown split or scale, or no flat scale among ``scales``.
        InputError: A file is missing, a pickle holds anything but plain data, a record is
            malformed, or a reference or corpus text is not in the bank.
    """
    unknown = sorted(set(splits) - set(QAR_FILES))
    if unknown:
        raise SpecError(f"unknown EMB-S split(s) {unknown}; valid: {', '.join(QAR_FILES)}")
    fingerprints: dict[str, str] = {}
    # names the files in fingerprints: the Hub repo, or a local copy by its files alone, so that a release built
    # from the same files anywhere records the same inputs (never an absolute path)
    base = "local-copy"
    if root is None:
        root, commit = _download(repo_id, revision, scales)
        fingerprints[f"hub:{repo_id}"] = commit
        base = f"hub:{repo_id}"
    root = Path(root)
    if not root.is_dir():
        raise InputError(str(root), None, None, f"no such folder; expected a copy of the Hub repo {repo_id}")
    corpora = _select(_find_corpora(root / "data"), scales, root / "data")
    bank_corpus = _bank(corpora)
    texts = _read_texts(bank_corpus.path)
    position: dict[str, int] = {}
    for index, text in enumerate(texts):
        position.setdefault(text_key(text), index)
    ladder = tuple(_ladder(corpora, bank_corpus, position, len(texts), progress))
    domain_docs = {c.domain: frozenset(c.docs) for c in ladder if c.scale == DOMAIN_TIER_SCALE}
    triples = [row for split in splits for row in _triples(root, split, position, domain_docs, bank_corpus.path)]
    for path in (*(root / QAR_FILES[s] for s in splits), *(c.path for c in corpora)):
        fingerprints[f"{base}/{path.relative_to(root).as_posix()}"] = file_sha256(path)
    counts = ", ".join(f"{s}={sum(t['split'] == s for t in triples)}" for s in splits)
    label = f"embs-hub({base}, bank={bank_corpus.scale}, scales={len({c.scale for c in corpora})}, {counts})"
    return EmbsSource(_docs(texts, domain_docs), pa.Table.from_pylist(triples, schema=TRIPLE_SCHEMA), label,
                      fingerprints, ATTRIBUTION, ladder)


def load_plain_pickle(path: Path) -> Any:
    """Unpickle a file that may hold only plain data: lists, dicts, str, int, float, bool, None.

    Why: a pickle can run arbitrary code when it names a class or function; the release's pickles
    need none, so :meth:`pickle.Unpickler.find_class` refuses every name, and containers the
    opcodes build without a name (tuple, set, bytes) are refused after loading.

    Raises:
        InputError: Naming the file: missing, a Git LFS pointer, not a pickle, or holding another type.
    """
    if not path.is_file():
        raise InputError(str(path), None, None, "file not found")
    with path.open("rb") as handle:
        if handle.read(len(_LFS_POINTER)) == _LFS_POINTER:
            raise InputError(str(path), None, None, "a Git LFS pointer, not the data (run `git lfs pull` or read from the Hub)")
        handle.seek(0)
        try:
            value = _PlainUnpickler(handle).load()
        except _UNPICKLE_ERRORS as err:
            raise InputError(str(path), None, None, f"not a pickle of plain data ({err})") from err
    _check_plain(value, path)
    return value


def detect_lang(text: str) -> str:
    """``"zh"`` when more than 30% of the non-space characters are CJK, else ``"en"`` (OURS; the release has no language field)."""
    letters = len(text) - len(_SPACE.findall(text))
    return "zh" if letters and len(_CJK.findall(text)) > ZH_CJK_SHARE * letters else "en"


def scale_size(label: str) -> int:
    """The size a scale label names, in K = 1,024 units (``"64K"`` -> 65,536), for ordering scales.

    Raises:
        SpecError: The label is not a number followed by K or M.
    """
    match = _SCALE.match(label)
    if match is None:
        raise SpecError(f"unknown scale label {label!r}; expected a number and K or M, such as 64K or 326M")
    return int(match.group(1)) * _SCALE_UNIT[match.group(2)]


class _PlainUnpickler(pickle.Unpickler):
    def find_class(self, module: str, name: str) -> Any:
        raise pickle.UnpicklingError(f"refused {module}.{name}: only list, dict, str, int, float, bool and None may load")


def _check_plain(value: Any, path: Path) -> None:
    stack = [value]
    while stack:
        item = stack.pop()
        if type(item) not in _PLAIN_TYPES:
            raise InputError(str(path), None, None,
                             f"holds a {type(item).__name__}; only list, dict, str, int, float, bool and None are allowed")
        if type(item) is list:
            stack.extend(item)
        elif type(item) is dict:
            stack.extend(item.keys())
            stack.extend(item.values())


def _download(repo_id: str, revision: str | None, scales: Sequence[str] | None) -> tuple[Path, str]:
    import huggingface_hub  # lazy: only a Hub read needs it

    with hub_errors(f"{repo_id}@{revision or 'main'}: cannot download the EMB-S release"):
        commit = huggingface_hub.HfApi().dataset_info(repo_id, revision=revision).sha
        wanted = ["*"] if scales is None else list(scales)
        patterns = [*QAR_FILES.values()] + [p for s in wanted for p in (f"data/{s}/{REFERENCE_FILE}", f"data/{s}/*/{REFERENCE_FILE}")]
        folder = huggingface_hub.snapshot_download(repo_id, repo_type="dataset", revision=commit, allow_patterns=patterns)
    return Path(folder), commit


def _find_corpora(data: Path) -> list[_Corpus]:
    if not data.is_dir():
        raise InputError(str(data), None, None, "no such folder; expected data/<scale>/[<domain>/]" + REFERENCE_FILE)
    corpora = []
    for folder in sorted(p for p in data.iterdir() if p.is_dir() and _SCALE.match(p.name)):
        if (folder / REFERENCE_FILE).is_file():
            corpora.append(_Corpus(folder.name, "all", folder / REFERENCE_FILE))
        corpora.extend(_Corpus(folder.name, d.name, d / REFERENCE_FILE)
                       for d in sorted(folder.iterdir()) if (d / REFERENCE_FILE).is_file())
    return sorted(corpora, key=lambda c: (scale_size(c.scale), c.domain))


def _select(corpora: list[_Corpus], scales: Sequence[str] | None, data: Path) -> list[_Corpus]:
    present = list(dict.fromkeys(c.scale for c in corpora))
    if not present:
        raise InputError(str(data), None, None, f"no scale folder holds {REFERENCE_FILE}")
    if scales is None:
        return corpora
    missing = [s for s in scales if s not in present]
    if missing:
        raise SpecError(f"scale(s) {missing} not in {data}; present: {', '.join(present)}")
    return [c for c in corpora if c.scale in scales]


def _bank(corpora: list[_Corpus]) -> _Corpus:
    flat = [c for c in corpora if c.domain == "all"]
    if not flat:
        raise SpecError(f"the scales read ({', '.join(dict.fromkeys(c.scale for c in corpora))}) include no flat "
                        "scale (>= 512K); the largest flat scale's list is the bank that defines document IDs")
    return flat[-1]


def _read_texts(path: Path) -> list[str]:
    texts = load_plain_pickle(path)
    if type(texts) is not list:
        raise InputError(str(path), None, None, f"expected a list of texts, got a {type(texts).__name__}")
    for index, text in enumerate(texts):
        if type(text) is not str:
            raise record_error(str(path), index, None, f"expected a text, got a {type(text).__name__}")
    return texts


def _ladder(corpora: list[_Corpus], bank: _Corpus, position: Mapping[str, int], n_docs: int,
            progress: bool) -> list[LadderCorpus]:
    ladder = []
    for corpus in tqdm(corpora, desc="EMB-S corpora", unit="file", disable=not progress):
        if corpus == bank:
            ladder.append(LadderCorpus(corpus.scale, corpus.domain, tuple(range(n_docs))))
            continue
        docs: dict[int, None] = {}  # ordered set: a repeated text keeps its first place
        for index, text in enumerate(_read_texts(corpus.path)):
            key = text_key(text)
            if key not in position:
                raise record_error(str(corpus.path), index, None, f"text not in the bank {bank.path}")
            docs[position[key]] = None
        ladder.append(LadderCorpus(corpus.scale, corpus.domain, tuple(docs)))
    return ladder


def _docs(texts: list[str], domain_docs: Mapping[str, frozenset[int]]) -> pa.Table:
    domains: dict[int, str | None] = {}
    for domain, docs in domain_docs.items():
        for doc in docs:
            domains[doc] = domain if domains.get(doc, domain) == domain else None  # in two domains: unknown
    return pa.table({
        "title": [""] * len(texts),
        "text": texts,
        "lang": [detect_lang(t) for t in texts],
        "source": [SOURCE] * len(texts),
        "domain": [domains.get(i) for i in range(len(texts))],
    }, schema=DOC_SCHEMA)


def _triples(root: Path, split: str, position: Mapping[str, int], domain_docs: Mapping[str, frozenset[int]],
             bank: Path) -> list[dict[str, Any]]:
    path = root / QAR_FILES[split]
    rows = []
    for index, record in enumerate(read_records(path, (".jsonl",))):
        query = _text_field(record, "query", path, index)
        answers = _answers(record, path, index)
        refs = _references(record, path, index, position, bank)
        rows.append({
            "qid": f"{SOURCE}/{split}/{index:05d}", "query": query, "answer": answers[0], "answers": answers,
            "ref_docs": refs, "source": SOURCE, "lang": detect_lang(query), "split": split,
            "domain": _query_domain(record, refs, domain_docs, path, index),
        })
    return rows


def _text_field(record: Mapping[str, Any], name: str, path: Path, index: int) -> str:
    if name not in record:
        raise record_error(str(path), index, name, "missing")
    value = record[name]
    if not isinstance(value, str) or not value.strip():
        raise record_error(str(path), index, name, f"expected a non-empty text, got {value!r:.60}")
    return value


def _answers(record: Mapping[str, Any], path: Path, index: int) -> list[str]:
    value = record.get("answer")
    if isinstance(value, list) and value and all(isinstance(a, str) for a in value):
        return list(value)
    return [_text_field(record, "answer", path, index)]


def _references(record: Mapping[str, Any], path: Path, index: int, position: Mapping[str, int], bank: Path) -> list[int]:
    name = next((f for f in REFERENCE_FIELDS if f in record), None)
    if name is None:
        raise record_error(str(path), index, REFERENCE_FIELDS[0], f"missing (also looked for {', '.join(REFERENCE_FIELDS[1:])})")
    texts = record[name]
    if not isinstance(texts, list) or not texts or not all(isinstance(t, str) for t in texts):
        raise record_error(str(path), index, name, "expected a non-empty list of document texts")
    refs: dict[int, None] = {}
    for number, text in enumerate(texts, start=1):
        key = text_key(text)
        if key not in position:
            raise record_error(str(path), index, name, f"reference {number} of {len(texts)} ({text[:40]!r}...) "
                                                       f"is not in the bank {bank}")
        refs[position[key]] = None
    return list(refs)


def _query_domain(record: Mapping[str, Any], refs: list[int], domain_docs: Mapping[str, frozenset[int]],
                  path: Path, index: int) -> str | None:
    if record.get("domain") is not None:
        if not is_one_of(record["domain"], DOMAINS):
            raise record_error(str(path), index, "domain", one_of_message("domain", record["domain"], DOMAINS))
        return record["domain"]
    holding = [d for d, docs in domain_docs.items() if docs.issuperset(refs)]
    return holding[0] if len(holding) == 1 else None
