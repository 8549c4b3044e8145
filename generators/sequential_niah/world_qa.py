"""Offline defaults for the three needle pipelines, from the synthetic world (``generators.world``).

* real-temporal: the world's dated events. An *actor* question asks for the interactions one
  country, party, company or politician took part in over a period (the world's interaction graph
  is sparse per pair, so questions follow one actor, not a pair); a *life* question asks for the
  life events of one person (born, graduated, joined, married, moved, retired, died ...). Needles
  and answers are rendered like the KG's (:mod:`tkg`); distractors are the subject's events just
  outside the period and, inside it, the events of a near-miss twin (a look-alike name) or of
  other subjects.
* real-logical: procedures derived from facts. A person's *career path* (graduation, jobs,
  foundings, works, retirement, in date order) goes through :mod:`logical` with the person's
  career as the task; a *containment chain* asks, from where a person was born or an organization
  sits, for the city, its country and that country's continent, smallest first, each needle
  stating one link of the chain.
* synthetic-temporal: :mod:`synthetic` with the world's people as diary authors.
"""

from __future__ import annotations

from bisect import bisect_left, bisect_right
from collections import defaultdict
from dataclasses import dataclass, replace
from typing import Iterable, NamedTuple

import numpy as np

from needlework.checks import require_one_of
from needlework.errors import SpecError
from generators.seeding import rng_for
from generators.sequential_niah.cameo import predicates
from generators.sequential_niah.dates import describe_period, parse_iso
from generators.sequential_niah.logical import LogicalSpec, OrderedQuestion, logical_qa
from generators.sequential_niah.qa import SequentialQA
from generators.sequential_niah.spec import BENCHMARK, LANGS, NEEDLE_COUNT_RANGE, check_question_counts
from generators.sequential_niah.synthetic import SyntheticSpec, synthetic_qas
from generators.sequential_niah.tkg import canonical_event, pick_period, pick_window, render_sentence
from generators.world.model import World
from generators.world.spec import doc_id

SOURCE = "world"
LIFE_PREDICATES: dict[str, tuple[tuple[str, ...], tuple[str, ...]]] = {
    "born": (("was born in {o}",), ("出生于{o}",)),
    "graduated": (("graduated from {o}", "completed studies at {o}"), ("毕业于{o}", "从{o}毕业")),
    "married": (("married {o}", "wed {o}"), ("与{o}结婚", "和{o}结为夫妻")),
    "joined": (("joined {o}", "became a member of {o}"), ("加入了{o}", "成为{o}的一员")),
    "had child": (("became a parent of {o}",), ("迎来了孩子{o}的出生",)),
    "founded": (("founded {o}", "established {o}"), ("创立了{o}", "创办了{o}")),
    "wrote": (("wrote {o}", "published the book {o}"), ("创作了{o}", "写成了{o}")),
    "directed": (("directed {o}", "directed the film {o}"), ("执导了{o}", "导演了{o}")),
    "performed": (("released the song {o}", "recorded the song {o}"), ("演唱了{o}", "发行了歌曲{o}")),
    "moved": (("moved to {o}", "relocated to {o}"), ("迁居{o}", "搬到了{o}")),
    "retired": (("retired from {o}",), ("从{o}退休",)),
    "died": (("died in {o}",), ("在{o}去世",)),
}
"""Life-event relation -> (English, Chinese) predicates after the person; the first is canonical."""
DIED_NOWHERE: tuple[tuple[str, ...], tuple[str, ...]] = (("died",), ("去世",))
TWIN_LIFE: dict[str, str] = {"born_in": "born", "educated_at": "graduated", "employed_by": "joined",
                             "member_of": "joined", "party_member": "joined", "died_in": "died"}
"""Dated facts a twin copies from its original, as life events (twins have facts, not events)."""
CAREER_STEPS = frozenset({"graduated", "joined", "founded", "wrote", "directed", "performed", "retired"})

