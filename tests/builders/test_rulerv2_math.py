"""``needlework build rulerv2 --mk-base gsm8k|math500``: RULERv2's math base tasks (Appendix D.2).

The paper (Appendix D.2, Figure 6 top right) reports multi-key NIAH "substituting other base tasks
like GSM8K, MATH500, and MBPP" for MMLU. The sources are read in their original formats, written
here as tiny files: GSM8K records (``openai/gsm8k`` ``main``; github.com/openai/grade-school-math
``grade_school_math/data/test.jsonl``) hold ``question`` and ``answer``, the solution ending
``#### <number>``; MATH-500 records (``HuggingFaceH4/MATH-500``; github.com/openai/prm800k
``prm800k/math_splits/test.jsonl``) hold ``problem``, ``solution``, ``answer``, ``subject``,
``level`` and ``unique_id``. The reference answers follow NeMo-Skills' preparation
(``nemo_skills/dataset/gsm8k/prepare.py``: the text after ``####``, commas removed, stripped;
``nemo_skills/dataset/math-500/prepare.py``: ``answer`` unchanged), and the solve prompts ask for the
answer inside ``\\boxed{}`` as NeMo-Skills' math prompt does (``nemo_skills/prompt/config/generic/math.yaml``).
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import datasets
import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from click.testing import CliRunner

from builders.cli import main
from builders.rulerv2 import RulerV2Build, build
from builders.sources.math_problems import (
    gsm8k_answer,
    math_pool_from_records,
    read_math_file,
)
from generators.rulerv2.templates import MATH_ITEM_TASKS
from needlework.errors import InputError, SpecError
from tests.support.releases import gold_question, split_rows

MK_TASKS = ("mk_niah_easy", "mk_niah_medium", "mk_niah_hard")
LENGTH, RESERVE, SAMPLES = 600, 30, 3


def gsm8k_records(n: int = 12, start: int = 0) -> list[dict]:
    """GSM8K-style records: a word problem and a solution with calculator annotations ending ``#### <n>``."""
    records = []
    for i in range(start, start + n):
        hens = (i + 3) * (2 * i + 5)
        left = hens * 100 - i
        records.append({
            "question": f"A farm has {i + 3} pens with {2 * i + 5} hundred hens each, and {i} hens are sold "
                        f"at the market on Sunday morning before the farmer has breakfast. How many hens are left?",
            "answer": f"There are {i + 3}*{2 * i + 5} = <<{i + 3}*{2 * i + 5}={hens}>>{hens} hundred hens.\n#### {left:,}",
        })
    return records


def math500_records(n: int = 12) -> list[dict]:
    """MATH-500-style records: LaTeX problems and answers, subjects, levels and unique ids."""
    subjects = ("Algebra", "Prealgebra", "Number Theory")
    return [{
        "problem": f"Let $f(x) = {i + 2}x^2 + {i}x - 7$. What is $f(1)$ divided by ${2 * i + 4}$? Express it as a common fraction.",
        "solution": f"We have $f(1) = {2 * i - 5}$, so the answer is $\\boxed{{\\frac{{{2 * i - 5}}}{{{2 * i + 4}}}}}$.",
        "answer": f"\\frac{{{2 * i - 5}}}{{{2 * i + 4}}}",
        "subject": subjects[i % 3],
        "level": 1 + i % 5,
        "unique_id": f"test/{subjects[i % 3].lower().replace(' ', '_')}/{100 + i}.json",
    } for i in range(n)]


def write_jsonl(path: Path, records: list[dict]) -> Path:
    path.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    return path


@pytest.fixture(scope="module")
def files(tmp_path_factory) -> dict[str, Path]:
    root = tmp_path_factory.mktemp("math-sources")
    gsm8k_with_train = [{**r, "split": "test"} for r in gsm8k_records()] + [
        {**r, "split": "train"} for r in gsm8k_records(4, start=40)]
    pq.write_table(pa.Table.from_pylist(gsm8k_with_train), root / "gsm8k.parquet")
    return {
        "gsm8k": write_jsonl(root / "test.jsonl", gsm8k_records()),
        "gsm8k_train": root / "gsm8k.parquet",
        "math500": write_jsonl(root / "math500_test.jsonl", math500_records()),
    }


def spec(base: str, source: Path, **kwargs) -> RulerV2Build:
    values = {"tasks": MK_TASKS, "lengths": (LENGTH,), "generation_reserve": RESERVE, "samples": SAMPLES, "shots": 1, "golden": True,
                  "mk_base": base, "mk_source": str(source)}
    return RulerV2Build(**{**values, **kwargs})


