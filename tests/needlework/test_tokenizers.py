"""Tests of needlework.tokenizers: exact ids against references, offsets, fingerprints, errors."""

from __future__ import annotations

import base64
import hashlib
import json
import os
import pickle
import random
import subprocess
import sys
import threading
import unicodedata
from collections.abc import Callable
from pathlib import Path

import numpy as np
import pytest
import tiktoken
from hypothesis import given, settings
from hypothesis import strategies as st
from tokenizers import Regex, Tokenizer, decoders, models, normalizers, pre_tokenizers

from needlework.errors import TokenizerError
from needlework.tokens import TokenCounter
from needlework.tokenizers import (
    DEFAULT_TOKENIZER,
    HFTokenizerCounter,
    TiktokenCounter,
    available_tokenizers,
    load_tokenizer,
)
from needlework.tokenizers.named import find_vocab, load_named, named_entry
from needlework.tokenizers.tiktoken_counter import parse_ranks

REPO = Path(__file__).resolve().parents[2]
REF_SEPARATOR = "\n__ggml_vocab_test__\n"
REF_STEMS = ("qwen2", "deepseek-r1-qwen")
REF_PAIRS_PER_FILE = 46


def read_reference(inp_path: Path, out_path: Path) -> list[tuple[str, list[int]]]:
    """The (string, reference ids) pairs of one llama.cpp tokenizer test vector file pair."""
    # Bytes, not read_text: universal-newline decoding would turn "\r" inside a string into "\n".
    inp = inp_path.read_bytes().decode("utf-8")
    out = out_path.read_bytes().decode("utf-8")
    # Every string, the last included, is followed by the separator (llama.cpp's reader).
    strings = inp.removesuffix(REF_SEPARATOR).split(REF_SEPARATOR)
    id_lines = out.removesuffix("\n").split("\n")
    assert len(strings) == len(id_lines) == inp.count(REF_SEPARATOR), inp_path
    return [(s, [int(t) for t in line.split()]) for s, line in zip(strings, id_lines, strict=True)]


@pytest.fixture(scope="session")
def reference_pairs(shared_file: Callable[[str], Path]) -> list[tuple[str, list[int]]]:
    return [
        pair
        for stem in REF_STEMS
        for pair in read_reference(shared_file(f"tokenizer_ref/{stem}.inp"), shared_file(f"tokenizer_ref/{stem}.out"))
    ]


def varied_strings(count: int = 300, seed: int = 1234) -> list[str]:
    """Deterministic mixed strings: words, contractions, digits, whitespace runs, CJK, emoji, code."""
    fragments = [
        "hello", "world", " the", " The", "HELLO", "I'm", " they'll", " We'VE", "'s", "don't", "naïve", "café",
        "Führer", "Cửa Việt", "нещо", " Български", "中文", "我想在apple工作", "北京是中华人民共和国的首都", "，", "。",
        "～", "😀", "🦙", "👍🏽", "😶\u200d🌫️", "✅", "½", "\u00a0", "\u3000", "\u200b", "e\u0301", "A\u030a", "ﬁ", "Ω",
        "1", "12", "123", "1234567", "3.14159", " ", "  ", "   ", "\t", "\n", "\r\n", "\n\n", " \n ", "!!!", "???",
        "...", "---", "=====", "```", '"""', "<|endoftext|>", "<|im_start|>", "def f(x):", "    return x + 1",
        '{"a": [1, 2]}', "https://example.com/a?b=c",
    ]
    rng = random.Random(seed)
    strings = []
    for _ in range(count):
        pieces = rng.choices(fragments, k=rng.randint(1, 12))
        strings.append("".join(p if rng.random() < 0.5 else " " + p for p in pieces))
    return strings


@pytest.fixture(scope="session")
def zh_lines(shared_file: Callable[[str], Path]) -> list[str]:
    path = shared_file("zh_prose/红楼梦_chapters_1-30.txt")
    lines = [line for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]
    return lines[:60]