QUESTIONS: dict[str, dict[str, dict[bool, tuple[str, ...]]]] = {
    "actor": {
        "en": {True: ("What were the key interactions involving {a} {period}? List them in chronological order.",
                      "In chronological order, list the recorded interactions of {a} with other actors {period}."),
               False: ("What were the key interactions involving {a} {period}?", "Which events involving {a} took place {period}?")},
        "zh": {True: ("{period}期间，{a}参与了哪些重要互动？请按时间顺序列出。", "请按时间先后顺序列出{a}在{period}期间的主要互动。"),
               False: ("{a}在{period}期间参与了哪些重要互动？",)},
    },
    "life": {
        "en": {True: ("What happened in the life of {a} {period}? List the events in chronological order.",
                      "List, in chronological order, the life events of {a} {period}."),
               False: ("What were the main events in the life of {a} {period}?",)},
        "zh": {True: ("请按时间顺序列出{a}在{period}期间的人生经历。", "{a}在{period}期间经历了哪些事？请按时间先后顺序回答。"),
               False: ("{a}在{period}期间经历了哪些重要事件？",)},
    },
}
REFERENCES: dict[str, dict[str, str]] = {
    "actor": {"en": "The key interactions involving {a} {period}, in chronological order:", "zh": "{a}在{period}期间的重要互动按时间顺序如下："},
    "life": {"en": "The events in the life of {a} {period}, in chronological order:", "zh": "{a}在{period}期间的经历按时间顺序如下："},
}
CAREER_QUESTION: dict[str, tuple[str, str]] = {
    "en": ("What were the steps of {a}'s career path, in order?", "{a}'s career path"),
    "zh": ("{a}的职业道路经历了哪些步骤？请按顺序列出。", "{a}的职业道路"),
}
"""Career questions and their task phrase."""
CHAIN: dict[str, dict[str, str]] = {
    "en": {"question": "Starting from the city where {a} {where}, list that city, the country it is in and the continent "
                       "that country is in, in order from the smallest to the largest.",
           "born": "was born", "seat": "is based", "head": "is seated",
           "link_born": "{a} was born in {o}.", "link_seat": "{a} is based in {o}.", "link_city": "{a} is a city in {o}.",
           "link_country": "{a} is a country in {o}.", "reference": "From the smallest to the largest:"},
    "zh": {"question": "从{a}{where}的城市开始，依次列出这座城市、它所在的国家以及该国家所在的大洲（从小到大）。",
           "born": "出生", "seat": "所在", "head": "所在",
           "link_born": "{a}出生于{o}。", "link_seat": "{a}位于{o}。", "link_city": "{o}有一座城市叫{a}。",
           "link_country": "{a}是{o}的一个国家。", "reference": "从小到大依次为："},
}
"""Containment-chain questions: ``{where}`` says how the subject relates to its city."""
SEAT_RELATIONS = {"born_in": "born", "headquartered_in": "seat", "located_in": "seat"}


@dataclass(frozen=True)
class WorldTemporalSpec:
    """What real-temporal questions to make from the world's events.

    Attributes:
        lang: ``en`` or ``zh``.
        count: Number of questions (subjects visited in a seeded order, revisited past their number).
        min_needles: Fewest needles (the paper: 3).
        max_needles: Most needles (the paper: 10).
        distractors: Near-miss events per question.
        unordered_share: Share of questions that do not ask for chronological order.
    """

    lang: str
    count: int
    min_needles: int = NEEDLE_COUNT_RANGE["real-temporal"][0]
    max_needles: int = NEEDLE_COUNT_RANGE["real-temporal"][1]
    distractors: int = 2
    unordered_share: float = 0.4

    def __post_init__(self) -> None:
        check_question_counts(self.lang, self.count, self.min_needles, self.max_needles)
        if self.distractors < 0 or not 0.0 <= self.unordered_share <= 1.0:
            raise SpecError(f"need distractors >= 0 and unordered_share in [0, 1], got {self.distractors} and {self.unordered_share}")


class Happening(NamedTuple):
    """A dated event of the world, written from its subject's side."""

    time: str
    subject: str
    relation: str
    phrasings: tuple[str, ...]
    """Predicates with the object filled in; the first is canonical."""
    entities: tuple[int, ...] = ()
    """The world entities it names (subject, then object if any): their articles state it too."""


