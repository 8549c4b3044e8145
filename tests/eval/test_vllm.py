"""The vLLM backend: planning, prompt rendering and settings without vLLM; one real run where it exists."""

from __future__ import annotations

import asyncio
import hashlib
import os
import sys
from collections.abc import Iterable, Mapping, Sequence
from types import SimpleNamespace
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from needlework.backends.base import BackendError, Outcome, Request
from needlework.backends.token_ids import pack_ids, unpack_ids
from needlework.backends.vllm_backend import (
    MISSING_EXTRA,
    SAMPLING_KEYS,
    VllmBackend,
    chat_template_sha256,
    plan_chunks,
    render_prompt_ids,
    sampling_kwargs,
    window_from_config,
)

MODEL_VARIABLE = "NEEDLEWORK_VLLM_TEST_MODEL"
ROLE_IDS = {"system": 1, "user": 2, "assistant": 3}
END_OF_TURN = 4
GENERATION_PROMPT = 5


class FakeTokenizer:
    """A chat template over characters: role id, one id per character, end-of-turn id."""

    chat_template = "{% for m in messages %}<{{ m.role }}>{{ m.content }}<end>{% endfor %}"

    def __init__(self) -> None:
        self.calls: list[dict[str, Any]] = []

    def apply_chat_template(self, messages: list[dict[str, str]], **options: Any) -> list[int]:
        self.calls.append(options)
        assert options["tokenize"] is True and options["return_dict"] is False
        assert not (options["add_generation_prompt"] and options["continue_final_message"])
        ids: list[int] = []
        for position, message in enumerate(messages):
            ids += [ROLE_IDS[message["role"]], *(ord(char) for char in message["content"])]
            if not (options["continue_final_message"] and position == len(messages) - 1):
                ids.append(END_OF_TURN)
        return ids + [GENERATION_PROMPT] * options["add_generation_prompt"]


def expected_ids(messages: Sequence[Mapping[str, str]]) -> list[int]:
    """What FakeTokenizer renders, written out independently of it."""
    ids: list[int] = []
    for message in messages:
        ids += [ROLE_IDS[message["role"]], *map(ord, message["content"])]
        ids.append(END_OF_TURN)
    if messages[-1]["role"] == "assistant":
        return ids[:-1]
    return ids + [GENERATION_PROMPT]


class FakeEngine:
    """Mimics ``vllm.LLM``: built with engine arguments, ``generate`` returns RequestOutput-shaped objects."""

    instances: list[FakeEngine] = []

    def __init__(self, **kwargs: Any) -> None:
        self.kwargs = kwargs
        self.batches: list[tuple[list[list[int]], list[dict[str, Any]]]] = []
        FakeEngine.instances.append(self)

    def generate(self, prompts: list[dict[str, list[int]]], sampling_params: list[dict[str, Any]], *, use_tqdm: bool):
        assert len(prompts) == len(sampling_params) and use_tqdm is False
        self.batches.append(([prompt["prompt_token_ids"] for prompt in prompts], sampling_params))
        return [self._output(prompt["prompt_token_ids"]) for prompt in prompts]

    @staticmethod
    def _output(ids: list[int]) -> SimpleNamespace:
        # The "answer" echoes the prompt's characters, so a mis-keyed outcome is visible.
        text = "".join(chr(token) for token in ids if token >= 32)
        completion = SimpleNamespace(text=text, token_ids=[7] * (len(text) % 5 + 1), finish_reason="stop")
        return SimpleNamespace(prompt_token_ids=ids, outputs=[completion])


@pytest.fixture(autouse=True)
def _fresh_engines() -> None:
    FakeEngine.instances.clear()


def make_backend(**options: Any) -> VllmBackend:
    """A backend on the fakes; options override the constructor's arguments."""
    arguments: dict[str, Any] = {
        "max_model_len": 100,
        "chunk_size": 2,
        "engine_factory": FakeEngine,
        "sampling_params_factory": dict,
        "tokenizer_factory": lambda model: FakeTokenizer(),
    }
    return VllmBackend("fake/model", **(arguments | options))


