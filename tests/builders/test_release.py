"""Releases: atomic writes, shards, manifest and card that validate and load with ``datasets``."""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pyarrow.parquet as pq
import pytest
import yaml

from builders.release import ReleaseWriter, shard_name
from builders.rulerv2 import FACTS, FEATURES, RulerV2Build, build, load_key_words
from generators.rulerv2.spec import TASKS
from builders.validate import read_card_metadata, validate_release
from needlework.errors import ReleaseError
from generators.rulerv2.niah_basic import generate
from generators.rulerv2.spec import NiahBasicSpec, RulerOptions

REPO = Path(__file__).resolve().parents[2]
CONFIGS = ("mk_niah_basic", "mv_niah_basic")
SHARD = "test-00000-of-00001.parquet"


def child_env(**extra: str) -> dict[str, str]:
    env = {**os.environ, **extra}
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(REPO), os.environ.get("PYTHONPATH")]))
    return env


def snapshot(folder: Path) -> dict[str, str]:
    """Relative path -> sha256 of every file under ``folder``."""
    return {
        p.relative_to(folder).as_posix(): hashlib.sha256(p.read_bytes()).hexdigest()
        for p in sorted(folder.rglob("*"))
        if p.is_file()
    }


def leftovers(parent: Path, name: str) -> list[str]:
    """Hidden temporary folders of a release named ``name`` left in ``parent``."""
    return sorted(p.name for p in parent.iterdir() if p.name.startswith(f".{name}."))


@pytest.fixture(scope="module")
def built(tmp_path_factory, qwen) -> Path:
    """A small real RULERv2 release, built once; tests copy it before changing it."""
    out = tmp_path_factory.mktemp("built") / "rulerv2"
    report = build(RulerV2Build(tasks=CONFIGS, lengths=(1024, 2048), samples=3), out, tokens=qwen, progress=False)
    assert report.rows == {"mk_niah_basic": 6, "mv_niah_basic": 6}
    return out


@pytest.fixture
def release(built, tmp_path) -> Path:
    copy = tmp_path / "release"
    shutil.copytree(built, copy)
    return copy


def load_in_subprocess(releases: dict[str, tuple[Path, tuple[str, ...]]], tmp_path: Path) -> dict:
    """``datasets.load_dataset(folder, config, split="test")`` offline, in one fresh interpreter, for each
    ``name -> (folder, configs)``; returns ``name -> config -> what was read`` (one interpreter start, the
    cost of these tests, for every release the module loads)."""
    script = (
        "import json, sys, datasets\n"
        "out = {}\n"
        "for name, folder, configs in json.loads(sys.argv[1]):\n"
        "    out[name] = {}\n"
        "    for config in configs:\n"
        "        ds = datasets.load_dataset(folder, config, split='test')\n"
        "        rows = ds.to_list()\n"
        "        out[name][config] = {'rows': ds.num_rows, 'ids': [r['id'] for r in rows],\n"
        "                             'answers': [r['answers'] for r in rows], 'n_tokens': [r['n_tokens'] for r in rows],\n"
        "                             'needles0': rows[0]['needles'], 'columns': ds.column_names}\n"
        "print(json.dumps(out))\n"
    )
    request = json.dumps([[name, str(folder), list(configs)] for name, (folder, configs) in releases.items()])
    env = child_env(HF_HUB_OFFLINE="1", HF_DATASETS_OFFLINE="1", HF_HOME=str(tmp_path / "hf-home"))
    done = subprocess.run([sys.executable, "-c", script, request], env=env, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-3000:]
    return json.loads(done.stdout.strip().splitlines()[-1])


@pytest.fixture(scope="module")
def sharded(rows, tmp_path_factory) -> Path:
    """The five rows written with one-byte row groups and shards: five shards."""
    out = tmp_path_factory.mktemp("sharded") / "sharded"
    write_release(out, rows, row_group_bytes=1, shard_bytes=1)
    return out


@pytest.fixture(scope="module")
def loaded(built, sharded, tmp_path_factory) -> dict:
    """The real build's configs and the sharded release, read by ``datasets`` in one subprocess."""
    return load_in_subprocess({"built": (built, CONFIGS), "sharded": (sharded, ("mk_niah_basic",))},
                              tmp_path_factory.mktemp("load"))


# --- A real build ------------------------------------------------------------------------------


