"""MediaWiki exports as they are distributed (issue 27): without ``<siteinfo>``, in UTF-16, and
wikitext with a wikilink inside literal brackets.

Sources of truth: gensim's ``extract_pages`` (``piskvorky/gensim`` ``gensim/corpora/wikicorpus.py``)
walks the ``<page>`` elements under the root and never needs ``<siteinfo>`` (gensim's test export
``enwiki-table-markup.xml.bz2`` has none); mwxml's own ``Dump.from_page_xml`` reads bare pages under
an empty ``<siteinfo>``. MediaWiki shows ``[[[Target]]]`` as ``[Target]`` with the link inside.
"""

from __future__ import annotations

import bz2
from pathlib import Path

import pytest

from builders.sources.mediawiki_dump import STANDARD_NAMESPACES
from builders.sources.wikipedia import read_mediawiki_dump, wikitext_to_plain
from needlework.errors import InputError

EXPORT = "http://www.mediawiki.org/xml/export-0.10/"
SITEINFO = ('<siteinfo><sitename>Wikipedia</sitename><dbname>enwiki</dbname><namespaces><namespace key="0" />'
            '<namespace key="1">Talk</namespace><namespace key="14">Category</namespace></namespaces></siteinfo>')


def page(title: str, text: str, page_id: int, ns: int | None = 0) -> str:
    escaped = text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
    ns_element = "" if ns is None else f"<ns>{ns}</ns>"
    return (f"<page><title>{title}</title>{ns_element}<id>{page_id}</id><revision><id>{page_id}</id>"
            f"<timestamp>2018-01-01T00:00:00Z</timestamp><text xml:space=\"preserve\">{escaped}</text></revision></page>")


PAGES = [
    page("Schopenhauer", "He wrote [[[The Art of Being Right]]] and a [[table|tables]] essay.\n"
                         "{| class=\"wikitable\"\n| a cell\n|}\nMore on [[Logik]].", 1),
    page("The Art of Being Right", "A treatise by [[Schopenhauer]] on [[Eristic|eristic]] dialectic.", 2),
    page("Category:Philosophy", "Pages about [[Schopenhauer]].", 3, ns=None),  # no <ns>: its prefix says 14
    page("Talk:Schopenhauer", "Discussion of [[Schopenhauer]].", 4, ns=None),
    page("Logik", "Über [[Schopenhauer]] — ein Übersicht, 日本語 too.", 5, ns=None),
]


def export(pages: list[str], *, siteinfo: bool, encoding: str = "utf-8") -> str:
    head = f'<?xml version="1.0" encoding="{encoding.upper()}"?>\n' if encoding != "utf-8" else ""
    return (f'{head}<mediawiki xmlns="{EXPORT}" version="0.10" xml:lang="en">'
            + (SITEINFO if siteinfo else "") + "".join(pages) + "</mediawiki>")


def write(path: Path, text: str, encoding: str = "utf-8") -> Path:
    data = text.encode(encoding)  # Python's "utf-16" writes the byte-order mark
    path.write_bytes(bz2.compress(data) if path.suffix == ".bz2" else data)
    return path


def test_an_export_without_siteinfo_reads_like_one_with_it(tmp_path):
    """gensim's enwiki-table-markup.xml.bz2 layout: bz2, export 0.10, no <siteinfo>."""
    bare = read_mediawiki_dump(write(tmp_path / "enwiki-table-markup.xml.bz2", export(PAGES, siteinfo=False)), workers=1)
    full = read_mediawiki_dump(write(tmp_path / "with-siteinfo.xml", export(PAGES, siteinfo=True)), workers=1)
    assert bare.corpus.column("title").to_pylist() == ["Schopenhauer", "The Art of Being Right", "Logik"]
    assert bare.corpus.column("lang").to_pylist() == ["en"] * 3  # from <mediawiki xml:lang="en">
    assert bare.stats["other_namespace"] == 2  # Category: and Talk: pages without <ns>, by the standard namespaces
    for column in ("title", "text", "lang"):
        assert bare.corpus.column(column).to_pylist() == full.corpus.column(column).to_pylist()
    assert bare.links.to_pylist() == full.links.to_pylist()
    assert bare.stats == full.stats


def test_a_utf16_export_reads_like_its_utf8_twin(tmp_path):
    utf8 = read_mediawiki_dump(write(tmp_path / "a.xml", export(PAGES, siteinfo=False)), workers=1)
    for encoding in ("utf-16", "utf-16-le"):
        declared = "utf-16" if encoding == "utf-16" else encoding
        path = write(tmp_path / f"{encoding}.xml.bz2", export(PAGES, siteinfo=False, encoding=declared), encoding)
        read = read_mediawiki_dump(path, workers=1)
        assert read.corpus.column("text").to_pylist() == utf8.corpus.column("text").to_pylist()
        assert "Über Schopenhauer — ein Übersicht, 日本語 too." in read.corpus.column("text").to_pylist()


def test_a_wikilink_in_literal_brackets_reads_as_mediawiki_shows_it(tmp_path):
    text, targets, _ = wikitext_to_plain("He wrote [[[The Art of Being Right]]] in 1831; see ''[[[Eristic|it]]]''.")
    assert text == "He wrote [The Art of Being Right] in 1831; see [it]." and "[[" not in text and "]]" not in text
    assert targets == ("The Art of Being Right", "Eristic")
    read = read_mediawiki_dump(write(tmp_path / "a.xml", export(PAGES, siteinfo=False)), workers=1)
    first = read.corpus.column("text")[0].as_py()
    assert first.startswith("He wrote [The Art of Being Right] and a tables essay.")
    assert {"src": 0, "dst": 1} in read.links.to_pylist()  # the bracketed link is a link


def test_standard_namespaces_cover_what_gensim_skips():
    """gensim's IGNORED_NAMESPACES prefixes (Wikipedia, Category, File, Portal, Template, MediaWiki,
    User, Help, Book, Draft, Special, Talk) are all namespaces here, not articles."""
    names = {n for names in STANDARD_NAMESPACES.values() for n in names}
    assert {"Wikipedia", "Category", "File", "Portal", "Template", "MediaWiki", "User", "Help", "Book", "Draft",
            "Special", "Talk", "Image", "Module"} <= names


def test_a_root_that_is_not_mediawiki_is_refused(tmp_path):
    path = tmp_path / "other.xml"
    path.write_text("<html><body>not an export</body></html>", encoding="utf-8")
    with pytest.raises(InputError, match="not a readable MediaWiki XML export.*<html>"):
        read_mediawiki_dump(path, workers=1)
