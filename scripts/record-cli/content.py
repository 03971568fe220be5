"""content: the random text a generated session prints.

Everything here is a function of a random.Random, so a seed gives the same
files again. A printed file is a list of lines; each relay command in it is
a Cmd with the exact line(s) printed and the command a reader takes from
them.
"""
import json
import unicodedata

TARGETS = ["bob", "alice", "qa_1", "rev-2.b", "*"]

ASCII = ("the a of to and in is it you that he was for on are with as his they be at one have this from or had by "
         "word but what some we can out other were all there when up use your how said an each she which do their "
         "time if will way about many then them write would like so these her long make thing see him two has look "
         "more day could go come did number sound no most people my over know water than call first who may down "
         "side been now find any new work part take get place made live where after back little only round man year "
         "came show every good me give our under name very through just form sentence great think say help low line "
         "differ turn cause much mean before move right boy old too same tell does set three want air well also play "
         "small end put home read hand port large spell add even land here must big high such follow act why ask men "
         "change went light kind off need house picture try us again animal point mother world near build self earth "
         "father head stand own page should country found answer school grow study still learn plant cover food sun "
         "four between state keep eye never last let thought city tree cross farm hard start might story saw far sea "
         "draw left late run don't while press close night real life few north open seem together next white children "
         "begin got walk example ease paper group always music those both mark often letter until mile river car feet "
         "care second book carry took science eat room friend began idea fish mountain stop once base hear horse cut "
         "sure watch color face wood main enough plain girl usual young ready above ever red list though feel talk "
         "bird soon body dog family direct pose leave song measure door product black short numeral class wind "
         "question happen complete ship area half rock order fire south problem piece told knew pass since top whole "
         "king space heard best hour better true during hundred five remember step early hold west ground interest "
         "reach fast verb sing listen six table travel less morning ten simple several vowel toward war lay against "
         "pattern slow center love person money serve appear road map rain rule govern pull cold notice voice unit "
         "power town fine certain fly fall lead cry dark machine note wait plan figure star box noun field rest "
         "correct able pound done beauty drive stood contain front teach week final gave green oh quick develop ocean "
         "warm free minute strong special mind behind clear tail produce fact street inch multiply nothing course stay "
         "wheel full force blue object decide surface deep moon island foot system busy test record boat common gold "
         "possible plane stead dry wonder laugh thousand ago ran check game shape equate hot miss brought heat snow "
         "tire bring yes distant fill east paint language among grand ball yet wave drop heart am present heavy dance "
         "engine position arm wide sail material size vary settle speak weight general ice matter circle pair include "
         "divide syllable felt perhaps pick sudden count square reason length represent art subject region energy hunt "
         "probable bed brother egg ride cell believe fraction forest sit race window store summer train sleep prove "
         "lone leg exercise wall catch mount wish sky board joy winter sat written wild instrument kept glass grass "
         "cow job edge sign visit past soft fun bright gas weather month million bear finish happy hope flower clothe "
         "strange gone jump baby eight village meet root buy raise solve metal whether push seven paragraph third "
         "shall held hair describe cook floor either result burn hill safe cat century consider type law bit coast "
         "copy phrase silent tall sand soil roll temperature finger industry value fight lie beat excite natural view "
         "sense ear else quite broke case middle kill son lake moment scale loud spring observe child straight "
         "consonant nation dictionary milk speed method organ pay age section dress cloud surprise quiet stone tiny "
         "climb cool design poor lot experiment bottom key iron single stick flat twenty skin smile crease hole trade "
         "melody trip office receive row mouth exact symbol die least trouble shout except wrote seed tone join "
         "suggest clean break lady yard rise bad blow oil blood touch grew cent mix team wire cost lost brown wear "
         "garden equal sent choose fell fit flow fair bank collect save control decimal gentle woman captain practice "
         "separate difficult doctor please protect noon whose locate ring character insect caught period indicate "
         "radio spoke atom human history effect electric expect crop modern element hit student corner party supply "
         "bone rail imagine provide agree thus capital won't chair danger fruit rich thick soldier process operate "
         "guess necessary sharp wing create neighbor wash bat rather crowd corn compare poem string bell depend meat "
         "rub tube famous dollar stream fear sight thin triangle planet hurry chief colony clock mine tie enter major "
         "fresh search send yellow gun allow print dead spot desert suit current lift rose continue block chart hat "
         "sell success company subtract event particular deal swim term opposite wife shoe shoulder spread arrange "
         "camp invent cotton born determine quart nine truck noise level chance gather shop stretch throw shine "
         "property column molecule select wrong gray repeat require broad prepare salt nose plural anger claim").split()
ACCENTED = ["café", "naïve", "jalapeño", "über", "façade", "crème", "brûlée", "señor", "smørrebrød", "déjà", "vu",
            "Ærø", "Zürich", "São", "Paulo", "fiancée", "Ångström", "résumé", "coöperate", "El Niño"]
CJK = ["中文", "字符", "测试", "日本語", "テスト", "한국어", "漢字", "東京", "北京", "ｆｕｌｌ", "かな", "カタカナ"]
COMBINING = ["e\u0301", "a\u0308", "n\u0303", "o\u0302", "u\u0308\u0301", "c\u0327"]
EMOJI = ["😀", "🎉", "👍", "🚀", "🔥", "✅", "🐍", "🌍", "💡", "📦"]
PUNCT = ['"quoted"', "'single'", "back\\slash", "a\\\\b", "C:\\path\\x", "(paren)", "[bracket]", "{brace}",
         "50%", "$HOME", "a&b", "x<y>z", "semi;colon", "#hash", "~tilde", "pipe|bar", "`tick`", "q?", "wow!",
         "e=mc^2", "1,234.56", "--flag", "k:v"]


