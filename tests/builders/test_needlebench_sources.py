"""NeedleBench's inputs and build: filler sources, person names, lengths, specs, and the release."""

from __future__ import annotations

import json
import re
from pathlib import Path

import datasets
import pyarrow.parquet as pq
import pytest

from tests.support.atc_solver import ZH_FORMS, ZH_ROLES, solve_atc, solve_mrs
from builders.needlebench import FEATURES, NeedleBenchBuild, build, config_name
from builders.sources.filler import read_filler
from builders.sources.person_names import faker_person_names
from needlework.errors import BudgetError, InputError, SpecError
from generators.needlebench.filler import Filler
from generators.needlebench.kinship import PersonNames
from generators.needlebench.spec import LENGTH_PRESETS, AtcSpec, SparseSpec, parse_lengths
from needlework.lengths import parse_tokens
from tests.support.build_options import build_error, build_spec

# --- read_filler --------------------------------------------------------------------------------


def write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


def test_a_folder_reads_its_text_files_in_sorted_path_order(tmp_path):
    folder = tmp_path / "essays"
    write(folder / "b.txt", "Second essay. It has two sentences.\n")
    write(folder / "a.txt", "First essay.\n")
    write(folder / "sub" / "c.txt", "Third essay, in a subfolder.\n")
    write(folder / "notes.md", "Not a text source.\n")
    read = read_filler(str(folder), "en")
    assert read.documents == ("First essay.\n", "Second essay. It has two sentences.\n", "Third essay, in a subfolder.\n")
    assert read.label == "essays"
    (key, digest), = read.fingerprints.items()
    assert key == str(folder) and re.fullmatch(r"[0-9a-f]{64}", digest)
    write(folder / "b.txt", "Second essay, edited.\n")
    assert read_filler(str(folder), "en").fingerprints[str(folder)] != digest


def test_a_cnews_file_is_one_document_per_line_without_its_label(tmp_path):
    path = write(tmp_path / "cnews.txt", "体育\t湖人消息。比赛结束。\n\n财经\t股市上涨。\n教育\t考试开始。\n")
    read = read_filler(str(path), "zh")
    assert read.documents == ("湖人消息。比赛结束。", "股市上涨。", "考试开始。")
    assert read.label == "cnews.txt" and list(read.fingerprints) == [str(path)]


def test_a_text_file_with_some_tabs_is_one_document(tmp_path):
    text = "第一回  甄士隐梦幻识通灵\n\n    \t\t\n\n    此开卷第一回也．\n"
    path = write(tmp_path / "novel.txt", text)
    assert read_filler(str(path), "zh").documents == (text,)


def test_a_cnews_record_keeps_tabs_inside_its_text(tmp_path):
    path = write(tmp_path / "cnews.txt", "体育\t上半场\t下半场\n财经\t股市上涨。\n")
    assert read_filler(str(path), "zh").documents == ("上半场\t下半场", "股市上涨。")


def test_a_jsonl_file_reads_its_text_field(tmp_path):
    lines = [{"text": "One document.", "id": 1}, {"text": "Two documents.", "id": 2}]
    path = write(tmp_path / "docs.jsonl", "\n".join(json.dumps(r) for r in lines) + "\n\n")
    read = read_filler(str(path), "en")
    assert read.documents == ("One document.", "Two documents.") and read.label == "docs.jsonl"
    body = write(tmp_path / "body.jsonl", json.dumps({"body": "Elsewhere."}) + "\n")
    assert read_filler(str(body), "en", field="body").documents == ("Elsewhere.",)


def test_a_missing_source_is_an_input_error_naming_it(tmp_path):
    missing = tmp_path / "no" / "such.txt"
    with pytest.raises(InputError, match=re.escape(str(missing))) as caught:
        read_filler(str(missing), "en")
    assert "no such file or folder" in str(caught.value)
    assert isinstance(caught.value, ValueError)


def test_a_record_without_the_field_names_file_record_and_field(tmp_path):
    path = write(tmp_path / "docs.jsonl", json.dumps({"text": "Fine."}) + "\n" + json.dumps({"body": "No text."}) + "\n")
    with pytest.raises(InputError) as caught:
        read_filler(str(path), "en")
    err = caught.value
    assert (err.file, err.record, err.field) == (str(path), 2, "text")  # the second line, counted from 1
    assert str(err) == f"{path}, record 2, field 'text': missing"


def test_a_record_whose_text_is_not_a_string_is_an_input_error(tmp_path):
    path = write(tmp_path / "docs.jsonl", json.dumps({"text": 42}) + "\n")
    with pytest.raises(InputError, match=r"record 1, field 'text': expected text, got int"):
        read_filler(str(path), "en")


