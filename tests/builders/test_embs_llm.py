"""EMB-S LLM stages for real sources: strict parsing, the cache, batching, and the HTTP path."""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Sequence
from pathlib import Path

import pytest

from builders.embs_llm import (
    AtomizeCase,
    Atomized,
    LlmCache,
    LlmStageError,
    LlmStages,
    LlmStats,
    Rewrite,
    VerifyCase,
    atomization_ok,
    backend_completer,
    open_llm,
    parse_atomize,
    parse_domain,
    parse_label,
    parse_rewrite,
    prompt_sha256,
)
from generators.embs.llm_prompts import (
    DOMAIN_TEMPLATE,
    REFERENCE_TEMPLATE,
    VERIFY_TEMPLATE,
)
from needlework.backends.base import PreflightError
from needlework.backends.openai_compat import OpenAIBackend, RetryPolicy
from needlework.errors import InputError, SpecError
from tests.support.openai_stub import Script, StubServer, prompt_digest
from tests.support.ports import closed_port

MODEL = "stub-model"
REFDOC = ("Mara Vell was born in Oskar in 1931. She studied medicine at Lund. "
          "In 1960 she founded the Vell Clinic in Tarsa. The clinic closed in 1999.")
PIECES = ["Mara Vell was born in Oskar in 1931. She studied medicine at Lund.",
          "In 1960 she founded the Vell Clinic in Tarsa. The clinic closed in 1999."]


# --- parsing ---------------------------------------------------------------------------------------------


@pytest.mark.parametrize("response, expected", [
    ("medical", "medical"), (" Law\n", "law"), ("`finance`.", "finance"), ('"math"', "math"),
    ("<think>history or law?</think>\nhistory", "history"),
    ("", None), ("medicine", None), ("medical, law", None), ("The domain is law.", None), ("maths", None),
])
def test_parse_domain(response, expected):
    assert parse_domain(response) == expected


@pytest.mark.parametrize("response, expected", [
    ("conflict", "conflict"), ("Hard Negative", "hard_negative"), ("hard-negative.", "hard_negative"),
    ("false_negative\n", "false_negative"), ("**FALSE_NEGATIVE**", "false_negative"),
    ("negative", None), ("conflict: it says 1990", None), ("hard_negative or conflict", None), ("", None),
])
def test_parse_label(response, expected):
    assert parse_label(response) == expected


@pytest.mark.parametrize("response, expected", [
    ('{"usable": true, "query": " Where? ", "answer": "Tarsa"}', Rewrite(True, "Where?", "Tarsa")),
    ('```json\n{"usable": true, "query": "Q", "answer": "A"}\n```', Rewrite(True, "Q", "A")),
    ('{"usable": false, "query": "", "answer": ""}', Rewrite(False, "", "")),
    ('Sure! {"usable": true, "query": "Q", "answer": "A"}', None),
    ('{"usable": "yes", "query": "Q", "answer": "A"}', None),
    ('{"usable": true, "query": "", "answer": "A"}', None),
    ('{"usable": true, "query": "Q"}', None),
    ('{"usable": true, "query": "Q", "answer": "A", "why": "x"}', None),
    ('{"usable": false, "query": null, "answer": ""}', None),
    ('[true, "Q", "A"]', None), ('{"usable": true, "query": "Q", "answer": "A"', None),
])
def test_parse_rewrite(response, expected):
    assert parse_rewrite(response) == expected


@pytest.mark.parametrize("response, expected", [
    (json.dumps({"pieces": [" a ", "b"], "query": "Q", "answer": "A"}), Atomized(["a", "b"], "Q", "A")),
    (json.dumps({"pieces": ["a", "b", "c", "d"], "query": "Q", "answer": "A"}), Atomized(["a", "b", "c", "d"], "Q", "A")),
    (json.dumps({"pieces": ["a"], "query": "Q", "answer": "A"}), None),
    (json.dumps({"pieces": ["a", "b", "c", "d", "e"], "query": "Q", "answer": "A"}), None),
    (json.dumps({"pieces": ["a", " "], "query": "Q", "answer": "A"}), None),
    (json.dumps({"pieces": ["a", 2], "query": "Q", "answer": "A"}), None),
    (json.dumps({"pieces": "a b", "query": "Q", "answer": "A"}), None),
    (json.dumps({"pieces": ["a", "b"], "query": "Q", "answer": ""}), None),
    (json.dumps({"pieces": ["a", "b"], "query": "Q"}), None),
    ("pieces: a | b", None),
])
def test_parse_atomize(response, expected):
    assert parse_atomize(response) == expected


