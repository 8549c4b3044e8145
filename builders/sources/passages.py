"""Passage corpora without hyperlinks (MuSiQue, HotpotQA, 2WikiMultihopQA as HippoRAG ships them).

Accepted files:

- ``.json`` list of ``{title, text}`` objects (``musique_train_corpus.json``,
  ``2wikimultihopqa_corpus.json``);
- ``.json`` object ``title -> [sentences]`` (``hotpotqa_train_corpus.json``): the text is the
  sentences joined with ``""`` (HotpotQA's sentences carry their own leading spaces);
- ``.jsonl`` with one ``{title, text}`` object per line, or ``.parquet`` with ``title`` and
  ``text`` columns.

Documents keep the file's order; several passages may share a title (MuSiQue splits articles into
paragraphs), and ``titles`` then names all of them.

Links: these corpora have no hyperlinks, and PPR reranking needs a graph, so mentions stand in for
them. Document A links to every other document B whose title occurs in A's text as a whole word,
case-sensitively (the title as written, whitespace collapsed; "whole word" = the characters either
side are not letters, digits or ``_``). A title ending in a parenthesized qualifier, Wikipedia's
way of telling pages apart ("Mercury (planet)", "Paris (band)"), is also matched without it, as
prose names the thing ("Mercury") and the encyclopedia writes such links piped
(``[[Mercury (planet)|Mercury]]``); a bare name then links to every page it may mean. All
surfaces are matched in one pass with a pyahocorasick automaton. Surfaces shorter than
:data:`MIN_LINK_TITLE_CHARS` characters or made only of digits (years, numbers) are not linked:
they occur by chance far more often than they refer to the page.
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import ahocorasick

from builders.sources.corpus_read import CorpusRead, corpus_table, links_table, title_index
from builders.sources.records import read_records, record_error, require_field
from needlework.errors import InputError

SUFFIXES = (".json", ".jsonl", ".parquet")
MIN_LINK_TITLE_CHARS = 4
_WHITESPACE = re.compile(r"\s+")
_QUALIFIER = re.compile(r"\s*\([^()]*\)$")


def mention_surfaces(title: str) -> set[str]:
    """The strings whose mention links to a page titled ``title``: the title with whitespace
    collapsed and, when it ends in a parenthesized qualifier, the title without it."""
    surface = _WHITESPACE.sub(" ", title).strip()
    return {surface, _QUALIFIER.sub("", surface)} - {""}


def read_passages(path: Path, *, source: str | None = None, lang: str = "en") -> CorpusRead:
    """Read a passage corpus, with mention links in place of hyperlinks (see the module docstring).

    Args:
        path: A ``.json``, ``.jsonl`` or ``.parquet`` file in one of the shapes above.
        source: The ``source`` column's value; defaults to the file's stem.
        lang: The ``lang`` column's value.

    Returns:
        The passages in file order, their mention links, ``titles`` (normalized title -> every
        passage with it), label = ``source``, and ``stats``: ``records``, ``kept``, ``titles``
        (distinct), ``shared_titles`` (titles naming several passages), ``unlinkable_titles``
        (mention surfaces too short or all digits), ``links``.

    Raises:
        InputError: The file is missing or unreadable, or a record lacks a non-empty string
            ``title`` or ``text`` (the message names the file, the record index and the field).
    """
    path = Path(path)
    source = source or path.stem
    titles, texts = _read(path)
    index = title_index(titles)
    pairs, unlinkable = mention_links(titles, texts)
    stats = {
        "records": len(titles),
        "kept": len(titles),
        "titles": len(index),
        "shared_titles": sum(1 for ids in index.values() if len(ids) > 1),
        "unlinkable_titles": unlinkable,
        "links": len(pairs),
    }
    return CorpusRead(
        corpus=corpus_table(titles, texts, lang, source),
        links=links_table(pairs),
        titles=index,
        label=source,
        stats=stats,
    )


def mention_links(titles: Sequence[str], texts: Sequence[str]) -> tuple[set[tuple[int, int]], int]:
    """Links from each document to the documents whose titles it mentions (the module's rule).

    Args:
        titles: Document titles, by doc id.
        texts: Document texts, by doc id.

    Returns:
        The (src, dst) pairs (no self-links) and the number of distinct surfaces left unlinked
        because they are too short or all digits.
    """
    automaton = ahocorasick.Automaton()
    by_surface: dict[str, list[int]] = {}
    for doc_id, title in enumerate(titles):
        for surface in mention_surfaces(title):
            by_surface.setdefault(surface, []).append(doc_id)
    unlinkable = 0
    for surface, ids in by_surface.items():
        if len(surface) < MIN_LINK_TITLE_CHARS or surface.isdigit():
            unlinkable += 1
            continue
        automaton.add_word(surface, (len(surface), tuple(ids)))
    pairs: set[tuple[int, int]] = set()
    if len(automaton) == 0:
        return pairs, unlinkable
    automaton.make_automaton()
    for src, text in enumerate(texts):
        for end, (length, ids) in automaton.iter(text):
            start = end - length + 1
            if _word_edge(text, start - 1) and _word_edge(text, end + 1):
                pairs.update((src, dst) for dst in ids if dst != src)
    return pairs, unlinkable


def _word_edge(text: str, position: int) -> bool:
    """Whether the character at ``position`` (or the text's edge) ends a word."""
    if position < 0 or position >= len(text):
        return True
    char = text[position]
    return not (char.isalnum() or char == "_")


def _read(path: Path) -> tuple[list[str], list[str]]:
    if path.suffix.lower() == ".json":
        if not path.is_file():
            raise InputError(str(path), None, None, "file not found")
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
        except (UnicodeDecodeError, json.JSONDecodeError) as err:
            raise InputError(str(path), None, None, f"not valid JSON ({err})") from err
        if isinstance(data, dict):
            return _from_title_map(data, str(path))
        if not isinstance(data, list):
            problem = f"expected a list of objects or a title map, got {type(data).__name__}"
            raise InputError(str(path), None, None, problem)
        records = data
        for index, record in enumerate(records):
            if not isinstance(record, dict):
                raise record_error(str(path), index, None, f"expected an object, got {type(record).__name__}")
    else:
        records = read_records(path, SUFFIXES)
    titles, texts = [], []
    for index, record in enumerate(records):
        titles.append(_string(record, "title", str(path), index))
        texts.append(_string(record, "text", str(path), index))
    return titles, texts


def _from_title_map(data: dict[str, Any], file: str) -> tuple[list[str], list[str]]:
    titles, texts = [], []
    for index, (title, sentences) in enumerate(data.items()):
        if not title.strip():
            raise record_error(file, index, "title", "empty title")
        if isinstance(sentences, str):
            sentences = [sentences]
        if not isinstance(sentences, list) or not all(isinstance(sentence, str) for sentence in sentences):
            raise record_error(file, index, "text", f"expected a list of sentence strings for {title!r}")
        text = "".join(sentences)
        if not text.strip():
            raise record_error(file, index, "text", f"empty text for {title!r}")
        titles.append(title)
        texts.append(text)
    return titles, texts


def _string(record: dict[str, Any], name: str, file: str, index: int) -> str:
    value = require_field(record, name, file, index)
    if not isinstance(value, str) or not value.strip():
        raise record_error(file, index, name, f"expected a non-empty string, got {value!r:.80}")
    return value
