"""Multistream dumps and dump parts: read in parallel, one group of bz2 streams per worker, and equal to
reading the single-stream export. The multistream files are made from the shared Wikipedia slice in the
layout Wikimedia publishes (https://meta.wikimedia.org/wiki/Data_dumps/Dump_format: a header stream,
streams of pages, a closing stream; an index of ``offset:page_id:title`` lines).

Every test reads a whole dump at least once, and parsing the wikitext is what that costs, so the export
used is the slice without its long articles: all 82 redirects, every page under 30 KB, and the longer
articles of :data:`KEPT` (113 of its 135 pages, a quarter of the parsing)."""

from __future__ import annotations

import bz2
import io
import itertools
import json
import re
from collections.abc import Callable
from pathlib import Path

import pytest

from builders import haystackcraft
from builders.engine import Engine
from builders.sources.corpus_qa import corpus_sources, read_corpus
from builders.sources.corpus_read import CorpusRead, concat_corpora
from builders.sources.multistream import (
    index_path,
    part_key,
    plan_groups,
    read_index,
    write_multistream,
)
from builders.sources.wikipedia import read_mediawiki_dump
from needlework.errors import InputError
from tests.support.wikipedia import WIKIPEDIA_SLICE, short_pages_export, split_export

STEM = "enwiki-20160501-pages-articles-multistream"
SHORT_PAGE = 30_000
"""Pages of the slice shorter than this many bytes of XML are kept."""
KEPT = ("Anarchism", "Algeria", "Abacus", "Ayn Rand", "Agriculture", "Afroasiatic languages", "ASCII", "Alkane", "Acid",
        "List of Atlas Shrugged characters")
"""Longer articles kept: the three the HaystackCraft questions below ask about, and those whose links cross the
parts of :func:`parts` (part 1 to 3, 2 to 1, 2 to 3 and 3 to 2), so links still resolve across parts."""


@pytest.fixture(scope="module")
def slice_xml(shared_file: Callable[[str], Path]) -> bytes:
    """The slice's export without its long articles (see the module's docstring)."""
    return short_pages_export(bz2.decompress(shared_file(WIKIPEDIA_SLICE).read_bytes()), under=SHORT_PAGE, keep=KEPT)