@pytest.fixture(scope="module")
def gsm8k_release(tmp_path_factory, files, cl100k) -> Path:
    out = tmp_path_factory.mktemp("rulerv2-gsm8k") / "release"
    build(spec("gsm8k", files["gsm8k"]), out, tokens=cl100k, progress=False)
    return out


@pytest.fixture(scope="module")
def math500_release(tmp_path_factory, files, cl100k) -> Path:
    out = tmp_path_factory.mktemp("rulerv2-math500") / "release"
    build(spec("math500", files["math500"]), out, tokens=cl100k, progress=False)
    return out


# --- Sources -----------------------------------------------------------------------------------------


def test_gsm8k_answer_is_the_text_after_the_marks_without_commas():
    """nemo_skills/dataset/gsm8k/prepare.py: ``answer.split("####")``, ``.replace(",", "").strip()``."""
    assert gsm8k_answer("He has 3 + 4 = <<3+4=7>>7 apples.\n#### 1,234", "f", 0) == "1234"
    assert gsm8k_answer("#### -5", "f", 0) == "-5"
    with pytest.raises(InputError, match=r"f.*record 1.*answer.*####"):
        gsm8k_answer("He has seven apples.", "f", 0)


def test_gsm8k_file_reads_test_problems_and_train_demonstrations(files):
    plain = read_math_file("gsm8k", files["gsm8k"])
    assert plain.name == "gsm8k" and len(plain.questions) == 12 and plain.shots == ()
    first = plain.questions[0]
    assert first.qid == "gsm8k/test/0000" and first.answer == "1500"  # "#### 1,500"
    assert first.question == gsm8k_records()[0]["question"] and first.solution.endswith("#### 1,500")
    split = read_math_file("gsm8k", files["gsm8k_train"])
    assert len(split.questions) == 12 and [s.qid for s in split.shots] == [f"gsm8k/train/{i:04d}" for i in range(4)]


def test_math500_file_keeps_latex_answers_subjects_and_unique_ids(files):
    pool = read_math_file("math500", files["math500"])
    problem = pool.questions[3]
    assert problem.answer == "\\frac{1}{10}" and problem.subject == "Algebra"
    assert problem.qid == "math500/test/algebra/103.json"
    assert problem.question.startswith("Let $f(x) = 5x^2 + 3x - 7$.")


def test_hub_shaped_rows_give_the_same_pool_as_the_file(files):
    """The Hub datasets hold the original columns, so one conversion serves both entries."""
    from_rows = math_pool_from_records("math500", math500_records(), [], "HuggingFaceH4/MATH-500")
    assert from_rows == read_math_file("math500", files["math500"])


def test_malformed_records_name_file_record_and_field(tmp_path):
    bad = write_jsonl(tmp_path / "bad.jsonl", [*gsm8k_records(2), {"question": "How many?", "answer": "seven"}])
    with pytest.raises(InputError, match=r"bad\.jsonl.*record 3.*answer"):
        read_math_file("gsm8k", bad)
    no_problem = write_jsonl(tmp_path / "m.jsonl", [{"answer": "3"}])
    with pytest.raises(InputError, match=r"m\.jsonl.*record 1.*problem"):
        read_math_file("math500", no_problem)
    csv = tmp_path / "x.csv"
    csv.write_text("question,answer\n", encoding="utf-8")
    with pytest.raises(InputError, match="unsupported file type"):
        read_math_file("gsm8k", csv)


def test_options_are_validated(files):
    with pytest.raises(SpecError, match="^mk_base must be one of 'mmlu', 'gsm8k', 'math500', 'mbpp'; got 'humaneval'$"):
        RulerV2Build(mk_base="humaneval")
    with pytest.raises(SpecError, match="mk_source applies to a math base task"):
        RulerV2Build(mk_source=str(files["gsm8k"]))
    with pytest.raises(SpecError, match="paper preset hides MMLU questions only"):
        RulerV2Build(preset="paper", mk_base="gsm8k")


# --- Rows --------------------------------------------------------------------------------------------