def test_build_writes_a_valid_release(built):
    assert validate_release(built) == []
    assert sorted(p.name for p in built.iterdir()) == ["README.md", "manifest.json", *CONFIGS]
    manifest = json.loads((built / "manifest.json").read_text(encoding="utf-8"))
    assert manifest["benchmark"] == "rulerv2" and manifest["seed"] == 0
    assert manifest["tokenizer"]["name"] == "qwen2.5"
    assert manifest["build"]["command"].startswith("needlework build rulerv2 --tasks mk_niah_basic,mv_niah_basic")
    for config in CONFIGS:
        split = manifest["configs"][config]["splits"]["test"]
        assert split["rows"] == 6
        assert split["files"] == [f"{config}/{SHARD}"]
        assert len(split["content_sha256"]) == 64
    card = read_card_metadata(built)
    assert sorted(c["config_name"] for c in card["configs"]) == list(CONFIGS)
    assert not leftovers(built.parent, built.name)


def test_load_dataset_reads_every_config_offline(built, loaded):
    loaded = loaded["built"]
    for config in CONFIGS:
        table = pq.read_table(built / config / SHARD).to_pylist()
        got = loaded[config]
        assert got["rows"] == 6
        assert got["ids"] == [r["id"] for r in table]
        assert got["ids"][0] == f"rulerv2/{config}/len=1024/i=0000"
        assert got["answers"] == [r["answers"] for r in table]
        assert got["n_tokens"] == [r["n_tokens"] for r in table]
        assert got["needles0"] == table[0]["needles"]
        assert got["columns"] == list(FEATURES)
    assert all(len(a) == 1 for a in loaded["mk_niah_basic"]["answers"])
    assert all(len(a) == 4 for a in loaded["mv_niah_basic"]["answers"])


# --- Tampering is detected ---------------------------------------------------------------------


def test_edited_row_value_is_detected(release):
    path = release / "mk_niah_basic" / SHARD
    table = pq.read_table(path)
    rows = table.to_pylist()
    answer = rows[2]["answers"][0]
    rows[2]["answers"] = [str(int(answer) + 1)]
    pq.write_table(type(table).from_pylist(rows, schema=table.schema), path)
    problems = validate_release(release)
    assert len(problems) == 1
    assert "mk_niah_basic/test" in problems[0] and "content hash" in problems[0]


def test_deleted_shard_is_detected(release):
    (release / "mv_niah_basic" / SHARD).unlink()
    problems = validate_release(release)
    assert problems
    assert any(f"mv_niah_basic/{SHARD}" in p and "missing" in p for p in problems)


def test_stray_shard_is_detected(release):
    shutil.copy(release / "mk_niah_basic" / SHARD, release / "mk_niah_basic" / "test-00001-of-00002.parquet")
    problems = validate_release(release)
    assert problems == ["mk_niah_basic/test-00001-of-00002.parquet: shard not listed in manifest.json"]


def test_stray_config_folder_is_detected(release):
    (release / "extra").mkdir()
    shutil.copy(release / "mk_niah_basic" / SHARD, release / "extra" / SHARD)
    problems = validate_release(release)
    assert any(f"extra/{SHARD}" in p for p in problems)


def test_edited_manifest_row_count_is_detected(release):
    path = release / "manifest.json"
    manifest = json.loads(path.read_text(encoding="utf-8"))
    manifest["configs"]["mv_niah_basic"]["splits"]["test"]["rows"] = 7
    path.write_text(json.dumps(manifest, indent=2), encoding="utf-8")
    problems = validate_release(release)
    assert any("mv_niah_basic/test" in p and "6 rows" in p and "7" in p for p in problems)
    assert all("mv_niah_basic" in p for p in problems)


def _edit_card(release: Path, edit) -> None:
    path = release / "README.md"
    text = path.read_text(encoding="utf-8")
    end = text.index("\n---\n", 4)
    meta = yaml.safe_load(text[4:end])
    edit(meta)
    path.write_text("---\n" + yaml.safe_dump(meta, sort_keys=False) + text[end + 1 :], encoding="utf-8")


def test_config_removed_from_card_is_detected(release):
    _edit_card(release, lambda m: m.__setitem__("configs", [c for c in m["configs"] if c["config_name"] != "mv_niah_basic"]))
    problems = validate_release(release)
    assert problems
    assert all("mv_niah_basic" in p and "README.md" in p for p in problems)


