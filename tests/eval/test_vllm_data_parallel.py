"""The vllm backend's data-parallel path (issue 26 item 2): N engine replicas through Ray Data's LLM processor.

The source of truth is Ray 2.60.0's batch processor (``python/ray/llm/_internal/batch/``):
``processor/vllm_engine_proc.py`` (``vLLMEngineProcessorConfig``, ``build_vllm_engine_processor``),
``processor/base.py`` (``Processor``: preprocess, stages, postprocess over a ``__data`` column;
``ProcessorConfig.get_concurrency``) and ``stages/vllm_engine_stage.py`` (the engine stage reads a row's
``tokenized_prompt`` and ``sampling_params`` and returns ``generated_text``, ``num_generated_tokens``,
``num_input_tokens`` and ``time_taken_llm``). Without a GPU, the Ray tests run the real pipeline on a
local ``ray.init`` with only the engine stage replaced by :class:`StandInStage`, a ``StatefulStage``
answering like :class:`FakeEngine` does for the single in-process engine, so both paths must give equal
outcomes. The GPU test compares real vLLM replicas with the real single engine under greedy decoding.
"""

from __future__ import annotations

import asyncio
import dataclasses
import json
import os
import sys
from collections.abc import Iterable, Iterator, Mapping, Sequence
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest
import ray
from click.testing import CliRunner
from ray.data.llm import Processor, vLLMEngineProcessorConfig
from ray.llm._internal.batch.stages.base import StatefulStage, StatefulStageUDF
from ray.llm._internal.batch.stages.common import maybe_convert_ndarray_to_list

from needlework.backends import backend_for, vllm_ray
from needlework.backends import vllm_backend as single
from needlework.backends.base import (
    BackendError,
    Outcome,
    PreflightError,
    Request,
    Usage,
)
from needlework.backends.token_ids import pack_ids
from needlework.backends.vllm_backend import VllmBackend
from needlework.backends.vllm_ray import (
    DataParallel,
    batch_size_for,
    finish_reason,
    outcome_from_row,
    output_row,
    processor_config_kwargs,
    prompt_rows,
    tokens_row,
)
from needlework.errors import SpecError
from tests.eval.test_vllm import FakeTokenizer, expected_ids
from tests.support.releases import eval_release  # noqa: F401 - a fixture

MODEL_VARIABLE = "NEEDLEWORK_VLLM_TEST_MODEL"
GPU_MODEL = "Qwen/Qwen2.5-0.5B-Instruct"
WINDOW = 100


def fake_completion(ids: Sequence[int], sampling: Mapping[str, Any]) -> tuple[str, int, str]:
    """The answer both fakes give: the prompt's characters and the sampling settings (so a prompt or a
    setting that reached the engine differently shows in the text), a token count that reaches
    ``max_tokens`` for some prompts, and vLLM's finish reason for that count."""
    text = "".join(chr(token) for token in ids if token >= 32) + "|" + json.dumps(dict(sampling), sort_keys=True)
    generated = min(int(sampling["max_tokens"]), len(ids) % 7 + 1)
    return text, generated, "length" if generated == sampling["max_tokens"] else "stop"


class FakeEngine:
    """``vllm.LLM`` for the single in-process engine, answering with :func:`fake_completion`."""

    def __init__(self, **kwargs: Any) -> None:
        self.kwargs = kwargs

    def generate(self, prompts: list[dict[str, list[int]]], sampling_params: list[dict[str, Any]], *, use_tqdm: bool):
        outputs = []
        for prompt, sampling in zip(prompts, sampling_params):
            text, generated, reason = fake_completion(prompt["prompt_token_ids"], sampling)
            completion = SimpleNamespace(text=text, token_ids=[7] * generated, finish_reason=reason)
            outputs.append(SimpleNamespace(outputs=[completion]))
        return outputs


