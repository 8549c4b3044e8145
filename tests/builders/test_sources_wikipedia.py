"""MediaWiki dump ingestion, checked against an independent xml.etree reading of the same dump."""

from __future__ import annotations

import bz2
import os
import re
import signal
import subprocess
import sys
import textwrap
import xml.etree.ElementTree as ET
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import pytest

from builders.engine import process_pool as _pool
from builders.sources.corpus_read import CORPUS_SCHEMA, LINKS_SCHEMA, concat_corpora, normalize_title
from builders.sources.wikipedia import read_mediawiki_dump, wikitext_to_plain
from needlework.errors import InputError
from needlework.interrupts import signals_unwind

DUMP = "enwiki_gensim/enwiki-pages-articles1-p10p30302-shortened.xml.bz2"
EXPORT = "http://www.mediawiki.org/xml/export-0.10/"


@dataclass(frozen=True)
class RawPage:
    title: str
    ns: int
    redirect: str | None
    text: str


def raw_pages(path: Path) -> list[RawPage]:
    """The dump's pages read with xml.etree, as a reference independent of mwxml."""
    ns = f"{{{EXPORT}}}"
    pages = []
    opener = bz2.open if path.suffix == ".bz2" else open
    with opener(path, "rb") as handle:
        for _, element in ET.iterparse(handle):
            if element.tag == f"{ns}page":
                redirect = element.find(f"{ns}redirect")
                pages.append(RawPage(
                    element.findtext(f"{ns}title"),
                    int(element.findtext(f"{ns}ns")),
                    None if redirect is None else redirect.get("title"),
                    element.findtext(f"{ns}revision/{ns}text") or "",
                ))
                element.clear()
    return pages


@pytest.fixture(scope="module")
def dump_path(shared_file: Callable[[str], Path]) -> Path:
    return shared_file(DUMP)


@pytest.fixture(scope="module")
def raw(dump_path: Path) -> list[RawPage]:
    return raw_pages(dump_path)


@pytest.fixture(scope="module")
def read(wikipedia_slice):
    return wikipedia_slice  # the slice at DUMP, read once per worker (tests/conftest.py)


