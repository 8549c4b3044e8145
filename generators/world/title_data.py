"""Raw material for the titles of the synthetic world's works (songs, books, films), in English and Chinese.

Everything here is data; ``names.py`` (the engine) turns it into titles and keeps them unique. The
proper names titles may contain come from :mod:`generators.world.name_data`, whose docstring also
says how names and titles stay unique across the two languages.

Titles of works
    :data:`TITLE_PATTERNS` gives, for songs and every book and film kind, (English, Chinese)
    templates with the fields ``{A}`` (from :data:`TITLE_ADJECTIVES`), ``{T}`` and ``{T2}`` (two
    different nouns from :data:`TITLE_NOUNS`) and ``{N}`` (a proper name). Every template has
    ``{N}`` or both ``{A}`` and ``{T}``, so the engine can always draw a fresh title. English words
    are lowercase here; the engine title-cases them. Every Chinese adjective ends in 的 and no
    noun contains it, so ``{A}{T}`` splits one way only; the engine adds the 《》 around a Chinese
    title itself.
    :data:`AVOID_TITLE_PAIRS` lists (adjective, noun) pairs that would reproduce a famous title
    (``The Scarlet Letter``).
"""

from __future__ import annotations

# --------------------------------------------------------------------------------------------
# Titles of works
# --------------------------------------------------------------------------------------------

TITLE_ADJECTIVES: tuple[tuple[str, str], ...] = (
    # light and colour
    ("golden", "金色的"), ("silver", "银色的"), ("crimson", "绯红的"), ("scarlet", "猩红的"),
    ("blue", "蓝色的"), ("green", "绿色的"), ("white", "白色的"), ("black", "黑色的"),
    ("grey", "灰色的"), ("amber", "琥珀色的"), ("violet", "紫罗兰色的"), ("pale", "苍白的"),
    ("bright", "明亮的"), ("dark", "黑暗的"), ("shining", "闪耀的"), ("glittering", "闪烁的"),
    ("glowing", "发光的"), ("radiant", "灿烂的"), ("luminous", "璀璨的"), ("emerald", "翡翠色的"),
    ("sapphire", "蓝宝石般的"), ("ivory", "象牙色的"), ("copper", "铜色的"), ("azure", "蔚蓝的"),
    ("indigo", "靛蓝的"), ("saffron", "藏红色的"), ("turquoise", "青绿色的"), ("rosy", "玫瑰色的"),
    ("starlit", "星光下的"), ("moonlit", "月光下的"), ("sunlit", "阳光下的"), ("shadowed", "阴影笼罩的"),
    # time and season
    ("midnight", "午夜的"), ("morning", "清晨的"), ("evening", "傍晚的"), ("winter", "冬日的"),
    ("summer", "夏日的"), ("autumn", "秋天的"), ("spring", "春天的"), ("midsummer", "仲夏的"),
    ("ancient", "古老的"), ("old", "旧日的"), ("new", "新的"), ("young", "年轻的"),
    ("last", "最后的"), ("first", "最初的"), ("final", "最终的"), ("eternal", "永恒的"),
    ("fleeting", "转瞬即逝的"), ("brief", "短暂的"), ("late", "迟到的"), ("endless", "无尽的"),
    # weather
    ("misty", "雾蒙蒙的"), ("rainy", "多雨的"), ("stormy", "暴风雨中的"), ("windy", "多风的"),
    ("snowy", "积雪的"), ("frozen", "冰封的"), ("cold", "寒冷的"), ("warm", "温暖的"),
    # place and size
    ("distant", "遥远的"), ("faraway", "远方的"), ("northern", "北方的"), ("southern", "南方的"),
    ("eastern", "东方的"), ("western", "西方的"), ("foreign", "异乡的"), ("native", "故乡的"),
    ("homeward", "归乡的"), ("inner", "内心的"), ("deep", "深邃的"), ("high", "高高的"),
    ("narrow", "狭窄的"), ("wide", "辽阔的"), ("little", "小小的"), ("great", "伟大的"),
    ("long", "漫长的"), ("hollow", "空洞的"), ("empty", "空荡荡的"), ("bare", "光秃的"),
    # material and texture
    ("iron", "铁铸的"), ("glass", "玻璃的"), ("wooden", "木制的"), ("velvet", "天鹅绒的"),
    ("marble", "大理石的"), ("silken", "丝绸般的"), ("crystal", "水晶般的"), ("gilded", "镀金的"),
    ("painted", "彩绘的"), ("woven", "编织的"), ("folded", "折叠的"), ("rusty", "生锈的"),
    ("soft", "柔软的"), ("rough", "粗粝的"), ("heavy", "沉重的"), ("weightless", "失重的"),
    ("clear", "清澈的"), ("crooked", "弯曲的"),
    # motion and state
    ("silent", "寂静的"), ("quiet", "安静的"), ("tranquil", "宁静的"), ("serene", "安详的"),
    ("broken", "破碎的"), ("burning", "燃烧的"), ("wandering", "流浪的"), ("drifting", "漂流的"),
    ("falling", "坠落的"), ("rising", "升起的"), ("sleeping", "沉睡的"), ("dreaming", "做梦的"),
    ("dancing", "舞动的"), ("singing", "歌唱的"), ("whispering", "低语的"), ("echoing", "回响的"),
    ("trembling", "颤抖的"), ("lingering", "徘徊的"), ("floating", "漂浮的"), ("flying", "飞翔的"),
    ("running", "奔跑的"), ("sunken", "沉没的"), ("scattered", "散落的"), ("tangled", "纠缠的"),
    ("fading", "消逝的"), ("vanishing", "正在消失的"), ("returning", "归来的"), ("departing", "离去的"),
    ("waiting", "等待中的"), ("open", "敞开的"), ("closed", "紧闭的"), ("hidden", "隐藏的"),
    ("secret", "秘密的"), ("forgotten", "被遗忘的"), ("remembered", "被铭记的"), ("lost", "失落的"),
    ("abandoned", "被遗弃的"), ("borrowed", "借来的"), ("unfinished", "未完成的"),
    ("unspoken", "未说出口的"), ("invisible", "看不见的"), ("unknown", "未知的"), ("nameless", "无名的"),
    ("twin", "双生的"), ("solitary", "孤单的"), ("lonely", "孤独的"),
    # character and feeling
    ("wild", "狂野的"), ("gentle", "温柔的"), ("tender", "柔情的"), ("bitter", "苦涩的"),
    ("sweet", "甜美的"), ("strange", "奇异的"), ("curious", "好奇的"), ("restless", "不安的"),
    ("patient", "耐心的"), ("faithful", "忠诚的"), ("brave", "勇敢的"), ("proud", "骄傲的"),
    ("humble", "谦卑的"), ("honest", "诚实的"), ("merciful", "仁慈的"), ("sacred", "神圣的"),
    ("royal", "皇家的"), ("dear", "亲爱的"), ("beloved", "挚爱的"), ("true", "真实的"),
    ("hungry", "饥饿的"), ("weary", "疲惫的"), ("swift", "迅捷的"), ("slow", "缓慢的"),
    ("careless", "漫不经心的"), ("infinite", "无限的"),
)
"""(English adjective, Chinese with 的 where natural)."""

