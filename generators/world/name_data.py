"""Raw material for the names of the synthetic world, in English and Chinese.

Everything here is data; ``names.py`` (the engine) turns it into names and keeps them unique. The
titles of works are in :mod:`generators.world.title_data`.

Proper names
    A proper name is 2-4 syllables from :data:`SYLLABLES`. Its English form is the latin syllables
    concatenated and capitalised (``ko`` + ``re`` + ``llo`` -> ``Korello``); its Chinese form is the
    syllables' characters concatenated (``科`` + ``雷`` + ``洛`` -> ``科雷洛``). The table is a bijection
    (no latin spelling and no character is used twice) and the latin set is uniquely decodable:
    every syllable has exactly one vowel letter (``y`` is only ever a consonant) and the only codas,
    ``n`` and ``r``, never begin an onset cluster. So an English name spells exactly one syllable
    sequence and therefore exactly one Chinese name, and vice versa.

    The characters follow the Xinhua tables for transliterating foreign names where the tables
    give a free character (``ba`` 巴, ``ko`` 科, ``lin`` 林 ...). Where Xinhua merges sounds that the
    latin keeps apart (l/r, geminate ``ll``, codas, clusters) another character that Chinese
    translators do use for a similar sound stands in (``ra`` 腊 as in 希腊, ``mer`` 默 as in 默克尔,
    ``bri`` 碧 as in 碧姬, ``flo`` 翡 as in 翡冷翠), so the Chinese still reads as a transliteration.

    Position: :data:`INITIAL_SYLLABLES` may start a name; :data:`FINAL_ONLY` (the closed syllables)
    may only end one, which keeps clusters like ``-nll-`` or ``-rstr-`` out of the middle of names.
    People get a 2-syllable given name and a 2-3 syllable family name (``Tavi Korello`` /
    ``塔维·科雷洛``).

    :data:`AVOID_NAMES` lists whole proper names (lowercase latin) that the syllables can spell but
    that would read as a real country, city, person or brand in one of the two languages;
    :data:`AVOID_SUBSTRINGS` lists latin strings that must not occur anywhere in a name because
    they are offensive in English or, through the characters they spell, in Chinese (``hitele`` ->
    希特勒). Both are best-effort lists for the engine to filter against, not exhaustive.

Entity names
    :data:`NAME_PATTERNS` gives, for every kind that is not a person or a work, (English, Chinese)
    templates around the proper name ``{N}``: ``("Port {N}", "{N}港")``. Within a kind the English
    templates are distinct and so are the Chinese ones; ``{N}`` is always a separate English word,
    and no Chinese template's fixed text extends another's by syllable characters alone (as
    ``{N}法学院`` would extend ``{N}学院``, 法 being ``fa``), so two different (template, name) pairs
    of one kind can never give the same string in either language.

Uniqueness across the two languages
    Templates that can give the same Chinese string (in any two kinds, names or titles) have the
    same English template too. So an engine that keeps every English name unique keeps the
    Chinese ones unique as well; the converse does not hold (a city ``{N}`` / ``{N}`` and a rock
    band ``{N}`` / ``{N}乐队`` share only the English), so uniqueness must be enforced on English.
"""

from __future__ import annotations

# --------------------------------------------------------------------------------------------
# Syllables
# --------------------------------------------------------------------------------------------

