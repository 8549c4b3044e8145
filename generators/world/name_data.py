"""Raw material for the names of the synthetic world, in English and Chinese.

Everything here is data; ``names.py`` (the engine) turns it into names and keeps them unique.

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
