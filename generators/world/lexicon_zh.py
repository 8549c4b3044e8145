"""The Simplified Chinese lexicon of the synthetic world: kind nouns with their measure words, lead
sentences, fact templates, section headings, filler frames, domain topics, hop phrases and date and
number formats, written as plain data in the register of zh.wikipedia. Work names arrive already in
《》, so no template adds brackets or quotes. Fact templates state one fact each and always carry its
time when the relation has one; filler frames name no entity but the article's own and state nothing
checkable. Chinese pronouns are chosen per class, not per type (``该地`` would be odd for a river), so
the place and organization frames refer to the subject by name or with ``其`` and never use ``{Pron}``.
Hop descriptions nest with ``的`` (``出品{x}的公司的创始人``) and questions end with a full-width
question mark.
"""

from __future__ import annotations

import re

from generators.world.lexicon import Lexicon, Rewording


def _sentences(text: str) -> tuple[str, ...]:
    """The templates of a block of Chinese prose: whitespace removed, split after each ``。``."""
    return tuple(re.findall(r"[^。]+。", "".join(text.split())))


def _phrases(text: str) -> tuple[str, ...]:
    """The ``、``-separated noun phrases of a block of text, whitespace removed."""
    return tuple(p for p in "".join(text.split()).split("、") if p)


def format_count(n: int) -> str:
    """A count as Chinese encyclopedias write it: ``8500``, ``41.2万``, ``1.3亿``.

    Counts below 10,000 are plain digits; larger ones are given in 万 (or 亿 from 100 million),
    rounded half up to one decimal, with a trailing ``.0`` dropped.
    """
    if n < 10_000:
        return str(n)
    tenths = (n + 500) // 1_000  # tenths of 万
    unit = "万"
    if tenths >= 100_000:  # 10,000万 or more: write it in 亿
        tenths, unit = (n + 5_000_000) // 10_000_000, "亿"
    whole, frac = divmod(tenths, 10)
    return f"{whole}.{frac}{unit}" if frac else f"{whole}{unit}"


KINDS: dict[str, tuple[str, str]] = {
    "continent": ("大洲", "一个大洲"), "republic": ("共和国", "一个共和国"), "kingdom": ("王国", "一个王国"),
    "federation": ("联邦制国家", "一个联邦制国家"), "city": ("城市", "一座城市"), "town": ("城镇", "一座城镇"),
    "port_city": ("港口城市", "一座港口城市"), "river": ("河流", "一条河流"), "island": ("岛屿", "一座岛屿"),
    "university": ("大学", "一所大学"), "medical_school": ("医学院", "一所医学院"),
    "law_school": ("法学院", "一所法学院"),
    "institute_of_technology": ("理工学院", "一所理工学院"), "school_of_economics": ("经济学院", "一所经济学院"),
    "institute_of_mathematics": ("数学研究所", "一所数学研究所"), "academy_of_arts": ("艺术学院", "一所艺术学院"),
    "institute_of_history": ("历史研究所", "一所历史研究所"),
    "pharmaceutical_company": ("制药公司", "一家制药公司"), "software_company": ("软件公司", "一家软件公司"),
    "engineering_company": ("工程公司", "一家工程公司"), "bank": ("银行", "一家银行"),
    "insurance_company": ("保险公司", "一家保险公司"), "law_firm": ("律师事务所", "一家律师事务所"),
    "publishing_house": ("出版社", "一家出版社"), "film_studio": ("电影制片厂", "一家电影制片厂"),
    "analytics_firm": ("数据分析公司", "一家数据分析公司"), "education_company": ("教育公司", "一家教育公司"),
    "auction_house": ("拍卖行", "一家拍卖行"),
    "rock_band": ("摇滚乐队", "一支摇滚乐队"), "folk_band": ("民谣乐队", "一支民谣乐队"),
    "jazz_ensemble": ("爵士乐团", "一支爵士乐团"), "political_party": ("政党", "一个政党"),
    "medical_journal": ("医学期刊", "一份医学期刊"), "historical_review": ("史学期刊", "一份史学期刊"),
    "education_journal": ("教育期刊", "一份教育期刊"), "mathematics_journal": ("数学期刊", "一份数学期刊"),
    "literary_magazine": ("文学杂志", "一份文学杂志"), "law_review": ("法律评论期刊", "一份法律评论期刊"),
    "technology_magazine": ("科技杂志", "一份科技杂志"), "financial_newspaper": ("财经报纸", "一份财经报纸"),
    "daily_newspaper": ("日报", "一份日报"),
    "physician": ("医生", "一位医生"), "surgeon": ("外科医生", "一位外科医生"), "nurse": ("护士", "一位护士"),
    "historian": ("历史学家", "一位历史学家"), "archaeologist": ("考古学家", "一位考古学家"),
    "teacher": ("教师", "一位教师"), "educator": ("教育家", "一位教育家"), "mathematician": ("数学家", "一位数学家"),
    "statistician": ("统计学家", "一位统计学家"), "novelist": ("小说家", "一位小说家"), "poet": ("诗人", "一位诗人"),
    "journalist": ("记者", "一位记者"), "musician": ("音乐家", "一位音乐家"), "singer": ("歌手", "一位歌手"),
    "film_director": ("电影导演", "一位电影导演"), "actor": ("演员", "一位演员"), "lawyer": ("律师", "一位律师"),
    "judge": ("法官", "一位法官"), "politician": ("政治家", "一位政治家"), "engineer": ("工程师", "一位工程师"),
    "software_developer": ("软件开发人员", "一位软件开发人员"), "banker": ("银行家", "一位银行家"),
    "economist": ("经济学家", "一位经济学家"), "entrepreneur": ("企业家", "一位企业家"),
    "song": ("歌曲", "一首歌曲"), "novel": ("小说", "一部小说"), "poetry_collection": ("诗集", "一部诗集"),
    "medical_textbook": ("医学教科书", "一本医学教科书"), "history_book": ("历史著作", "一部历史著作"),
    "textbook": ("教科书", "一本教科书"), "mathematics_monograph": ("数学专著", "一部数学专著"),
    "legal_treatise": ("法学论著", "一部法学论著"), "technology_book": ("科技著作", "一部科技著作"),
    "economics_book": ("经济学著作", "一部经济学著作"),
    "feature_film": ("剧情片", "一部剧情片"), "documentary_film": ("纪录片", "一部纪录片"),
}