def test_atomization_must_split_the_refdoc_without_losing_it():
    assert atomization_ok(REFDOC, PIECES)
    assert not atomization_ok(REFDOC, [REFDOC, "The clinic closed in 1999."])  # one piece is the whole doc
    assert not atomization_ok(REFDOC, ["Mara Vell was born in 1931.", "She founded a clinic."])  # a summary
    assert atomization_ok("马拉生于奥斯卡。她在塔尔萨创办了诊所。", ["马拉生于奥斯卡。", "她在塔尔萨创办了诊所。"])
    assert not atomization_ok("", ["a", "b"])


# --- the cache -------------------------------------------------------------------------------------------


class CountingComplete:
    """A fake ``complete`` answering ``answer(prompt)`` and recording every batch it was sent."""

    def __init__(self, answer=lambda prompt: "medical") -> None:
        self.answer, self.batches = answer, []

    def __call__(self, prompts: Sequence[str]) -> list[str | None]:
        self.batches.append(list(prompts))
        return [self.answer(prompt) for prompt in prompts]


def test_a_cached_prompt_is_never_sent_again_in_this_build_or_the_next(tmp_path):
    complete = CountingComplete()
    stages = LlmStages(complete, MODEL, LlmCache(tmp_path / "llm.jsonl"))
    assert stages.classify_domains(["doc a", "doc a"]) == ["medical", "medical"]
    assert stages.classify_domains(["doc a"]) == ["medical"]
    assert len(complete.batches) == 1 and len(complete.batches[0]) == 1
    assert stages.stats == LlmStats(sent=1, cache_hits=1)
    again = LlmStages(complete, MODEL, LlmCache(tmp_path / "llm.jsonl"))
    assert again.classify_domains(["doc a", "doc b"]) == ["medical", "medical"]
    assert complete.batches[1] == [DOMAIN_TEMPLATE.format(document="doc b")]
    other_model = LlmStages(complete, "other-model", LlmCache(tmp_path / "llm.jsonl"))
    other_model.classify_domains(["doc a"])
    assert len(complete.batches) == 3


def test_failures_are_not_cached_and_unparseable_answers_are_counted(tmp_path):
    complete = CountingComplete(lambda prompt: None if "doc a" in prompt else "I think it is law")
    stages = LlmStages(complete, MODEL, LlmCache(tmp_path / "llm.jsonl"))
    assert stages.classify_domains(["doc a", "doc b"]) == [None, None]
    assert stages.classify_domains(["doc a", "doc b"]) == [None, None]
    assert complete.batches[1] == [DOMAIN_TEMPLATE.format(document="doc a")]
    assert stages.stats == LlmStats(sent=3, cache_hits=1, failed=2, unparseable=2)


def test_the_cache_ignores_a_half_written_last_line_and_keeps_appending(tmp_path):
    path = tmp_path / "llm.jsonl"
    LlmCache(path).put_many(MODEL, [("p1", "r1"), ("p2", "r2")])
    whole = path.read_bytes()
    path.write_bytes(whole + b'{"model": "stub-model", "prompt_sha256": "ab')  # killed mid-write
    cache = LlmCache(path)
    assert len(cache) == 2 and cache.get(MODEL, "p2") == "r2" and cache.get(MODEL, "p3") is None
    assert path.read_bytes() == whole
    cache.put_many(MODEL, [("p3", "r3")])
    reopened = LlmCache(path)
    assert (len(reopened), reopened.get(MODEL, "p3")) == (3, "r3")
    record = json.loads(path.read_text().splitlines()[-1])
    assert record == {"model": MODEL, "prompt_sha256": prompt_sha256("p3"), "response": "r3"}


