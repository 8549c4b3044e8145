"""BM25 text analysis: bm25s's plain tokenization, or Lucene's English analysis as the paper's Pyserini index ran it.

The paper's BM25 (Graph-COM/HaystackCraft ``retrievers/bm25.py``) is Pyserini's ``LuceneSearcher`` over an index
built with Pyserini's defaults, whose analyzer is Anserini's ``DefaultEnglishAnalyzer.newDefaultInstance()``
(castorini/anserini ``src/main/java/io/anserini/analysis/DefaultEnglishAnalyzer.java``): the chain of Lucene's
``EnglishAnalyzer``, applied to documents and queries alike:

1. ``StandardTokenizer``: Unicode word segmentation (UAX #29). Tokens are the word segments that hold a letter or a
   digit, so ``dog's``, ``U.S.A`` (the final period is not part of the word), ``3.14``, ``1,000``, ``foo_bar``
   stay whole, hyphens split, punctuation-only segments vanish, and each CJK ideograph is its own token. Segments
   longer than 255 characters (the tokenizer's ``maxTokenLength``) are cut into 255-character pieces.
2. ``EnglishPossessiveFilter``: a trailing ``'s`` / ``'S`` (apostrophe U+0027, U+2019 or U+FF07) is removed.
3. ``LowerCaseFilter``: Java's ``Character.toLowerCase`` per code point (so no Greek final sigma, and ``İ`` -> ``i``).
4. ``StopFilter`` with ``EnglishAnalyzer.ENGLISH_STOP_WORDS_SET``, Lucene's 33 English stop words.
5. ``PorterStemFilter``: Lucene's ``PorterStemmer``, Martin Porter's reference implementation (with its three
   departures from the 1980 paper: ``bli -> ble``, ``logi -> log``, and words of one or two letters left alone).
   NLTK's ``PorterStemmer(mode=MARTIN_EXTENSIONS)`` is that implementation; the Snowball ``porter`` algorithm of
   PyStemmer (bm25s's ``stemmer=`` hook) follows the paper instead and stems ``is``/``us`` to ``i``/``u``.

The UAX #29 boundaries come from the ``regex`` module's Unicode word-boundary mode (``regex.WORD``); bm25s's own
tokenizer (its ``token_pattern`` regex, then ``stopwords=`` and ``stemmer=``) cannot split words that way or remove
possessives, so the Lucene chain tokenizes itself and hands bm25s strings. Known departures from Lucene (none matter
for English prose): Lucene 9's UAX #29 tables are an older Unicode version than ``regex``'s, runs of Thai/Lao/Khmer
letters are one token in Lucene and one per letter here, and emoji (a token type in Lucene) are dropped here.

``plain`` is the analysis this project used before: bm25s's tokenizer, lower-cased, its regex ``(?u)\\b\\w\\w+\\b``,
bm25s's English stop words, no stemming.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from functools import lru_cache

import regex

from needlework.checks import one_of_message
from needlework.errors import SpecError

Analyzer = Callable[[Sequence[str]], list[list[str]]]
"""Texts -> one token list per text."""

PLAIN, LUCENE = "plain", "lucene"
ANALYZERS: tuple[str, ...] = (PLAIN, LUCENE)
"""The names of the ``bm25_analyzer`` build option."""
BM25S_STOPWORDS = "en"
"""bm25s's English stop-word list (the ``plain`` analysis)."""

LUCENE_STOP_WORDS: frozenset[str] = frozenset((
    "a", "an", "and", "are", "as", "at", "be", "but", "by", "for", "if", "in", "into", "is", "it", "no", "not", "of",
    "on", "or", "such", "that", "the", "their", "then", "there", "these", "they", "this", "to", "was", "will", "with",
))
"""Lucene's ``EnglishAnalyzer.ENGLISH_STOP_WORDS_SET`` (33 words)."""
MAX_TOKEN_LENGTH = 255
"""``StandardTokenizer``'s default ``maxTokenLength``."""
APOSTROPHES = frozenset("'\u2019\uff07")
"""The apostrophes ``EnglishPossessiveFilter`` recognizes."""