TITLE_NOUNS: tuple[tuple[str, str], ...] = (
    # land and water
    ("garden", "花园"), ("river", "河流"), ("orchard", "果园"), ("meadow", "草地"),
    ("forest", "森林"), ("mountain", "高山"), ("valley", "山谷"), ("island", "岛屿"),
    ("ocean", "海洋"), ("sea", "大海"), ("shore", "海岸"), ("tide", "潮汐"),
    ("wave", "波浪"), ("harbor", "港湾"), ("bay", "海湾"), ("cape", "海角"),
    ("lagoon", "泻湖"), ("reef", "礁石"), ("pond", "池塘"), ("lake", "湖泊"),
    ("stream", "溪流"), ("waterfall", "瀑布"), ("fountain", "喷泉"), ("well", "水井"),
    ("canal", "运河"), ("marsh", "沼泽"), ("delta", "三角洲"), ("field", "田野"),
    ("desert", "沙漠"), ("glacier", "冰川"), ("volcano", "火山"), ("cave", "洞穴"),
    ("cliff", "悬崖"), ("hill", "山丘"), ("horizon", "地平线"), ("vineyard", "葡萄园"),
    # sky and weather
    ("storm", "风暴"), ("rain", "雨"), ("snow", "雪"), ("wind", "风"),
    ("cloud", "云"), ("sky", "天空"), ("star", "星辰"), ("moon", "月亮"),
    ("sun", "太阳"), ("dawn", "黎明"), ("dusk", "黄昏"), ("night", "夜晚"),
    ("season", "季节"), ("rainbow", "彩虹"), ("thunder", "雷声"), ("frost", "霜"),
    # buildings and places
    ("house", "房屋"), ("room", "房间"), ("attic", "阁楼"), ("cellar", "地窖"),
    ("kitchen", "厨房"), ("corridor", "走廊"), ("staircase", "楼梯"), ("roof", "屋顶"),
    ("wall", "墙"), ("door", "门"), ("gate", "大门"), ("window", "窗户"),
    ("fence", "篱笆"), ("bridge", "桥梁"), ("tower", "高塔"), ("lighthouse", "灯塔"),
    ("road", "道路"), ("path", "小径"), ("street", "街道"), ("square", "广场"),
    ("market", "集市"), ("station", "车站"), ("village", "村庄"), ("town", "小镇"),
    ("city", "城市"), ("castle", "城堡"), ("palace", "宫殿"), ("temple", "神庙"),
    ("chapel", "小教堂"), ("monastery", "修道院"), ("library", "图书馆"), ("museum", "博物馆"),
    ("theater", "剧院"), ("circus", "马戏团"), ("inn", "客栈"), ("cafe", "咖啡馆"),
    ("bakery", "面包店"), ("farm", "农场"), ("barn", "谷仓"), ("mill", "磨坊"),
    # things
    ("lantern", "灯笼"), ("mirror", "镜子"), ("candle", "蜡烛"), ("lamp", "油灯"),
    ("flame", "火焰"), ("ember", "余烬"), ("ash", "灰烬"), ("smoke", "炊烟"),
    ("stone", "石头"), ("ship", "船"), ("boat", "小船"), ("sail", "风帆"),
    ("anchor", "锚"), ("compass", "罗盘"), ("map", "地图"), ("letter", "信"),
    ("diary", "日记"), ("notebook", "笔记本"), ("photograph", "照片"), ("portrait", "肖像"),
    ("painting", "画"), ("ballad", "歌谣"), ("melody", "旋律"), ("violin", "小提琴"),
    ("piano", "钢琴"), ("drum", "鼓"), ("bell", "钟"), ("clock", "时钟"),
    ("key", "钥匙"), ("lock", "锁"), ("box", "盒子"), ("chest", "箱子"),
    ("suitcase", "行李箱"), ("coat", "外套"), ("hat", "帽子"), ("glove", "手套"),
    ("scarf", "围巾"), ("ribbon", "丝带"), ("thread", "丝线"), ("needle", "针"),
    ("button", "纽扣"), ("ring", "戒指"), ("necklace", "项链"), ("crown", "王冠"),
    ("sword", "剑"), ("shield", "盾牌"), ("arrow", "箭"), ("umbrella", "雨伞"),
    ("kite", "风筝"), ("balloon", "气球"), ("bicycle", "自行车"), ("carriage", "马车"),
    ("wheel", "车轮"), ("ladder", "梯子"), ("rope", "绳子"), ("net", "渔网"),
    ("basket", "篮子"), ("cup", "杯子"), ("teapot", "茶壶"), ("bowl", "碗"),
    ("bottle", "瓶子"), ("jar", "罐子"), ("vase", "花瓶"), ("feather", "羽毛"),
    ("shell", "贝壳"), ("pearl", "珍珠"), ("coin", "硬币"), ("ticket", "车票"),
    ("envelope", "信封"), ("postcard", "明信片"), ("telegram", "电报"), ("radio", "收音机"),
    ("telephone", "电话"), ("typewriter", "打字机"), ("camera", "相机"), ("gramophone", "留声机"),
    ("train", "火车"), ("carousel", "旋转木马"),
    # animals
    ("fox", "狐狸"), ("wolf", "狼"), ("bear", "熊"), ("deer", "鹿"),
    ("horse", "马"), ("bird", "鸟"), ("sparrow", "麻雀"), ("swallow", "燕子"),
    ("crow", "乌鸦"), ("raven", "渡鸦"), ("owl", "猫头鹰"), ("heron", "苍鹭"),
    ("crane", "鹤"), ("swan", "天鹅"), ("whale", "鲸"), ("dolphin", "海豚"),
    ("fish", "鱼"), ("butterfly", "蝴蝶"), ("moth", "飞蛾"), ("bee", "蜜蜂"),
    ("cat", "猫"), ("dog", "狗"), ("tiger", "老虎"), ("lion", "狮子"),
    ("elephant", "大象"), ("rabbit", "兔子"), ("hare", "野兔"),
    # plants
    ("rose", "玫瑰"), ("lily", "百合"), ("orchid", "兰花"), ("lotus", "莲花"),
    ("tulip", "郁金香"), ("willow", "柳树"), ("oak", "橡树"), ("pine", "松树"),
    ("maple", "枫树"), ("birch", "白桦"), ("cherry", "樱桃"), ("plum", "梅子"),
    ("apple", "苹果"), ("lemon", "柠檬"), ("orange", "橙子"), ("peach", "桃子"),
    ("pear", "梨"), ("grape", "葡萄"), ("olive", "橄榄"), ("wheat", "麦子"),
    ("seed", "种子"), ("leaf", "叶子"), ("root", "树根"), ("branch", "树枝"),
    ("flower", "花朵"), ("blossom", "繁花"), ("thorn", "荆棘"), ("vine", "藤蔓"),
    ("moss", "苔藓"), ("fern", "蕨"), ("reed", "芦苇"), ("grass", "青草"),
    # people
    ("traveler", "旅人"), ("stranger", "陌生人"), ("wanderer", "漫游者"), ("dreamer", "追梦人"),
    ("sailor", "水手"), ("fisherman", "渔夫"), ("shepherd", "牧羊人"), ("gardener", "园丁"),
    ("soldier", "士兵"), ("queen", "女王"), ("king", "国王"), ("prince", "王子"),
    ("princess", "公主"), ("widow", "寡妇"), ("orphan", "孤儿"), ("child", "孩子"),
    ("daughter", "女儿"), ("son", "儿子"), ("sister", "姐妹"), ("brother", "兄弟"),
    ("mother", "母亲"), ("father", "父亲"), ("bride", "新娘"), ("clockmaker", "钟表匠"),
    ("cartographer", "制图师"), ("weaver", "织工"), ("baker", "面包师"), ("watchman", "守夜人"),
    ("ferryman", "摆渡人"), ("messenger", "信使"), ("pilgrim", "朝圣者"), ("hunter", "猎人"),
    ("dancer", "舞者"),
    # things one cannot hold
    ("dream", "梦"), ("memory", "记忆"), ("promise", "诺言"), ("silence", "沉默"),
    ("echo", "回声"), ("shadow", "影子"), ("light", "光"), ("voice", "声音"),
    ("whisper", "耳语"), ("journey", "旅程"), ("harvest", "丰收"), ("festival", "节日"),
    ("wedding", "婚礼"), ("parade", "游行"), ("voyage", "航行"), ("exile", "流亡"),
    ("hour", "时刻"), ("century", "世纪"),
)
"""(English singular noun, Chinese)."""