LEADS: dict[str, tuple[str, ...]] = {
    "place": _sentences("""
        {s}是{a_kind}。{s}为{a_kind}。{s}系{a_kind}。{s}是{a_kind}，本条目介绍其基本情况。
        本条目所介绍的{s}是{a_kind}。{s}是本条目所述的{kind}。作为{a_kind}，{s}的概况如下文所述。
        在各类参考资料中，{s}通常被描述为{a_kind}。{s}是{a_kind}，以下是有关其各方面情况的概述。
    """),
    "organization": _sentences("""
        {s}是{a_kind}。{s}为{a_kind}。{s}系{a_kind}。{s}是{a_kind}，本条目介绍其基本情况。
        本条目所介绍的{s}是{a_kind}。{s}是本条目所述的{kind}。作为{a_kind}，{s}的概况如下文所述。
        在各类参考资料中，{s}通常被描述为{a_kind}。{s}是{a_kind}，以下是有关其各方面情况的概述。
    """),
    "person": _sentences("""
        {s}是{a_kind}。{s}，{kind}。{s}系{a_kind}。{s}是{a_kind}，本条目介绍其生平。
        本条目所介绍的{s}是{a_kind}。{s}以{kind}的身份为人所知。作为{a_kind}，{s}的生平如下文所述。
        在各类参考资料中，{s}通常被称为{a_kind}。{s}的职业是{kind}。
    """),
    "work": _sentences("""
        {s}是{a_kind}。{s}为{a_kind}。{s}系{a_kind}。{s}是{a_kind}，本条目介绍其基本情况。
        本条目所介绍的{s}是{a_kind}。{s}是本条目所述的{kind}。作为{a_kind}，{s}的概况如下文所述。
        在各类参考资料中，{s}通常被归为{kind}。{s}是{a_kind}，以下是有关其各方面情况的概述。
    """),
}

FACTS: dict[str, tuple[str, ...]] = {
    "located_in:country": _sentences("""{s}位于{o}。{s}是{o}的一个国家。{s}地处{o}。从地理上看，{s}属于{o}。
        {s}是位于{o}的国家。"""),
    "located_in:city": _sentences("""{s}位于{o}境内。{s}隶属于{o}。{s}地处{o}。{s}是{o}境内的城镇之一。
        在行政上，{s}归属{o}。"""),
    "located_in:river": _sentences("""{s}流经{o}。{s}是{o}境内的一条河流。{s}的河道位于{o}境内。{s}在{o}境内蜿蜒流淌。
        {s}是流经{o}的河流之一。"""),
    "located_in:island": _sentences("""{s}是{o}的一座岛屿。{s}属于{o}。{s}为{o}所辖。{s}归{o}管辖。
        {s}是{o}的岛屿之一。"""),
    "located_in:university": _sentences("""{s}位于{o}。{s}坐落于{o}。{s}的主校区设在{o}。{s}地处{o}。{s}设在{o}。"""),
    "capital:country": _sentences("""{s}的首都是{o}。{o}是{s}的首都。{s}定都{o}。{s}以{o}为首都。
        {o}为{s}的首都所在地。"""),
    "headquartered_in:company": _sentences("""{s}的总部设在{o}。{s}总部位于{o}。{s}的总部位于{o}。{s}将总部设于{o}。
        {s}总部设于{o}。"""),
    "headquartered_in:publication": _sentences("""{s}的编辑部设在{o}。{s}总部位于{o}。{s}的社址位于{o}。
        {s}在{o}编辑出版。{s}以{o}为总部所在地。"""),
    "headquartered_in:party": _sentences("""{s}的总部设在{o}。{s}的中央党部位于{o}。{s}总部位于{o}。{s}将总部设在{o}。
        {s}的党部设于{o}。"""),
    "formed_in:band": _sentences("""{s}组建于{o}。{s}在{o}组建。{s}是在{o}组建的乐队。{s}于{o}成军。{s}起源于{o}。"""),
    "founded:country": _sentences("""{s}建国于{year}年。{s}于{year}年建国。{s}成立于{year}年。
        {s}的建国年份为{year}年。{year}年，{s}宣告建国。"""),
    "founded:city": _sentences("""{s}建于{year}年。{s}始建于{year}年。{s}的建城时间为{year}年。{year}年，{s}正式建城。
        {s}于{year}年设立。"""),
    "founded:university": _sentences("""{s}创办于{year}年。{s}成立于{year}年。{s}建校于{year}年。{s}于{year}年创立。
        {year}年，{s}正式建校。"""),
    "founded:company": _sentences("""{s}成立于{year}年。{s}创立于{year}年。{s}于{year}年创办。{year}年，{s}正式成立。
        {s}的创立时间为{year}年。"""),
    "founded:band": _sentences("""{s}组建于{year}年。{s}成立于{year}年。{s}于{year}年组建。{year}年，{s}正式成军。
        {s}的组建时间为{year}年。"""),
    "founded:party": _sentences("""{s}成立于{year}年。{s}创建于{year}年。{s}于{year}年建党。{year}年，{s}宣告成立。
        {s}的建党时间为{year}年。"""),
    "founded:publication": _sentences("""{s}创刊于{year}年。{s}于{year}年创刊。{year}年，{s}正式创刊。
        {s}的创刊时间为{year}年。{s}自{year}年起出版。"""),
    "founded_by:university": _sentences("""{s}由{o}创办。{o}创办了{s}。{s}的创办人是{o}。{s}为{o}所创立。
        {o}是{s}的创始人。"""),
    "founded_by:company": _sentences("""{s}由{o}创立。{o}创立了{s}。{s}的创始人是{o}。{s}由{o}一手创办。
        {o}是{s}的创办者。"""),
    "founded_by:party": _sentences("""{s}由{o}创建。{o}创建了{s}。{s}的创始人为{o}。{o}是{s}的创党人。
        {s}在{o}的主导下建立。"""),
    "founded_by:publication": _sentences("""{s}由{o}创办。{o}创办了{s}。{s}的创办人是{o}。{s}为{o}所创办。
        {o}是{s}的创刊人。"""),
    "population:city": _sentences("""根据{year}年的人口普查，{s}的人口为{value}。
        {year}年人口普查时，{s}共有居民{value}人。{s}在{year}年人口普查中的人口为{value}。
        据{year}年人口普查，{s}有居民{value}人。{year}年的人口普查显示，{s}的人口为{value}。"""),
    "born_in:person": _sentences("""{s}于{date}出生于{o}。{s}在{date}生于{o}。{date}，{s}出生在{o}。
        {s}生于{o}，出生日期为{date}。{s}的出生地是{o}，生于{date}。"""),
    "father:person": _sentences("""{s}的父亲是{o}。{o}是{s}的父亲。{s}之父为{o}。据记载，{s}的父亲为{o}。
        {s}的生父是{o}。"""),
    "mother:person": _sentences("""{s}的母亲是{o}。{o}是{s}的母亲。{s}之母为{o}。据记载，{s}的母亲为{o}。
        {s}的生母是{o}。"""),
    "educated_at:person": _sentences("""{s}于{date}毕业于{o}。{s}曾就读于{o}，并于{date}毕业。{date}，{s}从{o}毕业。
        {s}在{o}完成学业，于{year}年毕业。{s}毕业于{o}，毕业日期为{date}。"""),
    "employed_by:person": _sentences("""{s}于{date}加入{o}。{date}，{s}开始在{o}工作。{s}自{date}起任职于{o}。
        {year}年，{s}进入{o}工作。{s}于{year}年加盟{o}。"""),
    "member_of:person": _sentences("""{s}于{date}加入{o}。{date}，{s}成为{o}的成员。{s}于{year}年加入{o}，成为其成员。
        {s}自{date}起成为{o}的一员。{year}年，{s}加入了{o}。"""),
    "party_member:person": _sentences("""{s}于{date}加入{o}。{date}，{s}成为{o}党员。{year}年，{s}加入了{o}。
        {s}自{date}起为{o}党员。{s}于{year}年入党，所加入的政党为{o}。"""),
    "spouse:person": _sentences("""{s}于{date}与{o}结婚。{date}，{s}与{o}成婚。{s}与{o}于{date}举行婚礼。
        {s}的配偶是{o}，两人于{date}结婚。{year}年，{s}与{o}结婚。"""),
    "died_in:person": _sentences("""{s}于{date}在{o}逝世。{date}，{s}在{o}去世。{s}卒于{o}，逝世日期为{date}。
        {s}在{date}于{o}辞世。{s}逝世于{o}，时间为{date}。"""),
    "performed_by:song": _sentences("""{s}由{o}演唱。{s}的演唱者是{o}。{o}演唱了{s}。{s}由{o}录制并演唱。
        {s}的原唱是{o}。"""),
    "written_by:book": _sentences("""{s}的作者是{o}。{s}由{o}撰写。{o}是{s}的作者。{s}出自{o}之手。{o}撰写了{s}。"""),
    "published_by:book": _sentences("""{s}由{o}出版。{o}出版了{s}。{s}的出版方是{o}。{s}经{o}出版发行。
        {s}由{o}刊行。"""),
    "directed_by:film": _sentences("""{s}由{o}执导。{s}的导演是{o}。{o}执导了{s}。{s}是{o}执导的作品。
        {o}担任{s}的导演。"""),
    "produced_by:film": _sentences("""{s}由{o}出品。{s}的出品公司是{o}。{o}出品了{s}。{s}由{o}负责制作。
        {s}是{o}出品的电影。"""),
    "released:song": _sentences("""{s}于{date}发行。{s}在{date}正式发行。{date}，{s}正式推出。{s}的发行日期为{date}。
        {s}首次发行于{date}。"""),
    "released:film": _sentences("""{s}于{date}上映。{s}在{date}首映。{date}，{s}正式上映。{s}的上映日期为{date}。
        {s}于{date}公映。"""),
    "published:book": _sentences("""{s}出版于{year}年。{s}于{year}年出版。{year}年，{s}出版问世。
        {s}首次出版于{year}年。{s}的初版刊行于{year}年。"""),
}