def request(key: str, content: str, max_tokens: int = 10, **generation: Any) -> Request:
    messages = ({"role": "system", "content": "S"}, {"role": "user", "content": content})
    return Request(key=key, messages=messages, generation={"max_tokens": max_tokens, "temperature": 0, **generation})


def run(backend: VllmBackend, requests: Iterable[Request]) -> list[Outcome]:
    async def collect() -> list[Outcome]:
        return [outcome async for outcome in backend.stream(requests)]

    return asyncio.run(collect())


# --- packing and planning -------------------------------------------------------------------------


@given(st.lists(st.lists(st.integers(0, 2**32 - 1), max_size=6), max_size=8))
def test_packed_ids_round_trip_and_sort_like_the_id_lists(id_lists: list[list[int]]) -> None:
    assert [unpack_ids(pack_ids(ids)) for ids in id_lists] == id_lists
    assert sorted(id_lists) == [unpack_ids(packed) for packed in sorted(map(pack_ids, id_lists))]


def test_plan_puts_shared_prefixes_together_in_bounded_chunks() -> None:
    haystack_a, haystack_b = list(range(100, 140)), list(range(200, 240))
    prompts = [
        ("b1", pack_ids(haystack_b + [1]), 5),
        ("a2", pack_ids(haystack_a + [2]), 5),
        ("b2", pack_ids(haystack_b + [2]), 5),
        ("a1", pack_ids(haystack_a + [1]), 5),
        ("a3", pack_ids(haystack_a + [3]), 5),
    ]
    plan = plan_chunks(prompts, window=1000, chunk_size=2)
    assert plan.chunks == (("a1", "a2"), ("a3", "b1"), ("b2",))
    assert all(1 <= len(chunk) <= 2 for chunk in plan.chunks)
    assert plan.skipped == ()


def test_plan_sizes_the_engine_to_the_longest_fitting_prompt_plus_its_max_tokens() -> None:
    prompts = [
        ("short", pack_ids([1] * 10), 50),  # needs 60
        ("long", pack_ids([2] * 70), 20),  # needs 90
        ("too-long", pack_ids([3] * 95), 10),  # needs 105 > window
        ("exact", pack_ids([4] * 80), 20),  # needs 100 == window: fits
    ]
    plan = plan_chunks(prompts, window=100, chunk_size=8)
    assert plan.max_model_len == 100
    assert plan.skipped == ("too-long",)
    assert sorted(key for chunk in plan.chunks for key in chunk) == ["exact", "long", "short"]
    smaller = plan_chunks(prompts[:2], window=100, chunk_size=8)
    assert smaller.max_model_len == 90


def test_plan_with_nothing_that_fits_runs_nothing() -> None:
    plan = plan_chunks([("k", pack_ids([1] * 10), 10)], window=15, chunk_size=4)
    assert plan == type(plan)(max_model_len=0, chunks=(), skipped=("k",))
    with pytest.raises(ValueError, match="chunk_size"):
        plan_chunks([], window=10, chunk_size=0)


# --- rendering, settings, window ------------------------------------------------------------------


def test_render_adds_the_generation_prompt_after_a_user_turn() -> None:
    tokenizer = FakeTokenizer()
    messages = [{"role": "user", "content": "hi"}]
    assert render_prompt_ids(tokenizer, messages) == [2, ord("h"), ord("i"), END_OF_TURN, GENERATION_PROMPT]
    assert tokenizer.calls[-1]["add_generation_prompt"] is True
    assert tokenizer.calls[-1]["continue_final_message"] is False


def test_render_continues_an_assistant_prefill() -> None:
    tokenizer = FakeTokenizer()
    messages = [{"role": "user", "content": "q"}, {"role": "assistant", "content": "A:"}]
    assert render_prompt_ids(tokenizer, messages) == [2, ord("q"), END_OF_TURN, 3, ord("A"), ord(":")]
    assert tokenizer.calls[-1]["add_generation_prompt"] is False
    assert tokenizer.calls[-1]["continue_final_message"] is True


