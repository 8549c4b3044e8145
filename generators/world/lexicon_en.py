"""The English lexicon of the synthetic world: kind nouns, lead sentences, fact templates, section
headings, filler frames and domain topics (from :mod:`generators.world.prose_en`), hop phrases and
date and number formats, as plain data.
Fact templates state exactly one fact each and always carry its time when the relation has one;
filler frames are bland encyclopedic prose that names no entity but the article's own and states
nothing checkable (no numbers, dates, superlatives or relations), and the person frames read for
either gender and for the living and the dead alike. Descriptions of hops start lowercase and end with
``{x}``, and no question starts with ``{x}``, so descriptions nest inside one another and inside questions.
"""

from __future__ import annotations

from generators.world.lexicon import Lexicon, Rewording
from generators.world.prose_en import FILLER, TOPICS, sentences

KINDS: dict[str, tuple[str, str]] = {
    "continent": ("continent", "a continent"), "republic": ("republic", "a republic"),
    "kingdom": ("kingdom", "a kingdom"), "federation": ("federation", "a federation"),
    "city": ("city", "a city"), "town": ("town", "a town"), "port_city": ("port city", "a port city"),
    "river": ("river", "a river"), "island": ("island", "an island"),
    "university": ("university", "a university"), "medical_school": ("medical school", "a medical school"),
    "law_school": ("law school", "a law school"),
    "institute_of_technology": ("institute of technology", "an institute of technology"),
    "school_of_economics": ("school of economics", "a school of economics"),
    "institute_of_mathematics": ("institute of mathematics", "an institute of mathematics"),
    "academy_of_arts": ("academy of arts", "an academy of arts"),
    "institute_of_history": ("institute of history", "an institute of history"),
    "pharmaceutical_company": ("pharmaceutical company", "a pharmaceutical company"),
    "software_company": ("software company", "a software company"),
    "engineering_company": ("engineering company", "an engineering company"),
    "bank": ("bank", "a bank"), "insurance_company": ("insurance company", "an insurance company"),
    "law_firm": ("law firm", "a law firm"), "publishing_house": ("publishing house", "a publishing house"),
    "film_studio": ("film studio", "a film studio"), "analytics_firm": ("analytics firm", "an analytics firm"),
    "education_company": ("education company", "an education company"),
    "auction_house": ("auction house", "an auction house"),
    "rock_band": ("rock band", "a rock band"), "folk_band": ("folk band", "a folk band"),
    "jazz_ensemble": ("jazz ensemble", "a jazz ensemble"), "political_party": ("political party", "a political party"),
    "medical_journal": ("medical journal", "a medical journal"),
    "historical_review": ("historical review", "a historical review"),
    "education_journal": ("education journal", "an education journal"),
    "mathematics_journal": ("mathematics journal", "a mathematics journal"),
    "literary_magazine": ("literary magazine", "a literary magazine"), "law_review": ("law review", "a law review"),
    "technology_magazine": ("technology magazine", "a technology magazine"),
    "financial_newspaper": ("financial newspaper", "a financial newspaper"),
    "daily_newspaper": ("daily newspaper", "a daily newspaper"),
    "physician": ("physician", "a physician"), "surgeon": ("surgeon", "a surgeon"), "nurse": ("nurse", "a nurse"),
    "historian": ("historian", "a historian"), "archaeologist": ("archaeologist", "an archaeologist"),
    "teacher": ("teacher", "a teacher"), "educator": ("educator", "an educator"),
    "mathematician": ("mathematician", "a mathematician"), "statistician": ("statistician", "a statistician"),
    "novelist": ("novelist", "a novelist"), "poet": ("poet", "a poet"), "journalist": ("journalist", "a journalist"),
    "musician": ("musician", "a musician"), "singer": ("singer", "a singer"),
    "film_director": ("film director", "a film director"), "actor": ("actor", "an actor"),
    "lawyer": ("lawyer", "a lawyer"), "judge": ("judge", "a judge"), "politician": ("politician", "a politician"),
    "engineer": ("engineer", "an engineer"), "software_developer": ("software developer", "a software developer"),
    "banker": ("banker", "a banker"), "economist": ("economist", "an economist"),
    "entrepreneur": ("entrepreneur", "an entrepreneur"),
    "song": ("song", "a song"), "novel": ("novel", "a novel"),
    "poetry_collection": ("poetry collection", "a poetry collection"),
    "medical_textbook": ("medical textbook", "a medical textbook"), "history_book": ("history book", "a history book"),
    "textbook": ("textbook", "a textbook"),
    "mathematics_monograph": ("mathematics monograph", "a mathematics monograph"),
    "legal_treatise": ("legal treatise", "a legal treatise"),
    "technology_book": ("technology book", "a technology book"),
    "economics_book": ("economics book", "an economics book"),
    "feature_film": ("feature film", "a feature film"), "documentary_film": ("documentary film", "a documentary film"),
}