SECTIONS: dict[str, tuple[str, ...]] = {
    "geography": ("地理", "地理环境", "地理概况", "地理位置"),
    "history": ("历史", "历史沿革", "历史背景", "沿革"),
    "economy": ("经济", "经济概况", "经济发展", "产业与经济"),
    "culture": ("文化", "社会与文化", "文化生活", "人文"),
    "organization": ("组织架构", "组织结构", "组织与管理", "机构设置"),
    "activities": ("主要活动", "业务与活动", "活动", "活动概况"),
    "reception": ("评价", "外界评价", "社会反响", "反响"),
    "early_life": ("早年生活", "早年经历", "家庭背景", "童年与家庭"),
    "education": ("教育背景", "求学经历", "学业", "教育经历"),
    "career": ("职业生涯", "工作经历", "事业", "职业经历"),
    "personal_life": ("个人生活", "私人生活", "家庭生活", "生活"),
    "legacy": ("影响", "影响与评价", "历史地位", "影响与遗产"),
    "production": ("创作背景", "制作", "创作与制作", "创作过程"),
    "release": ("发行", "出版与发行", "发行情况", "问世"),
    "content": ("内容", "主题", "内容与主题", "内容概述"),
}

FILLER: dict[str, tuple[str, ...]] = {
    "place": _sentences("""
        {s}在有关{topic}的研究中经常被提及。关于{s}的讨论，往往绕不开{topic}与{topic2}等话题。
        研究{topic}的学者曾多次引用与{s}有关的资料。在{topic}的比较研究中，{s}是一个反复出现的例子。
        与{s}相关的地方文献，为{topic}方面的研究者提供了不少素材。
        有关{s}的文献详略不均，某些时期记载颇为详尽，另一些时期则几乎无从查考。
        学者指出，由于所依据的资料不同，各家对{s}的描述往往差异很大。
        关于{s}的论述多集中在{topic}方面，不过{topic2}也日益受到关注。游记、官方报告和学术著作中都能见到对{s}的描写。
        专攻{topic}的学者对{s}的兴趣与日俱增。不同地图和地理志对{s}的描绘详略不一。
        {s}这一名称见于各类文献，从公文往来到私人书信均有涉及。论述{topic}的作者有时把{s}作为比较的参照。
        围绕{s}的评述数量可观，其中不少与{topic}有关。随着学界重新关注{topic}，对{s}的研究也获得了新的推动。
        观察者早已注意到，人们对{s}的看法可谓众说纷纭。对于研究{topic}的人而言，{s}提供了许多颇具启发性的实例。
        在{s}及其周边开展的调查，加深了人们对{topic}的认识。在讨论{kind}的一般特征时，{s}常被引作例证。
        {s}曾是不少文章、随笔乃至专著的研究对象。有关{topic}的争论不时将人们的目光引向{s}。
        人们谈论{s}时，多从{topic}而非{topic2}的角度切入。外来访客笔下的{s}与本地作者的记述，侧重点往往并不相同。
        关于{s}的研究散见于{topic}和{topic2}等领域的期刊之中。{s}吸引了众多作家、艺术家和学者的目光。
        关于{s}，仍有许多问题有待探明，相关研究也在陆续发表。评论者提醒，对{s}作概括性的论断时应当审慎。
        与{s}相关的资料分藏于多家档案馆和图书馆。{s}在{topic}发展史上的地位至今仍有争议。
        {topic}方面的专家认为，{s}是开展实地考察的理想对象。在讨论{topic}时，{s}常被当作参照。
        早期文献对{s}的描述大多简略，且带有较强的印象色彩。近来的研究更加重视{s}与{topic}之间的关联。
        不少有关{topic}的教学材料都以{s}为例。公众对{s}的关注，往往随着社会上有关{topic}的讨论而起伏。
        学者们从多个角度考察了{s}与{topic}之间的关系。地理学家和历史学家研究{s}时，关注的问题大相径庭。
        要全面了解{s}，既要考虑{topic}，也不能忽视{topic2}。有关{s}的照片和印刷品收藏颇为丰富。
        作家们常以{s}为背景，抒发对{topic}的思考。随着人们对{topic}的兴趣不断变化，对{s}的描述也随之改变。
        对{s}的研究综合运用了文献、实地调查和访谈等多种材料。无论是旅行指南还是{topic}方面的专门著作，都会谈到{s}。
        尽管{s}在专业圈子里颇有名气，一般性著作对其着墨却相对有限。{topic}问题贯穿了有关{s}的大部分论述。
        在专业人士眼中，{s}与{topic}的联系尤为紧密。不同时代的作者笔下，{s}呈现出迥然不同的面貌。
        对{s}进行系统记录的努力，与{topic}作为一门学科的兴起密切相关。
        现存资料使人们得以在较长的时间跨度内追溯{s}在{topic}方面的变迁。
        学者们仍在争论，{s}在多大程度上能够代表{topic}方面的普遍规律。在{topic}的相关文献中，{s}是一个耳熟能详的名字。
        季节更替是描写{s}的文字中反复出现的主题。有关{topic}的学术会议上，偶尔会有专门讨论{s}的场次。
        地方学会收集了大量关于{s}的资料。围绕{s}与{topic}的研究成果虽不算丰硕，却一直稳定产出。
        将{s}与其他地方相比较，是{topic}研究中常见的做法。{s}至今仍是学术著作和通俗读物共同关注的对象。
        外界观察者对{s}的描述并不总是准确的。随着新证据不断出现，对{s}的解读也可能随之修正。
        风土、记忆与{topic}是有关{s}的写作中反复出现的主题。借助{s}这一视角，可以观察{topic}领域中更宏观的问题。
        究竟应当如何描述{s}，至今仍无定论。许多关于{s}的记载出自旅行者之手，带有鲜明的个人色彩。
        关于{s}的早期记述与后来的研究之间存在不少出入。
        对{s}感兴趣的读者，可以在{topic}和{topic2}的相关文献中找到更多资料。
        尽管一般的参考书对{s}往往只作寥寥数语的介绍，{topic}领域的专家却借助档案材料、实地观察
        以及熟悉当地情况者的口述，描绘出了一幅丰富得多的图景。
        无论是从{topic}还是从{topic2}入手考察{s}，由此得出的图景在很大程度上都取决于研究者优先采信哪些资料，
        以及带着怎样的问题去解读它们。
        {s}常被视为观察{topic}的一扇窗口。
    """),
    "organization": _sentences("""
        {s}常在有关{topic}的讨论中被提及。专业媒体曾多次对{s}进行评述。{s}的活动不时与{topic}方面的争论联系在一起。
        观察人士认为，{s}内部的行事风格较为审慎，注重达成共识。多年来，{s}既赢得过赞誉，也招致过批评。
        {s}的公众形象随着时间推移发生了不小的变化。{s}作出的一些决定曾被有关{topic}的论著所引用。
        除{topic}外，{s}也长期关注{topic2}。评论者注意到{s}对{topic}的重视。{s}的内部架构曾历经多次调整。
        {s}的决策过程被描述为以协商为主。批评者对{s}在{topic}问题上的做法提出过质疑。
        支持者则以{s}在{topic}方面的表现为例，说明其态度是认真的。报纸和行业刊物都曾介绍过{s}。
        在从事{topic}工作的人士当中，{s}的名字广为人知。{s}曾参与有关{topic}和{topic2}的公共讨论。
        外界对{s}工作成果的评价褒贬不一。随着时间推移，{s}的关注范围逐渐扩展到{topic2}。
        作为{kind}，{s}的运作方式为观察者提供了一个颇具启发性的样本。公众对{s}的关注，很大一部分集中在{topic}上。
        {s}的日常运作在很大程度上依赖内部的协调与沟通。有关{s}的报道多聚焦于其在{topic}方面的作为。
        {s}定期举办与{topic}相关的活动。关于{s}的讨论往往涉及{topic}与{topic2}。
        {s}的运作方式在同类{kind}中颇具代表性。有研究者将{s}作为考察{topic}的案例。
        {s}对外发布的材料中，经常谈到{topic}。熟悉{topic}的人士对{s}的看法不尽相同。
        {s}一贯重视与外界的交流与合作。对于{s}在{topic}领域的影响，学界存在不同看法。
        {s}曾因其在{topic}问题上的立场而受到关注。有人称赞{s}作风稳健，也有人批评其过于保守。
        {s}的发展历程折射出{topic}领域的诸多变化。在讨论{topic}时，评论者有时会以{s}为例。
        随着工作范围的扩大，{s}内部的分工也不断细化。{s}的管理方式曾引发过一些讨论。
        评论界对{s}的关注程度时高时低。{s}在公众中的认知度与其在{topic}方面的活动密切相关。
        关于{s}的资料散见于报刊、档案和回忆录之中。{s}的工作涉及{topic}、{topic2}等多个方面。
        {s}在确定工作重点时，通常会兼顾{topic}与{topic2}。观察人士指出，{s}的对外形象与其内部文化之间存在一定落差。
        {s}在{topic}问题上的表态时常引起外界的议论。{s}的组织方式被一些研究者视为同类{kind}的典型。
        围绕{s}的评论既有赞赏，也有保留。{s}的各项活动大多围绕{topic}展开。
        有评论认为，{s}在{topic}方面的投入值得肯定。{s}的内部规章经过多轮修订。{s}历来注重记录与保存自身的档案资料。
        不少有关{topic}的研究都提到过{s}。{s}在{topic}领域的声誉经历过起伏。{s}的名称常见于有关{topic}的报道之中。
        {s}与公众之间的关系一直是评论者关心的话题。人们对{s}的印象，很大程度上来自媒体对其活动的报道。
        {s}的日常工作强调规范与效率。{s}的工作风格被形容为低调务实。研究{topic}的学者曾对{s}的做法进行过分析。
        {s}的决策机制在不同时期有所调整。外界常将{s}与{topic}联系起来。{s}的活动力求在{topic}与{topic2}之间取得平衡。
        对{s}的评价往往取决于评论者自身对{topic}的立场。关于{s}如何应对{topic}方面的挑战，评论者意见不一。
        {s}在内部事务上相对公开透明，这一点常受到称道。尽管规模和重心几经变化，{s}始终保持着对{topic}的关注。
        想要弄清{s}在{topic}领域中的位置并不容易，因为内部人士、外部观察者和新闻媒体的记述往往各有侧重，
        对其初衷与目标的理解也时有分歧。
        关注{topic}和{topic2}动向的人士曾多次评论{s}，其中既有赞许，也不乏对其目标与方法的公开质疑。
        {s}在不同场合中都曾被人谈及。
    """),
    "person": _sentences("""
        {s}常在有关{topic}的讨论中被提及。谈及{s}的职业生涯，人们常会联系到{topic}和{topic2}方面的问题。
        {Pron}长期关注{topic}。同时代的人认为{s}是一位认真可靠的{kind}。不少研究性文献概述了{s}对{topic}的看法。
        {s}的传略大多侧重{topic}，而较少涉及{topic2}。在丰富多样的职业经历中，{s}始终保持着对{topic}的兴趣。
        {Pron}以务实、耐心的态度对待{topic}问题而为人所知。{s}被视为{kind}这一职业社会角色变迁的例证。
        在{pron}看来，{topic}与{topic2}密不可分。{s}在公开场合谈论{topic}的言论，留下的详细记录并不多。
        {Pron}有时对{topic}领域的主流观点持批评态度。现存的往来书信为了解{s}的工作习惯提供了一些线索。
        对{s}的评价随着时间推移而有所变化。{Pron}崇尚清晰，喜欢用平实的语言代替艰深的术语。
        在接受采访时，{s}谈起{topic}总是兴致勃勃。同行认为{pron}是一位能干而尽责的{kind}。
        {s}对{topic}的见解，融合了实践经验与广博的阅读。{Pron}常常强调{topic}对普通公众的重要意义。
        评论者注意到，{topic}对{s}的思想观念有着明显影响。{s}曾多次参与有关{topic}的讨论。{Pron}以做事周密细致著称。
        媒体对{s}的报道多聚焦于{topic}。{s}的工作方法被形容为一丝不苟。{Pron}一向不愿谈论私事。
        朋友们回忆说，{s}为人低调，待人宽厚。{Pron}与许多关注{topic}的人保持着广泛的书信往来。
        研究{topic}的人至今仍会提到{s}的事例。{s}的声望主要建立在其{topic}方面的工作之上。
        {Pron}的名字常与有关{topic}的争论联系在一起。并非所有同时代人都认同{s}在{topic}问题上的立场。
        {Pron}自幼便对{topic}产生了兴趣，这种兴趣影响了日后的许多选择。少年时代的{s}博览群书，对{topic}尤为好奇。
        {Pron}对自己的成就一向十分谦逊。对于{s}在{topic}方面的贡献，既有肯定的声音，也不乏批评。
        论述{topic}的作者偶尔会引用据称出自{s}的言论。{Pron}认为，{topic}理应得到比以往更多的重视。
        {s}的职业经历折射出{kind}在工作中面临的种种压力。{Pron}性格务实，同时对{topic2}抱有浓厚的好奇心。
        后来，{s}曾公开反思{topic}与{topic2}等问题。{Pron}经常出席有关{topic}的会议。
        {s}的影响在{topic}领域体现得尤为明显。{Pron}被视为一位深思熟虑、兢兢业业的{kind}。
        {s}并不追求名声，更愿意专注于本职工作。{Pron}经常面向非专业听众讲解{topic}。
        后世不少评论者将{s}置于{topic}这一更宏大的传统之中。在有关{topic}的辩论中，人们有时会援引{s}的例子。
        {Pron}留有详细的笔记，后来为研究{topic}的学者提供了便利。据熟人回忆，{s}性格内敛，却乐于助人。
        有观点认为，{s}对{topic}的兴趣源于对{topic2}的更广泛关切。
        在{topic}问题上，{pron}时常以非正式的方式为他人出谋划策。
        {s}关于{topic}的观点在当时并不总是受到欢迎。{Pron}不喜繁文缛节，待人处事随和自然。
        由于大量细节缺乏记载，为{s}作传并非易事。{Pron}从小就表现出强烈的求知欲。求学期间，{s}逐渐对{topic}产生了兴趣。
        {Pron}是一位用功的学生，兴趣广泛，尤其关注{topic}。在同事眼中，{s}既严谨又富有同情心。
        {Pron}在工作之余喜爱阅读、散步和音乐。{s}的观点至今仍在{topic}领域引起讨论。
        关于{s}的评价，不同时期的论者看法不尽相同。{Pron}对待{topic}的方式，体现出{kind}特有的职业素养。
        {s}曾在多个场合表达对{topic}现状的关切。在{topic}的相关著述中，{s}的名字时有出现。
        许多人认为，{s}的经历是理解{topic}发展脉络的窗口。
        熟悉{s}的人大多形容{pron}生活规律、兴趣广泛，能够在{topic}与{topic2}之间从容转换，并且更愿意细致地讲道理，
        而不是卷入公开的争执。
        尽管一般的{topic}通史未必给{s}留出多少篇幅，专业人士却早已认识到其工作的价值以及其中倾注的心血。
        {Pron}做事从不敷衍，对细节尤其讲究。
    """),
    "work": _sentences("""
        评论者常将{s}与{topic}联系起来讨论。{s}常在有关{topic}的讨论中被引用。
        有评论者称赞{s}克制内敛，也有人认为其水准参差不齐。{s}的基调被形容为沉静而富于思考。
        {topic}与{topic2}的主题贯穿{s}始终。{s}曾被用作{topic}相关课程的分析材料。受众和评论界对{s}的反应差异很大。
        {s}的结构安排曾受到细致的分析。{Pron}借鉴了与{topic}相关的诸多观念。有评论者把{s}解读为对{topic}的沉思。
        {s}问世之初，评价褒贬不一。{s}的创作经历了较长时间的修改打磨。{s}在较为舒缓与较为激烈的段落之间交替推进。
        作为{kind}，{s}在{topic}方面颇具特色。{Pron}在风格上兼具传统与创新。关于{s}的评论常常涉及{topic}与{topic2}。
        一些评论者认为{s}的节奏略显拖沓。{s}的语言简洁明快，便于理解。{s}中的若干段落常被单独引用。
        {Pron}在不同受众群体中引起了不同的反响。有研究将{s}置于{topic}的发展脉络中加以考察。
        {s}的内容组织清晰，层次分明。{s}在细节处理上颇见功力。对{s}的解读随着时代变化而不断更新。
        {s}所涉及的问题与{topic}密切相关。评论界普遍注意到{s}对{topic}的关注。{Pron}的表现手法受到了一些同行的借鉴。
        {s}的影响范围超出了{topic}领域。有人批评{s}在某些方面流于表面。{s}的风格朴素，不事雕琢。
        关于{s}的创作意图，评论者提出过多种解释。{s}的开头部分常被认为奠定了整体基调。
        {Pron}兼顾了专业人士与普通受众的需求。{s}反映了创作者对{topic}的长期思考。
        {s}在{topic}方面提出的问题至今仍有讨论价值。{s}体量适中，结构紧凑。在有关{topic}的文献中，{s}时常被提及。
        {s}通过具体细节呈现{topic}这一主题。对于熟悉{topic}的受众而言，{s}中的许多内容并不陌生。
        {s}的某些处理方式在当时颇具争议。后来的评论者对{s}的评价比早期更为积极。{Pron}常被拿来与同类{kind}相比较。
        {s}的核心关切在于{topic}与{topic2}之间的关系。{s}在表达上张弛有度。部分受众认为{s}的结尾略显仓促。
        {s}中反复出现的意象引起了评论者的兴趣。围绕{s}的讨论至今仍未停止。{s}被不少评论者视为理解{topic}的切入点。
        {s}的整体基调克制而内敛。{s}所呈现的{topic}图景，既有写实的一面，也有理想化的一面。
        评论者对{s}的技术层面评价较高。{s}在构思上颇具匠心。{Pron}的成功之处在于将{topic}与{topic2}自然地结合在一起。
        {s}的部分内容曾引发关于{topic}的争论。有学者专门撰文分析{s}。
        {s}并不追求面面俱到，而是集中于少数核心问题。{s}的受众群体相当广泛。{s}的形式与内容相得益彰。
        {s}在{topic}领域的参考价值得到了普遍认可。{Pron}在情感表达上含蓄而克制。
        关于{s}的争议主要集中在其对{topic}的处理上。有评论指出，{s}的某些观点在今天看来仍有启发意义。
        有关{s}制作过程的记述，侧重点各有不同。{s}的内容可以大致分为若干部分，各部分之间衔接自然。
        带着对{topic}的兴趣接触{s}的人，与从{topic2}的角度切入的人，往往会注意到不同的东西，
        相关评论也大多反映了这种分野。
        尽管{s}并非专为探讨{topic}而作，人们却常常从这一角度加以解读，这些解读本身也成了讨论{s}时绕不开的一部分。
        {Pron}经得起反复品味，每次重温都可能有新的发现。
    """),
}

