"""Open a MediaWiki XML export with mwxml, with or without its ``<siteinfo>`` block.

mwxml's ``Dump.from_element`` refuses an export whose ``<mediawiki>`` root holds no ``<siteinfo>``
("MalformedXML: <siteinfo> tag not found"), yet such exports are read by the established readers:
gensim's ``gensim/corpora/wikicorpus.py`` ``extract_pages`` (``piskvorky/gensim``) walks the
``<page>`` elements under the root without looking for ``<siteinfo>``, and reads gensim's own test
export ``enwiki-table-markup.xml.bz2`` that way; mwxml itself, in ``Dump.from_page_xml``, wraps bare
``<page>`` blocks in an empty ``<siteinfo>``. So an export without one is read as mwxml reads one
with an empty ``<siteinfo>``, except that the namespaces default to the standard ones
(:data:`STANDARD_NAMESPACES`): a page without ``<ns>`` titled ``Category:...`` is then in namespace
14, as on any MediaWiki, and not an article. The language comes from the root's ``xml:lang``.

UTF-16 exports (with a byte-order mark, or without one, as ``<`` followed or preceded by a zero
byte says) are decoded here and handed to the parser as text, because expat, the parser under
``xml.etree``, accepts only the encoding names it knows (``UTF-16LE``, not ``UTF-16-LE``) and
Python's fallback refuses every multi-byte codec.
"""

from __future__ import annotations

import io
import re
from collections.abc import Iterator
from typing import IO, Any

import mwtypes
import mwxml
from mwxml.element_iterator import ElementIterator
from mwxml.errors import MalformedXML
from mwxml.iteration.site_info import SiteInfo

XML_LANG = "{http://www.w3.org/XML/1998/namespace}lang"
STANDARD_NAMESPACES: dict[int, tuple[str, ...]] = {
    -2: ("Media",), -1: ("Special",), 1: ("Talk",), 2: ("User",), 3: ("User talk",),
    4: ("Project", "Wikipedia"), 5: ("Project talk", "Wikipedia talk"), 6: ("File", "Image"),
    7: ("File talk", "Image talk"), 8: ("MediaWiki",), 9: ("MediaWiki talk",), 10: ("Template",),
    11: ("Template talk",), 12: ("Help",), 13: ("Help talk",), 14: ("Category",), 15: ("Category talk",),
    100: ("Portal",), 101: ("Portal talk",), 108: ("Book",), 109: ("Book talk",), 118: ("Draft",),
    119: ("Draft talk",), 710: ("TimedText",), 711: ("TimedText talk",), 828: ("Module",), 829: ("Module talk",),
}
"""Namespace id -> names, first the canonical one: MediaWiki's built-in namespaces (-2..15, with
English Wikipedia's ``Wikipedia`` for Project and the ``Image`` alias of File) and the extra ones
English Wikipedia exports hold (Portal, Book, Draft, TimedText, Module), the prefixes gensim's
``IGNORED_NAMESPACES`` also skips."""


class _Dump(mwxml.Dump):
    """mwxml's ``Dump``, accepting an export without ``<siteinfo>`` (see the module docstring)."""

    xml_lang: str | None = None
    has_siteinfo: bool = True

    @classmethod
    def from_element(cls, element: Any) -> _Dump:
        """As mwxml's, but a missing ``<siteinfo>`` stands for one with the standard namespaces."""
        site_info, first = None, None
        for sub_element in element:
            if sub_element.tag == "siteinfo":
                site_info = SiteInfo.from_element(sub_element)
            elif sub_element.tag in ("page", "logitem"):
                first = sub_element
                break
            else:
                raise MalformedXML(f"Unexpected tag found when processing a <mediawiki>: '{sub_element.tag}'")
        has_siteinfo = site_info is not None
        if site_info is None:
            site_info = SiteInfo(namespaces=standard_namespaces())
            namespace_map = {name: ns for ns in site_info.namespaces for name in (ns.name, *(ns.aliases or ()))}
        else:  # exactly mwxml's reading
            namespace_map = None if site_info.namespaces is None else {ns.name: ns for ns in site_info.namespaces}
        items: Iterator[Any] = cls.load_items(first, element, namespace_map) if first is not None else iter(())
        dump = cls(site_info, items)
        dump.has_siteinfo = has_siteinfo
        return dump


def standard_namespaces() -> list[mwtypes.Namespace]:
    """:data:`STANDARD_NAMESPACES` as mwtypes namespaces."""
    return [mwtypes.Namespace(ns_id, names[0], canonical=names[0], aliases=list(names[1:]))
            for ns_id, names in STANDARD_NAMESPACES.items()]


UTF16_STARTS: dict[bytes, str] = {b"\xff\xfe": "utf-16", b"\xfe\xff": "utf-16", b"<\x00": "utf-16-le", b"\x00<": "utf-16-be"}
"""The first two bytes of a UTF-16 XML document -> the codec that reads it (BOM, or ``<`` unmarked)."""


def utf16_codec(handle: IO[bytes]) -> str | None:
    """The UTF-16 codec of the document in ``handle`` (read by peeking, nothing consumed), else ``None``."""
    peek = getattr(handle, "peek", None)
    start = peek(2)[:2] if peek is not None else b""
    return UTF16_STARTS.get(start)


def open_dump(handle: IO[bytes]) -> mwxml.Dump:
    """The export in ``handle`` as an mwxml ``Dump`` (pages streamed), ``<siteinfo>`` or not, in
    UTF-8 or UTF-16.

    Raises:
        xml.etree.ElementTree.ParseError, MalformedXML: Not a MediaWiki XML export.
    """
    codec = utf16_codec(handle)
    source: IO[bytes] | IO[str] = handle if codec is None else io.TextIOWrapper(handle, encoding=codec)
    element = ElementIterator.from_file(source)
    if element.tag != "mediawiki":
        raise MalformedXML(f"the root element is <{element.tag}>, not <mediawiki>")
    dump = _Dump.from_element(element)
    dump.xml_lang = element.attr(XML_LANG)
    return dump


def dump_language(dump: Any) -> str:
    """The export's language: from ``<dbname>`` (``enwiki`` -> ``en``), else, for an export without
    ``<siteinfo>``, the root's ``xml:lang``; ``und`` when neither says."""
    match = re.fullmatch(r"([a-z_]+?)wiki", getattr(dump.site_info, "dbname", None) or "")
    if match:
        return match.group(1).replace("_", "-")
    if not getattr(dump, "has_siteinfo", True) and getattr(dump, "xml_lang", None):
        return str(dump.xml_lang)
    return "und"