LEADS: dict[str, tuple[str, ...]] = {
    "place": sentences("""
        {s} is {a_kind}. {s} is the name of {a_kind}. This article is about {s}, {a_kind}.
        {s} is {a_kind}, and the sections below give an overview of it.
        The {kind} known as {s} is the subject of this article. {s} is described in reference works as {a_kind}.
        As {a_kind}, {s} is the subject of the following overview.
        {s} is {a_kind} whose main features are outlined below. Known by the name {s}, it is {a_kind}.
    """),
    "organization": sentences("""
        {s} is {a_kind}. {s} is the name of {a_kind}. This article is about {s}, {a_kind}.
        {s} is {a_kind}, and the sections below give an overview of it. The {kind} {s} is the subject of this article.
        {s} is described in reference works as {a_kind}. As {a_kind}, {s} is the subject of the following overview.
        {s} is {a_kind} whose main features are outlined below.
    """),
    "person": sentences("""
        This article is about {s}, {a_kind}. The {kind} {s} is the subject of this article.
        {s} is the subject of this biography, {a_kind} by profession. {s} pursued a career as {a_kind}.
        {s} is described in reference works as {a_kind}. {s} made a name as {a_kind}.
        {s} is chiefly known as {a_kind}. {s} worked as {a_kind}.
        {s}, {a_kind}, is the subject of the following overview.
    """),
    "work": sentences("""
        {s} is {a_kind}. {s} is the title of {a_kind}. This article is about {s}, {a_kind}.
        {s} is {a_kind}, and the sections below give an overview of it. The {kind} {s} is the subject of this article.
        {s} is described in reference works as {a_kind}. As {a_kind}, {s} is the subject of the following overview.
        {s} is {a_kind} whose main features are outlined below.
    """),
}