# --- Hugging Face conversion of a tiktoken vocabulary (test scaffolding) ---------------------------


def bytes_to_unicode() -> dict[int, str]:
    """GPT-2's reversible byte -> printable character map used by ByteLevel BPE vocabularies."""
    printable = [*range(ord("!"), ord("~") + 1), *range(ord("¡"), ord("¬") + 1), *range(ord("®"), ord("ÿ") + 1)]
    chars = list(printable)
    extra = 0
    for byte in range(256):
        if byte not in printable:
            printable.append(byte)
            chars.append(256 + extra)
            extra += 1
    return {byte: chr(char) for byte, char in zip(printable, chars, strict=True)}


def tiktoken_to_hf(ranks: dict[bytes, int], pattern: str, path: Path) -> Path:
    """Write a HF ByteLevel BPE tokenizer.json equivalent to the tiktoken ranks and split pattern."""
    byte_char = bytes_to_unicode()

    def piece(token: bytes) -> str:
        return "".join(byte_char[b] for b in token)

    merges = sorted(
        (rank, ranks[token[:i]], ranks[token[i:]], piece(token[:i]), piece(token[i:]))
        for token, rank in ranks.items()
        for i in range(1, len(token))
        if token[:i] in ranks and token[i:] in ranks
    )
    vocab = {piece(token): rank for token, rank in ranks.items()}
    tokenizer = Tokenizer(models.BPE(vocab=vocab, merges=[(left, right) for *_, left, right in merges]))
    tokenizer.normalizer = normalizers.NFC()
    tokenizer.pre_tokenizer = pre_tokenizers.Sequence(
        [
            pre_tokenizers.Split(Regex(pattern), behavior="isolated"),
            pre_tokenizers.ByteLevel(add_prefix_space=False, use_regex=False),
        ]
    )
    tokenizer.decoder = decoders.ByteLevel()
    tokenizer.save(str(path))
    return path


@pytest.fixture(scope="session")
def qwen_ranks() -> dict[bytes, int]:
    return parse_ranks(find_vocab(named_entry("qwen2.5")))


