"""BM25 text analysis: ``lucene`` against Lucene's EnglishAnalyzer on crafted text, ``plain`` unchanged.

Source of truth: the paper's BM25 is Pyserini's ``LuceneSearcher`` (Graph-COM/HaystackCraft ``retrievers/bm25.py``)
over an index analyzed by Anserini's ``DefaultEnglishAnalyzer.newDefaultInstance()`` (castorini/anserini
``src/main/java/io/anserini/analysis/DefaultEnglishAnalyzer.java``): StandardTokenizer (UAX #29), EnglishPossessiveFilter,
LowerCaseFilter, StopFilter(ENGLISH_STOP_WORDS_SET), PorterStemFilter. The expected token lists below are written
from those components' documented behaviour (Lucene javadocs; Martin Porter's reference stemmer, which Lucene's
PorterStemmer is), not produced by our code. BM25 with k1 = 0.9, b = 0.4 is Pyserini's default (castorini/pyserini
``pyserini/search/lucene/_searcher.py``, ``set_bm25``).
"""

from __future__ import annotations

import math
from collections import Counter

import numpy as np
import pytest

from builders.retrieval.analysis import (
    LUCENE_STOP_WORDS,
    MAX_TOKEN_LENGTH,
    analyzer,
    lucene_analyze,
    lucene_tokens,
    plain_analyze,
    standard_tokens,
)
from builders.retrieval.bm25 import BM25Retriever
from generators.haystackcraft.prompt import render_document
from needlework.errors import SpecError

LUCENE_REFERENCE = [
    # Possessive with a trailing apostrophe is cut by the tokenizer; plural and -ing stem; "ran" is irregular.
    ("The runners' running ran.", ["runner", "run", "ran"]),
    # Elasticsearch's standard-tokenizer example sentence through the English chain.
    ("The 2 QUICK Brown-Foxes jumped over the lazy dog's bone.",
     ["2", "quick", "brown", "fox", "jump", "over", "lazi", "dog", "bone"]),
    # 's removed with U+0027, U+2019 and U+FF07 apostrophes, in either case; "wasn't" keeps its apostrophe.
    ("O\u2019Neil\u2019s cat's toy; JOHN'S hat\uff07s; it wasn't", ["o\u2019neil", "cat", "toi", "john", "hat", "wasn't"]),
    # Acronyms, decimals, thousands and underscores stay one token (UAX #29 MidNum/MidNumLet/ExtendNumLet);
    # hyphens and @ split; the trailing period of U.S.A. is not part of the word.
    ("U.S.A. paid 3.14 or 1,000 to foo_bar via e-mail x@y.com", ["u.s.a", "paid", "3.14", "1,000", "foo_bar", "via", "e",
                                                                  "mail", "x", "y.com"]),
    # Lucene's 33 stop words go, other function words stay.
    ("He was there with them, from a house that they have", ["he", "them", "from", "hous", "have"]),
    # Porter's reference implementation: words of one or two letters untouched ("us" stays), bli -> ble,
    # logi -> log (the Snowball "porter" gives "u", "possibli", "archaeologi").
    ("US possibly archaeology generalizations", ["us", "possibl", "archaeolog", "gener"]),
    # Java's per-code-point lower case: no Greek final sigma, dotted capital I -> i.
    ("ΟΔΟΣ İZMİR", ["οδοσ", "izmir"]),
    # Each ideograph is a token; a katakana run is one.
    ("東京タワー", ["東", "京", "タワー"]),
]


@pytest.mark.parametrize(("text", "expected"), LUCENE_REFERENCE)
def test_lucene_analysis_matches_the_english_analyzer_reference(text, expected):
    """Lucene EnglishAnalyzer's tokens of crafted text (see the module docstring for each rule's source)."""
    assert lucene_tokens(text) == expected


def test_lucene_stop_set_is_englishanalyzer_s_33_words():
    """``EnglishAnalyzer.ENGLISH_STOP_WORDS_SET`` has 33 words, and all of them are dropped."""
    assert len(LUCENE_STOP_WORDS) == 33
    assert lucene_tokens(" ".join(sorted(LUCENE_STOP_WORDS)).upper()) == []


def test_standard_tokenizer_splits_tokens_longer_than_255_chars():
    """StandardTokenizer's maxTokenLength (255): a longer word comes out in 255-character pieces."""
    assert standard_tokens("x" * 600 + " y") == ["x" * MAX_TOKEN_LENGTH, "x" * MAX_TOKEN_LENGTH, "x" * 90, "y"]
    assert standard_tokens("-- ... ½ ²") == []  # no letter or decimal digit: no token


def test_plain_analysis_is_bm25s_tokenization():
    """``plain`` is bm25s's tokenizer as before: lower case, its regex, its English stop words, no stemming."""
    assert plain_analyze(["The runners' running ran, he said."]) == [["runners", "running", "ran", "he", "said"]]
    assert analyzer("plain") is plain_analyze and analyzer("lucene") is lucene_analyze
    with pytest.raises(SpecError, match="^BM25 analyzer must be one of 'plain', 'lucene'; got 'porter'$"):
        analyzer("porter")


def test_plain_bm25_config_is_unchanged_and_lucene_is_another_index():
    """The default (plain) index keeps the config and so the cache key it always had; lucene gets its own."""
    titles, texts = ["A", "B"], ["The runners ran.", "A running race."]
    plain = BM25Retriever(titles, texts, render=render_document)
    assert plain.config == {"kind": "bm25", "library": plain.config["library"], "method": "lucene", "k1": 0.9, "b": 0.4,
                            "lower": True, "stopwords": "en", "stemmer": None}
    lucene = BM25Retriever(titles, texts, render=render_document, analysis="lucene")
    assert lucene.fingerprint != plain.fingerprint and lucene.config["k1"] == 0.9 and lucene.config["b"] == 0.4


def test_lucene_bm25_scores_stemmed_matches_as_a_reference_bm25():
    """With lucene analysis a query's inflection finds the document (Porter), scored as Lucene's BM25 (0.9, 0.4)."""
    titles = ["Athletics", "Race", "Cooking", "Dog"]
    texts = ["The runners were running in the city's marathon.", "A race of many runs.",
             "Cooking recipes for the house.", "The dog's bone."]
    queries = ["Which runner ran?", "dogs houses"]
    plain = BM25Retriever(titles, texts, render=render_document)
    lucene = BM25Retriever(titles, texts, render=render_document, analysis="lucene")
    assert not plain.score_all(queries[:1])[0, 0]  # neither "runner" nor "ran" is a token of the plain index
    scores = lucene.score_all(queries)
    doc_tokens = lucene_analyze([render_document(t, x) for t, x in zip(titles, texts)])
    n, lengths = len(doc_tokens), np.array([len(d) for d in doc_tokens], dtype=np.float64)
    counts = [Counter(d) for d in doc_tokens]
    for row, query in enumerate(queries):
        expected = np.zeros(n)
        for token in lucene_tokens(query):
            df = sum(token in c for c in counts)
            if df:
                tf = np.array([c[token] for c in counts], dtype=np.float64)
                idf = math.log(1 + (n - df + 0.5) / (df + 0.5))
                expected += idf * tf / (tf + 0.9 * (1 - 0.4 + 0.4 * lengths / lengths.mean()))
        np.testing.assert_allclose(scores[row], expected, rtol=1e-5, atol=1e-6)
    assert scores[0].argmax() == 0 and scores[1, 2] > 0 and scores[1, 3] > 0