_BOUNDARY = regex.compile(r"\b", flags=regex.WORD | regex.V1)
_WORDISH = regex.compile(r"[\p{L}\p{Nd}]")
_JAVA_LOWER = {"\u0130": "i"}
"""Code points whose Java simple lowercase differs from Python's full ``str.lower`` (U+0130 -> U+0069 alone)."""


def plain_analyze(texts: Sequence[str]) -> list[list[str]]:
    """bm25s's tokenization (lower case, its regex and English stop words, no stemming), as strings."""
    import bm25s  # loaded on first use: the option names above are read by ``needlework build --help``

    return bm25s.tokenize(list(texts), lower=True, stopwords=BM25S_STOPWORDS, return_ids=False, show_progress=False)


def standard_tokens(text: str) -> list[str]:
    """Lucene ``StandardTokenizer`` tokens of ``text``: UAX #29 word segments holding a letter or digit, at most 255 chars."""
    tokens: list[str] = []
    for segment in _BOUNDARY.split(text):
        if not segment or not _WORDISH.search(segment):
            continue
        if len(segment) <= MAX_TOKEN_LENGTH:
            tokens.append(segment)
        else:
            tokens.extend(segment[i:i + MAX_TOKEN_LENGTH] for i in range(0, len(segment), MAX_TOKEN_LENGTH))
    return tokens


def strip_possessive(token: str) -> str:
    """``EnglishPossessiveFilter``: drop a trailing apostrophe + ``s``/``S``."""
    if len(token) >= 2 and token[-1] in "sS" and token[-2] in APOSTROPHES:
        return token[:-2]
    return token


def java_lower(token: str) -> str:
    """``LowerCaseFilter``: each code point through Java's ``Character.toLowerCase`` (no context rules)."""
    if "\u03a3" not in token and "\u0130" not in token:
        return token.lower()
    return "".join(_JAVA_LOWER.get(c) or c.lower() for c in token)


@lru_cache(maxsize=1)
def _porter() -> Callable[..., str]:
    try:
        from nltk.stem.porter import PorterStemmer
    except ImportError as err:  # pragma: no cover - nltk is a dependency
        raise SpecError(f"the lucene BM25 analysis needs nltk's Porter stemmer: pip install nltk ({err})") from err
    return PorterStemmer(mode=PorterStemmer.MARTIN_EXTENSIONS).stem


@lru_cache(maxsize=1 << 20)
def porter_stem(token: str) -> str:
    """Lucene's ``PorterStemmer`` on a lower-cased token (Martin Porter's reference implementation)."""
    return _porter()(token, to_lowercase=False)


def lucene_tokens(text: str) -> list[str]:
    """One text through the ``EnglishAnalyzer`` chain: tokenize, possessives, lower case, stop words, Porter."""
    out: list[str] = []
    for token in standard_tokens(text):
        token = java_lower(strip_possessive(token))
        if token and token not in LUCENE_STOP_WORDS:
            out.append(porter_stem(token))
    return out


def lucene_analyze(texts: Sequence[str]) -> list[list[str]]:
    """Lucene ``EnglishAnalyzer`` tokens of each text (see the module docstring)."""
    return [lucene_tokens(text) for text in texts]


def analyzer(name: str) -> Analyzer:
    """The analysis named ``plain`` or ``lucene``."""
    if name == PLAIN:
        return plain_analyze
    if name == LUCENE:
        return lucene_analyze
    raise SpecError(one_of_message("BM25 analyzer", name, ANALYZERS))


def describe(name: str) -> dict[str, object]:
    """What an analysis does, for configs and fingerprints (``plain`` keeps the keys the index always had)."""
    if name == PLAIN:
        return {"lower": True, "stopwords": BM25S_STOPWORDS, "stemmer": None}
    if name == LUCENE:
        return {"analysis": "lucene-english", "tokenizer": "uax29 (regex WORD)", "possessive": True, "lower": "java",
                "stopwords": "lucene-english-33", "stemmer": "porter (nltk MARTIN_EXTENSIONS = Lucene PorterStemmer)",
                "max_token_length": MAX_TOKEN_LENGTH}
    raise SpecError(one_of_message("BM25 analyzer", name, ANALYZERS))