def world_person_names(world: World, lang: str) -> tuple[str, ...]:
    """The names of the world's people (twins excluded) in ``lang``, for synthetic diaries."""
    return tuple(world.name(e.id, lang) for e in world.entities if e.type == "person" and e.twin_of is None)


def world_articles(entities: Iterable[int], lang: str) -> tuple[str, ...]:
    """The long-text ids of the ``lang`` articles of ``entities`` (``world/<doc id>``, as
    :func:`builders.sources.long_texts.read_long_texts` names the world's articles), sorted, once each."""
    return tuple(f"{SOURCE}/{d}" for d in sorted({doc_id(e, lang) for e in entities}))


def world_synthetic_qas(world: World, spec: SyntheticSpec, *, seed: int) -> list[SequentialQA]:
    """Synthetic-temporal QAs whose diary authors are the world's people (each QA avoids its author's article)."""
    qas = synthetic_qas(spec, seed=seed, names=world_person_names(world, spec.lang))
    people = {world.name(e.id, spec.lang): e.id for e in world.entities if e.type == "person" and e.twin_of is None}
    return [replace(q, articles=world_articles((people[q.subject],), spec.lang)) if q.subject in people else q for q in qas]


def _life(world: World, subject: int, relation: str, obj: int | None, time: str, lang: str) -> Happening:
    table = DIED_NOWHERE if obj is None else LIFE_PREDICATES[relation]
    index = LANGS.index(lang)
    o = "" if obj is None else world.name(obj, lang)
    return Happening(time, world.name(subject, lang), relation, tuple(p.format(o=o) for p in table[index]),
                     (subject,) if obj is None else (subject, obj))


def _interaction(world: World, subject: int, relation: str, obj: int, time: str, lang: str) -> Happening:
    return Happening(time, world.name(subject, lang), relation,
                     tuple(p.format(o=world.name(obj, lang)) for p in predicates(relation, lang)), (subject, obj))


class _Timelines:
    """Per subject, its dated happenings (one per day), and all happenings by time for distractors."""

    def __init__(self, world: World, lang: str) -> None:
        self.actor: dict[int, list[Happening]] = defaultdict(list)
        self.life: dict[int, list[Happening]] = defaultdict(list)
        self.all_actor: list[tuple[str, int, int, Happening]] = []
        self.all_life: list[tuple[str, int, int, Happening]] = []
        for e in sorted(world.events, key=lambda e: (e.time, e.subject, e.relation, -1 if e.object is None else e.object)):
            if e.kind == "interaction":
                h = _interaction(world, e.subject, e.relation, e.object, e.time, lang)
                for who in (e.subject, e.object):
                    self.actor[who].append(h)
                self.all_actor.append((e.time, e.subject, e.object, h))
            else:
                h = _life(world, e.subject, e.relation, e.object, e.time, lang)
                self.life[e.subject].append(h)
                self.all_life.append((e.time, e.subject, -1 if e.object is None else e.object, h))
        for table in (self.actor, self.life):
            for key, items in table.items():
                first_of_day: dict[str, Happening] = {}
                for h in items:
                    first_of_day.setdefault(h.time, h)
                table[key] = list(first_of_day.values())
        self._times = {"actor": [r[0] for r in self.all_actor], "life": [r[0] for r in self.all_life]}
        self.twin_life: dict[int, list[Happening]] = defaultdict(list)
        for t in world.twins:
            for f in world.facts_of[t.twin]:
                if f.relation in TWIN_LIFE and f.time is not None and len(f.time) == 10:
                    self.twin_life[t.original].append(_life(world, t.twin, TWIN_LIFE[f.relation], f.object, f.time, lang))

    def others_between(self, kind: str, subject: int, first: str, last: str) -> list[Happening]:
        """Happenings dated ``first``..``last`` (ISO) in which ``subject`` takes no part, as subject or object."""
        rows = self.all_actor if kind == "actor" else self.all_life
        times = self._times[kind]
        return [r[3] for r in rows[bisect_left(times, first):bisect_right(times, last)] if subject not in (r[1], r[2])]