def test_card_example_count_is_checked(release):
    def edit(meta):
        for info in meta["dataset_info"]:
            if info["config_name"] == "mk_niah_basic":
                info["splits"][0]["num_examples"] = 5

    _edit_card(release, edit)
    problems = validate_release(release)
    assert any("mk_niah_basic/test" in p and "num_examples" in p for p in problems)


def test_unedited_card_round_trip_stays_valid(release):
    _edit_card(release, lambda m: None)
    assert validate_release(release) == []


def test_corrupt_shard_is_reported_not_raised(release):
    path = release / "mk_niah_basic" / SHARD
    path.write_bytes(path.read_bytes()[:1000])
    problems = validate_release(release)
    assert any(f"mk_niah_basic/{SHARD}" in p for p in problems)


def test_missing_manifest_is_a_release_error(tmp_path):
    with pytest.raises(ReleaseError, match="manifest.json"):
        validate_release(tmp_path)


# --- Shards, atomicity and refusal -------------------------------------------------------------


@pytest.fixture(scope="module")
def rows(qwen) -> list[dict]:
    words, _ = load_key_words()
    return list(generate(NiahBasicSpec("mk_niah", RulerOptions(lengths=(1024,), samples=5)), seed=0, tokens=qwen, words=words))


def write_release(out: Path, rows: list[dict], **sizes) -> None:
    with ReleaseWriter(out, FACTS, {"benchmark": "rulerv2", "seed": 0}, **sizes) as writer:
        writer.declare("mk_niah_basic", FEATURES)
        for row in rows:
            writer.write("mk_niah_basic", "test", row)


def test_small_shard_bytes_give_several_shards(rows, sharded, loaded):
    out = sharded
    names = sorted(p.name for p in (out / "mk_niah_basic").iterdir())
    assert names == [shard_name("test", i, 5) for i in range(5)]
    assert names[0] == "test-00000-of-00005.parquet"
    manifest = json.loads((out / "manifest.json").read_text(encoding="utf-8"))
    assert manifest["configs"]["mk_niah_basic"]["splits"]["test"]["files"] == [f"mk_niah_basic/{n}" for n in names]
    assert validate_release(out) == []
    loaded = loaded["sharded"]["mk_niah_basic"]
    assert loaded["rows"] == 5
    assert loaded["ids"] == [r["id"] for r in rows]


def test_shards_of_two_rows(rows, tmp_path):
    out = tmp_path / "pairs"
    one_row = len(rows[0]["input"])
    write_release(out, rows, row_group_bytes=1, shard_bytes=2 * one_row)
    names = sorted(p.name for p in (out / "mk_niah_basic").iterdir())
    assert names == [shard_name("test", i, 3) for i in range(3)]
    assert [pq.read_metadata(out / "mk_niah_basic" / n).num_rows for n in names] == [2, 2, 1]
    assert validate_release(out) == []


def test_content_hash_does_not_depend_on_sharding(rows, tmp_path):
    write_release(tmp_path / "one", rows)
    write_release(tmp_path / "many", rows, row_group_bytes=1, shard_bytes=1)
    hashes = [
        json.loads((tmp_path / n / "manifest.json").read_text())["configs"]["mk_niah_basic"]["splits"]["test"]["content_sha256"]
        for n in ("one", "many")
    ]
    assert hashes[0] == hashes[1]


class Boom(Exception):
    pass


@pytest.mark.parametrize("error", [Boom, KeyboardInterrupt])
def test_exception_in_with_block_leaves_previous_release(release, rows, error):
    before = snapshot(release)
    with pytest.raises(error):
        with ReleaseWriter(release, FACTS, {"benchmark": "rulerv2"}, row_group_bytes=1, shard_bytes=1) as writer:
            writer.declare("mk_niah_basic", FEATURES)
            for row in rows[:3]:
                writer.write("mk_niah_basic", "test", row)
            assert leftovers(release.parent, release.name)  # the work happens in a hidden folder
            raise error()
    assert snapshot(release) == before
    assert validate_release(release) == []
    assert leftovers(release.parent, release.name) == []


def test_exception_with_no_previous_release_leaves_nothing(rows, tmp_path):
    out = tmp_path / "new"
    with pytest.raises(Boom):
        with ReleaseWriter(out, FACTS, {}) as writer:
            writer.declare("mk_niah_basic", FEATURES)
            writer.write("mk_niah_basic", "test", rows[0])
            raise Boom()
    assert sorted(os.listdir(tmp_path)) == []