TOPICS: dict[str, tuple[str, ...]] = {
    "medical": _phrases("""
        公共卫生政策、临床培训、医学伦理、流行病学、医院管理、预防医学、护理实践、外科技术、药理学、医学影像诊断、
        传染病防控、妇幼保健、精神卫生、农村医疗服务、疫苗接种、临床研究、患者安全、医疗保险、医学教育、基层医疗、
        慢性病管理、急诊医学、儿科护理、环境卫生、营养学、职业健康、解剖学教学、检验医学、药品监管、新药研发、
        安宁疗护、康复医学、卫生统计、病历管理、社区卫生、热带医学、免疫学、心血管医学、肿瘤研究、医学史、
        医院建筑、医患沟通、行医资格认证、医疗改革、感染控制
    """),
    "history": _phrases("""
        档案研究、口述历史、史学史、地方志、考古发掘、文化遗产保护、商贸史、军事史、经济史、社会史、城市史、农业史、
        移民史、宗教史、王朝政治、外交史、海上贸易、殖民地行政、地图学史、博物馆收藏、古迹保护、谱牒研究、文献学、
        钱币学、金石学、教育史、科学史、地域认同、民间传统、公共记忆、纪念活动、土地制度、行会档案、行政改革、
        建筑史、历史人口学、古地图研究、古文字学、古物研究、物质文化、司法档案、交通史、乡村生活、纺织贸易、法制史
    """),
    "education": _phrases("""
        课程设计、师资培训、扫盲运动、职业教育、高等教育政策、学校管理、教育评价、学前教育、成人教育、远程教育、
        教学法、课堂教学、学术自由、学生福利、特殊教育、语言教学、教育公平、教育经费、教材编写、考试制度、终身学习、
        教育心理学、大学治理、奖学金制度、留学教育、教育研究、导师制度、学校图书馆、公民教育、科学教育、数学教学、
        双语教育、教育技术、教师资格认证、学校改革、学习成效、课外辅导、学业指导、教育标准、学生评估、学校教育史、
        通识教育
    """),
    "math": _phrases("""
        数论、代数几何、概率论、数理统计、数值分析、组合数学、图论、微分方程、拓扑学、数理逻辑、最优化理论、线性代数、
        集合论、博弈论、数学建模、统计推断、时间序列分析、密码学、数学基础、几何学、泛函分析、运筹学、精算学、
        随机过程、计算数学、数学物理、动力系统、范畴论、调和分析、数据分析、抽样方法、调查统计、不确定性推理、
        应用数学、数学史、数学教育、形式证明、符号计算、离散数学、测度论、复分析、逼近论、信息论
    """),
    "literature": _phrases("""
        叙事技巧、文学批评、诗歌形式、小说文体、文学翻译、口头叙事、民歌、流行音乐、电影评论、舞台表演、抒情诗、
        现代主义文学、现实主义小说、短篇小说、改编艺术、剧本创作、电影摄影、音乐创作、歌曲创作、文学奖项、书籍史、
        图书贸易、作者身份、读者接受、自传写作、散文写作、讽刺文学、儿童文学、游记文学、同人刊物、乐评、录音制作、
        现场演出、民间艺术、先锋艺术、类型小说、戏剧结构、人物塑造、文学风格、修辞学、世界文学、比较文学、视觉叙事
    """),
    "law": _phrases("""
        宪法学、刑事司法、民事诉讼、合同法、行政法、人权保障、法学教育、司法审查、国际法、物权法、婚姻家庭法、劳动法、
        选举制度、立法起草、法律职业伦理、商事仲裁、税法、环境规制、公司治理、法治、法院管理、法律援助、法理学、
        法律史、公共政策、议事规则、竞争法、知识产权、刑事诉讼、量刑改革、证据法、纠纷解决、地方治理、国籍法、
        数据保护、海商法、保险法、银行监管、法哲学、公民自由、联邦制、法律解释
    """),
    "technology": _phrases("""
        软件工程、计算机网络、工业自动化、电气工程、材料科学、电信技术、数据存储、网络安全、机器学习、土木工程、
        制造工艺、系统设计、程序设计语言、操作系统、数据库设计、用户界面设计、嵌入式系统、可再生能源、交通工程、
        机器人技术、半导体设计、云计算、开源软件、技术标准、质量保证、数字基础设施、机械设计、信息检索、分布式系统、
        信号处理、能源效率、产品设计、技术文档、计算机图形学、研究与开发、工程教育、计算机发展史、精密仪器、软件测试、
        移动计算、人机交互、科技政策
    """),
    "finance": _phrases("""
        银行监管、货币政策、公共财政、公司金融、资本市场、保险市场、风险管理、会计准则、信贷市场、金融监管、投资管理、
        国际贸易、外汇市场、家庭储蓄、养老金制度、财政政策、经济发展、劳动力市场、物价稳定、风险投资、商业贷款、
        小额信贷、财务报告、审计、资产估值、银行业史、中央银行制度、贸易融资、经济预测、产业政策、航运与物流、
        消费信贷、税收政策、支付体系、金融素养、企业并购、房地产市场、大宗商品交易、商业伦理、市场竞争、公共债务
    """),
}