def test_a_damaged_line_inside_the_cache_is_an_error_naming_it(tmp_path):
    path = tmp_path / "llm.jsonl"
    LlmCache(path).put_many(MODEL, [("p1", "r1")])
    path.write_text("not json\n" + path.read_text())
    with pytest.raises(InputError, match="line 1"):
        LlmCache(path)


# --- the stages end to end -------------------------------------------------------------------------------


VERDICTS = {"it contradicts": "conflict", "some extra": "false_negative", "noise": "well, hard", "similar": "hard_negative"}


def fake_model(prompt: str) -> str:
    """Answers by stage, as a well-behaved model would, with a few scripted oddities."""
    if prompt.startswith("Classify the document"):
        return "law" if "The court ruled." in prompt else "Technology."
    if "Second document:" in prompt:
        if "unrelated" in prompt:
            return '{"usable": false, "query": "", "answer": ""}'
        if "same query" in prompt:
            return '{"usable": true, "query": "Where was Mara Vell born?", "answer": "Oskar"}'
        return '{"usable": true, "query": "Which city hosts the clinic founded by the Oskar-born doctor?", "answer": "Tarsa"}'
    if prompt.startswith("You build multi-document") and "Split the reference" in prompt:
        pieces = PIECES if "Mara" in prompt else ["short summary", "of nothing"]
        return json.dumps({"pieces": pieces, "query": "Where did the Oskar-born doctor found a clinic?", "answer": "Tarsa"})
    if "Candidate document" in prompt:
        candidate = prompt.split("<<<\n")[-1].split("\n>>>")[0]
        return VERDICTS[candidate]
    raise AssertionError(f"unexpected prompt {prompt[:60]!r}")


def test_the_stages_end_to_end(tmp_path):
    complete = CountingComplete(fake_model)
    stages = LlmStages(complete, MODEL, LlmCache(tmp_path / "llm.jsonl"))
    assert stages.classify_domains(["The court ruled.", "A new chip."]) == ["law", "technology"]
    assert stages.rewrite("Where was Mara Vell born?", "Oskar", REFDOC, "Tarsa hosts clinics.") == (
        "Which city hosts the clinic founded by the Oskar-born doctor?", "Tarsa")
    assert stages.rewrite("Where was Mara Vell born?", "Oskar", REFDOC, "an unrelated page") is None
    assert stages.rewrite("Where was  mara vell born?", "Oskar", REFDOC, "same query") is None  # unchanged: rejected
    assert stages.atomize("Where was Mara Vell born?", "Oskar", REFDOC) == (
        PIECES, "Where did the Oskar-born doctor found a clinic?", "Tarsa")
    assert stages.atomize("Q", "A", "A long document that the pieces do not keep.") is None  # coverage: rejected
    verdicts = stages.verify("Q", "A", [REFDOC, "second ref"], ["it contradicts", "some extra", "noise", "similar"])
    assert verdicts == ["conflict", "false_negative", None, "hard_negative"]
    assert stages.stats == LlmStats(sent=11, cache_hits=0, failed=0, unparseable=1, rejected=2)
    assert [len(batch) for batch in complete.batches] == [2, 1, 1, 1, 1, 1, 4]


def test_verify_renders_every_reference_and_batches_every_candidate_in_one_call(tmp_path):
    complete = CountingComplete(lambda prompt: "hard_negative")
    stages = LlmStages(complete, MODEL, LlmCache(tmp_path / "llm.jsonl"))
    cases = [VerifyCase("Q1", "A1", ["r1", "r2"], ["c1", "c2"]), VerifyCase("Q2", "A2", ["r3"], ["c3"])]
    assert stages.verify_many(cases) == [["hard_negative", "hard_negative"], ["hard_negative"]]
    (batch,) = complete.batches
    references = REFERENCE_TEMPLATE.format(number=1, text="r1") + "\n\n" + REFERENCE_TEMPLATE.format(number=2, text="r2")
    assert batch[0] == VERIFY_TEMPLATE.format(query="Q1", answer="A1", references=references, candidate="c1")
    assert len(batch) == 3 and "[Reference 1]\n<<<\nr3\n>>>" in batch[2]
    assert stages.atomize_many([]) == [] and len(complete.batches) == 1