def test_failure_while_finishing_leaves_previous_release(release, rows):
    before = snapshot(release)
    with pytest.raises(ReleaseError, match="no rows"):
        with ReleaseWriter(release, FACTS, {}) as writer:
            writer.declare("mk_niah_basic", FEATURES)
            writer.declare("mv_niah_basic", FEATURES)
            writer.write("mk_niah_basic", "test", rows[0])
    assert snapshot(release) == before
    assert leftovers(release.parent, release.name) == []


def test_row_not_matching_features_is_a_release_error(release, rows):
    before = snapshot(release)
    bad = {**rows[0], "n_tokens": "many"}
    with pytest.raises(ReleaseError, match="mk_niah_basic"):
        with ReleaseWriter(release, FACTS, {}) as writer:
            writer.declare("mk_niah_basic", FEATURES)
            writer.write("mk_niah_basic", "test", bad)
    assert snapshot(release) == before


def test_new_build_replaces_previous_release(release, rows):
    write_release(release, rows)
    assert sorted(p.name for p in release.iterdir()) == ["README.md", "manifest.json", "mk_niah_basic"]
    assert validate_release(release) == []
    assert leftovers(release.parent, release.name) == []


def test_empty_folder_is_replaced(rows, tmp_path):
    out = tmp_path / "empty"
    out.mkdir()
    write_release(out, rows)
    assert validate_release(out) == []


@pytest.mark.parametrize("kind", ["folder", "file"])
def test_non_release_target_is_refused(rows, tmp_path, kind):
    out = tmp_path / "precious"
    if kind == "folder":
        out.mkdir()
        (out / "notes.txt").write_text("keep me", encoding="utf-8")
    else:
        out.write_text("keep me", encoding="utf-8")
    before = snapshot(tmp_path)
    with pytest.raises(ReleaseError, match="not a needlework release"):
        write_release(out, rows)
    assert snapshot(tmp_path) == before
    assert leftovers(tmp_path, "precious") == []


def test_folder_with_foreign_manifest_is_refused(rows, tmp_path):
    out = tmp_path / "webapp"
    out.mkdir()
    (out / "manifest.json").write_text('{"name": "my web app", "start_url": "/"}', encoding="utf-8")
    (out / "index.html").write_text("<html></html>", encoding="utf-8")
    with pytest.raises(ReleaseError):
        write_release(out, rows)
    assert (out / "index.html").is_file()


# --- Killed builds -----------------------------------------------------------------------------


