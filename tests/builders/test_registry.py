"""The Builder registry and the options derived from build specs: every registered builder's command
line, its reproducing command and its demo release agree with what the builder declares."""

from __future__ import annotations

import dataclasses
import json
from dataclasses import dataclass
from typing import Literal

import datasets
import pytest

from builders.cli import build, build_command
from builders.options import click_options, option, parse_floats, parse_ints, reproducing_command, spec_from_options, spec_options
from builders.registry import REGISTERED, all_builders, builder_named, registered
from needlework.errors import SpecError

BUILDERS = all_builders()
IDS = [b.id for b in BUILDERS]


def parsed_spec(builder, command: str):
    """The spec the generated click command builds from ``command``'s arguments (nothing is built)."""
    args = command.split()[3:]
    context = build_command(registered(builder.id)).make_context(builder.id, ["--out", "unused", *args])
    values = {k: v for k, v in context.params.items() if k not in ("out", "quiet")}
    return spec_from_options(builder.spec, values)


def test_registry_ids_are_the_generator_ids_and_distinct():
    from generators.embs.spec import BENCHMARK as EMBS
    from generators.haystackcraft.spec import BENCHMARK as HAYSTACKCRAFT
    from generators.needlebench.spec import BENCHMARK as NEEDLEBENCH
    from generators.rulerv2.spec import BENCHMARK as RULERV2
    from generators.sequential_niah.spec import BENCHMARK as SEQUENTIAL_NIAH
    from generators.world.spec import BENCHMARK as WORLD

    assert IDS == [RULERV2, NEEDLEBENCH, WORLD, HAYSTACKCRAFT, SEQUENTIAL_NIAH, EMBS]
    assert build.list_commands(None) == sorted([*IDS, "demo"])
    with pytest.raises(SpecError, match="builder must be one of 'rulerv2', 'needlebench', 'world', 'haystackcraft', 'sequential-niah', 'embs'"):
        builder_named("ruler")


def test_each_registered_spec_is_its_builders():
    """The command line reads options from the registry's spec without importing the builder: they must be one."""
    assert [(r.id, r.spec) for r in REGISTERED] == [(b.id, b.spec) for b in BUILDERS]
    assert [r.module for r in REGISTERED] == [b.build.__module__ for b in BUILDERS]


@pytest.mark.parametrize("builder", BUILDERS, ids=IDS)
def test_every_spec_field_is_an_option(builder):
    fields = [f.name for f in dataclasses.fields(builder.spec)]
    assert [o.field.name for o in spec_options(builder.spec)] == fields
    assert {"seed", "tokenizer"} <= set(fields)


@pytest.mark.parametrize("builder", BUILDERS, ids=IDS)
@pytest.mark.parametrize("which", ["default", "demo"])
def test_reproducing_command_rebuilds_the_same_spec(builder, which):
    spec = builder.spec() if which == "default" else builder.demo(7, "cl100k_base")
    command = reproducing_command(builder.id, spec)
    assert command.startswith(f"needlework build {builder.id} ")
    rebuilt = parsed_spec(builder, command)
    recorded = {o.field.name for o in spec_options(builder.spec) if o.option.record}
    assert {n: getattr(rebuilt, n) for n in recorded} == {n: getattr(spec, n) for n in recorded}


@pytest.mark.parametrize("builder", BUILDERS, ids=IDS)
def test_options_not_given_keep_the_spec_defaults(builder):
    assert parsed_spec(builder, f"needlework build {builder.id}") == builder.spec()


@pytest.mark.parametrize("builder", BUILDERS, ids=IDS)
def test_default_shown_in_help_parses_to_the_default(builder):
    for spec_option in spec_options(builder.spec):
        shown = spec_option.option.default_text
        if shown and spec_option.option.parse is not None:
            assert spec_option.parse(shown) == spec_option.default, spec_option.flag


@pytest.mark.parametrize("benchmark", IDS)
def test_demo_release_declares_the_builders_features(demo, benchmark):
    builder = builder_named(benchmark)
    release = demo.folder / benchmark
    manifest = json.loads((release / "manifest.json").read_text(encoding="utf-8"))
    assert manifest["benchmark"] == builder.id
    assert manifest["build"]["command"] == reproducing_command(builder.id, builder.demo(0, "qwen2.5"))
    for config in manifest["configs"]:
        loaded = datasets.load_dataset(str(release), config, split=next(iter(manifest["configs"][config]["splits"])))
        assert loaded.features.to_dict() == builder.features(config).to_dict(), config
    assert (release / "README.md").read_text(encoding="utf-8").count(builder.facts.pretty_name) >= 1


# --- The mechanism, on a spec of its own ---------------------------------------------------------


@dataclass(frozen=True)
class ToySpec:
    """A toy build."""

    sizes: tuple[int, ...] = option((1, 2), "Sizes.")
    depths: tuple[float, ...] = option((0.0, 50.0), "Depths.")
    mode: Literal["fast", "exact"] = option("exact", "Mode.")
    limit: int | None = option(None, "Limit.")
    files: tuple[str, ...] = option((), "Files.", multiple=True)
    pairs: dict[str, int] = option({"a": 1}, "Pairs.", parse=lambda t: dict((k, int(v)) for k, v in
                                                                          (p.split("=") for p in t.split(","))),
                                   show=lambda d: ",".join(f"{k}={v}" for k, v in sorted(d.items())))
    fast: bool = option(False, "A flag.")
    cache: str = option("", "Not recorded.", record=False)
    seed: int = option(0, "Seed.")

    def __post_init__(self) -> None:
        if not self.sizes:
            raise SpecError("sizes must not be empty")


def test_toy_spec_options_commands_and_round_trip():
    options = {o.opts[0]: o for o in click_options(ToySpec)}
    assert list(options) == ["--sizes", "--depths", "--mode", "--limit", "--files", "--pairs", "--fast", "--cache", "--seed"]
    assert options["--fast"].is_flag and options["--files"].multiple
    assert list(options["--mode"].type.choices) == ["fast", "exact"]
    assert "[default: 0,50]" in options["--depths"].help and "[default" not in options["--limit"].help
    spec = ToySpec(sizes=(3,), depths=(12.5,), mode="fast", limit=4, files=("a b.txt", "c"), pairs={"x": 2},
                   fast=True, cache="/tmp/x")
    command = reproducing_command("toy", spec)
    assert command == ("needlework build toy --sizes 3 --depths 12.5 --mode fast --limit 4 --files 'a b.txt' --files c "
                       "--pairs x=2 --fast --seed 0")
    assert reproducing_command("toy", ToySpec()) == "needlework build toy --sizes 1,2 --depths 0,50 --mode exact --pairs a=1 --seed 0"


def test_list_parsers_say_what_they_expected():
    assert parse_ints("4096, 8_192,") == (4096, 8192)
    assert parse_floats("0,12.5") == (0.0, 12.5)
    with pytest.raises(ValueError, match="expected comma-separated integers, got 'abc'"):
        parse_ints("abc")
    with pytest.raises(ValueError, match="expected comma-separated numbers"):
        parse_floats("0,x")


def test_an_explicitly_empty_list_reaches_the_spec():
    with pytest.raises(SpecError, match="sizes must not be empty"):
        spec_from_options(ToySpec, {"sizes": (), "files": ()})
    assert spec_from_options(ToySpec, {"sizes": None, "files": ()}) == ToySpec()
