"""Retrieval needles (S-RT, M-RT): fictional statements with their question, answer format and keyword.

Every needle is made of invented names (syllable-built places and people from
:class:`generators.world.names.NameForge`, which avoids real names) and legendary items, so no
needle states real-world knowledge and no model can answer from memory (paper §3.1: "synthetic,
abstract, and fictional"). A needle has one keyword, the part a correct answer must contain
(equation 1). The paper's examples ("Hidden on Emerald Island is the legendary Stardust Shard",
"The ruler of the Orion star system is Guardian of Time Lightspeed") are the first two kinds.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from needlework.errors import SpecError
from generators.world.draws import Draws
from generators.world.names import NameForge


@dataclass(frozen=True)
class NeedleKind:
    """One kind of retrieval needle in one language.

    Attributes:
        text: The needle sentence (``{place}``, ``{answer}``).
        question: The question that asks for the answer.
        answer_format: The sentence to fill in ("... is ______", no final punctuation).
    """

    text: str
    question: str
    answer_format: str


KINDS: dict[str, dict[str, NeedleKind]] = {
    "island": {
        "en": NeedleKind("Hidden on {place} Island is the legendary {answer}.", "What legendary item is hidden on {place} Island?",
                         "The legendary item hidden on the {place} Island is ______"),
        "zh": NeedleKind("{place}岛上隐藏着传说中的{answer}。", "{place}岛上隐藏着什么传说中的物品？", "{place}岛上隐藏的传说中的物品是______"),
    },
    "star": {
        "en": NeedleKind("The ruler of the {place} star system is {epithet} {answer}.", "Who is the ruler of the {place} star system?",
                         "The ruler of the {place} star system is ______"),
        "zh": NeedleKind("{place}星系的统治者是{epithet}{answer}。", "{place}星系的统治者是谁？", "{place}星系的统治者是______"),
    },
    "capital": {
        "en": NeedleKind("The capital of the {place} Kingdom is the city of {answer}.", "What is the capital of the {place} Kingdom?",
                         "The capital of the {place} Kingdom is ______"),
        "zh": NeedleKind("{place}王国的首都是{answer}城。", "{place}王国的首都是哪座城市？", "{place}王国的首都是______"),
    },
}
"""Needle kind -> language -> its sentences. Island needles hide an item; the others name a person or a city."""

ITEM_MODIFIERS: tuple[tuple[str, str], ...] = (
    ("Stardust", "星尘"), ("Moonlight", "月光"), ("Thunder", "雷霆"), ("Frost", "寒霜"), ("Phoenix", "凤凰"),
    ("Dragon", "巨龙"), ("Ember", "余烬"), ("Tide", "潮汐"), ("Dawn", "黎明"), ("Echo", "回声"),
    ("Void", "虚空"), ("Aurora", "极光"), ("Starfire", "星火"), ("Dream", "梦境"), ("Eclipse", "日蚀"),
    ("Nebula", "星云"), ("Crystal", "水晶"), ("Shadow", "暗影"), ("Storm", "风暴"), ("Comet", "彗星"),
    ("Silence", "寂静"), ("Time-Space", "时空"), ("Goodness", "善良"), ("Twilight", "暮光"), ("Whisper", "低语"),
)
ITEM_OBJECTS: tuple[tuple[str, str], ...] = (
    ("Shard", "碎片"), ("Key", "钥匙"), ("Orb", "宝珠"), ("Crown", "王冠"), ("Compass", "罗盘"),
    ("Lantern", "灯笼"), ("Mirror", "明镜"), ("Chalice", "圣杯"), ("Amulet", "护符"), ("Scroll", "卷轴"),
    ("Blade", "长剑"), ("Gem", "宝石"), ("Feather", "羽毛"), ("Harp", "竖琴"), ("Scepter", "权杖"),
    ("Horn", "号角"), ("Ring", "戒指"), ("Bell", "铃铛"), ("Map", "地图"), ("Seal", "印章"),
    ("Locket", "吊坠"), ("Codex", "法典"),
)
MAX_NAME_TRIES = 1_000
RULER_EPITHETS: tuple[tuple[str, str], ...] = (
    ("Cosmic Ruler", "宇宙统治者"), ("Guardian of Time", "时间守护者"), ("Star Warden", "星辰守卫"),
    ("High Regent", "至高摄政"), ("Void Emperor", "虚空皇帝"), ("Eternal Sovereign", "永恒君主"),
)


@dataclass(frozen=True)
class RetrievalNeedle:
    """A retrieval needle in one language.

    Attributes:
        kind: Its kind (a key of :data:`KINDS`).
        text: The needle sentence.
        question: The question asking for it.
        answer_format: The fill-in sentence.
        keyword: What a correct answer contains.
    """

    kind: str
    text: str
    question: str
    answer_format: str
    keyword: str


def retrieval_needles(rng: np.random.Generator, n: int, lang: str) -> list[RetrievalNeedle]:
    """``n`` needles with distinct places and distinct answers, kinds taken in turn from a random start.

    Names come from one :class:`NameForge`, so no two places, rulers or cities share a name, and
    no name contains another (a keyword found inside a longer name would credit the wrong needle).
    Items are modifier-object pairs drawn without replacement.
    """
    d = Draws(rng)
    forge = NameForge()
    kinds = list(KINDS)
    first = d.below(len(kinds))
    items = rng.choice(len(ITEM_MODIFIERS) * len(ITEM_OBJECTS), size=n, replace=False).tolist()

    def item(code: int) -> str:
        modifier, obj = ITEM_MODIFIERS[code // len(ITEM_OBJECTS)], ITEM_OBJECTS[code % len(ITEM_OBJECTS)]
        return f"{modifier[0]} {obj[0]}" if lang == "en" else f"{modifier[1]}{obj[1]}"

    epithets = [e[0] if lang == "en" else e[1] for e in RULER_EPITHETS]
    fixed = " ".join(getattr(KINDS[k][lang], f) for k in KINDS for f in ("text", "question", "answer_format"))
    used: list[str] = [item(code) for code in items] + epithets + [fixed]

    def fresh() -> str:
        """A proper name that neither contains nor is contained in an item, epithet, template word or name of this sample."""
        for _ in range(MAX_NAME_TRIES):
            name = getattr(forge.proper(d), lang)
            if not any(name in other or other in name for other in used):
                used.append(name)
                return name
        raise SpecError(f"could not draw {n} non-overlapping needle names in {MAX_NAME_TRIES} tries")

    needles = []
    for i in range(n):
        kind = kinds[(first + i) % len(kinds)]
        template = KINDS[kind][lang]
        place = fresh()
        epithet = ""
        if kind == "island":
            answer = used[i]
        else:
            answer = fresh()
            if kind == "star":
                epithet = epithets[d.below(len(epithets))]
        fields = {"place": place, "answer": answer, "epithet": epithet}
        needles.append(RetrievalNeedle(kind, template.text.format(**fields), template.question.format(**fields),
                                       template.answer_format.format(**fields), answer))
    return needles