SYLLABLES: tuple[tuple[str, str], ...] = (
    # --- open syllables, consonant + vowel (Xinhua characters) ---
    ("ba", "巴"), ("be", "贝"), ("bi", "比"), ("bo", "博"), ("bu", "布"),
    ("da", "达"), ("de", "德"), ("di", "迪"), ("do", "多"), ("du", "杜"),
    ("fa", "法"), ("fe", "费"), ("fi", "菲"), ("fo", "福"), ("fu", "弗"),
    ("ga", "加"), ("ge", "格"), ("gi", "吉"), ("go", "戈"), ("gu", "古"),
    ("ha", "哈"), ("he", "赫"), ("hi", "希"), ("ho", "霍"), ("hu", "胡"),
    ("ka", "卡"), ("ke", "克"), ("ki", "基"), ("ko", "科"), ("ku", "库"),
    ("la", "拉"), ("le", "勒"), ("li", "利"), ("lo", "珞"), ("lu", "卢"),
    ("ma", "马"), ("me", "梅"), ("mi", "米"), ("mo", "莫"), ("mu", "穆"),
    ("na", "纳"), ("ne", "内"), ("ni", "尼"), ("no", "诺"), ("nu", "努"),
    ("pa", "帕"), ("pe", "佩"), ("pi", "皮"), ("po", "波"), ("pu", "普"),
    # r+vowel: Xinhua writes l and r alike, so r takes the other customary character.
    ("ra", "腊"), ("re", "雷"), ("ri", "里"), ("ro", "罗"), ("ru", "鲁"),
    ("sa", "萨"), ("se", "塞"), ("si", "西"), ("so", "索"), ("su", "苏"),
    ("ta", "塔"), ("te", "特"), ("ti", "蒂"), ("to", "托"), ("tu", "图"),
    ("va", "瓦"), ("ve", "韦"), ("vi", "维"), ("vo", "沃"),
    ("za", "扎"), ("ze", "泽"), ("zi", "齐"), ("zo", "佐"), ("zu", "祖"),
    ("ya", "亚"), ("ye", "耶"), ("yo", "约"), ("yu", "尤"),
    ("ja", "雅"), ("je", "杰"), ("jo", "乔"),
    ("sha", "沙"), ("she", "舍"), ("sho", "肖"), ("shu", "舒"),
    # geminate l, only after another syllable: ko-re-llo -> Korello / 科雷洛.
    ("lle", "莱"), ("lli", "黎"), ("llo", "洛"),
    # --- consonant clusters + vowel (one character for the whole syllable) ---
    ("bra", "拜"), ("bre", "培"), ("bri", "碧"), ("bla", "白"), ("pla", "柏"),
    ("pra", "派"), ("pri", "璞"), ("pro", "蒲"), ("dra", "岱"), ("dri", "笛"),
    ("dro", "铎"), ("tra", "泰"), ("tri", "缇"), ("tro", "陀"), ("tru", "楚"),
    ("gra", "嘉"), ("gru", "谷"), ("kra", "凯"), ("kri", "奇"), ("flo", "翡"),
    ("sta", "斯"), ("ste", "史"),
    # --- closed syllables with coda n (final only) ---
    ("ban", "班"), ("ben", "本"), ("bin", "宾"), ("bon", "邦"),
    ("dan", "丹"), ("den", "登"), ("din", "丁"), ("don", "东"), ("dun", "敦"),
    ("fan", "凡"), ("fen", "芬"),
    ("gan", "甘"), ("gen", "根"), ("gon", "贡"),
    ("kan", "坎"), ("ken", "肯"), ("kin", "金"), ("kon", "孔"),
    ("lan", "兰"), ("len", "伦"), ("lin", "林"), ("lon", "隆"),
    ("man", "曼"), ("men", "门"), ("min", "明"), ("mon", "蒙"),
    ("nan", "南"), ("nin", "宁"),
    ("pan", "潘"), ("pen", "彭"), ("pin", "平"),
    ("san", "桑"), ("sen", "森"), ("sin", "辛"), ("son", "松"),
    ("tan", "坦"), ("ten", "腾"), ("tin", "廷"), ("ton", "通"),
    ("van", "万"), ("ven", "文"),
    ("zan", "赞"), ("zen", "曾"),
    ("jan", "扬"),
    # --- closed syllables with coda r (final only); Chinese drops the r, as in 马丁 for Martin ---
    ("ber", "伯"), ("fer", "斐"), ("gar", "伽"), ("ger", "葛"), ("kar", "喀"),
    ("ker", "柯"), ("mar", "玛"), ("mer", "默"), ("mor", "摩"), ("nor", "挪"),
    ("per", "珀"), ("sar", "撒"), ("ser", "瑟"),
)
"""(latin, hanzi) pairs; both columns unique, each hanzi a single character."""

FINAL_ONLY: frozenset[str] = frozenset(lat for lat, _ in SYLLABLES if lat[-1] in "nr")
"""Closed syllables (coda ``n`` or ``r``): allowed only as the last syllable of a name."""

INITIAL_SYLLABLES: frozenset[str] = frozenset(
    lat for lat, _ in SYLLABLES if lat not in FINAL_ONLY and not lat.startswith("ll")
)
"""Syllables allowed first in a name: every open syllable except the geminate ``ll`` ones."""

