"""NeedleBench's ``paper`` preset: OpenCompass NeedleBench v2's grids, buffers, repeats, M-RT layout and budget rule.

Source of truth (open-compass/opencompass, read, not copied):

- ``opencompass/configs/datasets/needlebench_v2/needlebench_v2_{4k,8k,32k,128k}/needlebench_v2_single_*.py``:
  ``context_lengths``, ``depths_list`` 0..100 step 10, ``length_buffer`` (English 3,000 at 32K and 128K, 500 at
  4K and 8K; Chinese 200), ``num_repeats_per_file`` 10, tokenizer ``gpt-4``, fillers ``PaulGrahamEssays.jsonl``
  and ``zh_finance.jsonl``;
- ``needlebench_v2_multi_retrieval_*.py``: ``NeedleBenchParallelDataset`` with ``depths`` = the whole depth list
  and ``num_repeats_per_file`` 25; ``opencompass/datasets/needlebench_v2/parallel.py``: one needle per depth,
  the evaluator scores each keyword at its own depth (``scores_by_depth``);
- ``needlebench_v2_multi_reasoning_*.py``: 2 to 5 needles, 10 repeats;
- ``opencompass/datasets/needlebench_v2/origin.py``: ``context_length = length - length_buffer`` and the filler
  gets ``max(context_length - needle tokens, 0)`` tokens; the instructions come on top.
"""

from __future__ import annotations

import json

import pyarrow.parquet as pq
import pytest

from builders.needlebench import NeedleBenchBuild, build, expected_rows
from builders.specs.needlebench import PRESETS
from generators.needlebench.spec import (
    DEFAULT_LENGTHS,
    LENGTH_PRESETS,
    OFFICIAL_V2_BUFFER,
    OFFICIAL_V2_LENGTHS,
    SparseSpec,
    parse_lengths,
)
from needlework.errors import SpecError

DEPTHS = tuple(float(d) for d in range(0, 101, 10))


def read_rows(out, config: str) -> list[dict]:
    """A config's test rows, read from its Parquet files (not through the ``datasets`` cache, which keys
    on file names and sizes and can serve an earlier session's rows)."""
    return [row for path in sorted((out / config).glob("test-*.parquet")) for row in pq.read_table(path).to_pylist()]


@pytest.fixture
def shared_env(shared_data, monkeypatch):
    monkeypatch.setenv("NEEDLEWORK_SHARED_DATA", str(shared_data))
    return shared_data


def test_official_v2_length_grids():
    """``context_lengths`` of needlebench_v2_{4k,8k,32k,128k}/needlebench_v2_single_*.py, word for word."""
    assert OFFICIAL_V2_LENGTHS["4k"] == (1000, 2000, 3000, 4000)
    assert OFFICIAL_V2_LENGTHS["8k"] == (1000, 2000, 3000, 4000, 5000, 6000, 7000, 8000)
    assert OFFICIAL_V2_LENGTHS["32k"] == (1000, 4000, 8000, 12000, 16000, 20000, 24000, 28000, 32000)
    assert OFFICIAL_V2_LENGTHS["128k"] == (1000, 2000, 4000, 8000, 16000, 32000, 64000, 128000)
    assert parse_lengths("v2-128k") == OFFICIAL_V2_LENGTHS["128k"]
    # needlework's own 128k grid stays as it was, and is not OpenCompass's
    assert LENGTH_PRESETS["128k"] == tuple(16000 * i for i in range(1, 9)) != OFFICIAL_V2_LENGTHS["128k"]


def test_official_v2_length_buffers():
    """``length_buffer`` of the v2 configs: English 3,000 (32K, 128K) or 500 (4K, 8K), Chinese 200."""
    assert OFFICIAL_V2_BUFFER["32k"] == OFFICIAL_V2_BUFFER["128k"] == {"en": 3000, "zh": 200}
    assert OFFICIAL_V2_BUFFER["4k"] == OFFICIAL_V2_BUFFER["8k"] == {"en": 500, "zh": 200}


def test_no_preset_keeps_needleworks_defaults():
    spec = NeedleBenchBuild()
    assert spec.preset == "" and spec.preset_values() == {} and spec.preset_record() == {}
    assert spec.lengths == DEFAULT_LENGTHS and spec.buffer == {"en": 200, "zh": 200}
    assert spec.budget_rule == "prompt" and spec.mrt_layout == "spread" and spec.mrt_needles == 5
    assert spec.filler_en == spec.filler_zh == "world"


@pytest.mark.parametrize("preset,scale", [("paper", "32k"), ("paper-4k", "4k"), ("paper-8k", "8k"),
                                          ("paper-32k", "32k"), ("paper-128k", "128k")])
