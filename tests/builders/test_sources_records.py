"""Record files: records and lines are numbered from 1 in every error a user sees."""

from __future__ import annotations

import json

import pytest

from builders.sources.records import TABLE_SUFFIXES, read_records, require_field
from needlework.errors import InputError


def read_error(path) -> InputError:
    with pytest.raises(InputError) as caught:
        read_records(path, TABLE_SUFFIXES)
    return caught.value


def test_a_broken_second_line_is_record_2_on_line_2(tmp_path):
    path = tmp_path / "rows.jsonl"
    path.write_text(json.dumps({"a": 1}) + "\n{broken\n", encoding="utf-8")
    err = read_error(path)
    assert err.record == 2
    assert str(err).startswith(f"{path}, record 2: line 2 is not valid JSON")


def test_blank_lines_count_as_lines_not_records(tmp_path):
    path = tmp_path / "rows.jsonl"
    path.write_text("\n" + json.dumps({"a": 1}) + "\n\n{broken\n", encoding="utf-8")
    assert str(read_error(path)).startswith(f"{path}, record 2: line 4 is not valid JSON")


def test_a_jsonl_line_that_is_not_an_object_is_numbered_from_1(tmp_path):
    path = tmp_path / "rows.jsonl"
    path.write_text("[1, 2]\n", encoding="utf-8")
    assert str(read_error(path)) == f"{path}, record 1: expected an object, got list"


def test_json_list_and_csv_records_are_numbered_from_1(tmp_path):
    listed = tmp_path / "rows.json"
    listed.write_text(json.dumps([{"a": 1}, {"a": 2}, "three"]), encoding="utf-8")
    assert str(read_error(listed)) == f"{listed}, record 3: expected an object, got str"
    table = tmp_path / "rows.csv"
    table.write_text("a,b\n1,2\n3\n", encoding="utf-8")
    assert str(read_error(table)) == f"{table}, record 2: expected 2 columns as in the header, got 1"


def test_require_field_takes_the_position_and_shows_the_number(tmp_path):
    with pytest.raises(InputError) as caught:
        require_field({"a": 1}, "b", "rows.jsonl", 0)
    assert (caught.value.record, str(caught.value)) == (1, "rows.jsonl, record 1, field 'b': missing")