class StandInUDF(StatefulStageUDF):
    """Stands in for ``vLLMEngineStageUDF``: takes the row fields it takes, returns the fields it returns.

    ``gate``: the row of this key waits (without blocking the actor's other batches) until the file
    ``gate_file`` exists. ``fail``: the row of this key waits until ``samples_file`` holds ``fail_after``
    records, then raises, as a dying engine does. A wait that lasts a minute raises ``never happened``.
    """

    def __init__(self, data_column: str, expected_input_keys: list[str], engine_kwargs: dict[str, Any],
                 gate: str = "", gate_file: str = "", fail: str = "", samples_file: str = "", fail_after: int = 0):
        super().__init__(data_column, expected_input_keys)
        self.engine_kwargs = engine_kwargs
        self.gate, self.gate_file = gate, gate_file
        self.fail, self.samples_file, self.fail_after = fail, samples_file, fail_after

    async def udf(self, batch: list[dict[str, Any]]):
        for row in batch:
            ids = maybe_convert_ndarray_to_list(row.pop("tokenized_prompt"))
            sampling = maybe_convert_ndarray_to_list(row.pop("sampling_params"))
            # An explicit raise, not ``assert``: pytest rewrites asserts into code that imports pytest on the actor.
            if len(ids) + sampling["max_tokens"] > self.engine_kwargs["max_model_len"]:
                raise AssertionError(f"{row['key']}: {len(ids)} prompt tokens + {sampling['max_tokens']} exceed "
                                     f"max_model_len {self.engine_kwargs['max_model_len']}")
            if row["key"] == self.gate:
                await _wait_for(lambda: Path(self.gate_file).exists(), "the gate file")
            if row["key"] == self.fail:
                await _wait_for(lambda: _lines(self.samples_file) >= self.fail_after, "records on disk")
                raise RuntimeError("stand-in engine died")
            text, generated, _ = fake_completion(ids, sampling)
            yield {self.IDX_IN_BATCH_COLUMN: row[self.IDX_IN_BATCH_COLUMN], "generated_text": text,
                   "num_generated_tokens": generated, "num_input_tokens": len(ids), "time_taken_llm": 0.25}


async def _wait_for(condition: Any, what: str) -> None:
    for _ in range(1200):  # a guard of one minute: a pipeline that does not stream fails the test, never hangs it
        if condition():
            return
        await asyncio.sleep(0.05)
    raise RuntimeError(f"{what} never happened")


def _lines(path: str) -> int:
    try:
        return Path(path).read_bytes().count(b"\n")
    except FileNotFoundError:
        return 0


class StandInStage(StatefulStage):
    """The engine stage's place in the processor, with the stand-in UDF."""

    fn: type[StatefulStageUDF] = StandInUDF

    def get_required_input_keys(self) -> dict[str, str]:
        return {"sampling_params": "as vLLMEngineStage", "tokenized_prompt": "the harness's token ids"}


class StandInFactory:
    """A processor factory building Ray's ``Processor`` as ``build_vllm_engine_processor`` does (an actor
    pool of ``config.get_concurrency()``, ``max_concurrency=max_concurrent_batches``), with the stand-in stage.
    Records each config it was given."""

    def __init__(self, **options: Any) -> None:
        self.options = options
        self.configs: list[Any] = []

    def __call__(self, config: Any, preprocess: Any, postprocess: Any) -> Any:
        self.configs.append(config)
        stage = StandInStage(
            fn_constructor_kwargs={"engine_kwargs": dict(config.engine_kwargs), **self.options},
            map_batches_kwargs={"zero_copy_batch": True, "num_cpus": 0.25,
                                "compute": ray.data.ActorPoolStrategy(**config.get_concurrency(autoscaling_enabled=True)),
                                "max_concurrency": config.max_concurrent_batches},
        )
        return Processor(config, [stage], preprocess=preprocess, postprocess=postprocess)


@pytest.fixture(scope="module")
def cluster(ray_cluster: str) -> Iterator[None]:
    """The suite's local Ray cluster (tests/conftest.py: 4 logical CPUs, so the preprocess, the two replicas and the
    postprocess run at once), with this module's classes and functions (the stand-in stage's UDF and what it
    calls) reaching the actors by value: an actor does not import this test module and everything it imports
    (Ray Data's ``ray.llm`` stage base is all the stand-in needs there)."""
    module = sys.modules[__name__]
    ray.cloudpickle.register_pickle_by_value(module)
    yield
    ray.cloudpickle.unregister_pickle_by_value(module)