def test_paper_preset_values(shared_env, preset, scale):
    """Every v2 value of the scale, per the module docstring's files."""
    spec = NeedleBenchBuild(preset=preset)
    assert spec.lengths == OFFICIAL_V2_LENGTHS[scale]
    assert spec.depths == DEPTHS
    assert spec.buffer == OFFICIAL_V2_BUFFER[scale]
    assert spec.repeats == 10 and spec.mrt_repeats == 25 and spec.mrs_needles == (2, 3, 4, 5)
    assert spec.mrt_layout == "per-depth" and spec.mrt_needles == 11
    assert spec.budget_rule == "context" and spec.tokenizer == "cl100k_base"
    # atc_0shot_nocot_2_power_en.py: 2..512 needles, 10 repeats, atc.py's four question types
    assert spec.atc_style == "official" and spec.atc_needles == tuple(2**k for k in range(1, 10))
    # origin.py / parallel.py / multi.py prompts, multi.py's diff = 10
    assert spec.sparse_style == "official" and spec.mrs_layout == "diff" and spec.question_position == "end"
    assert spec.filler_en == str(shared_env / "paul_graham_essays")
    assert spec.filler_zh == str(shared_env / "zh_prose")
    by_task = {(s.task, s.lang): s for s in spec.specs() if isinstance(s, SparseSpec)}
    assert by_task["m-rt", "en"].repeats == 25 and by_task["m-rt", "en"].needle_counts == (11,)
    assert by_task["s-rt", "zh"].repeats == 10 and by_task["m-rs", "en"].repeats == 10
    # v2: 11 depths x lengths x 10 for S-RT; one row per length x 25 for M-RT
    assert expected_rows(by_task["s-rt", "en"]) == 11 * len(spec.lengths) * 10
    assert expected_rows(by_task["m-rt", "en"]) == len(spec.lengths) * 25


def test_explicit_options_override_the_preset(shared_env, tmp_path):
    spec = NeedleBenchBuild(preset="paper", lengths=(2000, 4000), buffer={"en": 100, "zh": 100}, filler_zh=str(tmp_path))
    assert spec.lengths == (2000, 4000) and spec.buffer == {"en": 100, "zh": 100} and spec.filler_zh == str(tmp_path)
    assert spec.mrt_layout == "per-depth"


def test_preset_without_shared_data_names_the_variable(monkeypatch):
    monkeypatch.delenv("NEEDLEWORK_SHARED_DATA", raising=False)
    with pytest.raises(SpecError, match="NEEDLEWORK_SHARED_DATA"):
        NeedleBenchBuild(preset="paper")
    NeedleBenchBuild(preset="paper", tasks=("atc",))  # no filler to read: fine


def test_unknown_preset_lists_the_valid_ones():
    with pytest.raises(SpecError, match="paper-128k"):
        NeedleBenchBuild(preset="ruler")
    assert PRESETS == ("", "paper", "paper-4k", "paper-8k", "paper-32k", "paper-128k")


def test_per_depth_layout_is_m_rt_with_one_needle_per_depth():
    with pytest.raises(SpecError, match="one needle per depth"):
        SparseSpec("m-rt", "en", depths=DEPTHS, needle_counts=(5,), layout="per-depth")
    with pytest.raises(SpecError, match="M-RT"):
        SparseSpec("s-rt", "en", layout="per-depth")
    SparseSpec("m-rt", "en", depths=DEPTHS, needle_counts=(11,), layout="per-depth")


def test_context_rule_allows_a_buffer_above_the_shortest_length():
    """OpenCompass's English 1K cells at buffer 3,000 keep only the needles (origin.py: ``max(..., 0)``)."""
    with pytest.raises(SpecError, match="buffer"):
        SparseSpec("s-rt", "en", lengths=(1000, 4000), buffer=3000)
    SparseSpec("s-rt", "en", lengths=(1000, 4000), buffer=3000, budget_rule="context")


@pytest.fixture(scope="module")
def paper_release(shared_data, tmp_path_factory):
    """A small paper-preset build: S-RT and M-RT at 1K and 8K, ATC at 2 and 4 needles, both languages, real filler."""
    env = pytest.MonkeyPatch()
    env.setenv("NEEDLEWORK_SHARED_DATA", str(shared_data))
    spec = NeedleBenchBuild(preset="paper", tasks=("s-rt", "m-rt", "atc"), lengths=(1000, 8000), repeats=1, mrt_repeats=2,
                            atc_needles=(2, 4))
    out = tmp_path_factory.mktemp("paper") / "release"
    build(spec, out, progress=False)
    env.undo()
    return spec, out


def test_manifest_records_every_preset_value(paper_release):
    out = paper_release[1]
    manifest = json.loads((out / "manifest.json").read_text(encoding="utf-8"))
    record = manifest["preset"]
    assert record["name"] == "paper" and record["scale"] == "32k"
    values = record["values"]
    assert values["lengths"] == [1000, 8000] and values["depths"] == list(DEPTHS)
    assert values["buffer"] == {"en": 3000, "zh": 200} and values["budget_rule"] == "context"
    assert values["mrt_layout"] == "per-depth" and values["mrt_needles"] == 11 and values["mrt_repeats"] == 2
    assert values["filler_en"].endswith("paul_graham_essays") and values["filler_zh"].endswith("zh_prose")
    assert "opencompass/datasets/needlebench_v2/parallel.py" in record["official_files"]
    assert record["departures"]
    assert values["atc_style"] == "official" and values["sparse_style"] == "official" and values["mrs_layout"] == "diff"
    assert "--preset paper" in manifest["build"]["command"]


