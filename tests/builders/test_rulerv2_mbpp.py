"""``needlework build rulerv2 --mk-base mbpp``: RULERv2's multi-key NIAH over MBPP (Appendix D.2).

The paper (Appendix D.2, Figure 6 top right) reports multi-key NIAH "substituting other base tasks
like GSM8K, MATH500, and MBPP" for MMLU. The records below are real MBPP problems in the original
``full`` schema (google-research/mbpp ``mbpp.jsonl``, Hub ``google-research-datasets/mbpp`` config
``full``: ``task_id``, ``text``, ``code`` with its ``\\r\\n`` line ends, ``test_list``,
``test_setup_code``, ``challenge_test_list``) and one in the ``sanitized`` schema
(``sanitized-mbpp.json``: ``prompt``, ``test_imports``). MBPP's README (google-research/google-research
``mbpp/README.md``) evaluates task_ids 11-510 and prompts with 1-10 (the paper's shots: 2, 3 and 4, as
here); the Hub's splits call 511-600 validation and 601-974 train. The hidden problem is shown as
evalplus's MBPP+ prompt, the one NeMo-Skills' ``mbpp`` dataset asks (evalplus ``tools/mbpp/init_plus.py``:
the description and ``test_list[0]`` in a docstring; NeMo-Skills ``nemo_skills/dataset/mbpp/prepare.py``),
and the solve levels ask for code in NeMo-Skills' ``generic/codegen.yaml`` answer format.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from click.testing import CliRunner

from builders.cli import main
from builders.rulerv2 import RulerV2Build, build
from builders.sources.math_problems import (
    hub_repo_and_config,
    read_math_file,
    read_math_hub,
)
from generators.rulerv2.templates import CODE_FORMAT, CODE_ITEM_TASKS
from needlework.errors import InputError, SpecError
from tests.support.releases import gold_question, split_rows

MK_TASKS = ("mk_niah_easy", "mk_niah_medium", "mk_niah_hard")
LENGTH, RESERVE, SAMPLES = 640, 40, 3


def _record(task_id: int, text: str, code: str, tests: list[str]) -> dict:
    return {"task_id": task_id, "text": text, "code": code, "test_list": tests, "test_setup_code": "",
            "challenge_test_list": []}


MBPP_FULL: list[dict] = [
    _record(2, "Write a function to find the similar elements from the given two tuple lists.",
            "def similar_elements(test_tup1, test_tup2):\r\n  res = tuple(set(test_tup1) & set(test_tup2))\r\n  return (res) ",
            ["assert similar_elements((3, 4, 5, 6),(5, 7, 4, 10)) == (4, 5)",
             "assert similar_elements((1, 2, 3, 4),(5, 4, 3, 7)) == (3, 4)",
             "assert similar_elements((11, 12, 14, 13),(17, 15, 14, 13)) == (13, 14)"]),
    _record(3, "Write a python function to identify non-prime numbers.",
            "import math\r\ndef is_not_prime(n):\r\n    result = False\r\n    for i in range(2,int(math.sqrt(n)) + 1):\r\n"
            "        if n % i == 0:\r\n            result = True\r\n    return result",
            ["assert is_not_prime(2) == False", "assert is_not_prime(10) == True", "assert is_not_prime(35) == True"]),
    _record(4, "Write a function to find the largest integers from a given list of numbers using heap queue algorithm.",
            "import heapq as hq\r\ndef heap_queue_largest(nums,n):\r\n  largest_nums = hq.nlargest(n, nums)\r\n  return largest_nums",
            ["assert heap_queue_largest( [25, 35, 22, 85, 14, 65, 75, 22, 58],3)==[85, 75, 65] ",
             "assert heap_queue_largest( [25, 35, 22, 85, 14, 65, 75, 22, 58],2)==[85, 75] ",
             "assert heap_queue_largest( [25, 35, 22, 85, 14, 65, 75, 22, 58],5)==[85, 75, 65, 58, 35]"]),
    _record(11, "Write a python function to remove first and last occurrence of a given character from the string.",
            "def remove_Occ(s,ch): \r\n    for i in range(len(s)): \r\n        if (s[i] == ch): \r\n"
            "            s = s[0 : i] + s[i + 1:] \r\n            break\r\n    for i in range(len(s) - 1,-1,-1):  \r\n"
            "        if (s[i] == ch): \r\n            s = s[0 : i] + s[i + 1:] \r\n            break\r\n    return s ",
            ['assert remove_Occ("hello","l") == "heo"', 'assert remove_Occ("abcda","a") == "bcd"',
             'assert remove_Occ("PHP","P") == "H"']),
    _record(12, "Write a function to sort a given matrix in ascending order according to the sum of its rows.",
            "def sort_matrix(M):\r\n    result = sorted(M, key=sum)\r\n    return result",
            ["assert sort_matrix([[1, 2, 3], [2, 4, 5], [1, 1, 1]])==[[1, 1, 1], [1, 2, 3], [2, 4, 5]]",
             "assert sort_matrix([[1, 2, 3], [-2, 4, -5], [1, -1, 1]])==[[-2, 4, -5], [1, -1, 1], [1, 2, 3]]",
             "assert sort_matrix([[5,8,9],[6,4,3],[2,1,4]])==[[2, 1, 4], [6, 4, 3], [5, 8, 9]]"]),
    _record(14, "Write a python function to find the volume of a triangular prism.",
            "def find_Volume(l,b,h) : \r\n    return ((l * b * h) / 2) ",
            ["assert find_Volume(10,8,6) == 240", "assert find_Volume(3,2,2) == 6", "assert find_Volume(1,2,1) == 1"]),
    _record(15, "Write a function to split a string at lowercase letters.",
            "import re\r\ndef split_lowerstring(text):\r\n return (re.findall('[a-z][^a-z]*', text))",
            ["assert split_lowerstring(\"AbCd\")==['bC','d']",
             "assert split_lowerstring(\"Python\")==['y', 't', 'h', 'o', 'n']",
             "assert split_lowerstring(\"Programming\")==['r', 'o', 'g', 'r', 'a', 'm', 'm', 'i', 'n', 'g']"]),
    _record(16, "Write a function to find sequences of lowercase letters joined with an underscore.",
            "import re\r\ndef text_lowercase_underscore(text):\r\n        patterns = '^[a-z]+_[a-z]+$'\r\n"
            "        if re.search(patterns,  text):\r\n                return 'Found a match!'\r\n        else:\r\n"
            "                return('Not matched!')",
            ['assert text_lowercase_underscore("aab_cbbbc")==(\'Found a match!\')',
             'assert text_lowercase_underscore("aab_Abbbc")==(\'Not matched!\')',
             'assert text_lowercase_underscore("Aaab_abbbc")==(\'Not matched!\')']),
    _record(17, "Write a function to find the perimeter of a square.",
            "def square_perimeter(a):\r\n  perimeter=4*a\r\n  return perimeter",
            ["assert square_perimeter(10)==40", "assert square_perimeter(5)==20", "assert square_perimeter(4)==16"]),
    _record(19, "Write a function to find whether a given array of integers contains any duplicate element.",
            "def test_duplicate(arraynums):\r\n    nums_set = set(arraynums)    \r\n    return len(arraynums) != len(nums_set)     ",
            ["assert test_duplicate(([1,2,3,4,5]))==False", "assert test_duplicate(([1,2,3,4, 4]))==True",
             "assert test_duplicate([1,1,2,2,3,3,4,4,5])==True"]),
    _record(18, "Write a function to remove characters from the first string which are present in the second string.",
            "NO_OF_CHARS = 256\r\ndef str_to_list(string): \r\n\ttemp = [] \r\n\tfor x in string: \r\n\t\ttemp.append(x) \r\n"
            "\treturn temp \r\ndef lst_to_string(List): \r\n\treturn ''.join(List) \r\ndef get_char_count_array(string): \r\n"
            "\tcount = [0] * NO_OF_CHARS \r\n\tfor i in string: \r\n\t\tcount[ord(i)] += 1\r\n\treturn count \r\n"
            "def remove_dirty_chars(string, second_string): \r\n\tcount = get_char_count_array(second_string) \r\n"
            "\tip_ind = 0\r\n\tres_ind = 0\r\n\ttemp = '' \r\n\tstr_list = str_to_list(string) \r\n"
            "\twhile ip_ind != len(str_list): \r\n\t\ttemp = str_list[ip_ind] \r\n\t\tif count[ord(temp)] == 0: \r\n"
            "\t\t\tstr_list[res_ind] = str_list[ip_ind] \r\n\t\t\tres_ind += 1\r\n\t\tip_ind+=1\r\n"
            "\treturn lst_to_string(str_list[0:res_ind]) ",
            ['assert remove_dirty_chars("probasscurve", "pros") == \'bacuve\'',
             'assert remove_dirty_chars("digitalindia", "talent") == \'digiidi\'',
             'assert remove_dirty_chars("exoticmiles", "toxic") == \'emles\' ']),
    _record(20, "Write a function to check if the given number is woodball or not.",
            "def is_woodall(x): \r\n\tif (x % 2 == 0): \r\n\t\treturn False\r\n\tif (x == 1): \r\n\t\treturn True\r\n"
            "\tx = x + 1 \r\n\tp = 0\r\n\twhile (x % 2 == 0): \r\n\t\tx = x/2\r\n\t\tp = p + 1\r\n"
            "\t\tif (p == x): \r\n\t\t\treturn True\r\n\treturn False",
            ["assert is_woodall(383) == True", "assert is_woodall(254) == False", "assert is_woodall(200) == False"]),
    _record(22, "Write a function to find the first duplicate element in a given array of integers.",
            "def find_first_duplicate(nums):\r\n    num_set = set()\r\n    no_duplicate = -1\r\n\r\n"
            "    for i in range(len(nums)):\r\n\r\n        if nums[i] in num_set:\r\n            return nums[i]\r\n"
            "        else:\r\n            num_set.add(nums[i])\r\n\r\n    return no_duplicate",
            ["assert find_first_duplicate(([1, 2, 3, 4, 4, 5]))==4", "assert find_first_duplicate([1, 2, 3, 4])==-1",
             "assert find_first_duplicate([1, 1, 2, 3, 3, 2, 2])==1"]),
    _record(23, "Write a python function to find the maximum sum of elements of list in a list of lists.",
            "def maximum_Sum(list1): \r\n    maxi = -100000\r\n    for x in list1: \r\n        sum = 0 \r\n"
            "        for y in x: \r\n            sum+= y      \r\n        maxi = max(sum,maxi)     \r\n    return maxi ",
            ["assert maximum_Sum([[1,2,3],[4,5,6],[10,11,12],[7,8,9]]) == 33",
             "assert maximum_Sum([[0,1,1],[1,1,2],[3,2,1]]) == 6",
             "assert maximum_Sum([[0,1,3],[1,2,1],[9,8,2],[0,1,0],[6,4,8]]) == 19"]),
    _record(24, "Write a function to convert the given binary number to its decimal equivalent.",
            "def binary_to_decimal(binary): \r\n    binary1 = binary \r\n    decimal, i, n = 0, 0, 0\r\n"
            "    while(binary != 0): \r\n        dec = binary % 10\r\n        decimal = decimal + dec * pow(2, i) \r\n"
            "        binary = binary//10\r\n        i += 1\r\n    return (decimal)",
            ["assert binary_to_decimal(100) == 4", "assert binary_to_decimal(1011) == 11",
             "assert binary_to_decimal(1101101) == 109"]),
    _record(25, "Write a python function to find the product of non-repeated elements in a given array.",
            "def find_Product(arr,n): \r\n    arr.sort() \r\n    prod = 1\r\n    for i in range(0,n,1): \r\n"
            "        if (arr[i - 1] != arr[i]): \r\n            prod = prod * arr[i] \r\n    return prod; ",
            ["assert find_Product([1,1,2,3],4) == 6", "assert find_Product([1,2,3,1,1],5) == 6",
             "assert find_Product([1,1,4,5,6],5) == 120"]),
    _record(27, "Write a python function to remove all digits from a list of strings.",
            "import re  \r\ndef remove(list): \r\n    pattern = '[0-9]'\r\n    list = [re.sub(pattern, '', i) for i in list] \r\n"
            "    return list",
            ["assert remove(['4words', '3letters', '4digits']) == ['words', 'letters', 'digits']",
             "assert remove(['28Jan','12Jan','11Jan']) == ['Jan','Jan','Jan']",
             "assert remove(['wonder1','wonder2','wonder3']) == ['wonder','wonder','wonder']"]),
    _record(28, "Write a python function to find binomial co-efficient.",
            "def binomial_Coeff(n,k): \r\n    if k > n : \r\n       return 0\r\n    if k==0 or k ==n : \r\n        return 1 \r\n"
            "    return binomial_Coeff(n-1,k-1) + binomial_Coeff(n-1,k) ",
            ["assert binomial_Coeff(5,2) == 10", "assert binomial_Coeff(4,3) == 4", "assert binomial_Coeff(3,2) == 3"]),
    _record(29, "Write a python function to find the element occurring odd number of times.",
            "def get_Odd_Occurrence(arr,arr_size):   \r\n    for i in range(0,arr_size): \r\n        count = 0\r\n"
            "        for j in range(0,arr_size): \r\n            if arr[i] == arr[j]: \r\n                count+=1     \r\n"
            "        if (count % 2 != 0): \r\n            return arr[i]     \r\n    return -1",
            ["assert get_Odd_Occurrence([1,2,3,1,2,3,1],7) == 1", "assert get_Odd_Occurrence([1,2,3,2,3,1,3],7) == 3",
             "assert get_Odd_Occurrence([2,3,5,4,5,2,4,3,5,2,4,4,2],13) == 5"]),
    _record(511, "Write a python function to find minimum sum of factors of a given number.",
            "def find_Min_Sum(num): \r\n    sum = 0\r\n    i = 2\r\n    while(i * i <= num): \r\n        while(num % i == 0): \r\n"
            "            sum += i \r\n            num /= i \r\n        i += 1\r\n    sum += num \r\n    return sum",
            ["assert find_Min_Sum(12) == 7", "assert find_Min_Sum(105) == 15", "assert find_Min_Sum(2) == 2"]),
    _record(602, "Write a python function to find the first repeated character in a given string.",
            "def first_repeated_char(str1):\r\n  for index,c in enumerate(str1):\r\n    if str1[:index+1].count(c) > 1:\r\n"
            "      return c \r\n  return \"None\"",
            ['assert first_repeated_char("abcabc") == "a"', 'assert first_repeated_char("abc") == "None"',
             'assert first_repeated_char("123123") == "1"']),
]
MBPP_FULL.sort(key=lambda record: record["task_id"])  # file order, as in mbpp.jsonl
"""Real MBPP ``full`` records: prompt split 2-4, test split 11-29, one validation (511) and one train (602)."""
HIDDEN_IDS = (11, 12, 14, 15, 16, 17, 18, 19, 20, 22, 23, 24, 25, 27, 28, 29)
SHOT_IDS = (2, 3, 4)

SANITIZED_82 = {
    "source_file": "Benchmark Questions Verification V2.ipynb", "task_id": 82,
    "prompt": "Write a function to find the volume of a sphere.",
    "code": "import math\ndef volume_sphere(r):\n  volume=(4/3)*math.pi*r*r*r\n  return volume",
    "test_imports": ["import math"],
    "test_list": ["assert math.isclose(volume_sphere(10), 4188.790204786391, rel_tol=0.001)",
                  "assert math.isclose(volume_sphere(25), 65449.84694978735, rel_tol=0.001)",
                  "assert math.isclose(volume_sphere(20),33510.32163829113, rel_tol=0.001)"],
}
"""A real ``sanitized-mbpp.json`` record whose tests need its ``test_imports``."""


def by_id(task_id: int) -> dict:
    return next(r for r in MBPP_FULL if r["task_id"] == task_id)


def write_jsonl(path: Path, records: list[dict]) -> Path:
    path.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    return path


def mbpp_file(path: Path) -> Path:
    """``mbpp.jsonl`` with the records above, in the original format."""
    return write_jsonl(path, MBPP_FULL)


@pytest.fixture(scope="module")
def source(tmp_path_factory) -> Path:
    return mbpp_file(tmp_path_factory.mktemp("mbpp") / "mbpp.jsonl")


def spec(source: Path, **kwargs) -> RulerV2Build:
    values = {"tasks": MK_TASKS, "lengths": (LENGTH,), "generation_reserve": RESERVE, "samples": SAMPLES, "shots": 1,
              "golden": True, "mk_base": "mbpp", "mk_source": str(source)}
    return RulerV2Build(**{**values, **kwargs})


@pytest.fixture(scope="module")
def release(tmp_path_factory, source, cl100k) -> Path:
    out = tmp_path_factory.mktemp("rulerv2-mbpp") / "release"
    build(spec(source), out, tokens=cl100k, progress=False)
    return out


def prompt_of(record: dict) -> str:
    """evalplus's MBPP+ prompt (``init_plus.py``), stripped as every hidden item is."""
    return f'"""\n{record.get("text") or record.get("prompt")}\n{record["test_list"][0]}\n"""'


