"""Rules said in German, French, Spanish, Italian, Portuguese, Dutch, Swedish, Polish or
Czech: the same kinds of rule the English reader (:mod:`dream.detect.rules`,
:mod:`dream.detect.rule_text`) accepts, read with the words of each language
(``words/rules_<lang>.toml``), and kept in the words they were said in.

A statement is read in a language when more of its words are that language's frequent words
(``marks``) than English ones (:func:`language`). Each sentence then loses its conversational
lead-in ("ah,", "non non,", "Hola.", "wie immer:") and the clauses that only say it was said
before ("hab ich doch gesagt", "je l'ai déjà dit", "ya te lo dije"), and is a rule when it says:

- what never to do ("niemals X ausführen", "pas de X", "on ne fait jamais X", "nunca
  apliques X", "no uses X"), or what always or only to do ("immer", "jedes Mal", "nur über",
  "toujours", "à chaque fois", "uniquement", "siempre", "cada vez", "solo con");
- how the project does it ("bei uns", "wir nutzen", "gebaut wird mit", "on utilise", "tout
  passe par", "usamos", "en este repo"), or that something is broken here ("ist bei uns
  kaputt", "est cassé", "no funciona");
- what not to do, named first and refused after it ("k6 cloud ne, nemáme placený účet");
- an obligation with the order of steps ("du musst vorher X", "il faut d'abord", "tienes que
  X antes"), "use X" naming a command, or one thing instead of another ("X statt Y", "X au
  lieu de Y", "X en vez de Y", "X, nicht Y");
- something to remember ("denk dran, ...", "n'oublie pas de ...", "recuerda que ...").

It must name something (a command, flag, path, identifier or tool) unless its marker opens
the sentence and it has content enough ("Pas de deploy depuis ta machine"). Questions,
musings ("nur so ein Gedanke", "juste curieuse", "ya veremos") and one-offs ("heute", "pour
l'instant", "por ahora", "bis das Backfill durch ist") are no rules. A short prohibition
that names nothing takes what to do from the sentence after it ("Kein flash." + "Hardware
nur über die CI-Pipeline."), a bare prohibition (a few words, no clause) takes how things are
from a statement after it that names something ("não mexe na versão do GX" + "estamos na 1.x
e fica assim", "Aldrig clean." + "cleanDisabled=true står där av en anledning"; not what the
speaker will do, a narrowing like "nur was du geändert hast", nor a one-off), and a sentence
that only says it was said before makes the
sentence before it a correction ("preset conan-release." + "sans lui le toolchain n'est pas
chargé, je l'ai déjà dit"), the rest of it kept as the reason.
"""

from __future__ import annotations

import re
import tomllib
import unicodedata
from dataclasses import dataclass
from functools import cache
from pathlib import Path

LANGUAGES = ("de", "fr", "es", "it", "pt", "nl", "sv", "pl", "cs")
_FILES = Path(__file__).with_name("words")
# frequent English words, against which a statement's language is weighed
_ENGLISH = frozenset(
    "the and is are to you we it not with of use don't this that in for please never always "
    "do does i my your our be was should must run only here instead just what when then "
    "but if so can be have has there they them from first before after every".split())
_LETTERS = re.compile(r"[^\W\d_]+(?:'[^\W\d_]+)?")
_CODE_SPAN = re.compile(r"`[^`\n]+`")
_SECTIONS = ("lead", "told", "complaint", "question", "musing", "once", "never", "stop", "always",
             "we", "broken", "instead", "must", "before", "use", "run", "contrast", "here",
             "still", "report", "reason", "negation", "without", "remember", "but", "prefer",
             "briefing")


@dataclass(frozen=True)
class _Words:
    marks: frozenset[str]
    telling: frozenset[str]
    rx: dict[str, re.Pattern[str]]
    lead: re.Pattern[str]
    question: re.Pattern[str]
    describes: re.Pattern[str]
    remember: re.Pattern[str]