@pytest.fixture(scope="module")
def single_stream(slice_xml: bytes, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """That export as one bz2 stream, as the slice is, under the slice's name."""
    path = tmp_path_factory.mktemp("single") / Path(WIKIPEDIA_SLICE).name
    path.write_bytes(bz2.compress(slice_xml))
    return path


@pytest.fixture(scope="module")
def single(single_stream: Path) -> CorpusRead:
    """The export read as the single bz2 stream it is."""
    return read_mediawiki_dump(single_stream, workers=1)


@pytest.fixture(scope="module")
def multistream(slice_xml: bytes, tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("multistream") / f"{STEM}.xml.bz2"
    write_multistream(io.BytesIO(slice_xml), out, pages_per_stream=10)
    return out


@pytest.fixture(scope="module")
def parts(slice_xml: bytes, tmp_path_factory: pytest.TempPathFactory) -> list[Path]:
    """The slice as three numbered multistream parts, each a whole export with its own header and index."""
    header, pages, footer = split_export(slice_xml)
    folder = tmp_path_factory.mktemp("parts")
    cuts = [0, 40, 90, len(pages)]
    paths = []
    for number, (a, b) in enumerate(itertools.pairwise(cuts), 1):
        ids = [int(re.search(rb"<id>(\d+)</id>", page).group(1)) for page in pages[a:b]]
        path = folder / f"{STEM}{number}.xml-p{ids[0]}p{ids[-1]}.bz2"
        write_multistream(io.BytesIO(header + b"".join(pages[a:b]) + footer), path, pages_per_stream=7)
        paths.append(path)
    return paths


def same_corpus(read: CorpusRead, reference: CorpusRead) -> None:
    assert read.corpus.equals(reference.corpus)
    assert read.links.equals(reference.links)
    assert read.titles == reference.titles
    assert read.stats == reference.stats


def test_the_written_dump_is_wikimedias_layout(multistream: Path, slice_xml: bytes) -> None:
    """Header stream, one stream per 10 pages, closing stream; the index lists every page at its stream's
    offset, and each stream decompresses on its own."""
    index = index_path(multistream)
    assert index is not None and index.name == f"{STEM}-index.txt.bz2"
    lines = bz2.decompress(index.read_bytes()).decode().splitlines()
    header, pages, _ = split_export(slice_xml)
    assert len(lines) == len(pages) == 113
    assert lines[0].split(":", 1)[1] == "10:AccessibleComputing"
    streams = read_index(index)
    assert [count for _, count in streams] == [10] * 11 + [3]
    data = multistream.read_bytes()
    assert bz2.decompress(data[: streams[0][0]]) == header
    bounds = [offset for offset, _ in streams] + [len(data)]
    first = bz2.BZ2Decompressor().decompress(data[bounds[0]:bounds[1]])
    assert first == b"".join(pages[:10])


@pytest.mark.parametrize("workers", [1, 2])
def test_groups_of_streams_read_on_workers_equal_the_single_stream(multistream, single, workers) -> None:
    """Groups of about two streams (so 7 units for 2 workers) give the single-stream corpus, byte for byte."""
    streams = read_index(index_path(multistream))
    assert len(plan_groups(multistream, streams, group_bytes=30_000)) > 4
    read = read_mediawiki_dump(multistream, engine=Engine("local", workers), group_bytes=30_000)
    same_corpus(read, single)
    assert read.label == multistream.name


def test_parts_are_one_dump_in_dump_order_whatever_order_given(parts, single) -> None:
    """Links and redirects resolve across parts (a page of part 3 links into part 1), which reading
    each part as its own corpus would lose; a glob's order (1, 3, 2 here) is put back in dump order."""
    sources = corpus_sources([parts[0], parts[2], parts[1]])
    assert sources == [parts]
    read = read_corpus(sources[0], workers=2)
    same_corpus(read, single)
    assert read.label == f"{parts[0].name}+2 more parts"
    separately = concat_corpora([read_mediawiki_dump(part, workers=1) for part in parts])
    assert separately.corpus["text"].equals(single.corpus["text"])
    assert separately.links.num_rows < single.links.num_rows


def test_parts_without_an_index_are_read_serially_as_one_dump(slice_xml, single, tmp_path) -> None:
    """The plain (single-stream) numbered parts Wikimedia also publishes: no index, same corpus."""
    header, pages, footer = split_export(slice_xml)
    paths = []
    for number, (a, b) in enumerate([(0, 70), (70, len(pages))], 1):
        path = tmp_path / f"enwiki-20160501-pages-articles{number}.xml-p{a + 1}p{b}.bz2"
        path.write_bytes(bz2.compress(header + b"".join(pages[a:b]) + footer))
        paths.append(path)
    assert part_key(paths[1]) == (str(tmp_path / "enwiki-20160501-pages-articles"), 2, 71)
    assert index_path(paths[0]) is None
    assert corpus_sources([tmp_path / "passages.json", *paths]) == [[tmp_path / "passages.json"], paths]
    same_corpus(read_corpus(paths, workers=2), single)


def test_an_index_of_another_dump_is_refused_naming_the_bytes(multistream, tmp_path) -> None:
    """An index whose offsets are not the dump's stream starts: one line naming the dump and the byte range."""
    index = index_path(multistream)
    offsets = [offset for offset, _ in read_index(index)]
    shifted = tmp_path / multistream.name
    shifted.write_bytes(multistream.read_bytes())
    lines = bz2.decompress(index.read_bytes()).decode().splitlines(keepends=True)
    moved = "".join(line.replace(f"{offsets[1]}:", f"{offsets[1] + 3}:", 1) for line in lines)
    (tmp_path / index.name).write_bytes(bz2.compress(moved.encode()))
    with pytest.raises(InputError, match=rf"{re.escape(str(shifted))}, record bytes {offsets[0]}-{offsets[1] + 3}: "
                                         "not whole streams"):
        read_mediawiki_dump(shifted, workers=1, group_bytes=1)


def test_an_index_listing_fewer_pages_is_refused(multistream, tmp_path) -> None:
    index = index_path(multistream)
    copy = tmp_path / multistream.name
    copy.write_bytes(multistream.read_bytes())
    lines = bz2.decompress(index.read_bytes()).decode().splitlines(keepends=True)
    (tmp_path / index.name).write_bytes(bz2.compress("".join(lines[:3] + lines[4:]).encode()))
    with pytest.raises(InputError, match=r"its index lists 9 pages there, the dump holds 10"):
        read_mediawiki_dump(copy, workers=1, group_bytes=1)


def test_a_malformed_index_line_is_named(multistream, tmp_path) -> None:
    copy = tmp_path / multistream.name
    copy.write_bytes(multistream.read_bytes())
    index = tmp_path / index_path(multistream).name
    index.write_bytes(bz2.compress(b"600:10:AccessibleComputing\nnot an index line\n"))
    with pytest.raises(InputError, match=rf"{re.escape(str(index))}, record line 2: not 'offset:page_id:title'"):
        read_mediawiki_dump(copy, workers=1)
    index.write_bytes(bz2.compress(b"%d:10:Far\n" % (copy.stat().st_size + 10)))
    with pytest.raises(InputError, match="the index belongs to another dump"):
        read_mediawiki_dump(copy, workers=1)


def test_parts_of_two_wikis_are_refused(parts, tmp_path) -> None:
    header = bz2.decompress(parts[1].read_bytes()[: read_index(index_path(parts[1]))[0][0]])
    other = header.replace(b"<dbname>enwiki</dbname>", b"<dbname>dewiki</dbname>")
    assert other != header
    path = tmp_path / parts[1].name.replace("-pages-articles-multistream2.xml", "-pages-articles2.xml")
    first = tmp_path / parts[0].name.replace("-pages-articles-multistream1.xml", "-pages-articles1.xml")
    first.write_bytes(bz2.compress(bz2.decompress(parts[0].read_bytes())))
    path.write_bytes(bz2.compress(bz2.decompress(parts[1].read_bytes()).replace(header, other)))
    with pytest.raises(InputError, match=r"a part of a 'en' dump holds a 'de' wiki"):
        read_corpus([first, path], workers=1)


def test_ray_workers_read_the_groups(ray_cluster, multistream, single) -> None:
    """Each Ray task opens the dump itself (the same path on every node), 2 workers, same corpus."""
    same_corpus(read_mediawiki_dump(multistream, engine=Engine("ray", 2), group_bytes=30_000), single)


def test_a_haystackcraft_build_from_the_parts_equals_one_from_the_single_stream(parts, single_stream, qwen, tmp_path) -> None:
    """The release's configs (corpus, links, rankings, haystacks) have the same content hashes whether the
    corpus came as the single-stream slice or as its multistream parts given in glob order."""
    nq = tmp_path / "nq.jsonl"
    nq.write_text("".join(json.dumps(row) + "\n" for row in [
        {"question": "what is anarchism", "answer": ["a political philosophy"], "title": "Anarchism"},
        {"question": "what is the capital of algeria", "answer": ["Algiers"], "title": "Algeria"},
        {"question": "what is an abacus used for", "answer": ["calculation"], "title": "Abacus"},
    ]), encoding="utf-8")
    hashes = {}
    for name, corpus in {"single": [single_stream], "parts": [parts[2], parts[0], parts[1]]}.items():
        spec = haystackcraft.HaystackCraftBuild(corpus=tuple(map(str, corpus)), qa=(str(nq),), strategies=("bm25+ppr",),
                                                sizes=(0, 2_000), top_k=20, cache=str(tmp_path / f"cache-{name}"),
                                                workers=2)
        haystackcraft.build(spec, tmp_path / name, tokens=qwen, progress=False)
        manifest = json.loads((tmp_path / name / "manifest.json").read_text(encoding="utf-8"))
        hashes[name] = {config: {split: entry["content_sha256"] for split, entry in value["splits"].items()}
                        for config, value in manifest["configs"].items()}
    assert {"corpus", "links", "rankings", "static-descending"} <= set(hashes["single"])
    assert hashes["parts"] == hashes["single"]
