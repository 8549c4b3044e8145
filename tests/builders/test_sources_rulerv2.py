"""Source loaders for RULERv2's base tasks: MMLU (and MMLU-like tables) and HotpotQA, on the real slices."""

from __future__ import annotations

import csv
import json
import re
import shutil
from dataclasses import replace
from pathlib import Path

import datasets
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from builders.sources.hotpotqa import (
    hotpot_pool_from_records, hotpot_records_from_hub, read_hotpotqa_hub, read_hotpotqa_json,
)
from builders.sources.mmlu import mcq_pool_from_records, read_mcq_table, read_mmlu_folder, read_mmlu_hub
from needlework.errors import InputError
from generators.rulerv2.pools import LETTERS, Mcq

HEADER = ["question", "choice0", "choice1", "choice2", "choice3", "answer"]


def raw_mmlu(folder: Path, split: str) -> list[dict]:
    """Every row of a split's CSVs, parsed here independently of the loader (header row, 0-based index)."""
    rows = []
    for file in sorted((folder / split).glob("*.csv")):
        with file.open(encoding="utf-8", newline="") as handle:
            reader = csv.DictReader(handle)
            assert reader.fieldnames == HEADER, file
            subject = file.name.removesuffix(f"_{split}.csv")
            rows += [{**row, "subject": subject, "row": index} for index, row in enumerate(reader)]
    return rows


def hub_rows(raw: list[dict]) -> list[dict]:
    """Rows shaped like ``cais/mmlu``'s: question, subject, choices (4), answer (int)."""
    return [
        {"question": r["question"], "subject": r["subject"], "choices": [r[f"choice{i}"] for i in range(4)],
         "answer": int(r["answer"])}
        for r in raw
    ]


def write_hub_folder(folder: Path, config: str, splits: dict[str, list[dict]]) -> Path:
    """A local folder in the layout the Hub serves: ``{config}/{split}-00000-of-00001.parquet`` and a card."""
    lines = ["---", "configs:", f"- config_name: {config}", "  data_files:"]
    for split, rows in splits.items():
        (folder / config).mkdir(parents=True, exist_ok=True)
        pq.write_table(pa.Table.from_pylist(rows), folder / config / f"{split}-00000-of-00001.parquet")
        lines += [f"  - split: {split}", f"    path: {config}/{split}-*"]
    (folder / "README.md").write_text("\n".join([*lines, "---", ""]), encoding="utf-8")
    return folder


@pytest.fixture
def hub_cache(tmp_path, monkeypatch):
    """Keep ``load_dataset``'s cache inside the test's temporary folder."""
    monkeypatch.setattr(datasets.config, "HF_DATASETS_CACHE", str(tmp_path / "hf-cache"))


@pytest.fixture(scope="module")
def mmlu_dir(shared_file) -> Path:
    return shared_file("mmlu/test/astronomy_test.csv").parents[1]


@pytest.fixture(scope="module")
def mmlu(mmlu_dir):
    return read_mmlu_folder(mmlu_dir)


@pytest.fixture(scope="module")
def hotpot_path(shared_file) -> Path:
    return shared_file("multihop_hipporag/hotpotqa_train.json")


@pytest.fixture(scope="module")
def hotpot_raw(hotpot_path) -> list[dict]:
    return json.loads(hotpot_path.read_text(encoding="utf-8"))


@pytest.fixture(scope="module")
def hotpot(hotpot_path):
    return read_hotpotqa_json(hotpot_path)


def to_hub(record: dict) -> dict:
    """A HotpotQA record in the Hub's schema (``id``; supporting_facts and context as columns of lists)."""
    return {
        "id": record["_id"], "question": record["question"], "answer": record["answer"],
        "type": record["type"], "level": record["level"],
        "supporting_facts": {"title": [t for t, _ in record["supporting_facts"]],
                             "sent_id": [i for _, i in record["supporting_facts"]]},
        "context": {"title": [t for t, _ in record["context"]], "sentences": [s for _, s in record["context"]]},
    }


def assert_names(caught: pytest.ExceptionInfo, file: str, record: int | None, field: str | None) -> None:
    message = str(caught.value)
    assert "\n" not in message and message.startswith(file), message
    if record is not None:
        assert re.search(rf"\brecord {record}[,:]", message), message
    if field is not None:
        assert f"field {field!r}" in message, message


# --- MMLU folders ------------------------------------------------------------------------------