def request(key: str, content: str, max_tokens: int = 10, **generation: Any) -> Request:
    messages = ({"role": "system", "content": "S"}, {"role": "user", "content": content})
    return Request(key, messages, {"max_tokens": max_tokens, "temperature": 0, "seed": 0, "stop": ["\n", "##"],
                                   **generation})


def single_backend(**options: Any) -> VllmBackend:
    arguments: dict[str, Any] = {"max_model_len": WINDOW, "chunk_size": 2, "engine_factory": FakeEngine,
                                 "sampling_params_factory": dict, "tokenizer_factory": lambda model: FakeTokenizer()}
    return VllmBackend("fake/model", **(arguments | options))


def parallel_backend(factory: StandInFactory | None = None, replicas: int = 2, **options: Any) -> VllmBackend:
    arguments: dict[str, Any] = {"max_model_len": WINDOW, "chunk_size": 2, "tokenizer_factory": lambda model: FakeTokenizer(),
                                 "data_parallel": DataParallel(replicas), "processor_factory": factory or StandInFactory(),
                                 "engine_kwargs": {"tensor_parallel_size": 1}}
    return VllmBackend("fake/model", **(arguments | options))


def run(backend: VllmBackend, requests: Iterable[Request], stop_after: int | None = None) -> list[Outcome]:
    async def collect() -> list[Outcome]:
        outcomes = []
        async for outcome in backend.stream(requests):
            outcomes.append(outcome)
            if stop_after is not None and len(outcomes) == stop_after:
                break
        return outcomes

    return asyncio.run(collect())


def without_latency(outcome: Outcome) -> Outcome:
    return dataclasses.replace(outcome, latency_s=0.0)


REQUESTS = [
    request("short", "hi"),
    request("prefix-b", "shared haystack text, question b"),
    request("too-long", "x" * 95),
    request("prefix-a", "shared haystack text, question a", max_tokens=3),
    request("other", "a different prompt altogether", max_tokens=4),
    request("cut", "tiny", max_tokens=1),
]


# --- pure: rows, outcomes, options ------------------------------------------------------------


def test_rows_carry_the_harness_ids_and_settings_and_the_preprocess_unpacks_them() -> None:
    """The engine stage's ``tokenized_prompt`` is exactly the chat-template ids the harness rendered."""
    messages = [{"role": "user", "content": "Where is the needle?"}]
    ids = expected_ids(messages)
    settings = {"max_tokens": 5, "temperature": 0, "stop": ["\n"]}
    rows = prompt_rows(["b", "a"], {"a": (pack_ids([9, 9]), settings), "b": (pack_ids(ids), settings)})
    assert [row["key"] for row in rows] == ["b", "a"]
    assert rows[0]["sampling_params"] == settings and rows[0]["sampling_params"] is not settings
    assert tokens_row(rows[0]) == {"tokenized_prompt": ids}
    assert tokens_row({"ids": bytearray(pack_ids([0, 2**32 - 1]))}) == {"tokenized_prompt": [0, 2**32 - 1]}


def test_rows_refuse_requests_naming_different_settings() -> None:
    """An Arrow struct column is the union of its rows' fields: a missing setting would reach vLLM as None."""
    prompts = {"a": (pack_ids([1]), {"max_tokens": 5}), "b": (pack_ids([2]), {"max_tokens": 5, "seed": 1})}
    with pytest.raises(BackendError, match="'b' names the generation settings"):
        prompt_rows(["a", "b"], prompts)


def test_output_row_keeps_the_key_and_the_engine_fields_only() -> None:
    engine_row = {"key": "k", "generated_text": "t", "num_generated_tokens": 2, "num_input_tokens": 3,
                  "time_taken_llm": 0.5, "prompt_token_ids": [1, 2, 3], "generated_tokens": [4, 5], "ids": b"x",
                  "metrics": {}, "batch_uuid": "u"}
    assert output_row(engine_row) == {"key": "k", "generated_text": "t", "num_generated_tokens": 2,
                                      "num_input_tokens": 3, "time_taken_llm": 0.5}


