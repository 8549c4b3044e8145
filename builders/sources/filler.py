"""Filler text sources for NeedleBench: text folders and files, record tables, the Hub, the world.

A source is one of:

* ``world``: the synthetic world's articles in the language (the embedded default, offline);
* a folder: every ``.txt`` file and record table under it, in sorted path order;
* a ``.txt`` file: one document, unless every line is a ``label<TAB>text`` record (the THUCNews
  "cnews" layout), which is one document with the label (up to the first tab) dropped;
* a record table (``.jsonl``, ``.json``, ``.parquet``, ``.csv``): one document per record, from
  its text field (``text`` unless told);
* ``hub:REPO`` (optionally ``hub:REPO@SPLIT``): a Hub dataset's text field, e.g. the Paul Graham
  essays or ChineseDomainModelingEval where the machine is online.

Each resolution returns the documents, a label for the rows and the fingerprint the manifest records.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

from builders.hashing import file_sha256, folder_sha256
from builders.sources.names import HUB, WORLD
from builders.sources.records import TABLE_SUFFIXES, read_records, record_error, require_field
from generators.world.spec import WorldSpec
from needlework.errors import InputError
from needlework.hub import load_hub_dataset

TEXT_SUFFIX = ".txt"
WORLD_FILLER = WorldSpec(docs=600, langs=("en", "zh"), questions=0)
TEXT_ATTRIBUTION = {
    "world": "articles of needlework's synthetic world (Apache-2.0)",
    "paul_graham_essays": "Paul Graham's essays (© Paul Graham, as distributed by gkamradt/LLMTest_NeedleInAHaystack, MIT)",
    "zh_prose": "THUCNews articles (THUNLP, research use) and 红楼梦 chapters (public domain)",
}
"""Who wrote the known text sources (by source label) and under what terms."""


def text_attribution(label: str) -> str:
    """The attribution line of a text source label (the label itself for a user-supplied source)."""
    return TEXT_ATTRIBUTION.get(label, f"`{label}`")
"""The embedded default filler: 600 articles per language (about 400K tokens each), grown in
about 0.4 s; longer haystacks wrap around."""


@dataclass(frozen=True)
class FillerDocuments:
    """Documents read from a filler source.

    Attributes:
        documents: The texts, in source order.
        label: A short name for the rows' ``filler`` column (the folder or file name, ``world``).
        fingerprints: Source -> sha256 (or a description of a generated or Hub source).
    """

    documents: tuple[str, ...]
    label: str
    fingerprints: dict[str, str]


@lru_cache(maxsize=4)
def _world_articles(seed: int) -> dict[str, tuple[str, ...]]:
    # The world's modules are imported here, when the world is the filler: a build over the paper's
    # essays does not pay for them.
    from generators.world.articles import render_article
    from generators.world.lexicon_en import LEXICON as EN_LEXICON
    from generators.world.lexicon_zh import LEXICON as ZH_LEXICON
    from generators.world.tables import generate_world

    world, _, _ = generate_world(WORLD_FILLER, seed)
    return {
        lang: tuple(f"{a.title}\n{a.text}" for a in (render_article(world, e, lex) for e in range(len(world.entities))))
        for lang, lex in (("en", EN_LEXICON), ("zh", ZH_LEXICON))
    }


def read_filler(source: str, lang: str, *, seed: int = 0, field: str = "text") -> FillerDocuments:
    """The documents of a filler ``source`` (see the module docstring) for language ``lang``.

    Raises:
        InputError: The source does not exist, holds no text, or a record lacks the text field.
    """
    if source == WORLD:
        s = WORLD_FILLER
        return FillerDocuments(_world_articles(seed)[lang], WORLD,
                               {f"world/{lang}": f"generated: docs={s.docs} seed={seed} (articles)"})
    if source.startswith(HUB):
        return _read_hub(source[len(HUB):], field)
    path = Path(source)
    if path.is_dir():
        files = sorted(p for p in path.rglob("*") if p.is_file() and p.suffix.lower() in (TEXT_SUFFIX, *TABLE_SUFFIXES))
        documents = tuple(doc for file in files for doc in _read_file(file, field))
        fingerprints = {str(path): folder_sha256(path)}
    elif path.is_file():
        documents = tuple(_read_file(path, field))
        fingerprints = {str(path): file_sha256(path)}
    else:
        raise InputError(source, None, None, "no such file or folder; a filler source is 'world', hub:REPO, a folder, a .txt file or a record table")
    if not any(d.strip() for d in documents):
        raise InputError(source, None, None, "holds no text")
    return FillerDocuments(documents, path.name, fingerprints)


def _read_file(path: Path, field: str) -> list[str]:
    if path.suffix.lower() != TEXT_SUFFIX:
        records = read_records(path, TABLE_SUFFIXES)
        texts = []
        for index, record in enumerate(records):
            value = require_field(record, field, str(path), index)
            if not isinstance(value, str):
                raise record_error(str(path), index, field, f"expected text, got {type(value).__name__}")
            texts.append(value)
        return texts
    try:
        text = path.read_text(encoding="utf-8")
    except UnicodeDecodeError as err:
        raise InputError(str(path), None, None, f"not UTF-8 text ({err.reason} at byte {err.start})") from None
    lines = [line for line in text.splitlines() if line.strip()]
    if lines and all("\t" in line for line in lines):
        return [line.split("\t", 1)[1] for line in lines]
    return [text]


def _read_hub(spec: str, field: str) -> FillerDocuments:
    repo, _, split = spec.partition("@")
    loaded = load_hub_dataset(repo, split=split or "train", label=f"hub:{spec}")
    if field not in loaded.column_names:
        raise InputError(f"hub:{repo}", None, field, f"missing; columns: {', '.join(loaded.column_names)}")
    texts = tuple(str(t) for t in loaded[field] if t)
    revision = getattr(loaded.info, "version", None)
    return FillerDocuments(texts, repo.rsplit("/", 1)[-1], {f"hub:{repo}": f"(Hub dataset, split {split or 'train'}, version {revision})"})