def fold(text: str) -> str:
    """``text`` without accents ("jamás" -> "jamas", "über" -> "uber"), as words are matched
    here: with or without accents a word is the same word. Same length as ``text``."""
    out = "".join(c for c in unicodedata.normalize("NFD", text) if not unicodedata.combining(c))
    return out if len(out) == len(text) else text


# German written without umlauts: "ueber", "ausschliesslich"
_ASCII = {"ä": "ae", "ö": "oe", "ü": "ue", "ß": "ss"}
_UMLAUTS = {c: f"(?:{c}|{a})" for c, a in _ASCII.items()}


def _spellings(word: str) -> set[str]:
    """A word as it is matched: without accents, and in German also without umlauts
    (the word as written is kept beside them)."""
    return {fold(word), "".join(_ASCII.get(c, c) for c in word)}


def _alts(phrases: list[str]) -> str:
    phrases = ["".join(_UMLAUTS.get(c, c) for c in p) for p in phrases]
    return fold("|".join(sorted(phrases, key=len, reverse=True)))


@cache
def words(language: str) -> _Words:
    """The rule words of one language, compiled."""
    with (_FILES / f"rules_{language}.toml").open("rb") as fh:
        data = tomllib.load(fh)
    data["never"] = data["never"] + data["stop"]
    # a phrase ending in an elision ("pas d'") runs into the next word
    rx = {s: re.compile(r"(?<![\w'-])(?:" + _alts(data[s]) + r")(?:(?<=')|(?![\w'-]))", re.I)
          for s in _SECTIONS}
    lead = re.compile(r"^(?:(?:" + _alts(data["lead"]) + r")(?:[\s,.!:;—–-]+|$))+", re.I)
    question = re.compile(r"^(?:" + _alts(data["question"]) + r")(?![\w'-])", re.I)
    # the words that tell the language: its frequent words and its plain rule words
    # ("nunca", "uses", "immer"), none of them English
    plain = {p for s in ("never", "always", "use", "run", "instead", "we") for p in data[s]
             if re.fullmatch(r"[^\W\d_]{4,}", p)}
    marks = frozenset(v for m in data["marks"] for v in _spellings(m) | {m})
    plain = {v for p in plain for v in _spellings(p)}
    describes = re.compile(r"(?<![\w'-])(?:" + _alts(data["describes"]) + r")\s*$", re.I)
    # "remember to", with what ties it to the rule ("denk dran, ...", "n'oublie pas de ...")
    remember = re.compile(r"^(?:" + _alts(data["remember"]) + r")(?:\s*[,:]\s*|\s+(?:de|d'|que"
                          r"|qu'|dass|zu|a)\s*|\s+)", re.I)
    return _Words(marks, marks | plain - _ENGLISH, rx, lead, question, describes, remember)


def stop_words() -> frozenset[str]:
    """The frequent words of every language read here (no content of a rule)."""
    return frozenset().union(*(words(lang).marks for lang in LANGUAGES))


def english_words(text: str) -> int:
    """How many of the words of ``text`` are frequent English words."""
    return sum(w.lower() in _ENGLISH for w in _LETTERS.findall(_CODE_SPAN.sub(" ", text)))


def language(text: str) -> str | None:
    """The language of :data:`LANGUAGES` (``de``, ``fr``, ``es``, ``it``, ``pt``, ``nl``,
    ``sv``, ``pl``, ``cs``) ``text`` is said in rather than English (code in backticks left out), else
    None; on a tie the language listed first."""
    said = [fold(w.lower()) for w in _LETTERS.findall(_CODE_SPAN.sub(" ", text))]
    if not said:
        return None
    english = sum(w in _ENGLISH for w in said)
    best, score, longest = None, 0, 0
    for lang in LANGUAGES:
        hits = [w for w in said if w in words(lang).telling]
        if len(hits) > score:
            best, score, longest = lang, len(hits), max(map(len, hits))
    # a short sentence: one word of the language long enough to say it ("nunca", "immer")
    return best if score > english and (score >= 2 or longest >= 4) else None


