"""A MediaWiki XML export (``.xml`` / ``.xml.bz2``) as a hyperlinked corpus, streamed page by page.

What is kept follows the paper (Appendix E: empty and redirect pages are filtered): one document
per article-namespace (ns 0) page that is not a redirect and whose plain text is not empty. The
plain text is the wikitext as a reader sees it, reduced with mwparserfromhell (see
:func:`wikitext_to_plain`). The links are the article's ``[[wikilinks]]`` (anywhere in its
wikitext, templates' parameters included, as the rendered page shows them) resolved to kept
documents through redirect chains; links to missing or filtered pages are dropped and counted.

The dump is read with mwxml, one page at a time, ``<siteinfo>`` or not (an export without one is
read as gensim's ``extract_pages`` reads it, with the standard namespaces:
:mod:`builders.sources.mediawiki_dump`); only the kept plain text and the link targets of
each article are held until the end, where targets are resolved (redirects can come after the
pages that link through them). Wikitext is parsed chunk by chunk on the build's engine
(:mod:`builders.engine`: a local process pool when ``workers > 1``, or Ray tasks), a bounded window
of chunks in flight, results consumed in dump order, so the output depends neither on the engine
nor on the number of workers.
"""

from __future__ import annotations

import bz2
import collections
import io
import re
import xml.etree.ElementTree as ET
from array import array
from collections.abc import Callable, Iterable, Iterator, Sequence
from contextlib import ExitStack
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any, NamedTuple

import mwparserfromhell
import mwxml
import numpy as np
import pyarrow as pa
from mwparserfromhell.nodes import (
    ExternalLink,
    Heading,
    HTMLEntity,
    Tag,
    Template,
    Text,
    Wikilink,
)
from mwparserfromhell.wikicode import Wikicode
from tqdm import tqdm

from builders.engine import Engine
from builders.sources.corpus_read import (
    CorpusRead,
    corpus_table,
    links_from_arrays,
    normalize_title,
)
from builders.sources.mediawiki_dump import dump_language, open_dump
from builders.sources.multistream import (
    GROUP_BYTES,
    StreamGroup,
    index_path,
    plan_groups,
    read_group,
    read_header,
    read_index,
)
from needlework.errors import InputError, SpecError

SOURCE = "wikipedia"
CHUNK_PAGES = 8
TEXT_BATCH = 10_000

# Tags whose content is not running prose: references, media, formulas, machine-readable data.
HIDDEN_TAGS = frozenset({
    "categorytree", "ce", "chem", "gallery", "graph", "hiero", "imagemap", "includeonly", "indicator",
    "inputbox", "mapframe", "maplink", "math", "ref", "references", "score", "section", "table",
    "templatedata", "templatestyles", "timeline",
})
LINE_BREAK_TAGS = frozenset({"br", "hr"})
# Namespace ids whose links never show as text: Media, File (Image), Category.
INVISIBLE_NAMESPACES = frozenset({-2, 6, 14})
DEFAULT_NAMESPACES = {"media": -2, "special": -1, "file": 6, "image": 6, "category": 14, "template": 10}
# Wikimedia interwiki prefixes: such links show their text but point outside the wiki.
INTERWIKI = frozenset({
    "b", "c", "commons", "d", "f", "m", "meta", "mw", "n", "q", "s", "simple", "species", "v", "voy", "w",
    "wikibooks", "wikidata", "wikinews", "wikiquote", "wikisource", "wikispecies", "wikiversity",
    "wikivoyage", "wikt", "wiktionary",
})
_LANGUAGE_PREFIX = re.compile(r"[a-z]{2,3}(?:-[a-z0-9]+)*")
_REDIRECT = re.compile(r"\s*#REDIRECT\s*:?\s*\[\[([^\]|]*)", re.IGNORECASE)
_QUOTES = re.compile(r"'{2,}")
# "[[[Target]]]": a wikilink inside literal brackets (MediaWiki shows "[Target]", linked), which
# mwparserfromhell's tokenizer reads as plain text, brackets and all.
_LINK_IN_BRACKETS = re.compile(r"(?<!\[)\[(?=\[\[[^\[])")
_MAGIC_WORD = re.compile(r"__[A-Z]+__")
_EMPTY_PARENS = re.compile(r"\(\s*[,;:]?\s*\)")
REMOVED = "\x00"
"""Where a template or hidden tag stood, until :func:`_without_debris` reads the parentheses it leaves."""
DEBRIS_WORDS = 2
"""Words a parenthesis emptied by removed markup may keep and still be debris ("occasionally", "or also")."""
_PARENTHESIS = re.compile(r"\(([^()]*)\)")
_REMOVED_AFTER_OPEN = re.compile(r"\([\s,;:]*\x00[\s,;:\x00]*")  # one character class per run: no backtracking blow-up
_REMOVED_BEFORE_CLOSE = re.compile(r"(?<![\s,;:])[\s,;:]*\x00[\s,;:\x00]*\)")
_SEPARATOR_RUNS = re.compile(r"\s*[,;:](?:\s*[,;:])*\s*")
_SPACES = re.compile(r"[^\S\n]+")
_SPACE_BEFORE_PUNCTUATION = re.compile(r" +([,.;:!?])")
_BLANK_RUNS = re.compile(r"\n{3,}")
_DISAMBIGUATION = re.compile(r"\s*\([^()]*\)$")

