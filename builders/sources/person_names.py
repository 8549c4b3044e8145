"""Person names for kinship needles, from Faker's name lists (the source of the paper's own names).

The paper's people ("John Cole MD", "Kaitlyn Chandler") are Faker's; needlework takes Faker's
``en_US`` first and last names and ``zh_CN`` surnames and given names as word lists and draws from
them with its own seeded generator, so names depend on the seed and the list contents (whose
sha256 the manifest records), never on Faker's global random state.
"""

from __future__ import annotations

import hashlib
from importlib import metadata

from generators.needlebench.kinship import PersonNames
from generators.needlebench.templates import EXAMPLE_NAMES


def faker_person_names() -> tuple[PersonNames, dict[str, str]]:
    """The cleaned name lists and the fingerprint of each list read."""
    from faker.providers.person.en_US import Provider as English  # lazy: only NeedleBench needs Faker
    from faker.providers.person.zh_CN import Provider as Chinese

    lists = {
        "en_US/first_names": list(English.first_names),
        "en_US/last_names": list(English.last_names),
        "zh_CN/last_names": list(Chinese.last_names),
        "zh_CN/first_names": list(Chinese.first_names),
    }
    version = metadata.version("faker")
    fingerprints = {
        f"faker=={version}/{name}": hashlib.sha256("\n".join(values).encode("utf-8")).hexdigest()
        for name, values in lists.items()
    }
    names = PersonNames.from_lists(lists["en_US/first_names"], lists["en_US/last_names"], lists["zh_CN/last_names"],
                                   lists["zh_CN/first_names"], EXAMPLE_NAMES)
    return names, fingerprints