HOPS: dict[str, tuple[str, str]] = {
    "located_in>continent": ("{x}所在的大洲", "{x}位于哪个大洲？"),
    "located_in>country": ("{x}所在的国家", "{x}位于哪个国家？"),
    "located_in>city": ("{x}所在的城市", "{x}位于哪座城市？"),
    "capital>city": ("{x}的首都", "{x}的首都是哪座城市？"),
    "headquartered_in>city": ("{x}总部所在的城市", "{x}的总部设在哪座城市？"),
    "founded_by>person": ("{x}的创始人", "{x}是由谁创立的？"),
    "formed_in>city": ("{x}的组建地", "{x}是在哪座城市组建的？"),
    "born_in>city": ("{x}的出生地", "{x}出生于哪座城市？"),
    "died_in>city": ("{x}的逝世地", "{x}逝世于哪座城市？"),
    "educated_at>university": ("{x}的毕业院校", "{x}毕业于哪所院校？"),
    "employed_by>organization": ("{x}任职的机构", "{x}曾在哪个机构任职？"),
    "spouse>person": ("{x}的配偶", "{x}的配偶是谁？"),
    "father>person": ("{x}的父亲", "{x}的父亲是谁？"),
    "mother>person": ("{x}的母亲", "{x}的母亲是谁？"),
    "member_of>band": ("{x}加入的乐队", "{x}加入了哪支乐队？"),
    "party_member>party": ("{x}加入的政党", "{x}加入了哪个政党？"),
    "performed_by>performer": ("{x}的演唱者", "{x}是由谁演唱的？"),
    "written_by>person": ("{x}的作者", "{x}的作者是谁？"),
    "published_by>publication": ("出版{x}的报刊", "{x}是由哪家报刊出版的？"),
    "directed_by>person": ("{x}的导演", "{x}的导演是谁？"),
    "produced_by>company": ("出品{x}的公司", "{x}是由哪家公司出品的？"),
    "founded>year": ("", "{x}创建于哪一年？"),
    "born_in>year": ("", "{x}出生于哪一年？"),
    "died_in>year": ("", "{x}逝世于哪一年？"),
    "released>year": ("", "{x}是在哪一年推出的？"),
    "published>year": ("", "{x}出版于哪一年？"),
}