# a name from the code: `code`, a flag, a path or file, an identifier, a version, a CamelCase
# or capitalised acronym, a hyphenated technical word ("CI-Pipeline", "conan-release")
_NAMED = re.compile(r"`[^`]+`|(?<![\w-])--?[a-zA-Z][\w-]*|[\w~.-]*[\w~]/[\w./*~-]*|/[\w.-]+"
                    r"|\b\w+\.(?:[a-z]{1,5})\b(?!\.)|\b\w*_\w+|\b[a-z]+[A-Z]\w*|\b[A-Z][a-z]+[A-Z]\w*"
                    r"|\b[A-Z]{2,}\b|\b[a-zA-Z]+\d[\w.]*|\b\w+(?:-\w+)+|\w+:[\w*]+")
# in French and Spanish, a capitalised word inside a sentence is a name (Conan, Airflow)
_CAPITALISED = re.compile(r"(?<=[a-zà-ÿ,;:] )[A-Z][a-zà-ÿ]{2,}")


def named(text: str, lang: str) -> bool:
    """The sentence names something from the code or a tool."""
    if _NAMED.search(text.replace("z.B.", " ").replace("d.h.", " ")):
        return True
    return lang != "de" and bool(_CAPITALISED.search(text))


@dataclass
class _Read:
    text: str           # the sentence without lead-in and "I told you"
    rule: bool          # it is a rule on its own
    kind: str           # correction or directive
    never_only: bool    # it only says what not to do
    told: bool          # it says the rule was said before
    pending: bool       # a short prohibition that names nothing: what to do may follow
    blocked: bool       # a question, musing or one-off: nothing to take from it
    positive: bool = False  # it says what to do (always, we, use, instead)


def _anchored(text: str, m: re.Match[str]) -> bool:
    """The marker opens the sentence or one of its clauses, or follows "please", "and" or
    "we"/"you" ("on ne merge jamais", "du sollst nie")."""
    before = text[:m.start()].rstrip()
    return not before or before[-1] in ",;:—–-(" or bool(re.search(
        r"(?:^|[\s,;:])(?:bitte|por favor|s'il te plait|stp|svp|und|et|y|also|donc|alors|aber"
        r"|mais|pero|on|nous|tu|vous|wir|du|ihr|man|nosotros|usted|ustedes"
        # Italian, Portuguese, Dutch, Swedish, Polish
        r"|per favore|noi|voi|quindi|ma|e|voce|nos|a gente|entao|alsjeblieft|graag|en|maar"
        r"|dus|wij|we|jij|je|snalla|och|men|vi|ni|prosze|ale|wiec|my|ty|wy"
        # Czech
        r"|prosim|a|tak|takze|vy)$", before, re.I))


def _blank(m: re.Match[str]) -> str:
    return " " * len(m[0])


def _content(text: str, w: _Words) -> int:
    return sum(1 for t in _LETTERS.findall(text) if len(t) > 2 and fold(t.lower()) not in w.marks)


