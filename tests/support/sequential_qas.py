"""A Sequential-NIAH QA pool for tests: the two real QA slices and synthetic diary and procedure QAs.

The real slices (``sequential_niah/source/QA``) are read into :class:`SequentialQA` by splitting
their reference answers into ``- `` items. The synthetic QAs are diary-style temporal questions in
English and Chinese (with and without an order requirement, distractors that are the same
subject's events outside the period) and procedures whose steps are in logical order (distractor: a
step of another procedure).
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import numpy as np

from generators.sequential_niah.qa import SequentialQA

EN_EVENTS = ("visited the city museum and saw an exhibition on ancient Egypt", "attended a pottery class at the community center",
             "went hiking with friends on the northern ridge trail", "cooked a Thai curry for the first time",
             "read a novel about a lighthouse keeper", "volunteered at the animal shelter in the afternoon",
             "played chess online and won three games", "repaired the old bicycle in the garage",
             "joined a choir rehearsal at the church hall", "watched a documentary about deep sea creatures",
             "planted tomatoes in the backyard garden", "took a photography workshop on night skies",
             "wrote a letter to an old school friend", "went to a jazz concert downtown",
             "baked sourdough bread with a new starter", "cleaned out the attic and found old photographs",
             "visited grandparents in the countryside")
ZH_EVENTS = ("参观了城市博物馆的古埃及展览", "在社区中心上了一节陶艺课", "和朋友去北山步道徒步", "第一次做了泰式咖喱",
             "读了一本关于灯塔看守人的小说", "下午去动物收容所做志愿者", "在网上下棋赢了三局", "在车库里修好了旧自行车",
             "参加了教堂的合唱排练", "看了一部关于深海生物的纪录片", "在后院种了西红柿", "参加了夜空摄影工作坊",
             "给老同学写了一封信", "去市中心听了一场爵士音乐会", "用新酵种烤了酸面包", "清理了阁楼发现了老照片", "去乡下看望了祖父母")
EN_NAMES = ("James Clark", "Mary Jones", "Paul Ramirez", "Linda Chen", "Omar Haddad", "Grace Kim")
ZH_NAMES = ("胡慧聪", "李明远", "张晓琳", "王建国", "陈思雨", "赵子龙")
EN_STEPS = {
    "renew a passport": ("Fill out the renewal application form", "Attach a recent passport photo",
                         "Include your most recent passport", "Pay the renewal fee by check",
                         "Mail the package to the passport agency", "Track the application status online"),
    "brew pour-over coffee": ("Boil water to about 94 degrees", "Grind the beans to a medium-fine size",
                              "Rinse the paper filter with hot water", "Add the grounds and let them bloom briefly",
                              "Pour the remaining water in slow circles", "Remove the dripper and serve"),
    "change a flat tire": ("Park on flat ground and turn on the hazard lights", "Loosen the lug nuts slightly",
                           "Raise the car with the jack", "Remove the lug nuts and the flat tire",
                           "Mount the spare tire and tighten the nuts by hand", "Lower the car and tighten the nuts fully"),
    "open a bank account": ("Choose the type of account you need", "Gather your identity documents",
                            "Visit a branch or the bank website", "Complete the application form",
                            "Make the initial deposit", "Activate online banking"),
}
ZH_STEPS = {
    "办理护照": ("在网上预约办理时间", "准备身份证和户口本", "到出入境大厅填写申请表", "现场拍照并采集指纹", "缴纳护照工本费", "按约定时间领取护照"),
    "冲泡手冲咖啡": ("把水烧到九十四度左右", "将咖啡豆磨成中细粉", "用热水冲洗滤纸", "倒入咖啡粉闷蒸片刻", "以画圈方式缓慢注水", "移开滤杯后即可饮用"),
    "更换汽车轮胎": ("把车停在平地并打开双闪", "稍微拧松轮胎螺丝", "用千斤顶把车顶起", "卸下螺丝和坏轮胎", "装上备胎并用手拧紧螺丝", "放下车辆后彻底拧紧螺丝"),
    "开立银行账户": ("选择需要的账户类型", "准备好身份证明材料", "前往网点或登录银行网站", "填写开户申请表", "存入首笔资金", "开通网上银行"),
}
MONTHS = ("January", "February", "March", "April", "May", "June", "July", "August", "September", "October",
          "November", "December")


def temporal_qa(lang: str, index: int, ordered: bool, rng: np.random.Generator) -> SequentialQA:
    """A diary question: 3-10 dated events of one subject in one month; distractors outside the period."""
    n = int(rng.integers(3, 11))
    year, month = int(rng.integers(2000, 2020)), int(rng.integers(1, 13))
    days = sorted(int(d) for d in rng.choice(np.arange(1, 29), size=n, replace=False))
    pool = EN_EVENTS if lang == "en" else ZH_EVENTS
    events = [pool[int(i)] for i in rng.choice(len(pool), size=n + 2, replace=False)]
    if lang == "en":
        name = EN_NAMES[index % len(EN_NAMES)]
        answers = tuple(f"On {MONTHS[month - 1]} {d}, {year}, {name} {e}." for d, e in zip(days, events))
        needles = tuple(f"Record of {name}: {year}-{month:02d}-{d:02d}: I {e}." for d, e in zip(days, events))
        question = (f"List the events in the record of {name} in {MONTHS[month - 1]} {year} in chronological order."
                    if ordered else f"What did {name} do in {MONTHS[month - 1]} {year} according to the record?")
        distractors = (f"On {MONTHS[month - 1]} 3, {year + 1}, {name} {events[n]}.",
                       f"On {MONTHS[(month + 5) % 12]} 9, {year}, {name} {events[n + 1]}.")
        reference = "The events are:\n" + "\n".join(f"- {a}" for a in answers)
    else:
        name = ZH_NAMES[index % len(ZH_NAMES)]
        answers = tuple(f"{year}年{month:02d}月{d:02d}日：{e}" for d, e in zip(days, events))
        needles = tuple(f"{name}记事-{year}年{month:02d}月{d:02d}日，{e}" for d, e in zip(days, events))
        question = f"按日期罗列{name}记事在{year}年{month}月的内容" if ordered else f"{name}记事在{year}年{month}月都记录了什么？"
        distractors = (f"{year + 1}年{month:02d}月03日：{events[n]}",)
        reference = f"{name}记事的内容如下：\n" + "\n".join(f"- {a}" for a in answers)
    return SequentialQA(f"synthetic-temporal/{lang}/{index:06d}", lang, "synthetic-temporal", question, answers,
                        needles, ordered, reference, distractors, "test")


def logical_qa(lang: str, index: int, rng: np.random.Generator) -> SequentialQA:
    """A procedure question: the first 3-6 steps in order; distractor: a step of another procedure."""
    table = EN_STEPS if lang == "en" else ZH_STEPS
    names = sorted(table)
    task, other = names[index % len(names)], table[names[(index + 1) % len(names)]]
    answers = table[task][: int(rng.integers(3, len(table[task]) + 1))]
    if lang == "en":
        question, needles = f"What are the steps to {task}?", tuple(f"To {task}, {s.lower()}." for s in answers)
        reference = f"To {task}:\n" + "\n".join(f"{i}. {s}" for i, s in enumerate(answers, 1))
    else:
        question, needles = f"{task}的步骤是什么？", tuple(f"{task}时，需要{s}。" for s in answers)
        reference = f"{task}的步骤：\n" + "\n".join(f"{i}. {s}" for i, s in enumerate(answers, 1))
    return SequentialQA(f"real-logical/{lang}/{index:06d}", lang, "real-logical", question, answers, needles, True,
                        reference, (other[int(rng.integers(0, len(other)))],), "test")


def synthetic_qas(count: int, seed: int = 0) -> list[SequentialQA]:
    """``count`` QAs cycling through English/Chinese and ordered temporal, unordered temporal, logical."""
    rng = np.random.default_rng(seed)
    qas = []
    for index in range(count):
        lang, kind = ("en", "zh")[index % 2], (index // 2) % 3
        qas.append(logical_qa(lang, index, rng) if kind == 2 else temporal_qa(lang, index, kind == 0, rng))
    return qas


def real_qas(shared_file: Callable[[str], Path]) -> list[SequentialQA]:
    """The two real QA slices: an English TKG question (not asking for order) and a Chinese diary list."""
    qas = []
    for lang, pipeline, ordered in (("en", "real-temporal", False), ("zh", "synthetic-temporal", True)):
        for line in shared_file(f"sequential_niah/source/QA/QA_{lang}.jsonl").read_text(encoding="utf-8").splitlines():
            record = json.loads(line)
            items = tuple(row[2:].strip() for row in record["answer"].split("\n") if row.startswith("- "))
            qas.append(SequentialQA(f"{pipeline}/{lang}/{record['md5']}", lang, pipeline, record["question"], items,
                                    tuple(record["needles"]), ordered, record["answer"], (), "real"))
    return qas