AVOID_NAMES: frozenset[str] = frozenset({
    # countries and regions (English spelling or the Chinese it yields, e.g. basi -> 巴西)
    "basi", "bahama", "benin", "boliviya", "butan", "dominiga", "filipina", "gabon", "gana",
    "gerugiya", "guba", "hira", "kerodiya", "komoro", "kosovo", "kuba", "lesoto", "libiya",
    "liberiya", "malavi", "mali", "namibiya", "nigeriya", "panama", "peru", "polan", "romaniya",
    "rusiya", "sahara", "siriya", "somari", "somaliya", "sudan", "surinan", "togo", "tunisiya",
    "tuvalu", "yemen", "babuya", "korolado", "kororado", "sisiri", "kosigra", "kerite",
    # cities
    "baku", "bamako", "bageda", "balli", "berute", "bogota", "bulage", "busan", "dibra", "daka",
    "deban", "deri", "dili", "dodoma", "doha", "funafuti", "gaborone", "halare", "harare", "havana",
    "hakone", "kalakri", "kamakura", "kido", "kito", "kigali", "kobe", "kolon", "konakri", "kotonu",
    "kumamoto", "labate", "lima", "lome", "lusaka", "malabo", "male", "manama", "manila", "maputo",
    "maderi", "maseru", "milan", "mogadishu", "monako", "moroni", "nagasaki", "nagoya", "nara",
    "nikosiya", "nista", "plalin", "praha", "pune", "riga", "riyo", "ristaben", "roma", "sagelebu",
    "sarajevo", "sofiya", "suva", "talava", "talin", "tarava", "tirana", "toyama", "tripoli",
    "valeta", "yadin", "yokohama", "dalasta", "medina", "sodoma", "gomora", "babilon", "ninive",
    "troya", "verona", "padova", "modena", "genova", "torino", "napoli", "bari", "pisa", "milano",
    "ravena", "rimini", "malaga", "toledo", "granada", "tenerife", "braga", "faro", "bremen",
    "lugano", "batumi", "manado", "medan", "naha", "sasebo", "hakodate", "gifu", "yamagata",
    "sakata", "nagano",
    # rivers, seas and mountains
    "niro", "sena",
    # people, deities and characters, real or fictional
    "bahe", "bedofen", "beli", "biden", "braden", "bralen", "gadafi", "gevala", "hera", "jedi",
    "jodan", "kadafi", "kaligula", "kali", "kazafi", "kenobi", "kobi", "lenin", "loki", "maladona",
    "maradona", "mesi", "mobutu", "modi", "mozate", "mufasa", "mugabe", "mulan", "naruto", "nero",
    "pele", "plalatu", "putin", "rafiki", "rama", "rodan", "shobon", "stalin", "tito", "totoro",
    "vagena", "yesu", "yoda", "goku", "dagoba", "solo", "matata", "shakira", "homer", "plato",
    "seneka", "buda", "pikaso", "dali", "miro", "goya", "rosini", "neruda", "kurosava", "zoro",
    "kasanova", "drakula", "lolita", "nemo", "pipi",
    # organisations
    "fifa", "nasa", "nato",
    # brands
    "distani", "falali", "fila", "fiyate", "fote", "korona", "lada", "lego", "maserati", "nike",
    "nikon", "nokiya", "pagani", "peroni", "pirelli", "pokemon", "prada", "pulada", "puma", "reno",
    "sega", "soni", "subaru", "testala", "toyota", "yamaha",
    # everyday loanwords that would read as a joke (比萨 pizza, 沙发 sofa, 卡通 cartoon ...)
    "bisa", "bikini", "budin", "distako", "kelon", "katon", "mada", "malason", "reda", "shadin",
    "shafa", "shala", "karate", "kimono", "tofu", "miso", "sake", "sudoku", "harakiri", "saga",
})
"""Whole proper names (lowercase latin) the engine should not produce."""

AVOID_SUBSTRINGS: tuple[str, ...] = (
    # English (and the commonest European) slurs, obscenities and dark words
    "nazi", "satan", "rape", "puta", "puto", "pedo", "shit", "kaka", "homo", "fag", "nig",
    "negr", "porn", "anus", "penis", "pene", "cunt", "kunt", "dick", "cock", "piss", "fuk",
    "sex", "slut", "tits", "kike", "dago", "jap", "vagin", "semen", "demon", "tumor", "lepra",
    "mafi", "kamikaze", "gore", "sida", "dildo", "taliban", "jihad",
    # words the characters spell in Chinese: 希特勒, 泽东, 尼玛, 法西斯, 哈马斯
    "hitele", "zedon", "nimar", "fasista", "hamasta",
)
"""Lowercase latin strings that must not occur anywhere in a proper name."""

# --------------------------------------------------------------------------------------------
# Names of places and organizations
# --------------------------------------------------------------------------------------------