FACTS: dict[str, tuple[str, ...]] = {
    "located_in:country": sentences("""{s} is a country in {o}. {s} lies in {o}.
        {s} is situated on the continent of {o}. Geographically, {s} is part of {o}. {s} is located in {o}.
        The territory of {s} lies within {o}."""),
    "located_in:city": sentences("""{s} is located in {o}. {s} lies in {o}. {s} is situated in {o}.
        {s} is part of {o}. Administratively, {s} belongs to {o}. {s} is one of the settlements of {o}."""),
    "located_in:river": sentences("""{s} flows through {o}. {s} is a river in {o}. The course of {s} lies within {o}.
        {s} runs across the territory of {o}. {s} is one of the rivers of {o}."""),
    "located_in:island": sentences("""{s} is an island belonging to {o}. {s} is part of {o}.
        {s} lies within the territory of {o}. {s} is administered as part of {o}.
        {s} is one of the islands of {o}."""),
    "located_in:university": sentences("""{s} is located in {o}. {s} is based in {o}. {s} has its main campus in {o}.
        The campus of {s} is in {o}. {s} is situated in the city of {o}."""),
    "capital:country": sentences("""The capital of {s} is {o}. {o} is the capital of {s}. {s} has its capital at {o}.
        {o} serves as the capital of {s}. The capital city of {s} is {o}."""),
    "headquartered_in:company": sentences("""{s} is headquartered in {o}. The headquarters of {s} are in {o}.
        {s} has its head office in {o}. {s} is based in {o}. {s} maintains its headquarters in {o}."""),
    "headquartered_in:publication": sentences("""{s} is published from {o}. {s} is based in {o}.
        The editorial offices of {s} are in {o}. {s} is headquartered in {o}. {s} has its offices in {o}."""),
    "headquartered_in:party": sentences("""{s} is headquartered in {o}.
        The national headquarters of {s} are located in {o}. {s} has its central office in {o}. {s} is based in {o}.
        The head office of {s} is in {o}."""),
    "formed_in:band": sentences("""{s} was formed in {o}. {s} came together in {o}. {s} originated in {o}.
        The group that became {s} was formed in {o}. {s} got its start in {o}."""),
    "founded:country": sentences("""{s} was established in {year}. The state of {s} was founded in {year}.
        {s} came into existence as a state in {year}. {s} dates its foundation to {year}.
        {s} was founded in {year}."""),
    "founded:city": sentences("""{s} was founded in {year}. The settlement of {s} was established in {year}.
        The foundation of {s} is dated to {year}. {s} was established in {year}.
        {s} dates from {year}, when it was founded."""),
    "founded:university": sentences("""{s} was founded in {year}. {s} was established in {year}.
        {s} opened its doors in {year}. The foundation of {s} dates to {year}.
        {s} has existed since its founding in {year}."""),
    "founded:company": sentences("""{s} was founded in {year}. {s} was established in {year}.
        {s} began operating in {year}. {s} was set up in {year}.
        The history of {s} begins with its founding in {year}."""),
    "founded:band": sentences("""{s} was formed in {year}. {s} was founded in {year}. {s} came together in {year}.
        {s} began performing together in {year}. The story of {s} begins with its formation in {year}."""),
    "founded:party": sentences("""{s} was founded in {year}. {s} was established in {year}.
        {s} was formally constituted in {year}. {s} was set up in {year}.
        The history of {s} as a party begins in {year}."""),
    "founded:publication": sentences("""{s} was founded in {year}. {s} was established in {year}.
        {s} began publication in {year}. The first issue of {s} appeared in {year}. {s} was launched in {year}."""),
    "founded_by:university": sentences("""{s} was founded by {o}. {o} founded {s}. {s} was established by {o}.
        The founder of {s} was {o}. {o} was the founder of {s}."""),
    "founded_by:company": sentences("""{s} was founded by {o}. {o} founded {s}. {s} was set up by {o}.
        The founder of {s} was {o}. {o} established {s}."""),
    "founded_by:party": sentences("""{s} was founded by {o}. {o} founded {s}. The founder of {s} was {o}.
        {s} was established under the leadership of {o}. {o} is credited as the founder of {s}."""),
    "founded_by:publication": sentences("""{s} was founded by {o}. {o} founded {s}. {s} was launched by {o}.
        The founder of {s} was {o}. {o} established {s}."""),
    "population:city": sentences("""{s} had a population of {value} at the {year} census.
        At the census of {year}, {s} had {value} inhabitants.
        The {year} census recorded a population of {value} for {s}.
        According to the census of {year}, {value} people lived in {s}.
        {s} was home to {value} people as of the {year} census."""),
    "born_in:person": sentences("""{s} was born in {o} on {date}. {s} was born on {date} in {o}.
        The birth of {s} took place in {o} on {date}. {s} was born in the city of {o} on {date}.
        {o} is the birthplace of {s}, who was born there on {date}."""),
    "father:person": sentences("""The father of {s} was {o}. {o} was the father of {s}. {s}'s father was {o}.
        Records name {o} as the father of {s}. On the paternal side, {s} was the child of {o}."""),
    "mother:person": sentences("""The mother of {s} was {o}. {o} was the mother of {s}. {s}'s mother was {o}.
        Records name {o} as the mother of {s}. On the maternal side, {s} was the child of {o}."""),
    "educated_at:person": sentences("""{s} graduated from {o} on {date}. {s} studied at {o}, graduating on {date}.
        In {year}, {s} graduated from {o}. After studying at {o}, {s} graduated on {date}.
        {s} completed studies at {o} in {year}."""),
    "employed_by:person": sentences("""{s} joined {o} on {date}. On {date}, {s} began working for {o}.
        {s} took up a post at {o} in {year}. {s} was employed by {o} from {date}.
        In {year}, {s} joined the staff of {o}."""),
    "member_of:person": sentences("""{s} joined {o} on {date}. {s} became a member of {o} on {date}.
        In {year}, {s} joined the group {o}. {s} was recruited to {o} in {year}.
        On {date}, {s} began performing with {o}."""),
    "party_member:person": sentences("""{s} joined {o} on {date}. {s} became a member of {o} on {date}.
        In {year}, {s} joined {o}. {s} took out membership of {o} in {year}.
        Politically, {s} aligned with {o}, joining it on {date}."""),
    "spouse:person": sentences("""{s} married {o} on {date}. On {date}, {s} married {o}.
        {s} and {o} were married on {date}. The marriage of {s} and {o} took place on {date}.
        {s} married {o} in {year}."""),
    "died_in:person": sentences("""{s} died in {o} on {date}. {s} died on {date} in {o}. On {date}, {s} died in {o}.
        {s} passed away in {o} on {date}. The death of {s} occurred in {o} on {date}."""),
    "performed_by:song": sentences("""{s} is performed by {o}. {s} was recorded by {o}. {s} is a song by {o}.
        The performer of {s} is {o}. {o} performed {s}."""),
    "written_by:book": sentences("""{s} was written by {o}. {o} wrote {s}. {s} is the work of {o}.
        The author of {s} is {o}. {s} was authored by {o}."""),
    "published_by:book": sentences("""{s} was published by {o}. {o} published {s}. {s} was issued by {o}.
        The publisher of {s} is {o}. {s} appeared under the imprint of {o}."""),
    "directed_by:film": sentences("""{s} was directed by {o}. {o} directed {s}. The director of {s} is {o}.
        {s} was made under the direction of {o}. {o} is credited as the director of {s}."""),
    "produced_by:film": sentences("""{s} was produced by {o}. {o} produced {s}. {s} is a production of {o}.
        The production company behind {s} was {o}. Production of {s} was handled by {o}."""),
    "released:song": sentences("""{s} was released on {date}. {s} was issued on {date}. {s} came out on {date}.
        The release of {s} took place on {date}. {s} was first made available on {date}."""),
    "released:film": sentences("""{s} was released on {date}. {s} premiered on {date}. {s} had its premiere on {date}.
        The release of {s} took place on {date}. {s} opened to audiences on {date}."""),
    "published:book": sentences("""{s} was published in {year}. {s} first appeared in print in {year}.
        {s} was first published in {year}. The publication of {s} took place in {year}. {s} came out in {year}."""),
}

