"""Long documents for Sequential-NIAH: LongData-Corpus files, record tables, text folders, the world.

A source is one of:

* ``world``: the synthetic world's articles (title line, then text), the embedded offline default;
  they are short, so :func:`generators.sequential_niah.texts.bucket_texts` joins them;
* a record table (``.jsonl``, ``.json``, ``.parquet``, ``.csv``), one document per record, as the
  authors' ``LongText/doc_{en,zh}.jsonl`` (LongData-Corpus layout: ``text``, ``md5``, ``source``,
  ``length_bin``...): the text from ``field`` (``text`` unless told); the id from ``id_field``, or
  else the first of :data:`ID_FIELDS` the record has, or else ``<file>/<record index>``; the source
  from the record's ``source``, or else the file's stem. LongData's ``length`` and ``length_bin``
  (character lengths) are not used: buckets are counted by the build's tokenizer;
* a ``.txt`` file, read as the filler reader reads it (:func:`builders.sources.filler.read_filler`:
  one document, or one per line in the THUCNews ``label<TAB>text`` layout), id ``<file>`` (or
  ``<file>#<n>``), source the file's stem;
* a folder: every record table and ``.txt`` file under it in sorted path order; ``.txt``
  documents take the folder's name as their source (so short essays of one folder can be joined)
  and ids relative to the folder's parent (``paul_graham_essays/addiction.txt``);
* ``hub:REPO[@SPLIT]``: a Hub dataset's text field, through the filler reader (where online).

A document's language is the record's ``lang`` field, else a language tag in its file name
(``doc_en.jsonl``, ``notes-zh.txt``), else the ``lang`` argument; with ``lang`` given, documents
of another language are left out.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from builders.hashing import file_sha256, folder_sha256
from builders.sources.filler import TEXT_SUFFIX, WORLD_FILLER, read_filler
from builders.sources.names import HUB, WORLD
from builders.sources.records import TABLE_SUFFIXES, read_records, record_error, require_field
from needlework.checks import is_one_of, one_of_message
from needlework.errors import InputError
from generators.sequential_niah.spec import LANGS
from generators.sequential_niah.texts import SourceText
from generators.world.tables import corpus_rows, generate_world

ID_FIELDS: tuple[str, ...] = ("md5", "text_id", "id", "doc_id")
"""Fields tried, in order, for a record's id when no ``id_field`` is given."""
LANG_FIELD = "lang"
SOURCE_FIELD = "source"
_LANG_TAG = re.compile(rf"(?:^|[_\-.])({'|'.join(LANGS)})(?=$|[_\-.])")


@dataclass(frozen=True)
class LongTextsRead:
    """Documents read from a long-text source.

    Attributes:
        documents: The documents, in source order (unique ``text_id``).
        label: A short name of the source (folder or file name, ``world``, the Hub repo).
        fingerprints: Source -> sha256 (or a description of a generated or Hub source).
    """

    documents: tuple[SourceText, ...]
    label: str
    fingerprints: dict[str, str]


def read_long_texts(source: str, lang: str | None = None, *, field: str = "text", id_field: str | None = None,
                    seed: int = 0, world_docs: int = WORLD_FILLER.docs) -> LongTextsRead:
    """The documents of a long-text ``source`` (see the module docstring).

    Args:
        source: ``world``, ``hub:REPO[@SPLIT]``, a record table, a ``.txt`` file or a folder.
        lang: The language of documents that do not say theirs, and a filter: with it, only
            documents in that language are returned.
        field: The text field of records.
        id_field: The id field of records (default: the first of :data:`ID_FIELDS` present).
        seed: The world's seed (``world`` only).
        world_docs: Articles per language of the world (``world`` only).

    Raises:
        InputError: Missing source, a record without text (or without ``id_field``), a document
            whose language is unknown, a duplicate id, or no document at all.
    """
    if lang is not None and lang not in LANGS:
        raise InputError(source, None, LANG_FIELD, one_of_message("language", lang, LANGS))
    if source == WORLD:
        read = _world(lang, seed, world_docs)
    elif source.startswith(HUB):
        read = _hub(source, lang, field)
    else:
        read = _path(Path(source), lang, field, id_field)
    if not read.documents:
        raise InputError(source, None, None, f"holds no documents{f' in {lang}' if lang else ''}")
    seen: dict[str, int] = {}
    for index, doc in enumerate(read.documents):
        if doc.text_id in seen:
            raise record_error(source, index, id_field or "id",
                             f"duplicate text id {doc.text_id!r} (also document {seen[doc.text_id] + 1})")
        seen[doc.text_id] = index
    return read