def test_mmlu_folder_counts_match_the_files(mmlu, mmlu_dir):
    test, dev = raw_mmlu(mmlu_dir, "test"), raw_mmlu(mmlu_dir, "dev")
    subjects = sorted(p.name.removesuffix("_test.csv") for p in (mmlu_dir / "test").glob("*.csv"))
    assert (len(subjects), len(test), len(dev)) == (29, 1160, 145)
    assert mmlu.name == "mmlu" and len(mmlu.questions) == len(test) and len(mmlu.shots) == len(dev)
    assert sorted({q.subject for q in mmlu.questions}) == sorted({q.subject for q in mmlu.shots}) == subjects
    assert len({q.qid for q in (*mmlu.questions, *mmlu.shots)}) == len(test) + len(dev)


def test_mmlu_folder_matches_an_independent_parse_of_every_row(mmlu, mmlu_dir):
    for pool, split in ((mmlu.questions, "test"), (mmlu.shots, "dev")):
        expected = [
            Mcq(f"mmlu/{split}/{r['subject']}/{r['row']:04d}", r["question"],
                tuple(r[f"choice{i}"] for i in range(4)), LETTERS[int(r["answer"])], r["subject"])
            for r in raw_mmlu(mmlu_dir, split)
        ]
        assert list(pool) == expected
    # Quoted fields with commas and newlines survive; a CRLF inside one stem is kept as in the source, and so are
    # spaces around a stem or a choice (the paper preset renders them as prepare_mmlu.py does).
    assert any("\n" in q.question for q in mmlu.questions) and any("," in c for q in mmlu.questions for c in q.choices)
    assert "\r\n" in next(q for q in mmlu.shots if q.qid == "mmlu/dev/college_mathematics/0002").question


def test_first_astronomy_question(mmlu, mmlu_dir):
    with (mmlu_dir / "test" / "astronomy_test.csv").open(encoding="utf-8", newline="") as handle:
        header, first = list(csv.reader(handle))[:2]
    astronomy = next(q for q in mmlu.questions if q.qid == "mmlu/test/astronomy/0000")
    assert header == HEADER
    assert astronomy.question == first[0] == 'What is true for a type-Ia ("type one-a") supernova?'
    assert astronomy.choices == tuple(first[1:5])
    assert astronomy.answer == "ABCD"[int(first[5])] == "A"
    assert astronomy.subject == "astronomy"


def test_headerless_letter_dialect_gives_the_same_pool(mmlu_dir, tmp_path):
    original, headered = tmp_path / "original", tmp_path / "headered"
    for split in ("test", "dev"):
        for subject in ("astronomy", "college_mathematics", "professional_law"):
            name = f"{subject}_{split}.csv"
            (headered / split).mkdir(parents=True, exist_ok=True)
            shutil.copy(mmlu_dir / split / name, headered / split / name)
            with (mmlu_dir / split / name).open(encoding="utf-8", newline="") as handle:
                rows = list(csv.reader(handle))[1:]
            (original / split).mkdir(parents=True, exist_ok=True)
            with (original / split / name).open("w", encoding="utf-8", newline="") as handle:
                csv.writer(handle).writerows([*row[:5], LETTERS[int(row[5])]] for row in rows)
    (original / "val").mkdir()
    (original / "val" / "astronomy_val.csv").write_text("not,a,question\n", encoding="utf-8")
    assert read_mmlu_folder(original) == read_mmlu_folder(headered)
    assert len(read_mmlu_folder(original).questions) == 120


def test_mmlu_folder_without_test_split_names_the_folder(tmp_path):
    with pytest.raises(InputError) as caught:
        read_mmlu_folder(tmp_path)
    assert_names(caught, str(tmp_path / "test"), None, None)
    (tmp_path / "test").mkdir()
    with pytest.raises(InputError, match=re.escape(str(tmp_path / "test"))):
        read_mmlu_folder(tmp_path)


@pytest.mark.parametrize(
    ("line", "field", "problem"),
    [
        ('"Q?",a,b,c,E\n', None, "expected 6 columns"),
        ('"Q?",a,b,c,d,E\n', "answer", "expected a letter A-D or an index 0-3, got 'E'"),
        ('"Q?",a,b,c,d,4\n', "answer", "got '4'"),
        ('"  ",a,b,c,d,A\n', "question", "non-empty string"),
    ],
)
def test_mmlu_folder_bad_rows_name_file_record_and_field(tmp_path, line, field, problem):
    file = tmp_path / "test" / "astronomy_test.csv"
    file.parent.mkdir()
    file.write_text('"Fine, with a comma\nand a newline?",a,b,c,d,B\n' + line, encoding="utf-8")
    with pytest.raises(InputError, match=re.escape(problem)) as caught:
        read_mmlu_folder(tmp_path)
    assert_names(caught, str(file), 2, field)  # the second row; it starts on line 3