_RawPage = tuple[str, int, int, str | None, str]  # title, page id, namespace, redirect target, wikitext
_Record = tuple  # (OTHER,) | (REDIRECT, source, target) | (ARTICLE, title, page id, plain text | None, link targets,
#                  characters dropped)
OTHER, REDIRECT, ARTICLE = "other", "redirect", "article"


def read_mediawiki_dump(path: Path | Sequence[Path], *, workers: int = 0, progress: bool = False,
                        engine: Engine | None = None, group_bytes: int = GROUP_BYTES) -> CorpusRead:
    """Read a MediaWiki XML export into ``corpus`` and ``links``, so real Wikipedia can be a haystack.

    A multistream dump with its index beside it (as Wikimedia publishes them,
    :mod:`builders.sources.multistream`) is read in parallel: each worker reads, decompresses and
    parses its own groups of streams, and this process only collects. Any other export is read by
    this process and its wikitext parsed on the workers. Both give the same corpus.

    Args:
        path: A ``pages-articles`` export, ``.xml`` or bz2-compressed ``.xml.bz2``, UTF-8 or UTF-16
            (as its XML declaration or byte-order mark says), with or without ``<siteinfo>``; streamed.
            Or the numbered parts of one dump (``...-multistream3.xml-p151574p311329.bz2``), read
            as one dump in the order given: links and redirects resolve across parts.
        workers: Processes parsing wikitext; 0 means ``os.cpu_count()``, 1 parses in this process.
        progress: Show a tqdm bar of pages read (on stderr).
        engine: Where pages are parsed (default: local processes, ``workers`` of them). With Ray, a
            multistream dump must be at the same path on every node (a shared filesystem).
        group_bytes: Compressed bytes of multistream streams read as one unit of work.

    Returns:
        Kept articles in dump order (``lang`` from the dump's database name, ``enwiki`` -> ``en``;
        ``source`` = ``"wikipedia"``), their resolved links, ``titles`` with every kept title and
        every redirect that resolves to a kept article, and ``stats``: ``pages``,
        ``other_namespace``, ``redirects``, ``empty``, ``kept``, ``duplicate_titles``,
        ``redirect_titles`` (resolved), ``redirects_unresolved``, and per article-target pair
        ``links_resolved``, ``links_unresolved``, ``links_self``, ``links_merged`` (two targets
        reaching one page).

    Raises:
        InputError: A file is missing, is not a readable (bz2) MediaWiki export, its index does not
            match it, parts come from different wikis, or a page cannot be parsed; the message
            names the file and the page or byte range when known.
        SpecError: ``workers`` is negative.
    """
    paths = [Path(path)] if isinstance(path, (str, Path)) else [Path(p) for p in path]
    if not paths:
        raise SpecError("read_mediawiki_dump needs at least one file")
    if workers < 0:
        raise SpecError(f"workers must be >= 0 (0 = one per CPU), got {workers}")
    engine = engine or Engine("local", workers)
    for part in paths:
        if not part.is_file():
            raise InputError(str(part), None, None, "file not found")
    more = len(paths) - 1
    label = paths[0].name if not more else f"{paths[0].name}+{more} more part{'s' if more > 1 else ''}"
    reader = _DumpReader(paths[0], label)
    plans = [_plan(part, group_bytes) for part in paths]
    headers = [_header(reader, part, groups) for part, groups in zip(paths, plans)]
    lang = headers[0][1]
    for part, (_, part_lang) in zip(paths, headers):
        if part_lang != lang:
            raise InputError(str(part), None, None, f"a part of a {lang!r} dump holds a {part_lang!r} wiki")
    total = sum(g.pages for groups in plans for g in groups) if all(plans) else None  # type: ignore[union-attr]
    with ExitStack() as stack:
        # The workers first: a local pool's processes are forked before the progress bar starts a thread.
        parse = stack.enter_context(engine.stage(_parse_unit, headers[0][0], processes=True))
        bar = stack.enter_context(tqdm(unit="page", desc=label, total=total, disable=not progress))
        for part, groups in zip(paths, plans):
            reader.path = part
            if groups is None:
                _read_serially(reader, part, parse, bar)
            else:
                _read_in_groups(reader, groups, parse, bar)
    return reader.finish(lang)


