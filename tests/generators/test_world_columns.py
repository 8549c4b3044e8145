"""The world's column storage gives back exactly what it was given (:mod:`generators.world.columns`)."""

from __future__ import annotations

import pytest

from generators.world.columns import (
    IntColumn,
    InternedColumn,
    PackedIntSet,
    RaggedColumn,
    TextColumn,
    TimeColumn,
)
from generators.world.growth import grow_world
from generators.world.model import EntityTable, Fact, FactTable
from generators.world.names import Name
from generators.world.solver import FactSolver, Unsolvable
from generators.world.spec import WorldSpec


def test_time_column_round_trips_years_dates_none_and_odd_text():
    times = [None, "1952", "1950-03-14", "0007", "2024-12-31", "", "1950-3-14", "c. 1900", "1950-00-05", "١٩٥٠",
             "-500", "1950-03-14T10:00", "1999-99-99"]
    column = TimeColumn()
    for t in times:
        column.append(t)
    assert [column[i] for i in range(len(times))] == times
    column[0] = "1800-01-02"
    column[1] = None
    assert (column[0], column[1]) == ("1800-01-02", None)


def test_int_interned_text_and_ragged_columns_round_trip():
    ints, interned, texts, ragged = IntColumn(), InternedColumn(), TextColumn(), RaggedColumn()
    for value in (0, None, -5, 2**31 - 1):
        ints.append(value)
    for value in ("person", None, "city", "person"):
        interned.append(value)
    for value in ("Korello", "科雷洛", "", "《长河》"):
        texts.append(value)
    for value in ((), (3, 1), (7,)):
        ragged.append(value)
    assert [ints[i] for i in range(4)] == [0, None, -5, 2**31 - 1]
    assert [interned[i] for i in range(4)] == ["person", None, "city", "person"] and interned.values == ["person", None, "city"]
    assert [texts[i] for i in range(4)] == ["Korello", "科雷洛", "", "《长河》"]
    assert [ragged[i] for i in range(3)] == [(), (3, 1), (7,)]
    ragged[2] = (9, 9, 9)
    assert ragged[2] == (9, 9, 9) and ragged[1] == (3, 1)
    with pytest.raises(IndexError, match="only the last row"):
        ragged[0] = (1,)


def test_packed_int_set_answers_membership_before_and_after_merges():
    members = PackedIntSet()
    members.MERGE_AT = 3  # merge into the sorted array every third addition
    added = [2**64 - 1, 0, 17, 2**63, 5, 17, 99]
    for value in added:
        members.add(value)
    assert all(v in members for v in added) and len(set(added)) <= len(members) <= len(added)
    assert not any(v in members for v in (1, 16, 18, 2**63 - 1, 2**64 - 2))


def test_entity_views_read_and_write_their_row():
    table = EntityTable()
    name = Name("Ada Korello", "阿达·科雷洛", ("{G} {F}", "{G}·{F}"), (("G", (4, 17)), ("F", (2, 30, 8))))
    a = table.add("person", "physician", name, "female", born=1901)
    b = table.add("city", "port_city", Name("Lumo", "卢莫", ("{N}", "{N}"), (("N", (5, 6)),)), founded=1200, see_also=(0,))
    a.died = 1970
    assert table[0].name == name and table[0].died == 1970 and table[-1].see_also == (0,)
    assert (b.gender, b.born, b.twin_of, b.founded) == (None, None, None, 1200)
    assert table[0] == a and table[0] != b and [e.id for e in table[0:2]] == [0, 1]
    with pytest.raises(IndexError):
        table[2]


def test_fact_table_keeps_each_subjects_facts_in_the_order_stated():
    table = FactTable()
    for _ in range(3):
        table.add_subject()
    stated = [Fact(1, "born_in", 0, "1950-03-14"), Fact(0, "population", None, "2015", "120400"),
              Fact(1, "spouse", 2, "1975-06-01"), Fact(2, "spouse", 1, "1975-06-01"), Fact(1, "died_in", 0, "2001")]
    for fact in stated:
        table.state(fact)
    assert table[1] == (stated[0], stated[2], stated[4]) and table[0] == (stated[1],) and table.count() == 5
    with pytest.raises(ValueError, match="not about entity 0"):
        table.extend(0, [stated[0]])


def test_grown_world_reads_back_as_plain_records():
    world = grow_world(WorldSpec(docs=400, questions=0), seed=5)
    facts = list(world.facts())
    assert len(facts) == world.facts_of.count() and all(isinstance(f, Fact) for f in facts)
    assert sum(len(f) for f in world.facts_of) == len(facts)
    twin = world.twins[0]
    assert world.entities[twin.twin].twin_of == twin.original
    assert world.name(twin.twin, "en") == world.entities[twin.twin].name.en
    assert len(world.events) > 0 and all(world.events[i] == e for i, e in enumerate(world.events))


def test_solver_tells_none_objects_from_entity_ids_and_reads_years_exactly():
    solver = FactSolver([(1, "r", -1, None), (1, "r", None, "1950-01-01"), (2, "t", None, "0900"), (2, "u", 3, "")])
    assert solver.solve(1, ["r"], "entity").answer == -1
    assert solver.solve(2, ["t"], "year").answer == "0900"
    with pytest.raises(Unsolvable, match="0 distinct years"):
        solver.solve(2, ["u"], "year")
    with pytest.raises(Unsolvable, match="0 candidate"):
        solver.solve(9, ["never_seen"], "entity")