def test_a_completer_that_drops_answers_is_an_error(tmp_path):
    stages = LlmStages(lambda prompts: ["medical"], MODEL, LlmCache(tmp_path / "llm.jsonl"))
    with pytest.raises(LlmStageError, match="1 responses for 2 prompts"):
        stages.atomize_many([AtomizeCase("Q", "A", "d1"), AtomizeCase("Q", "A", "d2")])


# --- through an eval backend over HTTP -------------------------------------------------------------------


class KeyRecorder:
    """An eval backend wrapper that records the order in which outcomes arrive."""

    def __init__(self, backend: OpenAIBackend) -> None:
        self.backend, self.model, self.name, self.keys = backend, backend.model, backend.name, []

    def describe(self):
        return self.backend.describe()

    async def preflight(self, wait_s: float = 0.0) -> None:
        await self.backend.preflight(wait_s)

    async def stream(self, requests):
        async for outcome in self.backend.stream(requests):
            self.keys.append(outcome.key)
            yield outcome

    async def aclose(self) -> None:
        await self.backend.aclose()


def stub_for(prompts: Sequence[str], replies: Sequence[str], **script) -> Script:
    answers = {prompt_digest([{"role": "user", "content": p}]): (f"row{i}", [r]) for i, (p, r) in enumerate(zip(prompts, replies))}
    return Script(answers=answers, **script)


def test_backend_completer_returns_answers_in_request_order_over_http(tmp_path):
    prompts = [f"prompt {i}" for i in range(4)]
    script = stub_for(prompts, [f"reply {i}" for i in range(4)], faults={"row0": ["hang"], "row2": ["context"]},
                      hang_s=0.5, keep_payloads=True, models=(MODEL,))
    server = StubServer(script).start()
    try:
        backend = KeyRecorder(OpenAIBackend(MODEL, server.base_url, concurrency=4, retry=RetryPolicy(max_retries=0)))
        complete = backend_completer(backend, model=MODEL, max_tokens=64)
        assert complete(prompts) == ["reply 0", "reply 1", None, "reply 3"]  # row2: a context-length 400
        assert backend.keys[-1] == "0"  # the hanging first request finished last
        assert complete(prompts[1:2]) == ["reply 1"]  # a second call, on a fresh event loop
        assert complete([]) == []
        payload = script.payloads[0]
        assert (payload["max_tokens"], payload["temperature"], payload["model"]) == (64, 0.0, MODEL)
        assert payload["messages"] == [{"role": "user", "content": payload["messages"][0]["content"]}]
        texts = ["The court ruled on the contract."]
        prompt = DOMAIN_TEMPLATE.format(document=texts[0])
        script.answers[prompt_digest([{"role": "user", "content": prompt}])] = ("domain", ["law"])
        stages = open_llm(server.base_url, MODEL, cache_path=tmp_path / "llm.jsonl")
        assert stages.classify_domains(texts) == ["law"] and stages.stats.sent == 1
    finally:
        server.stop()



def test_a_closed_port_fails_at_once_with_the_preflight_error(tmp_path):
    with pytest.raises(PreflightError) as caught:
        open_llm(f"http://127.0.0.1:{closed_port()}/v1", MODEL, cache_path=tmp_path / "llm.jsonl")
    message = str(caught.value)
    assert "\n" not in message and message.startswith("cannot reach http://127.0.0.1:")
    assert "connection refused" in message and not (tmp_path / "llm.jsonl").exists()


def test_the_backend_must_serve_the_model_the_cache_keys_by():
    backend = OpenAIBackend("another-model", "http://127.0.0.1:9/v1")
    with pytest.raises(SpecError, match="'another-model', not 'stub-model'"):
        backend_completer(backend, model=MODEL, max_tokens=8)


def test_open_llm_needs_a_base_url_for_openai(tmp_path):
    with pytest.raises(SpecError, match="--base-url"):
        open_llm(None, MODEL, cache_path=tmp_path / "llm.jsonl")


def test_importing_the_module_does_not_import_eval():
    code = "import sys, builders.embs_llm; print(sorted(m for m in sys.modules if m == 'eval' or m.startswith('eval.')))"
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True,
                            cwd=Path(__file__).resolve().parents[2])
    assert result.stdout.strip() == "[]"
