"""The English prose of the synthetic world's articles that carries no fact: filler frames and domain topics.

Filler frames are bland encyclopedic prose that names no entity but the article's own and states
nothing checkable (no numbers, dates, superlatives or relations); the person frames read for
either gender and for the living and the dead alike. Topics are the noun phrases a frame's
``{topic}`` fields draw from, per domain. :mod:`generators.world.lexicon_en` holds the rest of the
English lexicon (and the templates that do state facts).
"""

from __future__ import annotations

import re


def sentences(text: str) -> tuple[str, ...]:
    """The templates of a block of prose: whitespace collapsed, split after each full stop."""
    return tuple(s for s in re.split(r"(?<=\.) ", " ".join(text.split())) if s)


def phrases(text: str) -> tuple[str, ...]:
    """The comma-separated noun phrases of a block of text, stripped."""
    return tuple(p.strip() for p in text.split(",") if p.strip())


FILLER: dict[str, tuple[str, ...]] = {
    "place": sentences("""
        {s} is frequently mentioned in surveys of {topic}.
        Discussions of {s} often return to questions of {topic} and {topic2}.
        Historians who write about {topic} have repeatedly drawn on material concerning {s}.
        {Pron} is a recurring example in comparative studies of {topic}.
        Local records relating to {s} have been used by researchers interested in {topic}.
        The literature on {s} is uneven, with some periods documented in detail and others barely covered.
        Scholars have noted that accounts of {s} vary considerably depending on the sources consulted.
        Much of the writing on {s} concerns {topic}, although {topic2} has attracted growing attention.
        {Pron} has been described in travel writing, official reports and academic studies alike.
        Interest in {s} among specialists in {topic} has grown steadily.
        Maps and descriptions of {s} differ in their level of detail.
        The name {s} appears in a wide range of documents, from administrative correspondence to private letters.
        Writers on {topic} sometimes cite {s} as a useful case for comparison.
        There is a substantial body of commentary on {s}, much of it concerned with {topic}.
        The study of {s} has benefited from renewed interest in {topic}.
        Observers have long remarked on the variety of opinions expressed about {s}.
        For students of {topic}, {s} offers a range of instructive examples.
        Surveys carried out in and around {s} have contributed to a wider understanding of {topic}.
        General treatments of the {kind} as a category occasionally use {s} as an illustration.
        {Pron} has been the subject of articles, essays and occasional monographs.
        Debates about {topic} have at times drawn attention to {s}.
        The character of {s} is often described in terms of {topic} rather than {topic2}.
        Accounts by visitors to {s} tend to emphasise different features from those by local observers.
        Research on {s} remains scattered across journals devoted to {topic} and {topic2}.
        {Pron} has attracted the attention of writers, artists and scholars.
        Much remains to be learned about {s}, and new studies continue to appear.
        Commentators have pointed out that generalisations about {s} should be treated with caution.
        Material relating to {s} is held in a number of archives and libraries.
        The place of {s} in the broader history of {topic} is still debated.
        Specialists in {topic} regard {s} as a rewarding subject for fieldwork.
        {s} is sometimes used as a point of reference in discussions of {topic}.
        Descriptions of {s} in older sources are often brief and impressionistic.
        More recent scholarship on {s} has paid closer attention to {topic}.
        {Pron} features in a variety of educational materials dealing with {topic}.
        Public interest in {s} has tended to rise and fall with wider debates about {topic}.
        The connection between {s} and questions of {topic} has been examined from several angles.
        Geographers and historians have approached {s} with quite different questions in mind.
        Any overview of {s} must take account of {topic} as well as {topic2}.
        {Pron} is well represented in photographic collections and printed descriptions.
        Writers have often used {s} as a backdrop for reflections on {topic}.
        The way {s} is described has changed over time, reflecting shifting interests in {topic}.
        Studies of {s} draw on a mixture of documentary sources, field surveys and interviews.
        {Pron} is discussed in guidebooks as well as in more specialised works on {topic}.
        Although {s} is well known to specialists, it receives comparatively little attention in general works.
        Questions of {topic} are central to much of the writing on {s}.
        {Pron} has been portrayed in very different ways by different generations of writers.
        Efforts to document {s} systematically have been closely linked to the growth of {topic} as a field of study.
        Among specialists, {s} is associated above all with {topic}.
        The available sources make it possible to trace developments in {topic} around {s} over a long period.
        Researchers continue to debate how representative {s} is of broader patterns in {topic}.
        {Pron} is a familiar name in the literature on {topic}.
        Conferences on {topic} have occasionally included sessions devoted to {s}.
        Local societies have collected a good deal of material on {s}.
        The study of {topic} in relation to {s} has yielded a modest but steady stream of publications.
        Comparisons between {s} and other places have been a common feature of writing on {topic}.
        {Pron} continues to be discussed in both scholarly and popular works.
        Descriptions of {s} by outside observers have not always been accurate.
        Interpretations of {s} remain open to revision as new evidence comes to light.
        Landscape, memory and {topic} are recurring themes in the writing on {s}.
        {s} offers a useful vantage point from which to consider broader questions of {topic}.
        Debate continues over how {s} should be described.
        Seasonal change is a recurring motif in descriptions of {s}.
        Readers interested in {s} will find further material in the literature on {topic} and {topic2}.
        Although general reference works tend to describe {s} in brief and rather formal terms, specialists in {topic}
        have built up a considerably richer picture, drawing on archival material, field observation and the testimony
        of people familiar with the area.
        Whether {s} is approached through {topic} or through {topic2}, the picture that emerges depends heavily on
        which sources are given priority and on the questions the observer brings to them.
        Early descriptions of {s} and later research do not always agree.
    """),
    "organization": sentences("""
        {s} is often mentioned in discussions of {topic}.
        {Pron} has been the subject of commentary in the specialist press.
        The activities of {s} have at times been linked to wider debates about {topic}.
        Observers have described the internal culture of {s} as cautious and consensus-driven.
        Over the years, {s} has attracted both praise and criticism.
        The public profile of {s} has varied considerably over time.
        Decisions taken by {s} have occasionally been cited in writing on {topic}.
        Alongside {topic}, {s} has shown a sustained interest in {topic2}.
        Commentators have noted the emphasis that {s} places on {topic}.
        The internal structure of {s} has been revised on several occasions.
        Decision-making within {s} is usually described as collaborative.
        Critics of {s} have questioned its approach to {topic}.
        Supporters of {s} point to its record in {topic} as evidence of a serious commitment.
        {Pron} has been profiled in newspapers and trade journals.
        The name {s} is widely recognised among people working in {topic}.
        {Pron} has taken part in public discussions of {topic} and {topic2}.
        Assessments of the work of {s} have been mixed.
        Over time, {s} has broadened its interests to include {topic2}.
        For observers of the {kind} as an institution, {s} offers an instructive example.
        Much of the public attention paid to {s} has concerned {topic}.
        The day-to-day work of {s} depends heavily on internal coordination.
        Reports on {s} have tended to focus on its role in {topic}.
        {Pron} regularly organises events connected with {topic}.
        Discussions of {s} frequently return to questions of {topic} and {topic2}.
        The way {s} operates is regarded by some as typical of the {kind}.
        Researchers have used {s} as a case study in {topic}. Statements issued by {s} frequently refer to {topic}.
        Opinions about {s} differ widely among people familiar with {topic}.
        {Pron} places considerable weight on cooperation and exchange with outside partners.
        The influence of {s} on {topic} is a matter of some debate.
        {Pron} has drawn attention for its stance on questions of {topic}.
        Some praise {s} for its steadiness, while others regard it as overly cautious.
        The development of {s} mirrors many of the changes that have taken place in {topic}.
        Writers on {topic} sometimes use {s} as an example.
        The division of responsibilities within {s} has become more detailed as its work has expanded.
        The management style of {s} has been the subject of occasional debate.
        Critical interest in {s} has risen and fallen over time.
        Public awareness of {s} is closely tied to its involvement in {topic}.
        Information about {s} is scattered across press reports, archives and memoirs.
        The work of {s} touches on {topic}, {topic2} and related areas.
        In setting its priorities, {s} generally tries to balance {topic} against {topic2}.
        Observers have pointed to a gap between the public image of {s} and its internal culture.
        Positions taken by {s} on {topic} have sometimes provoked public comment.
        Some researchers regard the working model of {s} as characteristic of the {kind}.
        Commentary on {s} has combined appreciation with reservations.
        Much of what {s} does is organised around {topic}.
        Some commentators consider the effort {s} has invested in {topic} to be worthwhile.
        The internal rules of {s} have been revised repeatedly.
        {Pron} has long taken care to keep records of its own activities.
        References to {s} appear in a good deal of research on {topic}.
        The reputation of {s} in {topic} has had its ups and downs.
        The name of {s} is familiar to anyone following reporting on {topic}.
        The relationship between {s} and the wider public is a recurring concern of commentators.
        Public impressions of {s} owe a great deal to press coverage of its activities.
        In its routine work, {s} emphasises sound procedure and efficiency.
        {Pron} is generally described as low-key and pragmatic in style.
        Scholars of {topic} have analysed the practices of {s} in some detail.
        The arrangements by which {s} takes decisions have been adjusted at various points.
        {s} is frequently associated with {topic} in the public mind.
        The activities of {s} seek a balance between {topic} and {topic2}.
        Judgements of {s} often depend on the commentator's own views on {topic}.
        Commentators disagree about how well {s} has responded to challenges in {topic}.
        The relative openness of {s} about its internal affairs has often been praised.
        Although its size and focus have shifted, {s} has maintained a steady interest in {topic}.
        Anyone trying to understand the place of {s} in {topic} has to reckon with a patchy record, since accounts by
        insiders, outside observers and the press do not always agree on what the {kind} set out to do.
        Those who follow developments in {topic} and {topic2} have had occasion to comment on {s}, sometimes
        approvingly and sometimes with open scepticism about its aims and methods.
        {Pron} is discussed in a wide variety of contexts.
    """),
    "person": sentences("""
        {s} is often mentioned in discussions of {topic}.
        Accounts of the career of {s} frequently touch on questions of {topic} and {topic2}.
        {Pron} took a sustained interest in {topic}. Contemporaries regarded {s} as a careful and reliable {kind}.
        The views of {s} on {topic} have been summarised in several secondary accounts.
        Biographical sketches of {s} tend to emphasise {topic} over {topic2}.
        Over the course of a varied career, {s} maintained an interest in {topic}.
        {Pron} was known for a patient, practical approach to {topic}.
        {s} has been cited as an example of the changing role of the {kind} in society.
        {Pron} regarded {topic} as inseparable from {topic2}.
        Little of what {s} said in public about {topic} was recorded in detail.
        {Pron} was sometimes critical of prevailing opinion on {topic}.
        Surviving correspondence sheds some light on the working habits of {s}.
        Assessments of {s} have varied over time.
        {Pron} valued clarity and preferred plain language to technical jargon.
        In interviews, {s} spoke about {topic} with evident enthusiasm.
        {Pron} was regarded by peers as an able and conscientious {kind}.
        The approach of {s} to {topic} combined practical experience with wide reading.
        {Pron} often emphasised the importance of {topic} for a wider public.
        Commentators have drawn attention to the influence of {topic} on the outlook of {s}.
        {s} took part in discussions about {topic} on numerous occasions.
        {Pron} had a reputation for thoroughness and for following questions through to the end.
        Profiles of {s} in the press have tended to focus on {topic}.
        The working methods of {s} have been described as meticulous.
        {Pron} was generally reluctant to speak about private matters.
        Friends recalled that {s} was modest in manner and generous with time.
        {Pron} maintained a wide correspondence with people interested in {topic}.
        Students of {topic} continue to refer to the example of {s}.
        The reputation of {s} rests largely on work in {topic}.
        {Pron} is associated in particular with debates about {topic}.
        Not all contemporaries agreed with the positions {s} took on {topic}.
        {Pron} showed an early interest in {topic}, an interest that would shape later choices.
        As a young person, {s} read widely, with a particular curiosity about {topic}.
        {Pron} was described as modest about personal achievements.
        The contribution of {s} to {topic} has been assessed in both positive and critical terms.
        Writers on {topic} have occasionally quoted remarks attributed to {s}.
        {Pron} believed that {topic} deserved more attention than it usually received.
        The career of {s} illustrates many of the pressures faced by a working {kind}.
        {Pron} combined a practical temperament with a lively curiosity about {topic2}.
        Looking back, {s} reflected publicly on {topic} and {topic2}.
        {Pron} was a frequent participant in meetings on {topic}.
        The influence of {s} is particularly visible in {topic}.
        {Pron} is regarded as a thoughtful and dedicated {kind}.
        {s} did not seek public attention, preferring to concentrate on the work itself.
        {Pron} spoke regularly about {topic} to audiences outside specialist circles.
        Later commentators have placed {s} within a broader tradition of {topic}.
        The example of {s} is sometimes invoked in debates over {topic}.
        {Pron} kept detailed notes, which later proved useful to researchers interested in {topic}.
        Recollections of {s} by acquaintances paint a picture of a reserved but generous personality.
        It has been suggested that the interest of {s} in {topic} grew out of a broader concern with {topic2}.
        {Pron} was often consulted informally on matters of {topic}.
        The ideas of {s} on {topic} were not always well received at the time.
        {Pron} disliked ceremony and was known for an informal manner.
        Biographers have found {s} a difficult subject, as much remains undocumented.
        {Pron} grew up with a strong sense of curiosity.
        {Pron} was an attentive pupil with broad interests, including {topic}.
        During student years, {s} became increasingly interested in {topic}.
        Colleagues described {s} as both rigorous and sympathetic.
        Outside working hours, {s} enjoyed reading, walking and music.
        Opinions of {s} have differed from period to period.
        {Pron} approached {topic} with the professional habits typical of a trained {kind}.
        On various occasions {s} expressed concern about the state of {topic}.
        The name of {s} turns up from time to time in writing on {topic}.
        For many readers, the life of {s} offers a window onto the development of {topic}.
        Those who knew {s} well tended to describe a person of steady habits and wide interests, someone who moved
        easily between {topic} and {topic2} and who preferred careful argument to public controversy.
        Although {s} is not always given much space in general histories of {topic}, specialists have long recognised
        the value of the work and the care that went into it.
    """),
    "work": sentences("""
        {s} has been discussed by critics in connection with {topic}. {Pron} is often cited in discussions of {topic}.
        Some reviewers praised the restraint of {s}, while others found it uneven.
        The tone of {s} has been described as reflective. Themes of {topic} and {topic2} run through {s}.
        {Pron} has been used as teaching material in courses on {topic}.
        Audiences and critics have responded to {s} in very different ways.
        The structure of {s} has been the subject of close analysis. {Pron} draws on ideas associated with {topic}.
        Some commentators read {s} as a meditation on {topic}.
        Early responses to {s} were mixed, with enthusiasm and doubt expressed in roughly equal measure.
        {s} went through a lengthy process of revision before reaching its final form.
        {s} alternates between quieter and more intense passages.
        Within the broader field of {topic}, {s} is regarded as a distinctive {kind}.
        {Pron} combines traditional elements with more experimental ones.
        Commentary on {s} often touches on {topic} and {topic2}.
        Some reviewers felt that the pacing of {s} was uneven. The language of {s} is direct and accessible.
        Certain passages of {s} are frequently quoted on their own.
        {Pron} has provoked different reactions among different audiences.
        Studies have placed {s} within the longer development of {topic}. The material in {s} is clearly organised.
        {s} shows considerable care in its handling of detail. Interpretations of {s} have changed with the times.
        The questions raised by {s} are closely bound up with {topic}.
        Critics have widely noted the attention {s} pays to {topic}.
        Aspects of the approach taken in {s} have been adopted by others working in the same field.
        The influence of {s} extends beyond {topic}. Some critics have found {s} superficial in places.
        The style of {s} is plain and unadorned.
        Commentators have offered various explanations of what {s} sets out to achieve.
        The opening of {s} is often said to set the tone for what follows.
        {Pron} addresses specialist and general audiences alike. {s} reflects sustained thinking about {topic}.
        Questions raised by {s} about {topic} remain open to discussion.
        {s} is compact in structure and moderate in scale.
        {s} is mentioned from time to time in the literature on {topic}.
        Through concrete detail, {s} brings the theme of {topic} to life.
        For audiences familiar with {topic}, much of the material in {s} will be recognisable.
        Certain choices made in {s} were controversial at the time.
        Later commentators have tended to view {s} more favourably than early reviewers did.
        {Pron} is often compared with other works of its kind.
        At the heart of {s} lies the relationship between {topic} and {topic2}.
        {s} balances moments of tension with moments of calm. Some audiences found the ending of {s} abrupt.
        Recurring images in {s} have attracted critical interest.
        Discussion of {s} has continued well beyond its initial reception.
        Many commentators see {s} as a useful point of entry into {topic}.
        The overall tone of {s} is measured and restrained.
        The picture of {topic} presented in {s} is partly realistic and partly idealised.
        Critics have rated the technical execution of {s} highly.
        {s} is carefully conceived, and its parts fit together with evident deliberation.
        {Pron} succeeds in bringing together {topic} and {topic2} in a natural way.
        Parts of {s} have prompted debate about {topic}. Scholars have devoted detailed studies to {s}.
        Rather than attempting to cover everything, {s} concentrates on a handful of central concerns.
        {s} has reached a broad and varied audience. In {s}, form and content support each other.
        The value of {s} as a point of reference in {topic} is widely acknowledged.
        {Pron} is understated in its expression of feeling.
        Controversy over {s} has centred on its treatment of {topic}.
        Commentators have noted that some of the ideas in {s} still seem pertinent today.
        Accounts of the making of {s} differ in emphasis.
        The material of {s} falls into distinct parts that follow on from each other naturally.
        Those who come to {s} with an interest in {topic} tend to notice different things from those who approach it
        through {topic2}, and much of the critical writing on the {kind} reflects that divide.
        Although {s} was not conceived as a contribution to {topic}, it has often been read that way, and the
        resulting interpretations have become part of how the {kind} is discussed.
        {Pron} rewards repeated attention, revealing details that are easy to miss on a casual acquaintance.
    """),
}