_Unit = list[_RawPage] | StreamGroup
"""A unit of work for the stage: pages read by this process, or a group of streams a worker reads itself."""


def _plan(path: Path, group_bytes: int) -> list[StreamGroup] | None:
    """The groups of streams of a multistream dump with its index beside it; None for any other export."""
    index = index_path(path)
    return None if index is None else plan_groups(path, read_index(index), group_bytes)


def _header(reader: _DumpReader, path: Path, groups: list[StreamGroup] | None) -> tuple[dict[str, int], str]:
    """The namespace prefixes and the language of an export, from its ``<siteinfo>`` (no page is read)."""
    try:
        if groups is None:
            with _open(path) as handle:
                dump = open_dump(handle)
        else:
            dump = open_dump(io.BytesIO(read_header(path, groups[0].header_end)))
    except _READ_ERRORS as err:
        reader.path = path
        raise reader.error(err) from err
    return _namespace_prefixes(dump), dump_language(dump)


def _read_serially(reader: _DumpReader, path: Path, parse: Callable[[Iterable[_Unit]], Iterator[Any]], bar: tqdm) -> None:
    """Read one export in this process, its pages parsed on the engine's workers."""
    with _open(path) as handle:
        try:
            dump = open_dump(handle)
        except _READ_ERRORS as err:
            raise reader.error(err) from err
        for records, _ in parse(reader.chunks(dump, bar)):
            reader.apply(records)
    if reader.failure is not None:
        raise reader.error(reader.failure) from reader.failure


def _read_in_groups(reader: _DumpReader, groups: Sequence[StreamGroup], parse: Callable[[Iterable[_Unit]], Iterator[Any]],
                    bar: tqdm) -> None:
    """Read a multistream dump's groups of streams on the engine's workers, in file order."""
    for group, (records, problem) in zip(groups, parse(groups)):
        if problem is not None:
            raise InputError(group.path, f"bytes {group.start}-{group.end}", None, problem)
        if len(records) != group.pages:
            raise InputError(group.path, f"bytes {group.start}-{group.end}", None,
                             f"its index lists {group.pages} pages there, the dump holds {len(records)}: "
                             "the index belongs to another dump")
        reader.apply(records)
        bar.update(len(records))


