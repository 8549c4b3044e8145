r"""NeedleBench prompts (paper Appendix B, Figures 7-12) in English and Chinese, as data.

The English prompts are the paper's, word for word, with two repairs to Figure 10 (multi-needle
retrieval): its answer format repeats the last item and leaves the quotation open; here every
asked item appears once and the quotation closes. The paper prints no Chinese prompts; the
Chinese ones are needlework's translations of the same text, sentence for sentence.

The paper shows the eldest-ancestor question only. The other three ATC question types (paper
§3.2: n-th ancestor, n-th descendant, relationship distance) reuse its frame: the same
introduction with the goal changed, the same three worked examples re-asked for the new
question, the same notes plus one that says how generations are counted.

Fields: ``{context}`` the haystack, ``{question}`` / ``{answer_format}`` the retrieval question
and its fill-in sentence, ``{person}`` and ``{other}`` the people asked about, ``{n}`` generations (a number) and
``{generations}`` the same with its English noun ("1 generation", "3 generations"), so no prompt says
"exactly 1 generations".
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class SparseFrame:
    """The frame of the information-sparse prompts in one language.

    Attributes:
        intro_single: Instruction before the document when one question is asked (S-RT, M-RS).
        intro_multi: Instruction before the document when several questions are asked (M-RT).
        ask: Text after the document, before the question(s).
        answer_single: How S-RT asks for its answer format.
        answer_multi: How M-RT asks for its answer formats (joined by ``format_joiner``).
        question_joiner: Joins M-RT's questions.
        format_joiner: Joins M-RT's answer formats.
        format_end: Ends M-RT's joined answer formats.
    """

    intro_single: str
    intro_multi: str
    ask: str
    answer_single: str
    answer_multi: str
    question_joiner: str
    format_joiner: str
    format_end: str


SPARSE: dict[str, SparseFrame] = {
    "en": SparseFrame(
        intro_single=(
            "This is a test of long-text capability. You need to first read the long document below, and then answer "
            "the final question based on the information in the document.\nThe content of the long document is as follows\n\n"
        ),
        intro_multi=(
            "This is a test of long-text capability. You need to first read the long document below, and then answer "
            "the final questions one by one based on the information in the document.\nThe content of the long document "
            "is as follows\n\n"
        ),
        ask="\n\nBased on the information in the document, now please answer: ",
        answer_single=" Please answer in the format '{answer_format}.'",
        answer_multi=' Please answer in the format of "{answer_format}."',
        question_joiner=" ",
        format_joiner=", ",
        format_end="",
    ),
    "zh": SparseFrame(
        intro_single="这是一个长文本能力的测试，你需要首先阅读下面的长文档，然后根据文档中的信息回答最后的问题。\n长文档的内容如下\n\n",
        intro_multi="这是一个长文本能力的测试，你需要首先阅读下面的长文档，然后根据文档中的信息逐一回答最后的问题。\n长文档的内容如下\n\n",
        ask="\n\n根据文档中的信息，现在请回答：",
        answer_single="请按照“{answer_format}。”的格式回答。",
        answer_multi="请按照“{answer_format}。”的格式回答。",
        question_joiner="",
        format_joiner="，",
        format_end="",
    ),
}


@dataclass(frozen=True)
class KinshipQuestion:
    """One kinship question type in one language.

    Attributes:
        goal: What the ATC introduction says the task is (ends the first paragraph).
        question: The question (``{person}``, ``{other}``, ``{n}``).
        examples: The worked examples, in order.
        counting_note: The note on counting generations (empty for the eldest ancestor).
        final_note: The note that asks for the boxed answer; M-RS and ATC word it differently.
        final_note_atc: The ATC wording of the boxed-answer note.
    """

    goal: str
    question: str
    examples: tuple[str, ...]
    counting_note: str
    final_note: str
    final_note_atc: str


@dataclass(frozen=True)
class KinshipFrame:
    """The frame of the kinship prompts (M-RS and ATC) in one language.

    Attributes:
        atc_intro: ATC's first paragraph up to its goal (``{goal}``).
        atc_context: ATC's line before the relationships.
        mrs_question_lead: M-RS's words before the question, after :attr:`SparseFrame.ask`.
        atc_question_lead: ATC's words before the question.
        for_example: The heading of the examples.
        notes: The heading of the notes.
        common_notes: The notes every question type shares (gender, surnames).
        questions: Question type -> its wording.
    """

    atc_intro: str
    atc_context: str
    mrs_question_lead: str
    atc_question_lead: str
    for_example: str
    notes: str
    common_notes: tuple[str, ...]
    questions: dict[str, KinshipQuestion]


_EN_GENDER = (
    "You do not need to worry about the gender consistency of names in this test. For example, a name that is "
    "typically considered feminine can still be the father of another person. Our primary focus is on who is older."
)
_EN_SURNAME = (
    "Ignore surname inheritance issues. For instance, Andrew Williams could still be the biological father of "
    "Christopher Baker. We only care about who is older and do not need to consider whether a child should inherit "
    "the father's or mother's surname."
)
_EN_COUNTING = (
    "Count generations by the relationships stated: a parent or a child is one generation away, a grandparent or a "
    "grandchild two, a great-grandparent or a great-grandchild three."
)
_EN_CHAIN_1 = "If James Hill's father is Jasmine Lane, and no further information about familial relationships is provided in the text"
_EN_CHAIN_2 = (
    "If Andrew Williams's grandmother is Dan Newton, and Dan Newton's father is James Hill, and no further information "
    "about familial relationships is provided in the text"
)
_EN_CHAIN_3 = (
    "If Jeff White's father is Kevin Le, Dan Newton's grandmother is Jeff White, and Jeff White's father is Kevin Le, "
    "and Shelley Mills is Dan Newton's great-granddaughter, and no further information about familial relationships "
    "is provided in the text"
)
_EN_BOX = "At the end of your response, remember to put your final answer within \\boxed{{}}. For example: "

EN = KinshipFrame(
    atc_intro=(
        "Here is a test for multi-step reasoning ability called the Ancestral Trace Challenge. In this test, we will "
        "simulate different people's familial relationships, and your task is to continuously reason through them "
        "until you {goal}.\n\n"
    ),
    atc_context="Now, the scrambled family relationships are provided below:\n\n",
    mrs_question_lead="Given the context described above, ",
    atc_question_lead="Given the scrambled family relationships described above, ",
    for_example="For example:",
    notes="Notes:",
    common_notes=(_EN_GENDER, _EN_SURNAME),
    questions={
        "eldest_ancestor": KinshipQuestion(
            goal="identify the eldest ancestor",
            question="who is the eldest relative that '{person}' can trace back to in the context?",
            examples=(
                f"{_EN_CHAIN_1}, then the oldest relative James Hill can trace back to in the provided text is \\boxed{{{{Jasmine Lane}}}}.",
                f"{_EN_CHAIN_2}, then the oldest relative Andrew Williams can trace back to in the provided text is \\boxed{{{{James Hill}}}}.",
                f"{_EN_CHAIN_3}, then the oldest relative Shelley Mills can trace back to in the provided text is \\boxed{{{{Kevin Le}}}}.",
            ),
            counting_note="",
            final_note=_EN_BOX + "\"So the oldest relative '{person}' can trace back to in the provided text is \\boxed{{(your answer here)}}.\"",
            final_note_atc=_EN_BOX + '"So the oldest relative xxx(the person you need to find the eldest relative for) can trace back to in the provided text is \\boxed{{}}."',
        ),
        "nth_ancestor": KinshipQuestion(
            goal="identify the ancestor a given number of generations above a person",
            question="who is the ancestor exactly {generations} above '{person}' in the context?",
            examples=(
                f"{_EN_CHAIN_1}, then the ancestor exactly 1 generation above James Hill in the provided text is \\boxed{{{{Jasmine Lane}}}}.",
                f"{_EN_CHAIN_2}, then the ancestor exactly 3 generations above Andrew Williams in the provided text is \\boxed{{{{James Hill}}}}.",
                f"{_EN_CHAIN_3}, then the ancestor exactly 5 generations above Shelley Mills in the provided text is \\boxed{{{{Jeff White}}}}.",
            ),
            counting_note=_EN_COUNTING,
            final_note=_EN_BOX + "\"So the ancestor exactly {generations} above '{person}' in the provided text is \\boxed{{(your answer here)}}.\"",
            final_note_atc=_EN_BOX + "\"So the ancestor exactly {generations} above '{person}' in the provided text is \\boxed{{}}.\"",
        ),
        "nth_descendant": KinshipQuestion(
            goal="identify the descendant a given number of generations below a person",
            question="who is the descendant exactly {generations} below '{person}' in the context?",
            examples=(
                f"{_EN_CHAIN_1}, then the descendant exactly 1 generation below Jasmine Lane in the provided text is \\boxed{{{{James Hill}}}}.",
                f"{_EN_CHAIN_2}, then the descendant exactly 3 generations below James Hill in the provided text is \\boxed{{{{Andrew Williams}}}}.",
                f"{_EN_CHAIN_3}, then the descendant exactly 3 generations below Kevin Le in the provided text is \\boxed{{{{Dan Newton}}}}.",
            ),
            counting_note=_EN_COUNTING,
            final_note=_EN_BOX + "\"So the descendant exactly {generations} below '{person}' in the provided text is \\boxed{{(your answer here)}}.\"",
            final_note_atc=_EN_BOX + "\"So the descendant exactly {generations} below '{person}' in the provided text is \\boxed{{}}.\"",
        ),
        "relationship_distance": KinshipQuestion(
            goal="work out how many generations apart two people are",
            question="how many generations apart are '{person}' and '{other}' in the context?",
            examples=(
                f"{_EN_CHAIN_1}, then James Hill and Jasmine Lane are \\boxed{{{{1}}}} generation apart in the provided text.",
                f"{_EN_CHAIN_2}, then Andrew Williams and James Hill are \\boxed{{{{3}}}} generations apart in the provided text.",
                f"{_EN_CHAIN_3}, then Shelley Mills and Kevin Le are \\boxed{{{{6}}}} generations apart in the provided text.",
            ),
            counting_note=_EN_COUNTING,
            final_note=_EN_BOX + "\"So '{person}' and '{other}' are \\boxed{{(your answer here)}} generations apart in the provided text.\"",
            final_note_atc=_EN_BOX + "\"So '{person}' and '{other}' are \\boxed{{}} generations apart in the provided text.\"",
        ),
    },
)

_ZH_GENDER = "在这个测试中，你不需要担心名字的性别是否一致。例如，一个通常被认为是女性的名字仍然可以是另一个人的父亲。我们主要关注的是谁更年长。"
_ZH_SURNAME = "忽略姓氏继承问题。例如，李明仍然可以是王鹏的亲生父亲。我们只关心谁更年长，不需要考虑孩子应该随父姓还是随母姓。"
_ZH_COUNTING = "按文中陈述的关系计算代数：父母或子女相隔一代，祖父母或孙辈相隔两代，曾祖父母或曾孙辈相隔三代。"
_ZH_CHAIN_1 = "如果张强的父亲是马丽，并且文本中没有提供更多关于亲属关系的信息"
_ZH_CHAIN_2 = "如果李明的奶奶是王芳，王芳的父亲是张强，并且文本中没有提供更多关于亲属关系的信息"
_ZH_CHAIN_3 = "如果赵刚的父亲是陈杰，王芳的奶奶是赵刚，赵刚的父亲是陈杰，刘洋是王芳的曾孙女，并且文本中没有提供更多关于亲属关系的信息"
_ZH_BOX = "在回答的最后，请记得把你的最终答案放在\\boxed{{}}中。例如："

ZH = KinshipFrame(
    atc_intro="这是一个测试多步推理能力的任务，称为祖源追溯挑战。在这个测试中，我们会模拟不同人之间的亲属关系，你的任务是不断地对这些关系进行推理，直到{goal}。\n\n",
    atc_context="现在，打乱顺序的亲属关系如下：\n\n",
    mrs_question_lead="根据上文描述的内容，",
    atc_question_lead="根据上面描述的打乱顺序的亲属关系，",
    for_example="例如：",
    notes="注意：",
    common_notes=(_ZH_GENDER, _ZH_SURNAME),
    questions={
        "eldest_ancestor": KinshipQuestion(
            goal="找出最年长的祖先",
            question="'{person}'在上文中能够向上追溯到的最年长的亲人是谁？",
            examples=(
                f"{_ZH_CHAIN_1}，那么在提供的文本中，张强能够向上追溯到的最年长的亲人就是\\boxed{{{{马丽}}}}。",
                f"{_ZH_CHAIN_2}，那么在提供的文本中，李明能够向上追溯到的最年长的亲人就是\\boxed{{{{张强}}}}。",
                f"{_ZH_CHAIN_3}，那么在提供的文本中，刘洋能够向上追溯到的最年长的亲人就是\\boxed{{{{陈杰}}}}。",
            ),
            counting_note="",
            final_note=_ZH_BOX + "“所以在提供的文本中，'{person}'能够向上追溯到的最年长的亲人是\\boxed{{（你的答案）}}。”",
            final_note_atc=_ZH_BOX + "“所以在提供的文本中，xxx（你需要为其寻找最年长亲人的人）能够向上追溯到的最年长的亲人是\\boxed{{}}。”",
        ),
        "nth_ancestor": KinshipQuestion(
            goal="找出某人往上恰好若干代的祖先",
            question="在上文中，比'{person}'恰好高{n}代的祖先是谁？",
            examples=(
                f"{_ZH_CHAIN_1}，那么在提供的文本中，比张强恰好高1代的祖先就是\\boxed{{{{马丽}}}}。",
                f"{_ZH_CHAIN_2}，那么在提供的文本中，比李明恰好高3代的祖先就是\\boxed{{{{张强}}}}。",
                f"{_ZH_CHAIN_3}，那么在提供的文本中，比刘洋恰好高5代的祖先就是\\boxed{{{{赵刚}}}}。",
            ),
            counting_note=_ZH_COUNTING,
            final_note=_ZH_BOX + "“所以在提供的文本中，比'{person}'恰好高{n}代的祖先是\\boxed{{（你的答案）}}。”",
            final_note_atc=_ZH_BOX + "“所以在提供的文本中，比'{person}'恰好高{n}代的祖先是\\boxed{{}}。”",
        ),
        "nth_descendant": KinshipQuestion(
            goal="找出某人往下恰好若干代的后代",
            question="在上文中，比'{person}'恰好低{n}代的后代是谁？",
            examples=(
                f"{_ZH_CHAIN_1}，那么在提供的文本中，比马丽恰好低1代的后代就是\\boxed{{{{张强}}}}。",
                f"{_ZH_CHAIN_2}，那么在提供的文本中，比张强恰好低3代的后代就是\\boxed{{{{李明}}}}。",
                f"{_ZH_CHAIN_3}，那么在提供的文本中，比陈杰恰好低3代的后代就是\\boxed{{{{王芳}}}}。",
            ),
            counting_note=_ZH_COUNTING,
            final_note=_ZH_BOX + "“所以在提供的文本中，比'{person}'恰好低{n}代的后代是\\boxed{{（你的答案）}}。”",
            final_note_atc=_ZH_BOX + "“所以在提供的文本中，比'{person}'恰好低{n}代的后代是\\boxed{{}}。”",
        ),
        "relationship_distance": KinshipQuestion(
            goal="算出两个人相隔多少代",
            question="在上文中，'{person}'和'{other}'相隔多少代？",
            examples=(
                f"{_ZH_CHAIN_1}，那么在提供的文本中，张强和马丽相隔\\boxed{{{{1}}}}代。",
                f"{_ZH_CHAIN_2}，那么在提供的文本中，李明和张强相隔\\boxed{{{{3}}}}代。",
                f"{_ZH_CHAIN_3}，那么在提供的文本中，刘洋和陈杰相隔\\boxed{{{{6}}}}代。",
            ),
            counting_note=_ZH_COUNTING,
            final_note=_ZH_BOX + "“所以在提供的文本中，'{person}'和'{other}'相隔\\boxed{{（你的答案）}}代。”",
            final_note_atc=_ZH_BOX + "“所以在提供的文本中，'{person}'和'{other}'相隔\\boxed{{}}代。”",
        ),
    },
)

KINSHIP: dict[str, KinshipFrame] = {"en": EN, "zh": ZH}
EXAMPLE_NAMES: frozenset[str] = frozenset({
    "James Hill", "Jasmine Lane", "Andrew Williams", "Dan Newton", "Jeff White", "Kevin Le", "Shelley Mills",
    "Christopher Baker", "张强", "马丽", "李明", "王芳", "赵刚", "陈杰", "刘洋", "王鹏",
})
"""Names the prompts' examples and notes use; no generated person may have one."""

def kinship_tail(lang: str, question_type: str, *, atc: bool) -> str:
    """The examples and notes after a kinship question, with ``{person}``/``{other}``/``{n}`` unfilled.

    Everything else in the tail is literal (braces doubled for :meth:`str.format`).
    """
    frame = KINSHIP[lang]
    q = frame.questions[question_type]
    label = "Example " if lang == "en" else "例子"
    examples = "\n\n".join(f"{label}{i}: {e}" if lang == "en" else f"{label}{i}：{e}" for i, e in enumerate(q.examples, 1))
    notes = (*frame.common_notes, *((q.counting_note,) if q.counting_note else ()), q.final_note_atc if atc else q.final_note)
    numbered = "\n\n".join(f"{i}. {n}" for i, n in enumerate(notes, 1))
    return f"\n\n{frame.for_example}\n\n{examples}\n\n{frame.notes}\n\n{numbered}"