def read(sentence: str, lang: str) -> _Read:
    """What one sentence of a statement in ``lang`` says as a rule (words matched without
    their accents, :func:`fold`; the rule keeps them)."""
    w = words(lang)
    raw = sentence.strip()
    lead = w.lead.match(fold(raw))
    said_no = bool(lead and re.search(r"\b(?:nein|ne|nee|no|non|nao|nej|nie)\b", lead[0], re.I))
    text = raw[lead.end():] if lead else raw
    told = bool(w.rx["told"].search(fold(text)))
    clauses = [c for c in re.split(r"\s*[,;]\s+|\s+[—–]\s+", text)
               if c.strip(" .!?") and not w.rx["told"].fullmatch(fold(c.strip(" .!?"))) and
               not w.rx["complaint"].fullmatch(fold(c.strip(" .!?")))]
    text = ", ".join(clauses).strip()
    again = w.lead.match(fold(text))
    # punctuation around it goes, a flag at its start stays ("--packages-up-to x, te lo dije")
    text = re.sub(r"^(?:[\s,.!:;—–]|-(?!-?[a-zA-Z]))+|[\s,.!:;—–-]+$", "",
                  text[again.end():] if again else text)
    f = fold(text)
    remember = w.remember.match(f)      # "denk dran, X": X is a rule to keep
    nothing = _Read(text, False, "directive", False, told, False, True)
    if not text:
        return _Read("", False, "directive", False, told, False, False)
    if raw.rstrip().endswith("?") or raw.lstrip().startswith("¿") or w.question.match(f) \
            or w.rx["musing"].search(f) or w.rx["once"].search(f):
        return nothing
    rx = {k: w.rx[k].search(f) for k in ("never", "stop", "we", "broken", "instead", "must",
                                          "before", "use", "here", "report", "prefer")}
    rx["always"] = w.rx["always"].search(w.rx["still"].sub(_blank, f))    # not "immer noch"
    for k in ("never", "always"):       # "ich habe nie ...", "c'est toujours ...": a report
        m = rx[k]
        if m is not None and w.describes.search(f[:m.start()]):
            rx[k] = None
    contrast = re.search(r",\s*(?:" + w.rx["contrast"].pattern + r")\s+(?!\w+\s+\w+\s+\w+)"
                         r"\S", f, re.I) if rx["never"] is None else None
    # "nicht X, sondern Y", "pas X mais Y", "no X sino Y"
    not_but = re.match(r"(?:" + w.rx["contrast"].pattern + r")\s+(?P<x>\S.{0,60}?)[\s,]+(?:"
                       + w.rx["but"].pattern + r")\s+(?P<y>\S.*)", f, re.I)
    if not_but is not None and not (_NAMED.search(not_but["x"]) and _NAMED.search(not_but["y"])):
        not_but = None                  # "nicht schlecht, aber ...": no X and Y named
    names = named(text, lang)
    # the refused thing named first, its negation after it, as the first clause ("k6 cloud
    # ne, nemáme placený účet", "`--force` no, rompe el historial"): what not to do
    postposed = re.match(r"(?P<x>[^,;]{1,40}?)\s+(?:" + w.rx["contrast"].pattern +
                         r")\s*(?:[,;]|$)", f, re.I)
    if postposed is not None and (len(_CODE_SPAN.sub("x", postposed["x"]).split()) > 2 or
                                  not _NAMED.search(text[:postposed.end("x")])):
        postposed = None
    use_first = rx["use"] is not None and _anchored(f, rx["use"])
    if rx["broken"] is not None and not (rx["here"] or use_first or rx["instead"]):
        rx["broken"] = None             # "X ist kaputt" alone reports, "hier kaputt" rules
    reason = w.rx["reason"].search(f)
    if reason is not None and rx["report"] is not None and rx["report"].start() > reason.start():
        rx["report"] = None             # "..., jinak CI spadne", "porque X no falla": why
    if rx["report"] is not None and not (use_first or rx["instead"] or rx["never"] is not None
                                         and _anchored(f, rx["never"])):
        return nothing                  # "X schlägt fehl", "X renvoie Y": a report
    strong = [m for m in (rx["never"], rx["always"], rx["we"], rx["broken"]) if m is not None]
    rule = bool(strong) and (names or any(_anchored(f, m) for m in strong) and
                             _content(text, w) >= 2) or remember is not None and (
                                 names or _content(text[remember.end():], w) >= 3)
    rule = rule or names and (
        rx["must"] is not None and (rx["before"] is not None or rx["always"] is not None)
        or use_first and bool(_NAMED.search(text))
        or rx["instead"] is not None and (use_first or bool(re.match(_NAMED, text)))
        or contrast is not None and bool(_NAMED.search(text[:contrast.start()]))
        or not_but is not None or rx["prefer"] is not None) or postposed is not None
    never_only = (rx["never"] is not None or postposed is not None) and not (
        rx["always"] or rx["we"] or use_first or rx["instead"])
    # a short prohibition ("kein flash."), or a "no" to what the agent did, naming what not to
    # do ("Nein, nicht direkt bitbake auf dem Host."): what to do may follow
    pending = not rule and len(text.split()) <= 6 and (
        rx["never"] is not None and _anchored(f, rx["never"]) or
        said_no and bool(re.match(r"(?:" + w.rx["contrast"].pattern + r")\s+\S", f, re.I)) or
        # said last and shouted: "todo el workspace no!!"
        raw.rstrip().endswith("!") and bool(re.search(r"\S\s+(?:" + w.rx["contrast"].pattern +
                                                      r")$", f, re.I)))
    # pushing back: "nein, ...", "I told you", "stop ...", "instead", "X, not Y"
    kind = "correction" if said_no or told or rx["stop"] or rx["instead"] or contrast or \
        not_but or postposed else "directive"
    positive = bool(rx["always"] or rx["we"] or use_first or rx["instead"])
    return _Read(text, rule, kind, never_only, told, pending, False, positive)