@dataclass
class _DumpReader:
    """Walks the pages, keeps what the corpus needs and counts the rest."""

    path: Path
    label: str
    titles: list[str] = field(default_factory=list)
    # Texts go to Arrow in batches (compact UTF-8); link targets are interned as integer keys with
    # (doc id, key) pairs in typed arrays, so memory stays near the size of the text itself.
    text_chunks: list[pa.Array] = field(default_factory=list)
    pending_texts: list[str] = field(default_factory=list)
    target_keys: dict[str, int] = field(default_factory=dict)
    dropped: array = field(default_factory=lambda: array("q"))  # characters of markup dropped, per kept article
    link_src: array = field(default_factory=lambda: array("q"))
    link_key: array = field(default_factory=lambda: array("q"))
    redirects: dict[str, str] = field(default_factory=dict)
    stats: collections.Counter = field(default_factory=collections.Counter)
    page: str | None = None
    page_done: bool = False
    failure: BaseException | None = None

    def chunks(self, dump: Any, bar: tqdm) -> Iterator[list[_RawPage]]:
        """The dump's pages in chunks of :data:`CHUNK_PAGES`, as the stage :func:`_parse_pages` takes them."""
        chunk: list[_RawPage] = []
        try:
            for page in dump:
                self.page, self.page_done = f"{page.title!r} (page id {page.id})", False
                chunk.append(_raw_page(page))
                self.page_done = True
                bar.update()
                if len(chunk) == CHUNK_PAGES:
                    yield chunk
                    chunk = []
        except _READ_ERRORS as err:
            self.failure = err  # raised by the caller: raising here would leave chunks in the pool
        if chunk:
            yield chunk

    def apply(self, records: list[_Record]) -> None:
        """Count every page, keep redirects and the parsed articles that have text, in dump order."""
        for record in records:
            self.stats["pages"] += 1
            if record[0] == OTHER:
                self.stats["other_namespace"] += 1
            elif record[0] == REDIRECT:
                self.stats["redirects"] += 1
                self.redirects.setdefault(record[1], record[2])
            else:
                self._collect(record)

    def _collect(self, record: _Record) -> None:
        _, title, page_id, text, targets, dropped = record
        if text is None:
            page = f"{title!r} (page id {page_id})"
            raise InputError(str(self.path), page, None, f"wikitext cannot be parsed ({targets[0]})")
        if not text.strip():
            self.stats["empty"] += 1
            return
        doc_id = len(self.titles)
        self.titles.append(title)
        self.dropped.append(dropped)
        self.pending_texts.append(text)
        if len(self.pending_texts) >= TEXT_BATCH:
            self._flush_texts()
        for target in targets:
            if not target:  # [[#Section]]: a link to the page itself
                self.stats["links_self"] += 1
                continue
            self.link_src.append(doc_id)
            self.link_key.append(self.target_keys.setdefault(target, len(self.target_keys)))

    def _flush_texts(self) -> None:
        self.text_chunks.append(pa.array(self.pending_texts, pa.string()))
        self.pending_texts = []

    def error(self, err: BaseException) -> InputError:
        """The one-line error for an unreadable dump, naming the page being read (or the last one read)."""
        problem = f"not a readable MediaWiki XML export ({type(err).__name__}: {err})"
        where = None if self.page is None else f"{'after ' if self.page_done else ''}{self.page}"
        return InputError(str(self.path), where, None, problem)

    def finish(self, lang: str) -> CorpusRead:
        """Resolve titles, redirects and link targets once every page has been seen."""
        ids: dict[str, int] = {}
        for doc_id, title in enumerate(self.titles):
            if ids.setdefault(normalize_title(title), doc_id) != doc_id:
                self.stats["duplicate_titles"] += 1
        titles = {title: (doc_id,) for title, doc_id in ids.items()}
        for source in self.redirects:
            if source in ids:
                continue
            doc_id = _resolve(source, ids, self.redirects)
            if doc_id is None:
                self.stats["redirects_unresolved"] += 1
            else:
                titles[source] = (doc_id,)
                self.stats["redirect_titles"] += 1
        # Each distinct target is resolved once; then every (page, target) pair by array lookup.
        found_ids = (_resolve(target, ids, self.redirects) for target in self.target_keys)
        resolved = np.fromiter((-1 if i is None else i for i in found_ids), np.int64, count=len(self.target_keys))
        src = np.frombuffer(self.link_src, dtype=np.int64) if self.link_src else np.zeros(0, np.int64)
        keys = np.frombuffer(self.link_key, dtype=np.int64) if self.link_key else np.zeros(0, np.int64)
        dst = resolved[keys]
        found = dst >= 0
        self.stats["links_unresolved"] += int((~found).sum())
        self_links = found & (dst == src)
        self.stats["links_self"] += int(self_links.sum())
        links = links_from_arrays(src[found & ~self_links], dst[found & ~self_links])
        self.stats["links_resolved"] = links.num_rows
        self.stats["links_merged"] = int((found & ~self_links).sum()) - links.num_rows
        self.stats["kept"] = len(self.titles)
        self._flush_texts()
        names = ("pages", "other_namespace", "redirects", "empty", "kept", "duplicate_titles", "redirect_titles",
                "redirects_unresolved", "links_resolved", "links_unresolved", "links_self", "links_merged")
        return CorpusRead(
            corpus=corpus_table(self.titles, pa.chunked_array(self.text_chunks, pa.string()), lang, SOURCE),
            links=links,
            titles=titles,
            label=self.label,
            stats={name: int(self.stats[name]) for name in names},
            dropped_chars=np.frombuffer(self.dropped, dtype=np.int64).copy() if self.dropped else np.zeros(0, np.int64),
        )