@pytest.mark.parametrize("name,content", [("empty.txt", ""), ("blank.txt", "  \n\n\t\n"), ("empty.jsonl", ""),
                                          ("blank.jsonl", json.dumps({"text": "   "}) + "\n")])
def test_an_empty_source_is_an_input_error(tmp_path, name, content):
    path = write(tmp_path / name, content)
    with pytest.raises(InputError, match=re.escape(f"{path}: holds no text")):
        read_filler(str(path), "en")


def test_an_empty_folder_is_an_input_error(tmp_path):
    (tmp_path / "empty").mkdir()
    with pytest.raises(InputError, match="holds no text"):
        read_filler(str(tmp_path / "empty"), "en")


def test_the_world_filler_is_embedded_and_deterministic():
    for lang in ("en", "zh"):
        read = read_filler("world", lang)
        assert read.label == "world" and len(read.documents) == 600
        assert list(read.fingerprints) == [f"world/{lang}"]
        assert read_filler("world", lang).documents == read.documents
        assert read_filler("world", lang, seed=1).documents != read.documents


def test_filler_from_documents_counts_add_up(cl100k):
    docs = ["First sentence. Second sentence!\nStill the second? Third.", "", "  ", "另一篇。第二句。"]
    filler = Filler.from_documents(docs, source="tiny", lang="en", tokens=cl100k)
    assert "".join(filler.sentences) == "First sentence. Second sentence!\nStill the second? Third.\n\n另一篇。第二句。\n\n"
    assert filler.total_tokens == cl100k.count(docs[0] + "\n\n") + cl100k.count(docs[3] + "\n\n")
    with pytest.raises(SpecError, match="has no text"):
        Filler.from_documents(["", " "], source="none", lang="en", tokens=cl100k)


# --- Person names --------------------------------------------------------------------------------


def test_person_names_are_cleaned():
    names = PersonNames.from_lists(
        en_first=[" Anna ", "Anna", "Zoë", "Mary-Jane", "Bob", ""],
        en_last=["Le", "Lee", "Leeds", "Smith", "Smithson", "Ford", "O'Neil", "Ford "],
        zh_surnames=["王", "欧阳", "曾", "李", "a", "王"],
        zh_given=["伟", "是", "的", "子", "芳", "秀英", "女", "来"],
    )
    assert names.en_first == ("Anna", "Bob")
    assert names.en_last == ("Ford", "Leeds", "Smithson")  # prefix-free
    assert names.zh_surnames == ("李", "王")  # 曾 is in 曾祖父
    assert names.zh_given == ("伟", "芳")  # 是 的 子 女 来 spell the kinship sentences
    with pytest.raises(SpecError, match="person names need"):
        PersonNames.from_lists(["Anna"], ["Ford"], ["曾"], ["伟"])


def test_faker_names_are_safe_for_kinship_sentences():
    names, fingerprints = faker_person_names()
    assert len(fingerprints) == 4 and all(k.startswith("faker==") for k in fingerprints)
    assert all(re.fullmatch(r"[0-9a-f]{64}", v) for v in fingerprints.values())
    assert names.capacity("en") >= 513 and names.capacity("zh") >= 513
    last = set(names.en_last)
    assert not any(n[:i] in last for n in last for i in range(1, len(n)))  # no last name is another's prefix
    # No Chinese name part is a character of the sentences (checked against the solver's own forms and roles).
    sentence_chars = {c for form in ZH_FORMS for c in form.replace("{O}", "").replace("{H}", "").replace("{R}", "")}
    sentence_chars |= {c for role in ZH_ROLES for c in role}
    assert not sentence_chars & (set(names.zh_surnames) | set(names.zh_given))
    assert {"James Hill", "张强", "Kevin Le"} <= names.avoid


# --- Lengths and specs ---------------------------------------------------------------------------


def test_length_presets():
    assert parse_lengths("128k") == tuple(range(16_000, 128_001, 16_000))
    assert parse_lengths("4k,8000") == (1000, 2000, 3000, 4000, 8000)
    assert parse_lengths("4k,8k") == (*range(1000, 8001, 1000),)
    assert parse_lengths(" 32K ") == LENGTH_PRESETS["32k"] == tuple(range(4000, 32_001, 4000))
    assert parse_lengths("1_000,1000,2000,") == (1000, 2000)
    assert parse_lengths("1m")[-1] == 1_000_000 and len(parse_lengths("1m")) == 8