NAME_PATTERNS: dict[str, tuple[tuple[str, str], ...]] = {
    # places
    "continent": (("{N}", "{N}洲"),),
    "republic": (
        ("{N}", "{N}"),
        ("Republic of {N}", "{N}共和国"),
        ("Democratic Republic of {N}", "{N}民主共和国"),
        ("United Republic of {N}", "{N}联合共和国"),
        ("State of {N}", "{N}国"),
    ),
    "kingdom": (
        ("Kingdom of {N}", "{N}王国"),
        ("{N}", "{N}"),
        ("United Kingdom of {N}", "{N}联合王国"),
        ("Kingdom of {N} and the Isles", "{N}及诸岛王国"),
    ),
    "federation": (
        ("Federation of {N}", "{N}联邦"),
        ("{N}", "{N}"),
        ("Federal Republic of {N}", "{N}联邦共和国"),
        ("Confederation of {N}", "{N}邦联"),
        ("United Provinces of {N}", "{N}联合省"),
    ),
    "city": (
        ("{N}", "{N}"),
        ("New {N}", "新{N}"),
        ("{N} City", "{N}城"),
        ("Fort {N}", "{N}堡"),
        ("Saint {N}", "圣{N}"),
    ),
    "town": (
        ("{N}", "{N}"),
        ("Upper {N}", "上{N}"),
        ("Lower {N}", "下{N}"),
        ("{N} Bridge", "{N}桥"),
        ("{N} Springs", "{N}泉"),
        ("{N} Falls", "{N}瀑布镇"),
    ),
    "port_city": (
        ("Port {N}", "{N}港"),
        ("{N}", "{N}"),
        ("{N} Bay", "{N}湾"),
        ("Port Saint {N}", "圣{N}港"),
        ("{N} Harbor", "{N}海港"),
    ),
    "river": (
        ("{N} River", "{N}河"),
        ("River {N}", "{N}江"),
        ("Great {N} River", "大{N}河"),
        ("Little {N} River", "小{N}河"),
        ("{N} Water", "{N}水"),
    ),
    "island": (
        ("{N} Island", "{N}岛"),
        ("{N}", "{N}"),
        ("Isle of {N}", "{N}屿"),
        ("Great {N} Island", "大{N}岛"),
        ("Little {N} Island", "小{N}岛"),
        ("Saint {N} Island", "圣{N}岛"),
    ),
    # universities
    "university": (
        ("{N} University", "{N}大学"),
        ("National University of {N}", "{N}国立大学"),
        ("{N} College", "{N}书院"),
        ("Royal {N} University", "皇家{N}大学"),
        ("{N} State University", "{N}州立大学"),
        ("Saint {N} College", "圣{N}书院"),
    ),
    "medical_school": (
        ("{N} School of Medicine", "{N}医学院"),
        ("{N} Medical University", "{N}医科大学"),
        ("{N} College of Physicians and Surgeons", "{N}内外科医学院"),
        ("Royal {N} School of Medicine", "皇家{N}医学院"),
        ("{N} Institute of Medical Sciences", "{N}医学科学院"),
    ),
    "law_school": (
        ("{N} School of Law", "{N}法学院"),
        ("{N} College of Law", "{N}法律学院"),
        ("{N} University of Political Science and Law", "{N}政法大学"),
        ("Royal {N} School of Law", "皇家{N}法学院"),
    ),
    "institute_of_technology": (
        ("{N} Institute of Technology", "{N}理工学院"),
        ("{N} University of Technology", "{N}工业大学"),
        ("{N} Polytechnic", "{N}综合技术学院"),
        ("Royal {N} Institute of Technology", "皇家{N}理工学院"),
        ("{N} Technical University", "{N}技术大学"),
    ),
    "school_of_economics": (
        ("{N} School of Economics", "{N}经济学院"),
        ("{N} University of Finance and Economics", "{N}财经大学"),
        ("{N} Business School", "{N}商学院"),
        ("{N} School of Economics and Political Science", "{N}政治经济学院"),
        ("{N} College of Commerce", "{N}商业学院"),
    ),
    "institute_of_mathematics": (
        ("{N} Institute of Mathematics", "{N}数学研究所"),
        ("{N} Mathematical Institute", "{N}数学研究院"),
        ("{N} Institute of Mathematical Sciences", "{N}数学科学研究所"),
        ("{N} Institute for Advanced Study", "{N}高等研究院"),
        ("Royal {N} Institute of Mathematics", "皇家{N}数学研究所"),
    ),
    "academy_of_arts": (
        ("{N} Academy of Arts", "{N}艺术学院"),
        ("{N} Academy of Fine Arts", "{N}美术学院"),
        ("Royal {N} Academy of Arts", "皇家{N}艺术学院"),
        ("{N} Conservatory", "{N}音乐学院"),
        ("{N} School of Humanities", "{N}人文学院"),
    ),
    "institute_of_history": (
        ("{N} Institute of History", "{N}历史研究所"),
        ("{N} Historical Institute", "{N}历史研究院"),
        ("{N} Institute of Archaeology", "{N}考古研究所"),
        ("{N} School of Historical Studies", "{N}历史学院"),
        ("{N} Institute for Historical Research", "{N}历史研究中心"),
    ),
    # companies
    "pharmaceutical_company": (
        ("{N} Pharmaceuticals", "{N}制药"),
        ("{N} Pharma", "{N}医药"),
        ("{N} Laboratories", "{N}实验室"),
        ("{N} Biopharma", "{N}生物制药"),
        ("{N} Life Sciences", "{N}生命科学"),
    ),
    "software_company": (
        ("{N} Software", "{N}软件"),
        ("{N} Systems", "{N}系统"),
        ("{N} Technologies", "{N}科技"),
        ("{N} Digital", "{N}数码"),
        ("{N} Computing", "{N}计算"),
    ),
    "engineering_company": (
        ("{N} Engineering", "{N}工程"),
        ("{N} Industries", "{N}工业"),
        ("{N} Heavy Industries", "{N}重工"),
        ("{N} Machine Works", "{N}机械厂"),
        ("{N} Construction", "{N}建设"),
        ("{N} Dynamics", "{N}动力"),
    ),
    "bank": (
        ("{N} Bank", "{N}银行"),
        ("First {N} Bank", "{N}第一银行"),
        ("{N} Savings Bank", "{N}储蓄银行"),
        ("{N} Commercial Bank", "{N}商业银行"),
        ("Royal Bank of {N}", "{N}皇家银行"),
    ),
    "insurance_company": (
        ("{N} Insurance", "{N}保险"),
        ("{N} Life", "{N}人寿"),
        ("{N} Mutual", "{N}互助保险"),
        ("{N} Reinsurance", "{N}再保险"),
        ("{N} General", "{N}综合保险"),
    ),
    "law_firm": (
        ("{N} & Partners", "{N}合伙人律师事务所"),
        ("{N} Law Offices", "{N}律师事务所"),
        ("{N} Legal", "{N}法律服务"),
        ("{N} Chambers", "{N}大律师行"),
        ("{N} Law Group", "{N}律师集团"),
    ),
    "publishing_house": (
        ("{N} Press", "{N}出版社"),
        ("{N} Books", "{N}图书"),
        ("{N} House", "{N}书屋"),
        ("{N} Publishing", "{N}出版公司"),
        ("{N} Editions", "{N}书局"),
        ("{N} & Sons", "{N}父子出版社"),
    ),
    "film_studio": (
        ("{N} Pictures", "{N}影业"),
        ("{N} Studios", "{N}制片厂"),
        ("{N} Films", "{N}电影公司"),
        ("{N} Entertainment", "{N}娱乐"),
    ),
    "analytics_firm": (
        ("{N} Analytics", "{N}分析"),
        ("{N} Data", "{N}数据"),
        ("{N} Research", "{N}研究"),
        ("{N} Statistics", "{N}统计"),
        ("{N} Insights", "{N}洞察"),
    ),
    "education_company": (
        ("{N} Education", "{N}教育"),
        ("{N} Learning", "{N}学习"),
        ("{N} Academy", "{N}学堂"),
        ("{N} Tutors", "{N}辅导"),
        ("{N} Schools", "{N}学校集团"),
    ),
    "auction_house": (
        ("{N} Auctions", "{N}拍卖"),
        ("{N} Auction House", "{N}拍卖行"),
        ("{N} Auctioneers", "{N}拍卖公司"),
        ("{N} Fine Art Auctions", "{N}艺术品拍卖"),
    ),
    # bands
    "rock_band": (
        ("{N}", "{N}乐队"),
        ("The {N} Brothers", "{N}兄弟"),
        ("{N} Electric", "{N}电气"),
        ("{N} Express", "{N}快车"),
        ("{N} Machine", "{N}机器"),
    ),
    "folk_band": (
        ("The {N} Singers", "{N}歌者"),
        ("{N} Ramblers", "{N}漫游者"),
        ("{N} String Band", "{N}弦乐队"),
        ("The {N} Family", "{N}家族乐队"),
        ("{N} Folk Ensemble", "{N}民谣乐团"),
    ),
    "jazz_ensemble": (
        ("{N} Quartet", "{N}四重奏"),
        ("{N} Quintet", "{N}五重奏"),
        ("{N} Trio", "{N}三重奏"),
        ("{N} Sextet", "{N}六重奏"),
        ("{N} Big Band", "{N}大乐队"),
        ("{N} Jazz Orchestra", "{N}爵士管弦乐团"),
    ),
    # parties
    "political_party": (
        ("{N} Party", "{N}党"),
        ("{N} Union", "{N}联盟"),
        ("{N} Front", "{N}阵线"),
        ("{N} Movement", "{N}运动"),
        ("{N} People's Party", "{N}人民党"),
        ("{N} Democratic Party", "{N}民主党"),
    ),
    # publications
    "medical_journal": (
        ("{N} Medical Journal", "{N}医学杂志"),
        ("Journal of {N} Medicine", "{N}医学期刊"),
        ("{N} Clinical Review", "{N}临床评论"),
        ("Annals of {N} Surgery", "{N}外科年鉴"),
        ("{N} Journal of Public Health", "{N}公共卫生杂志"),
    ),
    "historical_review": (
        ("{N} Historical Review", "{N}历史评论"),
        ("Journal of {N} History", "{N}历史学报"),
        ("{N} Quarterly of History", "{N}历史季刊"),
        ("Annals of {N} Antiquity", "{N}古代史年鉴"),
        ("{N} Review of Archaeology", "{N}考古评论"),
    ),
    "education_journal": (
        ("{N} Journal of Education", "{N}教育杂志"),
        ("{N} Education Review", "{N}教育评论"),
        ("{N} Teachers' Quarterly", "{N}教师季刊"),
        ("Journal of {N} Pedagogy", "{N}教育学报"),
        ("{N} School Review", "{N}学校评论"),
    ),
    "mathematics_journal": (
        ("{N} Journal of Mathematics", "{N}数学杂志"),
        ("Annals of {N} Mathematics", "{N}数学年刊"),
        ("{N} Mathematical Review", "{N}数学评论"),
        ("{N} Journal of Pure and Applied Mathematics", "{N}纯粹与应用数学杂志"),
        ("{N} Mathematical Bulletin", "{N}数学通报"),
    ),
    "literary_magazine": (
        ("{N} Review", "{N}评论"),
        ("The {N} Quarterly", "{N}季刊"),
        ("{N} Literary Magazine", "{N}文学杂志"),
        ("{N} Letters", "{N}文艺"),
        ("The {N} Reader", "{N}读者"),
    ),
    "law_review": (
        ("{N} Law Review", "{N}法律评论"),
        ("{N} Law Journal", "{N}法学杂志"),
        ("Journal of {N} Jurisprudence", "{N}法理学报"),
        ("{N} Legal Quarterly", "{N}法学季刊"),
        ("{N} Review of Constitutional Law", "{N}宪法评论"),
    ),
    "technology_magazine": (
        ("{N} Tech Monthly", "{N}科技月刊"),
        ("{N} Computing Monthly", "{N}计算机月刊"),
        ("{N} Technology Review", "{N}技术评论"),
        ("{N} Engineering Weekly", "{N}工程周刊"),
        ("{N} Digital World", "{N}数字世界"),
    ),
    "financial_newspaper": (
        ("{N} Financial News", "{N}金融报"),
        ("{N} Business Daily", "{N}商业日报"),
        ("{N} Economic Herald", "{N}经济导报"),
        ("The {N} Investor", "{N}投资者报"),
        ("{N} Market Journal", "{N}市场报"),
        ("{N} Commercial Gazette", "{N}商报"),
    ),
    "daily_newspaper": (
        ("The {N} Herald", "{N}先驱报"),
        ("{N} Daily", "{N}日报"),
        ("The {N} Times", "{N}时报"),
        ("The {N} Post", "{N}邮报"),
        ("{N} Evening News", "{N}晚报"),
        ("The {N} Courier", "{N}信使报"),
        ("The {N} Tribune", "{N}论坛报"),
        ("The {N} Chronicle", "{N}纪事报"),
    ),
}
"""Kind id -> (English, Chinese) templates with the single field ``{N}``."""