class PlainText(NamedTuple):
    """A page's visible text, the articles it links to, and how many characters of its wikitext were dropped
    without showing (templates, ``<ref>`` and other hidden tags, File and Category links)."""

    text: str
    titles: tuple[str, ...]
    dropped_chars: int


def wikitext_to_plain(wikitext: str, namespaces: dict[str, int] | None = None) -> PlainText:
    """Reduce wikitext to the text a reader sees, and list the articles it links to.

    Removed: bold/italic quote runs (before parsing), templates, comments, template arguments,
    ``<ref>`` and the other tags of :data:`HIDDEN_TAGS` with their content, File/Image/Media and
    Category links, interlanguage links, magic words, and what removals leave of a parenthesis:
    empty ones, and ones left holding at most :data:`DEBRIS_WORDS` words and the separators between
    removed templates ("Asphalt ({{IPA..}}, {{respell..}}, occasionally {{IPA..}})" reads "Asphalt").
    Tables are kept as rows of cells: a caption line, then a line per row, its cells joined by " | ".
    Kept: wikilinks as their anchor
    text (the target when there is none; the pipe trick drops a trailing disambiguator), external
    links as their text (bare URLs as written, bracketed ones without text dropped), visible text of
    formatting tags, headings as plain lines, HTML entities unescaped, a wikilink in literal
    brackets (``[[[Target]]]``) as MediaWiki shows it (``[Target]``). Runs of spaces collapse to
    one, lines are stripped, runs of blank lines collapse to one.

    Args:
        wikitext: One page's wikitext.
        namespaces: Lower-cased namespace names and aliases -> namespace id (the dump's siteinfo);
            defaults to the standard English ones.

    Returns:
        The plain text; the normalized titles of the article-namespace pages linked anywhere in the
        wikitext, unique, in order of first appearance ("" for a link to a section of the page
        itself); and the characters of wikitext dropped without showing.
    """
    namespaces = namespaces or DEFAULT_NAMESPACES
    # Bold/italic quote runs carry no text, and an unbalanced one makes the parser give up on the
    # rest of its paragraph (leaving <ref> and {{templates}} as text), so they go before parsing.
    # The outer bracket of "[[[Target]]]" becomes its entity so the parser sees "[" and a wikilink.
    code = mwparserfromhell.parse(_LINK_IN_BRACKETS.sub("&#91;", _QUOTES.sub("", wikitext)))
    dropped = [0]
    text = _without_debris(_MAGIC_WORD.sub("", _render(code, namespaces, dropped)))
    text = _SPACE_BEFORE_PUNCTUATION.sub(r"\1", _SPACES.sub(" ", _EMPTY_PARENS.sub("", text)))
    text = _BLANK_RUNS.sub("\n\n", "\n".join(line.strip() for line in text.split("\n"))).strip()
    titles: list[str] = []
    _link_titles(code, titles)
    kinds = (_classify(title, namespaces) for title in titles)
    return PlainText(text, tuple(dict.fromkeys(normalize_title(target) for kind, target in kinds if kind == "article")),
                     dropped[0])


def _without_debris(text: str) -> str:
    """``text`` with the marks of removed markup (:data:`REMOVED`) gone, and a parenthesis that held removed markup
    left with nothing but separators and at most :data:`DEBRIS_WORDS` words, none with a digit, dropped whole
    ("(born)" goes, "(died 1900)" stays); separators left around removed markup collapse ("(; died 1900)" reads
    "(died 1900)")."""
    def clean(match: re.Match[str]) -> str:
        inner = match.group(1)
        if REMOVED not in inner:
            return match.group(0)
        kept = _SEPARATOR_RUNS.sub(lambda m: m.group(0).strip()[:1] + " ", inner.replace(REMOVED, " "))
        kept = kept.strip().strip(",;:").strip()
        words = kept.split()
        return "" if len(words) <= DEBRIS_WORDS and not any(c.isdigit() for c in kept) else f"({kept})"
    # separators between removed markup and a parenthesis go first (nested parentheses too); the mark stays
    text = _REMOVED_AFTER_OPEN.sub("(" + REMOVED, _REMOVED_BEFORE_CLOSE.sub(REMOVED + ")", text))
    return _PARENTHESIS.sub(clean, text).replace(REMOVED, "")


