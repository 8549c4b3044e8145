"""Temporal knowledge graphs as TKG-completion code distributes them: the time unit and origin are
part of the input's description (issue 27).

Layouts and units pinned here, from the distributing repositories:

- ICEWS18: ``INK-USC/RE-Net`` ``data/ICEWS18`` -- ``relation2id.txt``, five columns with ids
  space-padded before the tab (``563  \\t5    \\t562\\t5760\\t0``), t in hours from 0 (valid starts at
  5760 = day 240); CyGNet (``CunchaoZ/CyGNet`` README) trains it with ``--time-stamp 24``.
- GDELT: ``INK-USC/RE-Net`` ``data/GDELT``, t in minutes in 15-minute steps (CyGNet ``--time-stamp 15``).
- ICEWS14 hour-indexed: ``nec-research/TKG-Forecasting-Evaluation`` ``data/ICEWS14/reformat_icews14.py``
  writes ``t = (day - 1) * 24`` from the day-indexed files that start at t = 1 (the shared slice,
  ``JaySaligia/PPT``).
"""

from __future__ import annotations

import json
import re
from datetime import date, datetime, timedelta
from pathlib import Path

import pyarrow.parquet as pq
import pytest

from builders.sequential_niah import SequentialNiahBuild, build
from builders.sources.icews import read_icews
from builders.sources.tkg_time import parse_unit
from generators.sequential_niah.tkg import TemporalIndex, TkgSpec, looks_like_person, tkg_qas
from needlework.errors import InputError

ENTITIES = ("Iran", "China", "Russia", "Citizen (India)", "Police (Nigeria)", "Angela Merkel")
RELATIONS = ("Make statement", "Consult", "Make an appeal or request", "Criticize or denounce", "Host a visit")
MONTHS = ("January", "February", "March", "April", "May", "June", "July", "August", "September", "October",
          "November", "December")


def quad_lines(stamps: list[int], *, five: bool = True) -> str:
    """RE-Net's layout: ids left-justified in five-character, space-padded cells, tab-separated,
    a fifth column 0. Every ordered entity pair interacts on every stamp, with a relation that cycles."""
    lines = []
    for i, t in enumerate(stamps):
        for s in range(len(ENTITIES)):
            for o in range(len(ENTITIES)):
                if s != o and (s + o + i) % 3 == 0:
                    cells = [f"{s:<5}", f"{(s * o + i) % len(RELATIONS):<5}", str(o), str(t)] + (["0"] if five else [])
                    lines.append("\t".join(cells))
    return "\n".join(lines) + "\n"


def write_tkg(folder: Path, splits: dict[str, str], *, relation_file: str = "relation2id.txt",
              stat: str | None = None) -> Path:
    folder.mkdir(parents=True)
    (folder / "entity2id.txt").write_text("".join(f"{n}\t{i}\n" for i, n in enumerate(ENTITIES)), encoding="utf-8")
    (folder / relation_file).write_text("".join(f"{n}\t{i}\n" for i, n in enumerate(RELATIONS)), encoding="utf-8")
    for split, text in splits.items():
        (folder / f"{split}.txt").write_text(text, encoding="utf-8")
    if stat is not None:
        (folder / "stat.txt").write_text(stat, encoding="utf-8")
    return folder


HOURS_TRAIN = [24 * d for d in range(0, 40, 2)]  # 2018-01-01 .. 2018-02-08, every other day
HOURS_VALID = [24 * d for d in range(240, 250)]  # RE-Net's valid split starts at t = 5760 (day 240)


def icews18(tmp_path: Path, name: str = "ICEWS18") -> Path:
    return write_tkg(tmp_path / name, {"train": quad_lines(HOURS_TRAIN), "valid": quad_lines(HOURS_VALID)})


