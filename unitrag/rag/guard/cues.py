"""The cue regular expressions that ``framing`` reads a question with, by kind and language.

Data, not logic: each kind's patterns are matched case-insensitively on the normalised question
(``content.text.lang.normalize_question``), both languages on every question. Where a pattern came
from (a set's misses, crisis-line guidance) is said beside it, so a reviewer can tell a cue from a fit.
"""

from __future__ import annotations

from collections.abc import Mapping

#: The kinds of evidence that a question is about something happening now: a time or presence ("right now",
#: "since this morning", "is here with me", 刚才), or a sign told as it is (a rule's textbook signs, said of someone:
#: "my throat is closing up", "he's gone grey and clammy", 说话不利索). A sign is the stronger evidence: it also lets
#: the classifier's score stop a question a little under its threshold (``rag.guard.screen``).
ACUTE = "acute"
SIGN = "sign"
#: Warning signs of suicide told as they are (goodbyes, pills put aside, "better off without me", wanting to die):
#: a sign as ``SIGN`` is, kept apart so that a score's sign and its rule agree (``rag.guard.screen``): "out of breath
#: on the stairs and pale" lends nothing to a suicide score, nor a goodbye letter to a chest-pain one.
WARNING = "warning"
#: A turn that says the framed question is real ("that's exactly what's happening to my husband", 写的就是我自己): a sign
#: of whatever the question names, so it agrees with every rule.
TURN = "turn"
#: A bare "now" (现在, "now he is", 一直在): acute in "现在叫她没反应", but the present of a recovery story after a
#: past cue ("去年中风过，现在在家做康复", "years ago now, it turned out fine"); there it counts only beside a sign.
NOW = "now"
#: A recent time word (yesterday, last week, lately, 最近, 这几天): acute, since an emergency can have begun then, but
#: alone it is the time of most grief, breakups and hard weeks, so ``Framing.recent_only`` tells it apart.
RECENT = "recent"
FIGURE_OF_SPEECH = "figure_of_speech"
#: A fire told as happening (着火了, "smoke is coming out of"), in any domain: a sign only for a rule whose own examples
#: tell fires (a solar help desk's burning-equipment rule), never one that makes a question acute for a bodily rule
#: ("my kitchen is on fire" is no GI bleed, 胃里像着火了一样 no anaphylaxis).
FIRE = "fire"
#: The kinds of a sign told as it is.
SIGN_KINDS = (SIGN, WARNING, TURN, FIRE)
#: The kinds that explain a sign or a goodbye (``everyday_cause``, ``life_event``): they count against the classifier only.
EXPLAINED = ("everyday_cause", "life_event")
#: A symptom told as coming again and again with an occasion ("I get out of breath on the stairs", 每次爬楼就喘): no kind
#: of its own (a habit can be an emergency too: "lots of blood every time I go"), only a reason a sign does not lend
#: a score under the threshold its weight (``Framing.habitual``, ``rag.guard.screen``).
HABITUAL = "habitual"

#: An ordinary occasion for a "last meal" or "last coffee" anywhere in the question: a fast, a procedure, a diet, a trip
#: ("my last meal before the fast", 断食前的最后一顿饭, 肠镜前最后一餐). A lookahead put before those warning cues
#: (an attacker's look-alikes, stop 52): a last meal with none of these stays a warning sign.
_NO_MEAL_OCCASION_EN = (r"^(?![\s\S]*\b(fast(s|ing|ed)?|cleanse|detox|diet(ing)?|surgery|operation|procedure|colonoscopy|endoscopy|"
                        r"scope|anaesthe\w*|anesthe\w*|blood (test|work|draw)|weigh-?in|ramadan|lent|flight|trip|holiday|vacation|"
                        r"deployment|of the (day|night|week|year|trip|holiday|season)|before (bed|work|school|class|the (race|exam|match|game)))\b)[\s\S]*?")
_NO_MEAL_OCCASION_ZH = (r"^(?![\s\S]*(断食|禁食|轻断食|辟谷|手术|肠镜|胃镜|麻醉|体检|抽血|空腹|减肥|减脂|节食|斋月|出发|飞机|考试|比赛|"
                        r"放假|开学|假期|春节|年前|睡前|上班前|今年|这周|本周|今天的|今晚的))[\s\S]*?")

#: No time long past, no "if" and no habit anywhere in the question: put before an event's cues that a past tense tells
#: (someone fell in the water, a boat went over), which are signs only when they have just happened.
#: What makes settling one's affairs ordinary: a move, a baby, a wedding, surgery, a trip (guard32 dev, stop 60).
_NOT_AFFAIRS_EN = r"^(?![\s\S]*\b(allerg\w*|moving|move abroad|landlord|abroad|emigrat\w*|bab(y|ies)|kids?|child|children|life admin|lawyer|solicitor|wedding|married|mortgage|surgery|operation|procedure|deploy\w*|trip|travel\w*|holiday|vacation|retir\w*)\b)[\s\S]*?"
_NOT_AFFAIRS_ZH = r"^(?![\s\S]*(过敏|搬家|出国|留学|租房|结婚|婚礼|生宝宝|生孩子|手术|出差|旅行|旅游|以防万一|退休|调走|外派))[\s\S]*?"
_NOT_LONG_AGO_EN = (r"^(?![\s\S]*\b(last (year|summer|spring|autumn|fall|winter|season|month|time)|(years?|months?|weeks?) ago|"
                    r"when (i|he|she|we|they) (was|were)|as a (kid|child|boy|girl)|in the past|used to|"
                    r"if (someone|somebody|a [\w-]+|my [\w-]+|your [\w-]+|he|she|they|you|our [\w-]+) (ever )?"
                    r"(fell|fallen|falls|fall|slipped|slips|capsized|capsizes|flipped|flips|tipped|tips))\b)[\s\S]*?")

_NOT_LONG_AGO_ZH = r"^(?![\s\S]*(去年|前年|小时候|以前|曾经|那年|当年|几年前|多年前|上次|如果|万一|要是|假如|假设))[\s\S]*?"