def briefing(sentence: str, lang: str) -> re.Match[str] | None:
    """The heading that opens ``sentence`` when it announces how the project works in
    ``lang`` ("ein paar Dinge vorweg:", "quelques règles de la maison :", "cosas:")."""
    return re.match(r"^(?:[^\W\d_]+[\s,]+){0,4}?(?:" + words(lang).rx["briefing"].pattern +
                    r")(?:[\s,]+[^\W\d_]+){0,4}?\s*:(?!\S)\s*", fold(sentence), re.I)


def told_to_run(sentence: str, lang: str) -> str | None:
    """The sentence without its lead-in when it tells the agent to run, use, start or
    install something ("ah, du musst vorher X machen", "lance d'abord X", "usa X"), else
    None: a fix the user named after a failure."""
    w = words(lang)
    lead = w.lead.match(fold(sentence.strip()))
    text = sentence.strip()[lead.end():].strip() if lead else sentence.strip()
    m = w.rx["run"].match(fold(text)) or w.rx["use"].match(fold(text))
    if m is None or text.rstrip().endswith("?") or w.rx["musing"].search(fold(text)):
        return None
    return text


def one_off(text: str) -> bool:
    """Said for this once or for now in a language read here ("nur heute", "pour
    l'instant", "por ahora")."""
    return any(words(lang).rx["once"].search(fold(text)) for lang in LANGUAGES)


def negations() -> str:
    """A pattern of the words that refuse what follows them in a language read here
    ("nicht", "kein", "pas de", "jamais", "nunca", "en vez de"), to match on :func:`fold`ed
    text."""
    return "|".join(w.rx["negation"].pattern for w in map(words, LANGUAGES))


# a command right after the word that refuses it, at most one word between
_REFUSED = re.compile(r"\s*(?:(?P<word>[^\W\d_]+)\s+)?(?:`(?P<code>[^`]+)`|(?P<name>[\w.:/@*+-]+))")


def rejected(rule: str) -> list[str]:
    """What a rule said in a language read here says not to run, as said: the command
    after its "never" or "instead of" ("niemals `west flash` ausführen" -> "west flash",
    "`uv run` statt `python`" -> "python", "pas de `cmake -B build`"), not one wanted with
    it ("nie ohne `--context`")."""
    lang = language(rule)
    if lang is None:
        return []
    w, f, out = words(lang), fold(rule), []
    for k in ("never", "negation"):
        for m in w.rx[k].finditer(f):
            t = _REFUSED.match(rule, m.end())
            if t is None or t["word"] and w.rx["without"].fullmatch(fold(t["word"])):
                continue
            term = t["code"] or (t["name"] if not t["word"] and _NAMED.fullmatch(t["name"])
                                 else None)
            if term:
                out.append(term.lower().rstrip(".:,;"))
    return list(dict.fromkeys(out))


def standing(sentence: str, lang: str) -> bool:
    """The sentence says something for every time or for the whole project (a rule even in
    the request that opens a session)."""
    w = words(lang)
    return any(w.rx[k].search(fold(sentence)) for k in ("never", "always", "we", "broken"))


# "so", said before what to do because of the sentence before
_SO = re.compile(r"^(?:also|deshalb|daher|darum|deswegen|donc|alors|du coup|c'est pourquoi"
                 r"|así que|por eso|por lo tanto|entonces|quindi|perciò|então|por isso|dus"
                 r"|daarom|därför|alltså|więc|dlatego|takže|proto)\b", re.I)