@pytest.fixture(scope="session")
def hf_qwen_json(qwen_ranks: dict[bytes, int], tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("hf_qwen")
    return tiktoken_to_hf(qwen_ranks, named_entry("qwen2.5").pattern, folder / "tokenizer.json")


@pytest.fixture(scope="session")
def hf_qwen(hf_qwen_json: Path) -> TokenCounter:
    return load_tokenizer(f"hf:{hf_qwen_json}")


def official_encoding(name: str, tmp_path_factory: pytest.TempPathFactory) -> tiktoken.Encoding:
    """tiktoken's own Encoding for ``name``, from its constructor, fed the same file offline."""
    from tiktoken_ext import openai_public

    entry = named_entry(name)
    cache = tmp_path_factory.mktemp(f"tiktoken_cache_{name}")
    # tiktoken caches a download under sha1(url); pre-filling it keeps its constructor offline.
    (cache / hashlib.sha1(entry.download_url.encode()).hexdigest()).write_bytes(find_vocab(entry))
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("TIKTOKEN_CACHE_DIR", str(cache))
        return tiktoken.Encoding(**getattr(openai_public, name)())


@pytest.fixture(scope="session")
def official(tmp_path_factory: pytest.TempPathFactory) -> dict[str, tiktoken.Encoding]:
    return {name: official_encoding(name, tmp_path_factory) for name in ("cl100k_base", "o200k_base")}


# --- exactness ------------------------------------------------------------------------------------


def mismatches(counter: TokenCounter, pairs: list[tuple[str, list[int]]]) -> list[tuple[str, list[int], list[int]]]:
    """(text, expected, got) for every pair the counter gets wrong."""
    results = [(text, ids, counter.encode(text).tolist()) for text, ids in pairs]
    return [result for result in results if result[1] != result[2]]


def test_reference_files_hold_the_expected_pairs(reference_pairs: list[tuple[str, list[int]]]) -> None:
    assert len(reference_pairs) == REF_PAIRS_PER_FILE * len(REF_STEMS)
    assert ("Hello world", [9707, 1879]) in reference_pairs


def test_qwen_matches_reference_ids(reference_pairs: list[tuple[str, list[int]]]) -> None:
    assert mismatches(load_tokenizer("qwen2.5"), reference_pairs) == []


def test_hf_backend_matches_reference_ids_and_tiktoken(
    hf_qwen: TokenCounter, reference_pairs: list[tuple[str, list[int]]], zh_lines: list[str]
) -> None:
    assert isinstance(hf_qwen, HFTokenizerCounter)
    assert mismatches(hf_qwen, reference_pairs) == []
    qwen = load_tokenizer("qwen2.5")
    texts = varied_strings() + zh_lines
    assert [t for t in texts if hf_qwen.encode(t).tolist() != qwen.encode(t).tolist()] == []
    assert hf_qwen.count_batch(texts).tolist() == qwen.count_batch(texts).tolist()


@pytest.mark.parametrize("name", ["cl100k_base", "o200k_base"])
def test_openai_encodings_match_tiktoken(
    name: str,
    official: dict[str, tiktoken.Encoding],
    reference_pairs: list[tuple[str, list[int]]],
    zh_lines: list[str],
) -> None:
    counter, reference = load_tokenizer(name), official[name]
    texts = varied_strings() + [text for text, _ in reference_pairs] + zh_lines
    assert len(texts) > 300
    assert [t for t in texts if counter.encode(t).tolist() != reference.encode_ordinary(t)] == []
    assert counter.count_batch(texts).tolist() == [len(reference.encode_ordinary(t)) for t in texts]


@pytest.mark.parametrize(("name", "ids"), [("cl100k_base", [15339, 1917]), ("o200k_base", [24912, 2375])])
def test_known_ids(name: str, ids: list[int], official: dict[str, tiktoken.Encoding]) -> None:
    assert official[name].encode("hello world") == ids
    assert load_tokenizer(name).encode("hello world").tolist() == ids


def test_special_token_strings_are_ordinary_text(hf_qwen: TokenCounter) -> None:
    for name in available_tokenizers():
        assert load_tokenizer(name).count("<|endoftext|>") > 1
    assert hf_qwen.encode("<|im_start|>").tolist() == load_tokenizer("qwen2.5").encode("<|im_start|>").tolist()


def test_qwen_normalizes_nfc_and_cl100k_does_not() -> None:
    decomposed, composed = "Cafe\u0301 A\u030angstro\u0308m", "Café Ångström"
    qwen, cl100k = load_tokenizer("qwen2.5"), load_tokenizer("cl100k_base")
    assert qwen.encode(decomposed).tolist() == qwen.encode(composed).tolist()
    assert cl100k.encode(decomposed).tolist() != cl100k.encode(composed).tolist()


# --- offsets and the rest of the protocol ---------------------------------------------------------

COUNTER_SPECS = ["qwen2.5", "cl100k_base", "o200k_base", "hf-qwen"]


@pytest.fixture(scope="session", params=COUNTER_SPECS)
def counter(request: pytest.FixtureRequest) -> TokenCounter:
    if request.param == "hf-qwen":
        return request.getfixturevalue("hf_qwen")
    return load_tokenizer(request.param)


@pytest.fixture(scope="session")
def token_byte_lengths(qwen_ranks: dict[bytes, int]) -> dict[str, np.ndarray]:
    """Byte length of each token id per counter, computed from the ranks files, not the counters."""
    lengths = {}
    for name in available_tokenizers():
        ranks = qwen_ranks if name == "qwen2.5" else parse_ranks(find_vocab(named_entry(name)))
        table = np.zeros(max(ranks.values()) + 1, dtype=np.int64)
        for token, rank in ranks.items():
            table[rank] = len(token)
        lengths[name] = table
    return lengths


PIECES = [*"ab Z09'.,!?\t\n\r-", "é", "ñ", "ß", "中", "文", "字", "😀", "🦙", "👍🏽", "e\u0301", "\u200d", "ก", "ี"]
PIECES += ["'ll", "  "]
TEXT = st.one_of(st.text(max_size=80), st.lists(st.sampled_from(PIECES), max_size=40).map("".join))


def normalizes(counter: TokenCounter) -> bool:
    """Whether the counter NFC-normalizes: Qwen2's tiktoken counter and its HF conversion do."""
    return counter.name == "qwen2.5" or counter.name.startswith("hf:")


def lengths_for(counter: TokenCounter, token_byte_lengths: dict[str, np.ndarray]) -> np.ndarray:
    return token_byte_lengths["qwen2.5" if counter.name.startswith("hf:") else counter.name]


@settings(max_examples=150, deadline=None)
@given(raw=TEXT)
def test_offsets_start_tokens_in_text(
    counter: TokenCounter, token_byte_lengths: dict[str, np.ndarray], raw: str
) -> None:
    text = unicodedata.normalize("NFC", raw)
    ids, offsets = counter.encode_with_offsets(text)
    assert ids.tolist() == counter.encode(text).tolist()
    assert len(offsets) == len(ids) and offsets.dtype.kind == "i"
    assert np.all(np.diff(offsets) >= 0)
    assert (offsets[0] == 0) if text else len(ids) == 0
    utf8 = text.encode("utf-8")
    lengths = lengths_for(counter, token_byte_lengths)[ids]
    byte_starts = np.cumsum(lengths) - lengths
    assert int(lengths.sum()) == len(utf8)
    for i, start in enumerate(byte_starts.tolist()):
        # The character containing the token's first byte, found independently of the counter.
        assert offsets[i] == len(utf8[:start].decode("utf-8", errors="ignore")), (i, text)
        if start == 0 or utf8[start] & 0xC0 != 0x80:
            assert counter.decode(ids[i:]) == text[offsets[i] :], (i, text)


@settings(max_examples=150, deadline=None)
@given(text=TEXT)
def test_counts_and_round_trip(counter: TokenCounter, text: str) -> None:
    ids = counter.encode(text)
    assert ids.ndim == 1 and ids.dtype.kind in "iu"
    assert counter.count(text) == len(ids)
    expected = unicodedata.normalize("NFC", text) if normalizes(counter) else text
    assert counter.decode(ids) == expected


@settings(max_examples=50, deadline=None)
@given(texts=st.lists(TEXT, max_size=12))
def test_count_batch_matches_count(counter: TokenCounter, texts: list[str]) -> None:
    counts = counter.count_batch(texts)
    assert counts.dtype == np.int64
    assert counts.tolist() == [counter.count(t) for t in texts]


def test_count_batch_large_batch_uses_same_counts(counter: TokenCounter) -> None:
    texts = varied_strings(count=3000, seed=7)
    assert sum(map(len, texts)) > 65_536  # large enough for the threaded path
    assert counter.count_batch(texts).tolist() == [counter.count(t) for t in texts]


def test_surrogates_are_repaired_consistently(counter: TokenCounter) -> None:
    text = "a\ud83d\ude00b \ud800 c"  # a surrogate pair, then a lone surrogate
    repaired = "a😀b \ufffd c"
    ids, offsets = counter.encode_with_offsets(text)
    assert ids.tolist() == counter.encode(repaired).tolist() == counter.encode(text).tolist()
    assert offsets.tolist() == counter.encode_with_offsets(repaired)[1].tolist()
    assert counter.count_batch([text]).tolist() == [counter.count(text)] == [len(ids)]


def test_counters_satisfy_the_protocol(counter: TokenCounter) -> None:
    assert isinstance(counter, TokenCounter)
    assert len(counter.fingerprint) == 64 and int(counter.fingerprint, 16) >= 0
    assert counter.encode("").tolist() == [] and counter.count_batch([]).tolist() == []


def test_tiktoken_encodes_natively_with_an_encoder_owned_by_the_calling_thread() -> None:
    # tiktoken's regex is fast only in the first thread that used it, so another thread that
    # encodes natively gets a copy of its own, kept for that thread's later calls.
    counter = load_tokenizer("cl100k_base")
    text = "Taylor Collins is the child of Douglas Harris. 李华的母亲是王芳。"
    here = counter.encode_native(text)
    assert counter._per_thread.encoding is counter._encoding

    seen: list[tuple[object, object, list[int]]] = []

    def in_worker() -> None:
        first = counter.encode_native(text)
        own = counter._per_thread.encoding
        counter.encode_native(text)
        seen.append((own, counter._per_thread.encoding, first))

    worker = threading.Thread(target=in_worker)
    worker.start()
    worker.join()
    (own, again, ids), = seen
    assert own is again and own is not counter._encoding
    assert ids == here == counter.encode(text).tolist()


def test_tiktoken_counter_pickles_without_its_thread_encoders() -> None:
    counter = load_tokenizer("qwen2.5")
    copy = pickle.loads(pickle.dumps(counter))
    text = "Cafe\u0301 et thé: 李华的母亲是王芳。"
    assert copy.fingerprint == counter.fingerprint and copy.encode_native(text) == counter.encode_native(text)
    assert copy.encode_with_offsets(text)[1].tolist() == counter.encode_with_offsets(text)[1].tolist()


# --- names, cache, fingerprints -------------------------------------------------------------------


def test_names_and_cache(hf_qwen_json: Path) -> None:
    assert available_tokenizers() == ["cl100k_base", "o200k_base", "qwen2.5"]
    assert DEFAULT_TOKENIZER in available_tokenizers()
    for alias in ("qwen", "qwen2", "qwen2.5-1m", "Qwen2.5"):
        assert load_tokenizer(alias) is load_tokenizer("qwen2.5")
    assert load_tokenizer().name == "qwen2.5"
    assert isinstance(load_tokenizer("cl100k_base"), TiktokenCounter)
    by_file, by_folder = load_tokenizer(f"hf:{hf_qwen_json}"), load_tokenizer(f"hf:{hf_qwen_json.parent}")
    assert by_file is by_folder and by_file.name == f"hf:{hf_qwen_json.resolve()}"


def test_fingerprints_stable_across_processes() -> None:
    specs = ["qwen2.5", "cl100k_base"]
    script = (
        "import json, sys; from needlework.tokenizers import load_tokenizer; "
        "print(json.dumps([load_tokenizer(s).fingerprint for s in sys.argv[1:]]))"
    )
    runs = []
    for seed in ("1", "2"):
        env = {**os.environ, "PYTHONHASHSEED": seed, "PYTHONPATH": str(REPO)}
        result = subprocess.run(
            [sys.executable, "-c", script, *specs], cwd=REPO, env=env, capture_output=True, text=True, check=True
        )
        runs.append(json.loads(result.stdout))
    here = [load_tokenizer(spec).fingerprint for spec in specs]
    assert runs[0] == runs[1] == here
    assert here[0] != here[1]


BYTE_VOCAB = b"".join(base64.b64encode(bytes([b])) + b" %d\n" % b for b in range(256))


def test_fingerprint_tracks_pattern_normalization_and_vocab() -> None:
    qwen = named_entry("qwen2.5")
    same = TiktokenCounter("x", find_vocab(qwen), qwen.pattern, "NFC")
    assert same.fingerprint == load_tokenizer("qwen2.5").fingerprint
    base = TiktokenCounter("x", BYTE_VOCAB, qwen.pattern, "NFC")
    assert TiktokenCounter("other name", BYTE_VOCAB, qwen.pattern, "NFC").fingerprint == base.fingerprint
    assert TiktokenCounter("x", BYTE_VOCAB, qwen.pattern, None).fingerprint != base.fingerprint
    assert TiktokenCounter("x", BYTE_VOCAB, qwen.pattern + "|x", "NFC").fingerprint != base.fingerprint
    assert TiktokenCounter("x", BYTE_VOCAB + b"YWI= 256\n", qwen.pattern, "NFC").fingerprint != base.fingerprint


def test_hf_ignores_added_tokens_and_fingerprints_only_id_sections(tmp_path: Path) -> None:
    ranks = parse_ranks(BYTE_VOCAB + b"PHw= 256\nIGE= 257\nIGI= 258\n")  # "<|", " a", " b"
    path = tiktoken_to_hf(ranks, named_entry("qwen2.5").pattern, tmp_path / "tokenizer.json")
    plain = HFTokenizerCounter("hf:plain", path)
    config = json.loads(path.read_text(encoding="utf-8"))
    special = {"single_word": False, "lstrip": False, "rstrip": False, "normalized": False, "special": True}
    config["added_tokens"] = [{"id": 300, "content": "<|endoftext|>", **special}]
    trimming = {"add_prefix_space": False, "trim_offsets": True, "use_regex": False}
    config["post_processor"] = {"type": "ByteLevel", **trimming}
    path.write_text(json.dumps(config), encoding="utf-8")
    with_added = HFTokenizerCounter("hf:with_added", path)
    assert with_added.fingerprint == plain.fingerprint
    assert with_added.encode("a <|endoftext|>").tolist() == plain.encode("a <|endoftext|>").tolist()
    assert 300 not in with_added.encode("<|endoftext|>").tolist()
    # A trimming post-processor would move the starts of " a" and " b" past their spaces.
    assert with_added.encode_with_offsets(" a  b")[1].tolist() == [0, 2, 3]
    config["normalizer"] = None
    path.write_text(json.dumps(config), encoding="utf-8")
    assert HFTokenizerCounter("hf:changed", path).fingerprint != plain.fingerprint


# --- errors -------------------------------------------------------------------------------------


def test_unknown_spec_lists_valid_names() -> None:
    with pytest.raises(TokenizerError) as raised:
        load_tokenizer("foo")
    message = str(raised.value)
    assert "'foo'" in message and "\n" not in message
    for name in [*available_tokenizers(), "qwen2", "qwen2.5-1m", "hf:PATH_OR_HUB_ID"]:
        assert name in message
    assert isinstance(raised.value, LookupError) and issubclass(TokenizerError, LookupError)


@pytest.mark.parametrize("spec", ["hf:/nonexistent/tokenizer.json", "hf:./no/such/dir/", "hf:missing.json"])
def test_missing_hf_path_names_it(spec: str) -> None:
    with pytest.raises(LookupError, match="not found") as raised:
        load_tokenizer(spec)
    assert isinstance(raised.value, TokenizerError)
    assert str(Path(spec[3:]).name) in str(raised.value)


def test_hf_folder_without_tokenizer_json(tmp_path: Path) -> None:
    with pytest.raises(TokenizerError, match="no tokenizer.json"):
        load_tokenizer(f"hf:{tmp_path}")


def test_invalid_tokenizer_json(tmp_path: Path) -> None:
    path = tmp_path / "tokenizer.json"
    path.write_text("{not json", encoding="utf-8")
    with pytest.raises(TokenizerError, match="not valid JSON"):
        HFTokenizerCounter("hf:bad", path)
    path.write_text(json.dumps({"model": {"type": "Nope"}}), encoding="utf-8")
    with pytest.raises(TokenizerError, match="not a valid tokenizer"):
        HFTokenizerCounter("hf:bad", path)


def test_hub_id_offline_is_a_tokenizer_error(tmp_path: Path) -> None:
    script = (
        "from needlework.tokenizers import load_tokenizer\n"
        "from needlework.errors import TokenizerError\n"
        "try:\n    load_tokenizer('hf:NoSuchOrg/no-such-model')\n"
        "except TokenizerError as error:\n    print(error)\n"
    )
    env = {**os.environ, "HF_HUB_OFFLINE": "1", "HF_HOME": str(tmp_path), "PYTHONPATH": str(REPO)}
    result = subprocess.run(
        [sys.executable, "-c", script], cwd=REPO, env=env, capture_output=True, text=True, timeout=60
    )
    assert result.returncode == 0, result.stderr
    assert "'hf:NoSuchOrg/no-such-model'" in result.stdout and "tokenizer.json" in result.stdout


def test_missing_vocabulary_says_what_was_tried(monkeypatch: pytest.MonkeyPatch) -> None:
    import tiktoken.load

    def offline(*_: object) -> bytes:
        raise ConnectionError("no network")

    monkeypatch.setattr("needlework.tokenizers.named.locate_package_file", lambda relative: None)
    monkeypatch.setattr(tiktoken.load, "read_file_cached", offline)
    with pytest.raises(TokenizerError) as raised:
        load_named(named_entry("o200k_base"))
    message = str(raised.value)
    assert message.startswith("tokenizer 'o200k_base': vocabulary file not found; tried ")
    assert "bpe_openai/data/o200k_base.tiktoken.gz (install needlework[o200k])" in message
    assert "tiktoken download (failed: ConnectionError" in message


@pytest.mark.parametrize(
    ("file_name", "content", "problem"),
    [("qwen.tiktoken", b"YQ== 0\n", "has sha256"), ("voyage3_base.tiktoken.gz", b"not gzip", "cannot read")],
)
def test_bad_vocabulary_file_is_named(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, file_name: str, content: bytes, problem: str
) -> None:
    fake = tmp_path / file_name
    fake.write_bytes(content)
    monkeypatch.setattr("needlework.tokenizers.named.locate_package_file", lambda relative: fake)
    with pytest.raises(TokenizerError, match=problem) as raised:
        load_named(named_entry("qwen2.5"))
    assert str(fake) in str(raised.value)


def test_malformed_vocabulary_and_normalization() -> None:
    with pytest.raises(TokenizerError, match="line 1"):
        TiktokenCounter("bad", b"not-base64!! x\n", r"\S+")
    with pytest.raises(TokenizerError, match="ranks repeat"):
        TiktokenCounter("bad", b"YQ== 0\nYg== 0\n", r"\S+")
    with pytest.raises(TokenizerError, match="line 2 repeats a token"):
        TiktokenCounter("bad", b"YQ== 0\nYQ== 1\n", r"\S+")
    with pytest.raises(TokenizerError, match="cannot build"):
        TiktokenCounter("bad", b"YQ== 0\n", "(")
    with pytest.raises(TokenizerError, match="normalization"):
        TiktokenCounter("bad", b"YQ== 0\n", r"\S+", "NFKC")  # type: ignore[arg-type]


def test_a_thread_cap_changes_no_count_and_is_given_back(qwen, monkeypatch) -> None:
    """set_max_threads(1) (a Ray task's one CPU) runs count_batch in one thread with the same counts, returns
    the previous cap, and refuses a cap below one."""
    from needlework.tokenizers import tiktoken_counter

    texts = ["Anarchism is a political philosophy. " * 3_000, "Albedo", "数据 1234"] * 4
    started: list[int] = []
    real = tiktoken_counter.ThreadPoolExecutor
    monkeypatch.setattr(tiktoken_counter, "ThreadPoolExecutor", lambda n: started.append(n) or real(n))
    threaded = qwen.count_batch(texts).tolist()
    assert started == ([min(os.cpu_count() or 1, 8)] if (os.cpu_count() or 1) > 1 else [])
    started.clear()
    previous = tiktoken_counter.set_max_threads(1)
    try:
        assert qwen.count_batch(texts).tolist() == threaded and started == []
    finally:
        assert tiktoken_counter.set_max_threads(previous) == 1
    assert tiktoken_counter.max_threads() == previous
    with pytest.raises(ValueError, match="at least 1"):
        tiktoken_counter.set_max_threads(0)