# --- Sources -----------------------------------------------------------------------------------------


def test_mbpp_file_hides_test_problems_and_shows_prompt_problems(source):
    """task_ids 11-510 are hidden, 1-10 are the demonstrations, validation and training records are not used."""
    pool = read_math_file("mbpp", source)
    assert pool.base == "mbpp"
    assert [q.qid for q in pool.questions] == [f"mbpp/{i}" for i in HIDDEN_IDS]
    assert [s.qid for s in pool.shots] == [f"mbpp/{i}" for i in SHOT_IDS]
    problem = pool.problem("mbpp/11")
    record = by_id(11)
    assert problem.question == prompt_of(record)
    assert problem.question.splitlines()[2] == 'assert remove_Occ("hello","l") == "heo"'  # the function's name is shown
    assert problem.tests == tuple(record["test_list"]) and problem.test_setup == ""
    assert problem.answer == record["code"].replace("\r\n", "\n").strip() and "\r" not in problem.answer


def test_sanitized_and_parquet_files_read_the_same_way(tmp_path, source):
    """``sanitized-mbpp.json`` (a JSON list; ``prompt`` and ``test_imports``) and a Parquet table of the records."""
    sanitized = tmp_path / "sanitized-mbpp.json"
    sanitized.write_text(json.dumps([{**SANITIZED_82}, {**SANITIZED_82, "task_id": 2}]), encoding="utf-8")
    pool = read_math_file("mbpp", sanitized)
    (problem,) = pool.questions
    assert problem.qid == "mbpp/82" and problem.test_setup == "import math"
    assert problem.question == prompt_of(SANITIZED_82) and [s.qid for s in pool.shots] == ["mbpp/2"]
    parquet = tmp_path / "mbpp.parquet"
    pq.write_table(pa.Table.from_pylist(MBPP_FULL), parquet)
    assert read_math_file("mbpp", parquet) == read_math_file("mbpp", source)


