"""Wikimedia's multistream dumps: a dump that many workers can read at once, each its own byte range.

Wikimedia publishes every ``pages-articles`` dump twice: as one bz2 stream, which only a single
reader can decompress from the start, and as ``pages-articles-multistream``, a concatenation of
independent bz2 streams (the ``<mediawiki>``/``<siteinfo>`` header, then 100 ``<page>`` elements
per stream, then the closing ``</mediawiki>``) with an index, ``...-multistream-index.txt.bz2``,
of one ``offset:page_id:title`` line per page, where ``offset`` is the byte at which the page's
stream starts (https://meta.wikimedia.org/wiki/Data_dumps/Dump_format, "multistream"; the format is
written by the dumps' ``recompressxml`` job, ``mediawiki-tools-dumps``). Large wikis are also
split into numbered parts, ``...-multistream1.xml-p1p41242.bz2`` with
``...-multistream-index1.txt-p1p41242.bz2``, each a whole export with its own header and index.

So a group of consecutive streams is a self-contained piece of work: seek to its first offset,
decompress up to the next group's, and parse the pages inside the file's own header. This module
plans those groups from the index and reads one of them; :mod:`builders.sources.wikipedia` maps
the groups over the build's engine. It also writes a multistream dump and its index from any
export (:func:`write_multistream`), so a dump fetched in one stream can be read in parallel too,
and so the tests and ``benchmarks/scale.py`` can make one from the shared slice.
"""

from __future__ import annotations

import bz2
import re
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import IO

from needlework.errors import InputError

GROUP_BYTES = 4_000_000
"""Compressed bytes of streams read as one unit of work: about 40 of English Wikipedia's
100-page streams, some 16 MB of wikitext, a few seconds of parsing for a worker."""
FOOTER = b"</mediawiki>"
_MULTISTREAM = re.compile(r"(?P<stem>.+-multistream)(?P<part>\d*)\.xml(?P<range>-p\d+p\d+)?\.bz2")
_PART = re.compile(r"^(?P<stem>.+-pages-articles(?:-multistream)?)(?P<part>\d+)\.xml-p(?P<first>\d+)p(?P<last>\d+)\.bz2$")
_PAGE_START = re.compile(rb"^\s*<page>\s*$")
_PAGE_END = re.compile(rb"^\s*</page>\s*$")
_TITLE = re.compile(rb"^\s*<title>(.*)</title>\s*$")
_PAGE_ID = re.compile(rb"^\s*<id>(\d+)</id>\s*$")
_ENTITIES = {b"&lt;": b"<", b"&gt;": b">", b"&quot;": b'"', b"&#039;": b"'", b"&apos;": b"'", b"&amp;": b"&"}


@dataclass(frozen=True)
class StreamGroup:
    """Consecutive bz2 streams of one multistream file: the unit a worker reads.

    Attributes:
        path: The multistream dump (the same path on every worker: a shared filesystem on a cluster).
        header_end: Where the header stream (``<mediawiki>`` and ``<siteinfo>``) ends: the first page offset.
        start: The first byte of the group's first stream.
        end: The byte after its last stream (the next group's start, or the end of the file).
        pages: Pages the index lists in the group (for progress).
    """

    path: str
    header_end: int
    start: int
    end: int
    pages: int


def index_path(dump: Path) -> Path | None:
    """The multistream index Wikimedia publishes beside ``dump``, if it is there.

    ``X-multistream.xml.bz2`` -> ``X-multistream-index.txt.bz2``;
    ``X-multistream3.xml-p151574p311329.bz2`` -> ``X-multistream-index3.txt-p151574p311329.bz2``.
    """
    candidate = _index_name(dump)
    return candidate if candidate is not None and candidate.is_file() else None


def _index_name(dump: Path) -> Path | None:
    """Where Wikimedia puts the index of a file named like a multistream dump (:func:`index_path`), else None."""
    match = _MULTISTREAM.fullmatch(dump.name)
    if match is None:
        return None
    return dump.with_name(f"{match['stem']}-index{match['part']}.txt{match['range'] or ''}.bz2")


def read_index(path: Path) -> list[tuple[int, int]]:
    """``(offset, pages)`` of every stream an index lists, in file order.

    Raises:
        InputError: The index is unreadable, a line is not ``offset:page_id:title``, or offsets go
            backwards; the message names the index and the line.
    """
    streams: list[tuple[int, int]] = []
    try:
        with bz2.open(path, "rt", encoding="utf-8") as lines:
            for number, line in enumerate(lines, 1):
                offset, _, rest = line.partition(":")
                page_id, _, _title = rest.partition(":")
                if not offset.isdigit() or not page_id.isdigit():
                    raise InputError(str(path), f"line {number}", None, f"not 'offset:page_id:title': {line.strip()[:80]!r}")
                start = int(offset)
                if streams and start < streams[-1][0]:
                    raise InputError(str(path), f"line {number}", "offset", f"{start} is before the previous stream's {streams[-1][0]}")
                if streams and start == streams[-1][0]:
                    streams[-1] = (start, streams[-1][1] + 1)
                else:
                    streams.append((start, 1))
    except (OSError, EOFError, UnicodeDecodeError) as err:
        raise InputError(str(path), None, None, f"not a readable multistream index ({type(err).__name__}: {err})") from err
    if not streams:
        raise InputError(str(path), None, None, "the multistream index lists no page")
    return streams