def _timeline_qa(kind: str, subject: int, tl: _Timelines, world: World, spec: WorldTemporalSpec, *, seed: int,
                 number: int) -> SequentialQA:
    lang = spec.lang
    rng = rng_for(seed, BENCHMARK, "real-temporal", f"{lang}/{SOURCE}/{number:06d}")
    happenings = (tl.actor if kind == "actor" else tl.life)[subject]
    start, k = pick_window(len(happenings), spec.min_needles, spec.max_needles, rng)
    window = happenings[start:start + k]
    others = [parse_iso(h.time) for h in happenings[:start] + happenings[start + k:]]
    first, last, granularity = pick_period(parse_iso(window[0].time), parse_iso(window[-1].time), others, rng)
    period = describe_period(first, last, granularity, lang)
    ordered = not bool(rng.random() < spec.unordered_share)
    answers = tuple(canonical_event(h.subject, h.phrasings[0], parse_iso(h.time), lang) for h in window)
    needles = tuple(render_sentence(h.subject, h.phrasings, parse_iso(h.time), lang, rng) for h in window)
    lo, hi = first.isoformat(), last.isoformat()
    outside = [h for h in happenings if h.time < lo][-3:] + [h for h in happenings if h.time > hi][:3]
    near = [h for h in tl.twin_life.get(subject, []) if lo <= h.time <= hi] if kind == "life" else []
    inside = near or tl.others_between(kind, subject, lo, hi)
    distractors = _pick_distractors([p for p in (outside, inside) if p], spec.distractors, needles, lang, rng)
    name = world.name(subject, lang)
    question = QUESTIONS[kind][lang][ordered][int(rng.integers(len(QUESTIONS[kind][lang][ordered])))]
    reference = "\n".join([REFERENCES[kind][lang].format(a=name, period=period), *(f"- {a}" for a in answers)])
    return SequentialQA(f"real-temporal/{lang}/{SOURCE}/{number:06d}", lang, "real-temporal",
                        question.format(a=name, period=period), answers, needles, ordered, reference, distractors, SOURCE,
                        subject=name, articles=world_articles((subject, *(e for h in window for e in h.entities)), lang))


def _pick_distractors(pools: list[list[Happening]], n: int, needles: tuple[str, ...], lang: str,
                      rng: np.random.Generator) -> tuple[str, ...]:
    out: list[str] = []
    turn = int(rng.integers(len(pools))) if pools else 0
    for _ in range(4 * n):
        if len(out) == n or not pools:
            break
        pool = pools[turn % len(pools)]
        turn += 1
        h = pool[int(rng.integers(len(pool)))]
        text = render_sentence(h.subject, h.phrasings, parse_iso(h.time), lang, rng)
        if text not in out and text not in needles:
            out.append(text)
    return tuple(out)


def world_temporal_qas(world: World, spec: WorldTemporalSpec, *, seed: int) -> list[SequentialQA]:
    """Real-temporal QAs from the world's interaction graph and people's lives (see the module docstring).

    Raises:
        SpecError: No actor or person has ``spec.min_needles`` dated events.
    """
    tl = _Timelines(world, spec.lang)
    subjects = [("actor", s) for s in sorted(tl.actor) if len(tl.actor[s]) >= spec.min_needles]
    subjects += [("life", s) for s in sorted(tl.life) if len(tl.life[s]) >= spec.min_needles]
    if not subjects and spec.count:
        raise SpecError(f"no actor or person of the world has {spec.min_needles} or more dated events; grow a larger world")
    order = rng_for(seed, BENCHMARK, "real-temporal", f"{spec.lang}/{SOURCE}/subjects").permutation(len(subjects)) if subjects else []
    return [_timeline_qa(*subjects[int(order[i % len(subjects)])], tl, world, spec, seed=seed, number=i) for i in range(spec.count)]


def _career_questions(world: World, lang: str, tl: _Timelines) -> list[OrderedQuestion]:
    out = []
    question, task = CAREER_QUESTION[lang]
    for person in sorted(tl.life):
        steps = [h for h in tl.life[person] if h.relation in CAREER_STEPS]
        if len(steps) >= 2:
            name = world.name(person, lang)
            items = tuple(h.phrasings[0][:1].upper() + h.phrasings[0][1:] for h in steps)
            out.append(OrderedQuestion(f"career/{person}", lang, question.format(a=name), items, SOURCE, task.format(a=name)))
    return out