def test_icews18_as_distributed_reads_hours_from_2018(tmp_path):
    graph = read_icews(icews18(tmp_path))
    days = sorted({q.time for q in graph.quads})
    assert days[0] == "2018-01-01" and days[-1] == (date(2018, 1, 1) + timedelta(days=249)).isoformat()
    assert len(days) == len(HOURS_TRAIN) + len(HOURS_VALID)
    assert graph.time == {"distribution": "ICEWS18 (RE-Net, hours from t=0)", "unit": "hour", "origin": "2018-01-01",
                          "origin_t": 0, "splits": ["train.txt", "valid.txt"], "relations": "relation2id.txt"}
    assert len(graph.fingerprints) == 4  # entity2id, relation2id, train, valid: test.txt is absent and not required


def test_an_unrecognized_folder_needs_the_unit_and_start_and_then_reads_the_same(tmp_path):
    folder = icews18(tmp_path, "my-events")
    with pytest.raises(InputError) as err:
        read_icews(folder)
    assert "--tkg-time-unit" in str(err.value) and "--tkg-start" in str(err.value) and "my-events" in str(err.value)
    with pytest.raises(InputError, match="give --tkg-start too"):
        read_icews(folder, unit="hour")
    given = read_icews(folder, unit="hour", start=datetime(2018, 1, 1))
    assert given.quads == read_icews(icews18(tmp_path)).quads
    assert given.time["distribution"] == "given" and given.time["unit"] == "hour"
    assert read_icews(folder, unit="day", start=datetime(2018, 1, 1)).quads[-1].time > "2030"  # the user's word is taken


def test_an_unknown_unit_is_refused():
    with pytest.raises(InputError, match=r"^--tkg-time-unit: time unit must be one of 'day', 'hour', 'minute', '15min'; got 'fortnight'$"):
        parse_unit("fortnight")
    assert parse_unit("Hours") == "hour" and parse_unit("15-minute") == "15min"
    with pytest.raises(InputError, match="--tkg-time-unit"):
        SequentialNiahBuild(tkg="somewhere", tkg_time_unit="fortnight")
    with pytest.raises(InputError, match="--tkg-start"):
        SequentialNiahBuild(tkg="somewhere", tkg_start="next tuesday")


def test_an_empty_split_is_refused_and_a_missing_one_skipped(tmp_path):
    folder = write_tkg(tmp_path / "ICEWS18", {"train": quad_lines(HOURS_TRAIN), "valid": "\n\n"})
    with pytest.raises(InputError) as err:
        read_icews(folder)
    assert err.value.file.endswith("valid.txt") and "holds no quadruples" in str(err.value)
    (folder / "valid.txt").unlink()
    assert read_icews(folder).time["splits"] == ["train.txt"]
    (folder / "train.txt").unlink()
    with pytest.raises(InputError, match="none of the split files"):
        read_icews(folder)


def test_stamps_that_do_not_fit_the_distribution_are_refused(tmp_path):
    off_step = write_tkg(tmp_path / "ICEWS18", {"train": quad_lines([0, 24, 30])})
    with pytest.raises(InputError, match=r"t=30 does not fit.*--tkg-time-unit"):
        read_icews(off_step)
    past_span = write_tkg(tmp_path / "b" / "ICEWS18", {"train": quad_lines([0, 24 * 400])})
    with pytest.raises(InputError, match="t=9600 does not fit"):
        read_icews(past_span)


def test_gdelt_counts_minutes_in_quarter_hours(tmp_path):
    stamps = [0, 15, 30, 1440, 1455, 2880]
    graph = read_icews(write_tkg(tmp_path / "GDELT", {"test": quad_lines(stamps, five=False)}))
    assert sorted({q.time for q in graph.quads}) == ["2018-01-01", "2018-01-02", "2018-01-03"]
    assert graph.time["unit"] == "minute" and graph.time["distribution"].startswith("GDELT")