def test_outcome_from_row_has_the_single_engine_fields() -> None:
    """Text is vLLM's, prompt tokens the harness's count, completion tokens the engine's count."""
    row = {"key": "k", "generated_text": "Paris", "num_generated_tokens": 2, "num_input_tokens": 7, "time_taken_llm": 1.5}
    assert outcome_from_row(row, prompt_tokens=7, max_tokens=16) == Outcome(
        key="k", text="Paris", finish_reason="stop", usage=Usage(prompt_tokens=7, completion_tokens=2), latency_s=1.5)
    assert outcome_from_row({**row, "num_generated_tokens": 16}, 7, 16).finish_reason == "length"
    with pytest.raises(BackendError, match="received 7 prompt tokens, the harness rendered 8"):
        outcome_from_row(row, prompt_tokens=8, max_tokens=16)


@pytest.mark.parametrize(("generated", "max_tokens", "reason"), [(0, 4, "stop"), (3, 4, "stop"), (4, 4, "length"), (1, 1, "length")])
def test_finish_reason_is_length_only_when_max_tokens_were_used(generated: int, max_tokens: int, reason: str) -> None:
    assert finish_reason(generated, max_tokens) == reason


def test_a_replica_holds_at_most_chunk_size_requests() -> None:
    """``max_concurrent_batches`` batches of ``batch_size`` rows run on a replica at once (Ray's processor config)."""
    for chunk_size in (1, 2, 7, 8, 9, 256, 1000):
        size = batch_size_for(chunk_size)
        assert size >= 1 and (size - 1) * vllm_ray.MAX_CONCURRENT_BATCHES < chunk_size
        assert size * vllm_ray.MAX_CONCURRENT_BATCHES <= max(chunk_size, vllm_ray.MAX_CONCURRENT_BATCHES) + 7
    assert batch_size_for(256) == 32  # Ray's default batch size at the single engine's default chunk
    with pytest.raises(ValueError, match="chunk_size"):
        batch_size_for(0)


def test_processor_config_pins_the_replicas_and_switches_ray_tokenization_off() -> None:
    """Ray validates the config: exactly N actors (not an autoscaling 1..N pool), no chat template, no
    tokenization or detokenization in Ray, the harness's engine arguments passed through."""
    kwargs = processor_config_kwargs("org/model", {"max_model_len": 64, "enable_prefix_caching": True,
                                                   "tensor_parallel_size": 2}, replicas=3, batch_size=4)
    config = vLLMEngineProcessorConfig(**kwargs)
    assert config.get_concurrency(autoscaling_enabled=True) == {"min_size": 3, "max_size": 3}
    assert config.model_source == "org/model" and config.batch_size == 4
    assert config.engine_kwargs["max_model_len"] == 64 and config.engine_kwargs["tensor_parallel_size"] == 2
    assert config.engine_kwargs["enable_prefix_caching"] is True
    assert (config.chat_template_stage, config.tokenize_stage, config.detokenize_stage) == (False, False, False)
    assert config.should_continue_on_error is False


def test_describe_says_how_the_engines_ran() -> None:
    """results.json's provenance says one in-process engine, or the replicas, their GPUs and the Ray version."""
    assert single_backend().describe()["data_parallel"] is None
    backend = parallel_backend(engine_kwargs={"tensor_parallel_size": 2},
                               data_parallel=DataParallel(3, "ray://head:10001"), chunk_size=256)
    assert backend.describe()["data_parallel"] == {
        "replicas": 3, "tensor_parallel_size": 2, "gpus": 6, "via": "ray.data.llm vLLMEngineProcessorConfig",
        "ray_version": ray.__version__, "ray_address": "ray://head:10001", "batch_size": 32}
    assert backend.describe()["engine_kwargs"] == {"tensor_parallel_size": "2"}