def _sentence(text: str) -> str:
    """A rule as a sentence: capitalised, unless it starts with a name from the code."""
    text = text.strip().rstrip(" .!,;:")
    first = text.split()[0] if text else ""
    if not text or re.fullmatch(_NAMED, first.rstrip(",:;")) or re.match(r"[`./~-]", text):
        return text
    return text[0].upper() + text[1:]


def _lower_first(text: str) -> str:
    return text if re.match(r"[A-Z]{2}|[A-Z][a-z]+[A-Z]", text) else text[:1].lower() + text[1:]


# said to the agent: what it does ("tu pousses la branche", "du baust in build/")
_YOU = re.compile(r"(?:tu|du|vous|ihr|usted|ustedes|voi|voce|voces|jij|je|jullie|ni|ty|wy|vy)"
                  r"\s+\w", re.I)
# what there is to do it with ("il y a le shortcode figure(...) qui ...", "es gibt ein Target
# dafür: make fab"): what to do instead of what was just refused
_THERE = re.compile(r"(?:il y a|es gibt|hay|existe)\s+\w", re.I)


# the speaker: "ya limpio yo", "eu limpo quando precisar", "je la mets à jour moi-même"
_ME = re.compile(r"(?<![\w'-])(?:yo|eu|je|j'|moi|io|ich|ik|jag|já)(?![\w'-])", re.I)
# "just", "only", "even", "not" opening a sentence: a narrowing of what was said before
# ("nur was du geändert hast", "solo el paquete que tocas"), no statement of how things are
_NARROWS = re.compile(r"^(?:nur|blo(?:ß|ss)|sogar|nicht|seulement|juste|meme|pas|solo|solamente"
                      r"|apenas|so|somente|nem|ni|soltanto|neanche|alleen|enkel|slechts|zelfs"
                      r"|niet|bara|endast|enbart|inte|tylko|jedynie|nawet|nie|jen|jenom|pouze"
                      r"|ani|ne|no|non|nao)(?![\w'-])", re.I)


def _bare(text: str) -> bool:
    """A prohibition said bare: a few words, no clause of its own (no reason, no what to
    do instead)."""
    return 0 < len(text.split()) <= 8 and not re.search(r"[,;:—–]", text)


def _how_it_is(r: _Read, lang: str) -> bool:
    """A sentence that says how things are, read after a bare prohibition (what the
    project does instead, or why): a statement naming something, no rule, question,
    musing, one-off, report or complaint of its own, and not about what the speaker will do
    ("ya limpio yo con ... cuando toque")."""
    words_ = len(r.text.split())
    return not (r.rule or r.blocked or r.told or r.positive) and 3 <= words_ <= 22 and \
        not _ME.search(fold(r.text)) and not _YOU.match(fold(r.text)) and \
        not _NARROWS.match(fold(r.text)) and \
        (named(r.text, lang) or _content(r.text, words(lang)) >= 3)