# --- MMLU from the Hub's rows -----------------------------------------------------------------


def test_cais_rows_convert_to_the_folder_pool(mmlu, mmlu_dir):
    test, dev = hub_rows(raw_mmlu(mmlu_dir, "test")), hub_rows(raw_mmlu(mmlu_dir, "dev"))
    assert mcq_pool_from_records("mmlu", test, dev, "cais/mmlu (all)") == mmlu


def test_cais_rows_with_bad_fields_name_the_record(mmlu_dir):
    rows = hub_rows(raw_mmlu(mmlu_dir, "test"))[:3]
    rows[2] = {**rows[2], "choices": rows[2]["choices"][:3]}
    with pytest.raises(InputError, match="expected a list of 4 strings, got 3 choices") as caught:
        mcq_pool_from_records("mmlu", rows, [], "cais/mmlu (all)")
    assert_names(caught, "cais/mmlu (all) test", 3, "choices")
    del rows[2]["subject"]
    with pytest.raises(InputError, match="missing"):
        mcq_pool_from_records("mmlu", rows, [], "cais/mmlu (all)")


def test_read_mmlu_hub_loads_a_folder_in_the_hub_layout(mmlu_dir, tmp_path, hub_cache):
    test = [r for r in hub_rows(raw_mmlu(mmlu_dir, "test")) if r["subject"] in ("astronomy", "nutrition")]
    dev = [r for r in hub_rows(raw_mmlu(mmlu_dir, "dev")) if r["subject"] in ("astronomy", "nutrition")]
    folder = write_hub_folder(tmp_path / "cais-mmlu", "all", {"test": test, "dev": dev})
    pool = read_mmlu_hub(str(folder), "all")
    assert pool == mcq_pool_from_records("mmlu", test, dev, "unused")
    assert (len(pool.questions), len(pool.shots)) == (80, 10)
    only_test = write_hub_folder(tmp_path / "no-dev", "all", {"test": test})
    with pytest.raises(InputError, match="no split dev; found test"):
        read_mmlu_hub(str(only_test), "all")


# --- Other MCQ tables ----------------------------------------------------------------------------


@pytest.fixture(scope="module")
def table_rows(mmlu) -> list[dict]:
    rows = [{"question": q.question, "choices": list(q.choices), "answer": q.answer, "subject": q.subject,
             "split": "test"} for q in mmlu.questions[38:44]]
    return rows + [{**rows[0], "split": "dev"}]


def write_table(path: Path, rows: list[dict], flat: tuple[str, ...] = ("choice0", "choice1", "choice2", "choice3")):
    if path.suffix == ".jsonl":
        path.write_text("".join(json.dumps(r) + "\n\n" for r in rows), encoding="utf-8")
    elif path.suffix == ".json":
        path.write_text(json.dumps(rows), encoding="utf-8")
    elif path.suffix == ".parquet":
        pq.write_table(pa.Table.from_pylist([{**r, "answer": LETTERS.index(r["answer"])} for r in rows]), path)
    else:
        with path.open("w", encoding="utf-8", newline="") as handle:
            writer = csv.DictWriter(handle, ["question", *flat, "answer", "subject", "split"])
            writer.writeheader()
            writer.writerows({**{k: v for k, v in r.items() if k != "choices"}, **dict(zip(flat, r["choices"]))}
                             for r in rows)
    return path


@pytest.mark.parametrize("suffix", [".jsonl", ".json", ".parquet", ".csv"])
def test_mcq_table_in_every_format(tmp_path, table_rows, mmlu, suffix):
    pool = read_mcq_table(write_table(tmp_path / f"gsm8k{suffix}", table_rows))
    assert pool.name == "gsm8k"
    assert [q.qid for q in pool.questions] == [f"gsm8k/{i:05d}" for i in range(6)]
    assert [q.qid for q in pool.shots] == ["gsm8k/00006"]
    assert [replace(q, qid="") for q in pool.questions] == [replace(q, qid="") for q in mmlu.questions[38:44]]
    assert replace(pool.shots[0], qid="") == replace(mmlu.questions[38], qid="")