def test_a_length_that_is_no_preset_is_a_token_count_in_any_case():
    """Issue 41: ``2k`` and ``2K`` are 2,000 (they were refused); a preset's name keeps its grid, whose top is the
    name read as a token count (OpenCompass's 4k ... 1000k configs end at 4,000 ... 1,000,000)."""
    assert parse_lengths("2k") == parse_lengths("2K") == parse_lengths("2_000") == (2_000,)
    assert parse_lengths("4K,6k,6ki,1.5k") == (1_000, 2_000, 3_000, 4_000, 6_000, 6_144, 1_500)
    assert all(grid[-1] == parse_tokens(name.removeprefix("v2-")) for name, grid in LENGTH_PRESETS.items())
    assert build_spec("needlebench", "--lengths", "2.5k,4K", "--buffer", "0.1k").lengths == (2_500, *range(1_000, 4_001, 1_000))
    assert build_spec("needlebench", "--buffer", "en=0.5K,zh=1k").buffer == build_spec("needlebench", "--buffer", "en=500,zh=1000").buffer
    assert build_spec("needlebench", "--lengths", "32k") == build_spec("needlebench")  # the help's default
    assert build_error("needlebench", "--lengths", "3kb").startswith("error: --lengths: length '3kb' is neither a preset")


@pytest.mark.parametrize("text", ["abc", "4k,x", "1.0005k", "-4k", "", " , "])
def test_bad_lengths_are_spec_errors(text):
    with pytest.raises(SpecError, match="neither a preset .* nor a token count: an integer|no lengths given"):
        parse_lengths(text)


def test_sparse_spec_validation():
    with pytest.raises(SpecError, match=r"depths must be distinct percentages in \[0, 100\], got 50.0, 120.0"):
        SparseSpec("s-rt", "en", depths=(50.0, 120.0))
    with pytest.raises(SpecError, match="depths must be distinct"):
        SparseSpec("s-rt", "en", depths=(-1.0,))
    with pytest.raises(SpecError, match=r"buffer \(4000 tokens\) must be below the shortest length \(4000\)"):
        SparseSpec("s-rt", "en", lengths=(4000, 8000), buffer=4000)
    with pytest.raises(SpecError, match="s-rt has exactly one needle"):
        SparseSpec("s-rt", "en", needle_counts=(2,))
    with pytest.raises(SpecError, match="m-rt takes one needle count"):
        SparseSpec("m-rt", "en", needle_counts=(3, 5))
    with pytest.raises(SpecError, match="m-rs needle counts must hold integers"):
        SparseSpec("m-rs", "en", needle_counts=(1, 2))
    with pytest.raises(SpecError, match="^task must be one of 's-rt', 'm-rt', 'm-rs'; got 'atc'$"):
        SparseSpec("atc", "en")  # type: ignore[arg-type]
    with pytest.raises(SpecError, match="langs must be distinct values"):
        SparseSpec("s-rt", "fr")  # type: ignore[arg-type]
    assert SparseSpec("m-rs", "zh").needle_counts == (2, 3, 4, 5)


def test_atc_spec_validation():
    with pytest.raises(SpecError, match="question types must be distinct values from eldest_ancestor, nth_ancestor"):
        AtcSpec("en", question_types=("eldest_ancestor", "cousin"))
    with pytest.raises(SpecError, match="ATC needle counts"):
        AtcSpec("en", needle_counts=(0,))
    with pytest.raises(SpecError, match="repeats"):
        AtcSpec("zh", repeats=0)
    assert AtcSpec("en").needle_counts == (2, 4, 8, 16, 32, 64, 128, 256, 512)


# --- The build -----------------------------------------------------------------------------------

TINY = NeedleBenchBuild(lengths=(2000,), depths=(0.0, 100.0), repeats=1, mrs_needles=(2,), atc_needles=(2, 4))
CONFIGS = ("s-rt-en", "s-rt-zh", "m-rt-en", "m-rt-zh", "m-rs-en", "m-rs-zh", "atc-en", "atc-zh")


@pytest.fixture
def hub_cache(tmp_path, monkeypatch):
    monkeypatch.setattr(datasets.config, "HF_DATASETS_CACHE", str(tmp_path / "hf-cache"))


@pytest.fixture(scope="module")
def built(tmp_path_factory, cl100k):
    out = tmp_path_factory.mktemp("needlebench") / "release"
    report = build(TINY, out, tokens=cl100k, progress=False)
    return out, report


