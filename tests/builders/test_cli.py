"""The ``needlework`` command, run in-process with click's CliRunner."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner

import needlework
from builders.cli import main

SHARD = "test-00000-of-00001.parquet"


def run(*args: str):
    return CliRunner().invoke(main, list(args))


def error_lines(result) -> list[str]:
    """The lines a failed command showed (stderr is part of ``output`` in click >= 8.2)."""
    return result.output.splitlines()


def assert_one_error_line(result, *needles: str) -> str:
    assert result.exit_code == 2, result.output
    lines = error_lines(result)
    assert len(lines) == 1, lines
    assert lines[0].startswith("error: ")
    for needle in needles:
        assert needle in lines[0]
    assert "Traceback" not in result.output
    return lines[0]


def test_build_demo_names_every_release(demo):
    assert demo.output == "".join(f"{name}: {demo.folder / name}\n"
                                  for name in ("rulerv2", "needlebench", "world", "haystackcraft", "sequential-niah", "embs"))


@pytest.fixture
def release_copy(demo, tmp_path) -> Path:
    copy = tmp_path / "rulerv2"
    shutil.copytree(demo.folder / "rulerv2", copy)
    return copy


@pytest.mark.parametrize("benchmark", ["rulerv2", "needlebench", "world", "haystackcraft", "sequential-niah", "embs"])
def test_build_demo_then_validate(demo, benchmark):
    release = demo.folder / benchmark
    assert sorted(p.name for p in demo.folder.iterdir()) == ["embs", "haystackcraft", "needlebench", "rulerv2", "sequential-niah",
                                                             "world"]  # no hidden leftovers
    result = run("validate", str(release))
    assert result.exit_code == 0, result.output
    assert result.output == f"{release}: valid\n"


def test_build_needlebench_cli_writes_what_it_reports(tmp_path):
    out = tmp_path / "nb"
    result = run("build", "needlebench", "--out", str(out), "--tasks", "s-rt,atc", "--langs", "zh", "--lengths", "1000,2000",
                 "--depths", "0,100", "--repeats", "2", "--needles", "2,4", "--buffer", "zh=100", "--quiet")
    assert result.exit_code == 0, result.output
    assert result.output == f"wrote {out} (24 rows in 2 configs)\n"
    manifest = json.loads((out / "manifest.json").read_text(encoding="utf-8"))
    assert sorted(manifest["configs"]) == ["atc-zh", "s-rt-zh"]
    assert "--buffer zh=100" in manifest["build"]["command"] and "--tokenizer cl100k_base" in manifest["build"]["command"]


@pytest.mark.parametrize(("args", "needles"), [
    (("--depths", "0,x"), ("--depths", "0,x")),
    (("--buffer", "en"), ("--buffer",)),
    (("--filler-en", "/no/such/folder"), ("/no/such/folder", "no such file or folder")),
    (("--lengths", "3kb"), ("3kb", "preset", "token count")),
    (("--question-types", "eldest"), ("eldest", "nth_ancestor")),
])
def test_build_needlebench_bad_options_fail_in_one_line(tmp_path, args, needles):
    result = run("build", "needlebench", "--out", str(tmp_path / "nb"), "--quiet", *args)
    assert result.exit_code == 2, result.output
    assert all(n in result.output for n in needles), result.output
    assert "Traceback" not in result.output
    assert not (tmp_path / "nb").exists()


def test_build_sequential_niah_cli_writes_what_it_reports(tmp_path):
    out = tmp_path / "sn"
    result = run("build", "sequential-niah", "--out", str(out), "--size", "12", "--langs", "zh", "--buckets", "8k-16k",
                 "--noise-samples", "1", "--judge-train", "8", "--judge-test", "4", "--world-docs", "200", "--seed", "5",
                 "--quiet")
    assert result.exit_code == 0, result.output
    manifest = json.loads((out / "manifest.json").read_text(encoding="utf-8"))
    rows = sum(s["rows"] for c in manifest["configs"].values() for s in c["splits"].values())
    assert result.output == f"wrote {out} ({rows:,} rows in {sum(len(c['splits']) for c in manifest['configs'].values())} configs)\n"
    assert sum(manifest["configs"]["default"]["splits"][s]["rows"] for s in ("train", "dev", "test")
               if s in manifest["configs"]["default"]["splits"]) == 12
    assert manifest["seed"] == 5 and "--langs zh" in manifest["build"]["command"]
    assert run("validate", str(out)).exit_code == 0


@pytest.mark.parametrize(("args", "needles"), [
    (("--buckets", "9k"), ("9k", "8k-16k")),
    (("--langs", "fr"), ("langs", "fr")),
    (("--logical", "/no/such/file.jsonl"), ("/no/such/file.jsonl",)),
    (("--tkg", "/no/such/icews"), ("/no/such/icews",)),
    (("--judge-train", "-1"), ("judge",)),
])
def test_build_sequential_niah_bad_options_fail_in_one_line(tmp_path, args, needles):
    out = tmp_path / "sn"
    assert_one_error_line(run("build", "sequential-niah", "--out", str(out), "--size", "12", "--world-docs", "200",
                              "--quiet", *args), *needles)
    assert list(tmp_path.iterdir()) == []


def test_build_rulerv2_writes_what_it_reports(tmp_path):
    out = tmp_path / "r"
    result = run("build", "rulerv2", "--out", str(out), "--lengths", "1024", "--samples", "2",
                 "--tasks", "mv_niah_basic", "--n-values", "5", "--seed", "3", "--quiet")
    assert result.exit_code == 0, result.output
    assert result.output == f"wrote {out} (2 rows in 1 configs)\n"
    manifest = json.loads((out / "manifest.json").read_text(encoding="utf-8"))
    assert list(manifest["configs"]) == ["mv_niah_basic"]
    assert manifest["seed"] == 3
    assert "--n-values 5" in manifest["build"]["command"]
    assert run("validate", str(out)).exit_code == 0


@pytest.mark.parametrize(
    ("args", "needles"),
    [
        (["--tasks", "nope"], ["nope", "mk_niah_basic", "mv_niah_basic"]),
        (["--tokenizer", "nope"], ["'nope'", "qwen2.5", "cl100k_base"]),
        (["--lengths", "10", "--generation-reserve", "128"], ["generation_reserve", "128"]),
        (["--samples", "0"], ["samples"]),
        (["--lengths", "1024", "--samples", "1", "--key-kind", "digits", "--key-length", "1"], []),
    ],
    ids=["task", "tokenizer", "length-under-reserve", "samples", "key-space"],
)
def test_bad_build_options_give_one_error_line_and_no_folder(tmp_path, args, needles):
    out = tmp_path / "out"
    result = run("build", "rulerv2", "--out", str(out), "--quiet", *args)
    assert_one_error_line(result, *needles)
    assert not out.exists()
    assert list(tmp_path.iterdir()) == []  # no hidden .out.*.partial folder either


def test_click_level_bad_value_exits_2_without_folder(tmp_path):
    out = tmp_path / "out"
    result = run("build", "rulerv2", "--out", str(out), "--lengths", "abc")
    assert_one_error_line(result, "--lengths: 'abc' is not a token count")
    assert not out.exists()
    assert_one_error_line(run("build", "needlebench", "--out", str(out), "--depths", "0,x"), "--depths: expected comma-separated numbers")


def test_build_refuses_a_non_release_folder(tmp_path):
    out = tmp_path / "mine"
    out.mkdir()
    (out / "thesis.tex").write_text("do not delete", encoding="utf-8")
    result = run("build", "rulerv2", "--out", str(out), "--lengths", "4096", "--samples", "1", "--quiet")
    assert_one_error_line(result, str(out), "not a needlework release")
    assert [p.name for p in out.iterdir()] == ["thesis.tex"]


def test_validate_tampered_release_exits_1_listing_problems(release_copy):
    (release_copy / "mv_niah_basic" / SHARD).unlink()
    manifest = json.loads((release_copy / "manifest.json").read_text(encoding="utf-8"))
    manifest["configs"]["mk_niah_basic"]["splits"]["test"]["rows"] = 31
    (release_copy / "manifest.json").write_text(json.dumps(manifest), encoding="utf-8")
    result = run("validate", str(release_copy))
    assert result.exit_code == 1, result.output
    lines = result.output.splitlines()
    assert any(f"mv_niah_basic/{SHARD}" in line and "missing" in line for line in lines)
    assert any(line.startswith("mk_niah_basic/test: 30 rows in shards, 31 in manifest.json") for line in lines)
    assert not result.output.rstrip().endswith(": valid")


def test_validate_corrupt_shard_lists_it(release_copy):
    path = release_copy / "mk_niah_basic" / SHARD
    path.write_bytes(path.read_bytes()[:1000])
    result = run("validate", str(release_copy))
    assert result.exit_code == 1
    assert isinstance(result.exception, SystemExit)
    assert f"mk_niah_basic/{SHARD}" in result.output


@pytest.mark.parametrize("command", ["validate", "info"])
def test_folder_without_manifest_exits_2_with_one_line(tmp_path, command):
    (tmp_path / "README.md").write_text("hello", encoding="utf-8")
    line = assert_one_error_line(run(command, str(tmp_path)), str(tmp_path), "no manifest.json; not a needlework release")
    assert "no such" not in line
    line = assert_one_error_line(run(command, str(tmp_path / "missing")))
    assert line == f"error: {tmp_path / 'missing'}: no such release folder (needlework {command} reads a local folder)"


@pytest.mark.parametrize("command", ["validate", "info"])
def test_a_mistyped_release_suggests_the_closest_one(release_copy, command):
    typo = release_copy.with_name("rulerv3")
    line = assert_one_error_line(run(command, str(typo)))
    assert line == (f"error: {typo}: no such release folder "
                    f"(needlework {command} reads a local folder; did you mean {release_copy}?)")
    line = assert_one_error_line(run(command, str(release_copy.parent)))
    assert line.endswith(f"no manifest.json; not a needlework release (it holds 1 release: {release_copy})")
    line = assert_one_error_line(run(command, str(release_copy / "manifest.json")))
    assert line.endswith(f"a file, not a release folder (did you mean {release_copy}?)")


def test_invalid_manifest_json_exits_2_with_one_line(release_copy):
    (release_copy / "manifest.json").write_text("{not json", encoding="utf-8")
    assert_one_error_line(run("validate", str(release_copy)), "manifest.json", "not valid JSON")


def test_build_world_writes_every_config_and_reports_connectivity(tmp_path):
    import datasets

    out = tmp_path / "world"
    result = run("build", "world", "--out", str(out), "--docs", "150", "--questions", "30", "--langs", "en", "--quiet")
    assert result.exit_code == 0, result.output
    assert "corpus 150" in result.output and "qa 30" in result.output
    assert "en: largest weakly connected component" in result.output
    assert run("validate", str(out)).exit_code == 0
    manifest = json.loads((out / "manifest.json").read_text())
    assert sorted(manifest["configs"]) == ["corpus", "entities", "events", "facts", "links", "qa", "twins"]
    assert manifest["stats"]["graph"][0]["lang"] == "en"
    corpus = datasets.load_dataset(str(out), "corpus", split="train")
    assert corpus.num_rows == 150 and set(corpus["lang"]) == {"en"}
    qa = datasets.load_dataset(str(out), "qa", split="train")
    assert qa.num_rows == 30 and all(d % 2 == 0 for s in qa["support"] for d in s)
    assert "largest weakly connected component" in (out / "README.md").read_text()


def test_build_world_without_twins_still_declares_an_empty_twins_config(tmp_path):
    out = tmp_path / "world"
    result = run("build", "world", "--out", str(out), "--docs", "100", "--questions", "5", "--twin-fraction", "0", "--quiet")
    assert result.exit_code == 0, result.output
    assert json.loads((out / "manifest.json").read_text())["configs"]["twins"]["splits"]["train"]["rows"] == 0
    assert run("validate", str(out)).exit_code == 0


@pytest.mark.parametrize(
    "args, needles",
    [(["--docs", "5"], ["docs", ">= 60"]), (["--langs", "en,fr"], ["langs", "fr"]), (["--twin-fraction", "2"], ["twin_fraction"])],
    ids=["docs", "langs", "twins"],
)
def test_bad_world_options_give_one_error_line_and_no_folder(tmp_path, args, needles):
    out = tmp_path / "out"
    assert_one_error_line(run("build", "world", "--out", str(out), "--quiet", *args), *needles)
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize("option, value", [("--lengths", ""), ("--tasks", ",")])
def test_empty_list_option_is_an_error_not_the_defaults(option, value, tmp_path):
    assert_one_error_line(run("build", "rulerv2", "--out", str(tmp_path / "r"), option, value))
    assert not (tmp_path / "r").exists()


def test_version():
    result = run("--version")
    assert result.exit_code == 0
    assert result.output == f"needlework {needlework.__version__}\n"
