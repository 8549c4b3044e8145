"""OpenCompass NeedleBench v1's multiple-choice ATC, as data, word for word.

Sources (open-compass/opencompass, read, not copied as code):

* ``opencompass/datasets/needlebench/atc_choice.py`` (``NeedleBenchATCDataset``): the ten relation terms (the
  same as v2's, :data:`generators.needlebench.official.OFFICIAL_TERMS`), the eight link sentences per language
  (``relationship_templates``), the question appended to the shuffled story (``prompt``), the options
  (``get_number``: ``"A. name\\n"`` ...) and the four circular rotations (``get_circular_example``);
* ``opencompass/configs/datasets/needlebench/atc/atc_choice.py``: the few-shot conversations
  (``few_shot_prompts['single_choice_prompts']``: ``single_choice_en``, ``single_choice_cn``,
  ``single_choice_en_reasoning``, ``single_choice_cn_reasoning``; ``few_shot_samples = 4`` keeps all four
  examples), the grid (``needle_num_list = list(range(2, 20, 1))``, ``repeats = 10``) and the evaluation
  (``CircularEvaluator`` after ``first_option_postprocess(options='ABCD')``).

``atc_choice_20.py``, ``atc_choice_50.py`` and ``atc_choice_80.py`` share these prompts, except that the fourth
Chinese reasoning example of ``atc_choice_20.py`` (which ``_50`` and ``_80`` import) reads ``扮演着w奶奶``, a
stray ``w``; the prompts here are ``atc_choice.py``'s, without it.

Link sentences use ``{elder}`` (OpenCompass's ``A``, the earlier name of the chain), ``{younger}`` (``B``) and
``{role}`` (``relationship``), as :data:`generators.needlebench.official.OFFICIAL_LINKS` does. OpenCompass's
roles ``HUMAN`` and ``BOT`` are the chat roles ``user`` and ``assistant``.
"""

from __future__ import annotations

CHOICE_LINKS: dict[str, tuple[str, ...]] = {
    "en": (
        "{elder} is {younger}'s {role}.",
        "{younger}'s {role} is {elder}.",
        "{elder}, as {younger}'s {role}, has a significant impact on {younger}'s upbringing.",
        "{elder} is not only {younger}'s {role} but also {younger}'s role model.",
        "{younger} is the child of {elder}.",
        "For {younger}, {elder} is not just a {role}, but also a friend.",
        "{elder} plays the role of {younger}'s {role} in {younger}'s life.",
        "{younger} considers {elder} as their {role}.",
    ),
    "zh": (
        "{elder}是{younger}的{role}。",
        "{younger}的{role}是{elder}。",
        "{elder}作为{younger}的{role}，对{younger}的成长有重要影响。",
        "{elder}不仅是{younger}的{role}，还是{younger}的榜样。",
        "{younger}是{elder}所生的孩子。",
        "{elder}对{younger}来说，不只是一个{role}，还是一个朋友。",
        "{elder}在{younger}的生命中扮演着{role}的角色。",
        "{younger}把{elder}视为其{role}。",
    ),
}
"""atc_choice.py's ``relationship_templates`` per language: one drawn uniformly per link."""

CHOICE_STORY_JOINER = ""
"""The shuffled link sentences are joined with nothing between them (``''.join(family_story_fragments)``)."""

CHOICE_QUESTION: dict[str, str] = {
    "en": "Given the scrambled family relationships described above, who is the eldest relative that '{last_person}' can trace back to in the context?",
    "zh": "在上面提供的打乱的家族关系文本中，'{last_person}'的能够向上追溯到的最年长的亲人是谁？",
}
"""The question atc_choice.py puts after the story (``shuffled_story + ' ' + prompt``, the prompt starting with a
line break), about the chain's youngest person."""

CHOICE_TURN: dict[str, str] = {"en": "Question: {question}", "zh": "问题: {question}"}
"""The last user turn of the few-shot conversation (``dict(role='HUMAN', prompt='Question: {question}')``)."""

OPTION_LETTERS = "ABCD"
"""The options' letters; ``first_option_postprocess`` reads one of them."""
CIRCULAR_PATTERNS: tuple[str, ...] = ("ABCD", "BCDA", "CDAB", "DABC")
"""``get_circular_example``'s rotations: under pattern ``p`` option ``i`` is the original option ``p[i]``."""