def test_an_error_inside_the_pipeline_stops_the_run_naming_its_cause() -> None:
    """A failure while fetching rows becomes one BackendError line with the innermost cause (a Ray error
    carries it in its traceback text, after which Ray chains its own)."""

    def failing(error: Exception):
        raise error
        yield  # a generator, like the pipeline's

    ray_text = ("ray::MapWorker.submit()\n  File \"x.py\", line 5\n    raise RuntimeError('engine died')\n"
                "RuntimeError: engine died\n\nThe above exception was the direct cause of the following exception:\n\n"
                "ray.exceptions.UserCodeException: UDF failed to process a data block.")
    with pytest.raises(BackendError, match=r"^the data-parallel vLLM run failed: RuntimeError: engine died$"):
        single._next_row(failing(Exception(ray_text)))
    with pytest.raises(BackendError, match=r"^the data-parallel vLLM run failed: ValueError: inner$"):
        try:
            raise ValueError("inner\nmore")
        except ValueError as inner:
            outer = RuntimeError("outer")
            outer.__cause__ = inner
            single._next_row(failing(outer))
    assert single._next_row(iter([])) is None


def test_the_single_engine_path_imports_neither_ray_nor_vllm(tmp_path: Path) -> None:
    """Ray is imported only when data parallelism is asked for (and vLLM only when an engine is made)."""
    import subprocess

    code = ("import sys; import eval.cli, needlework.backends.vllm_backend; "
            "print(sorted(m for m in ('ray', 'vllm') if m in sys.modules))")
    found = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd=tmp_path)
    assert found.stdout.strip() == "[]"


def test_data_parallel_needs_a_replica() -> None:
    with pytest.raises(ValueError, match="at least 1 replica"):
        DataParallel(0)


def test_missing_ray_names_the_extra(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "ray.data.llm", None)
    with pytest.raises(BackendError) as caught:
        parallel_backend()
    assert str(caught.value) == vllm_ray.MISSING_EXTRA and "needlework[vllm]" in str(caught.value)


def test_missing_vllm_names_the_extra_on_the_data_parallel_path(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "vllm", None)
    with pytest.raises(BackendError, match=r"needlework\[vllm\]"):
        parallel_backend(processor_factory=None)


def test_backend_for_passes_the_options_and_refuses_them_elsewhere(monkeypatch: pytest.MonkeyPatch) -> None:
    made: list[tuple[str, dict[str, Any]]] = []
    monkeypatch.setattr(single, "VllmBackend", lambda model, **kwargs: made.append((model, kwargs)) or "backend")
    assert backend_for("vllm", "m", data_parallel_size=2, tensor_parallel_size=4, ray_address="auto") == "backend"
    assert made[0][1]["data_parallel"] == DataParallel(2, "auto")
    assert made[0][1]["engine_kwargs"] == {"tensor_parallel_size": 4}
    backend_for("vllm", "m")
    assert made[1][1]["data_parallel"] is None and made[1][1]["engine_kwargs"] is None
    with pytest.raises(SpecError, match="for --backend vllm"):
        backend_for("openai", "m", base_url="http://x/v1", data_parallel_size=2)
    with pytest.raises(SpecError, match="--ray-address needs --data-parallel-size"):
        backend_for("vllm", "m", ray_address="auto")


def test_cli_options_reach_the_backend(monkeypatch: pytest.MonkeyPatch) -> None:
    """``python -m eval run --data-parallel-size 2 --tensor-parallel-size 2 --ray-address auto`` reaches
    ``backend_for`` through the run spec."""
    from eval import cli, runner
    from eval import dynamic_run

    asked: dict[str, Any] = {}
    monkeypatch.setattr(runner, "backend_for", lambda name, model, **kwargs: asked.update(kwargs, name=name))

    def fake_run_any(spec: Any, progress: bool = True) -> None:
        runner.make_backend(spec)
        raise BackendError("stop here")

    monkeypatch.setattr(dynamic_run, "run_any", fake_run_any)
    result = CliRunner().invoke(cli.main, ["run", "--dataset", "d", "--config", "c", "--backend", "vllm", "--model", "m",
                                           "--data-parallel-size", "2", "--tensor-parallel-size", "2",
                                           "--ray-address", "auto"])
    assert "stop here" in result.output
    assert (asked["name"], asked["data_parallel_size"], asked["tensor_parallel_size"], asked["ray_address"]) == \
        ("vllm", 2, 2, "auto")