def test_hub_layout_reads_the_test_and_prompt_splits(tmp_path, source):
    """``load_dataset("google-research-datasets/mbpp", "full")`` gives train/test/validation/prompt splits; a
    local folder with the same split files stands in for the Hub here (no network in tests)."""
    folder = tmp_path / "mbpp-hub"
    (folder / "data").mkdir(parents=True)
    for split, ids in (("test", HIDDEN_IDS), ("prompt", SHOT_IDS), ("validation", (511,)), ("train", (602,))):
        pq.write_table(pa.Table.from_pylist([by_id(i) for i in ids]), folder / "data" / f"{split}-00000-of-00001.parquet")
    assert read_math_hub("mbpp", str(folder)) == read_math_file("mbpp", source)
    assert hub_repo_and_config("mbpp", None) == ("google-research-datasets/mbpp", "full")
    assert hub_repo_and_config("mbpp", "google-research-datasets/mbpp/sanitized") == ("google-research-datasets/mbpp", "sanitized")
    assert hub_repo_and_config("gsm8k", None) == ("openai/gsm8k", "main")


@pytest.mark.parametrize(("edit", "field"), [
    ({"test_list": []}, "test_list"),
    ({"test_list": "assert f(1) == 2"}, "test_list"),
    ({"test_list": ["assert f(1) == 2", ""]}, "test_list"),
    ({"task_id": "eleven"}, "task_id"),
    ({"task_id": 975}, "task_id"),
    ({"code": None}, "code"),
    ({"test_setup_code": 3}, "test_setup_code"),
    ({"text": "   "}, "text"),
])
def test_malformed_records_name_file_record_and_field(tmp_path, edit, field):
    records = [by_id(11), {**by_id(12), **edit}]
    path = write_jsonl(tmp_path / "bad.jsonl", records)
    with pytest.raises(InputError, match=rf"bad\.jsonl, record 2, field '{field}'"):
        read_math_file("mbpp", path)