CHOICE_FEW_SHOT: dict[tuple[str, bool], tuple[tuple[str, str], ...]] = {
    ('en', False): (  # single_choice_en
        ('user', "Question: Jasmine Lane plays the role of James Hill's father in James Hill's life. \nGiven the scrambled family relationships described above, who is the eldest relative that 'James Hill' can trace back to in the context?\nA. Jasmine Lane\nB. James Hill\nC. Christopher Flores\nD. Paula Reeves\n"),
        ('assistant', 'Answer: A'),
        ('user', "Question: For Michael Goodwin, Annette Valdez is not just a dad, but also a friend.For Annette Valdez, Mary Sanders is not just a father, but also a friend. \nGiven the scrambled family relationships described above, who is the eldest relative that 'Michael Goodwin' can trace back to in the context?\nA. Michael Goodwin\nB. Annette Valdez\nC. Mary Sanders\nD. James Mitchell\n"),
        ('assistant', 'Answer: C'),
        ('user', "Question: Laura Garcia considers Mr. Stephen Valdez DDS as their mom.Mr. Stephen Valdez DDS's maternal grandfather is Elizabeth Smith.Laura Garcia is Ashley Johnson's mom. \nGiven the scrambled family relationships described above, who is the eldest relative that 'Ashley Johnson' can trace back to in the context?\nA. Ashley Johnson\nB. Mr. Stephen Valdez DDS\nC. Laura Garcia\nD. Elizabeth Smith\n"),
        ('assistant', 'Answer: D'),
        ('user', "Question: Justin Sanchez's paternal grandfather is Laurie Bean.For Laurie Bean, Christina Kim is not just a mother, but also a friend.Jessica Bass, as Christina Kim's maternal grandfather, has a significant impact on Christina Kim's upbringing.Sarah Hampton considers Justin Sanchez as their father. \nGiven the scrambled family relationships described above, who is the eldest relative that 'Sarah Hampton' can trace back to in the context?\nA. Christina Kim\nB. Jessica Bass\nC. Laurie Bean\nD. Justin Sanchez\n"),
        ('assistant', 'Answer: B'),
    ),
    ('zh', False): (  # single_choice_cn
        ('user', '问题: 毕东作为刘红的爸爸，对刘红的成长有重要影响。 \n在上面提供的打乱的家族关系文本中，"刘红"的能够向上追溯到的最年长的亲人是谁？\nA. 毕东\nB. 刘红\nC. 李清亮\nD. 王展\n'),
        ('assistant', '回答: A'),
        ('user', '问题: 梅建平作为黄玉兰的姥姥，对黄玉兰的成长有重要影响。梅建平的妈妈是朱丽丽。蓝鑫把黄玉兰视为其母亲。焦慧不仅是朱丽丽的妈妈，还是朱丽丽的榜样。 \n在上面提供的打乱的家族关系文本中，"蓝鑫"的能够向上追溯到的最年长的亲人是谁？\nA. 梅建平\nB. 朱丽丽\nC. 蓝鑫\nD. 焦慧\n'),
        ('assistant', '回答: D'),
        ('user', '问题: 毕东把柳金凤视为其姥姥。奉兵作为柳金凤的妈妈，对柳金凤的成长有重要影响。余萍把杨颖视为其爸爸。毕东在郭建华的生命中扮演着父亲的角色。常宁的外公是余萍。刘慧是郭建华所生的孩子。刘慧在杨颖的生命中扮演着外公的角色。 \n在上面提供的打乱的家族关系文本中，"常宁"的能够向上追溯到的最年长的亲人是谁？\nA. 柳金凤\nB. 毕东\nC. 奉兵\nD. 余萍\n'),
        ('assistant', '回答: C'),
        ('user', '问题: 魏丽丽在谢平的生命中扮演着奶奶的角色。郭兵是魏阳的姥姥。谢平是郑玉珍的外婆。丁颖把武波视为其外公。丁颖在李建国的生命中扮演着外婆的角色。武波的父亲是刘瑜。许玲把余桂芳视为其父亲。刘瑜把许玲视为其爷爷。李建国对郭兵来说，不只是一个爷爷，还是一个朋友。魏丽丽的外公是魏阳。 \n在上面提供的打乱的家族关系文本中，"郑玉珍"的能够向上追溯到的最年长的亲人是谁？\nA. 魏丽丽\nB. 刘瑜\nC. 李建国\nD. 余桂芳\n'),
        ('assistant', '回答: D'),
    ),
    ('en', True): (  # single_choice_en_reasoning
        ('user', "Question: Sharon House, as Jessica Stewart's father, has a significant impact on Jessica Stewart's upbringing. \nGiven the scrambled family relationships described above, who is the eldest relative that 'Jessica Stewart' can trace back to in the context?\nA. Jack Burch\nB. Jessica Stewart\nC. Sharon House\nD. Carolyn Jackson\n"),
        ('assistant', "Answer: Based on the provided information, we can construct the following family relationship chain：\n\n- Sharon House, as Jessica Stewart's father, has a significant impact on Jessica Stewart's upbringing.\n\nTherefore, the eldest relative that 'Jessica Stewart' can trace back to in the context is Sharon House. The answer is: C"),
        ('user', "Question: For Robert Hill, Mikayla Scott is not just a paternal grandfather, but also a friend.Jacob Oconnor's paternal grandmother is Robert Hill. \nGiven the scrambled family relationships described above, who is the eldest relative that 'Jacob Oconnor' can trace back to in the context?\nA. Laura Holland\nB. Robert Hill\nC. Jacob Oconnor\nD. Mikayla Scott\n"),
        ('assistant', "Answer: Based on the provided information, we can construct the following family relationship chain：\n\n-Jacob Oconnor's paternal grandmother is Robert Hill. \n- For Robert Hill, Mikayla Scott is not just a paternal grandfather, but also a friend.\n\nTherefore, the eldest relative that 'Jacob Oconnor' can trace back to in the context is Mikayla Scott. The answer is: D"),
        ('user', "Question: Misty Moore plays the role of Barbara Fuentes's maternal grandfather in Barbara Fuentes's life.Jennifer Garcia, as Michael Martinez's grandmother, has a significant impact on Michael Martinez's upbringing.Michael Martinez is not only Misty Moore's father but also Misty Moore's role model. \nGiven the scrambled family relationships described above, who is the eldest relative that 'Barbara Fuentes' can trace back to in the context?\nA. Michael Martinez\nB. Jennifer Garcia\nC. Misty Moore\nD. Barbara Fuentes\n"),
        ('assistant', "Answer: Based on the provided information, we can construct the following family relationship chain：\n- Misty Moore plays the role of Barbara Fuentes's maternal grandfather in Barbara Fuentes's life. \n- Michael Martinez is not only Misty Moore's father but also Misty Moore's role model.\n- Jennifer Garcia, as Michael Martinez's grandmother, has a significant impact on Michael Martinez's upbringing.\n\nTherefore, the eldest relative that 'Barbara Fuentes' can trace back to in the context is Jennifer Garcia. The answer is: B"),
        ('user', "Question: Carlos Smith, as Mary Gay's grandfather, has a significant impact on Mary Gay's upbringing.Victor Dean considers Mary Gay as their grandfather.Marcus Miller, as Carlos Smith's paternal grandfather, has a significant impact on Carlos Smith's upbringing.Victor Dean is not only Danielle Yates's maternal grandmother but also Danielle Yates's role model.Danielle Yates is not only David Hernandez's paternal grandmother but also David Hernandez's role model.David Hernandez is Jennifer Williams's mom. \nGiven the scrambled family relationships described above, who is the eldest relative that 'Jennifer Williams' can trace back to in the context?\nA. Marcus Miller\nB. Carlos Smith\nC. Mary Gay\nD. Victor Dean\n"),
        ('assistant', "Answer: Based on the provided information, we can construct the following family relationship chain：\n\n- David Hernandez is Jennifer Williams's mom.\n- Danielle Yates is not only David Hernandez's paternal grandmother but also David Hernandez's role model.\n- Victor Dean is not only Danielle Yates's maternal grandmother but also Danielle Yates's role model.\n- Victor Dean considers Mary Gay as their grandfather. \n- Carlos Smith, as Mary Gay's grandfather, has a significant impact on Mary Gay's upbringing.\n- Marcus Miller, as Carlos Smith's paternal grandfather, has a significant impact on Carlos Smith's upbringing.\n\nTherefore, the eldest relative that 'Jennifer Williams' can trace back to in the context is Marcus Miller. The answer is: A"),
    ),
    ('zh', True): (  # single_choice_cn_reasoning
        ('user', '问题: 毕东作为刘红的爸爸，对刘红的成长有重要影响。 \n在上面提供的打乱的家族关系文本中，"刘红"的能够向上追溯到的最年长的亲人是谁？\nA. 毕东\nB. 刘红\nC. 李清亮\nD. 王展\n'),
        ('assistant', '回答: 根据提供的信息，我们可以构建以下家族关系链：\n\n- 刘红的爸爸是毕东。\n\n因此，"刘红"能够向上追溯到的最年长的亲人是毕东。所以答案是：A'),
        ('user', '问题: 梅建平作为黄玉兰的姥姥，对黄玉兰的成长有重要影响。梅建平的妈妈是朱丽丽。蓝鑫把黄玉兰视为其母亲。焦慧不仅是朱丽丽的妈妈，还是朱丽丽的榜样。 \n在上面提供的打乱的家族关系文本中，"蓝鑫"的能够向上追溯到的最年长的亲人是谁？\nA. 梅建平\nB. 朱丽丽\nC. 蓝鑫\nD. 焦慧\n'),
        ('assistant', '回答: 根据提供的信息，我们可以构建以下家族关系链：\n\n- 蓝鑫把黄玉兰视为其母亲。\n- 黄玉兰的姥姥是梅建平。\n- 梅建平的妈妈是朱丽丽。\n- 朱丽丽的妈妈是焦慧。\n\n因此，"蓝鑫"能够向上追溯到的最年长的亲人是焦慧。所以答案是：D'),
        ('user', '问题: 毕东把柳金凤视为其姥姥。奉兵作为柳金凤的妈妈，对柳金凤的成长有重要影响。余萍把杨颖视为其爸爸。毕东在郭建华的生命中扮演着父亲的角色。常宁的外公是余萍。刘慧是郭建华所生的孩子。刘慧在杨颖的生命中扮演着外公的角色。 \n在上面提供的打乱的家族关系文本中，"常宁"的能够向上追溯到的最年长的亲人是谁？\nA. 柳金凤\nB. 毕东\nC. 奉兵\nD. 余萍\n'),
        ('assistant', '回答: 根据提供的信息，我们可以构建以下家族关系链：\n\n- 常宁的外公是余萍。\n- 余萍把杨颖视为其爸爸。\n- 杨颖的外公是刘慧。\n- 刘慧是郭建华所生的孩子。\n- 郭建华的父亲是毕东。\n- 毕东的姥姥是柳金凤。\n- 柳金凤的妈妈是奉兵。\n\n因此，"常宁"能够向上追溯到的最年长的亲人是奉兵。所以答案是：C'),
        ('user', '问题: 魏丽丽在谢平的生命中扮演着奶奶的角色。郭兵是魏阳的姥姥。谢平是郑玉珍的外婆。丁颖把武波视为其外公。丁颖在李建国的生命中扮演着外婆的角色。武波的父亲是刘瑜。许玲把余桂芳视为其父亲。刘瑜把许玲视为其爷爷。李建国对郭兵来说，不只是一个爷爷，还是一个朋友。魏丽丽的外公是魏阳。 \n在上面提供的打乱的家族关系文本中，"郑玉珍"的能够向上追溯到的最年长的亲人是谁？\nA. 魏丽丽\nB. 刘瑜\nC. 李建国\nD. 余桂芳\n'),
        ('assistant', '回答: 根据提供的信息，我们可以构建以下家族关系链：\n\n- 郑玉珍的外婆是谢平。\n- 谢平的奶奶是魏丽丽。\n- 魏丽丽的外公是魏阳。 \n- 魏阳的姥姥是郭兵。\n- 郭兵的爷爷是李建国。 \n- 李建国的外婆是丁颖。 \n- 丁颖的外公是武波。 \n- 武波的父亲是刘瑜。\n- 刘瑜的爷爷是许玲。\n- 许玲的父亲是余桂芳。 \n\n因此，"郑玉珍"能够向上追溯到的最年长的亲人是余桂芳。所以答案是：D'),
    ),
}
"""(language, reasoning) -> the few-shot turns before :data:`CHOICE_TURN`, as (role, text): the config's
``single_choice_{en,cn}`` (answers ``Answer: X``) and ``single_choice_{en,cn}_reasoning`` (answers that trace
the chain, then ``The answer is: X``)."""