def test_render_unwraps_a_batch_encoding() -> None:
    tokenizer = SimpleNamespace(apply_chat_template=lambda messages, **options: {"input_ids": [9, 8, 7]})
    assert render_prompt_ids(tokenizer, [{"role": "user", "content": "x"}]) == [9, 8, 7]


def test_sampling_kwargs_passes_known_settings_and_names_unknown_ones() -> None:
    generation = {"temperature": 0, "max_tokens": 128, "top_p": 1.0, "seed": 0, "stop": ["\n"]}
    assert sampling_kwargs(generation) == generation
    with pytest.raises(BackendError, match="'max_completion_tokens'") as raised:
        sampling_kwargs({"max_tokens": 8, "max_completion_tokens": 8})
    assert "temperature" in str(raised.value)  # the valid settings are listed
    assert "n" not in SAMPLING_KEYS


@pytest.mark.parametrize("max_tokens", [None, 0, -3, 2.5, True])
def test_sampling_kwargs_needs_a_positive_max_tokens(max_tokens: Any) -> None:
    generation = {"temperature": 0} if max_tokens is None else {"max_tokens": max_tokens}
    with pytest.raises(BackendError, match="max_tokens"):
        sampling_kwargs(generation)


@pytest.mark.parametrize(
    ("config", "tokenizer_length", "window"),
    [
        (SimpleNamespace(max_position_embeddings=32768), None, 32768),
        (SimpleNamespace(max_position_embeddings=4096, seq_length=2048), None, 2048),
        (SimpleNamespace(max_position_embeddings=32768), 16384, 16384),
        (SimpleNamespace(max_position_embeddings=32768), int(1e30), 32768),
        (SimpleNamespace(max_position_embeddings=4096, rope_scaling={"type": "linear", "factor": 2.0}), None, 8192),
        (
            SimpleNamespace(
                max_position_embeddings=32768,
                rope_scaling={"rope_type": "yarn", "factor": 4.0, "original_max_position_embeddings": 32768},
            ),
            None,
            131072,
        ),
        (
            SimpleNamespace(max_position_embeddings=131072, rope_scaling={"rope_type": "llama3", "factor": 8.0}),
            None,
            131072,
        ),
        (SimpleNamespace(max_position_embeddings=8192, rope_parameters={"rope_type": "default"}), None, 8192),
    ],
)
def test_window_from_config_follows_vllm(config: Any, tokenizer_length: int | None, window: int) -> None:
    assert window_from_config(config, tokenizer_length) == window


def test_window_from_config_reads_the_text_config_and_refuses_a_config_without_a_length() -> None:
    multimodal = SimpleNamespace(get_text_config=lambda: SimpleNamespace(max_position_embeddings=1024))
    assert window_from_config(multimodal) == 1024
    with pytest.raises(BackendError, match="max_model_len"):
        window_from_config(SimpleNamespace(hidden_size=8))


def test_chat_template_hash_is_the_sha256_of_the_template_text() -> None:
    assert chat_template_sha256(FakeTokenizer()) == hashlib.sha256(FakeTokenizer.chat_template.encode()).hexdigest()
    assert chat_template_sha256(SimpleNamespace(chat_template=None)) is None


# --- the backend on a fake engine -----------------------------------------------------------------


def test_stream_feeds_the_engine_the_chat_template_ids_with_prefix_caching() -> None:
    prefill = Request(
        key="prefill",
        messages=({"role": "user", "content": "q?"}, {"role": "assistant", "content": "Answer:"}),
        generation={"max_tokens": 4},
    )
    requests = [request("plain", "hello"), prefill]
    outcomes = run(make_backend(chunk_size=8), requests)
    (engine,) = FakeEngine.instances
    assert engine.kwargs["model"] == "fake/model"
    assert engine.kwargs["enable_prefix_caching"] is True
    sent = {tuple(ids) for ids, _ in engine.batches for ids in ids}
    assert sent == {tuple(expected_ids(r.messages)) for r in requests}
    needed = [len(expected_ids(r.messages)) + r.generation["max_tokens"] for r in requests]
    assert engine.kwargs["max_model_len"] == max(needed)
    by_key = {outcome.key: outcome for outcome in outcomes}
    assert by_key["prefill"].usage.prompt_tokens == len(expected_ids(prefill.messages))