def _world(lang: str | None, seed: int, docs: int) -> LongTextsRead:
    spec = replace(WORLD_FILLER, docs=docs, langs=(lang,) if lang else WORLD_FILLER.langs)
    world, _, _ = generate_world(spec, seed)
    documents = tuple(
        SourceText(f"world/{row['doc_id']}", row["lang"], WORLD, f"{row['title']}\n{row['text']}")
        for row, _ in corpus_rows(world)
    )
    return LongTextsRead(documents, WORLD, {f"world/{'+'.join(spec.langs)}": f"generated: docs={docs} seed={seed} (articles)"})


def _hub(source: str, lang: str | None, field: str) -> LongTextsRead:
    if lang is None:
        raise InputError(source, None, LANG_FIELD, "a Hub source needs the lang argument")
    read = read_filler(source, lang, field=field)
    documents = tuple(SourceText(f"{read.label}/{i:06d}", lang, read.label, text) for i, text in enumerate(read.documents))
    return LongTextsRead(documents, read.label, read.fingerprints)


def _path(path: Path, lang: str | None, field: str, id_field: str | None) -> LongTextsRead:
    suffixes = (TEXT_SUFFIX, *TABLE_SUFFIXES)
    if path.is_dir():
        files = sorted(p for p in path.rglob("*") if p.is_file() and p.suffix.lower() in suffixes)
        documents = [doc for file in files
                     for doc in _file(file, file.relative_to(path.parent).as_posix(), path.name, lang, field, id_field)]
        return LongTextsRead(tuple(documents), path.name, {str(path): folder_sha256(path)})
    if path.is_file():
        if path.suffix.lower() not in suffixes:
            raise InputError(str(path), None, None, f"unsupported file type {path.suffix!r}; supported: {', '.join(suffixes)}")
        documents = _file(path, path.name, path.stem, lang, field, id_field)
        return LongTextsRead(tuple(documents), path.name, {str(path): file_sha256(path)})
    raise InputError(str(path), None, None, "no such file or folder; a long-text source is 'world', hub:REPO, a folder, "
                                            "a .txt file or a record table")


def _file(path: Path, name: str, folder_source: str, lang: str | None, field: str,
          id_field: str | None) -> list[SourceText]:
    """The documents of one file; ``name`` prefixes generated ids, ``folder_source`` is a text file's source."""
    tagged = _lang_tag(path.stem)
    if path.suffix.lower() == TEXT_SUFFIX:
        doc_lang = tagged or lang
        if doc_lang is None:
            raise InputError(str(path), None, LANG_FIELD, "no language: name it with _en/_zh or pass lang")
        if lang is not None and doc_lang != lang:
            return []
        texts = read_filler(str(path), doc_lang, field=field).documents
        return [SourceText(name if len(texts) == 1 else f"{name}#{i}", doc_lang, folder_source, text)
                for i, text in enumerate(texts)]
    documents = []
    for index, record in enumerate(read_records(path, TABLE_SUFFIXES)):
        text = require_field(record, field, str(path), index)
        if not isinstance(text, str):
            raise record_error(str(path), index, field, f"expected text, got {type(text).__name__}")
        doc_lang = _record_lang(record, str(path), index) or tagged or lang
        if doc_lang is None:
            raise record_error(str(path), index, LANG_FIELD,
                             "no language: add a lang field, name the file with _en/_zh or pass lang")
        if lang is not None and doc_lang != lang:
            continue
        source = record.get(SOURCE_FIELD)
        documents.append(SourceText(_record_id(record, name, index, str(path), id_field), doc_lang,
                                    source if isinstance(source, str) and source else path.stem, text))
    return documents


def _record_id(record: dict[str, Any], name: str, index: int, file: str, id_field: str | None) -> str:
    if id_field is not None:
        value = require_field(record, id_field, file, index)
    else:
        value = next((record[f] for f in ID_FIELDS if record.get(f) not in (None, "")), None)
        if value is None:
            return f"{name}/{index:06d}"
    if isinstance(value, bool) or not isinstance(value, (str, int)) or value == "":
        raise record_error(file, index, id_field or "id", f"expected a non-empty string or integer id, got {value!r}")
    return str(value)


def _record_lang(record: dict[str, Any], file: str, index: int) -> str | None:
    value = record.get(LANG_FIELD)
    if value is None:
        return None
    if not is_one_of(value, LANGS):
        raise record_error(file, index, LANG_FIELD, one_of_message("language", value, LANGS))
    return str(value)


def _lang_tag(stem: str) -> str | None:
    """The language a file name states (``doc_en`` -> ``en``), if exactly one."""
    tags = set(_LANG_TAG.findall(stem.lower()))
    return tags.pop() if len(tags) == 1 else None