def test_mcq_table_csv_with_letter_columns_and_no_split(tmp_path, table_rows):
    rows = [{k: v for k, v in r.items() if k != "split"} for r in table_rows]
    letters = read_mcq_table(write_table(tmp_path / "math500.csv", rows, flat=LETTERS))
    assert len(letters.questions) == 7 and letters.shots == ()
    assert letters.questions[0].choices == tuple(table_rows[0]["choices"])


@pytest.mark.parametrize(
    ("change", "field", "problem"),
    [
        ({"choices": ["a", "b", "c"]}, "choices", "expected a list of 4 strings, got 3 choices"),
        ({"answer": "E"}, "answer", "expected a letter A-D or an index 0-3, got 'E'"),
        ({"answer": 4}, "answer", "got 4"),
        ({"question": ""}, "question", "expected a non-empty string"),
        ({"split": "train"}, "split", "split must be one of 'test', 'dev'; got 'train'"),
        ({"subject": 3}, "subject", "expected a string"),
    ],
)
def test_mcq_table_bad_records_name_file_record_and_field(tmp_path, table_rows, change, field, problem):
    rows = [*table_rows[:3], {**table_rows[3], **change}]
    path = write_table(tmp_path / "mbpp.jsonl", rows)
    with pytest.raises(InputError, match=re.escape(problem)) as caught:
        read_mcq_table(path)
    assert_names(caught, str(path), 4, field)


def test_mcq_table_missing_field_unknown_suffix_and_broken_json(tmp_path, table_rows):
    path = write_table(tmp_path / "mbpp.json", [{k: v for k, v in table_rows[0].items() if k != "choices"}])
    with pytest.raises(InputError, match="choice0..choice3 or A..D") as caught:
        read_mcq_table(path)
    assert_names(caught, str(path), 1, "choices")
    (tmp_path / "mbpp.tsv").write_text("question\tA\n", encoding="utf-8")
    with pytest.raises(InputError, match=r"unsupported file type '\.tsv'; supported: \.csv, \.json, \.jsonl, \.parquet"):
        read_mcq_table(tmp_path / "mbpp.tsv")
    with pytest.raises(InputError, match="file not found"):
        read_mcq_table(tmp_path / "absent")
    broken = tmp_path / "broken.jsonl"
    broken.write_text(json.dumps(table_rows[0]) + "\n{oops\n", encoding="utf-8")
    with pytest.raises(InputError, match="line 2 is not valid JSON") as caught:
        read_mcq_table(broken)
    assert_names(caught, str(broken), 2, None)


# --- HotpotQA ------------------------------------------------------------------------------------


def test_hotpotqa_reads_every_question(hotpot, hotpot_raw):
    assert len(hotpot_raw) == 50 and hotpot.dropped == ()
    assert [q.qid for q in hotpot.pool.questions] == [r["_id"] for r in hotpot_raw]
    assert [q.answers for q in hotpot.pool.questions] == [(r["answer"],) for r in hotpot_raw]
    assert sum(q.answers[0] in ("yes", "no") for q in hotpot.pool.questions) == 4
    assert hotpot.pool.name == "hotpotqa"


def test_hotpotqa_gold_distractors_and_documents(hotpot, hotpot_raw):
    docs = hotpot.pool.documents
    titles = [d.title for d in docs]
    assert len(set(titles)) == len(titles)
    first_seen = list(dict.fromkeys(t for r in hotpot_raw for t, _ in r["context"]))
    assert titles == first_seen
    sentences = {t: s for r in reversed(hotpot_raw) for t, s in r["context"]}
    assert all(d.text == "".join(sentences[d.title]).strip() for d in docs)
    for q, r in zip(hotpot.pool.questions, hotpot_raw):
        support = list(dict.fromkeys(t for t, _ in r["supporting_facts"]))
        assert [docs[i].title for i in q.gold] == support
        assert not set(q.gold) & set(q.distractors)
        assert [docs[i].title for i in q.distractors] == [t for t, _ in r["context"] if t not in support]


def test_hotpotqa_jsonl_and_hub_rows_give_the_same_pool(hotpot, hotpot_raw, tmp_path):
    jsonl = tmp_path / "hotpot.jsonl"
    jsonl.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in hotpot_raw), encoding="utf-8")
    assert read_hotpotqa_json(jsonl) == hotpot
    hub = [to_hub(r) for r in hotpot_raw]
    converted = list(hotpot_records_from_hub(hub, "hub"))
    assert converted == hotpot_raw
    assert hotpot_pool_from_records(converted, "hub") == hotpot


