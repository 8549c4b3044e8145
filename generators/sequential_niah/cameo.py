"""CAMEO event types (the relations of ICEWS) as English and Chinese predicates.

Each of the 230 relations of ICEWS14's ``rel2id.txt`` maps to past-tense predicates that follow the
subject and name the object ``{o}``: ``Consult`` -> ``held a consultation with {o}`` /
``与{o}进行了磋商``. The most frequent relations (about forty, by ICEWS14 counts) have two or three
phrasings per language, so needles vary; the first phrasing is the canonical one answers use.
A relation outside the table (another ICEWS release, the world's graph) falls back to a generic
predicate that quotes the relation name.
"""

from __future__ import annotations

PREDICATES: dict[str, tuple[tuple[str, ...], tuple[str, ...]]] = {
    "Make statement": (
        ("made a statement about {o}", "issued a public statement concerning {o}", "spoke publicly about {o}"),
        ("就{o}发表了声明", "发表了有关{o}的公开声明"),
    ),
    "Consult": (("held a consultation with {o}", "consulted with {o}", "held talks with {o}"), ("与{o}进行了磋商", "同{o}举行了会谈")),
    "Make an appeal or request": (("made an appeal to {o}", "issued a request to {o}"), ("向{o}提出了呼吁", "向{o}提出了请求")),
    "Express intent to meet or negotiate": (
        ("expressed an intent to meet or negotiate with {o}", "signalled a willingness to meet with {o}"),
        ("表示愿意与{o}会面或谈判", "表达了与{o}举行谈判的意向"),
    ),
    "Make a visit": (("made a visit to {o}", "paid a visit to {o}", "visited {o}"), ("访问了{o}", "对{o}进行了访问")),
    "Host a visit": (
        ("hosted a visit by {o}", "received {o} on a visit", "welcomed a visit from {o}"),
        ("接待了{o}的来访", "迎接了{o}的访问"),
    ),
    "Arrest, detain, or charge with legal action": (
        ("arrested, detained or charged {o}", "took legal action against {o}, detaining or charging them"),
        ("逮捕、拘留或起诉了{o}", "对{o}采取了拘押或起诉等法律行动"),
    ),
    "Praise or endorse": (("praised {o}", "publicly endorsed {o}", "spoke in praise of {o}"), ("赞扬了{o}", "公开表示支持{o}")),
    "Criticize or denounce": (("criticized {o}", "denounced {o}", "publicly criticized {o}"), ("批评了{o}", "谴责了{o}")),
    "Accuse": (("accused {o}", "made accusations against {o}"), ("指责了{o}", "对{o}提出了指控")),
    "Use unconventional violence": (
        ("used unconventional violence against {o}", "carried out a violent attack on {o}"),
        ("对{o}使用了非常规暴力", "对{o}实施了暴力袭击"),
    ),
    "Use conventional military force": (
        ("used conventional military force against {o}", "launched a military attack on {o}"),
        ("对{o}动用了常规军事力量", "对{o}发动了军事打击"),
    ),
    "Engage in negotiation": (("engaged in negotiations with {o}", "negotiated with {o}"), ("与{o}进行了谈判", "同{o}展开了谈判")),
    "Express intent to cooperate": (
        ("expressed an intent to cooperate with {o}", "announced a readiness to cooperate with {o}"),
        ("表示愿意与{o}合作", "表达了与{o}合作的意向"),
    ),
    "Demand": (
        ("made demands of {o}", "called for specific actions or concessions from {o}", "demanded certain actions from {o}"),
        ("向{o}提出了要求", "要求{o}作出让步"),
    ),
    "Express intent to engage in diplomatic cooperation (such as policy support)": (
        ("expressed an intent to engage in diplomatic cooperation with {o}", "signalled a willingness to give {o} diplomatic support"),
        ("表示愿意与{o}开展外交合作", "表达了在政策上支持{o}的意向"),
    ),
    "Engage in diplomatic cooperation": (
        ("engaged in diplomatic cooperation with {o}", "cooperated diplomatically with {o}"),
        ("与{o}开展了外交合作", "同{o}进行了外交协作"),
    ),
    "Sign formal agreement": (
        ("signed a formal agreement with {o}", "concluded a formal agreement with {o}"),
        ("与{o}签署了正式协议", "同{o}签订了正式协定"),
    ),
    "Investigate": (("investigated {o}", "opened an investigation into {o}"), ("对{o}展开了调查", "调查了{o}")),
    "Discuss by telephone": (
        ("discussed matters by telephone with {o}", "held a phone call with {o}", "spoke with {o} by telephone"),
        ("与{o}通了电话", "同{o}进行了电话会谈"),
    ),
    "Reject": (("rejected {o}", "turned down a proposal from {o}"), ("拒绝了{o}", "回绝了{o}的提议")),
    "fight with small arms and light weapons": (
        ("fought {o} with small arms and light weapons", "clashed with {o} using small arms"),
        ("使用轻武器与{o}交火", "与{o}发生了轻武器冲突"),
    ),
    "Make optimistic comment": (
        ("made an optimistic comment about {o}", "spoke optimistically about {o}"),
        ("对{o}发表了乐观评论", "对{o}表示乐观"),
    ),
    "Threaten": (("threatened {o}", "issued a threat against {o}"), ("威胁了{o}", "向{o}发出了威胁")),
    "Demonstrate or rally": (
        ("staged a demonstration or rally directed at {o}", "rallied in protest at {o}"),
        ("针对{o}举行了示威或集会", "向{o}发起了示威集会"),
    ),
    "Abduct, hijack, or take hostage": (
        ("abducted, hijacked or took hostage members of {o}", "took members of {o} hostage"),
        ("绑架、劫持了{o}的人员或将其扣为人质", "将{o}的人员扣为人质"),
    ),
    "Make pessimistic comment": (
        ("made a pessimistic comment about {o}", "spoke pessimistically about {o}"),
        ("对{o}发表了悲观评论", "对{o}表示悲观"),
    ),
    "Meet at a 'third' location": (
        ("met {o} at a third location", "held a meeting with {o} at a neutral venue"),
        ("与{o}在第三地会面", "同{o}在中立地点举行了会晤"),
    ),
    "Engage in symbolic act": (
        ("engaged in a symbolic act toward {o}", "made a symbolic gesture toward {o}"),
        ("对{o}作出了象征性举动", "向{o}表达了象征性姿态"),
    ),
    "Appeal for diplomatic cooperation (such as policy support)": (
        ("appealed to {o} for diplomatic cooperation", "asked {o} for diplomatic support"),
        ("呼吁{o}开展外交合作", "请求{o}给予政策支持"),
    ),
    "Return, release person(s)": (
        ("returned or released people to {o}", "released detained persons to {o}"),
        ("向{o}遣返或释放了人员", "释放了{o}的被扣人员"),
    ),
    "Protest violently, riot": (("protested violently against {o}", "rioted against {o}"), ("针对{o}进行了暴力抗议", "针对{o}发生了骚乱")),
    "Provide humanitarian aid": (
        ("provided humanitarian aid to {o}", "delivered humanitarian assistance to {o}"),
        ("向{o}提供了人道主义援助", "为{o}送去了人道主义物资"),
    ),
    "Make empathetic comment": (
        ("made an empathetic comment about {o}", "expressed sympathy for {o}"),
        ("对{o}发表了同情性评论", "对{o}表示同情"),
    ),
    "Use tactics of violent repression": (
        ("used tactics of violent repression against {o}", "violently repressed {o}"),
        ("对{o}采取了暴力镇压手段", "暴力镇压了{o}"),
    ),
    "Occupy territory": (
        ("occupied territory of {o}", "seized and occupied territory belonging to {o}"),
        ("占领了{o}的领土", "侵占了{o}的地盘"),
    ),
    "Physically assault": (("physically assaulted {o}", "attacked {o} physically"), ("对{o}进行了人身攻击", "殴打了{o}")),
    "Reduce relations": (("reduced relations with {o}", "scaled back ties with {o}"), ("降低了与{o}的关系级别", "削减了与{o}的往来")),
    "Deny responsibility": (
        ("denied responsibility for an incident involving {o}", "denied any responsibility toward {o}"),
        ("否认对涉及{o}的事件负有责任", "就与{o}有关的事件否认责任"),
    ),
    "Mobilize or increase armed forces": (
        ("mobilized or increased armed forces against {o}", "built up armed forces facing {o}"),
        ("针对{o}动员或增加了武装力量", "针对{o}增派了兵力"),
    ),
    "Provide aid": (("provided aid to {o}", "gave assistance to {o}"), ("向{o}提供了援助", "援助了{o}")),
    "Ease administrative sanctions": (
        ("eased administrative sanctions on {o}", "relaxed administrative sanctions against {o}"),
        ("放宽了对{o}的行政制裁", "减轻了对{o}的行政处罚"),
    ),
    "Bring lawsuit against": (("brought a lawsuit against {o}", "sued {o}"), ("对{o}提起了诉讼", "起诉了{o}")),
    "Impose administrative sanctions": (
        ("imposed administrative sanctions on {o}", "placed administrative sanctions on {o}"),
        ("对{o}实施了行政制裁", "对{o}施加了行政处罚"),
    ),
    "Confiscate property": (("confiscated property of {o}", "seized property belonging to {o}"), ("没收了{o}的财产", "查封了{o}的资产")),
    "Expel or deport individuals": (
        ("expelled or deported members of {o}", "deported individuals connected with {o}"),
        ("驱逐或遣返了{o}的人员", "将{o}的人员驱逐出境"),
    ),
    "Reduce or break diplomatic relations": (
        ("reduced or broke off diplomatic relations with {o}", "downgraded diplomatic ties with {o}"),
        ("降低或断绝了与{o}的外交关系", "降低了与{o}的外交关系级别"),
    ),
    "Cooperate economically": (
        ("cooperated economically with {o}", "engaged in economic cooperation with {o}"),
        ("与{o}开展了经济合作", "同{o}进行了经济协作"),
    ),
    "Sexually assault": (("sexually assaulted {o}",), ("对{o}实施了性侵犯",)),
    "Complain officially": (
        ("complained officially to {o}", "lodged an official complaint with {o}"),
        ("向{o}提出了正式投诉", "向{o}正式提出抗议"),
    ),
    "Rally support on behalf of": (
        ("rallied support on behalf of {o}", "drummed up support for {o}"),
        ("为{o}争取了支持", "为{o}发起了声援"),
    ),
    "Cooperate militarily": (
        ("cooperated militarily with {o}", "engaged in military cooperation with {o}"),
        ("与{o}开展了军事合作", "同{o}进行了军事协作"),
    ),
    "Impose embargo, boycott, or sanctions": (
        ("imposed an embargo, boycott or sanctions on {o}", "placed sanctions on {o}"),
        ("对{o}实施了禁运、抵制或制裁", "对{o}施加了制裁"),
    ),
    "Coerce": (("coerced {o}", "applied coercion against {o}"), ("胁迫了{o}", "对{o}施加了强制手段")),
    "Yield": (("yielded to {o}", "gave way to {o}"), ("向{o}让步", "对{o}作出了让步")),
    "Express intent to provide military aid": (("expressed an intent to provide military aid to {o}",), ("表示愿意向{o}提供军事援助",)),
    "Consider policy option": (("considered a policy option regarding {o}",), ("考虑了针对{o}的政策选项",)),
    "Express intent to cooperate economically": (
        ("expressed an intent to cooperate economically with {o}",),
        ("表示愿意与{o}开展经济合作",),
    ),
    "Threaten with military force": (("threatened {o} with military force",), ("以武力威胁{o}",)),
    "Provide military aid": (("provided military aid to {o}",), ("向{o}提供了军事援助",)),
    "Engage in material cooperation": (("engaged in material cooperation with {o}",), ("与{o}开展了物质合作",)),
    "Reject proposal to meet, discuss, or negotiate": (
        ("rejected a proposal from {o} to meet, discuss or negotiate",),
        ("拒绝了{o}提出的会谈或谈判提议",),
    ),
    "Employ aerial weapons": (("employed aerial weapons against {o}",), ("对{o}动用了空中武器",)),
    "Express intent to provide material aid": (("expressed an intent to provide material aid to {o}",), ("表示愿意向{o}提供物资援助",)),
    "Provide economic aid": (("provided economic aid to {o}",), ("向{o}提供了经济援助",)),
    "Kill by physical assault": (("killed {o} by physical assault",), ("以暴力袭击杀害了{o}",)),
    "Conduct suicide, car, or other non-military bombing": (
        ("carried out a suicide, car or other non-military bombing against {o}",),
        ("对{o}实施了自杀式、汽车或其他非军事爆炸袭击",),
    ),
    "Express accord": (("expressed accord with {o}",), ("表示与{o}意见一致",)),
    "Carry out suicide bombing": (("carried out a suicide bombing against {o}",), ("对{o}实施了自杀式爆炸袭击",)),
    "Appeal for intelligence": (("appealed to {o} for intelligence",), ("请求{o}提供情报",)),
    "Rally opposition against": (("rallied opposition against {o}",), ("组织了针对{o}的反对力量",)),
    "Express intent to release persons or property": (
        ("expressed an intent to release persons or property to {o}",),
        ("表示愿意向{o}释放人员或财产",),
    ),
    "Demand change in leadership": (("demanded a change in leadership from {o}",), ("要求{o}更换领导层",)),
    "Express intent to provide economic aid": (("expressed an intent to provide economic aid to {o}",), ("表示愿意向{o}提供经济援助",)),
    "Accuse of crime, corruption": (("accused {o} of crime or corruption",), ("指控{o}犯罪或腐败",)),
    "Demand diplomatic cooperation (such as policy support)": (
        ("demanded diplomatic cooperation from {o}",),
        ("要求{o}开展外交合作",),
    ),
    "Grant diplomatic recognition": (("granted diplomatic recognition to {o}",), ("给予{o}外交承认",)),
    "Acknowledge or claim responsibility": (("claimed responsibility for an action concerning {o}",), ("承认对涉及{o}的事件负责",)),
    "Defy norms, law": (("defied norms or laws in dealing with {o}",), ("在对待{o}时无视规范或法律",)),
    "Impose restrictions on political freedoms": (
        ("imposed restrictions on the political freedoms of {o}",),
        ("限制了{o}的政治自由",),
    ),
    "Reject plan, agreement to settle dispute": (
        ("rejected a plan or agreement with {o} to settle a dispute",),
        ("拒绝了与{o}解决争端的方案或协议",),
    ),
    "Express intent to settle dispute": (("expressed an intent to settle a dispute with {o}",), ("表示愿意与{o}解决争端",)),
    "Retreat or surrender militarily": (("retreated or surrendered militarily to {o}",), ("在军事上向{o}撤退或投降",)),
    "Obstruct passage, block": (("blocked or obstructed the passage of {o}",), ("阻挡了{o}的通行",)),
    "Appeal for change in leadership": (("appealed to {o} for a change in leadership",), ("呼吁{o}更换领导层",)),
    "Express intent to provide humanitarian aid": (
        ("expressed an intent to provide humanitarian aid to {o}",),
        ("表示愿意向{o}提供人道主义援助",),
    ),
    "Assassinate": (("assassinated a member of {o}",), ("暗杀了{o}的一名成员",)),
    "Give ultimatum": (("gave an ultimatum to {o}",), ("向{o}发出了最后通牒",)),
    "Accuse of human rights abuses": (("accused {o} of human rights abuses",), ("指控{o}侵犯人权",)),
    "Refuse to yield": (("refused to yield to {o}",), ("拒绝向{o}让步",)),
    "Share intelligence or information": (("shared intelligence or information with {o}",), ("与{o}分享了情报或信息",)),
    "Investigate crime, corruption": (("investigated {o} for crime or corruption",), ("就犯罪或腐败问题调查了{o}",)),
    "Appeal to engage in or accept mediation": (("appealed to {o} to engage in or accept mediation",), ("呼吁{o}参与或接受调解",)),
    "Appeal for de-escalation of military engagement": (
        ("appealed to {o} to de-escalate military engagement",),
        ("呼吁{o}缓和军事冲突",),
    ),
    "Demonstrate military or police power": (("demonstrated military or police power toward {o}",), ("向{o}展示了军事或警察力量",)),
    "Halt negotiations": (("halted negotiations with {o}",), ("中止了与{o}的谈判",)),
    "Accede to demands for change in leadership": (
        ("acceded to demands from {o} for a change in leadership",),
        ("同意了{o}更换领导层的要求",),
    ),
    "fight with artillery and tanks": (("fought {o} with artillery and tanks",), ("用火炮和坦克与{o}作战",)),
    "Apologize": (("apologized to {o}",), ("向{o}道歉",)),
    "Appeal for release of persons or property": (
        ("appealed to {o} for the release of persons or property",),
        ("呼吁{o}释放人员或财产",),
    ),
    "Conduct strike or boycott": (("conducted a strike or boycott against {o}",), ("针对{o}发起了罢工或抵制",)),
    "Increase military alert status": (("raised military alert status in response to {o}",), ("针对{o}提高了军事戒备级别",)),
    "Mobilize or increase police power": (("mobilized or increased police power against {o}",), ("针对{o}动员或增加了警力",)),
    "Appeal for judicial cooperation": (("appealed to {o} for judicial cooperation",), ("请求{o}开展司法合作",)),
    "Torture": (("tortured {o}",), ("对{o}施以酷刑",)),
    "Appeal to others to meet or negotiate": (("appealed to {o} to meet or negotiate",), ("呼吁{o}会面或谈判",)),
    "Receive deployment of peacekeepers": (("received a deployment of peacekeepers from {o}",), ("接受了{o}派遣的维和人员",)),
    "Express intent to de-escalate military engagement": (
        ("expressed an intent to de-escalate military engagement with {o}",),
        ("表示愿意缓和与{o}的军事冲突",),
    ),
    "Declare truce, ceasefire": (("declared a truce or ceasefire with {o}",), ("宣布与{o}停火或休战",)),
    "Defend verbally": (("verbally defended {o}",), ("为{o}进行了口头辩护",)),
    "Demonstrate for leadership change": (("demonstrated to demand a change in leadership from {o}",), ("举行示威要求{o}更换领导层",)),
    "Refuse to release persons or property": (("refused to release persons or property to {o}",), ("拒绝向{o}释放人员或财产",)),
    "Appeal for military aid": (("appealed to {o} for military aid",), ("请求{o}提供军事援助",)),
    "Decline comment": (("declined to comment on {o}",), ("拒绝就{o}发表评论",)),
    "Provide military protection or peacekeeping": (
        ("provided military protection or peacekeeping for {o}",),
        ("为{o}提供了军事保护或维和支持",),
    ),
    "Increase police alert status": (("raised police alert status in response to {o}",), ("针对{o}提高了警戒级别",)),
    "Appeal for aid": (("appealed to {o} for aid",), ("请求{o}提供援助",)),
    "Ease economic sanctions, boycott, embargo": (
        ("eased economic sanctions, boycott or embargo on {o}",),
        ("放宽了对{o}的经济制裁、抵制或禁运",),
    ),
    "Appeal for change in institutions, regime": (
        ("appealed to {o} for a change in institutions or regime",),
        ("呼吁{o}改变体制或政权",),
    ),
    "Appeal for economic aid": (("appealed to {o} for economic aid",), ("请求{o}提供经济援助",)),
    "Express intent to ease economic sanctions, boycott, or embargo": (
        ("expressed an intent to ease economic sanctions, boycott or embargo on {o}",),
        ("表示愿意放宽对{o}的经济制裁、抵制或禁运",),
    ),
    "Impose blockade, restrict movement": (("imposed a blockade or movement restrictions on {o}",), ("对{o}实施了封锁或行动限制",)),
    "Mediate": (("mediated in a dispute involving {o}",), ("在涉及{o}的争端中进行了调解",)),
    "Demand meeting, negotiation": (("demanded a meeting or negotiation with {o}",), ("要求与{o}会面或谈判",)),
    "Accuse of espionage, treason": (("accused {o} of espionage or treason",), ("指控{o}从事间谍活动或叛国",)),
    "Appeal for easing of administrative sanctions": (
        ("appealed to {o} to ease administrative sanctions",),
        ("呼吁{o}放宽行政制裁",),
    ),
    "Appeal for economic cooperation": (("appealed to {o} for economic cooperation",), ("呼吁{o}开展经济合作",)),
    "Express intent to cooperate militarily": (
        ("expressed an intent to cooperate militarily with {o}",),
        ("表示愿意与{o}开展军事合作",),
    ),
    "Appeal to others to settle dispute": (("appealed to {o} to settle a dispute",), ("呼吁{o}解决争端",)),
    "Demand intelligence cooperation": (("demanded intelligence cooperation from {o}",), ("要求{o}开展情报合作",)),
    "Express intent to mediate": (("expressed an intent to mediate for {o}",), ("表示愿意为{o}进行调解",)),
    "Attempt to assassinate": (("attempted to assassinate a member of {o}",), ("企图暗杀{o}的一名成员",)),
    "Appeal for policy change": (("appealed to {o} for a policy change",), ("呼吁{o}改变政策",)),
    "Demand material cooperation": (("demanded material cooperation from {o}",), ("要求{o}开展物质合作",)),
    "Engage in mass killings": (("engaged in mass killings of {o}",), ("对{o}进行了大规模杀戮",)),
    "Demand de-escalation of military engagement": (
        ("demanded that {o} de-escalate military engagement",),
        ("要求{o}缓和军事冲突",),
    ),
    "Express intent to ease administrative sanctions": (
        ("expressed an intent to ease administrative sanctions on {o}",),
        ("表示愿意放宽对{o}的行政制裁",),
    ),
    "Express intent to yield": (("expressed an intent to yield to {o}",), ("表示愿意向{o}让步",)),
    "Impose state of emergency or martial law": (
        ("imposed a state of emergency or martial law on {o}",),
        ("对{o}实施了紧急状态或戒严",),
    ),
    "Return, release property": (("returned or released property to {o}",), ("向{o}归还或发还了财产",)),
    "Appeal for material cooperation": (("appealed to {o} for material cooperation",), ("呼吁{o}开展物质合作",)),
    "Engage in judicial cooperation": (("engaged in judicial cooperation with {o}",), ("与{o}开展了司法合作",)),
    "Grant asylum": (("granted asylum to {o}",), ("给予{o}庇护",)),
    "Accuse of aggression": (("accused {o} of aggression",), ("指责{o}实施侵略",)),
    "Appeal for rights": (("appealed to {o} for rights",), ("向{o}争取权利",)),
    "Demand economic aid": (("demanded economic aid from {o}",), ("要求{o}提供经济援助",)),
    "Express intent to accept mediation": (("expressed an intent to accept mediation from {o}",), ("表示愿意接受{o}的调解",)),
    "Express intent to engage in material cooperation": (
        ("expressed an intent to engage in material cooperation with {o}",),
        ("表示愿意与{o}开展物质合作",),
    ),
    "Seize or damage property": (("seized or damaged property of {o}",), ("扣押或损毁了{o}的财产",)),
    "Threaten non-force": (("threatened {o} with non-military measures",), ("以非武力手段威胁{o}",)),
    "Accede to demands for rights": (("acceded to demands from {o} for rights",), ("同意了{o}的权利诉求",)),
    "Reduce or stop economic assistance": (("reduced or stopped economic assistance to {o}",), ("减少或停止了对{o}的经济援助",)),
    "Reduce or stop military assistance": (("reduced or stopped military assistance to {o}",), ("减少或停止了对{o}的军事援助",)),
    "Refuse to ease administrative sanctions": (("refused to ease administrative sanctions on {o}",), ("拒绝放宽对{o}的行政制裁",)),
    "Veto": (("vetoed a measure concerning {o}",), ("否决了涉及{o}的提案",)),
    "Accuse of war crimes": (("accused {o} of war crimes",), ("指控{o}犯有战争罪",)),
    "Appeal to yield": (("appealed to {o} to yield",), ("呼吁{o}让步",)),
    "Appeal for humanitarian aid": (("appealed to {o} for humanitarian aid",), ("请求{o}提供人道主义援助",)),
    "Demand change in institutions, regime": (("demanded a change in institutions or regime from {o}",), ("要求{o}改变体制或政权",)),
    "Demand release of persons or property": (("demanded that {o} release persons or property",), ("要求{o}释放人员或财产",)),
    "Demand that target yields": (("demanded that {o} yield",), ("要求{o}让步",)),
    "Ease curfew": (("eased a curfew imposed on {o}",), ("放宽了对{o}的宵禁",)),
    "Express intent to cooperate on intelligence": (
        ("expressed an intent to cooperate on intelligence with {o}",),
        ("表示愿意与{o}开展情报合作",),
    ),
    "Ban political parties or politicians": (("banned {o} from political activity",), ("禁止{o}从事政治活动",)),
    "Demand settling of dispute": (("demanded that {o} settle a dispute",), ("要求{o}解决争端",)),
    "Refuse to de-escalate military engagement": (
        ("refused to de-escalate military engagement with {o}",),
        ("拒绝缓和与{o}的军事冲突",),
    ),
    "Threaten with political dissent, protest": (("threatened {o} with political dissent or protest",), ("以政治异议或抗议威胁{o}",)),
    "Express intent to change leadership": (
        ("expressed an intent to change leadership in response to {o}",),
        ("就{o}表示有意更换领导层",),
    ),
    "Express intent to provide military protection or peacekeeping": (
        ("expressed an intent to provide military protection or peacekeeping for {o}",),
        ("表示愿意为{o}提供军事保护或维和支持",),
    ),
    "Reduce or stop material aid": (("reduced or stopped material aid to {o}",), ("减少或停止了对{o}的物资援助",)),
    "Threaten to reduce or break relations": (("threatened to reduce or break relations with {o}",), ("威胁降低或断绝与{o}的关系",)),
    "Threaten with repression": (("threatened {o} with repression",), ("以镇压威胁{o}",)),
    "Threaten with sanctions, boycott, embargo": (
        ("threatened {o} with sanctions, boycott and embargo",),
        ("以制裁、抵制和禁运威胁{o}",),
    ),
    "Violate ceasefire": (("violated a ceasefire with {o}",), ("违反了与{o}的停火协议",)),
    "Demand mediation": (("demanded mediation from {o}",), ("要求{o}进行调解",)),
    "Destroy property": (("destroyed property of {o}",), ("摧毁了{o}的财产",)),
    "Accede to demands for change in institutions, regime": (
        ("acceded to demands from {o} for a change in institutions or regime",),
        ("同意了{o}改变体制或政权的要求",),
    ),
    "Demand easing of administrative sanctions": (("demanded that {o} ease administrative sanctions",), ("要求{o}放宽行政制裁",)),
    "Demand judicial cooperation": (("demanded judicial cooperation from {o}",), ("要求{o}开展司法合作",)),
    "Demobilize armed forces": (("demobilized armed forces facing {o}",), ("撤除了针对{o}的武装力量",)),
    "Demonstrate for policy change": (("demonstrated to demand a policy change from {o}",), ("举行示威要求{o}改变政策",)),
    "Expel or withdraw peacekeepers": (("expelled or withdrew peacekeepers from {o}",), ("驱逐或撤出了{o}的维和人员",)),
    "Investigate human rights abuses": (("investigated human rights abuses by {o}",), ("调查了{o}的侵犯人权行为",)),
    "Reduce or stop humanitarian assistance": (
        ("reduced or stopped humanitarian assistance to {o}",),
        ("减少或停止了对{o}的人道主义援助",),
    ),
    "Refuse to ease economic sanctions, boycott, or embargo": (
        ("refused to ease economic sanctions, boycott or embargo on {o}",),
        ("拒绝放宽对{o}的经济制裁、抵制或禁运",),
    ),
    "Threaten to reduce or stop aid": (("threatened to reduce or stop aid to {o}",), ("威胁减少或停止对{o}的援助",)),
    "Appeal for political reform": (("appealed to {o} for political reform",), ("呼吁{o}进行政治改革",)),
    "Conduct hunger strike": (("conducted a hunger strike against {o}",), ("针对{o}进行了绝食抗议",)),
    "Demand military aid": (("demanded military aid from {o}",), ("要求{o}提供军事援助",)),
    "Demand political reform": (("demanded political reform from {o}",), ("要求{o}进行政治改革",)),
    "Ease military blockade": (("eased a military blockade of {o}",), ("放宽了对{o}的军事封锁",)),
    "Forgive": (("forgave {o}",), ("原谅了{o}",)),
    "Reject material cooperation": (("rejected material cooperation with {o}",), ("拒绝了与{o}的物质合作",)),
    "Reject military cooperation": (("rejected military cooperation with {o}",), ("拒绝了与{o}的军事合作",)),
    "Accede to demands for change in policy": (("acceded to demands from {o} for a change in policy",), ("同意了{o}改变政策的要求",)),
    "Accede to requests or demands for political reform": (
        ("acceded to demands from {o} for political reform",),
        ("同意了{o}提出的政治改革要求",),
    ),
    "Demand policy change": (("demanded a policy change from {o}",), ("要求{o}改变政策",)),
    "Demand rights": (("demanded rights from {o}",), ("向{o}要求权利",)),
    "Engage in political dissent": (("engaged in political dissent against {o}",), ("对{o}表达了政治异议",)),
    "Express intent to change policy": (("expressed an intent to change policy toward {o}",), ("表示愿意改变对{o}的政策",)),
    "Express intent to cooperate on judicial matters": (
        ("expressed an intent to cooperate on judicial matters with {o}",),
        ("表示愿意与{o}开展司法合作",),
    ),
    "Halt mediation": (("halted mediation involving {o}",), ("中止了涉及{o}的调解",)),
    "Obstruct passage to demand leadership change": (
        ("blocked passage to demand a change in leadership from {o}",),
        ("以阻断通行的方式要求{o}更换领导层",),
    ),
    "Receive inspectors": (("received inspectors from {o}",), ("接待了{o}派出的检查人员",)),
    "Reject economic cooperation": (("rejected economic cooperation with {o}",), ("拒绝了与{o}的经济合作",)),
    "Use as human shield": (("used {o} as a human shield",), ("将{o}用作人盾",)),
    "Appeal for easing of economic sanctions, boycott, or embargo": (
        ("appealed to {o} to ease economic sanctions, boycott or embargo",),
        ("呼吁{o}放宽经济制裁、抵制或禁运",),
    ),
    "Appeal for military protection or peacekeeping": (
        ("appealed to {o} for military protection or peacekeeping",),
        ("请求{o}提供军事保护或维和支持",),
    ),
    "Appeal for target to allow international involvement (non-mediation)": (
        ("appealed to {o} to allow international involvement",),
        ("呼吁{o}允许国际介入",),
    ),
    "Carry out car bombing": (("carried out a car bombing against {o}",), ("对{o}实施了汽车炸弹袭击",)),
    "Carry out roadside bombing": (("carried out a roadside bombing against {o}",), ("对{o}实施了路边炸弹袭击",)),
    "Demand humanitarian aid": (("demanded humanitarian aid from {o}",), ("要求{o}提供人道主义援助",)),
    "Demand material aid": (("demanded material aid from {o}",), ("要求{o}提供物资援助",)),
    "Detonate nuclear weapons": (("detonated nuclear weapons in a move aimed at {o}",), ("针对{o}引爆了核武器",)),
    "Ease political dissent": (("eased political dissent against {o}",), ("缓和了对{o}的政治异议",)),
    "Ease state of emergency or martial law": (
        ("eased a state of emergency or martial law affecting {o}",),
        ("放宽了对{o}实施的紧急状态或戒严",),
    ),
    "Engage in mass expulsion": (("carried out a mass expulsion of {o}",), ("对{o}进行了大规模驱逐",)),
    "Engage in violent protest for rights": (("engaged in violent protest against {o} for rights",), ("为争取权利对{o}进行了暴力抗议",)),
    "Expel or withdraw": (("expelled or withdrew from {o}",), ("驱逐了{o}或从{o}撤出",)),
    "Express intent to change institutions, regime": (
        ("expressed an intent to change institutions or regime in response to {o}",),
        ("就{o}表示有意改变体制或政权",),
    ),
    "Express intent to institute political reform": (
        ("expressed an intent to institute political reform in response to {o}",),
        ("就{o}表示有意推行政治改革",),
    ),
    "Investigate war crimes": (("investigated war crimes by {o}",), ("调查了{o}的战争罪行",)),
    "Reject judicial cooperation": (("rejected judicial cooperation with {o}",), ("拒绝了与{o}的司法合作",)),
    "Reject request for change in leadership": (
        ("rejected a request from {o} for a change in leadership",),
        ("拒绝了{o}更换领导层的要求",),
    ),
    "Reject request for military aid": (("rejected a request from {o} for military aid",), ("拒绝了{o}提出的军事援助请求",)),
    "Reject request for military protection or peacekeeping": (
        ("rejected a request from {o} for military protection or peacekeeping",),
        ("拒绝了{o}提出的军事保护或维和请求",),
    ),
    "Threaten to halt mediation": (("threatened to halt mediation involving {o}",), ("威胁中止涉及{o}的调解",)),
    "Threaten to halt negotiations": (("threatened to halt negotiations with {o}",), ("威胁中止与{o}的谈判",)),
    "Threaten with administrative sanctions": (("threatened {o} with administrative sanctions",), ("以行政制裁威胁{o}",)),
    "Use chemical, biological, or radiological weapons": (
        ("used chemical, biological or radiological weapons against {o}",),
        ("对{o}使用了化学、生物或放射性武器",),
    ),
}
"""Relation name -> (English predicates, Chinese predicates); the first of each is canonical."""

GENERIC: tuple[tuple[str, ...], tuple[str, ...]] = (
    ("took an action of the kind \u201c{relation}\u201d toward {o}", "was involved in an event of the kind \u201c{relation}\u201d with {o}"),
    ("对{o}采取了\u201c{relation}\u201d类行动", "与{o}之间发生了\u201c{relation}\u201d类事件"),
)
"""Predicates for a relation outside :data:`PREDICATES`; ``{relation}`` is its name, lower-cased in English."""


def predicates(relation: str, lang: str) -> tuple[str, ...]:
    """The predicates of ``relation`` in ``lang`` (``en`` or ``zh``), with ``{o}`` left to fill."""
    index = 0 if lang == "en" else 1
    known = PREDICATES.get(relation)
    if known is not None:
        return known[index]
    name = relation[:1].lower() + relation[1:] if lang == "en" else relation
    return tuple(p.replace("{relation}", name) for p in GENERIC[index])