def test_gsm8k_solve_rows_carry_the_reference_answer_and_ask_for_a_box(gsm8k_release):
    answer_of = {r["question"]: r["answer"].split("####")[1].replace(",", "").strip() for r in gsm8k_records()}
    for config, query in (("mk_niah_medium", "Please copy the Question {} from the context and then solve it."),
                          ("mk_niah_hard", "Please solve the Question {} from the context.")):
        for split in ("test", "golden"):
            for row in split_rows(gsm8k_release, config, split):
                assert row["base"] == "gsm8k" and row["source"] == "gsm8k" and row["qid"].startswith("gsm8k/test/")
                question = gold_question(row)
                assert row["answers"] == [answer_of[question]]
                prompt = row["input"]
                assert prompt.startswith(MATH_ITEM_TASKS[config].intro)
                assert "make sure to put the answer (and only answer) inside \\boxed{}." in prompt
                assert prompt.endswith(query.format(row["query"]))
                assert f"Question {row['query']}: {question}\n\n" in prompt
                assert "A, B, C, D" not in prompt
                # The one demonstration solves another problem of the pool (the file has no train split).
                (shown,) = re.findall(r"Solution: \\boxed\{([^}]*)\}\.", prompt)
                assert shown in answer_of.values() and shown != row["answers"][0]
                if split == "test":
                    assert row["n_tokens"] <= LENGTH - RESERVE and row["n_items"] > 3


def test_gsm8k_copy_rows_keep_the_copy_task(gsm8k_release):
    for row in split_rows(gsm8k_release, "mk_niah_easy"):
        assert row["base"] == "gsm8k" and row["answers"] == [gold_question(row)]
        assert row["input"].endswith(f"Please copy the Question {row['query']} from the context.")


def test_math500_rows_carry_latex_answers(math500_release):
    answer_of = {r["problem"]: r["answer"] for r in math500_records()}
    for config in ("mk_niah_medium", "mk_niah_hard"):
        for row in split_rows(math500_release, config):
            assert row["base"] == "math500" and row["source"] == "math500"
            assert row["qid"].startswith("math500/test/") and row["qid"].endswith(".json")
            assert row["answers"] == [answer_of[gold_question(row)]] and row["answers"][0].startswith("\\frac{")
            assert "\\boxed{\\frac{" in row["input"]  # the demonstration's boxed LaTeX answer


def test_train_split_problems_are_the_demonstrations(files, cl100k, tmp_path):
    out = tmp_path / "release"
    build(spec("gsm8k", files["gsm8k_train"], tasks=("mk_niah_hard",)), out, tokens=cl100k, progress=False)
    train_answers = {r["answer"].split("####")[1].replace(",", "").strip() for r in gsm8k_records(4, start=40)}
    for row in split_rows(out, "mk_niah_hard"):
        (shown,) = re.findall(r"Solution: \\boxed\{([^}]*)\}\.", row["input"])
        assert shown in train_answers


def test_builds_are_deterministic(files, cl100k, tmp_path, gsm8k_release):
    """Same files, options and seed -> the same Parquet content, config by config."""
    again = tmp_path / "again"
    build(spec("gsm8k", files["gsm8k"]), again, tokens=cl100k, progress=False)
    first = json.loads((gsm8k_release / "manifest.json").read_text(encoding="utf-8"))["configs"]
    second = json.loads((again / "manifest.json").read_text(encoding="utf-8"))["configs"]
    assert first == second and set(first) == set(MK_TASKS)
    other_seed = tmp_path / "seed1"
    build(spec("gsm8k", files["gsm8k"], seed=1), other_seed, tokens=cl100k, progress=False)
    assert json.loads((other_seed / "manifest.json").read_text(encoding="utf-8"))["configs"] != first


def test_manifest_and_card_record_the_math_source(gsm8k_release, files):
    manifest = json.loads((gsm8k_release / "manifest.json").read_text(encoding="utf-8"))
    assert manifest["build"]["args"]["mk_base"] == "gsm8k"
    assert str(files["gsm8k"]) in manifest["inputs"]
    assert "GSM8K math word problems" in (gsm8k_release / "README.md").read_text(encoding="utf-8")


def test_default_build_has_no_base_column(cl100k, tmp_path):
    """``mk_base`` mmlu (the default) keeps the 12-config schema as it was (no ``base`` column)."""
    out = tmp_path / "release"
    build(RulerV2Build(tasks=("mk_niah_hard",), lengths=(4096,), samples=1), out, tokens=cl100k, progress=False)
    assert "base" not in datasets.load_dataset(str(out), "mk_niah_hard", split="test").column_names


def test_cli_builds_a_math500_release(files, tmp_path):
    out = tmp_path / "cli"
    result = CliRunner().invoke(main, [
        "build", "rulerv2", "--tasks", "mk_niah_hard", "--lengths", str(LENGTH), "--generation-reserve", str(RESERVE),
        "--samples", "2", "--shots", "1", "--mk-base", "math500", "--mk-source", str(files["math500"]),
        "--out", str(out), "--tokenizer", "cl100k_base",
    ])
    assert result.exit_code == 0, result.output
    assert {row["base"] for row in split_rows(out, "mk_niah_hard")} == {"math500"}