def _link_titles(code: Wikicode, out: list[str]) -> None:
    """Every wikilink's title, nested ones included (as ``filter_wikilinks(recursive=True)``, faster)."""
    for node in code.nodes:
        if isinstance(node, Wikilink):
            out.append(str(node.title))
            children = [node.text]
        elif isinstance(node, Template):
            children = [param.value for param in node.params]
        elif isinstance(node, Tag):
            children = [node.contents]
        elif isinstance(node, (Heading, ExternalLink)):
            children = [node.title]
        else:
            continue
        for child in children:
            if child is not None:
                _link_titles(child, out)


def _render(code: Wikicode, namespaces: dict[str, int], dropped: list[int]) -> str:
    """The visible text of parsed wikitext (templates, comments and {{{arguments}}} show nothing); a template or hidden
    tag leaves :data:`REMOVED` where it stood, and ``dropped[0]`` counts the characters dropped."""
    out: list[str] = []
    for node in code.nodes:
        if isinstance(node, Text):
            out.append(node.value)
        elif isinstance(node, Wikilink):
            shown = _render_wikilink(node, namespaces, dropped)
            if shown is None:
                dropped[0] += len(str(node))
            out.append(shown or "")
        elif isinstance(node, Template):
            dropped[0] += len(str(node))
            out.append(REMOVED)
        elif isinstance(node, Tag):
            tag = str(node.tag).strip().lower()
            if node.wiki_markup == "{|":
                out.append(_render_table(node, namespaces, dropped))
            elif tag in HIDDEN_TAGS:
                dropped[0] += len(str(node))
                out.append(REMOVED)
            elif tag in LINE_BREAK_TAGS:
                out.append("\n")
            elif node.contents is not None and not node.self_closing:
                out.append(_render(node.contents, namespaces, dropped))
        elif isinstance(node, Heading):
            out.append("\n" + _render(node.title, namespaces, dropped).strip() + "\n")
        elif isinstance(node, ExternalLink):
            if node.title is not None:
                out.append(_render(node.title, namespaces, dropped))
            elif not node.brackets:
                out.append(str(node.url))
        elif isinstance(node, HTMLEntity):
            out.append(node.normalize())
    return "".join(out)


def _render_table(table: Tag, namespaces: dict[str, int], dropped: list[int]) -> str:
    """A wikitable as text: its caption on a line, then a line per row with the row's cells joined by " | " (a cell's
    own line breaks become spaces; the header cells before the first ``|-`` are the first row)."""
    def cell(node: Tag) -> str:
        return " ".join(_render(node.contents, namespaces, dropped).replace(REMOVED, " ").split())

    lines: list[str] = []
    first: list[str] = []
    for node in table.contents.nodes if table.contents is not None else ():
        if not isinstance(node, Tag):
            continue
        if str(node.tag).strip().lower() in ("td", "th") and str(node.contents or "").startswith("+"):
            lines.append(cell(node).removeprefix("+").strip())  # "|+ caption": mwparserfromhell reads it as a cell
        elif str(node.tag).strip().lower() in ("td", "th"):
            first.append(cell(node))
        elif str(node.tag).strip().lower() == "tr":
            if first:
                lines.append(" | ".join(first))
                first = []
            cells = [cell(c) for c in node.contents.nodes if isinstance(c, Tag)
                     and str(c.tag).strip().lower() in ("td", "th")] if node.contents is not None else []
            if any(cells):
                lines.append(" | ".join(cells))
    if first:
        lines.append(" | ".join(first))
    return "\n" + "\n".join(line for line in lines if line.strip()) + "\n"


def _render_wikilink(node: Wikilink, namespaces: dict[str, int], dropped: list[int]) -> str | None:
    """A wikilink as shown; None for one that shows nothing (a File or Category link)."""
    kind, target = _classify(str(node.title), namespaces)
    if kind == "hidden":
        return None
    if node.text is None:  # rendered, not copied: a title may hold templates or entities
        return _render(node.title, namespaces, dropped).strip().lstrip(":").strip()
    if str(node.text).strip():
        return _render(node.text, namespaces, dropped)
    return _DISAMBIGUATION.sub("", target.split(":", 1)[-1])  # the pipe trick: [[Paris (band)|]] shows "Paris"