TITLE_PATTERNS: dict[str, tuple[tuple[str, str], ...]] = {
    "song": (
        ("The {A} {T}", "{A}{T}"),
        ("The {T} of {N}", "{N}的{T}"),
        ("My {A} {T}", "我那{A}{T}"),
        ("Song for the {A} {T}", "为{A}{T}而歌"),
        ("Back to {N}", "回到{N}"),
        ("{N} Nights", "{N}之夜"),
        ("Waiting for the {A} {T}", "等待{A}{T}"),
        ("Goodbye, {N}", "再见，{N}"),
    ),
    "novel": (
        ("The {A} {T}", "{A}{T}"),
        ("The {T} of {N}", "{N}的{T}"),
        ("The {A} {T} and the {T2}", "{A}{T}与{T2}"),
        ("{N}", "{N}"),
        ("Return to {N}", "重返{N}"),
        ("The Last {T} of {N}", "{N}最后的{T}"),
        ("Beyond the {A} {T}", "越过{A}{T}"),
        ("A Summer in {N}", "{N}的夏天"),
    ),
    "poetry_collection": (
        ("{A} {T}: Poems", "{A}{T}：诗集"),
        ("The {A} {T} and Other Poems", "{A}{T}及其他诗篇"),
        ("Poems from {N}", "{N}诗抄"),
        ("Elegies for {N}", "{N}挽歌"),
        ("Odes to the {A} {T}", "{A}{T}颂"),
        ("Letters to {N}", "致{N}的信"),
        ("Songs of the {A} {T}", "{A}{T}之歌"),
    ),
    "medical_textbook": (
        ("Principles of Clinical Practice in {N}", "{N}临床实践原理"),
        ("The {N} Handbook of Internal Medicine", "{N}内科学手册"),
        ("{N}'s Textbook of Surgery", "{N}外科学教程"),
        ("{N}'s Anatomy for Students", "{N}学生解剖学"),
        ("Clinical Pharmacology: The {N} Method", "临床药理学：{N}方法"),
        ("The {N} Manual of Emergency Care", "{N}急救手册"),
    ),
    "history_book": (
        ("A History of {N}", "{N}历史"),
        ("The Rise and Fall of {N}", "{N}兴衰史"),
        ("Chronicles of {N}", "{N}编年史"),
        ("The Kings of {N}", "{N}诸王"),
        ("{N} in the Age of the {T}", "{T}时代的{N}"),
        ("The {A} {T}: A History of {N}", "{A}{T}：{N}史"),
        ("The Empire of {N}", "{N}帝国"),
    ),
    "textbook": (
        ("The {N} Reader", "{N}读本"),
        ("{N}'s Primer of Grammar", "{N}语法入门"),
        ("Teaching and Learning: The {N} Approach", "教与学：{N}方法"),
        ("{N}'s Elementary Arithmetic", "{N}初等算术"),
        ("A Course in Pedagogy after {N}", "{N}教育学教程"),
        ("The {N} School Atlas", "{N}学校地图集"),
    ),
    "mathematics_monograph": (
        ("Lectures on {N} Spaces", "{N}空间讲义"),
        ("{N} Manifolds and Their Invariants", "{N}流形及其不变量"),
        ("On the {N} Conjecture", "论{N}猜想"),
        ("The Theory of {N} Groups", "{N}群论"),
        ("{N} Functions and Modular Forms", "{N}函数与模形式"),
        ("Topics in {N} Algebras", "{N}代数专题"),
    ),
    "legal_treatise": (
        ("A Treatise on the Law of {N}", "{N}法律论"),
        ("Commentaries on the Constitution of {N}", "{N}宪法评注"),
        ("{N} on Contracts", "{N}论合同"),
        ("Principles of the Civil Law of {N}", "{N}民法原理"),
        ("The {N} Doctrine of Property", "{N}财产学说"),
        ("Criminal Procedure in {N}", "{N}刑事诉讼程序"),
    ),
    "technology_book": (
        ("The {N} Protocol", "{N}协议"),
        ("Programming in {N}", "{N}程序设计"),
        ("The {N} Architecture", "{N}架构"),
        ("Machines of {N}", "{N}的机器"),
        ("Networks and Signals: The {N} Approach", "网络与信号：{N}方法"),
        ("{N} Systems Design", "{N}系统设计"),
    ),
    "economics_book": (
        ("Markets and Money in {N}", "{N}的市场与货币"),
        ("The {N} Model of Growth", "{N}增长模型"),
        ("Capital and Labor in {N}", "{N}的资本与劳动"),
        ("The {N} Crisis", "{N}危机"),
        ("Essays on the Economy of {N}", "{N}经济论集"),
        ("Trade and Credit in {N}", "{N}的贸易与信贷"),
    ),
    "feature_film": (
        ("The {A} {T}", "{A}{T}"),
        ("{N}", "{N}"),
        ("Escape from {N}", "逃离{N}"),
        ("Night of the {A} {T}", "{A}{T}之夜"),
        ("The {T} of {N}", "{N}之{T}"),
        ("Beyond the {A} {T}", "穿越{A}{T}"),
        ("Last Train to {N}", "开往{N}的末班车"),
    ),
    "documentary_film": (
        ("Inside {N}", "走进{N}"),
        ("The {N} Story", "{N}的故事"),
        ("Voices of {N}", "{N}之声"),
        ("The Road to {N}", "通往{N}之路"),
        ("Secrets of the {A} {T}", "{A}{T}之谜"),
        ("{N}: The Untold Story", "{N}：不为人知的故事"),
    ),
}
"""Work kind id -> (English, Chinese) title templates over ``{A}``, ``{T}``, ``{T2}``, ``{N}``."""

AVOID_TITLE_PAIRS: frozenset[tuple[str, str]] = frozenset({
    ("secret", "garden"), ("little", "prince"), ("golden", "compass"), ("black", "swan"),
    ("white", "tiger"), ("blue", "lagoon"), ("glass", "castle"), ("golden", "bowl"),
    ("dark", "tower"), ("black", "cat"), ("golden", "notebook"), ("wooden", "horse"),
    ("silver", "sword"), ("scarlet", "letter"), ("glass", "key"), ("pale", "king"),
    ("hollow", "crown"), ("forgotten", "garden"), ("secret", "river"), ("black", "tulip"),
    ("painted", "bird"), ("lonely", "hunter"), ("white", "queen"), ("winter", "king"),
    ("blue", "flower"), ("golden", "child"), ("last", "train"), ("winter", "garden"),
    ("summer", "house"), ("frozen", "river"), ("white", "ribbon"), ("silent", "sea"),
    ("bright", "star"), ("great", "wall"), ("secret", "room"), ("wild", "swan"),
    ("glass", "bell"), ("burning", "bridge"), ("quiet", "river"),
})
"""(adjective, noun) pairs that would reproduce a well-known title (``The Scarlet Letter``)."""