def _career_qa(world: World, question: OrderedQuestion, careers: list[OrderedQuestion], spec: LogicalSpec,
               tl: _Timelines, seed: int) -> SequentialQA:
    """The career-path QA of ``question`` (key ``career/<person>``), about the person, avoiding the
    articles of the person and of every place, organization and work its steps name."""
    person = int(question.key.split("/", 1)[1])
    named = (person, *(e for h in tl.life[person] if h.relation in CAREER_STEPS for e in h.entities))
    qa = logical_qa(question, careers, spec, seed=seed)
    return replace(qa, subject=world.name(person, question.lang), articles=world_articles(named, question.lang))


class _Places:
    """Where each place is (``located_in``) and what lies in each place, twins left out."""

    def __init__(self, world: World) -> None:
        self.parent: dict[int, int] = {}
        self.children: dict[int, list[int]] = defaultdict(list)
        for e in world.entities:
            if e.twin_of is None and e.type in ("city", "country"):
                parent = next((f.object for f in world.facts_of[e.id] if f.relation == "located_in"), None)
                if parent is not None:
                    self.parent[e.id] = parent
                    self.children[parent].append(e.id)


def _chain_qa(world: World, places: _Places, entity: int, relation: str, city: int, lang: str, seed: int,
              distractors: int) -> SequentialQA | None:
    country = places.parent.get(city)
    continent = places.parent.get(country) if country is not None else None
    if country is None or continent is None:
        return None
    words = CHAIN[lang]
    rng = rng_for(seed, BENCHMARK, "real-logical", f"{lang}/{SOURCE}/chain/{entity}")
    n = lambda e: world.name(e, lang)
    how = SEAT_RELATIONS[relation]
    answers = (n(city), n(country), n(continent))
    needles = (words[f"link_{how}"].format(a=n(entity), o=n(city)), words["link_city"].format(a=n(city), o=n(country)),
               words["link_country"].format(a=n(country), o=n(continent)))
    pool = [words["link_city"].format(a=n(c), o=n(country)) for c in places.children[country] if c != city]
    pool += [words["link_country"].format(a=n(c), o=n(continent)) for c in places.children[continent] if c != country]
    picks = rng.permutation(len(pool))[:distractors] if pool else []
    question = words["question"].format(a=n(entity), where=words[how])
    reference = "\n".join([words["reference"], *(f"- {a}" for a in answers)])
    return SequentialQA(f"real-logical/{lang}/{SOURCE}/chain/{entity}", lang, "real-logical", question, answers, needles,
                        True, reference, tuple(pool[int(i)] for i in picks), SOURCE, subject=n(entity),
                        articles=world_articles((entity, city, country, continent), lang))


def world_logical_qas(world: World, lang: str, spec: LogicalSpec, *, seed: int, chains: int = 200) -> list[SequentialQA]:
    """Real-logical QAs from the world's facts: career paths, then up to ``chains`` containment chains.

    Career paths need ``spec.min_needles..spec.max_needles`` steps and always number them (two
    jobs are otherwise unordered by logic); chains have three items and are made only when
    ``spec.min_needles <= 3``.
    """
    require_one_of("lang", lang, LANGS)
    tl = _Timelines(world, lang)
    careers = [q for q in _career_questions(world, lang, tl) if spec.min_needles <= len(q.items) <= spec.max_needles]
    numbered = replace(spec, numbered_share=1.0)
    out = [_career_qa(world, q, careers, numbered, tl, seed) for q in careers]
    if not spec.min_needles <= 3 <= spec.max_needles:
        return out
    places = _Places(world)
    for e in world.entities:
        if len(out) - len(careers) >= chains:
            break
        if e.twin_of is not None:
            continue
        fact = next((f for f in world.facts_of[e.id] if f.relation in SEAT_RELATIONS and f.object is not None
                     and world.entities[f.object].type == "city"), None)
        qa = None if fact is None else _chain_qa(world, places, e.id, fact.relation, fact.object, lang, seed, spec.distractors)
        if qa is not None:
            out.append(qa)
    return out
