"""Read a temporal knowledge graph in the ICEWS layout into named, dated quadruples.

The layout, as TKG-completion code distributes ICEWS14, ICEWS05-15, ICEWS18 and GDELT
(``INK-USC/RE-Net`` ``data/*``, ``JaySaligia/PPT`` ``data/ICEWS14``), is a folder with
``entity2id.txt`` and ``rel2id.txt`` or ``relation2id.txt`` (``name<TAB>id`` per line), an optional
``stat.txt`` (entity count, relation count, ...) and quadruple files ``train.txt``, ``valid.txt``,
``test.txt``: ``subject_id relation_id object_id t``, separated by tabs and/or space padding (RE-Net
pads ids with spaces before the tab, as its readers' ``line.split()`` allows), optionally followed
by more columns (RE-Net's fifth, always 0), which are ignored. The split files present are read;
an absent one is skipped, an empty one refused.

``t`` is an integer time stamp whose unit and origin the distribution defines
(:mod:`builders.sources.tkg_time`: ICEWS14 days from t = 1, ICEWS18 hours from t = 0, GDELT
minutes in 15-minute steps ...), or the user states them; a ``t`` already written as an ISO date
(Garcia-Duran et al.'s layout) is taken as it is. Every malformed line raises an
:class:`InputError` naming the file, the line number (as the record) and the field.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import date, datetime
from pathlib import Path

from builders.hashing import file_sha256
from builders.sources.tkg_time import TimeAxis, resolve_axis
from generators.sequential_niah.tkg import Quad
from needlework.errors import InputError

ENTITY_FILE = "entity2id.txt"
RELATION_FILES = ("rel2id.txt", "relation2id.txt")
STAT_FILE = "stat.txt"
RELATION_FILE = RELATION_FILES[0]
SPLITS: tuple[str, ...] = ("train", "valid", "test")
QUAD_FIELDS = ("subject_id", "relation_id", "object_id", "t")


@dataclass(frozen=True)
class TemporalGraph:
    """A temporal KG read from an ICEWS folder.

    Attributes:
        quads: The dated relations with names, in file order (train, valid, test).
        entities: Entity id -> name.
        relations: Relation id -> name.
        fingerprints: File path -> sha256, for the manifest.
        time: How the time stamps were read (:meth:`TimeAxis.describe`, or ``{"unit": "iso-date"}``),
            the split files read and the relation file, for the manifest.
    """

    quads: tuple[Quad, ...]
    entities: dict[int, str]
    relations: dict[int, str]
    fingerprints: dict[str, str]
    time: dict[str, object] = field(default_factory=dict)


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


def _is_iso(raw: str) -> bool:
    return len(raw) == 10 and raw[4] == "-"


def _rows(path: Path, entities: dict[int, str], relations: dict[int, str],
          relation_file: str) -> list[tuple[int, tuple[str, str, str], str]]:
    """(line number, names, raw time) per quadruple line of one split file."""
    file = str(path)
    rows = []
    for number, line in enumerate(_lines(path), start=1):
        fields = line.split()
        if not fields:
            continue
        if len(fields) < len(QUAD_FIELDS):
            missing = QUAD_FIELDS[len(fields)]
            raise InputError(file, number, missing, f"line {number} has {len(fields)} fields; expected "
                                                    f"{len(QUAD_FIELDS)} ({', '.join(QUAD_FIELDS)})")
        names = []
        for name, raw, table in zip(QUAD_FIELDS[:3], fields[:3], (entities, relations, entities)):
            try:
                ident = int(raw)
            except ValueError:
                raise InputError(file, number, name, f"line {number}: {raw!r} is not an integer id") from None
            if ident not in table:
                which = relation_file if name == "relation_id" else ENTITY_FILE
                raise InputError(file, number, name, f"line {number}: id {ident} is not in {which}")
            names.append(table[ident])
        raw_t = fields[3]
        if _is_iso(raw_t):
            try:
                date.fromisoformat(raw_t)
            except ValueError:
                raise InputError(file, number, "t", f"line {number}: {raw_t!r} is not a valid ISO date") from None
        else:
            try:
                int(raw_t)
            except ValueError:
                raise InputError(file, number, "t", f"line {number}: time {raw_t!r} is neither an integer "
                                                    "time stamp nor an ISO date") from None
        rows.append((number, (names[0], names[1], names[2]), raw_t))
    if not rows:
        raise InputError(file, None, None, "holds no quadruples; remove the empty split file or fill it")
    return rows


def relation_file(folder: Path) -> Path:
    """The folder's relation map: ``rel2id.txt`` or ``relation2id.txt`` (both only if identical).

    Raises:
        InputError: Neither exists, or both do and differ.
    """
    found = [folder / name for name in RELATION_FILES if (folder / name).is_file()]
    if not found:
        raise InputError(str(folder), None, None, f"no relation map: expected {' or '.join(RELATION_FILES)}")
    if len(found) == 2 and found[0].read_bytes() != found[1].read_bytes():
        raise InputError(str(folder), None, None, f"both {RELATION_FILES[0]} and {RELATION_FILES[1]} exist and differ; keep one")
    return found[0]


def read_stat(folder: Path) -> tuple[int, int] | None:
    """``stat.txt``'s entity and relation counts, or ``None`` when it is absent or not two integers."""
    path = folder / STAT_FILE
    if not path.is_file():
        return None
    fields = path.read_text(encoding="utf-8", errors="replace").split()
    try:
        return int(fields[0]), int(fields[1])
    except (IndexError, ValueError):
        return None