def said_rules(sents: list[str], lang: str, starts: bool = False) -> list[tuple[int, str, str]]:
    """(sentence index, rule, kind) for each rule the sentences of one statement in
    ``lang`` give (``starts``: it opens the session, so only what is said for every time
    counts)."""
    w = words(lang)
    reads = [read(s, lang) for s in sents]

    def why(r: _Read) -> bool:      # "sans lui le toolchain n'est pas chargé, je l'ai dit"
        return bool(r.text) and bool(w.rx["reason"].match(fold(r.text)))

    out: list[tuple[int, str, str]] = []
    used: set[int] = set()
    for n, r in enumerate(reads):
        if n in used or r.blocked:
            continue
        nxt = reads[n + 1] if n + 1 < len(reads) else None
        told_after = nxt is not None and nxt.told and not nxt.rule
        after = reads[n + 2] if n + 2 < len(reads) else None
        if (r.rule and r.never_only or r.pending) and nxt is not None and not nxt.rule and \
                not nxt.blocked and (_YOU.match(fold(nxt.text)) or _THERE.match(fold(
                    nxt.text)) and named(nxt.text, lang)) and len(nxt.text.split()) <= 20:
            # what not to do, then what the agent does instead: "pas de deploy depuis ta
            # machine. tu pousses la branche, la CI déploie le preview.", or what there is
            # to do it with
            out.append((n, _sentence(f"{r.text}; {_lower_first(nxt.text)}") + ".",
                        "correction" if r.kind == "correction" or r.told else "directive"))
            used.add(n + 1)
            continue
        if (r.rule and r.never_only or r.pending) and nxt is not None and after is not None \
                and not nxt.positive and not nxt.blocked and not _YOU.match(fold(nxt.text)) and \
                not nxt.told and (after.rule and not after.never_only or not after.rule and
                                  not after.blocked and bool(_YOU.match(fold(after.text)))) and \
                len(after.text.split()) <= 20 and not (starts and not standing(
                    f"{r.text} {after.text}", lang)):
            # what not to do, why, what to do instead: "kein cleanall!! das löscht auch die
            # Downloads ... Wenn überhaupt -c cleansstate, das reicht immer."
            text = f"{r.text}; {_lower_first(after.text)}"
            if nxt.text and len(nxt.text.split()) <= 20:
                text = f"{text}; {nxt.text}"
            kind = "correction" if r.kind == "correction" or after.kind == "correction" \
                else "directive"
            out.append((n, _sentence(text) + ".", kind))
            used.update((n + 1, n + 2))
            continue
        if (r.rule and r.never_only or r.pending) and not starts and _bare(r.text) and \
                nxt is not None and _how_it_is(nxt, lang):
            # a bare prohibition, then how things are instead or why, naming it: "não mexe na
            # versão do GX. estamos na 1.x e fica assim", "Aldrig clean. cleanDisabled=true
            # står där av en anledning", "nada de subir. las wheels las publica el workflow"
            out.append((n, _sentence(f"{r.text}; {_lower_first(nxt.text)}") + ".",
                        "correction" if r.kind == "correction" else "directive"))
            used.add(n + 1)
            continue
        if r.rule:
            if starts and not standing(r.text, lang):
                continue            # the task that opens the session
            text = r.text
            if nxt is not None and nxt.rule and len(nxt.text.split()) <= 20 and (
                    r.never_only and not nxt.never_only or _SO.match(sents[n + 1].strip())):
                # both halves, or what to do because of it ("X liegt in ./a. Also immer ...")
                text = f"{text}; {_lower_first(nxt.text)}"
                used.add(n + 1)
            elif told_after and (why(nxt) or not nxt.text):
                if nxt.text and len(nxt.text.split()) <= 20:
                    text = f"{text}; {_lower_first(nxt.text)}"     # the reason said with it
                used.add(n + 1)
            kind = "correction" if r.kind == "correction" or told_after else "directive"
            out.append((n, _sentence(text) + ".", kind))
        elif r.pending and nxt is not None and (nxt.rule or nxt.told and named(
                nxt.text, lang) and len(nxt.text.split()) <= 12) and not (starts and not standing(
                f"{r.text} {nxt.text}", lang)):
            out.append((n, _sentence(f"{r.text}; {_lower_first(nxt.text)}") + ".",
                        "correction" if r.kind == "correction" or nxt.kind == "correction"
                        else "directive"))
            used.add(n + 1)
        elif told_after and (why(nxt) or not nxt.text) and r.text and not starts and \
                named(r.text, lang) and len(r.text.split()) <= 12:
            # "preset conan-release." + "sans lui ..., je l'ai déjà dit": said again
            text = f"{r.text}; {_lower_first(nxt.text)}" if nxt.text else r.text
            out.append((n, _sentence(text) + ".", "correction"))
            used.add(n + 1)
        elif r.told and not starts and not why(r) and len(r.text.split()) <= 20 and (
                named(r.text, lang) or _content(r.text, w) >= 3):
            out.append((n, _sentence(r.text) + ".", "correction"))   # "X, I told you"
    return out