@pytest.fixture(scope="module")
def xml_copy(dump_path: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("dump") / "enwiki.xml"
    path.write_bytes(bz2.decompress(dump_path.read_bytes()))
    return path


def test_keeps_the_53_articles_in_dump_order(read, raw):
    articles = [page for page in raw if page.ns == 0 and page.redirect is None]
    assert len(articles) == 53
    assert read.corpus.schema == CORPUS_SCHEMA
    assert read.corpus.column("doc_id").to_pylist() == list(range(53))
    assert read.corpus.column("title").to_pylist() == [page.title for page in articles]
    assert set(read.corpus.column("lang").to_pylist()) == {"en"}
    assert read.stats["pages"] == len(raw) == 135
    assert read.stats["redirects"] == sum(page.redirect is not None for page in raw) == 82
    assert read.stats["other_namespace"] == sum(page.ns != 0 for page in raw)
    assert read.stats["kept"] == 53 and read.stats["empty"] == 0


def test_redirect_titles_resolve_to_their_targets(read, raw):
    ids = {normalize_title(title): doc_id for doc_id, title in enumerate(read.corpus.column("title").to_pylist())}
    redirects = {normalize_title(page.title): normalize_title(page.redirect) for page in raw if page.redirect}
    resolved = 0
    for source, target in redirects.items():
        seen = {source}
        while target not in ids and target in redirects and target not in seen:
            seen.add(target)
            target = redirects[target]
        if target in ids:
            assert read.titles[source] == (ids[target],)
            resolved += 1
        else:
            assert source not in read.titles
    assert resolved == read.stats["redirect_titles"] > 0
    # AccessibleComputing redirects to "Computer accessibility": resolvable only if that article is here.
    assert ("AccessibleComputing" in read.titles) == ("Computer accessibility" in ids)
    assert read.ids_for_title("Ayn_Rand") == read.ids_for_title("AynRand") == (ids["Ayn Rand"],)


def test_text_has_no_markup_left(read):
    for title, text in zip(read.corpus.column("title").to_pylist(), read.corpus.column("text").to_pylist()):
        assert text.strip(), title
        for markup in ("{{", "}}", "[[", "]]", "<ref", "</ref", "{|", "&nbsp;", "&amp;", "\n\n\n"):
            assert markup not in text, (title, markup)
        assert "Category:" not in text and "File:" not in text, title


def test_link_text_is_kept_and_references_removed(read, raw):
    anarchism = next(page.text for page in raw if page.title == "Anarchism")
    sentence = ("Anarchists became known for their involvement in protests against the meetings of the "
                "[[World Trade Organization]] (WTO), [[G8|Group of Eight]], and the [[World Economic Forum]].")
    assert sentence in anarchism
    assert "[[anti-globalisation movement]]s.<ref name=rupert>{{cite book" in anarchism
    text = read.corpus.column("text")[0].as_py()
    assert ("anti-globalisation movements. Anarchists became known for their involvement in protests against the "
            "meetings of the World Trade Organization (WTO), Group of Eight, and the World Economic Forum.") in text
    assert "Rowman" not in text  # the citation inside the <ref>
    assert "\nHistory\n" in text  # == History == becomes a plain line


def test_links_are_clean_and_match_a_reference_extraction(read, raw):
    assert read.links.schema == LINKS_SCHEMA
    pairs = list(zip(read.links.column("src").to_pylist(), read.links.column("dst").to_pylist()))
    n = read.corpus.num_rows
    assert pairs == sorted(set(pairs))
    assert all(0 <= src < n and 0 <= dst < n and src != dst for src, dst in pairs)
    # Reference: every [[target ...]] in the raw wikitext, resolved through the dump's redirects.
    ids = {normalize_title(title): doc_id for doc_id, title in enumerate(read.corpus.column("title").to_pylist())}
    redirects = {normalize_title(page.title): normalize_title(page.redirect) for page in raw if page.redirect}
    articles = [page for page in raw if page.ns == 0 and page.redirect is None]
    expected = set()
    for src, page in enumerate(articles):
        for match in re.finditer(r"\[\[([^\[\]|{}]+)", page.text):
            target = normalize_title(match.group(1).lstrip(":"))
            for _ in range(10):
                target = redirects.get(target, target)
            if target in ids and ids[target] != src:
                expected.add((src, ids[target]))
    assert set(pairs) == expected and len(expected) > 10
    assert read.stats["links_resolved"] == len(pairs)
    assert read.stats["links_unresolved"] > 1000  # most targets are outside a 53-article slice


def test_parallel_parse_gives_identical_tables(read, dump_path):
    parallel = read_mediawiki_dump(dump_path, workers=2)
    assert parallel.corpus.equals(read.corpus)
    assert parallel.links.equals(read.links)
    assert parallel.titles == read.titles and parallel.stats == read.stats


def test_pool_workers_leave_signals_to_the_parent():
    # Forked under the CLI's handlers, a worker would raise on the SIGTERM that stops the pool and
    # print a traceback; it dies quietly instead, and leaves Ctrl-C to the parent.
    with signals_unwind(), _pool(2) as pool:
        handlers = pool.apply(signal.getsignal, (signal.SIGTERM,)), pool.apply(signal.getsignal, (signal.SIGINT,))
    assert handlers == (signal.SIG_DFL, signal.SIG_IGN)


STOP_A_STARTING_POOL = textwrap.dedent(
    """
    import os, time
    from builders.engine import process_pool as _pool
    from needlework.interrupts import signals_unwind

    os.register_at_fork(after_in_child=lambda: time.sleep(0.5))  # a worker slow to start, as under load
    with signals_unwind():
        _pool(2).terminate()
    print("stopped", flush=True)
    """
)


def test_a_pool_stopped_while_its_workers_start_does_not_hang():
    # The SIGTERM that stops a worker must not be lost while the worker is still being forked.
    child = subprocess.Popen([sys.executable, "-c", STOP_A_STARTING_POOL], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                             text=True, start_new_session=True)
    try:
        out, err = child.communicate(timeout=30)
    except subprocess.TimeoutExpired:
        os.killpg(child.pid, signal.SIGKILL)  # the script and its stuck workers
        child.communicate()
        pytest.fail("stopping a pool whose workers were starting hung")
    assert (child.returncode, out) == (0, "stopped\n"), err


def test_xml_and_bz2_give_identical_tables(read, xml_copy):
    plain = read_mediawiki_dump(xml_copy, workers=1)
    assert plain.corpus.equals(read.corpus)
    assert plain.links.equals(read.links)
    assert plain.titles == read.titles


def test_truncated_or_malformed_dump_is_an_input_error(xml_copy, dump_path, tmp_path):
    truncated = tmp_path / "truncated.xml"
    head = xml_copy.read_bytes()[:200_000]
    truncated.write_bytes(head)
    last_title = re.findall(rb"<title>(.*?)</title>", head)[-1].decode()
    assert head.rindex(b"<title>") > head.rindex(b"</page>")  # the cut falls inside that page
    with pytest.raises(InputError, match=re.escape(f"{truncated}, record {last_title!r} (page id")):
        read_mediawiki_dump(truncated, workers=1)
    cut = tmp_path / "cut.xml.bz2"
    cut.write_bytes(dump_path.read_bytes()[:100_000])
    with pytest.raises(InputError, match=re.escape(str(cut))):
        read_mediawiki_dump(cut, workers=2)
    garbage = tmp_path / "garbage.xml"
    garbage.write_text("this is not xml")
    with pytest.raises(InputError, match="not a readable MediaWiki XML export"):
        read_mediawiki_dump(garbage)
    with pytest.raises(InputError, match="file not found"):
        read_mediawiki_dump(tmp_path / "missing.xml.bz2")


def _page(title: str, text: str, ns: int = 0, redirect: str | None = None, page_id: int = 1) -> str:
    redirect_element = f'<redirect title="{redirect}" />' if redirect else ""
    escaped = text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
    return (f"<page><title>{title}</title><ns>{ns}</ns><id>{page_id}</id>{redirect_element}"
            f"<revision><id>{page_id}</id><text>{escaped}</text></revision></page>")


def _write_dump(path: Path, pages: list[str]) -> Path:
    path.write_text(
        f'<mediawiki xmlns="{EXPORT}" version="0.10"><siteinfo><dbname>dewiki</dbname><namespaces>'
        '<namespace key="0" /><namespace key="1">Talk</namespace><namespace key="6">File</namespace>'
        '<namespace key="14">Category</namespace></namespaces></siteinfo>' + "".join(pages) + "</mediawiki>",
        encoding="utf-8",
    )
    return path


def test_filters_and_redirect_chains_on_a_small_dump(tmp_path):
    path = _write_dump(tmp_path / "small.xml", [
        _page("Alpha", "Alpha links [[beta_page#History|to Beta]], [[Via one]], [[Loop A]], [[Gamma]] and [[Alpha]].",
              page_id=1),
        _page("Talk:Alpha", "A talk page linking [[Beta page]].", ns=1, page_id=2),
        _page("Via one", "", redirect="Via two", page_id=3),
        _page("Via two", "#REDIRECT [[Beta page]]", page_id=4),
        _page("Loop A", "", redirect="Loop B", page_id=5),
        _page("Loop B", "", redirect="Loop A", page_id=6),
        _page("Gamma", "{{Infobox|name=Gamma}}\n<ref>only a reference</ref>\n[[Category:Empty]]", page_id=7),
        _page("Beta page", "Beta is linked from [[Alpha]] and [[Via two]].", page_id=8),
    ])
    read = read_mediawiki_dump(path, workers=1, progress=True)
    assert read.corpus.column("title").to_pylist() == ["Alpha", "Beta page"]
    assert read.corpus.column("lang").to_pylist() == ["de", "de"]
    assert read.stats["other_namespace"] == 1 and read.stats["redirects"] == 4 and read.stats["empty"] == 1
    assert read.titles == {"Alpha": (0,), "Beta page": (1,), "Via one": (1,), "Via two": (1,)}
    assert read.links.to_pylist() == [{"src": 0, "dst": 1}, {"src": 1, "dst": 0}]
    # beta_page#History and Via one reach one page; Loop A cycles; Gamma is empty; Alpha is itself.
    assert read.stats["links_merged"] == 1 and read.stats["links_self"] == 2  # Beta -> Via two -> Beta
    assert read.stats["links_unresolved"] == 2 and read.stats["redirects_unresolved"] == 2
    assert read.corpus.column("text")[0].as_py() == "Alpha links to Beta, Via one, Loop A, Gamma and Alpha."


def test_wikitext_to_plain_markup_cases():
    wikitext = (
        "'''Bold''' and ''italic'' [[Paris (band)|]] [[:Category:Shown]] [[File:X.jpg|thumb|a [[caption link]]]]\n"
        "{| class=wikitable\n| cell [[Table link]]\n|}\n"
        "== Section ==\n"
        "x&nbsp;&lt;y&gt; <b>visible</b><math>x^2</math> [http://e.org External text] [http://e.org/bare] "
        "<!-- hidden --> ({{lang|fr|Paris}}) [[de:Paris]] [[wikt:word|word]] __NOTOC__\n\n\n\nEnd."
    )
    text, targets, dropped = wikitext_to_plain(wikitext)
    # <math>, comments, templates, File and interlanguage links and magic words go; a table is kept as rows of
    # cells (issue 40); the pipe trick drops the disambiguator; entities are unescaped (no-break space -> space).
    assert text == ("Bold and italic Paris Category:Shown\n\ncell Table link\n\nSection\n\n"
                    "x <y> visible External text word\n\nEnd.")
    assert targets == ("Paris (band)", "Caption link", "Table link")
    assert dropped == len("[[File:X.jpg|thumb|a [[caption link]]]]") + len("<math>x^2</math>") + len(
        "{{lang|fr|Paris}}") + len("[[de:Paris]]")


def test_tables_read_as_rows_and_removed_markup_leaves_no_debris():
    """Issue 40: a page that is mostly a table (an Academy Award list) kept only its headings, and templates left
    "Asphalt (,, occasionally )". A table is its caption and a line per row, cells joined by " | "; a parenthesis
    that removed templates leave with separators and a word or two goes whole, one with content stays, cleaned."""
    wikitext = (
        "'''Asphalt''' ({{IPAc-en|ˈ|æ|s|f|ɔː|l|t}}, {{respell|ASS|fawlt}}, occasionally {{IPAc-en|ˈ|æ}}) is sticky. "
        "Marie ({{lang-fr|Marie}}; died 1900) wrote (a plain aside).\n"
        '{| class="wikitable"\n|+ Academy Award winners\n! Year !! Film !! Director\n|-\n'
        "| 1927 || [[Wings (1927 film)|Wings]] || William A. Wellman\n|-\n| 1928\n| ''[[The Broadway Melody]]''\n"
        '| style="x" | Harry Beaumont<ref>source</ref>\n|}\nAfter.'
    )
    text, targets, dropped = wikitext_to_plain(wikitext)
    assert text == ("Asphalt is sticky. Marie (died 1900) wrote (a plain aside).\n\nAcademy Award winners\n"
                    "Year | Film | Director\n1927 | Wings | William A. Wellman\n1928 | The Broadway Melody | "
                    "Harry Beaumont\n\nAfter.")
    assert targets == ("Wings (1927 film)", "The Broadway Melody")
    assert dropped == sum(len(t) for t in ("{{IPAc-en|ˈ|æ|s|f|ɔː|l|t}}", "{{respell|ASS|fawlt}}", "{{IPAc-en|ˈ|æ}}",
                                            "{{lang-fr|Marie}}", "<ref>source</ref>"))


def test_concat_corpora_renumbers_and_shifts(read, tmp_path):
    small = read_mediawiki_dump(_write_dump(tmp_path / "small.xml", [
        _page("Alpha", "Alpha links [[Beta]].", page_id=1), _page("Beta", "Beta links [[Alpha]].", page_id=2),
    ]), workers=1)
    both = concat_corpora([read, small, small])
    n = read.corpus.num_rows
    assert both.corpus.column("doc_id").to_pylist() == list(range(n + 4))
    assert both.corpus.column("title").to_pylist()[n:] == ["Alpha", "Beta", "Alpha", "Beta"]
    assert both.links.num_rows == read.links.num_rows + 4
    assert both.links.slice(read.links.num_rows).to_pylist() == [
        {"src": n, "dst": n + 1}, {"src": n + 1, "dst": n}, {"src": n + 2, "dst": n + 3}, {"src": n + 3, "dst": n + 2}]
    assert both.titles["Anarchism"] == (0,) and both.titles["Alpha"] == (n, n + 2)
    assert both.stats[f"{read.label}:kept"] == n and both.stats["small.xml:kept"] == 4  # same label: summed
    assert both.label == f"{read.label}+small.xml+small.xml"
    with pytest.raises(ValueError):
        concat_corpora([])


def test_normalize_title():
    assert normalize_title("  political_philosophy#History ") == "Political philosophy"
    assert normalize_title("a  b\tc") == "A b c"
    assert normalize_title("mcDonald's") == "McDonald's"  # only the first character changes
    assert normalize_title("éclair") == "Éclair"
    assert normalize_title("#Section") == ""


def test_debris_cleaning_stays_linear_and_reads_nested_parentheses():
    """The debris patterns use one character class per run: 5,000 spaces before a parenthesis cost nothing (nested
    quantifiers made such a page take minutes), and a removed template beside a nested parenthesis leaves none of
    its separators."""
    text, _, _ = wikitext_to_plain('The words oida ({{lang|grc|x}}, "(I) know") and more ({{x}}; {{y}}).'
                                   + " " * 5_000 + "(a, b , ) end")
    assert text == 'The words oida ("(I) know") and more. (a, b, ) end'


def test_the_slice_reads_without_debris_and_counts_what_each_page_dropped(read):
    """Issue 40 on the 53 real articles: no parenthesis left empty or holding only separators (78 such places before
    the fix), and each page's dropped markup counted; the build's summary names the pages that lost most."""
    from builders.haystackcraft import markup_dropped

    texts = read.corpus.column("text").to_pylist()
    titles = read.corpus.column("title").to_pylist()
    debris = [(t, m.group(0)) for t, x in zip(titles, texts)
              for m in re.finditer(r"\([\s,;:]*\)|\(\s*[,;]|[,;]\s*[,;]\s*\w+\s*\)", x)]
    assert debris == []
    assert read.dropped_chars is not None and len(read.dropped_chars) == len(texts) == 53
    assert (read.dropped_chars > 0).sum() >= 50 and (read.dropped_chars >= 0).all()
    summary = markup_dropped(titles, texts, read.dropped_chars)
    assert summary["chars"] == int(read.dropped_chars.sum()) and summary["pages"] == int((read.dropped_chars > 0).sum())
    worst = summary["most_dropped"][0]
    assert worst["dropped_chars"] / worst["kept_chars"] >= max(d / max(len(x), 1) for d, x in zip(read.dropped_chars, texts))