SECTIONS: dict[str, tuple[str, ...]] = {
    "geography": ("Geography", "Location and geography", "Physical setting", "Geography and setting"),
    "history": ("History", "Historical background", "Origins and history", "Background"),
    "economy": ("Economy", "Economic life", "Trade and economy", "Economic activity"),
    "culture": ("Culture", "Society and culture", "Cultural life", "Arts and culture"),
    "organization": ("Organization", "Structure", "Organization and governance", "Governance"),
    "activities": ("Activities", "Work and activities", "Operations", "Main activities"),
    "reception": ("Reception", "Critical reception", "Public reception", "Reputation"),
    "early_life": ("Early life", "Early years", "Childhood and family", "Family background"),
    "education": ("Education", "Studies", "Education and training", "Academic background"),
    "career": ("Career", "Professional career", "Working life", "Career and work"),
    "personal_life": ("Personal life", "Private life", "Family life", "Personal life and family"),
    "legacy": ("Legacy", "Influence and legacy", "Assessment", "Reputation and legacy"),
    "production": ("Production", "Background and production", "Creation", "Development"),
    "release": ("Release", "Release and publication", "Release history", "Distribution"),
    "content": ("Content", "Themes", "Content and themes", "Subject matter"),
}

HOPS: dict[str, tuple[str, str]] = {
    "located_in>continent": ("the continent that contains {x}", "On which continent is {x} located?"),
    "located_in>country": ("the country that contains {x}", "In which country is {x} located?"),
    "located_in>city": ("the city that is home to {x}", "In which city is {x} located?"),
    "capital>city": ("the capital of {x}", "Which city is the capital of {x}?"),
    "headquartered_in>city": ("the city that hosts the headquarters of {x}", "In which city is {x} headquartered?"),
    "founded_by>person": ("the founder of {x}", "Who founded {x}?"),
    "formed_in>city": ("the city of origin of {x}", "In which city was {x} formed?"),
    "born_in>city": ("the birthplace of {x}", "In which city was {x} born?"),
    "died_in>city": ("the place of death of {x}", "In which city did {x} die?"),
    "educated_at>university": ("the alma mater of {x}", "From which institution did {x} graduate?"),
    "employed_by>organization": ("the employer of {x}", "Which organization employed {x}?"),
    "spouse>person": ("the spouse of {x}", "Who was the spouse of {x}?"),
    "father>person": ("the father of {x}", "Who was the father of {x}?"),
    "mother>person": ("the mother of {x}", "Who was the mother of {x}?"),
    "member_of>band": ("the band joined by {x}", "Which band did {x} join?"),
    "party_member>party": ("the political party joined by {x}", "Which political party did {x} join?"),
    "performed_by>performer": ("the performer of {x}", "Who performed {x}?"),
    "written_by>person": ("the author of {x}", "Who wrote {x}?"),
    "published_by>publication": ("the publisher of {x}", "Which publication published {x}?"),
    "directed_by>person": ("the director of {x}", "Who directed {x}?"),
    "produced_by>company": ("the company that produced {x}", "Which company produced {x}?"),
    "founded>year": ("", "In what year was {x} founded?"),
    "born_in>year": ("", "In what year was {x} born?"),
    "died_in>year": ("", "In what year did {x} die?"),
    "released>year": ("", "In what year was {x} released?"),
    "published>year": ("", "In what year was {x} published?"),
}