# --- the real Ray pipeline, engine stage replaced -----------------------------------------------


@pytest.fixture(scope="module")
def gated_run(cluster, tmp_path_factory) -> SimpleNamespace:
    """One pipeline run that two tests read: REQUESTS through 2 replicas, the first request in plan order held
    by the stand-in until an outcome of the pipeline has reached the caller (the skipped request's outcome, which
    the driver yields before the pipeline starts, does not open the gate)."""
    gate_file = tmp_path_factory.mktemp("gate") / "open"
    first = min((r for r in REQUESTS if r.key != "too-long"), key=lambda r: pack_ids(expected_ids(r.messages))).key
    factory = StandInFactory(gate=first, gate_file=str(gate_file))
    backend = parallel_backend(factory)

    async def collect() -> list[Outcome]:
        outcomes = []
        async for outcome in backend.stream(REQUESTS):
            outcomes.append(outcome)
            if outcome.error is None:
                gate_file.touch()
        return outcomes

    return SimpleNamespace(outcomes=asyncio.run(collect()), factory=factory, backend=backend, first=first)


def test_replicas_give_the_single_engine_outcomes_one_per_request(gated_run: SimpleNamespace) -> None:
    """Same ids, same settings (through Arrow and back), same skip rule, one outcome per request."""
    factory, parallel, outcomes = gated_run.factory, gated_run.backend, gated_run.outcomes
    expected = {o.key: without_latency(o) for o in run(single_backend(), REQUESTS)}
    assert sorted(o.key for o in outcomes) == sorted(r.key for r in REQUESTS)
    assert {o.key: without_latency(o) for o in outcomes} == expected
    assert expected["too-long"].error is not None and expected["too-long"].error.kind == "skipped_window"
    assert {o.finish_reason for o in expected.values() if o.error is None} == {"stop", "length"}
    assert all(o.latency_s == 0.25 for o in outcomes if o.error is None)
    (config,) = factory.configs
    assert config.get_concurrency() == {"min_size": 2, "max_size": 2}
    # The engine is sized like the single engine: longest fitting prompt + its max_tokens.
    assert config.engine_kwargs["max_model_len"] == parallel.engine_max_model_len == max(
        len(expected_ids(r.messages)) + r.generation["max_tokens"] for r in REQUESTS if r.key != "too-long")
    assert config.engine_kwargs["enable_prefix_caching"] is True


def test_outcomes_stream_while_a_request_is_still_running(gated_run: SimpleNamespace) -> None:
    """The first request in plan order is held until an outcome has reached the caller: a pipeline that
    collected the rows before yielding would never release it (the stand-in then fails the run).
    Ray Data keeps a task's batches in input order, so only outcomes of other tasks may pass it.
    (Read from :func:`gated_run`, whose ``chunk_size`` 2 makes batches of one row, as ``chunk_size`` 1 does.)"""
    keys = [o.key for o in gated_run.outcomes if o.error is None]
    assert keys[0] != gated_run.first and sorted(keys) == sorted(r.key for r in REQUESTS if r.key != "too-long")
    assert batch_size_for(gated_run.backend.chunk_size) == batch_size_for(1) == 1


@pytest.mark.usefixtures("cluster")
def test_a_stream_stopped_early_and_a_new_one_for_the_rest_answer_everything_once() -> None:
    """The runner resumes by asking again for what has no outcome; closing a stream mid-way stops its
    pipeline cleanly, and the next stream answers the rest as the single engine would. (One replica: two
    would show nothing more here, and each is a Ray worker process importing Ray Data, ~2.5 s of CPU.)"""
    requests = [request(f"r{i}", f"prompt {i}", max_tokens=3 + i % 3) for i in range(8)]
    expected = {o.key: without_latency(o) for o in run(single_backend(), requests)}
    backend = parallel_backend(replicas=1)
    first = run(backend, requests, stop_after=3)
    done = {o.key for o in first}
    rest = run(backend, [r for r in requests if r.key not in done])
    assert len(first) == 3 and not done & {o.key for o in rest}
    assert {o.key: without_latency(o) for o in first + rest} == expected


