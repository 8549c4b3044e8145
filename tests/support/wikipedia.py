"""Smaller exports cut from the shared Wikipedia slice, for tests whose subject is not the parser.

Parsing wikitext (mwparserfromhell's tree builder) is most of what reading a dump costs: ~3.5 s of CPU for the
slice's 53 articles, most of it in its ten longest. A test of the engines or of dump layouts shows the same
thing on an export of the slice's short pages, written as Wikimedia writes exports (one element per line).
"""

from __future__ import annotations

import re
from collections.abc import Collection

WIKIPEDIA_SLICE = "enwiki_gensim/enwiki-pages-articles1-p10p30302-shortened.xml.bz2"
"""The shared Wikipedia dump slice (53 articles with links), relative to the shared data folder."""


def split_export(xml: bytes) -> tuple[bytes, list[bytes], bytes]:
    """(header, pages, footer) of an export written one element per line, as Wikimedia writes them."""
    starts = [m.start() for m in re.finditer(rb"^  <page>$", xml, re.MULTILINE)]
    ends = [m.end() + 1 for m in re.finditer(rb"^  </page>$", xml, re.MULTILINE)]
    return xml[: starts[0]], [xml[s:e] for s, e in zip(starts, ends)], xml[ends[-1]:]


def page_title(page: bytes) -> str:
    """The ``<title>`` of one ``<page>`` element."""
    return re.search(rb"<title>(.*)</title>", page)[1].decode()


def short_pages_export(xml: bytes, *, under: int, keep: Collection[str] = ()) -> bytes:
    """The export with every redirect, every page shorter than ``under`` bytes of XML and the pages titled in
    ``keep``, in dump order, under the export's own header and footer."""
    header, pages, footer = split_export(xml)
    kept = [page for page in pages if b"<redirect" in page or len(page) < under or page_title(page) in keep]
    return header + b"".join(kept) + footer