@pytest.mark.parametrize("missing", ["task_id", "text", "code", "test_list", "test_setup_code"])
def test_missing_fields_are_named(tmp_path, missing):
    record = {k: v for k, v in by_id(14).items() if k != missing}
    path = write_jsonl(tmp_path / "m.jsonl", [by_id(11), record])
    with pytest.raises(InputError, match=rf"m\.jsonl, record 2, field '{missing}'"):
        read_math_file("mbpp", path)


def test_a_file_without_test_problems_is_refused(tmp_path):
    path = write_jsonl(tmp_path / "prompts.jsonl", [by_id(2), by_id(3)])
    with pytest.raises(InputError, match="no problems"):
        read_math_file("mbpp", path)


def test_options_accept_mbpp():
    assert RulerV2Build(mk_base="mbpp").mk_base == "mbpp"
    with pytest.raises(SpecError, match="^mk_base must be one of 'mmlu', 'gsm8k', 'math500', 'mbpp'; got 'humaneval'$"):
        RulerV2Build(mk_base="humaneval")
    with pytest.raises(SpecError, match="paper preset hides MMLU questions only"):
        RulerV2Build(preset="paper", mk_base="mbpp")


# --- Rows --------------------------------------------------------------------------------------------


def test_solve_rows_hide_the_problem_and_carry_its_tests(release):
    """Medium and hard: the gold problem sits in the context as ``Question {index}: <MBPP+ prompt>``, the query
    asks for Python in NeMo-Skills' format, the row carries the problem's tests and setup, and no hidden
    problem's reference code is in the prompt (only the demonstration's, from the prompt split)."""
    hidden = {prompt_of(by_id(i)): by_id(i) for i in HIDDEN_IDS}
    shot_codes = {by_id(i)["code"].replace("\r\n", "\n").strip() for i in SHOT_IDS}
    for config, query in (("mk_niah_medium", ("Please copy the Question {} from the context and then solve it with "
                                              "python programming language.")),
                          ("mk_niah_hard", "Please solve the Question {} from the context with python programming language.")):
        for split in ("test", "golden"):
            for row in split_rows(release, config, split):
                record = hidden[gold_question(row)]
                assert row["base"] == "mbpp" and row["source"] == "mbpp" and row["qid"] == f"mbpp/{record['task_id']}"
                assert row["test_list"] == record["test_list"] and row["test_setup_code"] == ""
                assert row["answers"] == [record["code"].replace("\r\n", "\n").strip()]
                prompt = row["input"]
                assert prompt.startswith(CODE_ITEM_TASKS[config].intro)
                assert prompt.endswith(query.format(row["query"]) + "\n\n" + CODE_FORMAT)
                assert f"Question {row['query']}: {prompt_of(record)}\n\n" in prompt
                assert "\\boxed" not in prompt and "A, B, C, D" not in prompt
                (shown,) = re.findall(r"Solution:\n```python\n(.*?)\n```", prompt, flags=re.DOTALL)
                assert shown in shot_codes
                for other in HIDDEN_IDS:
                    assert by_id(other)["code"].replace("\r\n", "\n").strip() not in prompt
                if split == "test":
                    assert row["n_tokens"] <= LENGTH - RESERVE and row["n_items"] > 3