@pytest.mark.usefixtures("cluster")
def test_an_engine_failure_stops_the_run_and_a_rerun_resumes(tmp_path: Path, eval_release: Path) -> None:  # noqa: F811
    """Through the real runner: outcomes are flushed while the pipeline runs (the failing request waits
    until a record is on disk), an engine error stops the run with what finished kept, and the same
    command resumes with only the rest. results.json says how the run ran. (One replica, as in the test above:
    it runs up to eight batches at once, so the others finish while the failing one waits.)"""
    from eval.release import open_release
    from eval.runner import RunSpec, plan_samples
    from eval.runner import run as run_eval

    spec = RunSpec(dataset=str(eval_release), configs=("mk_niah_basic",), model="fake/model", backend="vllm",
                   output_dir=tmp_path / "run", limit=8, data_parallel_size=1)
    keys = sorted(e["key"] for e in plan_samples(spec, open_release(spec.dataset, spec.revision)))
    samples = tmp_path / "run" / "samples.jsonl"
    failing = parallel_backend(StandInFactory(fail=keys[0], samples_file=str(samples), fail_after=1), replicas=1,
                               max_model_len=10**6)
    with pytest.raises(BackendError, match="the data-parallel vLLM run failed: .*stand-in engine died$"):
        run_eval(spec, backend=failing, progress=False)
    kept = {json.loads(line)["key"] for line in samples.read_bytes().splitlines()}
    assert 1 <= len(kept) < len(keys) and keys[0] not in kept
    resumed = run_eval(spec, backend=parallel_backend(replicas=1, max_model_len=10**6), progress=False)
    assert (resumed.new_samples, resumed.skipped_done) == (len(keys) - len(kept), len(kept))
    records = [json.loads(line) for line in samples.read_bytes().splitlines()]
    assert sorted(r["key"] for r in records) == keys and all(r["error"] is None and r["text"] for r in records)
    results = json.loads((tmp_path / "run" / "results.json").read_text(encoding="utf-8"))
    assert results["provenance"]["data_parallel"] == {
        "replicas": 1, "tensor_parallel_size": 1, "gpus": 1, "via": "ray.data.llm vLLMEngineProcessorConfig",
        "ray_version": ray.__version__, "ray_address": None, "batch_size": 1}


@pytest.mark.usefixtures("cluster")
@pytest.mark.parametrize("tensor_parallel", [1, 2])
def test_rays_builder_makes_only_the_engine_stage_on_n_actors(tmp_path: Path, tensor_parallel: int) -> None:
    """Ray's own ``build_processor`` (vllm_engine_proc.py) given our config: no chat-template, tokenize or
    detokenize stage; one engine stage on a fixed pool of N actors, each with TP GPUs (one GPU: vLLM's
    ``uni`` executor on the actor's GPU; more: vLLM's Ray executor in a placement group); our engine
    arguments; the harness's ``tokenized_prompt`` accepted. (A local folder as the model: nothing is fetched.)"""
    from ray.data.llm import build_processor

    engine_kwargs = {"max_model_len": 64, "enable_prefix_caching": True, "tensor_parallel_size": tensor_parallel}
    config = vLLMEngineProcessorConfig(**processor_config_kwargs(str(tmp_path), engine_kwargs, 3, 4))
    processor = build_processor(config, preprocess=tokens_row, postprocess=output_row)
    assert processor.list_stage_names() == ["vLLMEngineStage"]
    stage = processor.get_stage_by_name("vLLMEngineStage")
    compute = stage.map_batches_kwargs["compute"]
    assert (compute.min_size, compute.max_size) == (3, 3)
    assert stage.map_batches_kwargs["max_concurrency"] == vllm_ray.MAX_CONCURRENT_BATCHES
    assert stage.fn_constructor_kwargs["engine_kwargs"].items() >= engine_kwargs.items()
    assert stage.fn_constructor_kwargs["should_continue_on_error"] is False
    if tensor_parallel == 1:
        assert stage.map_batches_kwargs["num_gpus"] == 1
        assert stage.fn_constructor_kwargs["engine_kwargs"]["distributed_executor_backend"] == "uni"
    else:
        assert stage.fn_constructor_kwargs["engine_kwargs"]["distributed_executor_backend"] == "ray"
    assert "tokenized_prompt" in stage.get_optional_input_keys() and "sampling_params" in stage.get_required_input_keys()


