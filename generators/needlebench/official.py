"""OpenCompass NeedleBench v2's ATC vocabulary, link sentences and prompts, as data, word for word.

Sources (open-compass/opencompass, read, not copied as code):

* ``opencompass/datasets/needlebench_v2/atc.py``: ``relationship_terms_en`` / ``_zh_CN`` (the ten terms), the link
  sentences ``relationship_templates_en`` / ``_zh_CN`` (:data:`OFFICIAL_LINKS`, with "During {B}'s upbringing, {A}
  was not only {B}'s {relationship}, but also {B}'s guardian."), the generations of each term
  (``relationship_generation_map_en`` / ``_zh``: parents 1, grandparents 2) and the four prompts
  (``shuffled_story_with_prompt_*``, ``nth_ancestor_prompt_*``, ``nth_descendant_prompt_*``,
  ``relationship_distance_prompt_*``), which the v2 ATC config
  (``opencompass/configs/datasets/needlebench_v2/atc/atc_0shot_nocot_2_power_en.py``) runs;
* ``opencompass/datasets/needlebench_v2/atc_elder_only.py``: the same sentences with "{B} is the child of {A}."
  (``{B}是{A}所生的孩子。``) in place of the guardian form (:data:`ELDER_ONLY_LINKS`), the forms the paper's
  Appendix C examples show; the v2 configs do not run it.

The prompts keep OpenCompass's fields: ``{shuffled_story}``, ``{last_person}``, ``{person}``, ``{n}``,
``{person_a}``, ``{person_b}``; ``{{}}`` is a literal ``{}`` after :meth:`str.format`. Link sentences use
``{elder}`` (OpenCompass's ``A``, the earlier name of the chain), ``{younger}`` (``B``) and ``{role}``.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

OFFICIAL_TERMS: dict[str, tuple[tuple[str, int], ...]] = {
    "en": (
        ("father", 1), ("mother", 1), ("dad", 1), ("mom", 1), ("grandfather", 2), ("grandmother", 2),
        ("maternal grandmother", 2), ("maternal grandfather", 2), ("paternal grandfather", 2), ("paternal grandmother", 2),
    ),
    "zh": (
        ("父亲", 1), ("母亲", 1), ("爸爸", 1), ("妈妈", 1), ("爷爷", 2), ("奶奶", 2), ("姥姥", 2), ("姥爷", 2),
        ("外公", 2), ("外婆", 2),
    ),
}
"""The ten relation terms per language and the generations each spans (atc.py's generation map)."""

OFFICIAL_LINKS: dict[str, tuple[str, ...]] = {
    "en": (
        "{elder} is {younger}'s {role}.",
        "{younger}'s {role} is {elder}.",
        "{elder}, as {younger}'s {role}, has a significant impact on {younger}'s upbringing.",
        "{elder} is not only {younger}'s {role} but also {younger}'s role model.",
        "During {younger}'s upbringing, {elder} was not only {younger}'s {role}, but also {younger}'s guardian.",
        "For {younger}, {elder} is not just a {role}, but also a friend.",
        "For {younger}, {elder} is more than just a {role}; {elder} is a lifelong mentor of {younger}.",
    ),
    "zh": (
        "{elder}是{younger}的{role}。",
        "{younger}的{role}是{elder}。",
        "{elder}作为{younger}的{role}，对{younger}的成长有重要影响。",
        "{elder}不仅是{younger}的{role}，还是{younger}的榜样。",
        "{elder}在{younger}的成长过程中，不仅仅是{younger}的{role}，还是{younger}的监护人。",
        "{elder}对{younger}来说，不只是一个{role}，还是一个朋友。",
    ),
}
"""The link sentences of atc.py, which the v2 ATC configs run (``atc_style="official"``, the paper preset)."""

CHILD_FORMS: dict[str, str] = {"en": "{younger} is the child of {elder}.", "zh": "{younger}是{elder}所生的孩子。"}
"""atc_elder_only.py's fifth link sentence, in place of atc.py's guardian form."""
ELDER_ONLY_LINKS: dict[str, tuple[str, ...]] = {
    lang: (*links[:4], CHILD_FORMS[lang], *links[5:]) for lang, links in OFFICIAL_LINKS.items()
}
"""The link sentences of atc_elder_only.py (``atc_style="official-elder-only"``). A sentence without ``{role}`` (the
child form) states one generation, whatever term was drawn with it (OpenCompass counts the drawn term; needlework
counts what the text says, so the answer follows from the text)."""

OFFICIAL_STORY_JOINER = ""
"""OpenCompass joins the shuffled link sentences with nothing between them (``''.join``)."""

ELDEST_EXAMPLES: dict[str, str] = {
    "en": (
        "For example:\n"
        "Example 1: If James Hill's father is Jasmine Lane, and no further information about familial relationships is provided in the text, then the oldest relative James Hill can trace back to in the provided text is \\boxed{{Jasmine Lane}}.\n"
        "Example 2: If Andrew Williams's grandmother is Dan Newton, and Dan Newton's father is James Hill, and no further information about familial relationships is provided in the text, then the oldest relative Andrew Williams can trace back to in the provided text is \\boxed{{James Hill}}.\n"
        "Example 3: If Jeff White's father is Kevin Le, Dan Newton's grandmother is Jeff White, and Jeff White's father is Kevin Le, and Shelley Mills is Dan Newton's great-granddaughter, and no further information about familial relationships is provided in the text, then the oldest relative Shelley Mills can trace back to in the provided text is \\boxed{{Kevin Le}}.\n"
        "\n"
        "Notes:\n"
        "1. You do not need to worry about the gender consistency of names in this test. For example, a name that is typically considered feminine can still be the father of another person. Our primary focus is on who is older.\n"
        "2. Ignore surname inheritance issues. For instance, Andrew Williams could still be the biological father of Christopher Baker. We only care about who is older and do not need to consider whether a child should inherit the father's or mother's surname.\n"
    ),
    "zh": (
        "例如：\n"
        "例子1.如果张强的父亲是马克，除此以外提供的文本中没有更多关于亲属关系的信息，那么在提供的文本中张强能够向上追溯到的最年长的亲人就是马克。\n"
        "例子2.如果李明的姥姥是张红，而张红的父亲是张强，除此以外提供的文本中没有更多关于亲属关系的信息，那么在提供的文本中李明能够向上追溯到的最年长的亲人就是张强。\n"
        "例子3.如果小明是张红的曾孙女，张红的祖母是王华，王华的父亲是王刚，除此以外提供的文本中没有更多关于亲属关系的信息，那么小明能够向上追溯到的最年长的亲人就是王刚。\n"
        "\n"
        "注意：\n"
        "1. 你不必纠结这个测试中的人名的性别关系，例如，一个通常被视为女性化的名字仍然可以是其他人的父亲，我们的重点是谁更年长。\n"
        "2. 忽略这个测试中的姓氏遗传问题，例如，李明仍然可能是王鹏的亲生父亲，我们只关注谁更年长，不必纠结孩子是否应该继承父亲或母亲的性别。\n"
    ),
}
"""The worked examples and notes 1-2 that atc.py's eldest-ancestor prompts and multi.py's M-RS prompts share, word
for word (each prompt adds its own note 3)."""

OFFICIAL_ATC_PROMPTS: dict[str, dict[str, str]] = {
    "en": {
        "eldest_ancestor": (
            "Here is a test for multi-step reasoning ability called the Ancestral Trace Challenge. In this test, we will simulate different people's familial relationships, and your task is to continuously reason through them until you identify the eldest ancestor.\n"
            "\n"
            + ELDEST_EXAMPLES["en"] +
            "3. At the end of your response, remember to put your final answer within \\boxed{{}}. For example: \"So the oldest relative '{last_person}' can trace back to in the provided text is \\boxed{{somebody (your answer here)}}.\"\n"
            "\n"
            "Now, the scrambled family relationships are provided below:\n"
            "{shuffled_story}\n"
            "\n"
            "Given the scrambled family relationships described above, who is the eldest relative that '{last_person}' can trace back to in the context?\n"
        ),
        "nth_ancestor": (
            "Here is a test for multi-step reasoning ability called the Ancestral Trace Challenge. In this test, we will simulate different people's familial relationships, and your task is to identify a specific ancestor of a given person.\n"
            "\n"
            "For example:\n"
            "Example 1: If James Hill's father is Jasmine Lane, then Jasmine Lane is James Hill's 1st generation ancestor.\n"
            "Example 2: If Andrew Williams's grandmother is Dan Newton (grandmother counts as 2 generations), and Dan Newton's father is James Hill, then Dan Newton is Andrew Williams's 2nd generation ancestor, and James Hill is Andrew Williams's 3rd generation ancestor.\n"
            "Example 3: If Shelley Mills's grandfather is Jeff White (grandfather counts as 2 generations), and Jeff White's mother is Mary Johnson, then Jeff White is Shelley Mills's 2nd generation ancestor, and Mary Johnson is Shelley Mills's 3rd generation ancestor.\n"
            "\n"
            "Notes:\n"
            "1. You do not need to worry about the gender consistency of names in this test. We only care about generational relationships.\n"
            "2. Ignore surname inheritance issues. We only care about familial relationships.\n"
            "3. Father/mother/dad/mom count as 1 generation, while grandfather/grandmother/maternal grandmother/maternal grandfather/paternal grandfather/paternal grandmother count as 2 generations.\n"
            "4. At the end of your response, remember to put your final answer within \\boxed{{}}. For example: \"So the {n}th generation ancestor of '{person}' is \\boxed{{somebody (your answer here)}}.\"\n"
            "\n"
            "Now, the scrambled family relationships are provided below:\n"
            "{shuffled_story}\n"
            "\n"
            "Given the scrambled family relationships described above, who is the {n}th generation ancestor of '{person}'?\n"
        ),
        "nth_descendant": (
            "Here is a test for multi-step reasoning ability called the Ancestral Trace Challenge. In this test, we will simulate different people's familial relationships, and your task is to identify a specific descendant of a given person.\n"
            "\n"
            "For example:\n"
            "Example 1: If Jasmine Lane is James Hill's father, then James Hill is Jasmine Lane's 1st generation descendant.\n"
            "Example 2: If Dan Newton is Andrew Williams's grandmother (grandmother counts as 2 generations), and James Hill is Dan Newton's father, then Andrew Williams is Dan Newton's 2nd generation descendant, and Andrew Williams is James Hill's 3rd generation descendant.\n"
            "Example 3: If Jeff White is Shelley Mills's grandfather (grandfather counts as 2 generations), and Mary Johnson is Jeff White's mother, then Shelley Mills is Jeff White's 2nd generation descendant, and Shelley Mills is Mary Johnson's 3rd generation descendant.\n"
            "\n"
            "Notes:\n"
            "1. You do not need to worry about the gender consistency of names in this test. We only care about generational relationships.\n"
            "2. Ignore surname inheritance issues. We only care about familial relationships.\n"
            "3. Father/mother/dad/mom count as 1 generation, while grandfather/grandmother/maternal grandmother/maternal grandfather/paternal grandfather/paternal grandmother count as 2 generations.\n"
            "4. At the end of your response, remember to put your final answer within \\boxed{{}}. For example: \"So the {n}th generation descendant of '{person}' is \\boxed{{somebody (your answer here)}}.\"\n"
            "\n"
            "Now, the scrambled family relationships are provided below:\n"
            "{shuffled_story}\n"
            "\n"
            "Given the scrambled family relationships described above, who is the {n}th generation descendant of '{person}'?\n"
        ),
        "relationship_distance": (
            "Here is a test for multi-step reasoning ability called the Ancestral Trace Challenge. In this test, we will simulate different people's familial relationships, and your task is to calculate the relationship distance between two individuals.\n"
            "\n"
            "The relationship distance is defined as the minimum number of generational gaps needed to go from one person to another in the family graph. Note that different relationships have different generational gaps. For example:\n"
            "Example 1: If Jasmine Lane is James Hill's father (father counts as 1 generation), then the relationship distance between James Hill and Jasmine Lane is 1.\n"
            "Example 2: If Dan Newton is Andrew Williams's grandmother (grandmother counts as 2 generations), and James Hill is Dan Newton's father (father counts as 1 generation), then the relationship distance between Andrew Williams and Dan Newton is 2, and the relationship distance between Andrew Williams and James Hill is 3.\n"
            "Example 3: If Jeff White is Shelley Mills's grandfather (grandfather counts as 2 generations), and Mary Johnson is Jeff White's mother (mother counts as 1 generation), then the relationship distance between Shelley Mills and Jeff White is 2, and the relationship distance between Shelley Mills and Mary Johnson is 3.\n"
            "\n"
            "Notes:\n"
            "1. You do not need to worry about the gender consistency of names in this test. We only care about relationship connections.\n"
            "2. Ignore surname inheritance issues. We only care about familial relationships.\n"
            "3. Father/mother/dad/mom count as 1 generation, while grandfather/grandmother/maternal grandmother/maternal grandfather/paternal grandfather/paternal grandmother count as 2 generations.\n"
            "4. At the end of your response, remember to put your final answer within \\boxed{{}}. For example: \"So the relationship distance between '{person_a}' and '{person_b}' is \\boxed{{5}}.\"\n"
            "\n"
            "Now, the scrambled family relationships are provided below:\n"
            "{shuffled_story}\n"
            "\n"
            "Given the scrambled family relationships described above, what is the relationship distance between '{person_a}' and '{person_b}'?\n"
        ),
    },
    "zh": {
        "eldest_ancestor": (
            "下面是对你的多步推理能力的测试，这个测试叫做祖先追溯测试，我们会模拟不同人的家庭亲属关系，你的任务是在其中不断推理，直到找到最年长的祖先。\n"
            "                \n"
            + ELDEST_EXAMPLES["zh"] +
            "3. 在回答的最后，将你的答案放在\\boxed{{}}中，例如：\"所以{last_person}能向上追溯到的最年长的亲人就是\\boxed{{某人（你的答案）}}\"\n"
            "\n"
            "现在，打乱的家族关系文本如下：\n"
            "{shuffled_story}\n"
            "\n"
            "在上面提供的打乱的家族关系文本中，'{last_person}'的能够向上追溯到的最年长的亲人是谁？\n"
        ),
        "nth_ancestor": (
            "下面是对你的多步推理能力的测试，这个测试叫做祖先追溯测试，我们会模拟不同人的家庭亲属关系，你的任务是在其中不断推理，找到指定人物的特定代祖先。\n"
            "\n"
            "例如：\n"
            "例子1.如果张强的父亲是马克，我们说马克是张强的1代祖先。\n"
            "例子2.如果李明的姥姥是张红（姥姥算两代关系），而张红的父亲是张强，那么张红是李明的2代祖先，张强是李明的3代祖先。\n"
            "例子3.如果小明的奶奶是王华（奶奶算两代关系），王华的妈妈是刘芳，那么王华是小明的2代祖先，刘芳是小明的3代祖先。\n"
            "\n"
            "注意：\n"
            "1. 你不必纠结这个测试中的人名的性别关系，我们只关注辈分关系。\n"
            "2. 忽略这个测试中的姓氏遗传问题，我们只关注亲属关系。\n"
            "3. 父亲/母亲/爸爸/妈妈算1代关系，爷爷/奶奶/姥姥/姥爷/外公/外婆算2代关系。\n"
            "4. 在回答的最后，将你的答案放在\\boxed{{}}中，例如：\"所以{person}的{n}代祖先就是\\boxed{{某人（你的答案）}}\"\n"
            "\n"
            "现在，打乱的家族关系文本如下：\n"
            "{shuffled_story}\n"
            "\n"
            "在上面提供的打乱的家族关系文本中，'{person}'的{n}代祖先是谁？\n"
        ),
        "nth_descendant": (
            "下面是对你的多步推理能力的测试，这个测试叫做家族关系追溯测试，我们会模拟不同人的家庭亲属关系，你的任务是在其中不断推理，找到指定人物的特定代子孙。\n"
            "\n"
            "例如：\n"
            "例子1.如果马克是张强的父亲，我们说张强是马克的1代子孙。\n"
            "例子2.如果张红是李明的姥姥（姥姥算两代关系），而张强是张红的父亲，那么李明是张红的2代子孙，李明是张强的3代子孙。\n"
            "例子3.如果王华是小明的爷爷（爷爷算两代关系），刘芳是王华的妈妈，那么小明是王华的2代子孙，小明是刘芳的3代子孙。\n"
            "\n"
            "注意：\n"
            "1. 你不必纠结这个测试中的人名的性别关系，我们只关注辈分关系。\n"
            "2. 忽略这个测试中的姓氏遗传问题，我们只关注亲属关系。\n"
            "3. 父亲/母亲/爸爸/妈妈算1代关系，爷爷/奶奶/姥姥/姥爷/外公/外婆算2代关系。\n"
            "4. 在回答的最后，将你的答案放在\\boxed{{}}中，例如：\"所以{person}的{n}代子孙就是\\boxed{{某人（你的答案）}}\"\n"
            "\n"
            "现在，打乱的家族关系文本如下：\n"
            "{shuffled_story}\n"
            "\n"
            "在上面提供的打乱的家族关系文本中，'{person}'的{n}代子孙是谁？\n"
        ),
        "relationship_distance": (
            "下面是对你的多步推理能力的测试，这个测试叫做家族关系追溯测试，我们会模拟不同人的家庭亲属关系，你的任务是在其中不断推理，计算两个人之间的关系距离。\n"
            "\n"
            "关系距离定义为：家族图中从一个人到另一个人所需的最少代数差距。注意不同关系有不同的代数差距，例如：\n"
            "例子1.如果马克是张强的父亲（父亲算1代关系），那么张强和马克之间的关系距离是1。\n"
            "例子2.如果张红是李明的姥姥（姥姥算2代关系），而张强是张红的父亲（父亲算1代关系），那么李明和张红之间的关系距离是2，李明和张强之间的关系距离是3。\n"
            "例子3.如果小明的爷爷是王华（爷爷算2代关系），王华的妈妈是刘芳（妈妈算1代关系），那么小明和王华之间的关系距离是2，小明和刘芳之间的关系距离是3。\n"
            "\n"
            "注意：\n"
            "1. 你不必纠结这个测试中的人名的性别关系，我们只关注辈分关系。\n"
            "2. 忽略这个测试中的姓氏遗传问题，我们只关注亲属关系。\n"
            "3. 父亲/母亲/爸爸/妈妈算1代关系，爷爷/奶奶/姥姥/姥爷/外公/外婆算2代关系。\n"
            "4. 在回答的最后，将你的答案放在\\boxed{{}}中，例如：\"所以{person_a}和{person_b}之间的关系距离是\\boxed{{5}}\"\n"
            "\n"
            "现在，打乱的家族关系文本如下：\n"
            "{shuffled_story}\n"
            "\n"
            "在上面提供的打乱的家族关系文本中，'{person_a}'和'{person_b}'之间的关系距离是多少？\n"
        ),
    },
}
"""Language -> question type -> the whole ATC prompt (atc.py), ready for :meth:`str.format`."""

OFFICIAL_EXAMPLE_NAMES: frozenset[str] = frozenset({
    "James Hill", "Jasmine Lane", "Andrew Williams", "Dan Newton", "Jeff White", "Kevin Le", "Shelley Mills",
    "Christopher Baker", "Mary Johnson", "张强", "马克", "李明", "张红", "小明", "王华", "王刚", "王鹏", "刘芳",
})
"""Names OpenCompass's ATC and M-RS prompts use in their examples and notes; no generated person may have one."""


def official_chain(rng: np.random.Generator, people: Sequence[str], lang: str,
                   links: Sequence[str]) -> tuple[list[str], int]:
    """The link sentences (in chain order) of ``people`` (eldest first) and the generations they span.

    Each link draws a sentence form from ``links`` and a term from :data:`OFFICIAL_TERMS` uniformly
    (atc.py's ``random.choice(templates)``, ``random.choice(relationship_terms)``); a form without
    ``{role}`` (the child form) spans one generation.
    """
    terms = OFFICIAL_TERMS[lang]
    count = len(people) - 1
    forms = rng.integers(len(links), size=count).tolist()
    picked = rng.integers(len(terms), size=count).tolist()
    sentences, total = [], 0
    for k, (form, term) in enumerate(zip(forms, picked)):
        role, gap = terms[term]
        total += gap if "{role}" in links[form] else 1
        sentences.append(links[form].format(elder=people[k], younger=people[k + 1], role=role))
    return sentences, total
