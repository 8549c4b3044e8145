"""The 12 RULERv2 eval tasks on hand-built rows: oracle answers, partial answers, and a loopback run.

Rows are written here from the prompt templates (``generators.rulerv2.templates``) with realistic
MMLU-style questions (a stem, then one line per choice), HotpotQA-style documents and 7-digit
indices, so these tests do not depend on the builders. Each case pairs a row with the response a
perfect model would give (what Figure 1 of the paper shows), which must score exactly 1.
"""

from __future__ import annotations

import json
import random
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Sequence

import jiwer
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from eval.benchmarks import TASKS, get_task, task_name_for_row
from eval.benchmarks.rulerv2.tasks import CODE_TASK_NAMES, MATH_TASK_NAMES
from eval.release import open_release
from eval.report import write_report
from eval.runner import default_run_dir, run, score_run
from eval.task import TaskOptions
from generators.rulerv2.pools import Document, Mcq
from generators.rulerv2.templates import (
    ACTUAL_TASK,
    EXAMPLES_HEADER,
    ITEM_TASKS,
    NIAH_BASIC,
    ordinal,
)
from tests.support.openai_stub import Script, prompt_digest
from tests.support.releases import fast_backend, make_spec, stub_server

QUESTIONS = (
    Mcq("mmlu/test/astronomy/0007", "Why is Mars red?",
        ('Because the surface is covered with heavily oxidized ("rusted") minerals.',
         "Because the atmosphere scatters more light at bluer wavelengths transmitting mostly red light.",
         "Because Mars is covered with ancient lava flows which are red in color.",
         "Because flowing water on Mars's surface altered the surface minerals several billion years ago."), "A"),
    Mcq("mmlu/test/high_school_chemistry/0012", "Which of the following is the strongest acid in water?",
        ("HF", "HCl", "CH3COOH", "H2CO3"), "B"),
    Mcq("mmlu/test/college_biology/0031", "Which of the following is NOT a function of the liver?",
        ("Detoxification of blood", "Production of bile", "Production of insulin", "Storage of glycogen"), "C"),
    Mcq("mmlu/test/world_religions/0004", "In which city was the first Buddhist council held?",
        ("Vaishali", "Pataliputra", "Kanchipuram", "Rajagriha"), "D"),
    Mcq("mmlu/test/high_school_us_history/0019", "The Monroe Doctrine of 1823 warned European powers against",
        ("further colonization in the Western Hemisphere.", "trading with the Confederacy.",
         "interfering in the affairs of Asia.", "building a canal across Panama."), "A"),
    Mcq("mmlu/test/elementary_mathematics/0055", "What is the value of 3 + 4 x 2?",
        ("14", "11", "10", "9"), "B"),
    Mcq("mmlu/test/philosophy/0002", "According to Kant, the moral worth of an action depends on",
        ("its consequences.", "the virtues it expresses.", "the maxim from which it is done.",
         "the happiness it produces."), "C"),
    Mcq("mmlu/test/high_school_physics/0040", "A 2 kg object accelerates at 3 m/s^2. What is the net force on it?",
        ("1.5 N", "5 N", "9 N", "6 N"), "D"),
)
DOCUMENTS = (
    Document("Arthur's Magazine", "Arthur's Magazine (1844-1846) was an American literary periodical published "
             "in Philadelphia in the 19th century. Edited by T.S. Arthur, it featured work by Edgar A. Poe."),
    Document("First for Women", "First for Women is a woman's magazine published by Bauer Media Group in the "
             "USA. The magazine was started in 1989. It is based in Englewood Cliffs, New Jersey."),
    Document("Radio City (Indian radio station)", "Radio City is India's first private FM radio station and was "
             "started on 3 July 2001. It broadcasts on 91.1 megahertz from Mumbai."),
    Document("History of Albanian football", "Football in Albania existed before the Albanian Football "
             "Federation (FSHF) was created. This was evidenced by the team's registration at the Balkan Cup."),
    Document("Echosmith", "Echosmith is an American, Corporate indie pop band formed in February 2009 in "
             "Chino, California. Originally formed as a quartet of siblings, the band currently consists of "
             "Sydney, Noah and Graham Sierota."),
)
QA_QUESTION = "Which magazine was started first Arthur's Magazine or First for Women?"
QA_ANSWERS = ["Arthur's Magazine", "Arthurs Magazine"]
QA_GOLD = (0, 1)