def plan_groups(dump: Path, streams: Sequence[tuple[int, int]], group_bytes: int = GROUP_BYTES) -> list[StreamGroup]:
    """The dump's streams as groups of about ``group_bytes`` compressed bytes, in file order.

    The last group runs to the end of the file, so it holds the closing ``</mediawiki>`` stream.

    Raises:
        InputError: The index points past the end of the dump (it belongs to another file).
    """
    size = dump.stat().st_size
    if streams[-1][0] >= size:
        raise InputError(str(dump), None, None, f"its index lists a stream at byte {streams[-1][0]}, past the end "
                         f"of the file ({size} bytes): the index belongs to another dump")
    header_end = streams[0][0]
    groups: list[StreamGroup] = []
    start, pages = streams[0][0], 0
    for (_, count), following in zip(streams, [s[0] for s in streams[1:]] + [size]):
        pages += count
        if following - start >= group_bytes or following == size:
            groups.append(StreamGroup(str(dump), header_end, start, following, pages))
            start, pages = following, 0
    return groups


def read_group(group: StreamGroup) -> bytes:
    """A whole export holding only the group's pages: the file's header, the pages, ``</mediawiki>``.

    Raises:
        OSError: The file cannot be read. EOFError, OSError: A range is not whole bz2 streams (a
            wrong index), raised by :mod:`bz2`.
    """
    with open(group.path, "rb") as handle:
        header = bz2.decompress(handle.read(group.header_end))
        handle.seek(group.start)
        body = bz2.decompress(handle.read(group.end - group.start))
    return header + body.rstrip().removesuffix(FOOTER) + b"\n" + FOOTER + b"\n"


def read_header(dump: Path, header_end: int) -> bytes:
    """The dump's header stream closed into a whole export without pages (its ``<siteinfo>``, for namespaces and language)."""
    with open(dump, "rb") as handle:
        return bz2.decompress(handle.read(header_end)) + FOOTER + b"\n"


def part_key(path: Path) -> tuple[str, int, int] | None:
    """``(dump stem, part number, first page id)`` of a Wikimedia part file
    (``...-pages-articles[-multistream]N.xml-pAAApBBB.bz2``), else ``None``."""
    match = _PART.match(path.name)
    if match is None:
        return None
    return str(path.with_name(match["stem"])), int(match["part"]), int(match["first"])


def write_multistream(source: IO[bytes], out: Path, pages_per_stream: int = 100) -> Path:
    """Write an export (uncompressed XML, one element per line as Wikimedia writes them) as a multistream
    dump at ``out`` and its index beside it (:func:`index_path` finds it); returns the index's path.

    The header (everything before the first ``<page>``) is one stream, then ``pages_per_stream``
    pages per stream, then the rest (``</mediawiki>``), as Wikimedia's own multistream files.

    Raises:
        ValueError: ``out`` is not named ``*-multistream[N].xml[-pApB].bz2``, or a page has no
            ``<title>`` or ``<id>`` line.
    """
    index = _index_name(out)
    if index is None:
        raise ValueError(f"{out}: a multistream dump is named *-multistream[N].xml[-pApB].bz2")
    pending: list[bytes] = []
    entries: list[bytes] = []
    pages_in_stream = 0
    with open(out, "wb") as dump, bz2.open(index, "wb") as index_file:

        def flush() -> None:
            nonlocal pending, entries, pages_in_stream
            if pending:
                offset = dump.tell()
                dump.write(bz2.compress(b"".join(pending)))
                index_file.writelines(b"%d:%s" % (offset, entry) for entry in entries)
            pending, entries, pages_in_stream = [], [], 0

        page: list[bytes] | None = None
        for line in source:
            if page is None and _PAGE_START.match(line):
                if not entries:
                    flush()  # the header (or the pages' tail) is a stream of its own
                page = [line]
            elif page is not None:
                page.append(line)
                if _PAGE_END.match(line):
                    entries.append(_index_entry(page))
                    pending.extend(page)
                    page, pages_in_stream = None, pages_in_stream + 1
                    if pages_in_stream == pages_per_stream:
                        flush()
            else:
                if entries:
                    flush()
                pending.append(line)
        flush()
    return index


def _index_entry(page: Sequence[bytes]) -> bytes:
    """``page_id:title\\n`` of one ``<page>``'s lines (the title unescaped, as Wikimedia's index has it)."""
    title = next((m.group(1) for m in map(_TITLE.match, page) if m), None)
    page_id = next((m.group(1) for m in map(_PAGE_ID.match, page) if m), None)
    if title is None or page_id is None:
        raise ValueError(f"a <page> without a <title> or <id> line: {b''.join(page[:3])[:80]!r}")
    for entity, char in _ENTITIES.items():
        title = title.replace(entity, char)
    return page_id + b":" + title + b"\n"