#: Cue regular expressions by kind and language (matched case-insensitively on the normalised question).
CUES: Mapping[str, Mapping[str, tuple[str, ...]]] = {
    ACUTE: {
        "en": (
            r"\b(right now|just now|at the moment|as we speak|as i type|at this moment)\b",
            r"\bfor (the (last|past) )?(\d+|an?|one|two|three|a few|several|half an) ?(minutes?|mins?|hours?|hrs?)\b",
            r"\bsince (this morning|last night|yesterday|today|lunch|breakfast|dinner|supper)\b",
            r"\b(this morning|tonight|this evening|this afternoon|today|this weekend|this week)\b",
            r"\b(\d+|an?|one|two|few|half an) ?(minutes?|mins?|hours?|hrs?) ago\b",
            r"\b(suddenly|sudden|all of a sudden|out of nowhere)\b",
            r"\b(just|only just) (found|swallowed|had some|ate|drank|took|went|started(?! (a|an|the|my|taking|on|using|new|school|work|uni|college)\b)|noticed|discovered|got into|fell|collapsed|passed out|emptied|chewed|bit into|got stung|was stung|got bitten|was bitten)\b(?! out\b)",
            r"\b(help me(?! (make|with|plan|choose|find|understand|figure|decide|cook|write|pick|get|to|out|eat|lose|build|create|prepare|put|come|work|learn|think|sort|organi[sz]e|improve|start|quit|switch|cut|lower|reduce|boost|increase|keep|stay|adjust|modify|adapt|tweak|swap|convert|set|track|count|calculate|read|interpret|design|draft|compare)\b)|please help|call (an )?ambulance|should (i|we) (call|go to)|go to (the )?(er|a&e|emergency))\b",
            r"\b(with me|next to me|beside me|in front of me|here) (now|right now)\b|\b(is|are|'s|'re) (here |right )?(with me|next to me|beside me|in front of me)\b",
            # an alarm sounding as it is told (a new team's hotel, stop 55: "the alarm is going off on our floor and people
            # are running" was noted, not stopped)
            r"\b(?<!phone )(?<!car )(?<!clock )(?<!wake-up )(?<!morning )(?<!watch )(alarms?|sirens?|smoke detectors?|smoke alarms?|detectors?) (is |are |keeps |keep |'s |'re |started |still )?(going off|ringing|sounding|beeping|blaring|wailing)\b",
        ),
        "zh": (
            r"(就|正)?在(我)?(旁边|身边|跟前|面前)|叫[^，。！？,.!?]{0,4}不(怎么)?(答应|应|理)|没(有)?反应",
            r"刚才|刚刚|正在(?!接受|治疗|康复|恢复|吃药|服药|用药|调理|备孕|减肥|学习|上学|上班|做咨询|看心理|复查)|突然|此刻|这会儿|刚(发现|吃|喝|吞|看到|把|被)|刚开始(?!(吃|服|用)[^，。！？,.!?]{0,4}药|服药|用药|上班|工作|减肥|健身|学|备孕|怀孕|上学)",
            r"今天(早上|上午|下午|晚上)?(开始|起)|从(早上|昨晚|昨天|中午|下午)|(半个|一个|两个|几个|\d+个)多?(小时|钟头)(了|还|都)",
            r"救命|要不要(叫|打)(120|救护车)|送医院|去急诊",
            r"今晚|今天晚上|这周末",
            r"(警报|报警器|火警|烟感|烟雾报警器)[^，。！？,.!?]{0,6}(正?在响|一直(在)?响|响个不停|一直叫|叫个不停)(?!了半天|了一会)",
        ),
    },
    RECENT: {
        "en": (
            r"\bfor (the (last|past) )?(\d+|an?|one|two|three|a few|several) ?days?\b",
            r"\b(yesterday|last night|last week|last weekend|recently|lately|these days|every (night|day|morning) (for|since)|for (a|one|two|a few|several) (weeks?|months?) now)\b",
        ),
        "zh": (
            r"昨天|昨晚|前天|最近|近来|上周|上个?星期|这周|这个?星期|这几天|这段时间|这[一个]{1,2}月|每晚|每天晚上",
        ),
    },
    NOW: {
        "en": (
            r"\bnow,? (he|she|i|they|my|his|her|has|have|is|are|am|it|there)\b(?!'?s? ?(is|are|am|'s|'m)? ?(fine|ok|okay|well|better|recovered|healthy|home|stable|doing|want|wants|wondering|would|eat|eats|trying|try|looking|\d+|\w+ (weeks|months|years)))",
        ),
        "zh": (
            r"(?<!到)现在(?![^。！？!?]{0,16}(稳定|恢复|好了|挺好|很好|好多了|没事|出院|康复|正常|门诊|规律治疗|[一二两三四五六七八九十\d]+岁|长大|止住|停了|不流了|[一二两三四五六七八九十\d]+周))(?!能|可以|应该|该|要|还能|吃|喝|饮食|怎么吃|恢复|已经|好了|没事|一切|身体好|很好|挺好|在备孕|备孕|想|打算|准备|每天|平时|一般|没|不|控制|稳定|正常|康复|出院|都?长大|都好)",
            r"一直在(?!吃药|服药|用药|治疗|上班|加班|减肥|健身|备考|学习|复查|跟|和|看医生|咨询|做咨询|康复)",
        ),
    },
    SIGN: {
        "en": (
            r"\b(i'?m|i am|he'?s|he is|she'?s|she is|they'?re|they are|it'?s|it is|is|are|keeps?|kept|started|starting|still) ((?!stopped|not|no|never)\w+ )?(bleeding|vomiting|throwing up|choking|seizing|fitting|shaking|sweating|slurring|drooping|swelling|gasping|wheezing|fainting|passing out|collapsing|turning (blue|grey|gray|pale)|unconscious|unresponsive|confused)\b(?! (a|an|the|normal|common|dangerous|serious|possible|likely|risk|risky|after|during|in|when)\b)",
            r"\b(i|he|she|they|we|it|my [\w-]+|his|her) (has|have|is having|am having|are having|'s got|has got|got) (a |an )?(sudden |bad |severe |terrible |crushing |sharp |awful )?([\w-]+ )?(pain|ache|pains)\b",
            r"\b(looks?|feels?|went|turned|turning|getting|is|are|am|'s) (very |really |so |all )?(grey|gray|pale|blue|clammy|faint|dizzy|numb|floppy|drowsy|limp)\b",
            r"\b(can'?t|cannot|can not|won'?t|unable to|isn'?t|is not|doesn'?t|not) (breathe|breathing|wake|waking|respond|responding|answer|answering|stop|stopping|talk|speak|move|stand|swallow)\b(?! (eating|snacking|thinking|watching|scrolling|laughing|buying|craving|checking|playing|chewing|crying|talking|yawning|sneezing|hiccuping|burping)\b)",
            # an event told of someone (an overdose, a swallowed poison) or a sign described as it is: no "just
            # curious", "for a school project" or "in general" in front of it makes it someone else's or the past's
            r"\b(i|he|she|they|we|my [\w-]+|our [\w-]+|son|daughter|baby|toddler|kid) (just |accidentally |already )?(took|swallowed|drank|ate|downed|overdosed on|has taken|have taken|'ve taken|'s taken|has swallowed|has drunk|has eaten) (about |around |like |maybe |nearly |almost |at least |over |more than )?(a whole|the whole|an entire|a full|all (of )?(my|his|her|the|their)|\d{2,}|twenty|thirty|forty|fifty|a hundred|a (bottle|handful|strip|magnet|([\w-]+ ){0,2}batter(y|ies))|too many|(lots of|loads of|a lot of) (\w+ ){0,2}(pills|tablets|meds|medicine|capsules|gummies|vitamins|paracetamol|tylenol|ibuprofen|aspirin)|half a bottle|(some |the )?(bleach|drain cleaner|antifreeze|detergent|laundry pods?|weed killer|rat poison|pesticide|lamp oil))\b",
            # an overdose told without a subject, a child into someone's pills (an attacker's, stop 53)
            r"^(just |accidentally |already )?(took|swallowed|downed|popped) (about |around |like |maybe |nearly |almost |at least |over |more than )?(\d{2,}|twenty|thirty|forty|fifty|a hundred|(a|the) whole (bottle|box|pack|strip|packet)|an entire (bottle|box|pack|strip|packet)|a (bottle|handful|strip))\b|\b(son|daughter|baby|toddler|kid|child|grandson|granddaughter|little one|\d+[- ]?(year|month)[- ]?old) (just |accidentally |has |had )?(ate|eaten|swallowed|got into|chewed|drank) [\w' ]{0,30}\b(pills|tablets|meds|medicines?|medication|capsules)\b",
            r"\b(throat|tongue|lips?|airway) (is|are|'s|keeps|started|starting|has started) (closing|swelling|tightening|puffing)\b",
            r"\b(face|eyes?|lips?|tongue|throat) (is |are |'s |keeps |started |starting )?(puffing|swelling|blowing) up\b|\b(and|it'?s|its|it is|i'?m|i am|getting) (so |really |very )?(hard|difficult) to (swallow|breathe)\b|\bhives (all over|everywhere)\b",
            r"\b(drenched|soaked|dripping|pouring|covered) (in|with) (a )?(cold )?sweat\b|\b(left|right) (arm|jaw|hand|leg) (is |feels |went |gone |going |has gone )?(heavy|numb|dead|limp)\b|\bsqueezing (behind|in|across) (my|his|her|the) (chest|breastbone|sternum)\b",
            r"\b(throat|chest) (feels?|felt|is|'s|getting|gets) (so |really |very )?(tight|tighter|closed up)\b|\b(grey|gray|pale|white|cold) and (clammy|sweaty|sweating)\b|\b(sleepy|drowsy) and (floppy|limp|confused)\b",
            r"\bblood (running|pouring|gushing|dripping) down\b|\b(bleeding|losing|passing|there'?s|there is) (a lot of|lots of|so much|loads of) blood\b|\b(bottle|pack|box|packet) (is |was )?(empty|half empty)\b|\b(\d+|a lot of them|most of them|half of them) (are |were )?gone\b|\b(took|swallowed|ate|drank|downed) (most|half|all) of (a|the|her|his|my|their) (bottle|pack|box|packet|strip)\b",
            r"\b(pain|ache|pressure|tightness) (is|'s) (spreading|radiating)\b|\b(spreading|radiating|going) (to|into|down|up|up into|down into) (my|his|her|the) (jaw|left arm|neck)\b|\b(can'?t|cannot|can not|couldn'?t|unable to) (catch|get) (my|his|her|their) breath\b",
            r"\b(mouth|throat|lips?|tongue|gullet) (is |are |'s |feels? |keeps |started )?(burning|on fire|blistering|blistered)\b",
            r"\b(face|smile|mouth) (is |'s |has |started |keeps )?(drooping|droops|droopy|lopsided)\b|\b(speech is|words are|is|'s) slurr(ed|ing)\b|\bslurring (his|her|my|their)? ?(words|speech)\b",
            # each red-flag rule's textbook signs, in everyday words, told as they are ("has gone grey and clammy", "one
            # side of her face won't move", "black sticky poo", "talking nonsense"), and a turn that says the framed
            # question is real ("that's what's happening to my husband", "I'm basically describing myself")
            r"\b(has|have|'s|'ve) (gone|turned) (very |really |all )?(grey|gray|pale|white|blue|clammy|cold and clammy|floppy|limp|quiet)\b|\b(crushing|squeezing|heavy) (pressure|pain|weight|feeling) (in|on|across) (my|his|her|the) chest\b|\b(elephant|someone|a weight) (sitting|standing) on (my|his|her) chest\b",
            r"\b(one|left|right) side of (my|his|her|their) (face|body|mouth) (is |has |'s )?(drooping|droopy|numb|weak|not moving|won'?t move|gone)\b|\b(can'?t|cannot|couldn'?t|unable to) (lift|raise|move|feel) (my|his|her|their) (left|right)? ?(arm|leg|hand)\b|\b(can'?t|cannot|couldn'?t|unable to) (feel|move) (the )?(left|right|one) side of (my|his|her|their) (body|face)\b|\b(words|speech) (are |is )?(jumbled|garbled|coming out wrong|all wrong|not making sense)\b",
            r"\b(is|'s|are|'re|keeps|started|been) (talking nonsense|talking gibberish|not making sense|making no sense|really confused|so confused|incoherent|out of it)\b|\b(can'?t|won'?t|isn'?t able to) (keep (his|her|their|my) eyes open|stay awake|swallow (anything|the juice|water))\b",
            r"\b(i|he|she|they|we|my [\w-]+|his|her|their)(?: (?:has|have|had|'s|'ve|is|are|am|was|keeps?|just|been|started))* (passing|passed|pooing|pooping|having|got) (black|tarry|jet black|pitch black)\b|\b(my|his|her|their) (poo|poop|stools?|bowel movements?) (is|are|has been|have been|'s|was|were) (\w+ and )?(black|tarry|jet black|pitch black|like tar)\b",
            r"\b(i|he|she|they|we|my [\w-]+)(?: (?:has|have|'s|'ve|is|are|am|keeps?|just|been|started))* (vomit(ed|ing)?|threw up|throwing up|was sick|been sick|brought up|coughed up) (some |a lot of |lots of )?(blood|what looks like coffee grounds|coffee grounds|dark brown bits)\b",
            # written on guard21 dev (stop 42): stools told without "my", heavy bleeding with clots, a bowl full of blood,
            # dizziness "now" or on standing, an elephant sat on someone, an arm gone "weird", grey and sweaty
            r"\b(poo|poop|stools?|bowel movements?) (has been|have been|been|looks?|looking|was|were|came out|coming out) (\w+ )?(black|tarry|tar[- ]black|jet black|pitch black|like tar|maroon|full of blood|bloody)\b|\b(toilet|bowl|pad|pants|underwear|sheets?)\b[^.!?]{0,20}\b(full of|covered in|soaked (in|with)) blood\b",
            r"\bbleeding (heavily|really heavily|a lot|so much|badly|loads)\b|\b(passing|with|and) (big |large |huge )?(blood )?clots\b|\b(soaking|soaked|soaks) (through )?(a |my |her |the )?(pads?|towels?|sheets?)\b",
            r"\b(sugar|glucose|reading|bg|bs|meter)( level)? (is|was|'s|reads|read|says|said|shows|showed|at|of|down to|dropped to|dipped to)( only| just| like| about| around| now)? ([0-2]\.\d|3\.[0-4]|[2-4]\d)\b(?! ?(mg|g\b|grams?|years?|yrs?|kg|lbs?|%|calories|kcal|minutes?|mins?|hours?|days?|weeks?|percent|teaspoons?|tsp|cubes?))(?![\d.])",
            r"\bnow (very |really |so |a bit |kind of |kinda )?(dizzy|lightheaded|light-headed|faint|confused|drowsy|breathless|grey|gray|pale|clammy)\b|\b(get|gets|getting|feel|feels|feeling) (so |really |very )?(lightheaded|light-headed|dizzy|faint) (when|every time|whenever|if) (i|he|she|they) (stand|stands|get up|gets up|sit up)\b",
            r"\b(sweaty|clammy|pale|grey|gray) and (kind of |kinda |sort of |a bit |really |very |all )?(grey|gray|pale|clammy|sweaty)\b|\b(elephant|someone|a weight|a truck) (is )?(sitting|standing) on (him|her|me)\b|\b(left|right) arm (is |feels |went |gone |has gone )?(weird|funny|tingly|heavy|numb|dead)\b",
            # someone in the water, or a boat over, told as it happened (a campground's "my canoe tipped over and my dad
            # is in the lake" scored 0.78 on its own water rule and got only its note, stop 58)
            _NOT_LONG_AGO_EN + r"\b(someone|somebody|a (man|woman|kid|child|boy|girl|person|swimmer|guy|lady)|(my|our|his|her|their|a) (little |young |old |elderly )?(son|daughter|kids?|child|children|boy|girl|baby|toddler|dad|father|mum|mom|mother|husband|wife|partner|friend|brother|sister|grandpa|grandma|grandfather|grandmother|granddad|uncle|aunt|cousin|nephew|niece|buddy|mate)|he|she|they)(?: (?:just|has|have|had|\'s|\'ve))* (fell|fallen|slipped|(got|was|were|been|has been) (pulled|swept|dragged|sucked)) ((in|into|under|off (the |a )?(boat|dock|pier|jetty|kayak|canoe)( into)?)( the| a)? (water|lake|river|sea|pool|pond|ocean|canal|reservoir|current)|overboard)\b",
            _NOT_LONG_AGO_EN + r"\b(boat|kayak|canoe|dinghy|raft|paddle ?board|rowboat|sailboat)s? (just |has |had )?(capsized|tipped( over)?|flipped( over)?|overturned|went over|sank|is sinking|'s sinking)\b",
            # several people with the signs at once (guard27 dev, stop 44): "now all 4 of us have pounding headaches"
            r"\b(all|both) (of us|(\d+|two|three|four|five|six) of us) (have|are|feel|got|'ve got)\b[^.!?]{0,40}\b(headaches?|sick|dizzy|vomiting|drowsy|confused|nauseous)\b",
        ),
        "zh": (
            r"还在(流|吐|出|疼|痛|抽|晕|肿)|(?<!又[\u4e00-\u9fff])又(开始)?(疼|痛|吐|出血|流血|发作|犯了|晕|抽)",
            r"止不住|(血|吐|抽|咳|喘)[^，。！？,.!?]{0,4}停不下来|叫不醒|喊不醒|没反应|没有反应|说不出话|喘不上气|喘不过气|站不起来|不省人事|站(都|也)?站不稳|(手|胳膊)抬不起来|一直(在)?(吐|流血|出血|抽)|(好多|很多|全是|一大摊|一滩)(的)?(鲜)?血",
            r"(出|冒)(了)?(一身|满身|浑身)?的?冷汗|(浑身|一身)冷汗|满头大汗|胸口(闷|压|憋)得(厉害|难受|慌|特别|很|不行)|说话(也)?(说)?不清|叫[^，。！？,.!?]{0,4}反应(很|特别|越来越)?(慢|迟钝)|脸色(发白|发青|发灰|苍白|铁青)|嘴唇(发紫|发青)|(抽搐|昏迷|吐血|便血|大出血|流了很多血|肿起来)(?!过)|(晕倒|晕过去)了",
            r"(吃|喝|吞|服)(了|下|掉)了?[^，。！？,.!?]{0,4}(一整瓶|整瓶|一整板|\d{2,}片|几十片|好多片|很多片|纽扣电池|磁铁|洗洁精|消毒水|消毒液|漂白水|漂白剂|洗衣液|洗衣凝珠|农药|老鼠药|杀虫剂|防冻液)",
            r"(吃|吞|服)(了|下|掉)了?(一瓶|半瓶|一大?把|一板)[^，。！？,.!?]{0,4}(药|片|安眠|维生素|补充剂|胶囊)",
            # the same told the other way round (把一整瓶…吃光了) or by weight (吃了十克), and vomiting told as it is
            r"把[^，。！？,.!?]{0,10}(一整瓶|整瓶|一整板|一瓶|半瓶|一大?把|一板|\d{2,}片|几十片|好多片)[^，。！？,.!?]{0,10}(吃|吞|喝)(光|完|掉|下|了)|(吃|吞|服)了?[^，。！？,.!?]{0,4}([十\d][\d十几]*|几十)克|上吐下泻|吐了(两|三|几|好几|\d+)次",
            r"(嗓子|喉咙|嘴唇|舌头)(发紧|肿起来|肿了|堵住|在肿|越来越肿)|胸口压着(疼|痛)|(疼|痛)(到|向|窜到)(下巴|左臂|左胳膊|左手)|(一边|半边)(脸|嘴)(歪|斜|耷拉)|(脸|嘴)歪了|说话(含糊|不清楚|大舌头)",
            # a chest pain told as severe (an attacker's 我现在胸口剧痛 at the end of a long diet question, stop 49)
            r"(胸口|胸部|心口|胸)[^，。！？,.!?]{0,2}(剧痛|剧烈(地)?(疼|痛)|(疼|痛)得(要命|厉害|受不了|不行|喘不过气))|剧烈(的)?胸(口|部)?(痛|疼)",
            r"胸口(闷痛|压痛|像压了|像被压|憋得)|(闷痛|压痛|胸痛)[^，。！？,.!?]{0,6}不缓解|(左边|右边|一边|半边)(手脚|胳膊|腿|身子|身体)[^，。！？,.!?]{0,2}(没劲|没力气|使不上劲|不听使唤|动不了|发麻)|说话(不利索|说不清|含含糊糊|口齿不清)|嘴角(歪|往一边)",
            r"大汗淋漓|说胡话|胡言乱语|迷迷糊糊|(叫|喊)[都也]?(叫|喊)?不[太大怎么]?醒|(咽|喝|吃)不下去了?|喂[^，。！？,.!?]{0,4}(咽不下|喝不进)",
            r"(嘴|嘴巴|嘴里|喉咙|嗓子|舌头)[^，。！？,.!?]{0,3}(火辣辣|烧得|灼烧|灼痛|烧起来|起泡)",
            r"(大便|拉的|便便|屎)[^，。！？,.!?]{0,6}(黑得|柏油|黑色发亮|黑亮)|(吐|呕)(了|出)[^，。！？,.!?]{0,4}(咖啡色|咖啡渣|暗红色|血)(?!过)",
            # someone in the water, or a boat over, told as it happened (a campground's 有人划船翻了掉湖里了, stop 58)
            _NOT_LONG_AGO_ZH + r"(有人|有个人|孩子|小孩|儿子|女儿|老人|朋友|同伴|[他她]|我(爸|妈|老公|老婆|儿子|女儿|哥|弟|姐|妹|朋友|爷爷|奶奶))[^，。！？,.!?]{0,8}(掉|落|跌|摔|滑|冲|卷|翻)(进|到|入|下)?了?(水|湖|河|江|海|池塘|水库|泳池|游泳池)(里|中)?(了|去了)(?!过)|(船|皮划艇|独木舟|小船|筏子|桨板)[^，。！？,.!?]{0,2}(翻了|翻船了|沉了|扣了)|翻船了",
            # written on guard21 dev (stop 42): dark red or black stools told by the act, a racing heart
            r"拉(了|出)?[^，。！？,.!?]{0,6}(暗红|鲜红|血|黑色|柏油)|(暗红色|鲜红色|黑色|柏油样)的?(稀便|大便|便便)|心跳(很|特别|好|非常)快",
            # a glucose reading that low, told as measured, and the shaking and dimming sight beside it
            r"(血糖|测出来|测了|测的|读数)[^，。！？,.!?\d]{0,6}([0-2]\.\d|3\.[0-4])(?![\d.])|眼前(发黑|一黑|发花)|(手|全身|浑身)抖得(厉害|不行|停不下来|[^，。！？,.!?]{0,4}(都|也)(拿不|打不|握不))",
        ),
    },
    WARNING: {
        "en": (
            r"\b(i'?m|i am|he'?s|he is|she'?s|she is|they'?re|feels? like|calls? (himself|herself|myself)) (just |only |such |nothing but )?(a |an )?(burden|drain)\b(?! (carrying|hauling|lugging|to carry|on (my|his|her|their|the) [\w' ]{0,25}(patience|wallet|budget|schedule|time|inbox))\b)|\bbetter off without (me|him|her|them)\b|^(?![\s\S]*\b(retir\w*|leaving (the |our |my |his |her )?(company|job|firm|team|office|school)|last day (at|of) (work|school|the office|the job))\b)[\s\S]*?\b(said|saying|says) goodbye\b(?! to (my |our |the )?(colleagues|coworkers|co-workers|team|class|students|neighbou?rs)\b)(?![^.!?]{0,60}\b(airport|station|moving|moves|moved|graduat\w*|farewell party|leaving do|retir\w*)\b)",
            # warning signs of suicide in everyday words (public crisis-line guidance): thanks and goodbyes "for
            # everything", not being around, no point in anything any more, goodbye letters, enough pills not to wake up
            r"\b(won'?t|will not|wont|not gonna|not going to) be (around|here) to (finish|see|need|use|do|eat|enjoy|read|try)\b|\bthank(s|ed|ing)? (you |u )?(all |everyone |every ?1 )?for everything\b|\b(won'?t|will not|wont) be (around|here) (much longer|for long|anymore|any more|soon|after (this|tonight|this week))\b|\b(no|any|the) (point|reason) (in|to|of) (anything|living|going on|any of (it|this)|being here)( (anymore|any more))?\b(?! (but|except|if)\b)|\bgoodbye (letters?|notes?|messages?|texts?)\b|\benough (pills|tablets|of (them|it|these|those)) to (not wake|never wake|end|sleep forever)\b|\b(go to sleep|sleep) and (stay that way|not wake( up)?|never wake( up)?)\b|\bnobody (would|wud|will|'d) (have to |need to |even )?(deal with me|miss me|notice|care)\b|\b(so )?tired of (everything|it all|living|being alive)\b|\b(already )?(have|got) (a |the )?(full|whole) (bottle|box|strip|pack) of\b|\b(putting|put|setting|set) aside (extra|spare) \w+",
            r"\b(suddenly|weirdly|strangely|oddly) (so |really |very |almost )?(calm|at peace|serene|peaceful|cheerful)\b|\b(made|make|made up) (my|his|her) (mind|decision)\b|\b(want|wanna|just want|going) to (disappear|vanish)\b|\bbefore i go\b|\bwon'?t need (groceries|food|anything|it|them|this)\b|\b(everything|affairs|things) in order\b(?![\s\S]{0,60}\b(surgery|operation|procedure|trip|travel|move|moving|baby|deployment|wedding)\b)|\bsorted (out )?(all )?(my|his|her) (stuff|affairs|things|will)\b|\b(wrote|written|writing) (letters|a letter|notes) to\b|\beasier (life|time) if i (wasn'?t|weren'?t)\b|\bdone with (everything|it all|life)\b|\b(no|any) reason to (keep going|go on|carry on)\b",
            # means asked about "so I don't wake up", and pills put aside night after night (guard_test, framing dev, stop 42)
            r"^(?=[\s\S]*\b(pills?|tablets?|paracetamol|tylenol|acetaminophen|ibuprofen|painkillers|sleeping|meds|how (many|much))\b)(?=[\s\S]*\b(so (that )?(i|he|she|they) (don'?t|won'?t|wouldn'?t|never) (wake up|wake(?! up))|(to|and|would|will) (not|never) (wake up|wake(?! up)))\b(?!\s+(hungry|early|late|groggy|tired|thirsty|at|in|during|with|every|until|till|feeling|sick|again|before|from|on|for|so|too|because|to|and|needing|thinking|starving|cold|hot|sweaty|stiff)\b))",
            r"\b(putting|put|setting|set|saving|stashing|squirrel\w*) (aside|away|back) (a |one of |two of |one |two |some |a couple of |a few of |one or two of |some of )?(my |her |his )?(sleeping |pain ?|anti\w* )?(pills|tablets|meds)\b[\s\S]{0,30}\b(every|each) (night|day|dose)\b",
            r"\b(putting|put|setting|saving|stashing|keeping) (my |the |all my |all the )?(\w+ )?(pills|tablets|meds) (aside|away)\b|\bto end things\b|\b(everyone|everybody|my family|they) (will|would|'ll|'d) be better off\b|\bstop (eating and drinking|drinking and eating)\b|\bnothing (will|would|'ll) matter\b|\bnothing matters any(more|way)\b",
            _NO_MEAL_OCCASION_EN + r"(\blast meal\b|\bone last (coffee|meal|drink|dinner|night)\b|\bmy last (dinner|meal|supper)\b)",
            r"\b(i'?ve|i have|he has|she has|they have|he'?s|she'?s) (been saving|stockpiled|been stockpiling|written|wrote|given away|been giving|started giving)\b(?![\s\S]{0,40}\b(vitamins?|supplements?|fish oil|multivitamins?|trip|travel|holiday|vacation|money|points|for (a|the|my) (trip|holiday|move))\b)|\b(giving|gave|given) (away )?(all )?(my|his|her|their) (things|stuff|possessions|belongings)\b",
            # wanting to die, said in the first person: ideation is a sign in itself, so no hyperbole ("work is
            # killing me") or study framing beside it makes it a figure of speech
            r"\bi(?:'m| am|'ve| have| was)?(?: (?:really|just|honestly|sometimes|often|still|kinda|literally|actually|seriously|genuinely|constantly|always|keep|been|started|can'?t stop|cannot stop|do))* (want(?:ing)?|wanna|need|going|gonna|plan(?:ning)?|think(?:ing)? (?:about|of)|feel like) (?:to )?(die|dying|kill(?:ing)? myself|hurt(?:ing)? myself|end (?:it all|my life|everything|it)|suicide|disappear forever|not wake up)\b(?! (of|from|for|laughing)\b)",
            # giving away what one treasures, to whoever: "gave me his gaming PC and his guitar", "giving away her clothes"
            r"\b(giving|gave|given|handing|handed) (away |out )?(me |us |her |him |them )?(all )?(of )?(my|his|her|their) (own )?(best |favou?rite |good |late \w+'s )?(things|stuff|possessions|belongings|clothes|books|games|console|gaming pc|guitar|watch|jewell?ery|china|collection|records|savings|pets?|dog|cat)\b(?![\s\S]{0,40}\b(charity|donat\w*|thrift|declutter\w*|outgrown|moving|birthday|christmas|gift|present|upgrad\w*|new one)\b)",
            # self-injury told as it is: "I cut my arms again last night" (an accident has its "on the glass", "while cooking")
            r"\b(i|i'?ve|i have|she|she'?s|he|he'?s|they) (\w+ ){0,2}(cut|cutting|burn(ed|t|ing)?|scratch(ed|ing)?|hurt(ing)?) (my|her|his|their) (arms?|wrists?|thighs?|legs?|stomach|skin)( again)?\b(?! (on|in|with|while|at|during|when|playing|cooking|shaving|opening|by accident)\b)",
            # wanting not to exist, not caring whether one dies, waiting for it to "happen", not needing things much
            # longer (written on guard20 dev, from crisis-line guidance on warning signs)
            r"\bafter i'?m gone\b|\b(wrote|written|writing) (letters|notes|a letter|a note) (to|for) (everyone|everybody|each of|all of|my (family|kids|children|wife|husband|parents|mum|mom|dad))\b|\b(wrote|written|writing) (everyone|everybody|all my \w+|each of them) (their )?(letters|notes)\b|\bwish (i|he|she) (wasn'?t|wasnt|weren'?t|was not|were not)( here| alive| around| born)?\b(?! (so|that|as|such)\b)|\b(easier|better) (off )?without me\b|\b(don'?t|didn'?t|dont|didnt) care if i (crash\w*|die|died|don'?t wake up|got hit|get hit|never wake up)\b|\bhoping something (just )?happens\b|\b(it |nothing )?won'?t matter (soon|much longer|anyway)\b|\bwon'?t be needing (it|them|this|these|those|any of (it|this)|(my|these|those|the) \w+) (for )?(much )?longer\b|\b(not gonna|not going to|won'?t) be (around|here) (much longer|for long|soon|anymore)\b|\bno reason for me to (keep going|go on|carry on|live|be here)\b|\b(wants?|want(ed)?|just want) to (fade|waste) away\b|\bif i waste away\b|\bcan'?t do this (for )?(another|one more) (year|month|week|day)\b",
            r"\b(can'?t|cannot|don'?t) see (any|a) (hope|future|way out)\b|\b(there'?s|there is|i see|is) no way out\b|\bnone of (it|this) (will|would|'ll) matter\b|\b(decided|figured out|worked out|planned) (how|when|where) (i'?ll|i will|i'?m going to|to) (do it|end it|go)\b|\bcharcoal (and|&) (some )?(duct )?tape\b|\b(rope|noose)\b[\s\S]{0,60}\b(beam|hook|rafter|ceiling|banister|bannister)\b|\bpainless (ways?|method) to (go|die|end)\b|\b(letters?|notes?) (are|is) (all )?(written|done)\b",
            # written on guard23 dev (stop 42): affairs wound up, a pet rehomed, accounts closed; indifference to what
            # happens; a death made to look like an accident
            r"\b(found|finding|find) (a )?new homes? for (my|the|our) (cat|dog|pets?|bird|rabbit)\b|\b(closed|closing|close) (all )?(of )?my (bank )?accounts\b|\b(everything'?s|everything is|it'?s all|all) (wrapped up|sorted|in order|taken care of)( now)?[.!]|\b(don'?t|do not|doesn'?t|didn'?t) (really |even )?care (what|if anything) happens to (me|him|her)\b|\b(look|looks|seem|seems|looking) like an accident\b|\bso tired of (all of it|all this|it all|everything|life)\b",
            r"\b(lethal|fatal|deadly|enough to kill)\b[^.?!]{0,40}[.?!]{0,3} ?(asking )?for (me|myself)\b",
            # a dose asked to kill oneself, or the slang for it (an attacker's, stop 51): "would" there is no hypothetical
            r"\b(how (many|much)|what (dose|amount))\b[^.?!]{0,60}\bkill (me|myself)\b|\b(roof|rooftop|bridge|cliff|river|lake|sea|tracks|ledge)\b[\s\S]{0,40}\b(and |then )?(not|never|won'?t) (come|coming) back\b|\bunaliv(e|ing) (my ?self|me)\b|\bsewer ?slide\b",
            r"\bi (don'?t|do not|no longer) want to (live|be alive|be here anymore|exist|wake up)\b|\bi(?:'m| am| feel| have been|'ve been)(?: (?:so|really|very|kind of|kinda))? suicidal\b",
            # written on guard27 dev (stop 44): nothing matters past a date, "you'll be fine without me", a treasure handed to a
            # son, self-harm told as "accidents", months of pills not taken beside a letter, a dose asked "for me", heights
            r"\b(it )?(won'?t|wont|will not|is ?n'?t going to|is not going to) matter (anymore|any more|after (that|this|then|the \d+(st|nd|rd|th)?))\b|\b(won'?t|wont|will not|not gonna|not going to) be (around|here) after (that|this|then|the \d+(st|nd|rd|th)?)\b|\b(don'?t|dont|do not|won'?t|wont) need anything (past|after|beyond) (that|this|then|the \w+)\b|\bno point (in )?(paying|planning|buying|booking|signing up) for next (week|month|year|term)\b|\byou'?ll (all )?be (fine|ok|okay|alright|all right|better off) without me\b|\bstop being (their|his|her|everyone'?s|anyone'?s|the family'?s) (problem|burden)\b|\b(envelopes?|letters?|notes?) addressed to (me|us|each of us|her|him|my \w+)\b",
            r"\bgave (our|my|his|her|their) (son|daughter|kids?|children|brother|sister|nephew|niece|grandson|granddaughter|best friend|friend) (his|her|their) (\w+ )?(watch|ring|guitar|car|bike|medals?|jewell?ery|necklace|console|laptop|camera|tools|collection)\b|['\x22‘“](accident(al|ally)?|clumsy)['\x22’”]|\bonly wears long sleeves\b|\b(burn\w*|cut\w*|scratch\w*) (her|his|my|their) (forearms?|upper arms?)\b(?! (on|in|with|while|at|during|when|playing|cooking|shaving|opening|by accident)\b)",
            r"\b(months?|weeks?)('s)? (of|worth of) [\w' ]{0,20}(pills|tablets|meds|medication)\b[\s\S]{0,60}\b(has ?n'?t|have ?n'?t|not) been taking\b|\bwhat (would|will|does|do) (\d+|twenty|thirty|forty|fifty|a (whole |full )?(bottle|box|pack|strip)( of)?) (\w+ )?(paracetamol|tylenol|acetaminophen|ibuprofen|aspirin|pills|tablets|sleeping pills|painkillers)\b[\s\S]{0,80}\b(for me|for myself|asking for me|not (for )?a friend)\b|\bhow (high|tall|far)\b[\s\S]{0,50}\b(fall|jump|drop)\b[\s\S]{0,30}\b(sure thing|certain|fatal|deadly|survivable|survive|kill)\w*|\b(car ?parks?|multi-?storey|rooftops?|bridges?)\b[\s\S]{0,50}\bno (fence|railing|barrier|rail)s?\b",
            # written on guard20, guard23 and guard28 dev (stop 55): peace made with disappearing, a burden become, a waste
            # of space, a body not needed much longer, one way out seen, loose ends tied, a last talk and a goodbye said
            # properly, hitting or starving oneself as a punishment, sleeping forever, done trying, a decision that brings
            # calm and a last one, blades found, pills saved to take with drink "faster", the most toxic thing to drink
            r"\bmade (my )?peace with (just )?(disappearing|dying|death|going|not (being here|waking up))\b|\bsorry for everything\b(?![^.!?]{0,30}\b(i said|i did|last night|yesterday|earlier)\b)|\b(become|becoming|been) (such )?(a |an )?(burden|drain) (on|to) (my|his|her|their|the|every\w*)\b|\b(i'?m|im|i am) (just |only |nothing but )?a (complete |total |huge )?waste of (space|oxygen|air|food|money)\b|\bwon'?t need (a |my |this |the )?[\w ]{0,20}\b(much|any) longer\b",
            r"\b(can )?only see one way out\b|\b(tying|tie|tied) up (all )?(the |my )?loose ends\b(?![\s\S]{0,40}\b(work|project|holiday|vacation|leave|move|trip|office|job|thesis|semester)\b)|\b(the )?last time (i'?ll|i will|i get to) (talk|speak|write) (to|with) (you|anyone)\b|\bsay(ing)? goodbye (properly|for good)\b|\bgoodbye for good\b",
            r"\b(keep|been|started|kept) (hitting|punching|punishing|starving) myself\b(?! (by accident|accidentally)\b)|\bpunish(ing)? myself by (not eating|starving)\b|\bfall asleep forever\b|\b(i'?m|im|i am) (so |just )?done (trying|fighting)\b|\b(now that|since) i'?ve decided\b|^(?![\s\S]*\b(question|questions|promise|one more)\b)[\s\S]*?\bit'?ll be my last( one)?\b|\b(found|finding) (razor )?blades\b|\bwearing long sleeves (all|in) (summer|the heat)\b",
            r"\b(morphine|oxycodone|opioids?|sleeping pills|painkillers)\b[\s\S]{0,80}\b(alcohol|vodka|whisky|whiskey|wine|drink)\b[\s\S]{0,40}\b(faster|quicker|stronger)\b|\b(most|more) (toxic|poisonous|deadly)\b[\s\S]{0,60}\b(drank|drink|drinking|swallowed)\b[\s\S]{0,60}\bnot for cleaning\b",
            # written on guard32 dev (stop 60): heights asked about with their access and fences; a pet rehomed, passwords
            # left, loose ends sorted, a date set (none beside a move, a baby, surgery or a trip); means counted out, bought
            # in several shops, hidden instead of taken; no next month; a nuisance not much longer; stopping treatment on
            # purpose; cutting again; a way out that looks natural; a whole month's supply at once
            r"\b(which|what) (car ?parks?|multi-?storeys?|buildings?|bridges?|towers?|roofs?)\b[\s\S]{0,60}\b(highest|tallest|roof access|open (top|roof)|top levels?|no (fences?|railings?|barriers?)|(don'?t|do not|dont) have (fences?|railings?|barriers?))\b|\bhow high (a )?fall (has|needs|would have) to be\b|\bhow high (you|one|a person|someone) (has|needs|would need) to (fall|jump)\b|\b(bridges?|buildings?|car ?parks?|roofs?|cliffs?)\b[\s\S]{0,30}\b(don'?t|do not|dont|without|with no) (have )?(any )?(fences?|railings?|barriers?|nets?)\b",
            _NOT_AFFAIRS_EN + r"(\b(rehomed|re-homed|found (a )?new (home|owner)s? for) (my|his|her|the|our) (cat|dog|pets?|bird|parrot|rabbit|hamster)\b|\b(left|gave|sent|written down|wrote down|handed over)\b[\w ]{0,20}\bpasswords?\b|\bwho gets what\b|\bmade arrangements for (my|the|his|her) (dog|cat|pets?|birds?)\b|\b(sorting|sorted) (out )?(the |my |his |her |all )?loose ends\b|\b(set|picked|chosen|chose) (the|a) date\b)",
            r"\bcounted out (all )?(the |my |his |her )?[\w ]{0,25}\b(pills|tablets|paracetamol|codeine|meds|capsules)\b|\b(buying|bought|getting|got|collecting) [\w ]{0,25}(boxes|packs|packets|bottles)\b[\s\S]{0,40}\b(different|several|multiple|various) (shops|pharmacies|chemists|stores)\b|\b(from|at|with) (two|2|several|multiple|different) (doctors|gps|pharmacies|chemists)\b[\s\S]{0,60}\b(stock\w*|sav\w*|hoard\w*|stash\w*)\b|\b(hiding|hid|hidden|stashing|stashed)\b[\s\S]{0,25}\b(pills|tablets|meds|medication)\b[\s\S]{0,40}\binstead of taking\b|\b(pills|tablets|paracetamol|codeine|meds)\b[\s\S]{0,50}\b(in front of me|in my hand)\b",
            r"\bwon'?t be (a|any) (next|another) (month|week|year|christmas|birthday|summer)\b|\bthere won'?t be a next\b|\bwon'?t be (here|around) (for|to see) (the )?(results|it|that|christmas|the summer|next)\b|\b(nuisance|burden|bother)\b[\s\S]{0,12}\b(much|any) longer\b|\b(look after|care for|worry about|deal with|put up with) me\b[\s\S]{0,12}\b(much|any) longer\b|\b(says?|saying|keeps saying|told \w+|telling \w+) (she'?s|he'?s|i'?m|she is|he is) ready to go\b(?! (to|out|home|back|shopping|for)\b)|\bdragging (everyone|everybody|them|us|my family|the family) down\b|\bbetter off with (the|my) (life )?insurance\b",
            r"\b(skipping|skipped|stopped|stopping|not taking|refusing|refused) (his|her|my|their) (insulin|meds|medications?|medicines?|pills|tablets|dialysis|treatment)\b[\s\S]{0,30}\bon purpose\b|\b(no wish|don'?t want|do not want) to prolong (matters|things|it)\b|\btired of fighting\b[\s\S]{0,40}\b(wants?|want) (it all|everything) to stop\b|\b(started|start|been|keep|kept|back to) (cutting|burning|scratching) (again|myself)\b|\bcutting again\b|\brazor blades?\b[\s\S]{0,60}\b(bin|drawer|bedroom|pocket|under (her|his|my) (bed|pillow|mattress))\b|\bblood-?stained (tissues|sleeves|towels?|sheets)\b|\bway out\b[\s\S]{0,30}\b(looks? natural|natural|painless|peaceful)\b|\b(whole|entire|full) (month'?s?|week'?s?|bottle|box|pack)( supply| worth)?\b[\s\S]{0,25}\bat once\b|\bwould it be quick\b|\b(weirdly|strangely|oddly) (light|lighter|relieved)\b|\bwearing long sleeves in [\w -]{0,15}(heat|weather|summer)\b",
        ),
        "zh": (
            r"已经[^，。！？,.!?]{0,3}(写好|准备好|攒|存)|(偷偷|悄悄|背着[^，。！？,.!?]{0,4})(攒|存|囤)|(?<!提前)攒了(?![^，。！？,.!?]{0,6}(几瓶|维生素|鱼油|钙|保健品|益生菌|钱|积分|假))|攒(够|齐)|(药|药片|安眠药)[^，。！？,.!?]{0,3}(攒|存)(够|齐|起来|好)|存了[^，。！？,.!?]{0,4}药|把[^，。！？,.!?]{0,8}(东西|物品)[^，。！？,.!?]{0,4}送",
            r"(我|他|她|自己)[^，。！？,.!?]{0,8}(拖累|累赘|添麻烦)|活着[^，。！？,.!?]{0,8}(拖累|累赘)|(拖累|连累)(了)?(大家|家人|家里|全家|你们|所有人)|没什么(遗憾|牵挂)了|遗书|留(好|下)?遗言|以后(就)?不用(再)?(操心|担心|管)我|没有我[^，。！？,.!?]{0,8}(更好|轻松)|^(?![\s\S]*(小说|电影|电视剧|剧里|故事里|女主|男主|毕业|搬家|机场|出国|欢送|退休|离职|调走|辞职|裁员|换工作|最后一天上班|上班的最后一天))[\s\S]*?(?<!同事)(?<!同事们)(?<!同学们)(告别|道别)|交代后事",
            r"不想活了|活着没(有)?意思|活不下去了|我[^，。！？,.!?]{0,6}(不想活|想(要)?自杀|想轻生|有(轻生|自杀)的?念头|想(结束|了结)(自己|生命|这一切|一切)|想一了百了|不想再?醒来)|(?<!得)(?<!到)我(真的|是真的|真|好|很)?想(去)?死(?!你)",
            r"突然[^，。！？,.!?]{0,8}(平静|安详|想通了|释然)|(平静|安详)[^。！？?!]{0,10}(决定好了|想通了)|已经决定好了|(时间|地方)[^，。！？,.!?]{0,4}(决定|选)好了|(想|只想)[^，。！？,.!?]{0,6}消失|消失算了|(可能|就)?没多久就不在了|以后(应该|就)?用不(上|着)了|不会再来了|下辈子再见|撑不下去|(人生|活着|一切)(也)?没(什么|啥)意义|(道过|道了|告了)别|该交代的(都)?交代|结束这一切|(对不起|谢谢)(大家|你们|所有人)[^，。！？,.!?]{0,6}(再见|永别)|(想|要)(去)?(self-?harm|自残|割腕|伤害自己)|找不到[^，。！？,.!?]{0,4}(撑|活)下去的理由|结束自己|不用(再)?为我(操心|担心)|(猫|狗|孩子|宠物)[^，。！？,.!?]{0,3}托付给",
            r"(看起来|看上去|弄得|装作|伪装成|显得)像?(是)?(个)?(意外|自然死亡|病死|失足)",
            r"(致死量|吃多少[^，。！？,.!?]{0,6}(会死|能死|致死))[^。！？?!]{0,20}(我自己|给我自己|自己用)",
            # affairs settled, treasured things handed out, a date set, medicine saved up, not needing food any more
            # (written on guard12-14 and framing dev, once a recent time word alone no longer stops this rule)
            r"(后事|该安排的|该交代的)(都|也)?[^，。！？,.!?]{0,6}(安排|交代|处理)(好|清楚|完)了|(存折|房产证|银行卡|密码)[^，。！？,.!?]{0,10}(交给|留给|告诉|写好|放好)|给[^，。！？,.!?]{0,6}留了(一)?封信|把[^，。！？,.!?]{0,6}(最喜欢|最爱|心爱|珍藏|宝贝)的[^，。！？,.!?]{0,12}(送给|送人|分给|送掉)|把[^，。！？,.!?]{0,4}(金镯子|镯子|首饰|戒指|存款|积蓄)[^，。！？,.!?]{0,4}分给",
            r"(日子|日期|时间)(也|都)?(定|选)好了|不用再(熬|撑)下去|不(再)?(给|跟)(你们|大家|家里|家人|孩子们?)添麻烦|(饭|东西)也不吃[^，。！？,.!?]{0,2}水也不喝|(省|攒|留)下[^，。！？,.!?]{0,6}(安眠药|药片|药)|(就|我就)用不(着|上)(买菜|做饭|吃饭)?了|(谢谢|对不起)[^。！？?!]{0,8}(对不起|谢谢)",
            r"(出事|死)就(出事|死)吧|死了就死了|(死活|生死)(都)?无所谓|不想再(拖|熬|撑)着?了|该走就走|(最好|宁愿|宁可)(别|不要)?再?醒(过来|了)|别再醒过来|一了百了|我不在了[^，。！？,.!?]{0,6}(解脱|轻松|更好|就好)|不想再这样(过|活)下去|(多高|几楼|几层)[^，。！？,.!?]{0,8}(摔|跳)下去[^，。！？,.!?]{0,8}(没救|会死|活不了|必死)|(吃|吞)多少(片|颗|粒)?[^，。！？,.!?]{0,10}(会出事|会死|致命|就没了|(就)?不(会)?(再)?醒|醒不(过来|了))|自我了断|自行了断|了断(自己|残生)|(走|死)得(没有?|不)(痛苦|难受)|(天台|楼顶|顶楼|江边|河边|海边|桥上?|山顶)[^。！？?!]{0,12}(就)?不(再)?回来了",
            r"^(?![\s\S]*(花[^，。！？,.!?]{0,4}钱|学费|生活费|经济|房贷|赚钱|挣钱))[\s\S]*?(全家|家里|大家|家人)的(负担|累赘|包袱)|没(什么|啥|有)?以后了|看不到(任何|一点|半点)?(未来|以后|希望|出路)|(上|去|爬)(天台|楼顶)(之前|前|以前)",
            _NO_MEAL_OCCASION_ZH + r"最后(一顿|一餐|一杯)",
            # self-injury told as it is, nobody caring, refusing food, a method chosen, means gathered, letters written,
            # the rest arranged: the signs a note alone must not answer
            r"(划|割)(了|伤|破)?(自己的?)?(手腕|胳膊|手臂|大腿)|(手腕|胳膊|手臂|大腿)上?[^，。！？,.!?]{0,6}(口子|伤口|划|割)|(反正|也|根本)没(有)?人在乎(我)?|(从今天(开始|起)|以后)(我)?(就)?不吃不喝|想好(了)?(要)?怎么(结束|走|死|了断)|(?<![荐职请])信(都|已经|也都|也)写好了|烧炭|炭[^，。！？,.!?]{0,6}胶带|胶带[^，。！？,.!?]{0,6}炭|药[^，。！？,.!?]{0,4}(都|一直)存着|(后事|该安排的)(都|也)?(安排|交代)好了|^没(什么|啥)?意义了",
            # written on guard27 dev (stop 44): plans not needed any more, "take care of yourself from now on", a pet given
            # away and the flat given up, treasures all handed out, thanks and goodbye then gone, repeated "accidents", a
            # dose to try on oneself, what lies below a bridge
            r"我(就|也)?用不(上|着)了|没打算(有)?以后|不打算(有)?以后|以后你(要|得)?(好好)?照顾(好)?自己|(猫|狗|宠物)[^，。！？,.!?]{0,3}托(付)?给|(房子|房)(也)?退(租)?了[^。！？?!]{0,12}(东西|行李)(都|也)?收拾好了|下学期的课[^。！？?!]{0,4}(不选了|不上了)",
            r"^(?![\s\S]*(搬家|断舍离|捐|毕业|出国|义卖|旧|穿不下|小了|闲置|不穿|离职|辞职|退休|调岗|调走|换工作|最后一天上班|公司最后一天))[\s\S]*?把[^。！？?!]{0,20}(全|都)(送人|送掉|送给|分给)|谢谢(大家|你们|所有人)[^。！？?!]{0,12}(照顾|陪伴|包容)[^。！？?!]{0,4}再见|再见了[^。！？?!]{0,10}(退(了)?群|退出(了)?群|拉黑|(电话|手机)(也)?打不通)",
            r"[\"“'‘]不小心[\"”'’]|又(不小心)?(烫|割|划|伤)(到|伤|破)了[^。！？?!]{0,12}第[三四五六七八九十\d]+次|(一次|一下子|一口气)(吃|吞)[^，。！？,.!?]{0,8}(片|颗|粒)[^。！？?!]{0,16}(会怎么样|会死|会出事|会怎样)[\s\S]{0,20}(我自己|自己想试|不是(问)?别人)|(桥|楼顶|天台|高楼)[^，。！？,.!?]{0,8}(下面|底下)是(水|马路|地面|水泥地)",
            # written on guard20, guard23 and guard28 dev (stop 55): better off with the insurance money, a waste of food,
            # a body not lasting long, morphine kept to take with drink, wrapping up, a last question and goodbye, fists on
            # oneself, fasting as punishment, letters written to each, nothing mattering after a date, not caring any more
            r"(保险金|保险赔偿|赔偿金)[^。！？?!]{0,14}(日子|过得|更好|好过)|我(走|死)了[^。！？?!]{0,12}(你们|家里|大家|孩子)[^。！？?!]{0,10}(好过|更好|轻松)|(我|自己)(就)?是个?[^，。！？,.!?]{0,6}(废物|多余的人)|浪费(粮食|空气)的(废物|人)|(身体|命)[^，。！？,.!?]{0,6}用不了多久|(吗啡|安眠药|止痛药|药片)[^。！？?!]{0,24}(白酒|喝酒|酒)[^。！？?!]{0,12}(更快|更强|作用)",
            r"像是?在收尾|最后一次(来)?(问你|找你|跟你说|和你聊)|(用|拿)拳头(砸|打|捶)自己|(拿|用)头撞(墙|自己)|(惩罚|罚)自己[^，。！？,.!?]{0,6}(不吃|饿|不喝)|(给|跟)[^，。！？,.!?]{0,8}各写了(一)?封信|写了(一)?封信[^。！？?!]{0,12}(再见|道别)|该说的(话)?都说了|(过了|到了)[^。！？?!]{0,14}(一切|什么)都不(重要|要紧)了|(死活|会怎样|怎么样)[^，。！？,.!?]{0,4}(我)?(也|都)?不在乎了|不想再撑下去|(翻到|找到|发现)(了)?刀片|大夏天[^，。！？,.!?]{0,4}穿长袖|(桥|楼)[^。]{0,12}(最高|多高)[\s\S]{0,10}(下面|底下)是(水|马路|地面)|(划|割)的口子[^。！？?!]{0,12}(手臂|胳膊|手腕|大腿)",
            # written on guard32 dev (stop 60): a rooftop stood on, a pet given away, passwords written down, accounts closed, a
            # day chosen (none beside a move, a wedding, surgery or a trip); medicine bought in several shops, held in a
            # fist; 我不在了…松口气, 多余的那个, no use for things from now on; not eating on purpose
            r"(天台|楼顶|顶楼)(的)?门[^，。！？]{0,6}(没锁|开着)|(天台|楼顶|顶楼|桥上)[^。！？]{0,10}(站了|坐了|待了)(很久|好久|半天|一夜|一晚)|(高楼|天台|楼顶)(的)?照片",
            _NOT_AFFAIRS_ZH + r"((把|给)[^，。！？]{0,10}(猫|狗|鹦鹉|宠物|鸟|兔子)[^，。！？]{0,4}(送人|送走|送给|托付)|密码[^，。！？]{0,10}(写在|压在|发给|放在)|注销(了)?(所有|全部)[^，。！？]{0,6}(账号|微信|QQ|微博)|照片[^，。！？]{0,4}删(干净|光)|(日子|日期)[^，。！？]{0,4}(定|选)好了|(我|自己)(定|选)(好)?的日子)",
            r"(分开|分几次|在不同(的)?药店|好几家药店)[^，。！？]{0,6}买|(攥着|握着|捧着)(一把|一大把)药|(哪种|什么)(药|农药)[^，。！？]{0,10}(最快|最不痛苦|不痛苦)|吃多了最不痛苦|(农药|百草枯|敌敌畏)[^，。！？]{0,6}最快",
            r"我不在了[^，。！？]{0,10}(松口气|轻松|解脱|更好)|(觉得|感觉)(自己)?(就)?是多余的|多余的那个|远门[^。！？]{0,6}不(再)?回来|(以后|反正)[^，。！？]{0,4}用不(上|着)",
            r"拖累(爸妈|父母|孩子|老公|老婆|儿女|家里人)|故意不吃(东西|饭)|(觉得|感觉)没(必要|意义)(再)?(吃|活)|打算就这样(下去|不吃)|(孩子|宝宝)跟着[^，。！？]{0,8}会比跟着(我|她|他)(更)?好",
        ),
    },
    TURN: {
        "en": (
            r"\b(that'?s|this is|that is) (exactly )?what'?s? (is )?happening (to|with) (me|my|him|her|us|them)\b|\b(is|are|'s|'re) like (that|this) (right )?now\b|\b(basically|literally|actually) describing (myself|me|him|her|my)\b|\bhappening to (me|my \w+) (right )?now\b",
            # a cry for help: what the question names is happening (a pool's "someone drowning in lane 5 help", stop 53)
            r"^\s*help\s*([!.,:;]|$)|^\s*help (someone|somebody)\b|\bhelp\s*!|\b(drowning|choking|bleeding|unconscious|collapsed|not breathing|seizing|fitting)\b[^?]{0,40}\bhelp[\s.!]*$|\b(someone|somebody) (please )?help( me| us)?[\s.!]*$|\b(get|call) (a |the )?(lifeguard|doctor|nurse|ambulance|paramedics?)( now| quick(ly)?| fast)?[\s.!]*$",
        ),
        "zh": (
            r"(写|说|描述)的就是我(自己)?|(其实|现在)?(就是|正是)(我|他|她)(现在|自己)?的(情况|样子)|(他|她|我)现在就是这样",
            r"救命|快来人|快叫(人|救生员|医生|护士|救护车)|快打(120|110|119|999|911)",
        ),
    },
    "past": {
        "en": (
            r"\b(last|previous) (year|month|spring|summer|autumn|fall|winter|decade)\b",
            r"\b(\d+|a few|several|many|two|three|four|five|ten) (years?|months?) ago\b|\b(years|months|long|ages) ago\b",
            r"\b(in|back in|since) (19|20)\d\d\b",
            r"\b(as a (child|kid|teenager)|when (i|he|she) was (a )?(young|little|child|kid|teenager|\d+))\b",
            r"\b(used to|recovered|has recovered|have recovered|fully recovered|survived|years after|months after)\b",
            r"\b(weeks?|months?|years?) since\b|\bit'?s been [\w ]{1,20} since\b|\bin (my|his|her|their) (teens|twenties|thirties|forties|fifties|\d0s)\b",
            r"\b(i|he|she|they|we) (feel|feels|felt) (great|fine|good|well)\b|\b(been|is|am|are|i'?m|he'?s|she'?s|they'?re) (fine|well|ok|okay|healthy|recovered) (now|since|for)\b|\bbeen well\b",
            r"\b(history of|had an? \w+ (allergy|allergic reaction|stroke|heart attack|attempt)|once had)\b",
            r"\bback (in|at|during) (uni|university|college|school|high school|my \w+ (days|years))\b|\b(been|is|are|am|i'?m|he'?s|she'?s|they'?re) doing (well|fine|ok|okay|great|better|good)\b|\bfor years now\b",
            r"\b(recovering|in recovery) from\b|\b(home|discharged|back|out) (from|of) (the )?hospital\b|\banniversary\b|\b(wore|has worn|had worn) off\b",
            r"\b(said|says|told (us|me|them)) (she|he|they|i|it|we)('d| would| will|'ll) be (fine|ok|okay|alright|all right)\b|\b(turned out|it was) (fine|ok|okay|nothing serious|harmless)\b",
        ),
        "zh": (
            r"去年|前年|前(一|两|几)年|前些年|很久以前|好久以前|以前(得过|有过|患过|发生过|出现过)|曾经|小时候|年轻时|几年前|多年前|\d+年前|[一二两三四五六七八九十几]+(年|个月)前|上个月|早年",
            r"康复|痊愈|恢复(得|了|后|以后|期)|出院(了|后|以后)|好了以后|过去了|已经好了|已经没事|(好|过)了(很多|好几|几|多)年|很多年|多年|至今",
            r"([\d一二三四五六七八九十几]+)多?岁(时|的时候)|(\d+|[一二两三四五六七八九十几]+)(个)?(月|年|周)(以)?前",
            # written on guard21 dev (stop 42): the last time, the last pregnancy, something done "before" (之前…喝过; never
            # 过敏), a rescue that worked, a story that ended well
            r"有过(?!敏)|(进|去|住|看)过(急诊|医院|院|ICU|重症)|正在接受[^，。！？,.!?]{0,6}治疗|当年|那年|周年|(我|他|她)?(感觉|觉得)(还好|挺好|很好|不错|没事)|状态(很好|不错|挺好|好多了|稳定)|半年(多)?(以)?前|(走了|去世|过世|离开我们)[^，。！？,.!?]{0,4}(年|个月|周)了|(高中|初中|大学|小学|读书)(的)?时(候)?|已经[^，。！？,.!?]{0,6}(年|个月)没(有)?(再)?|(自伤|自残|自杀|轻生|中风|心梗|过敏)史|病史|既往史",
            r"上次|上一次|上回|上一胎|上一个孩子|(之前|以前)[^，。！？,.!?]{0,8}[\u4e00-\u9fff]过(?!敏|期|量|度|来|去|头)|(之前|以前)有(一)?段时间|抢救(回来|过来)了|后来[^，。！？,.!?]{0,8}(好了|没事|健康|正常|恢复)",
            r"上学(的)?时(候)?|好(几)?(年|个月)没(有)?再",  # guard32 dev (stop 60): "我上学时…好几年没再伤害过自己"
        ),
    },
    "hypothetical": {
        "en": (
            r"\b(if (i|she|he|we|they|my \w+|someone|somebody|a person|you) (ever|were to|became|become|get|gets|got)\b)",
            r"\b(in (the|a) future|future (pregnancy|pregnancies|baby|child)|someday|some day|one day|planning (a|for a|to get) (pregnancy|pregnant)|trying to (conceive|get pregnant)|before (getting|i get|trying) pregnant)\b",
            r"\b(hypothetical\w*|in case|what if|would it|could it)\b",
            r"\b(not|never been) pregnant\b",
        ),
        "zh": (
            r"如果|假如|万一|要是|假设|将来|以后(怀孕|如果)|备孕|打算要孩子|没有怀孕|没怀孕|还没怀孕",
        ),
    },
    "general": {
        "en": (
            r"\b(in general|generally|people (with|who)|someone (with|who)|a person (with|who)|anyone (with|who)|in adults|in children)\b",
            r"\b(what are|what's|how to (spot|recognise|recognize)|how (do|can) (you|i|we) (tell|know|recognise|recognize|spot)) (the )?(signs?|symptoms?|warning signs?|risk factors?)\b",
            r"\b(how common|statistics|why do (people|some people)|what causes)\b",
        ),
        "zh": (
            r"一般来说|通常|的人(一般|平时|应该|要|能|可以)|有哪些(征兆|症状|信号|表现|危险因素)|(征兆|症状|信号|表现)有哪些|为什么有人|什么原因|(预警|警示|危险)(信号|迹象|征兆)",
            # written on guard32 dev (stop 60): which signs to watch for, how to tell whether someone is at risk
            r"(注意|留意|关注|观察)哪些(征兆|症状|信号|表现|迹象)|(怎么|如何)(判断|识别|发现|看出)[^，。！？,.!?]{0,12}(有没有|是否|是不是)",
        ),
    },
    "study": {
        "en": (
            r"\b(school|class|homework|assignment|report|essay|project|presentation|thesis|dissertation|exam|studying|research|lecture|article|paper)\b",
            r"\bi'?m an? (nurse|doctor|gp|dietitian|dietician|nutritionist|pharmacist|teacher|counsel+or|social worker|paramedic|midwife|youth worker|coach|carer|caregiver)\b|\byouth worker\b|\b(my|our) (patients|clients)\b",
        ),
        "zh": (
            r"作业|报告|论文|课题|演讲|发言|班会|学校|课堂|课上|考试|研究|科普|文章|讲座|上课|ppt|小组展示|毕业设计|资格证|考证|备考|复习",
            r"我是(一名|一个|个)?(营养师|医生|护士|药师|老师|心理咨询师|社工|健身教练|班主任|辅导员)|(来访者|患者们|病人们)|^(班主任|老师|辅导员|社工|营养师|护士)[：:]",
            r"专业的?学生|(心理学|医学|护理|药学|临床)专业|临床上(怎么|如何)",  # guard32 dev (stop 60)
        ),
    },
    "prevention": {
        "en": (
            r"\b(how (do|should|can) (i|we) (safely )?(store|keep|lock up)\b[\s\S]{0,40}\bsafe(ly)?\b)",
            r"\b(prevent\w*|prevention|reduce (the|my|his|her) risk|lower (the|my|his|her) risk|risk of|avoid (getting|having)|awareness (week|month|day|campaign))\b",
            r"\b(child-?proof\w*|out of (the )?reach|safety (locks?|latch\w*|caps?)|(stop|keep) (my |our |the |a )?(\w+ )?(toddler|kids?|child|children|baby|grandkids?) (from )?getting into)\b",
            r"\b(planning ahead|just planning|in advance|be prepared|just in case|what to (watch|look) (out )?for|what signs to (watch|look) (out )?for)\b",  # guard27 dev
        ),
        "zh": (
            r"预防|防止|降低[^，。！？,.!?]{0,4}风险|避免(发生|再)|宣传|放(在|到)[^，。！？,.!?]{0,6}(够不着|拿不到|碰不到)|儿童安全(锁|盖)",
            r"(怎么|如何)(收纳|存放|保存|放置)[^，。！？,.!?]{0,6}(安全|稳妥)",
            r"注意有没有|提前(了解|知道|准备)|以防万一|有备无患",  # guard27 dev
        ),
    },
    FIRE: {
        # a new team's solar help desk (stop 50): "屋顶的太阳能板着火了" scored just under its fire rule's threshold
        "en": (
            r"\b(is|are|'s|'re|has|have|just|it'?s|they'?re|got) (caught|catching|on) fire\b|\b(smoke|flames?|sparks?) (is |are |keeps? |started )?(coming|pouring|billowing|shooting|flying) (out|from|off)\b|\b(is|are|'s|'re) (sparking|in flames)\b",
        ),
        "zh": (
            # not a throat "smoking" with thirst nor anger, nor a person with spice (辣得整个人都在冒烟)
            r"^(?![\s\S]*(整个人|我|你|他|她|嗓子|喉咙|头顶?|脑袋|气得)(都|也)?(快|要)?(在)?冒烟)[\s\S]*?"
            r"(冒(黑|白|浓)?烟了|着火了|起火了|烧起来了|冒火花了?|打火花了|(正在|在)(冒(黑|白|浓)?烟|打火花|冒火花|燃烧))",
        ),
    },
    FIGURE_OF_SPEECH: {
        "en": (
            r"\b(deadline|work|job|shift|exams?|homework|assignment|boss|commute|traffic|heat|cold|weather|week|day|kids|project|meetings?|diet|gym|workout|hunt|planning) (is|are|'s|was|were) (literally |actually |honestly |totally |absolutely )?(killing|murdering) me\b",
            r"\b(dying (to|for)|dying of (boredom|laughter|curiosity|embarrassment)|could (kill|murder) (for|a)|i'?d (kill|murder) for|killed it (at|in|on|today|tonight|this)|bored to death|dead tired|dead on my feet|starving to death)\b",
            # a game lost, a show or a joke that "killed me", a threat in banter, a body part "dead" after the gym; never
            # fear ("scared to death", 吓死了, 紧张死了): fright is how a real emergency is told, not a figure
            r"\b(we|i|you|they|us|team|side|lads|boys|girls) (got|get|getting|gets|were|was|been|are|'re) (absolutely |totally |completely |just |so )?(murdered|slaughtered|destroyed|wrecked|crushed|massacred|annihilated|demolished|roasted|smashed|battered|hammered|thrashed|rekt)\b|\b(got|get|getting|were|was|been) (absolutely |totally |completely |just |so )?(murdered|slaughtered|massacred|annihilated|roasted|thrashed|rekt)\b",
            r"\b(finale|episode|ending|twist|show|series|movie|film|book|song|track|album|joke|meme|comedian|match|game|derby|exam|quiz|class|lecture|workout|meeting|commute|week|day) ([\w']+ ){0,3}(killed|destroyed|murdered|wrecked|slayed) me\b|\b(is|are|'s|'re) (gonna|going to) (kill|murder|destroy) me\b|\b(had|has|have|got) me (dying|dead|crying|in tears)\b",
            # a plant, a loaf or a gadget "trying to end it all" (guard21 dev, stop 42)
            r"\b(plants?|fig|ferns?|succulents?|orchids?|basil|monstera|pothos|cact(us|i)|tomato(es)?|lawn|garden|sourdough|starter|laptop|phone|car|printer)\b (is |are |'s |'re |keeps )?(basically |literally |just |actually |clearly )?(trying to end it all|suicidal|giving up on life|committing suicide|has given up on life)\b",
            r"\bfeel(ing)? like (death|crap|garbage|a zombie|hell)( warmed (up|over))?\b|\b(is|are|'s|'re) (destroying|wrecking|ruining) me\b",
            r"\b(my )?heart (nearly|almost|practically|literally) (stopped|skipped a beat)\b|\b(['\"]overdosed['\"]|overdos\w* on (chocolate|sugar|candy|sweets|cake|cookies|coffee|caffeine|pizza|carbs|netflix|tv|christmas|easter|halloween|memes))\b",
            r"\bi'?m (dead|deceased|crying)\b ?(lol|lmao|haha|😂|🤣|💀)|\b(lol|lmao|haha|😂|🤣|💀) ?i'?m (dead|deceased)\b|\b(legs|arms|feet|back|brain|phone|battery) (is|are|'s|'re) (dead|toast|killing me)\b|\b(was|is) (murder|a killer|brutal)\b",
            r"\b(jk|just kidding|exaggerating|not literally)\b",  # guard27 dev
            # written on figures53 dev (stop 53): roasted, grilled and bodied in banter, a bill that "nearly" gave a stroke,
            # money bleeding, laughing till one can't breathe, the death of me
            r"\b(grilled|roasted) (me|him|her|us|them)( so hard| alive)?\b|\bgot (absolutely |totally |completely )?bodied\b|\b(nearly|almost) (had|gave me) a (stroke|heart attack) (reading|looking at|seeing|over|at|when)\b|\b(bank account|wallet|savings|bank balance|credit card) (is |are )?(bleeding|on life support|crying)\b",
            r"\b(lmf?a+o+|lol+|haha\w*|hehe\w*|😂|🤣|💀|crying laughing)[\s\S]{0,20}\bcan'?t breathe\b|\bcan'?t breathe\b ?(lmf?a+o+|lol+|haha\w*|😂|🤣|💀)|\b(the|be the) death of me\b|\bscared (me )?to death\b",
        ),
        "zh": (
            r"想死的心都有|(累|饿|困|热|冷|忙|烦|笑|渴|撑|无聊|尴尬|气|吵|闷)死(我)?了|(累|饿|困|热|忙|烦|笑)得要死|[\u4e00-\u9fff]{1,4}(得|到)(我)?(都|快)?想死|想死你了|要死要活地",
            r"(被|让)[^，。！？,.!?]{0,6}(血虐|虐惨|虐哭|完虐|吊打|打爆|碾压|坑惨|坑死|秒杀|屠了)|(虐|馋|丑|帅|美|萌|甜)(死|哭)(我)?了|(累|困|饿|忙)成狗|(累|困)瘫了|要(了)?我(的)?(老)?命|笑到(肚子疼|哭|岔气|不行|停不下来)|(心态)?崩(溃)?了|破防了|打断(你|我|他|她)的腿",
            r"[（(]夸张[)）]|开玩笑的|(说|讲)得?夸张",  # guard27 dev
            # written on figures53 dev (stop 53): laughing till it cramps, an exam or a client that "made me spit blood",
            # blood pressure maxed by a payslip, a heart bleeding, dying of embarrassment, a cook's "poison"
            r"笑(到|得)(抽筋|肚子疼|岔气)|(考试|考得|考完|工作|加班|改需求|需求|老板|甲方|上班|开会|客户|领导|作业|论文|ddl|DDL)[^。！？!?]{0,12}吐血|吐血(三升|三斗)|血压(直接|瞬间)?(拉满|飙升|爆表)|心(在)?滴血|社死|魂(都)?(没了|飞魄散)|(投毒|炸了?厨房)[^，。！？,.!?]{0,4}(哈哈|😂|🤣)",
            # a person "smoking" with spice, heat, thirst or anger (stop 50, beside the fire cue): 辣得整个人都在冒烟
            r"(辣|烫|热|渴|气|急)[^，。！？,.!?]{0,12}冒烟|(整个人|我|头|头顶|脑袋|嗓子|喉咙|嘴巴?)(都|也)?(快|要)?(在)?冒烟",
        ),
    },
    # the everyday cause of a sign, named by the asker: the mimics a triage nurse would ask about first (beetroot reddens
    # stools and urine, iron tablets blacken them, a dental anaesthetic numbs half the face, an arm slept on goes numb,
    # pineapple's enzyme stings the tongue, a workout leaves the chest muscles sore). A sign told as it is still wins.
    "everyday_cause": {
        "en": (
            r"\b(beetroot|beets?|dragon ?fruit)\b|\biron (tablets?|pills?|supplements?)\b[\s\S]{0,60}\b(dark|black)\b|\b(dark|black)\b[\s\S]{0,60}\biron (tablets?|pills?|supplements?)\b",
            r"\b(dentist'?s?|dental|anaesthetic|anesthetic|numbing (shot|injection|gel)|novocaine|wisdom tooth|filling)\b",
            r"\bslept on (my|his|her|their) (arm|hand|leg)\b|\b(arm|hand|leg) (fell|falls|went|goes|had gone) asleep\b",
            r"\b(ice[- ]cream|brain freeze|slushies?|ice[- ]cold drinks?)\b",
            r"\b(quit|quitting|gave up|giving up|cut out|cutting out|stopped) (coffee|caffeine|sugar|energy drinks|soda|smoking|vaping)\b|\btired of (my |this |the |our )?(job|work|boss|commute|school|class|cooking|diet|weather|routine|flat|apartment|neighbou?rs?)\b",
            r"\b(hurts?|hurting|aches?|aching|sore) from (laughing|coughing|sneezing|lifting|carrying|working out|the gym|exercise|training|sit-?ups|push-?ups|crunches|running)\b",
            r"\b(chewing ?gum|bubble ?gum|(a|the|some|his|her|my) gum|(watermelon|apple|grape|cherry|orange|lemon) (seeds?|pips?|pits?))\b",
            r"\bpineapple\b|\b(muscles?|pecs?) (are|is|feel|feels|got|get) (so |really |very |a bit )?sore\b|\bsore (chest |pec )?muscles?\b|\b(push-?ups|bench press(ing)?|chest day)\b",
        ),
        "zh": (
            r"口香糖|泡泡糖|(西瓜|葡萄|苹果|橙子|柠檬)(籽|子)",
            r"甜菜|火龙果|(铁剂|补铁|铁片)[^。！？?!]{0,20}(黑|发黑)|(黑|发黑)[^。！？?!]{0,20}(铁剂|补铁|铁片)|鸭血|猪血",
            r"麻药|麻醉药|拔牙|拔完智齿|补牙|牙医|看牙",
            r"压麻|压着胳膊|睡麻了",
            r"(吃|喝)(了)?[^，。！？,.!?]{0,2}(冰淇淋|冰激凌|冰棍|雪糕|冰水|冷饮)|黑芝麻|笑得[^，。！？,.!?]{0,4}(疼|痛)|咳(嗽)?得[^，。！？,.!?]{0,4}(疼|痛)|菠萝|肌肉(酸痛|酸胀|拉伤)|练完胸|练胸|俯卧撑|卧推",
            r"喝多了|喝醉了|宿醉|喝(了)?(太多|很多)酒|(吃|喝)(完|了)?[^，。！？,.!?]{0,2}(麻辣烫|火锅|辣条|烧烤)|吃(得|的)太辣",  # guard27 dev
        ),
    },
    HABITUAL: {
        "en": (
            r"\b(i|he|she|they|we) (always |often |usually |sometimes |tend to |keep )?(get|gets|feel|feels)\b[^.?!]{0,40}\b(when(ever)?|every time|after|on the stairs|climbing|walking up|at night|in the morning|if i)\b|\b(every time|whenever) (i|he|she|they|we)\b",
        ),
        "zh": (
            r"每次|一(爬|走|跑|运动|站起来|蹲|上楼)[^，。！？,.!?]{0,4}就|经常|总是|老是",
        ),
    },
    # an ordinary occasion that explains a goodbye or a giving away: a colleague retiring, a move, a declutter
    "life_event": {
        "en": (
            r"\b(farewell|leaving|goodbye|going-away|retirement|send-off|leaving) (party|lunch|dinner|drinks|do|card|gift|cake|bash)\b|\b(retiring|retirement|moving (house|abroad|to)|relocating|declutter\w*|new job)\b",
        ),
        "zh": (
            r"退休|搬家|离职|调岗|出国|毕业|欢送|散伙饭|断舍离",
        ),
    },
    # an animal's illness: the rules' emergencies are a person's, and "call 120" is no help to a dog (stop 42)
    "pet": {
        "en": (
            r"\b(dogs?|doggo|pupp(y|ies)|pup|cats?|kittens?|kitty|hamsters?|rabbits?|bunny|parrots?|budgies?|guinea pigs?|ferrets?|tortoises?|goldfish)\b (just |has |had |keeps |kept |was |is |got )?(threw up|throwing up|vomit\w*|been sick|ate|eaten|swallowed|drank|got into|diagnosed|sick|ill|bleeding|died|passed away|won'?t eat|isn'?t eating|stopped eating)\b|\b(the |a |our |my )?(vet|vets|veterinarian|animal hospital)\b",
        ),
        "zh": (
            r"(狗|狗狗|猫|猫咪|宠物|仓鼠|兔子|鹦鹉|金鱼)[^，。！？,.!?]{0,4}(吐|拉稀|吃了|误食|生病|病了|确诊|去世|死了|走了|不吃)|兽医|宠物医院",
        ),
    },
    # it is over: "gone within minutes", "fine now", 现在止住了 (guard25 dev, stop 42). Beside it a time word tells when
    # it happened, not that it is happening (``framing.read_framing``); a sign told as it is still wins
    "resolved": {
        "en": (
            r"\b(gone|went away|wore off|passed|settled|stopped|cleared( up)?|eased) (within|after|in) (a few |a couple of |about |like )?(seconds?|minutes?|mins?|an hour|a minute|a second|\d+ (seconds?|minutes?|mins?))\b|\b(fine|ok|okay|better|normal|back to normal) (now|again|after (a|an|some|the) \w+)\b|\b(it'?s|it was|it'?s all) (gone|over|stopped)( now)?\b",
            r"\b(checked|scanned|examined)\b[^.!?]{0,20}\b(all fine|all good|all normal|everything (was |is )?fine)\b",  # guard27 dev
        ),
        "zh": (
            r"(现在|已经|后来|很快)(就)?(止住|停了|不流了|不疼了|好了|没事了|恢复了|消了)|就?(几秒|几秒钟|一会儿|几分钟)(就)?(好|没|过去|消)了?|就几秒(钟)?",
            r"(喝|吃)了[^，。！？,.!?]{0,6}就好了",  # guard27 dev
        ),
    },
    # a scene in a film, a series or a book, and whether it is realistic (guard21 dev, stop 42)
    "fiction": {
        "en": (
            r"\b(in|on) (the|a|this|that) (movie|film|show|series|book|novel|episode|game|drama|cartoon|anime|soap|play)\b|\b(how|is (it|that|this)) realistic\b|\bon (tv|telly)\b",
            r"\b(writing|write|wrote|drafting) (a |my |the )?(novel|story|short story|book|screenplay|script|fanfic|scene)\b|\bmy (character|protagonist|main character)\b|\b(a|the) character (who|that)\b",  # guard27 dev
        ),
        "zh": (
            r"电视剧|电影里|电影中|小说里|剧里|剧中|动画片?里|漫画里|现实中[^，。！？,.!?]{0,10}(真|是不是|会不会)",
            r"(看完|看了|在看)(一部|这部|那部|个)?(电影|电视剧|剧|小说)|写(小说|剧本|故事)",  # guard27 dev
        ),
    },
    # nothing of the kind is happening at present: 目前没出血 (guard21 dev, stop 42)
    "absent": {
        "en": (
            r"\b(no|not any|haven'?t had any|hasn'?t had any) (bleeding|spotting|symptoms?|pain) (so far|yet|at the moment|for now|at all)\b",
            r"\bno problems so far\b|\b(so far|until now),? (no|nothing)\b",  # guard27 dev
        ),
        "zh": (
            r"(目前|暂时|现在)(还)?(没|没有|无)(出血|见红|症状|什么症状|不舒服|异常)",
            r"(目前|现在|暂时)(还)?(没事|一切正常|都正常)",  # guard27 dev
        ),
    },
    "curiosity": {
        "en": (
            r"\b(just curious|curious|out of curiosity|i wonder|i was wondering|wondering why|how come|why (does|do|is|are) (a|an|the|some|people|someone|blood|it))\b",
        ),
        "zh": (
            r"好奇|想了解一下|想知道|为什么有的人|为什么会|(原理|机制)(到底)?是什么|什么原理",
            r"是真的吗|是不是真的",  # guard32 dev (stop 60): "听说…会有轻生念头，是真的吗？"
        ),
    },
    "diet_after": {
        "en": (
            r"\b(after|since) (getting |having )?(my|his|her|their|the|a|an) ([\w-]+ ){0,2}(stroke|heart attack|attempt|overdose|bleed|bleeding|surgery|operation|reaction|episode|event|illness|stent|bypass|angioplasty|procedure|transfusion)\b[\s\S]{0,80}\b(eat|diet|food|meals?|drink|breakfast|lunch|dinner|snacks?)\b",
            r"\b(what|which) (can|should|could) (i|he|she|they|we) (eat|drink|have) instead\b",
        ),
        "zh": (
            r"(之后|以后|后)[^，。！？,.!?]{0,12}(饮食|吃什么|怎么吃|能吃|可以吃|该吃)",
            r"(换成|替代|代替)[^，。！？,.!?]{0,6}(吃|食物)|吃什么代替|能吃什么替代",
        ),
    },
}