# --- hand-built rows ------------------------------------------------------------------------------


@dataclass(frozen=True)
class Case:
    """A release row and the response a perfect model gives to it."""

    row: dict[str, Any]
    response: str


def indices(config: str, length: int, sample: int, n: int) -> list[str]:
    """``n`` distinct random 7-digit indices, the same for the same (config, length, sample)."""
    rng = random.Random(f"{config}/{length}/{sample}")
    return [str(i) for i in rng.sample(range(1_000_000, 10_000_000), n)]


def needles(prompt: str, texts: Sequence[str]) -> list[dict[str, Any]]:
    """Needle records of ``texts`` (in text order) as the builders write them."""
    found = []
    for text in texts:
        offset = prompt.index(text)
        found.append({"text": text, "char_offset": offset, "token_offset": offset // 4,
                      "depth_percent": round(100 * offset / len(prompt), 4)})
    return found


def row(config: str, prompt: str, answers: Sequence[str], query: str, answer_prefix: str,
        gold: Sequence[str], *, length: int, sample: int, golden: bool, **extra: Any) -> dict[str, Any]:
    """A release row of ``config`` with every column the RULERv2 rows share."""
    task, level = config.rsplit("_", 1)
    split = "golden" if golden else "test"
    return {
        "id": f"rulerv2/{config}/{split}/len={length}/i={sample:04d}", "input": prompt, "answers": list(answers),
        "query": query, "answer_prefix": answer_prefix, "task": task, "level": level,
        "target_tokens": 0 if golden else length, "n_tokens": len(prompt) // 4, "generation_reserve": 256,
        "tokenizer": "qwen2.5", "needles": needles(prompt, gold), "golden": golden,
        "order": None, "shots": 0, "source": "mmlu", "qid": None, "n_items": 0, **extra,
    }


def item_prompt(config: str, items: Sequence[tuple[str, str]], examples: Sequence[str] = (), **fields: str) -> str:
    """The prompt of an item task: intro, items (each then a blank line), [examples], query, [prefix]."""
    template = ITEM_TASKS[config]
    prompt = template.intro + "\n\n" + "".join(template.item.format(index=i, text=t) + "\n\n" for i, t in items)
    if examples:
        prompt += EXAMPLES_HEADER + "\n" + "\n\n".join(examples) + "\n\n" + ACTUAL_TASK
    prompt += template.query.format(**fields)
    return prompt + ("\n" + template.answer_prefix if template.answer_prefix else "")


def niah_basic_case(config: str, *, length: int = 8192, sample: int = 0, golden: bool = False) -> Case:
    """Basic NIAH: key-value lines among distractor lines (Tables 2 and 3, synthetic retrieval)."""
    task = config.rsplit("_", 1)[0]
    template = NIAH_BASIC[task]
    rng = random.Random(f"{config}/{length}/{sample}")
    key = "purring-protest"
    values = [str(rng.randrange(10**9, 10**10)) for _ in range(1 if task == "mk_niah" else 4)]
    lines = [template.needle.format(key=key, value=v) for v in values]
    distractors = [] if golden else [template.needle.format(key=k, value=str(rng.randrange(10**9, 10**10)))
                                     for k in ("sleepy-lantern", "brave-walrus", "crimson-teapot")]
    context = "".join(line + "\n" for line in distractors[:2] + lines + distractors[2:])
    prefix = template.answer_prefix.format(key=key)
    prompt = template.intro + "\n" + context + template.question.format(key=key) + prefix
    built = row(config, prompt, values, key, prefix, lines, length=length, sample=sample, golden=golden,
                source="synthetic")
    if not golden:  # the basic rows built today lack these columns; eval treats them as missing
        for column in ("order", "shots", "source", "qid", "golden", "n_items"):
            del built[column]
    return Case({**built, "n_lines": len(lines) + len(distractors)}, ", ".join(values))