CHOICE_EXAMPLE_NAMES: frozenset[str] = frozenset({
    "Jasmine Lane", "James Hill", "Christopher Flores", "Paula Reeves", "Michael Goodwin", "Annette Valdez",
    "Mary Sanders", "James Mitchell", "Laura Garcia", "Mr. Stephen Valdez DDS", "Elizabeth Smith", "Ashley Johnson",
    "Justin Sanchez", "Laurie Bean", "Christina Kim", "Jessica Bass", "Sarah Hampton", "Sharon House",
    "Jessica Stewart", "Jack Burch", "Carolyn Jackson", "Robert Hill", "Mikayla Scott", "Jacob Oconnor",
    "Laura Holland", "Misty Moore", "Barbara Fuentes", "Jennifer Garcia", "Michael Martinez", "Carlos Smith",
    "Mary Gay", "Victor Dean", "Marcus Miller", "Danielle Yates", "David Hernandez", "Jennifer Williams",
    "毕东", "刘红", "李清亮", "王展", "梅建平", "黄玉兰", "朱丽丽", "蓝鑫", "焦慧", "柳金凤", "奉兵", "余萍", "杨颖",
    "郭建华", "常宁", "刘慧", "魏丽丽", "谢平", "郭兵", "魏阳", "郑玉珍", "丁颖", "武波", "李建国", "刘瑜", "许玲", "余桂芳",
})
"""The people of the few-shot examples; no generated question has one (needlework's choice: OpenCompass draws from
its names.json without excluding them)."""
