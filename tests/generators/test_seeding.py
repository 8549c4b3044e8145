"""Per-sample RNGs: a draw depends only on (seed, benchmark, task, key), never on the process."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from generators.seeding import derive_seed, rng_for

REPO = Path(__file__).resolve().parents[2]

BASE = (7, "rulerv2", "mk_niah_basic", "len=8192/i=0017")


def draws(seed, benchmark, task, key, n: int = 16) -> list[int]:
    return rng_for(seed, benchmark, task, key).integers(0, 2**62, n).tolist()


def test_same_inputs_give_identical_draws():
    assert draws(*BASE) == draws(*BASE)
    a, b = rng_for(*BASE), rng_for(*BASE)
    assert a.uniform(size=5).tolist() == b.uniform(size=5).tolist()
    assert a.permutation(50).tolist() == b.permutation(50).tolist()


def test_draws_do_not_depend_on_global_random_state():
    first = draws(*BASE)
    np.random.seed(12345)
    np.random.random(100)
    assert draws(*BASE) == first


@pytest.mark.parametrize(
    "changed",
    [
        (8, "rulerv2", "mk_niah_basic", "len=8192/i=0017"),
        (7, "rulerv3", "mk_niah_basic", "len=8192/i=0017"),
        (7, "rulerv2", "mv_niah_basic", "len=8192/i=0017"),
        (7, "rulerv2", "mk_niah_basic", "len=8192/i=0018"),
        (7, "rulerv2", "mk_niah_basic", "len=16384/i=0017"),
    ],
    ids=["seed", "benchmark", "task", "key", "key-length"],
)
def test_changing_any_part_changes_the_draws(changed):
    assert derive_seed(*changed) != derive_seed(*BASE)
    assert draws(*changed) != draws(*BASE)


def test_parts_are_joined_unambiguously():
    assert derive_seed(0, "a", "bc") != derive_seed(0, "ab", "c")
    assert draws(0, "a", "bc", "k") != draws(0, "ab", "c", "k")
    assert draws(0, "x", "a", "bc") != draws(0, "x", "ab", "c")
    # The seed is a part too: (1, "2...") must not collide with (12, "...").
    assert derive_seed(1, "2x", "t") != derive_seed(12, "x", "t")


def test_derived_seed_is_a_256_bit_sha256_value():
    value = derive_seed(*BASE)
    assert isinstance(value, int)
    assert 0 <= value < 2**256
    assert value.bit_length() > 200  # a sha256 digest, not a small hash() value


@pytest.mark.parametrize("bad", [-1, -(2**70), True, False, 1.0, "1", None])
def test_invalid_seed_is_rejected(bad):
    with pytest.raises(ValueError):
        derive_seed(bad, "rulerv2", "mk_niah_basic", "k")
    with pytest.raises(ValueError):
        rng_for(bad, "rulerv2", "mk_niah_basic", "k")


def test_zero_and_huge_seeds_are_accepted():
    assert draws(0, "b", "t", "k") != draws(2**80, "b", "t", "k")


_CHILD = (
    "from generators.seeding import derive_seed, rng_for\n"
    "print(derive_seed(7, 'rulerv2', 'mk_niah_basic', 'len=8192/i=0017'))\n"
    "print(rng_for(7, 'rulerv2', 'mk_niah_basic', 'len=8192/i=0017').integers(0, 2**62, 16).tolist())\n"
    "print(hash('salted'))\n"
)


def _child_output(hash_seed: str) -> list[str]:
    env = {**os.environ, "PYTHONHASHSEED": hash_seed}
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(REPO), os.environ.get("PYTHONPATH")]))
    out = subprocess.run(
        [sys.executable, "-c", _CHILD], env=env, capture_output=True, text=True, check=True, timeout=120
    ).stdout
    return out.splitlines()


def test_identical_across_processes_with_different_hash_seeds():
    one, two = _child_output("1"), _child_output("2")
    # The children really ran with different hash salts ...
    assert one[2] != two[2]
    # ... yet derive the same seed and the same draws, equal to this process's.
    assert one[:2] == two[:2]
    assert int(one[0]) == derive_seed(*BASE)
    assert one[1] == str(draws(*BASE))