def mk_case(config: str, *, length: int = 8192, sample: int = 0, golden: bool = False) -> Case:
    """Multi-key easy/medium/hard: one indexed question among others (Table 2)."""
    level = config.rsplit("_", 1)[1]
    ids = indices(config, length, sample, 4)
    target = QUESTIONS[(length // 8192 + sample) % len(QUESTIONS)]
    others = [q for q in QUESTIONS if q is not target][:3]
    items = [(ids[0], target.render())] if golden else list(zip(ids[1:3], (q.render() for q in others[:2]))) + [
        (ids[0], target.render()), (ids[3], others[2].render())]
    examples: list[str] = []
    if level in ("medium", "hard"):  # one demonstration from MMLU's dev split
        shot = QUESTIONS[-1]
        copies = f"Question 5550001: {shot.render()}"
        examples = [ITEM_TASKS[config].example.format(index="5550001", answer=shot.answer, copies=copies)]
    prompt = item_prompt(config, items, examples, index=ids[0])
    copy = f"Question {ids[0]}: {target.render()}"
    response, answers = {
        "easy": (copy, [target.render()]),
        "medium": (f"{copy}\n\nSolution: \\boxed{{{target.answer}}}", [target.answer]),
        "hard": (f"\\boxed{{{target.answer}}}", [target.answer]),
    }[level]
    return Case(row(config, prompt, answers, ids[0], "", [target.render()], length=length, sample=sample,
                    golden=golden, shots=len(examples), qid=target.qid, n_items=len(items)), response)


def mv_case(config: str, *, length: int = 8192, sample: int = 0, golden: bool = False, order: int = 2) -> Case:
    """Multi-value easy/medium/hard: four questions share one index among others (Table 3)."""
    level = config.rsplit("_", 1)[1]
    ids = indices(config, length, sample, 3)
    shared = [q.render() for q in QUESTIONS[:4]]
    others = [q.render() for q in QUESTIONS[4:6]]
    items = [(ids[0], q) for q in shared]
    if not golden:
        items = [(ids[1], others[0])] + items[:2] + [(ids[2], others[1])] + items[2:]
    kth = ordinal(order)
    prompt = item_prompt(config, items, index=ids[0], order=kth)
    copies = "\n".join(f"Question {ids[0]}: {q}" for q in shared)
    response, answers = {
        "easy": (copies, shared),
        "medium": (f"{copies}\n\nQuestion {ids[0]}: {shared[order - 1]}", [shared[order - 1]]),
        "hard": (f"Question {ids[0]}: {shared[order - 1]}", [shared[order - 1]]),
    }[level]
    return Case(row(config, prompt, answers, ids[0], "", shared, length=length, sample=sample, golden=golden,
                    order=None if level == "easy" else order, n_items=len(items)), response)


def mdqa_case(config: str, *, length: int = 8192, sample: int = 0, golden: bool = False) -> Case:
    """Multi-doc QA basic to hard: gold documents among distractor documents (Table 4)."""
    level = config.rsplit("_", 1)[1]
    ids = indices(config, length, sample, len(DOCUMENTS))
    order = [0, 1] if golden else [2, 0, 3, 1, 4]
    if level == "basic":
        order = [0] if golden else [2, 0, 3, 4]
    items = [(ids[i], DOCUMENTS[i].render()) for i in order]
    gold = [0] if level == "basic" else list(QA_GOLD)
    fields = {"text": DOCUMENTS[0].render()} if level == "basic" else {"question": QA_QUESTION}
    prompt = item_prompt(config, items, **fields)
    copies = "\n\n".join(f"Document {ids[i]}: {DOCUMENTS[i].render()}" for i in gold)
    response, answers = {
        "basic": (f" {ids[0]}", [ids[0]]),
        "easy": (f"{ids[1]}", [ids[i] for i in gold]),
        "medium": (f"{copies}\n\nAnswer: {QA_ANSWERS[0]}", QA_ANSWERS),
        "hard": (f" {QA_ANSWERS[0]}", QA_ANSWERS),
    }[level]
    query = fields.get("text") or fields["question"]
    gold_texts = [DOCUMENTS[i].render() for i in gold]
    return Case(row(config, prompt, answers, query, ITEM_TASKS[config].answer_prefix, gold_texts, length=length,
                    sample=sample, golden=golden, source="hotpotqa", qid="5a8b57f25542995d1e6f1371",
                    n_items=len(items)), response)


BUILDERS = {"mk_niah": mk_case, "mv_niah": mv_case, "mdqa": mdqa_case}
CONFIGS = tuple(f"{domain}_{level}" for domain in ("mk_niah", "mv_niah", "mdqa")
                for level in ("basic", "easy", "medium", "hard"))


def case(config: str, **kwargs: Any) -> Case:
    """The hand-built case of ``config``."""
    if config.endswith("_basic") and config.startswith(("mk_niah", "mv_niah")):
        return niah_basic_case(config, **kwargs)
    return BUILDERS[config.rsplit("_", 1)[0]](config, **kwargs)


LENIENT = TaskOptions(scoring="lenient")
OFFICIAL = TaskOptions()


def score(config: str, response: str, row_: dict[str, Any], options: TaskOptions = LENIENT) -> float:
    """The score of ``response`` to ``row_`` as results.json computes it (extract, then score); by default under
    the lenient reading, which most tests below pin (the official reading has its own tests)."""
    task = get_task(task_name_for_row("rulerv2", row_), options)
    assert task.name == f"rulerv2/{config}"
    return task.score(task.extract(response), task.references(row_))


def jiwer_words(text: str) -> str:
    """The WER transform, written out independently of eval: lower-case, no punctuation, words split on
    any whitespace (newlines between a question's choices included), joined by one space."""
    transform = jiwer.Compose([jiwer.ToLowerCase(), jiwer.RemovePunctuation(), jiwer.RemoveWhiteSpace(True),
                               jiwer.RemoveMultipleSpaces(), jiwer.Strip(), jiwer.ReduceToListOfListOfWords()])
    return " ".join(transform(text)[0])


# --- oracle and partial answers ----------------------------------------------------------------------


def test_every_registered_task_has_a_case():
    """The 12 tasks, plus their math-base and MBPP variants (tested in tests/eval/test_rulerv2_math.py and
    tests/eval/test_rulerv2_mbpp.py)."""
    ruler = {name for name in TASKS if name.startswith("rulerv2/") and name.count("/") == 1}
    assert ruler == {f"rulerv2/{c}" for c in CONFIGS}
    assert len(ruler) == 12
    assert {name for name in TASKS if name.startswith("rulerv2/")} - ruler == {*MATH_TASK_NAMES, *CODE_TASK_NAMES}


@pytest.mark.parametrize("options", [OFFICIAL, LENIENT], ids=["official", "lenient"])
@pytest.mark.parametrize("golden", [False, True], ids=["test", "golden"])
@pytest.mark.parametrize("config", CONFIGS)
def test_a_perfect_response_scores_one(config: str, golden: bool, options: TaskOptions):
    built = case(config, golden=golden)
    assert built.row["input"].endswith(built.row["answer_prefix"])
    assert score(config, built.response, built.row, options) == 1.0
    thought = f"<think>Let me look for it. {built.response[:20]}</think>{built.response}"
    assert score(config, thought, built.row, options) == 1.0
    assert score(config, "", built.row, options) == 0.0


# --- official scoring (NeMo-Skills eval_ruler2; match type per task from ruler2/prepare_init.py) ----------


def test_official_mdqa_index_counts_anywhere_in_the_response():
    """NeMo-Skills ``eval_ruler2`` "part" on the whole generation: the gold index as a substring anywhere, so a
    list of every index, or a longer number containing it, scores (the lenient reading refuses both)."""
    built = case("mdqa_basic")
    answers = built.row["answers"]
    listed = [line.split(": ", 1)[0] for line in _document_lines(built.row["input"])]
    everything = ", ".join([*(i for i in listed if i not in answers), *answers])
    assert score("mdqa_basic", everything, built.row, OFFICIAL) == 1.0
    assert score("mdqa_basic", everything, built.row, LENIENT) == 0.0
    assert score("mdqa_basic", f"{answers[0]}0", built.row, OFFICIAL) == 1.0


def test_official_mdqa_medium_removes_copied_documents_before_matching():
    """``re.sub(r'Document \\d+:(?:.*\\n)+?\\n', '', pred)``: a copied gold document stating the answer does not score;
    the answer after the copies does."""
    built = case("mdqa_medium")
    copied = built.response.rsplit("Answer:", 1)[0]
    assert "Arthur's Magazine" in copied
    assert score("mdqa_medium", f"{copied}Answer: First for Women", built.row, OFFICIAL) == 0.0
    assert score("mdqa_medium", f"{copied}Answer: ARTHUR'S MAGAZINE", built.row, OFFICIAL) == 1.0


def test_official_all_averages_per_reference_over_the_whole_response():
    """``all``: mean over references of max(r in pred, 1 - WER(pred, r)), lower-cased: three of four copies right
    score exactly 3/4, because one wrong copy's WER against the whole response is far above 1."""
    built = case("mv_niah_easy")
    index, references = built.row["query"], built.row["answers"]
    response = "\n".join(f"Question {index}: {q}" for q in [*references[:3], QUESTIONS[6].render()])
    assert score("mv_niah_easy", response, built.row, OFFICIAL) == 0.75


def test_official_mv_niah_medium_scores_the_last_paragraph():
    """``2steps``: only the text after the response's last blank line is matched."""
    built = case("mv_niah_medium", order=2)
    index = built.row["query"]
    shared = [q.render() for q in QUESTIONS[:4]]
    all_copies = "\n".join(f"Question {index}: {q}" for q in shared)
    assert score("mv_niah_medium", f"{all_copies}\n\nQuestion {index}: {shared[1]}", built.row, OFFICIAL) == 1.0
    assert score("mv_niah_medium", f"Question {index}: {shared[1]}\n\nI am done.", built.row, OFFICIAL) == 0.0


@pytest.mark.parametrize("config", ["mk_niah_easy", "mv_niah_easy", "mv_niah_medium", "mv_niah_hard"])
def test_copies_may_drop_labels_and_line_breaks(config: str):
    built = case(config)
    flattened = " ".join(built.response.replace("Question ", "\nQuestion ").split())
    assert flattened != built.response
    assert score(config, flattened, built.row) == 1.0
    if config != "mv_niah_medium":  # its labels mark where the final copy starts
        unlabelled = built.response.replace(f"Question {built.row['query']}: ", "")
        assert score(config, unlabelled, built.row) == 1.0


def test_one_wrong_copy_in_mv_niah_easy_scores_max_of_recall_and_one_minus_wer():
    built = case("mv_niah_easy")
    index, references = built.row["query"], built.row["answers"]
    wrong = QUESTIONS[6].render()
    copies = [*references[:3], wrong]
    response = "\n".join(f"Question {index}: {q}" for q in copies)
    wer = jiwer.wer(jiwer_words(" ".join(references)), jiwer_words(" ".join(copies)))
    expected = max(3 / 4, 1 - wer)
    assert 0.75 < expected < 1.0  # the wrong copy is about as long as the right one: 1 - WER beats recall
    assert score("mv_niah_easy", response, built.row) == pytest.approx(expected, abs=1e-12)


def test_mv_niah_medium_scores_only_the_final_copy():
    built = case("mv_niah_medium", order=2)
    index = built.row["query"]
    shared = [q.render() for q in QUESTIONS[:4]]
    all_copies = "\n".join(f"Question {index}: {q}" for q in shared)
    wrong_final = f"{all_copies}\n\nQuestion {index}: {shared[2]}"  # the 3rd instead of the 2nd
    one_minus_wer = 1 - jiwer.wer(jiwer_words(shared[1]), jiwer_words(shared[2]))
    assert score("mv_niah_medium", wrong_final, built.row) == pytest.approx(max(0.0, one_minus_wer), abs=1e-12)
    assert score("mv_niah_medium", all_copies, built.row) < 1.0  # the last copy is the 4th
    assert score("mv_niah_medium", f"The 2nd one is:\n{shared[1]}", built.row) == 1.0  # no label: whole response


@pytest.mark.parametrize(
    "response",
    ["\\boxed{C}", "\\boxed{\\text{C}}", "\\boxed{C.}", "\\boxed{(C)}", "\\boxed{C. Production of insulin}",
     "\\boxed{\\textbf{C}}", "I think \\boxed{A}. On reflection: \\boxed{C}", "The answer is (C).", "Answer: C",
     "**Answer:** C", "<think>Maybe \\boxed{A}?</think>\\boxed{C}"],
)
def test_letter_answers_in_boxes_and_stated_answers(response: str):
    built = mk_case("mk_niah_hard")
    correct = built.row["answers"][0]
    response = response.replace("C", correct)
    assert score("mk_niah_hard", response, built.row) == 1.0


@pytest.mark.parametrize("config", ["mk_niah_medium", "mk_niah_hard"])
def test_a_wrong_or_missing_letter_scores_zero(config: str):
    built = case(config)
    correct = built.row["answers"][0]
    wrong = next(letter for letter in "ABCD" if letter != correct)
    assert score(config, f"\\boxed{{{wrong}}}", built.row) == 0.0
    assert score(config, f"\\boxed{{{correct}}} no wait \\boxed{{{wrong}}}", built.row) == 0.0  # the last box counts
    assert score(config, f"\\boxed{{42}} the answer is {correct}", built.row) == 0.0  # a box without a letter
    assert score(config, "I am not sure.", built.row) == 0.0
    assert score(config, f"<think>\\boxed{{{correct}}}</think>\\boxed{{{wrong}}}", built.row) == 0.0
    assert score(config, f"<think>\\boxed{{{correct}}}</think>", built.row) == 0.0  # only reasoning had it


@pytest.mark.parametrize("config", ["mdqa_basic", "mdqa_easy"])
def test_mdqa_index_is_the_first_number(config: str):
    built = case(config)
    answers = built.row["answers"]
    listed = " ".join(i for i, _ in (line.split(": ", 1) for line in _document_lines(built.row["input"])))
    wrong_first = next(i for i in listed.split() if i not in answers)
    everything = f"{wrong_first}, " + ", ".join(answers)
    assert score(config, everything, built.row) == 0.0  # listing every index must not score
    assert score(config, f"Document {answers[-1]}", built.row) == 1.0  # any gold document counts
    assert score(config, "I cannot tell.", built.row) == 0.0


def _document_lines(prompt: str) -> list[str]:
    return [line.removeprefix("Document ") for line in prompt.split("\n") if line.startswith("Document ")]


def test_mdqa_medium_answer_is_after_the_last_answer_label():
    built = case("mdqa_medium")
    copied = built.response.rsplit("Answer:", 1)[0]
    assert score("mdqa_medium", f"{copied}Answer: First for Women", built.row) == 0.0  # the docs hold the answer
    assert score("mdqa_medium", f"{copied}answer: arthurs magazine", built.row) == 1.0  # the alias, any case
    assert score("mdqa_medium", "Arthur's Magazine came first.", built.row) == 1.0  # no label: whole response


def test_mdqa_hard_drops_a_repeated_answer_label():
    built = case("mdqa_hard")
    assert score("mdqa_hard", "Answer: Arthur's Magazine", built.row) == 1.0
    assert score("mdqa_hard", "First for Women", built.row) == 0.0


@pytest.mark.parametrize("config", ["mdqa_basic", "mdqa_easy", "mdqa_hard"])
def test_a_newline_answer_prefix_moves_to_the_assistant_turn_without_its_newline(config: str):
    built = case(config)
    prefix, prompt = built.row["answer_prefix"], built.row["input"]
    assert prefix and prompt.endswith("\n" + prefix)
    question = prompt[: -len(prefix) - 1]
    assistant = get_task(f"rulerv2/{config}", TaskOptions(answer_prefix="assistant")).render(built.row)
    assert assistant == ({"role": "user", "content": question}, {"role": "assistant", "content": prefix})
    omit = get_task(f"rulerv2/{config}", TaskOptions(answer_prefix="omit")).render(built.row)
    assert omit == ({"role": "user", "content": question},)


@pytest.mark.parametrize("placement", ["user", "assistant", "omit"])
@pytest.mark.parametrize("config", ["mk_niah_easy", "mv_niah_medium", "mdqa_medium"])
def test_rows_without_an_answer_prefix_are_one_user_turn(config: str, placement: str):
    built = case(config)
    assert built.row["answer_prefix"] == ""
    task = get_task(f"rulerv2/{config}", TaskOptions(answer_prefix=placement))  # type: ignore[arg-type]
    assert task.render(built.row) == ({"role": "user", "content": built.row["input"]},)


@pytest.mark.parametrize("config", CONFIGS)
def test_metadata_names_length_domain_and_level(config: str):
    domain, level = config.rsplit("_", 1)
    task = get_task(f"rulerv2/{config}", TaskOptions())
    built, golden = case(config, length=16384), case(config, golden=True)
    metadata = task.metadata(built.row)
    assert (metadata["length"], metadata["domain"], metadata["level"]) == (16384, domain, level)
    assert task.metadata_columns == ("length", "depth", "domain", "level")
    assert set(metadata) == set(task.metadata_columns)
    single = len(built.row["needles"]) == 1
    expected_depth = min(90, int(built.row["needles"][0]["depth_percent"] // 10) * 10) if single else None
    assert metadata["depth"] == expected_depth
    assert task.metadata(golden.row)["length"] == 0
    if "golden" in golden.row:
        assert task.metadata(golden.row)["depth"] is None  # no haystack, no depth


# --- a loopback run over a hand-written release with all 12 configs -------------------------------


LENGTHS = (8192, 16384)
EXTRA_SAMPLES = {"mk_niah_basic": 2}  # unequal counts: overall (sample mean) != task average


def mistakes(cases: dict[str, list[Case]]) -> dict[str, tuple[str, float]]:
    """Row id -> (wrong response, its expected score under the default official scoring, computed here by hand:
    three of four copies right average 3/4; a list of every document index holds the gold one)."""
    hard = cases["mk_niah_hard"][1].row
    wrong_letter = next(letter for letter in "ABCD" if letter != hard["answers"][0])
    mv = cases["mv_niah_easy"][1].row
    copies = [*mv["answers"][:3], QUESTIONS[6].render()]
    mdqa = cases["mdqa_basic"][1].row
    listed = [line.split(":", 1)[0] for line in _document_lines(mdqa["input"])]
    wrong_first = next(i for i in listed if i not in mdqa["answers"])
    return {
        hard["id"]: (f"\\boxed{{{wrong_letter}}}", 0.0),
        mv["id"]: ("\n".join(f"Question {mv['query']}: {q}" for q in copies), 0.75),
        mdqa["id"]: (", ".join([wrong_first, *listed]), 1.0),
    }


def write_release(folder: Path, splits: dict[str, dict[str, list[dict[str, Any]]]]) -> Path:
    """A release folder as eval reads it: ``manifest.json`` and one Parquet shard per config and split."""
    manifest: dict[str, Any] = {"benchmark": "rulerv2", "tokenizer": {"name": "qwen2.5"}, "configs": {}}
    for split, by_config in splits.items():
        for config, rows in by_config.items():
            name = f"{config}/{split}-00000-of-00001.parquet"
            (folder / config).mkdir(parents=True, exist_ok=True)
            pq.write_table(pa.Table.from_pylist(rows), folder / name)
            entry = manifest["configs"].setdefault(config, {"splits": {}})
            entry["splits"][split] = {"rows": len(rows), "files": [name]}
    (folder / "manifest.json").write_text(json.dumps(manifest, indent=2, sort_keys=True), encoding="utf-8")
    return folder


@pytest.fixture(scope="module")
def loopback(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    """Run the test split and the golden split of a 12-config release through the stub, then report."""
    root = tmp_path_factory.mktemp("rulerv2-12")
    samples = {c: {n: 1 + (EXTRA_SAMPLES.get(c, 0) if n == LENGTHS[0] else 0) for n in LENGTHS} for c in CONFIGS}
    cases = {c: [case(c, length=n, sample=s) for n in LENGTHS for s in range(samples[c][n])] for c in CONFIGS}
    golden = {c: [case(c, golden=True)] for c in CONFIGS}
    release = write_release(root / "rulerv2", {
        "test": {c: [k.row for k in cs] for c, cs in cases.items()},
        "golden": {c: [k.row for k in cs] for c, cs in golden.items()},
    })
    wrong = mistakes(cases)
    answers = {}
    for built in [k for cs in (*cases.values(), *golden.values()) for k in cs]:
        response = wrong.get(built.row["id"], (built.response, 1.0))[0]
        answers[prompt_digest([{"role": "user", "content": built.row["input"]}])] = (built.row["id"], [response])
    assert len(answers) == sum(len(cs) for cs in (*cases.values(), *golden.values())), "two rows share a prompt"
    outcomes = {}
    with stub_server(Script(answers=answers)) as server:
        for split in ("test", "golden"):
            spec = make_spec(release, server.base_url, root / f"run-{split}", configs=CONFIGS, split=split)
            outcomes[split] = run(spec, backend=fast_backend(spec), progress=False)
    report = write_report([outcomes["test"].run_dir, outcomes["golden"].run_dir], root / "report")
    expected = {c: [wrong.get(k.row["id"], ("", 1.0))[1] for k in cs] for c, cs in cases.items()}
    return {"release": release, "outcomes": outcomes, "report": report, "expected": expected}


def test_loopback_scores_every_config_and_averages(loopback: dict[str, Any]):
    expected: dict[str, list[float]] = loopback["expected"]
    scores = loopback["outcomes"]["test"].results["scores"]
    assert set(scores["by"]["config"]) == set(CONFIGS)
    for config, values in expected.items():
        assert scores["by"]["config"][config]["score"] == round(sum(values) / len(values), 6), config
        assert scores["by"]["config"][config]["n"] == len(values)
    every = [v for values in expected.values() for v in values]
    assert scores["overall"]["score"] == round(sum(every) / len(every), 6)
    task_average = sum(sum(v) / len(v) for v in expected.values()) / len(expected)
    assert scores["task_average"] == {"score": round(task_average, 6), "n_configs": 12}
    assert scores["task_average"]["score"] != scores["overall"]["score"]
    assert set(scores["by"]["level"]) == {"basic", "easy", "medium", "hard"}
    assert set(scores["by"]["domain"]) == {"mk_niah", "mv_niah", "mdqa"}
    assert set(scores["by"]["length"]) == {str(n) for n in LENGTHS}
    golden = loopback["outcomes"]["golden"].results
    assert golden["run"]["split"] == "golden"
    assert golden["scores"]["overall"]["score"] == 1.0
    assert set(golden["scores"]["by"]["length"]) == {"0"}


def test_loopback_rescoring_from_saved_samples_is_identical(loopback: dict[str, Any]):
    for outcome in loopback["outcomes"].values():
        assert score_run(outcome.run_dir)["scores"] == outcome.results["scores"]


def test_loopback_report_draws_levels_with_the_golden_baseline(loopback: dict[str, Any]):
    report = loopback["report"]
    levels = report.markdown.parent / "levels.png"
    assert levels in report.plots and levels.read_bytes().startswith(b"\x89PNG")
    text = report.markdown.read_text(encoding="utf-8")
    assert "](levels.png)" in text
    assert "golden context from stub-model (run-golden)" in text
    assert "| task average (unweighted mean over configs) |" in text


def test_default_run_dir_keeps_test_and_adds_other_splits(loopback: dict[str, Any]):
    release = open_release(str(loopback["release"]))
    assert default_run_dir(release, "Qwen/Qwen2.5-7B") == Path("eval-runs/rulerv2/Qwen_Qwen2.5-7B")
    assert default_run_dir(release, "Qwen/Qwen2.5-7B", "test") == Path("eval-runs/rulerv2/Qwen_Qwen2.5-7B")
    assert default_run_dir(release, "Qwen/Qwen2.5-7B", "golden") == Path("eval-runs/rulerv2/Qwen_Qwen2.5-7B-golden")


def test_an_index_inside_a_longer_number_is_wrong_when_lenient():
    task = get_task("rulerv2/mdqa_basic", LENIENT)
    assert task.score(task.extract("12345678"), ["1234567"]) == 0.0
    assert task.score(task.extract("Document 1234567"), ["1234567"]) == 1.0


@pytest.mark.parametrize(("response", "official", "lenient"), [
    ("\\boxed{{{gold}}}", 1.0, 1.0),
    ("\\boxed{{\\text{{{gold}}}}}", 1.0, 1.0),
    ("\\boxed{{{other} or {gold}}}", 1.0, 0.0),  # official: the last standalone capital in the box; lenient: the first
    ("\\boxed{{{gold} or {other}}}", 0.0, 1.0),
    ("The answer is ({gold}).", 0.0, 1.0),  # official reads no "answer is": no box, no "The final answer is", no "Answer:"
    ("**Answer:** {gold_lower}", 1.0, 0.0),  # official's "Answer:" fallback ignores case
    ("Reasoning.\nThe final answer is ({gold})", 1.0, 1.0),
    ("The final answer is {gold}\nbut let me check", 0.0, 1.0),  # official: "$" without MULTILINE, last line only
    ("\\boxed {{{gold}}}", 0.0, 1.0),  # official's box must be written "\boxed{{" exactly
])
def test_multiple_choice_official_reader_is_nemo_skills_mcq(response: str, official: float, lenient: float):
    """NeMo-Skills ``nemo_skills/evaluation/evaluator/mcq.py`` (``eval_mcq``, config defaults: boxed first, relaxed,
    regex "The final answer is (.+)$", then the "Answer: X" fallback) with ``math_grader.extract_answer``/``search_boxed``:
    RULERv2 multi-key medium and hard are ``eval_type=multichoice`` (``nemo_skills/dataset/ruler2/prepare_init.py``)."""
    built = mk_case("mk_niah_hard")
    gold = built.row["answers"][0]
    response = response.format(gold=gold, gold_lower=gold.lower(), other=next(x for x in "ABCD" if x != gold))
    assert score("mk_niah_hard", response, built.row, OFFICIAL) == official
    assert score("mk_niah_hard", response, built.row) == lenient