CLAUSES: dict[str, str] = {
    "located_in": "that lies in {o}", "capital": "whose capital is {o}", "headquartered_in": "that is headquartered in {o}",
    "formed_in": "that was formed in {o}", "founded_by": "that was founded by {o}", "born_in": "who was born in {o}",
    "father": "whose father was {o}", "mother": "whose mother was {o}", "educated_at": "who studied at {o}",
    "employed_by": "who worked for {o}", "member_of": "who was a member of {o}", "party_member": "who joined {o}",
    "died_in": "who died in {o}", "performed_by": "that was performed by {o}", "written_by": "that was written by {o}",
    "published_by": "that was published by {o}", "directed_by": "that was directed by {o}",
    "produced_by": "that was produced by {o}",
}
"""Relative clauses describing an entity by one of its facts (issue 39's described queries, OURS)."""

REWORDED = Rewording(
    hops={
        'located_in>continent': ('the landmass containing {x}', 'Which landmass contains {x}?'),
        'located_in>country': ('the nation containing {x}', 'Which nation contains {x}?'),
        'located_in>city': ('the municipality hosting {x}', 'Which municipality hosts {x}?'),
        'capital>city': ('the seat of government of {x}', 'Where is the seat of government of {x}?'),
        'headquartered_in>city': ('the municipality {x} operates out of', 'Out of which municipality does {x} operate?'),
        'founded_by>person': ('the person who started {x}', 'Who started {x}?'),
        'formed_in>city': ('the municipality where {x} first assembled', 'Where did {x} first assemble?'),
        'born_in>city': ('the hometown of {x}', 'What is the hometown of {x}?'),
        'died_in>city': ('the municipality where {x} breathed their last', 'Where did {x} breathe their last?'),
        'educated_at>university': ('the school that counts {x} among its alumni', 'Which school counts {x} among its alumni?'),
        'employed_by>organization': ('the body that had {x} on its payroll', 'Which body had {x} on its payroll?'),
        'spouse>person': ('the husband or wife of {x}', 'Who was the husband or wife of {x}?'),
        'father>person': ('the dad of {x}', 'Who was the dad of {x}?'),
        'mother>person': ('the mom of {x}', 'Who was the mom of {x}?'),
        'member_of>band': ('the ensemble {x} played in', 'Which ensemble did {x} play in?'),
        'party_member>party': ('the faction {x} signed up to', 'Which faction did {x} sign up to?'),
        'performed_by>performer': ('the artist who sang {x}', 'Who sang {x}?'),
        'written_by>person': ('the person who penned {x}', 'Who penned {x}?'),
        'published_by>publication': ('the outlet that printed {x}', 'Which outlet printed {x}?'),
        'directed_by>person': ('the person who helmed {x}', 'Who helmed {x}?'),
        'produced_by>company': ('the firm that financed {x}', 'Which firm financed {x}?'),
        'founded>year': ('', 'In which year did {x} start out?'),
        'born_in>year': ('', 'In which year did {x} come into the world?'),
        'died_in>year': ('', 'In which year did {x} breathe their last?'),
        'released>year': ('', 'In which year did {x} hit the market?'),
        'published>year': ('', 'In which year did {x} hit the shelves?'),
    },
    clauses={
        'located_in': 'found inside {o}', 'capital': 'with {o} as seat of government',
        'headquartered_in': 'that operates out of {o}', 'formed_in': 'that first assembled in {o}',
        'founded_by': 'that {o} started', 'born_in': 'whose hometown was {o}', 'father': 'whose dad was {o}',
        'mother': 'whose mom was {o}', 'educated_at': 'who was an alumnus of {o}',
        'employed_by': 'who was on the payroll of {o}', 'member_of': 'who played in {o}',
        'party_member': 'who signed up to {o}', 'died_in': 'who breathed their last in {o}',
        'performed_by': 'sung by {o}', 'written_by': 'that {o} penned', 'published_by': 'that {o} printed',
        'directed_by': 'helmed by {o}', 'produced_by': 'that {o} financed',
    },
    kinds={
        'continent': 'landmass', 'republic': 'nation without a monarch', 'kingdom': 'monarchy',
        'federation': 'union of states', 'city': 'municipality', 'town': 'township',
        'port_city': 'harbour municipality', 'river': 'waterway', 'island': 'isle',
        'university': 'institution of higher learning', 'medical_school': 'college for doctors',
        'law_school': 'college for attorneys', 'institute_of_technology': 'polytechnic',
        'school_of_economics': 'college of commerce',
        'institute_of_mathematics': 'research centre for arithmetic and geometry',
        'academy_of_arts': 'college for painters and sculptors',
        'institute_of_history': 'research centre for the past', 'pharmaceutical_company': 'drug maker',
        'software_company': 'maker of computer programs', 'engineering_company': 'construction and design firm',
        'bank': 'lender', 'insurance_company': 'insurer', 'law_firm': 'legal practice',
        'publishing_house': 'press', 'film_studio': 'motion-picture maker', 'analytics_firm': 'data consultancy',
        'education_company': 'learning provider', 'auction_house': 'auctioneer',
        'rock_band': 'hard-rocking outfit', 'folk_band': 'troupe of acoustic balladeers',
        'jazz_ensemble': 'swing combo', 'political_party': 'faction',
        'medical_journal': 'periodical of medicine', 'historical_review': 'periodical on the past',
        'education_journal': 'periodical on schooling',
        'mathematics_journal': 'periodical on arithmetic and geometry',
        'literary_magazine': 'periodical of letters', 'law_review': 'periodical of jurisprudence',
        'technology_magazine': 'periodical on gadgets', 'financial_newspaper': 'business paper',
        'daily_newspaper': 'everyday paper', 'physician': 'doctor', 'surgeon': 'surgical specialist',
        'nurse': 'hospital caregiver', 'historian': 'scholar of the past',
        'archaeologist': 'excavator of ancient sites', 'teacher': 'schoolteacher', 'educator': 'pedagogue',
        'mathematician': 'scholar of numbers', 'statistician': 'analyst of data', 'novelist': 'fiction writer',
        'poet': 'versifier', 'journalist': 'reporter', 'musician': 'instrumentalist', 'singer': 'vocalist',
        'film_director': 'filmmaker', 'actor': 'thespian', 'lawyer': 'attorney', 'judge': 'magistrate',
        'politician': 'public office holder', 'engineer': 'technical designer',
        'software_developer': 'programmer', 'banker': 'financier', 'economist': 'scholar of markets',
        'entrepreneur': 'businessperson', 'song': 'tune', 'novel': 'work of fiction',
        'poetry_collection': 'book of verse', 'medical_textbook': 'manual of medicine',
        'history_book': 'chronicle', 'textbook': 'course book',
        'mathematics_monograph': 'study in arithmetic and geometry', 'legal_treatise': 'study of jurisprudence',
        'technology_book': 'volume on gadgets', 'economics_book': 'volume on markets',
        'feature_film': 'motion picture', 'documentary_film': 'non-fiction picture',
    },
)
"""The questions and descriptions worded unlike the articles (:class:`Rewording`; issue 39's reworded queries, OURS)."""

LEXICON = Lexicon(
    lang="en",
    kinds=KINDS,
    leads=LEADS,
    facts=FACTS,
    sections=SECTIONS,
    filler=FILLER,
    topics=TOPICS,
    hops=HOPS,
    clauses=CLAUSES,
    described="the {kind} {clauses}",
    clause_sep=" and ",
    pronouns={
        "male": ("He", "he"), "female": ("She", "she"),
        "place": ("It", "it"), "organization": ("It", "it"), "work": ("It", "it"),
    },
    months=(
        "January", "February", "March", "April", "May", "June",
        "July", "August", "September", "October", "November", "December",
    ),
    date_format="{day} {month} {year}",
    see_also="See also",
    list_sep=", ",
    sentence_sep=" ",
    format_count=lambda n: f"{n:,}",
    reworded=REWORDED,
)