def word(rng, mix):
    """One word of a family chosen by mix (weights for ascii, accented,
    cjk, combining, emoji, punctuation)."""
    fam = rng.choices(range(6), weights=mix)[0]
    if fam == 0:
        return rng.choice(ASCII)
    if fam == 1:
        return rng.choice(ACCENTED)
    if fam == 2:
        return "".join(rng.choice(CJK) for _ in range(rng.randint(1, 4)))
    if fam == 3:
        return rng.choice(ASCII)[:4] + rng.choice(COMBINING)
    if fam == 4:
        return rng.choice(EMOJI) * rng.randint(1, 2)
    return rng.choice(PUNCT)


def text_mix(rng, features):
    """Weights of the word families for one line, from the recording's
    features."""
    mix = [10, 0, 0, 0, 0, 1]
    if "accents" in features:
        mix[1] = rng.choice([0, 1, 3])
    if "cjk" in features:
        mix[2] = rng.choice([0, 1, 4])
    if "combining" in features:
        mix[3] = rng.choice([0, 1])
    if "emoji" in features:
        mix[4] = rng.choice([0, 1])
    return mix


def sentence(rng, length, features, plain=False):
    """Words separated by single blanks, about length terminal columns wide
    (at least one character): no leading, trailing or double blanks, no
    control characters."""
    mix = text_mix(rng, features)
    if plain:
        mix[5] = 0
        mix[3] = 0  # opencode's input box moves combining marks
    out = []
    width = 0
    while True:
        w = word(rng, mix)
        out.append(w)
        width += cols(w) + 1
        if width >= length:
            break
    s = " ".join(out)
    if cols(s) > length + 8 and length < 8:
        s = s[:max(1, length)]
    return s.strip() or "x"


def cols(s):
    """Terminal columns of s (East Asian wide and emoji count two,
    combining marks none)."""
    n = 0
    for ch in s:
        if unicodedata.combining(ch):
            continue
        n += 2 if unicodedata.east_asian_width(ch) in ("W", "F") else 1
    return n


class Cmd:
    """One relay command as printed: lines is the text of the printed
    lines it spans, want the command a reader takes from them."""

    def __init__(self, lines, kind, to, body, topic=None, block=False):
        self.lines = lines
        self.kind, self.to, self.body, self.topic = kind, to, body, topic
        self.block = block

    def want(self):
        d = {"kind": self.kind, "to": self.to, "type": "message", "body": self.body}
        if self.topic:
            d["topic"] = self.topic
        return d


def relay_line(rng, features, maxlen, typed=False):
    """A @relay: or @thinking: line, 1 to maxlen characters of body; typed:
    for a command line typed into the CLI (no punctuation, which some
    composers drop or take as keys)."""
    to = rng.choice(TARGETS)
    kind = "thinking" if rng.random() < 0.15 else "relay"
    r = rng.random()
    if r < 0.15:
        n = rng.randint(1, 12)
    elif r < 0.6:
        n = rng.randint(12, 80)
    else:
        n = rng.randint(80, max(80, maxlen))
    n = min(n, maxlen)
    body = sentence(rng, n, features, typed)
    line = "@%s:%s %s" % (kind, to, body)
    return Cmd([line], kind, to, body)


def block(rng, features, maxlen, max_json_cols):
    """A [[RELAY]] block; the JSON body holds escaped newlines and quotes.
    max_json_cols bounds the width of each JSON line (None: any), for a
    CLI that cuts long rows."""
    to = rng.choice([t for t in TARGETS if t != "*"])
    topic = "t%d" % rng.randint(1, 999)
    for _ in range(50):
        parts = [sentence(rng, rng.randint(3, max(4, min(maxlen, 120))), features) for _ in range(rng.randint(1, 3))]
        body = "\n".join(parts)
        if rng.random() < 0.6:
            body = body.replace(" ", ' "q" ', 1)
        if rng.random() < 0.3:
            body += " \\ end"
        obj = {"to": to, "type": "message", "body": body, "topic": topic}
        pretty = rng.random() < 0.3
        if pretty:
            js = json.dumps(obj, ensure_ascii=False, indent=2).split("\n")
        else:
            js = [json.dumps(obj, ensure_ascii=False, separators=(",", ":"))]
        if max_json_cols is None or all(cols(l) <= max_json_cols for l in js):
            break
        maxlen = max(8, maxlen // 2)
    else:
        return None
    lines = ["[[RELAY]]"] + js + ["[[/RELAY]]"]
    return Cmd(lines, "relay", to, body, topic=topic, block=True)


NEAR = [
    lambda rng, s: "relay:bob " + s,
    lambda rng, s: "@relay bob " + s,
    lambda rng, s: "@Relay:bob " + s,
    lambda rng, s: "-@relay:bob " + s,
    lambda rng, s: "1. @relay:bob " + s,
    lambda rng, s: "see @relay:bob " + s,
    lambda rng, s: "@relay: " + s,
    lambda rng, s: "\\@relay:bob " + s,
    lambda rng, s: "email me at bob@relay:bob " + s,
    lambda rng, s: "[[RELAY]] is how a block starts",
    lambda rng, s: "thinking:bob " + s,
]


def ordinary(rng, features, maxlen, typed=False):
    """An ordinary line: prose, sometimes indented like a wrapped row,
    sometimes nearly a command."""
    r = rng.random()
    n = rng.choice([rng.randint(1, 10), rng.randint(10, 70), rng.randint(10, max(10, maxlen))])
    s = sentence(rng, n, features, typed)
    if r < 0.12 and not typed:
        return rng.choice(NEAR)(rng, s)
    if r < 0.25:
        return " " * rng.choice([2, 4, 5, 8]) + s
    if r < 0.3:
        return ""
    return s