def test_copy_rows_keep_the_copy_task(release):
    for row in split_rows(release, "mk_niah_easy"):
        assert row["base"] == "mbpp" and row["answers"] == [gold_question(row)]
        assert row["test_list"] and row["input"].endswith(f"Please copy the Question {row['query']} from the context.")


def test_sanitized_setup_is_carried(tmp_path, cl100k):
    sanitized = tmp_path / "sanitized-mbpp.json"
    extra = [{**SANITIZED_82, "task_id": i, "prompt": f"{SANITIZED_82['prompt']} ({i})"} for i in range(20, 30)]
    sanitized.write_text(json.dumps([SANITIZED_82, *extra]), encoding="utf-8")
    out = tmp_path / "release"
    build(spec(sanitized, tasks=("mk_niah_hard",), shots=0, golden=False, lengths=(400,)), out, tokens=cl100k,
          progress=False)
    assert {row["test_setup_code"] for row in split_rows(out, "mk_niah_hard")} == {"import math"}


def test_builds_are_deterministic(source, cl100k, tmp_path, release):
    """Same file, options and seed -> the same Parquet content, config by config; another seed differs."""
    again = tmp_path / "again"
    build(spec(source), again, tokens=cl100k, progress=False)
    first = json.loads((release / "manifest.json").read_text(encoding="utf-8"))["configs"]
    assert json.loads((again / "manifest.json").read_text(encoding="utf-8"))["configs"] == first
    assert set(first) == set(MK_TASKS)
    other_seed = tmp_path / "seed1"
    build(spec(source, seed=1), other_seed, tokens=cl100k, progress=False)
    assert json.loads((other_seed / "manifest.json").read_text(encoding="utf-8"))["configs"] != first


def test_manifest_and_card_record_the_source(release, source):
    manifest = json.loads((release / "manifest.json").read_text(encoding="utf-8"))
    assert manifest["build"]["args"]["mk_base"] == "mbpp" and str(source) in manifest["inputs"]
    assert "MBPP programming problems and tests (Austin et al., CC BY 4.0)" in (release / "README.md").read_text(
        encoding="utf-8")


def test_cli_builds_an_mbpp_release(source, tmp_path):
    out = tmp_path / "cli"
    result = CliRunner().invoke(main, [
        "build", "rulerv2", "--tasks", "mk_niah_hard", "--lengths", str(LENGTH), "--generation-reserve", str(RESERVE),
        "--samples", "2", "--shots", "1", "--mk-base", "mbpp", "--mk-source", str(source),
        "--out", str(out), "--tokenizer", "cl100k_base",
    ])
    assert result.exit_code == 0, result.output
    assert {row["base"] for row in split_rows(out, "mk_niah_hard")} == {"mbpp"}
