"""Read a temporal knowledge graph in the ICEWS layout into named, dated quadruples.

The layout (ICEWS14, ICEWS05-15, ICEWS18 as distributed with TKG-completion code) is a folder with
``entity2id.txt`` and ``rel2id.txt`` (``name<TAB>id`` per line) and quadruple files
``train.txt``, ``valid.txt``, ``test.txt`` (``subject_id<TAB>relation_id<TAB>object_id<TAB>t``,
optionally followed by more columns, which are ignored). ``t`` is a time index: day
``start + (t - first_t) // t_step``. ICEWS14 counts days from ``t = 1`` = 2014-01-01; releases that
count hours (ICEWS18: 0, 24, 48 ...) take ``t_step=24``. A ``t`` already written as an ISO date
is taken as it is. Every malformed line raises an :class:`InputError` naming the file, the line
number (as the record) and the field.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date, timedelta
from pathlib import Path

from builders.hashing import file_sha256
from needlework.errors import InputError
from generators.sequential_niah.tkg import Quad

ENTITY_FILE = "entity2id.txt"
RELATION_FILE = "rel2id.txt"
SPLITS: tuple[str, ...] = ("train", "valid", "test")
QUAD_FIELDS = ("subject_id", "relation_id", "object_id", "t")
ICEWS14_START = date(2014, 1, 1)


@dataclass(frozen=True)
class TemporalGraph:
    """A temporal KG read from an ICEWS folder.

    Attributes:
        quads: The dated relations with names, in file order (train, valid, test).
        entities: Entity id -> name.
        relations: Relation id -> name.
        fingerprints: File path -> sha256, for the manifest.
    """

    quads: tuple[Quad, ...]
    entities: dict[int, str]
    relations: dict[int, str]
    fingerprints: dict[str, str]


def _lines(path: Path) -> list[str]:
    if not path.is_file():
        raise InputError(str(path), None, None, "file not found")
    try:
        return path.read_text(encoding="utf-8").split("\n")
    except UnicodeDecodeError as err:
        raise InputError(str(path), None, None, f"not UTF-8 text ({err.reason} at byte {err.start})") from None


def read_id_map(path: Path) -> dict[int, str]:
    """An ``name<TAB>id`` file as id -> name.

    Raises:
        InputError: A line lacks a tab, its id is not an integer, or an id or name repeats.
    """
    names: dict[int, str] = {}
    seen: dict[str, int] = {}
    for number, line in enumerate(_lines(path), start=1):
        if not line.strip():
            continue
        name, tab, raw = line.rstrip("\r").rpartition("\t")
        if not tab:
            raise InputError(str(path), number, "id", f"line {number} has no tab; expected 'name<TAB>id'")
        if not name.strip():
            raise InputError(str(path), number, "name", f"line {number} has an empty name")
        try:
            ident = int(raw)
        except ValueError:
            raise InputError(str(path), number, "id", f"line {number}: id {raw!r} is not an integer") from None
        if ident in names:
            raise InputError(str(path), number, "id", f"line {number}: id {ident} repeats (first for {names[ident]!r})")
        if name in seen:
            raise InputError(str(path), number, "name", f"line {number}: name {name!r} repeats (first with id {seen[name]})")
        names[ident] = name
        seen[name] = ident
    if not names:
        raise InputError(str(path), None, None, "holds no entries")
    return names


def _day(raw: str, start: date, first_t: int, t_step: int, file: str, number: int) -> str:
    if len(raw) == 10 and raw[4] == "-":
        try:
            return date.fromisoformat(raw).isoformat()
        except ValueError:
            raise InputError(file, number, "t", f"line {number}: {raw!r} is not a valid ISO date") from None
    try:
        t = int(raw)
    except ValueError:
        raise InputError(file, number, "t", f"line {number}: time {raw!r} is neither an integer index nor an ISO date") from None
    if t < first_t:
        raise InputError(file, number, "t", f"line {number}: time index {t} is before the first index {first_t}")
    return (start + timedelta(days=(t - first_t) // t_step)).isoformat()


def read_quads(path: Path, entities: dict[int, str], relations: dict[int, str], *, start: date = ICEWS14_START,
               first_t: int = 1, t_step: int = 1) -> list[Quad]:
    """The quadruples of one split file, with names and ISO dates (see the module docstring).

    Raises:
        InputError: A line has fewer than four fields, an id is not an integer or not in its
            map, or the time is not a valid index or date.
    """
    file = str(path)
    quads: list[Quad] = []
    for number, line in enumerate(_lines(path), start=1):
        if not line.strip():
            continue
        fields = line.rstrip("\r").split("\t")
        if len(fields) < len(QUAD_FIELDS):
            missing = QUAD_FIELDS[len(fields)]
            raise InputError(file, number, missing, f"line {number} has {len(fields)} tab-separated fields; expected "
                                                    f"{len(QUAD_FIELDS)} ({', '.join(QUAD_FIELDS)})")
        names = []
        for field, raw, table in zip(QUAD_FIELDS[:3], fields[:3], (entities, relations, entities)):
            try:
                ident = int(raw)
            except ValueError:
                raise InputError(file, number, field, f"line {number}: {raw!r} is not an integer id") from None
            if ident not in table:
                which = RELATION_FILE if field == "relation_id" else ENTITY_FILE
                raise InputError(file, number, field, f"line {number}: id {ident} is not in {which}")
            names.append(table[ident])
        quads.append(Quad(names[0], names[1], names[2], _day(fields[3].strip(), start, first_t, t_step, file, number)))
    return quads


def read_icews(folder: Path, *, splits: tuple[str, ...] = SPLITS, start: date = ICEWS14_START, first_t: int = 1,
               t_step: int = 1) -> TemporalGraph:
    """Every quadruple of an ICEWS-format folder, named and dated.

    Args:
        folder: The folder with ``entity2id.txt``, ``rel2id.txt`` and ``<split>.txt``.
        splits: Which split files to read (a missing one is an error).
        start: The date of time index ``first_t``.
        first_t: The first time index (ICEWS14: 1).
        t_step: Time-index units per day (1 for day indices, 24 for hour indices).

    Raises:
        InputError: The folder or a file is missing, or a line is malformed.
    """
    if not folder.is_dir():
        raise InputError(str(folder), None, None, "no such folder; expected an ICEWS folder with entity2id.txt, rel2id.txt and split files")
    if t_step < 1:
        raise InputError(str(folder), None, "t_step", f"must be >= 1, got {t_step}")
    entities = read_id_map(folder / ENTITY_FILE)
    relations = read_id_map(folder / RELATION_FILE)
    quads: list[Quad] = []
    paths = [folder / ENTITY_FILE, folder / RELATION_FILE]
    for split in splits:
        path = folder / f"{split}.txt"
        quads += read_quads(path, entities, relations, start=start, first_t=first_t, t_step=t_step)
        paths.append(path)
    return TemporalGraph(tuple(quads), entities, relations, {str(p): file_sha256(p) for p in paths})