def test_build_writes_every_config(built, cl100k):
    out, report = built
    assert tuple(report.rows) == CONFIGS == tuple(config_name(t, lang) for t in ("s-rt", "m-rt", "m-rs", "atc") for lang in ("en", "zh"))
    assert report.rows == {**{c: 2 for c in CONFIGS[:6]}, "atc-en": 8, "atc-zh": 8}
    manifest = json.loads((out / "manifest.json").read_text(encoding="utf-8"))
    assert manifest["benchmark"] == "needlebench" and manifest["tokenizer"]["name"] == cl100k.name
    faker = {k: v for k, v in manifest["inputs"].items() if k.startswith("faker==")}
    assert sorted(k.split("/", 1)[1] for k in faker) == ["en_US/first_names", "en_US/last_names", "zh_CN/first_names", "zh_CN/last_names"]
    assert all(re.fullmatch(r"[0-9a-f]{64}", v) for v in faker.values())
    assert {"world/en", "world/zh"} <= set(manifest["inputs"])
    expected = {lang: Filler.from_documents(read_filler("world", lang).documents, source="world", lang=lang, tokens=cl100k).total_tokens
                for lang in ("en", "zh")}
    assert manifest["filler_tokens"] == expected
    assert manifest["build"]["command"].startswith("needlework build needlebench --tasks s-rt,m-rt,m-rs,atc --langs en,zh --lengths 2000")
    for config in CONFIGS:
        split = manifest["configs"][config]["splits"]["test"]
        assert split["rows"] == report.rows[config] and re.fullmatch(r"[0-9a-f]{64}", split["content_sha256"])


def test_load_dataset_reads_every_config(built, hub_cache):
    out, report = built
    for config in CONFIGS:
        loaded = datasets.load_dataset(str(out), config, split="test")
        assert loaded.num_rows == report.rows[config]
        assert loaded.features.to_dict() == FEATURES.to_dict()
        table = pq.read_table(sorted((out / config).glob("*.parquet"))[0]).to_pylist()
        assert loaded.to_list() == table
        task, lang = config.rsplit("-", 1)
        for row in table:
            assert row["id"].startswith(f"{task}/{lang}/") and row["task"] == task and row["lang"] == lang
            if task == "atc":
                assert solve_atc(row["input"]) == row["answers"][0]
            elif task == "m-rs":
                assert solve_mrs(row["input"]) == row["answers"][0]
            else:
                assert row["n_tokens"] <= 2000 - 200 and row["filler"] == "world"


def test_a_rebuild_has_identical_content(built, tmp_path, cl100k):
    out, _ = built
    again = tmp_path / "again"
    build(TINY, again, tokens=cl100k, progress=False)
    first = json.loads((out / "manifest.json").read_text(encoding="utf-8"))
    second = json.loads((again / "manifest.json").read_text(encoding="utf-8"))
    for config in CONFIGS:
        assert first["configs"][config]["splits"]["test"]["content_sha256"] == second["configs"][config]["splits"]["test"]["content_sha256"]
    assert first["inputs"] == second["inputs"] and first["filler_tokens"] == second["filler_tokens"]
    other = tmp_path / "other"
    build(NeedleBenchBuild(**{**TINY.__dict__, "seed": 1}), other, tokens=cl100k, progress=False)
    third = json.loads((other / "manifest.json").read_text(encoding="utf-8"))
    assert all(first["configs"][c]["splits"]["test"]["content_sha256"] != third["configs"][c]["splits"]["test"]["content_sha256"]
               for c in CONFIGS)


def test_a_budget_too_small_for_the_needles_names_the_config(tmp_path, cl100k):
    spec = NeedleBenchBuild(tasks=("s-rt", "m-rs"), langs=("en",), lengths=(400,), depths=(50.0,), repeats=1, mrs_needles=(2,))
    out = tmp_path / "release"
    with pytest.raises(BudgetError) as caught:
        build(spec, out, tokens=cl100k, progress=False)
    assert str(caught.value).startswith("m-rs-en: the template and needles alone take ")
    assert "more than the limit of 200 (target 400 - reserve 200)" in str(caught.value)
    assert not out.exists() and not list(tmp_path.glob(".release.*"))


def test_build_options_are_validated():
    with pytest.raises(SpecError, match="tasks must be distinct values from s-rt, m-rt, m-rs, atc"):
        NeedleBenchBuild(tasks=("s-rt", "mrt"))
    with pytest.raises(SpecError, match="no length buffer for zh"):
        NeedleBenchBuild(buffer={"en": 200})
    with pytest.raises(SpecError, match="buffer"):
        NeedleBenchBuild(lengths=(150,))