def test_read_hotpotqa_hub_loads_a_folder_in_the_hub_layout(hotpot, hotpot_raw, tmp_path, hub_cache):
    folder = write_hub_folder(tmp_path / "hotpot_qa", "distractor", {"validation": [to_hub(r) for r in hotpot_raw]})
    assert read_hotpotqa_hub(str(folder), "distractor", "validation") == hotpot


def test_hotpotqa_drops_questions_whose_support_is_not_in_their_context(hotpot_raw):
    records = [dict(r) for r in hotpot_raw[:3]]
    records[1]["supporting_facts"] = [["Not A Context Title", 0], *records[1]["supporting_facts"]]
    read = hotpot_pool_from_records(records, "edited")
    assert read.dropped == (records[1]["_id"],)
    assert [q.qid for q in read.pool.questions] == [records[0]["_id"], records[2]["_id"]]
    assert len(read.pool.documents) == 30


def test_hotpotqa_shared_titles_keep_the_first_paragraph(hotpot_raw):
    first, second = dict(hotpot_raw[0]), dict(hotpot_raw[1])
    title = first["context"][0][0]
    support = {t for t, _ in second["context"]} & {t for t, _ in second["supporting_facts"]}
    position = next(i for i, (t, _) in enumerate(second["context"]) if t not in support)
    second["context"] = [*second["context"][:position], [title, [" Another text."]], *second["context"][position + 1:]]
    read = hotpot_pool_from_records([first, second], "shared")
    assert read.dropped == () and len(read.pool.documents) == 19
    assert read.pool.documents[0].text == "".join(first["context"][0][1]).strip()
    assert 0 in read.pool.questions[1].distractors


@pytest.mark.parametrize(
    ("change", "field", "problem"),
    [
        ({"answer": None}, "answer", "expected a non-empty string, got None"),
        ({"supporting_facts": [["Alû", "3"]]}, "supporting_facts[0]", "expected [title, int]"),
        ({"context": [["Demon Dice", "one string"]]}, "context[0]", "expected [title, list]"),
        ({"context": [["Demon Dice", ["ok", 7]]]}, "context[0]", "expected a list of sentence strings"),
        ({"context": []}, "context", "expected a non-empty list"),
    ],
)
def test_hotpotqa_bad_records_name_file_record_and_field(hotpot_raw, tmp_path, change, field, problem):
    path = tmp_path / "hotpot.json"
    path.write_text(json.dumps([hotpot_raw[0], {**hotpot_raw[1], **change}]), encoding="utf-8")
    with pytest.raises(InputError, match=re.escape(problem)) as caught:
        read_hotpotqa_json(path)
    assert_names(caught, str(path), 2, field)


def test_hotpotqa_bad_hub_rows_and_missing_fields(hotpot_raw, tmp_path):
    row = to_hub(hotpot_raw[0])
    row["context"]["sentences"].pop()
    with pytest.raises(InputError, match="title has 10 items but sentences has 9") as caught:
        list(hotpot_records_from_hub([to_hub(hotpot_raw[1]), row], "hotpotqa/hotpot_qa"))
    assert_names(caught, "hotpotqa/hotpot_qa", 2, "context")
    path = tmp_path / "hotpot.json"
    path.write_text(json.dumps([{k: v for k, v in hotpot_raw[0].items() if k != "_id"}]), encoding="utf-8")
    with pytest.raises(InputError, match="missing") as caught:
        read_hotpotqa_json(path)
    assert_names(caught, str(path), 1, "_id")
    (tmp_path / "hotpot.parquet").write_bytes(b"PAR1")
    with pytest.raises(InputError, match=r"supported: \.json, \.jsonl"):
        read_hotpotqa_json(tmp_path / "hotpot.parquet")


def test_distractors_that_are_the_gold_questions_are_refused(shared_data):
    """Issue 41: the paper preset given MMLU's test folder as distractors dropped every distractor as a repeat of a
    gold question and filled the contexts from the gold pool without a word. Now it is refused, naming the folder;
    a real distractor split (dev here) is taken."""
    from builders.sources.rulerv2 import resolve_mcq, with_mcq_distractors
    from needlework.errors import InputError

    mmlu = shared_data / "mmlu"
    gold = resolve_mcq(str(mmlu), 0)
    with pytest.raises(InputError, match="distractor questions are the gold questions themselves"):
        with_mcq_distractors(gold, str(mmlu / "test"))
    assert len(with_mcq_distractors(gold, str(mmlu / "dev")).pool.distractors) > 0
