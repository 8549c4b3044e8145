"""The Sequential-NIAH source adapters: ICEWS-format temporal knowledge graphs read into named, dated
quadruples (the real ICEWS14 slice and malformed files), and the item parsing of ordered questions."""

from __future__ import annotations

from datetime import datetime
from pathlib import Path

import pytest

from builders.sources.icews import read_icews
from builders.sources.ordered_qa import detect_lang, parse_items
from generators.sequential_niah.cameo import PREDICATES
from generators.sequential_niah.tkg import Quad
from needlework.errors import InputError


def test_icews14_reads_named_dated_quadruples(icews):
    assert len(icews.quads) == 74_845 + 8_514 + 7_371
    assert len(icews.entities) == 7_128 and len(icews.relations) == 230
    assert icews.quads[0] == Quad("Police (Australia)", "Arrest, detain, or charge with legal action", "Women (Australia)", "2014-01-01")
    times = sorted({q.time for q in icews.quads})
    assert times[0] == "2014-01-01" and times[-1] == "2014-12-31" and len(times) == 365
    assert len(icews.fingerprints) == 5
    assert icews.time == {"distribution": "ICEWS14 (days from t=1)", "unit": "day", "origin": "2014-01-01", "origin_t": 1,
                          "splits": ["train.txt", "valid.txt", "test.txt"], "relations": "rel2id.txt"}


def test_every_icews14_relation_has_its_own_predicates(icews):
    assert set(icews.relations.values()) <= set(PREDICATES)
    assert all(PREDICATES[r][0] and PREDICATES[r][1] for r in icews.relations.values())
    varied = [r for r in icews.relations.values() if len(PREDICATES[r][0]) >= 2 and len(PREDICATES[r][1]) >= 2]
    assert len(varied) >= 40


def write_icews(folder: Path, train: str) -> Path:
    folder.mkdir()
    (folder / "entity2id.txt").write_text("Alpha\t0\nBeta\t1\nGamma\t2\n", encoding="utf-8")
    (folder / "rel2id.txt").write_text("Consult\t0\nPraise or endorse\t1\n", encoding="utf-8")
    (folder / "train.txt").write_text(train, encoding="utf-8")
    return folder


@pytest.mark.parametrize("line, field", [
    ("0\tx\t1\t3\n", "relation_id"),
    ("0\t0\t9\t3\n", "object_id"),
    ("0\t0\t1\n", "t"),
    ("0\t0\t1\tsoon\n", "t"),
    ("0 0 1 2014-02-30\n", "t"),
])
def test_a_malformed_icews_line_names_file_line_and_field(tmp_path, line, field):
    folder = write_icews(tmp_path / "kg", "0\t0\t1\t1\n\n" + line)
    with pytest.raises(InputError) as err:
        read_icews(folder, splits=("train",), unit="day", start=datetime(2014, 1, 1))
    assert err.value.file.endswith("train.txt") and err.value.record == 3 and err.value.field == field
    assert "train.txt" in str(err.value) and "record 3" in str(err.value) and field in str(err.value)


def test_icews_maps_and_time_options(tmp_path):
    """Hours from a given start, space-padded columns (RE-Net's layout), and ISO dates taken as written."""
    folder = write_icews(tmp_path / "kg", "0\t0\t1\t0\t0\n1    \t1    \t2\t48\t0\n2\t0\t0\t2015-03-01\n")
    graph = read_icews(folder, splits=("train",), unit="hour", start=datetime(2018, 1, 1))
    assert [q.time for q in graph.quads] == ["2018-01-01", "2018-01-03", "2015-03-01"]
    assert graph.time["unit"] == "hour" and graph.time["origin"] == "2018-01-01" and graph.time["splits"] == ["train.txt"]
    with pytest.raises(InputError, match="--tkg-time-unit"):
        read_icews(folder, splits=("train",))
    (folder / "train.txt").write_text("0\t0\t1\t2015-03-01\n", encoding="utf-8")
    assert read_icews(folder, splits=("train",)).time["unit"] == "iso-date"
    (folder / "entity2id.txt").write_text("Alpha\t0\nBeta\tone\n", encoding="utf-8")
    with pytest.raises(InputError) as err:
        read_icews(folder, splits=("train",))
    assert err.value.file.endswith("entity2id.txt") and err.value.record == 2 and err.value.field == "id"
    (folder / "entity2id.txt").write_text("Alpha\t0\nBeta\t1\nGamma\t2\n", encoding="utf-8")
    with pytest.raises(InputError, match="none of the split files valid.txt exists"):
        read_icews(folder, splits=("valid",))


def test_item_parsing_and_language_detection():
    assert parse_items("Intro line\n- one\n- two\n") == ["one", "two"]
    assert parse_items("1) a\n2) b\n(3) c\nStep 4: d") == ["a", "b", "c", "d"]
    assert parse_items("alpha\nbeta") == ["alpha", "beta"]
    assert parse_items("1. Weigh 2.5 kg of flour.\n2. Sift it.") == ["Weigh 2.5 kg of flour.", "Sift it."]
    assert detect_lang("如何办理护照？") == "zh" and detect_lang("How do I renew a passport?") == "en"