def test_stream_skips_prompts_that_do_not_fit_and_never_sends_them() -> None:
    requests = [
        request("fits", "x" * 20),
        request("too-long", "y" * 95),
        request("also-fits", "z" * 30, max_tokens=40),
    ]
    outcomes = run(make_backend(max_model_len=100), requests)
    (engine,) = FakeEngine.instances
    sent = [ids for batch, _ in engine.batches for ids in batch]
    assert all(ord("y") not in ids for ids in sent) and len(sent) == 2
    skipped = [outcome for outcome in outcomes if outcome.error is not None]
    assert [(o.key, o.error.kind, o.text) for o in skipped] == [("too-long", "skipped_window", None)]
    assert skipped[0].error.final and "100" in skipped[0].error.message
    assert skipped[0].usage.prompt_tokens == len(expected_ids(requests[1].messages))
    assert engine.kwargs["max_model_len"] == len(expected_ids(requests[2].messages)) + 40


def test_stream_yields_one_correctly_keyed_outcome_per_request() -> None:
    contents = {f"k{index:02d}": f"doc{index % 3}-question{index}" for index in range(7)}
    requests = [request(key, content, max_tokens=3 + index) for index, (key, content) in enumerate(contents.items())]
    outcomes = run(make_backend(chunk_size=3), requests)
    assert sorted(outcome.key for outcome in outcomes) == sorted(contents)
    for outcome in outcomes:
        assert outcome.error is None and outcome.attempts == 1
        assert outcome.text.endswith(contents[outcome.key])  # the fake echoes the prompt
        assert outcome.finish_reason == "stop"
        assert outcome.usage.completion_tokens == len(outcome.text) % 5 + 1
        assert outcome.usage.prompt_tokens == len(expected_ids(request(outcome.key, contents[outcome.key]).messages))
        assert outcome.latency_s >= 0
    (engine,) = FakeEngine.instances
    assert [len(batch) for batch, _ in engine.batches] == [3, 3, 1]
    # Each prompt ran with its own settings.
    request_for_ids = {tuple(expected_ids(r.messages)): r for r in requests}
    for batch, settings in engine.batches:
        for ids, setting in zip(batch, settings):
            assert setting == request_for_ids[tuple(ids)].generation


def test_stream_sends_shared_prefixes_in_the_same_chunk() -> None:
    haystacks = {"A": "alpha " * 5, "B": "beta " * 5}
    requests = [request(f"{name}{q}", haystacks[name] + f"q{q}") for q in range(2) for name in "BA"]
    run(make_backend(chunk_size=2), requests)
    (engine,) = FakeEngine.instances
    chunks = [{"".join(chr(t) for t in ids if t >= 32)[1:6] for ids in batch} for batch, _ in engine.batches]
    assert chunks == [{"alpha"}, {"beta "}]


def test_stream_yields_each_chunk_before_running_the_next() -> None:
    backend = make_backend(chunk_size=2)

    async def first_two() -> int:
        stream = backend.stream([request(f"k{i}", f"c{i}") for i in range(5)])
        seen = [await anext(stream), await anext(stream)]
        calls = len(FakeEngine.instances[0].batches)
        await stream.aclose()
        assert len(seen) == 2
        return calls

    assert asyncio.run(first_two()) == 1


def test_stream_reuses_its_engine_and_refuses_to_grow_it() -> None:
    backend = make_backend()
    run(backend, [request("a", "x" * 30)])
    run(backend, [request("b", "x" * 10)])
    assert len(FakeEngine.instances) == 1
    assert backend.describe()["max_model_len"] == FakeEngine.instances[0].kwargs["max_model_len"]
    with pytest.raises(BackendError, match="new vllm backend"):
        run(backend, [request("c", "x" * 60)])