def read_icews(folder: Path, *, splits: tuple[str, ...] = SPLITS, unit: str | None = None,
               start: datetime | None = None) -> TemporalGraph:
    """Every quadruple of an ICEWS-format folder, named and dated.

    Args:
        folder: The folder with ``entity2id.txt``, ``rel2id.txt`` or ``relation2id.txt``, and
            ``<split>.txt`` files.
        splits: Which split files to read when present (at least one must be).
        unit: What an integer ``t`` counts (a key of :data:`builders.sources.tkg_time.TIME_UNITS`);
            ``None`` to recognize it from the distribution.
        start: The instant of ``t = 0``; ``None`` to recognize it.

    Raises:
        InputError: The folder, its maps or every split file is missing; a split file is empty;
            a line is malformed; or the time unit and origin can be neither recognized nor
            taken from ``unit`` and ``start``.
    """
    if not folder.is_dir():
        raise InputError(str(folder), None, None, "no such folder; expected an ICEWS folder with entity2id.txt, "
                                                  "rel2id.txt or relation2id.txt, and split files")
    entities = read_id_map(folder / ENTITY_FILE)
    relations_path = relation_file(folder)
    relations = read_id_map(relations_path)
    present = [folder / f"{split}.txt" for split in splits if (folder / f"{split}.txt").is_file()]
    if not present:
        raise InputError(str(folder), None, None, f"none of the split files {', '.join(s + '.txt' for s in splits)} exists")
    read = {path: _rows(path, entities, relations, relations_path.name) for path in present}
    stamps = {int(t) for rows in read.values() for _, _, t in rows if not _is_iso(t)}
    axis = resolve_axis(str(folder), folder.resolve().name, read_stat(folder), stamps, unit=unit, start=start)
    quads = [Quad(*names, _day(t, axis)) for rows in read.values() for _, names, t in rows]
    paths = [folder / ENTITY_FILE, relations_path, *present]
    time: dict[str, object] = axis.describe() if axis is not None else {"unit": "iso-date"}
    time |= {"splits": [p.name for p in present], "relations": relations_path.name}
    return TemporalGraph(tuple(quads), entities, relations, {str(p): file_sha256(p) for p in paths}, time)


def _day(raw: str, axis: TimeAxis | None) -> str:
    if _is_iso(raw) or axis is None:
        return raw
    return axis.day(int(raw)).isoformat()