def test_paper_atc_is_the_official_prompt(paper_release):
    """atc.py: the eldest-ancestor prompt opens with the Ancestral Trace Challenge paragraph and asks about the chain's end."""
    out = paper_release[1]
    rows = read_rows(out, "atc-en")
    assert len(rows) == 2 * 4 * 1
    first = rows[0]
    assert first["input"].startswith("Here is a test for multi-step reasoning ability called the Ancestral Trace Challenge.")
    assert first["query"].startswith("Given the scrambled family relationships described above, who is the eldest relative")


def test_m_rt_rows_hold_one_needle_at_every_depth(paper_release):
    """parallel.py: a row per length and repeat, needle i at ``depths[i]``, every keyword asked and scored at its depth."""
    out = paper_release[1]
    rows = read_rows(out, "m-rt-en")
    assert len(rows) == 2 * 2
    for row in rows:
        assert row["depth"] is None and row["needle_count"] == 11 and "/depth=all/" in row["id"]
        assert [n["requested_depth"] for n in row["needles"]] == list(DEPTHS)
        assert row["answers"] == [n["keyword"] for n in row["needles"]]
        offsets = [n["char_offset"] for n in row["needles"]]
        assert offsets == sorted(offsets)
        for needle in row["needles"]:
            assert row["input"][needle["char_offset"]:].startswith(needle["text"])
            assert needle["keyword"] in needle["text"]


DOCUMENT = {"en": "<Document>\n", "zh": "<文档>\n"}
ASK = {"en": "\n</Document>\n\n", "zh": "\n</文档>\n\n"}


def test_context_budget_rule(paper_release, cl100k):
    """origin.py: filler + needle within max(length - buffer, needle) tokens, instructions on top; English 1K
    (buffer 3,000) holds the needle only."""
    out = paper_release[1]
    for lang, buffer in (("en", 3000), ("zh", 200)):
        rows = read_rows(out, f"s-rt-{lang}")
        assert len(rows) == 2 * 11
        for row in rows:
            assert row["length_buffer"] == buffer
            start = row["input"].index(DOCUMENT[lang]) + len(DOCUMENT[lang])
            context = row["input"][start:row["input"].rindex(ASK[lang])]
            needle = row["needles"][0]["text"]
            budget = max(row["target_tokens"] - buffer, cl100k.count(needle))
            measured = cl100k.count(context)
            assert measured <= budget + 2, row["id"]
            if lang == "en" and row["target_tokens"] == 1000:
                assert context == f"\n{needle}\n", row["id"]
            else:
                assert measured >= budget - 200, row["id"]  # whole sentences: at most one short


def test_cli_preset_paper(shared_env, tmp_path):
    """``needlework build needlebench --preset paper``: the command line takes the preset and the manifest records it."""
    from click.testing import CliRunner

    from builders.cli import main

    out = tmp_path / "release"
    args = ["build", "needlebench", "--preset", "paper", "--tasks", "s-rt,m-rt", "--langs", "en", "--lengths", "1000,2000",
            "--repeats", "1", "--mrt-repeats", "1", "--out", str(out), "--quiet"]
    result = CliRunner().invoke(main, args)
    assert result.exit_code == 0, result.output
    manifest = json.loads((out / "manifest.json").read_text(encoding="utf-8"))
    assert manifest["preset"]["values"]["buffer"] == {"en": 3000, "zh": 200}
    assert manifest["preset"]["values"]["mrt_layout"] == "per-depth"
    assert manifest["configs"]["m-rt-en"]["splits"]["test"]["rows"] == 2
    assert manifest["configs"]["s-rt-en"]["splits"]["test"]["rows"] == 2 * 11


def test_each_multi_needle_task_offers_only_its_own_layouts():
    """``--mrt-layout`` and ``--mrs-layout`` both offered spread, per-depth and diff, while per-depth is parallel.py's
    (M-RT) and diff multi.py's (M-RS): the other task's layout is refused in one line, from Python as from the CLI."""
    from click.testing import CliRunner

    from builders.cli import main
    from builders.specs.needlebench import NeedleBenchBuild
    from needlework.errors import SpecError

    for field, wrong in (("mrt_layout", "diff"), ("mrs_layout", "per-depth")):
        with pytest.raises(SpecError, match=field):
            NeedleBenchBuild(**{field: wrong})
        result = CliRunner().invoke(main, ["build", "needlebench", "--out", "unused", f"--{field.replace('_', '-')}", wrong])
        assert result.exit_code == 2 and result.output.count("\n") == 1 and "is not one of" in result.output, result.output
    assert NeedleBenchBuild(mrs_layout="diff").mrs_layout == "diff"