TOPICS: dict[str, tuple[str, ...]] = {
    "medical": phrases("""
        public health policy, clinical training, medical ethics, epidemiology, hospital administration,
        preventive medicine, nursing practice, surgical technique, pharmacology, diagnostic imaging,
        infectious disease control, maternal health, mental health care, rural health services,
        vaccination programmes, clinical research, patient safety, health insurance, medical education, primary care,
        chronic disease management, emergency medicine, paediatric care, public sanitation, nutrition science,
        occupational health, anatomy teaching, laboratory medicine, pharmaceutical regulation, drug development,
        palliative care, rehabilitation medicine, health statistics, medical records, community health,
        tropical medicine, immunology, cardiology, cancer research, the history of medicine, hospital architecture,
        doctor-patient communication, medical licensing, health care reform, infection control
    """),
    "history": phrases("""
        archival research, oral history, historiography, local chronicles, archaeological fieldwork,
        heritage conservation, the history of trade, military history, economic history, social history,
        urban history, agrarian history, migration history, religious history, dynastic politics, diplomatic history,
        maritime trade, colonial administration, the history of cartography, museum collections,
        monument preservation, genealogy, manuscript studies, numismatics, epigraphy, the history of education,
        the history of science, regional identity, folk traditions, public memory, commemoration, land tenure,
        guild records, administrative reform, architectural history, historical demography, the study of old maps,
        palaeography, antiquarian scholarship, material culture, court records, the history of transport, rural life,
        the textile trade, legal history
    """),
    "education": phrases("""
        curriculum design, teacher training, literacy campaigns, vocational education, higher education policy,
        school administration, educational assessment, early childhood education, adult learning, distance learning,
        pedagogy, classroom practice, academic freedom, student welfare, special education, language teaching,
        educational equity, school funding, textbook design, examination systems, lifelong learning,
        educational psychology, university governance, scholarship schemes, study abroad, educational research,
        mentoring, school libraries, civic education, science education, mathematics teaching, bilingual education,
        educational technology, teacher certification, school reform, learning outcomes, private tutoring,
        academic advising, educational standards, student assessment, the history of schooling, liberal education
    """),
    "math": phrases("""
        number theory, algebraic geometry, probability theory, mathematical statistics, numerical analysis,
        combinatorics, graph theory, differential equations, topology, mathematical logic, optimization,
        linear algebra, set theory, game theory, mathematical modelling, statistical inference, time series analysis,
        cryptography, the foundations of mathematics, geometry, functional analysis, operations research,
        actuarial science, stochastic processes, computational mathematics, mathematical physics, dynamical systems,
        category theory, harmonic analysis, data analysis, sampling methods, survey statistics,
        reasoning under uncertainty, applied mathematics, the history of mathematics, mathematics education,
        formal proof, symbolic computation, discrete mathematics, measure theory, complex analysis,
        approximation theory, information theory
    """),
    "literature": phrases("""
        narrative technique, literary criticism, poetic form, the novel as a genre, literary translation,
        oral storytelling, folk song, popular music, film criticism, stage performance, lyric poetry,
        literary modernism, realist fiction, the short story, the art of adaptation, screenwriting, cinematography,
        musical composition, songwriting, literary prizes, book history, the book trade, authorship, reader response,
        autobiography, the essay form, satire, children's literature, travel writing, little magazines,
        music criticism, recording practice, live performance, folk art, the avant-garde, genre fiction,
        dramatic structure, characterisation, literary style, rhetoric, world literature, comparative literature,
        visual storytelling
    """),
    "law": phrases("""
        constitutional law, criminal justice, civil procedure, contract law, administrative law, human rights,
        legal education, judicial review, international law, property law, family law, labour law, electoral law,
        legislative drafting, legal ethics, commercial arbitration, tax law, environmental regulation,
        corporate governance, the rule of law, court administration, legal aid, jurisprudence, legal history,
        public policy, parliamentary procedure, competition law, intellectual property, criminal procedure,
        sentencing reform, the law of evidence, dispute resolution, local government, citizenship law,
        data protection, maritime law, insurance law, banking regulation, legal philosophy, civil liberties,
        federalism, statutory interpretation
    """),
    "technology": phrases("""
        software engineering, computer networks, industrial automation, electrical engineering, materials science,
        telecommunications, data storage, cybersecurity, machine learning, civil engineering, manufacturing processes,
        systems design, programming languages, operating systems, database design, user interface design,
        embedded systems, renewable energy, transport engineering, robotics, semiconductor design, cloud computing,
        open-source software, technical standards, quality assurance, digital infrastructure, mechanical design,
        information retrieval, distributed systems, signal processing, energy efficiency, product design,
        technical documentation, computer graphics, research and development, engineering education,
        the history of computing, precision instruments, software testing, mobile computing,
        human-computer interaction, technology policy
    """),
    "finance": phrases("""
        banking regulation, monetary policy, public finance, corporate finance, capital markets, insurance markets,
        risk management, accounting standards, credit markets, financial regulation, investment management,
        international trade, foreign exchange, household savings, pension systems, fiscal policy,
        economic development, labour markets, price stability, venture funding, commercial lending, microfinance,
        financial reporting, auditing, asset valuation, the history of banking, central banking, trade finance,
        economic forecasting, industrial policy, shipping and logistics, consumer credit, tax policy, payment systems,
        financial literacy, mergers and acquisitions, property markets, commodity trading, business ethics,
        market competition, public debt
    """),
}
