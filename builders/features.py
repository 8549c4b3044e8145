"""Column types of a release's configs, declared the way ``datasets`` declares them, without ``datasets``.

A builder declares each config's columns with :class:`Features` of :class:`Value`, :class:`List` and
nested ``dict`` structs, the names of ``datasets.Features``/``Value``/``List``::

    NEEDLE = {"text": Value("string"), "depth_percent": Value("float64")}
    FEATURES = Features({"id": Value("string"), "answers": List(Value("string")), "needles": List(NEEDLE)})

A declaration gives exactly what ``datasets.Features`` of the same declaration gives, so a release
written from it is the one ``datasets`` would write and reads back as such: the Arrow schema with
the ``huggingface`` schema metadata (:attr:`Features.arrow_schema`), the JSON form of that metadata
(:meth:`Features.to_dict`) and the card's YAML ``features`` list (:meth:`Features.to_yaml_list`).
Importing ``datasets`` (and pandas with it) costs about a second, most of a small build; this module
needs only pyarrow. ``tests/builders/test_features.py`` checks every builder's declarations against
``datasets``.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

import pyarrow as pa

DTYPES: dict[str, pa.DataType] = {
    "bool": pa.bool_(),
    "int8": pa.int8(),
    "int16": pa.int16(),
    "int32": pa.int32(),
    "int64": pa.int64(),
    "uint8": pa.uint8(),
    "uint16": pa.uint16(),
    "uint32": pa.uint32(),
    "uint64": pa.uint64(),
    "float16": pa.float16(),
    "float32": pa.float32(),
    "float64": pa.float64(),
    "string": pa.string(),
    "large_string": pa.large_string(),
    "binary": pa.binary(),
    "large_binary": pa.large_binary(),
}
"""The scalar dtypes a :class:`Value` may have: ``datasets``' name -> its Arrow type."""


@dataclass(frozen=True)
class Value:
    """A scalar column or struct field of one dtype (a key of :data:`DTYPES`), as ``datasets.Value``."""

    dtype: str

    def __post_init__(self) -> None:
        if self.dtype not in DTYPES:
            raise ValueError(f"unknown dtype {self.dtype!r}; one of {', '.join(DTYPES)}")


@dataclass(frozen=True)
class List:
    """A list of ``feature`` (a Value, List or struct dict), as ``datasets.List``; ``length`` >= 0 fixes
    the length of every list, -1 (the default) lets it vary."""

    feature: Feature
    length: int = -1


Feature = Value | List | dict[str, Any]
"""One column's type: a :class:`Value`, a :class:`List`, or a struct ``dict`` of field name -> Feature."""


class Features(dict[str, Feature]):
    """A config's columns in order: column name -> :data:`Feature`, as ``datasets.Features``."""

    @property
    def arrow_schema(self) -> pa.Schema:
        """The Arrow schema of the config's Parquet files, with the ``huggingface`` metadata
        (``{"info": {"features": to_dict()}}``) from which ``datasets`` reads the features back."""
        metadata = {"info": {"features": self.to_dict()}}
        return pa.schema(arrow_type(self)).with_metadata({"huggingface": json.dumps(metadata)})

    def to_dict(self) -> dict[str, Any]:
        """The JSON form ``datasets`` stores in the schema metadata (``datasets.Features.to_dict``)."""
        return {name: _json(feature) for name, feature in self.items()}

    def to_yaml_list(self) -> list[dict[str, Any]]:
        """The card's ``dataset_info.features`` list (``datasets.Features._to_yaml_list``): one
        ``{name, dtype | list | struct}`` entry per column, in order."""
        return _yaml_fields(self)


def arrow_type(feature: Feature) -> pa.DataType:
    """The Arrow type of a feature: a dict (Features included) is a struct of its fields in order,
    a :class:`List` a (fixed-size if ``length`` >= 0) list of its feature's type."""
    if isinstance(feature, Value):
        return DTYPES[feature.dtype]
    if isinstance(feature, List):
        return pa.list_(arrow_type(feature.feature), feature.length)
    if isinstance(feature, dict):
        return pa.struct({name: arrow_type(inner) for name, inner in feature.items()})
    raise TypeError(f"not a feature: {feature!r}")


def _json(feature: Feature) -> dict[str, Any]:
    if isinstance(feature, Value):
        return {"dtype": feature.dtype, "_type": "Value"}
    if isinstance(feature, List):
        length = {"length": feature.length} if feature.length != -1 else {}
        return {"feature": _json(feature.feature), **length, "_type": "List"}
    if isinstance(feature, dict):
        return {name: _json(inner) for name, inner in feature.items()}
    raise TypeError(f"not a feature: {feature!r}")


def _yaml_fields(struct: dict[str, Feature]) -> list[dict[str, Any]]:
    return [{"name": name, **_yaml(feature)} for name, feature in struct.items()]


def _yaml(feature: Feature) -> dict[str, Any]:
    """One field's YAML: ``dtype: x``, ``list: <item>`` or ``struct: [fields]``; a list's item is
    shortened to the dtype name of a Value and to the field list of a struct, as ``datasets`` does."""
    if isinstance(feature, Value):
        return {"dtype": feature.dtype}
    if isinstance(feature, List):
        item: Any = _yaml(feature.feature)
        if list(item) == ["dtype"]:
            item = item["dtype"]
        elif list(item) == ["struct"]:
            item = item["struct"]
        return {"list": item, **({"length": feature.length} if feature.length != -1 else {})}
    if isinstance(feature, dict):
        return {"struct": _yaml_fields(feature)}
    raise TypeError(f"not a feature: {feature!r}")