CLAUSES: dict[str, str] = {
    "located_in": "位于{o}", "capital": "首都是{o}", "headquartered_in": "总部设在{o}", "formed_in": "组建于{o}",
    "founded_by": "由{o}创立", "born_in": "出生于{o}", "father": "父亲是{o}", "mother": "母亲是{o}",
    "educated_at": "毕业于{o}", "employed_by": "曾任职于{o}", "member_of": "曾是{o}的成员", "party_member": "加入了{o}",
    "died_in": "逝世于{o}", "performed_by": "由{o}演唱", "written_by": "由{o}撰写", "published_by": "由{o}出版",
    "directed_by": "由{o}执导", "produced_by": "由{o}出品",
}
"""描述实体的定语从句：以实体的一条事实指称它（issue 39 的描述式查询，OURS）。"""

REWORDED = Rewording(
    hops={
        'located_in>continent': ('{x}所处的那块大陆', '{x}归哪块大陆？'), 'located_in>country': ('{x}归入的那一国度', '{x}归哪一国度？'),
        'located_in>city': ('{x}扎根的那座都市', '{x}扎根在哪座都市？'), 'capital>city': ('{x}的国都', '{x}把国都定在哪里？'),
        'headquartered_in>city': ('{x}大本营的驻地', '{x}的大本营在哪里？'), 'founded_by>person': ('开办{x}的人', '{x}是谁开办的？'),
        'formed_in>city': ('{x}起家的地方', '{x}在哪里起家？'), 'born_in>city': ('{x}的老家', '{x}的老家在哪里？'),
        'died_in>city': ('{x}离世的地方', '{x}在哪里离世？'), 'educated_at>university': ('{x}的母校', '{x}的母校是哪里？'),
        'employed_by>organization': ('{x}供职的单位', '{x}在哪个单位供职？'), 'spouse>person': ('{x}的另一半', '{x}的另一半是谁？'),
        'father>person': ('{x}的爸爸', '{x}的爸爸是谁？'), 'mother>person': ('{x}的妈妈', '{x}的妈妈是谁？'),
        'member_of>band': ('{x}效力的组合', '{x}效力于哪个组合？'), 'party_member>party': ('{x}所属的党派', '{x}属于哪个党派？'),
        'performed_by>performer': ('献唱{x}的人', '{x}是谁献唱的？'), 'written_by>person': ('执笔{x}的人', '{x}是谁执笔的？'),
        'published_by>publication': ('印行{x}的媒体', '{x}由哪家媒体印行？'), 'directed_by>person': ('{x}的掌镜人', '{x}是谁掌镜的？'),
        'produced_by>company': ('投拍{x}的机构', '{x}由哪家机构投拍？'), 'founded>year': ('', '{x}是哪一年开办的？'),
        'born_in>year': ('', '{x}是哪一年降生的？'), 'died_in>year': ('', '{x}是哪一年离世的？'),
        'released>year': ('', '{x}是哪一年面世的？'), 'published>year': ('', '{x}是哪一年付梓的？'),
    },
    clauses={
        'located_in': '处在{o}版图上', 'capital': '以{o}为国都', 'headquartered_in': '大本营在{o}', 'formed_in': '在{o}起家',
        'founded_by': '由{o}开办', 'born_in': '老家在{o}', 'father': '爸爸是{o}', 'mother': '妈妈是{o}',
        'educated_at': '母校是{o}', 'employed_by': '在{o}供职', 'member_of': '效力于{o}', 'party_member': '属于{o}',
        'died_in': '在{o}离世', 'performed_by': '由{o}献唱', 'written_by': '由{o}执笔', 'published_by': '由{o}印行',
        'directed_by': '由{o}掌镜', 'produced_by': '由{o}投拍',
    },
    kinds={
        'continent': '大陆板块', 'republic': '民选元首之国', 'kingdom': '君主国', 'federation': '多州合组之国', 'city': '都市',
        'town': '小镇', 'port_city': '海港都市', 'river': '水道', 'island': '海岛', 'university': '高等学府',
        'medical_school': '培养大夫的学府', 'law_school': '培养讼师的学府', 'institute_of_technology': '工科学府',
        'school_of_economics': '商科学府', 'institute_of_mathematics': '算学机构', 'academy_of_arts': '绘画雕塑学府',
        'institute_of_history': '治史机构', 'pharmaceutical_company': '药企', 'software_company': '程序开发企业',
        'engineering_company': '建造企业', 'bank': '放贷机构', 'insurance_company': '承保机构', 'law_firm': '律所',
        'publishing_house': '书局', 'film_studio': '影业', 'analytics_firm': '咨询企业', 'education_company': '培训机构',
        'auction_house': '竞拍商号', 'rock_band': '重型音乐组合', 'folk_band': '乡谣组合', 'jazz_ensemble': '布鲁斯组合',
        'political_party': '党派', 'medical_journal': '医科刊物', 'historical_review': '治史刊物',
        'education_journal': '育人刊物', 'mathematics_journal': '算学刊物', 'literary_magazine': '文艺刊物',
        'law_review': '法政刊物', 'technology_magazine': '技术刊物', 'financial_newspaper': '商业报章',
        'daily_newspaper': '每天出刊的报章', 'physician': '大夫', 'surgeon': '主刀大夫', 'nurse': '看护', 'historian': '史家',
        'archaeologist': '田野发掘学者', 'teacher': '老师', 'educator': '育人名家', 'mathematician': '算学名家',
        'statistician': '计量学者', 'novelist': '写故事的作家', 'poet': '诗作者', 'journalist': '新闻采写人', 'musician': '乐手',
        'singer': '唱将', 'film_director': '拍片人', 'actor': '艺人', 'lawyer': '辩护人', 'judge': '审判员',
        'politician': '从政者', 'engineer': '技术专家', 'software_developer': '程序员', 'banker': '金融家',
        'economist': '研究市场的学者', 'entrepreneur': '商人', 'song': '曲子', 'novel': '长篇故事', 'poetry_collection': '诗作合集',
        'medical_textbook': '医科课本', 'history_book': '史书', 'textbook': '课本', 'mathematics_monograph': '演算专书',
        'legal_treatise': '法律专书', 'technology_book': '技术专书', 'economics_book': '商业专书', 'feature_film': '故事片',
        'documentary_film': '纪实影片',
    },
)
"""The questions and descriptions worded unlike the articles (:class:`Rewording`; issue 39's reworded queries, OURS)."""

LEXICON = Lexicon(
    lang="zh",
    kinds=KINDS,
    leads=LEADS,
    facts=FACTS,
    sections=SECTIONS,
    filler=FILLER,
    topics=TOPICS,
    hops=HOPS,
    clauses=CLAUSES,
    described="{clauses}的{kind}",
    clause_sep="、",
    pronouns={
        "male": ("他", "他"), "female": ("她", "她"),
        "place": ("该地", "该地"), "organization": ("该机构", "该机构"), "work": ("该作品", "该作品"),
    },
    months=tuple(f"{m}月" for m in range(1, 13)),
    date_format="{year}年{month_num}月{day}日",
    see_also="参见",
    list_sep="、",
    sentence_sep="",
    format_count=format_count,
    reworded=REWORDED,
)