def _classify(title: str, namespaces: dict[str, int]) -> tuple[str, str]:
    """("article" | "visible" | "hidden", the target as shown) for a wikilink's title."""
    title = title.strip()
    colon = title.startswith(":")
    target = title.lstrip(":").strip()
    prefix, separator, _ = target.partition(":")
    if not separator:
        return "article", target
    key = " ".join(prefix.replace("_", " ").split()).lower()
    if key in namespaces:
        hidden = namespaces[key] in INVISIBLE_NAMESPACES and not colon
        return ("hidden" if hidden else "visible"), target
    if key in INTERWIKI:
        return "visible", target
    if _LANGUAGE_PREFIX.fullmatch(prefix.strip()):
        # [[de:Anarchismus]] is an interlanguage link (shown in the sidebar, not the text).
        return ("visible" if colon else "hidden"), target
    return "article", target


def _raw_page(page: Any) -> _RawPage:
    """(title, page id, namespace, redirect target, wikitext of the last revision) of an mwxml page."""
    text = ""
    for revision in page:  # a full-history dump: the last revision is the current one
        text = revision.text or ""
    return page.title, page.id, page.namespace, page.redirect, text


def _parse_pages(pages: list[_RawPage], namespaces: dict[str, int]) -> list[_Record]:
    """What each page is (the stage every dump reading maps): another namespace, a redirect
    (normalized source and target), or an article with its plain text and link targets (text None
    and the parser's message when its wikitext cannot be parsed)."""
    records: list[_Record] = []
    for title, page_id, namespace, redirect, wikitext in pages:
        match = _REDIRECT.match(wikitext)  # dumps without <redirect> elements
        redirect = redirect or (match.group(1) if match else None)
        if namespace != 0:
            records.append((OTHER,))
        elif redirect is not None:
            records.append((REDIRECT, normalize_title(title), normalize_title(redirect)))
        else:
            try:
                text, targets, dropped = wikitext_to_plain(wikitext, namespaces)
            except mwparserfromhell.parser.ParserError as err:
                records.append((ARTICLE, title, page_id, None, (str(err),), 0))
            else:
                records.append((ARTICLE, title, page_id, text, targets, dropped))
    return records


def _parse_unit(unit: _Unit, namespaces: dict[str, int]) -> tuple[list[_Record], str | None]:
    """The stage every dump reading maps: pages this process read (:func:`_parse_pages`), or a group of a
    multistream dump that the worker reads, decompresses and parses itself (records, or a problem)."""
    if not isinstance(unit, StreamGroup):
        return _parse_pages(unit, namespaces), None
    try:
        pages = [_raw_page(page) for page in open_dump(io.BytesIO(read_group(unit)))]
    except _READ_ERRORS as err:
        return [], f"not whole streams of a MediaWiki export ({type(err).__name__}: {err}); is the index this dump's?"
    return _parse_pages(pages, namespaces), None


def _resolve(title: str, ids: dict[str, int], redirects: dict[str, str]) -> int | None:
    """The kept article a title leads to through redirects; None for missing pages and cycles."""
    seen = set()
    while title not in ids:
        if title in seen or title not in redirects:
            return None
        seen.add(title)
        title = redirects[title]
    return ids[title]


def _namespace_prefixes(dump: Any) -> dict[str, int]:
    prefixes = dict(DEFAULT_NAMESPACES)
    for namespace in getattr(dump.site_info, "namespaces", None) or ():
        for name in [namespace.name, namespace.canonical, *(namespace.aliases or ())]:
            if name and namespace.id != 0:
                prefixes[" ".join(name.replace("_", " ").split()).lower()] = namespace.id
    return prefixes


def _open(path: Path) -> IO[bytes]:
    if path.suffix.lower() == ".bz2":
        return bz2.open(path, "rb")
    return path.open("rb")


# ValueError: mwxml converts ids and namespaces with int().
_READ_ERRORS = (ET.ParseError, mwxml.errors.MalformedXML, EOFError, OSError, ValueError)