def test_icews14_hours_and_days_are_told_apart_by_their_stamps(tmp_path):
    """Both share stat.txt's counts (7128 entities, 230 relations); only the stamps differ."""
    hours = write_tkg(tmp_path / "icews14s", {"valid": quad_lines([7296, 7320])}, stat="7128\t230\t0\n")
    graph = read_icews(hours)
    assert sorted({q.time for q in graph.quads}) == ["2014-11-01", "2014-11-02"] and graph.time["unit"] == "hour"
    days = write_tkg(tmp_path / "renamed", {"valid": quad_lines([305, 306])}, relation_file="rel2id.txt",
                     stat="7128\t230\t0\n")
    assert sorted({q.time for q in read_icews(days).quads}) == ["2014-11-01", "2014-11-02"]


def test_icews0515_day_origin_is_told_by_the_stamps_or_asked_for(tmp_path):
    ambiguous = write_tkg(tmp_path / "ICEWS05-15", {"train": quad_lines([5, 6, 7])})
    with pytest.raises(InputError, match="more than one reading"):
        read_icews(ambiguous)
    from_zero = write_tkg(tmp_path / "b" / "ICEWS05-15", {"train": quad_lines([0, 6, 7])})
    assert read_icews(from_zero).quads[0].time == "2005-01-01"


def test_relation_maps_by_either_name(tmp_path):
    folder = write_tkg(tmp_path / "ICEWS18", {"train": quad_lines(HOURS_TRAIN)}, relation_file="rel2id.txt")
    assert read_icews(folder).time["relations"] == "rel2id.txt"
    (folder / "relation2id.txt").write_text("Other\t0\n", encoding="utf-8")
    with pytest.raises(InputError, match="differ"):
        read_icews(folder)
    (folder / "relation2id.txt").unlink()
    (folder / "rel2id.txt").unlink()
    with pytest.raises(InputError, match="rel2id.txt or relation2id.txt"):
        read_icews(folder)


ANSWER_DATE = re.compile(r"(" + "|".join(MONTHS) + r") (\d{1,2}), (\d{4})")


def test_an_icews18_folder_builds_real_temporal_rows_dated_within_its_span(tmp_path):
    """The issue's case: an hour-indexed ICEWS18 folder once gave dates in 2029-2033; every answer
    date of every real-temporal row must now lie between the first and last stamp's day."""
    folder = icews18(tmp_path)
    spec = SequentialNiahBuild(size=12, langs=("en",), buckets=("4k-7k",), tkg=str(folder), noise_samples=1,
                               judge_train=4, judge_test=4, world_docs=120)
    report = build(spec, tmp_path / "release", progress=False)
    rows = [r for f in sorted((report.out / "default").rglob("*.parquet")) for r in pq.read_table(f).to_pylist()]
    temporal = [r for r in rows if r["pipeline"] == "real-temporal"]
    assert temporal
    first, last = date(2018, 1, 1), date(2018, 1, 1) + timedelta(days=HOURS_VALID[-1] // 24)
    for row in temporal:
        assert row["source"] == "ICEWS18"
        dates = [date(int(y), MONTHS.index(m) + 1, int(d)) for a in row["answers"] for m, d, y in ANSWER_DATE.findall(a)]
        assert len(dates) == len(row["answers"]) and all(first <= d <= last for d in dates), row["answers"]
    manifest = json.loads((report.out / "manifest.json").read_text(encoding="utf-8"))
    assert manifest["tkg"]["unit"] == "hour" and manifest["tkg"]["origin"] == "2018-01-01"
    assert manifest["tkg"]["splits"] == ["train.txt", "valid.txt"]


def test_icews_questions_know_whether_their_subject_is_a_person(shared_file):
    graph = read_icews(shared_file("tkg_icews14/entity2id.txt").parent, splits=("test",))
    qas = tkg_qas(graph.quads, TkgSpec("en", 12, source="icews14"), seed=0)
    people = {qa.subject for qa in qas if qa.subject_is_person}
    others = {qa.subject for qa in qas if not qa.subject_is_person}
    assert people and others and not any("(" in name for name in people)
    places = TemporalIndex(graph.quads).places
    assert {"Nigeria", "Thailand"} <= places
    assert all(qa.subject_is_person == looks_like_person(qa.subject, places) for qa in qas)