def test_stream_rejects_bad_requests_before_making_an_engine() -> None:
    with pytest.raises(BackendError, match="'best_of'"):
        run(make_backend(), [request("a", "x"), request("b", "y", best_of=2)])
    with pytest.raises(BackendError, match="duplicate request key 'a'"):
        run(make_backend(), [request("a", "x"), request("a", "y")])
    assert FakeEngine.instances == []


def test_describe_records_the_chat_template_hash_and_lengths() -> None:
    description = make_backend(max_model_len=4096, chunk_size=16).describe()
    assert description["backend"] == "vllm"
    assert description["chat_template_sha256"] == chat_template_sha256(FakeTokenizer())
    assert (description["window"], description["chunk_size"], description["max_model_len"]) == (4096, 16, None)
    assert description["enable_prefix_caching"] is True


def test_window_comes_from_the_model_config_when_not_given() -> None:
    configs: list[str] = []

    def config_factory(model: str) -> SimpleNamespace:
        configs.append(model)
        return SimpleNamespace(max_position_embeddings=2048)

    assert make_backend(max_model_len=None, config_factory=config_factory).window == 2048
    assert configs == ["fake/model"]


# --- construction errors --------------------------------------------------------------------------


def test_missing_vllm_names_the_extra(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "vllm", None)
    with pytest.raises(BackendError) as raised:
        VllmBackend("any/model", max_model_len=100, tokenizer_factory=lambda model: FakeTokenizer())
    assert str(raised.value) == MISSING_EXTRA
    assert "needlework[vllm]" in MISSING_EXTRA


def test_missing_transformers_names_the_extra(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "transformers", None)
    with pytest.raises(BackendError, match=r"needlework\[vllm\]"):
        VllmBackend("any/model", max_model_len=100, engine_factory=FakeEngine, sampling_params_factory=dict)


def test_a_tokenizer_without_chat_template_is_refused() -> None:
    bare = SimpleNamespace(chat_template=None)
    with pytest.raises(BackendError, match="no chat template"):
        make_backend(tokenizer_factory=lambda model: bare)


@pytest.mark.parametrize(
    ("options", "match"),
    [
        ({"chunk_size": 0}, "chunk_size"),
        ({"max_model_len": 0}, "max_model_len"),
        ({"engine_kwargs": {"enable_prefix_caching": False}}, "enable_prefix_caching"),
    ],
)
def test_bad_constructor_arguments_are_refused(options: dict[str, Any], match: str) -> None:
    with pytest.raises(ValueError, match=match):
        make_backend(**options)


# --- the real engine ------------------------------------------------------------------------------


def test_real_vllm_engine_answers_and_skips_what_does_not_fit() -> None:
    pytest.importorskip("vllm")
    model = os.environ.get(MODEL_VARIABLE)
    if not model:
        pytest.skip(f"set {MODEL_VARIABLE} to a small chat model (e.g. Qwen/Qwen2.5-0.5B-Instruct) to run vLLM")
    backend = VllmBackend(model, max_model_len=1024, chunk_size=2, engine_kwargs={"enforce_eager": True})
    generation = {"temperature": 0, "max_tokens": 16, "seed": 0}
    requests = [
        Request("plain", ({"role": "user", "content": "What is the capital of France?"},), generation),
        Request(
            "prefill",
            ({"role": "user", "content": "Name a primary colour."}, {"role": "assistant", "content": "The colour is"}),
            generation,
        ),
        Request("huge", ({"role": "user", "content": "word " * 5000},), generation),
    ]
    try:
        outcomes = {outcome.key: outcome for outcome in run(backend, requests)}
    finally:
        asyncio.run(backend.aclose())
    assert set(outcomes) == {"plain", "prefill", "huge"}
    assert outcomes["huge"].error is not None and outcomes["huge"].error.kind == "skipped_window"
    for key in ("plain", "prefill"):
        assert outcomes[key].error is None and outcomes[key].text
        assert 0 < outcomes[key].usage.completion_tokens <= 16
    assert backend.describe()["chat_template_sha256"]