def _kill_build_mid_way(target: Path) -> None:
    """Start a CLI build of ``target``, SIGKILL it once a shard part exists in its hidden folder."""
    # 100 samples of mk_niah_basic at 256K tokens (about 1 MB a row) pass the 8 MB row group after about
    # 8 rows, so a shard part exists while rows are still being generated; mk_niah_basic alone needs no
    # world pools, so the build reaches that point soon after its interpreter starts.
    command = [
        sys.executable, "-m", "builders", "build", "rulerv2", "--out", str(target), "--tasks", "mk_niah_basic",
        "--lengths", "262144", "--samples", "100", "--quiet",
    ]
    proc = subprocess.Popen(command, env=child_env(), cwd=target.parent, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    try:
        deadline = time.monotonic() + 300
        while not list(target.parent.glob(f".{target.name}.*.partial/*/*.part")):
            if proc.poll() is not None:
                pytest.fail(f"build ended (status {proc.returncode}) before a shard part appeared: {proc.stderr.read()!r}")
            if time.monotonic() > deadline:
                pytest.fail("no shard part appeared within 300 s")
            time.sleep(0.005)
        proc.send_signal(signal.SIGKILL)
    finally:
        if proc.poll() is None:
            proc.kill()
        proc.wait(timeout=60)
    assert proc.returncode == -signal.SIGKILL


def test_killed_build_leaves_no_release_and_the_next_build_removes_its_leftovers(tmp_path, rows):
    """A build killed with no previous release leaves no release; the next build of the same target
    removes the hidden folder it left (one kill serves both checks)."""
    target = tmp_path / "T"
    _kill_build_mid_way(target)
    assert not target.exists()
    assert leftovers(tmp_path, "T"), "the killed build should have left its hidden partial folder"
    write_release(target, rows)
    assert leftovers(tmp_path, "T") == []
    assert validate_release(target) == []


def test_release_stranded_between_swap_renames_is_restored(release, rows):
    """A kill between the two renames of a swap leaves the old release under a hidden name;
    the next build of the same target puts it back before doing anything else."""
    before = snapshot(release)
    dead_pid = 2**22 + 12345  # above the kernel's pid_max default, so no process has it
    release.rename(release.with_name(f".{release.name}.old-{dead_pid}"))
    with pytest.raises(RuntimeError):
        with ReleaseWriter(release, FACTS, {"benchmark": "rulerv2", "seed": 0}):
            raise RuntimeError("fail before finishing")
    assert snapshot(release) == before
    assert leftovers(release.parent, release.name) == []


def test_killed_build_leaves_previous_release(tmp_path, built):
    target = tmp_path / "T"
    shutil.copytree(built, target)
    before = snapshot(target)
    _kill_build_mid_way(target)
    assert snapshot(target) == before
    assert validate_release(target) == []


# --- Determinism across processes --------------------------------------------------------------


def test_builds_are_identical_across_processes(tmp_path, qwen):
    """Two CLI builds of seed 1 under other hash seeds write the same content, manifest and card; the
    same build at seed 2 (built in this process while they run: which process builds it does not matter
    to this comparison) differs in every config and split."""
    runs = {"hash1-seed1": ("1", "1"), "hash2-seed1": ("2", "1")}
    procs = {
        name: subprocess.Popen(
            [sys.executable, "-m", "builders", "build", "rulerv2", "--out", str(tmp_path / name),
             "--lengths", "4096", "--samples", "2", "--golden", "--seed", seed, "--quiet"],
            env=child_env(PYTHONHASHSEED=hash_seed), stdout=subprocess.PIPE, stderr=subprocess.PIPE,
        )
        for name, (hash_seed, seed) in runs.items()
    }
    try:
        build(RulerV2Build(lengths=(4096,), samples=2, golden=True, seed=2), tmp_path / "seed2", tokens=qwen,
              progress=False)
    except BaseException:
        for proc in procs.values():
            proc.kill()
            proc.wait()
        raise
    for name, proc in procs.items():
        _, err = proc.communicate(timeout=300)
        assert proc.returncode == 0, err.decode()[-2000:]

    def content(name: str) -> dict[str, str]:
        manifest = json.loads((tmp_path / name / "manifest.json").read_text(encoding="utf-8"))
        return {f"{c}/{split}": s["splits"][split]["content_sha256"] for c, s in manifest["configs"].items() for split in s["splits"]}

    assert content("hash1-seed1") == content("hash2-seed1")
    # No clock or process state leaks into the manifest or the card.
    for file in ("manifest.json", "README.md"):
        assert (tmp_path / "hash1-seed1" / file).read_bytes() == (tmp_path / "hash2-seed1" / file).read_bytes()
    other = content("seed2")
    assert sorted(other) == sorted(f"{c}/{split}" for c in TASKS for split in ("golden", "test"))
    assert all(other[c] != content("hash1-seed1")[c] for c in other)


# --- A build process does not import pandas ----------------------------------------------------------------

PANDAS_PROBE = """
import sys
import pyarrow as pa
from builders.release import skip_pyarrow_pandas_probe
skip_pyarrow_pandas_probe()
table = pa.Table.from_pylist([{"text": "a", "ids": [1, 2]}],
                             schema=pa.schema([("text", pa.string()), ("ids", pa.list_(pa.int64()))]))
print("pandas" in sys.modules)
frame = table.to_pandas()
print("pandas" in sys.modules, list(frame["text"]))
"""


def test_rows_convert_without_pandas_and_pandas_still_loads_when_asked():
    # The build command's shortcut (skip_pyarrow_pandas_probe) must not cost a later caller pandas.
    done = subprocess.run([sys.executable, "-c", PANDAS_PROBE], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert done.stdout.split("\n")[:2] == ["False", "True ['a']"]


def test_the_build_command_imports_no_pandas(tmp_path):
    script = ("import sys\nfrom builders.cli import main\n"
              f"main(['build', 'rulerv2', '--out', {str(tmp_path / 'r')!r}, '--tasks', 'mk_niah_basic', '--lengths', '1024',"
              " '--samples', '1', '--quiet'], standalone_mode=False)\n"
              "print('pandas' in sys.modules)")
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert done.stdout.split()[-1] == "False"
