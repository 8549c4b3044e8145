"""One syntax for a number of tokens, the same in every command (``needlework build``, ``python -m eval``).

A token count is written as

* an integer: ``8000``, ``8_000`` (``_`` only between digits, as in Python);
* or a number with a suffix: ``k`` = 1,000 and ``m`` = 1,000,000 (decimal), ``ki`` = 1,024 and
  ``mi`` = 1,048,576 (binary, the IEC prefixes). The suffix's case never changes the meaning:
  ``8k`` = ``8K`` = 8,000 and ``8ki`` = ``8Ki`` = ``8KI`` = 8,192. The number may have a fraction when
  the count comes out whole: ``1.5k`` = 1,500, ``0.5ki`` = 512 (``1.0005k`` is refused).

Anything else is refused with one line naming the accepted forms: signs, exponents, inner spaces,
a fraction without a suffix, other suffixes (``8kb``, ``1g``).

``k`` is 1,000 because that is what the benchmarks' own command lines and configs mean by it:
HaystackCraft's ``parse_token_count`` (Graph-COM/HaystackCraft c68a848, ``utils/setup.py``) upper-cases
its argument and multiplies ``K`` by 1,000 (``--context_size 64K`` = 64,000; ``infer_static.py`` offers
8_000 ... 128_000), and OpenCompass's NeedleBench configs named ``4k`` ... ``1000k`` list lengths up to
4,000 ... 1,000,000 (open-compass/opencompass a5acc4b, ``configs/datasets/needlebench_v2/``). RULERv2's
official preparation (NVIDIA-NeMo/Skills ``nemo_skills/dataset/ruler2/prepare.py --max_seq_length``)
takes integers; needlework's 8k ... 110k grid is 8,192 ... 112,640, written ``8ki`` ... ``110ki`` or as
integers. With this rule no value that a command accepted before means another count now; the few it
cut silently (HaystackCraft's ``--sizes 1.0005k`` was 1,000) are refused.

Some names only look like counts and are labels, not token counts; the options that take them say
so in their help: NeedleBench's length presets (``32k``: eight lengths up to 32,000), Sequential-NIAH's
length buckets (``8k-16k``: prompts of 8,192 to 16,383 tokens) and EverMemBench-S's ladder scales
(``64K``: a budget of 64 x 1,024 tokens, or 64 x 1,000 with ``--decimal``).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from fractions import Fraction
from types import MappingProxyType

from needlework.errors import SpecError

UNITS: Mapping[str, int] = MappingProxyType({"": 1, "k": 1_000, "m": 1_000_000, "ki": 1_024, "mi": 1_048_576})
"""Tokens per unit of each suffix, keyed by the suffix in lower case (``""``: no suffix)."""

FORMS = ("an integer (8000, 8_000) or a number with a suffix k = 1,000, m = 1,000,000, ki = 1,024 or "
         "mi = 1,048,576, in any case (8k = 8K = 8000, 1.5k = 1500, 8ki = 8192)")
"""The accepted forms, as the error messages name them."""

TOKENS_HELP = "Token counts: 8000, 8_000, 8k = 8K = 8,000, 1.5k = 1,500, 1m = 1,000,000, 8ki = 8Ki = 8,192, 1mi = 1,048,576."
"""The rule in one sentence, for the ``--help`` of every option that takes token counts."""

_COUNT = re.compile(r"(?P<whole>\d+(?:_\d+)*)(?:\.(?P<fraction>\d+(?:_\d+)*))?(?P<suffix>[km]i?)?", re.IGNORECASE | re.ASCII)


def number_and_suffix(text: str) -> tuple[Fraction, str]:
    """The number and the lower-case suffix (``""`` for none) of a count as written: ``"1.5K"`` -> ``(3/2, "k")``.

    Surrounding whitespace is ignored. Labels that share the syntax (EverMemBench-S's ``64K``) read
    their parts here, so that they too accept every case.

    Raises:
        SpecError: ``text`` is not an integer or a number with one of the suffixes of :data:`UNITS`.
    """
    match = _COUNT.fullmatch(text.strip())
    if match is None or (match["fraction"] is not None and match["suffix"] is None):
        raise SpecError(f"{text.strip()!r} is not a token count: write {FORMS}")
    digits = match["whole"].replace("_", "")
    if match["fraction"] is not None:
        digits += "." + match["fraction"].replace("_", "")
    return Fraction(digits), (match["suffix"] or "").lower()


def parse_tokens(text: str) -> int:
    """A number of tokens from its written form (see the module docstring): ``"8k"`` -> 8000, ``"8Ki"`` -> 8192.

    Raises:
        SpecError: ``text`` is not in one of the accepted forms, or its count is not a whole number.
    """
    number, suffix = number_and_suffix(text)
    count = number * UNITS[suffix]
    if count.denominator != 1:
        raise SpecError(f"{text.strip()!r} is not a whole number of tokens ({float(count):,g}): write {FORMS}")
    return int(count)


def parse_token_list(text: str) -> tuple[int, ...]:
    """Token counts from a comma list, in the order given: ``"0,8k,8_000,8Ki"`` -> ``(0, 8000, 8000, 8192)``.

    Blank items are dropped, so ``""`` is ``()``; repeats are kept for the caller to refuse or merge.

    Raises:
        SpecError: An item is not a token count (:func:`parse_tokens`).
    """
    return tuple(parse_tokens(item) for item in text.split(",") if item.strip())