@pytest.mark.usefixtures("cluster")
def test_the_ray_processor_is_refused_on_a_cluster_without_the_gpus() -> None:
    """Ray Data would wait forever for GPUs the cluster does not have."""
    gpus = int(ray.cluster_resources().get("GPU", 0))
    replicas = gpus // 2 + 1
    config = vLLMEngineProcessorConfig(**processor_config_kwargs("org/model", {"tensor_parallel_size": 2}, replicas, 4))
    with pytest.raises(BackendError, match=rf"^{replicas} vLLM replicas x 2 GPUs need {2 * replicas} GPUs; "
                                           rf"the Ray cluster has {gpus}$"):
        vllm_ray.build_ray_processor(config, tokens_row, output_row)


def test_preflight_turns_an_unreachable_cluster_into_a_preflight_error(monkeypatch: pytest.MonkeyPatch) -> None:
    backend = parallel_backend(data_parallel=DataParallel(2, "127.0.0.1:1"))

    def refuse(address: str) -> None:
        raise BackendError(f"cannot join the Ray cluster at {address}: refused")

    monkeypatch.setattr(vllm_ray, "connect", refuse)
    with pytest.raises(PreflightError, match="cannot join the Ray cluster at 127.0.0.1:1"):
        asyncio.run(backend.preflight())


# --- real vLLM replicas on GPUs ------------------------------------------------------------------


def _gpus() -> int:
    try:
        import torch
    except ImportError:
        return 0
    return torch.cuda.device_count() if torch.cuda.is_available() else 0


def test_real_vllm_replicas_answer_as_the_single_engine_under_greedy_decoding() -> None:
    """Greedy decoding is deterministic, so the replicas' outcomes equal the in-process engine's
    (latency aside). Model: $NEEDLEWORK_VLLM_TEST_MODEL, default Qwen2.5-0.5B-Instruct."""
    # Both skips are decided here, not at import: counting GPUs imports torch (seconds of CPU), which
    # vllm imports anyway; without vllm the test skips before that.
    pytest.importorskip("vllm")
    if _gpus() == 0:
        pytest.skip("needs a CUDA GPU for vLLM replicas")
    model = os.environ.get(MODEL_VARIABLE, GPU_MODEL)
    replicas = min(2, _gpus())
    engine_kwargs = {"enforce_eager": True, "gpu_memory_utilization": 0.35}
    generation = {"temperature": 0, "max_tokens": 24, "seed": 0}
    requests = [
        Request("capital", ({"role": "user", "content": "What is the capital of France?"},), generation),
        Request("prefill", ({"role": "user", "content": "Name a primary colour."},
                            {"role": "assistant", "content": "The colour is"}), generation),
        Request("count", ({"role": "user", "content": "Count from one to twenty in words."},), generation),
        Request("huge", ({"role": "user", "content": "word " * 5000},), generation),
    ]
    one = VllmBackend(model, max_model_len=1024, chunk_size=2, engine_kwargs=engine_kwargs)
    try:
        expected = {o.key: without_latency(o) for o in run(one, requests)}
    finally:
        asyncio.run(one.aclose())
        del one
    started = not ray.is_initialized()
    if started:
        ray.init(include_dashboard=False)
    try:
        parallel = VllmBackend(model, max_model_len=1024, chunk_size=2, engine_kwargs=engine_kwargs,
                               data_parallel=DataParallel(replicas))
        outcomes = {o.key: without_latency(o) for o in run(parallel, requests)}
    finally:
        if started:
            ray.shutdown()
    assert outcomes == expected
    assert expected["huge"].error is not None and expected["huge"].error.kind == "skipped_window"
    assert parallel.describe()["data_parallel"]["replicas"] == replicas
