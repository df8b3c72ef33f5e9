"""Facts: standing facts a person states about themselves, and facts about other people.

- **standing facts** ("my email is ...", "my sister Mia", "I moved to Lisbon", "I started
  a new job at Acme", "I'm allergic to peanuts", "I'm vegetarian") become fields of the
  scope's ``standing.md``;
- **wiki slots** ("Jordan's birthday is ...", "Jordan works at Acme", "Jordan lives in
  Porto") fill the page of the person named.
"""

from __future__ import annotations

import re
from datetime import datetime

from dream.detect import diets
from dream.detect.cues import english_cues
from dream.detect.finding import Finding
from dream.detect.prose import clean
from dream.items import Item
from dream.kinds.dates import is_date_word
from dream.kinds.records import slug_key
from dream.kinds.text import NOT_NAMES, find_date, names, parse_when, sentences

_RELATIONS = (r"sister|brother|mother|mom|mum|father|dad|wife|husband|partner|boyfriend|"
              r"girlfriend|son|daughter|boss|manager|roommate|flatmate|dog|cat|best friend")
_NAME_WORDS = r"[A-Z][a-z]+(?: [A-Z][a-z]+)?"
_CAPS = r"[A-Z][\w&.'-]*(?:\s+[A-Z][\w&.'-]*){0,3}"
_STANDING = [
    # ("my mum's birthday is 19 December": a possessive among the words before it)
    (re.compile(r"\bmy ((?:[\w']+ ){0,2}?(?:name|birthday|address|email|phone|number|job|role|"
                r"employer|team|timezone|time zone|editor|shell|os|language|partner|wife|"
                r"husband|dog|cat|diet|allergy|manager|boss))(?: (?:at|from) [A-Z][\w&-]*)?"
                r"\s+is\s+([^.,;!?\n]{2,80})", re.I), None),
    # "my sister Mia", "my sister is called Maya", "my boss is named Lee Chen"
    (re.compile(r"\b[Mm]y (" + _RELATIONS + r")(?:'s name is| is called| is named| named| "
                r"called|,)? (" + _NAME_WORDS + r")\b"), None),
    # "I moved to Berlin", "I've just moved to Lisbon"
    (re.compile(r"\b[Ii](?:'ve| have)? (?:just |recently )?moved to (" + _CAPS + r")"), "home"),
    # "I started a new job at Acme", "I joined Acme as a designer"
    (re.compile(r"\b(?:[Ii] (?:just |recently )?(?:started|start|began|am starting|'m starting)|"
                r"[Ss]tarted|[Ss]tarting) (?:a |my )?(?:new )?(?:job|position|role) (?:at|with) ("
                + _CAPS + r")"), "employer"),
    (re.compile(r"\b[Ii](?:'ve| have)? (?:just )?joined (" + _CAPS + r") as\b"), "employer"),
    (re.compile(r"\bi(?:'m| am) allergic to ([^.,;!?\n]{2,60})", re.I), "allergies"),
    # "I have a nut allergy", "ich hab eine Nussallergie"
    (re.compile(r"\b(?:i|ich)(?: have|'ve got| hab| habe) (?:a|an|eine) ([^\W\d_]+?)[ -]?(?:allergy|allergie)\b",
                re.I), "allergies"),
    # "I'm joining Helix Bio as staff engineer", "I'm joining Acme in June", "I'm starting at
    # the BBC in January" (a name may follow "the"), "I start at the Met Office in January"
    # (the present with a when after it: "I start at the Crown at 6" is no job)
    (re.compile(r"\b[Ii](?:'m| am) (?:joining|starting at|moving to a job at) (?:the )?(" +
                _CAPS + r")(?= as\b| in\b| on\b| next\b| from\b|[.,;!?]|$)"), "employer"),
    # (a lower-case word may end the name: "I start at the NHS trust on the Monday")
    (re.compile(r"\b[Ii] (?:start|begin) (?:work |a new job )?at (?:the )?(" + _CAPS +
                r"(?: (?!tomorrow|today|tonight|next|this|at|on|in)[a-z]{3,})?)"
                r"(?= in\b| on\b| next\b| from\b| after\b)"), "employer"),
    # "I've accepted a job at Spotify", "I accepted the offer from Arup"
    (re.compile(r"\b[Ii](?:'ve| have)? (?:just |finally )?accepted (?:a|an|the) (?:new )?(?:job|offer|"
                r"position|role)(?: offer)? (?:at|with|from) (?:the )?(" + _CAPS + r")"), "employer"),
    # "I've got the job at Monzo", "I got the job with Arup!"
    (re.compile(r"\b[Ii](?:'ve| have)? got (?:the|a) (?:new )?(?:job|position|role|place) (?:at|"
                r"with) (?:the )?(" + _CAPS + r")"), "employer"),
    # a new job said the way German, French and Spanish say it: "ich wechsle zum 1.7. zur
    # Deutschen Bahn" (the French and Spanish ones are read as said: _AS_SAID)
    (re.compile(r"\b[Ii]ch wechsle\b[^!?\n]{0,30}?\b(?:zu|zur|zum) (?:der |den |dem )?(" +
                _CAPS + r")"), "employer"),
    (re.compile(r"\b[Ii] live in ([A-Z][\w .'-]{1,60}?)(?=[.,;!?\n]|$| and | with )"), "home"),
    (re.compile(r"\b(?:[Ii] work|[Ii]'?m working|[Ii] am working) (?:at|for) "
                r"([A-Z][\w&.' -]{1,60}?)(?=[.,;!?\n]|$| and | as | since )"),
     "employer"),
    (re.compile(r"\bi(?:'m| am) (?:a |an )?(vegetarian|vegan|pescatarian)\b", re.I), "diet"),
]
_MONTHS = (r"(?:janvier|février|mars|avril|mai|juin|juillet|août|septembre|octobre|novembre|"
           r"décembre|enero|febrero|marzo|abril|mayo|junio|julio|agosto|septiembre|octubre|"
           r"noviembre|diciembre|Januar|Februar|März|April|Mai|Juni|Juli|August|September|"
           r"Oktober|November|Dezember)\b")
# read before the cue words, whose "chez", "à" and "en" are places: "je commence chez
# Decathlon lundi", "empiezo en Telefónica el lunes" (not "je commence à Paris")
_AS_SAID = [
    (re.compile(r"\b(?:[Jj]e (?:commence|démarre|rejoins) chez|[Ee]mpiezo(?: a trabajar)? en|"
                r"[Cc]omienzo(?: a trabajar)? en) (" + _CAPS + r")"), "employer"),
    # a company joined in a month: "je rejoins Altimi en février", "entro en Glovo en marzo",
    # "ich fange im März bei Zalando an" (a month after it: "je rejoins Marc au bar" is no job)
    # (the town of the job between: "je rejoins Airbus à Toulouse en janvier")
    (re.compile(r"\b(?:[Jj]e rejoins|[Ee]ntro en) (?!la |le |les |el |los |las )(" + _CAPS +
                r")(?: (?:à|en|a) [A-ZÀ-Ö][\w-]+)? (?:en|début|fin|à partir de|dès|a partir de|"
                r"el mes de) " + _MONTHS), "employer"),
    # (a word may stand between: "ich fange übrigens im Januar bei Siemens an")
    (re.compile(r"\b[Ii]ch fange (?:[a-zäöüß]+ )?(?:im|ab) " + _MONTHS + r" bei (?:der |dem |den )?(" + _CAPS +
                r") an\b"), "employer"),
]
_NOT_NAME_VALUE = {w.lower() for w in ("übrigens", "also", "dann", "heute", "morgen", "aber",
                                       "und", "oh", "ah", "bon", "alors", "pues", "bueno",
                                       "is", "was", "and", "has", "had", "will", "would",
                                       "said", "says", "thinks", "wants", "Monday", "Tuesday",
                                       "Wednesday", "Thursday", "Friday", "Saturday", "Sunday",
                                       "I", "The", "He", "She", "It", "We", "They", "And")}
_WIKI = [
    re.compile(r"\b([A-Z][a-z]+)'s (email|phone|number|address|wife|husband|partner|"
               r"son|daughter|kids?|dog|cat|job|favou?rite \w+) is ([^.,;!?\n]{2,80})"),
]
# "Anna Maria's birthday is on 14 March", "it's Mia's birthday on Saturday", "Leo turns 30
# on 3 May", "Mia has her birthday on ...": the page of the whole name, a date as its value
_UP, _LOW = "A-ZÀ-ÖØ-Þ", "a-zß-öø-ÿ"
# (a hyphenated first name is one name: "Anna-Lena", "Jean-Luc")
_PERSON = rf"((?<![\w-])[{_UP}][{_LOW}]+(?:-[{_UP}][{_LOW}]+)?(?: [{_UP}][{_LOW}]+)?)"
# a relation or title before the name ("tu prima Valentina", "Oma Gertrud", "meine Tante X")
_KIN = (r"(?:(?:tu|mi|su|nuestra|nuestro|ta|ma|sa|ton|mon|son|notre|deine?|meine?|seine?|"
        r"ihre?|unsere?|your|my|our|his|her)\s+[\w'’]+\s+)?")
_BIRTHDAY = [
    re.compile(_PERSON + r"'s birthday (?!party|dinner|drinks|celebration|lunch|cake|gift|"
               r"present)(?:is |falls |will be )?(?:on |at )?([^.;!?\n]{2,60})"),
    re.compile(r"\bbirthday of " + _PERSON + r" (?:is )?(?:on )?([^.;!?\n]{2,60})"),
    # "it's Dev's 40th on 3 November": an ordinal age is a birthday
    re.compile(_PERSON + r"'s \d{1,3}(?:st|nd|rd|th)(?: birthday)? (?!party|dinner|drinks)"
               r"(?:is |falls )?(?:on )?([^.;!?\n]{2,60})"),
    # "Oma wird am 14. März 80", "Léa aura 30 ans le 25 mai", "Javi cumple 40 el 3 de mayo":
    # turning an age on a day, in German, French and Spanish
    re.compile(_PERSON + r" wird (?:am )?(\d{1,2}\.\s*[A-Za-zÄÖÜäöü]{3,}\.?|\d{1,2}\.\d{1,2}\.?) "
               r"\d{1,3}\b"),
    re.compile(_PERSON + r" (?:aura \d{1,3} ans|(?:cumple|birthday) \d{1,3}(?: años)?) "
               r"((?:le|el) [^.;!?\n]{2,30})"),
    re.compile(_PERSON + r" (?:turns \d{1,3}|has (?:her|his|their) birthday|celebrates (?:her|"
               r"his|their) birthday) (?:on )?([^.;!?\n]{2,60})"),
    # read after the cue words: "el birthday de tu prima Valentina es el 14 de agosto",
    # "l'birthday de Chloé est le 3 mai", "der birthday von Markus ist am 3. Mai"
    re.compile(r"\bbirthday (?:de|d'|von|of|del)\s*" + _KIN + _PERSON +
               r",?\s+(?:es|est|ist|is|c'est|será|sera|wird)\s+([^.;!?\n]{2,60})"),
    # "Markus hat morgen birthday", "übrigens hat Markus am 3. Mai birthday"
    re.compile(r"\bhat " + _PERSON + r" ((?:[^!?;\n]|\.(?=\s*[\w]))" + r"{1,30}?) birthday\b"),
    re.compile(_PERSON + r" (?:hat|has) ((?:[^!?;\n]){1,30}?) birthday\b"),
    # "c'est l'birthday de Chloé demain", "es el birthday de Marta el sábado"
    re.compile(r"\b(?:c'est|es|ist) (?:l'|el |der )?birthday (?:de|d'|von|del)\s*" + _KIN +
               _PERSON + r"\s+([^.;!?\n]{2,40})"),
]
# (an adverb may stand between: "my sister Ruth just moved to Leeds", "Omar now lives in Hove")
_WIKI_VERB = re.compile(r"\b([A-ZÀ-ÖØ-Þ][a-zß-öø-ÿ]+)(?:(?:'s| has)(?= (?:(?:just|recently|now|"
                        r"finally|also) )?moved)|(?='s allergic))? "
                        r"?(?:(?:just|recently|now|finally|also) )?(works at|works for|lives in|moved to|moved into|is allergic to|'s allergic "
                        r"to) ([\w&' -]{2,60}?)(?=[.,;!?\n]|$| and | so | but | donc | así | also | btw)")


# someone else's allergy said as what they have: "Dylan has a nut allergy", "my Eli has a
# severe peanut allergy", "Mia reagiert allergisch auf Sesam"
_HAS_ALLERGY = [
    # (a name may carry an initial, "Noah K. has a severe peanut and tree nut allergy")
    re.compile(_PERSON + r"(?: [A-Z]\.)? has (?:got )?(?:a|an) (?:(?:severe|serious|bad|mild|real|"
               r"nasty|proper)\s+)?([^\W\d_]+(?:[ -](?!allergy)[^\W\d_]+)?"
               r"(?: and (?:[^\W\d_]+ )?[^\W\d_]+)?)[ -]allergy\b"),
    re.compile(_PERSON + r" reagiert (?:\w+ )?allergisch auf ([^\W\d_]+)"),
]


_SAME_FACT = {"allergy": "allergies", "time_zone": "timezone", "home_address": "address",
              "employer": "employer", "company": "employer", "workplace": "employer"}


def standing(item: Item) -> list[Finding]:
    """Standing facts a person states about themselves ("my X is Y", "I live in ...")."""
    out: list[Finding] = []
    text = english_cues(item.text)
    for rx, fact, said in [(rx, fact, text) for rx, fact in _STANDING] + \
            [(rx, fact, item.text) for rx, fact in _AS_SAID]:
        for m in rx.finditer(said):
            if fact is None:
                key, value = m[1].lower().replace("'", ""), m[2]
                if value.split()[0].lower() in _NOT_NAME_VALUE or (
                        re.fullmatch(_RELATIONS, key) and not value[:1].isupper()):
                    continue        # "my dog is so cute" names nobody
            else:
                key, value = fact, m[1]
            value = re.sub(r"\s+(?:as well|too|now|though)$", "", clean(value), flags=re.I)
            name = slug_key(key).replace("-", "_")
            # one fact, one field, whatever the wording: "my allergy is ..." and, later,
            # "I'm allergic to ..." revise the same fact
            name = _SAME_FACT.get(name, name)
            out.append(Finding("standing", {name: value}, [item.id]))
    eaten = diets.diet(item.text)
    if eaten and not any("diet" in f.fields for f in out):
        out.append(Finding("standing", {"diet": eaten}, [item.id]))
    return out


def _person(found: str) -> str | None:
    """The name a capitalised pair stands for: a sentence's first word glued to a name is
    no part of it ("Und Lukas wird am 28. Dezember 50", "And Mia turns 7 on Friday"); a
    word that is no name alone ("She", "Monday") names nobody."""
    first, _, rest = found.partition(" ")
    if first.lower() in _NOT_NAME_VALUE:
        return rest if rest and rest.lower() not in _NOT_NAME_VALUE else None
    return found


_MY_BIRTHDAY = re.compile(r"\b(?:my|mi|mon|ma|mein|meinen) (?:(?:actual|real|own) )?birthday "
                          r"(?!party|dinner|drinks|lunch|"
                          r"cake)(?:is |falls |will be |es |est |c'est |ist )?"
                          r"(?:on |at |el |le |am )?([^.;!?\n]{2,40})", re.I)
# "el 3 de octubre es mi cumple", "le 3 mai c'est mon anniversaire": the day first
_MY_BIRTHDAY_AFTER = re.compile(r"([^.;!?\n,]{1,29}?[^\s.;!?\n,])\s+(?:is|es|est|c'est|ist)\s+"
                                r"(?:my|mi|mon|ma|mein) birthday\b", re.I)
# the word both need, looked for first: on a text without it _MY_BIRTHDAY_AFTER tried every
# start, and a message of 1,000 spaces took seconds (32,000, as collect keeps, minutes)
_BIRTHDAY_WORD = re.compile("birthday", re.I)


_YEAR = re.compile(r"\b(?:1[89]|20)\d{2}\b")


# what follows a right value to say the wrong one: "the 15th not the 14th", "nicht am 4."
_WRONG_PART = re.compile(r",?\s+(?:not|nicht|pas|no|niet|inte|nie|non|não)\s+(?=\S)", re.I)


def birthday_value(span: str, said: datetime | None) -> str | None:
    """The date a birthday is on: ``YYYY-MM-DD`` when the words give the year (of birth),
    else ``--MM-DD`` (ISO 8601's day without a year): "Mum's birthday is on the 18th of
    August" is every year's 18 August, not this year's. A correction's wrong date is not
    read: "the 15th not the 14th", "am 3. nicht am 4.", "le 5, pas le 6"."""
    span = _WRONG_PART.split(span, maxsplit=1)[0]
    when = find_date(span, said)
    day = re.match(r"\s*(?:the\s+|am\s+)?(\d{1,2})(?:st|nd|rd|th|\.)(?=\W|$)", span)
    if when is None and day:
        # a day number alone, with words after it ("the 17th btw", "am 22."): the next one
        when = find_date(f"the {day[1]}th", said)
    if when is None:
        return None
    year = _YEAR.search(span)
    return f"{year[0]}{when[4:]}" if year else "--" + when[5:]


# an age turned on a day, said of "she"/"he": "Mira's party prep. She turns 5 on the 19th",
# "Jonas fragt ob du kommst, er wird am 22. acht!" (the one person named before it)
# an age said as a number or a number word ("turns five", "wird am 22. acht"); any other
# word is no age: "she'll be home on Friday" is no birthday
_AGE_WORD = (r"(?:\d{1,3}|(?:one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|"
             r"thirteen|fourteen|fifteen|sixteen|seventeen|eighteen|nineteen|twenty|thirty|"
             r"forty|fifty|sixty|seventy|eighty|ninety|a hundred|eins|zwei|drei|vier|fünf|"
             r"sechs|sieben|acht|neun|zehn|elf|zwölf|[a-zäöü]+zehn|[a-zäöü]*(?:zig|ßig))"
             r"(?:-[a-z]+)?)")
_THEY_TURN = [
    re.compile(r"\b(?:[Ss]he|[Hh]e)(?: turns|'ll be| will be| is turning|'s turning) " + _AGE_WORD +
               r" on ([^.;!?\n]{2,40})"),
    re.compile(r"\b(?:[Ee]r|[Ss]ie) wird am (\d{1,2}\.(?:\s*[A-Za-zÄÖÜäöü]{3,}\.?|\d{1,2}\.)?) " +
               _AGE_WORD + r"\b"),
    re.compile(r"\b(?:[Ee]lle|[Ii]l) aura \d{1,3} ans ((?:le|la) [^.;!?\n]{2,30})"),
    re.compile(r"\b(?:[Ee]lla|[Éé]l) cumple \d{1,3}(?: años)? ((?:el|la) [^.;!?\n]{2,30})"),
]


def birthdays(item: Item) -> list[Finding]:
    """Birthdays on the page of the person named, with the date as the value, without a
    year unless one is said (a birthday whose date the text does not give is not
    filled)."""
    out: list[Finding] = []
    said = parse_when(item.said_at)
    seen: set[str] = set()
    text = english_cues(item.text)
    author = getattr(item, "author", None)
    m = (_MY_BIRTHDAY.search(text) or _MY_BIRTHDAY_AFTER.search(text)) \
        if _BIRTHDAY_WORD.search(text) else None
    if m and item.role == "other" and author:     # "my birthday is on the 20th", said by Tom
        when = birthday_value(m[1], said)
        if when:
            seen.add(author)
            out.append(Finding("wiki", {"name": author, "birthday": when}, [item.id],
                               name=author))
    for rx, said_in in [(rx, text) for rx in _BIRTHDAY] + [(_AGE_ON, item.text)]:
        for m in rx.finditer(said_in):
            person = _person(m[1])
            if person is None or person in seen or is_date_word(person.split()[0]):
                continue
            when = birthday_value(m[2], said)
            if when is None:
                continue
            seen.add(person)
            out.append(Finding("wiki", {"name": person, "birthday": when}, [item.id],
                               name=person))
    for rx in _THEY_TURN:
        for m in rx.finditer(item.text):
            person = _referent(item.text[:m.start()], author)
            when = birthday_value(m[1], said) if person and person not in seen else None
            if when:
                seen.add(person)
                out.append(Finding("wiki", {"name": person, "birthday": when}, [item.id],
                                   name=person))
    return out


# a person whose age or birthday a message names: "les 30 ans de Camille", "Léa's 30th",
# "Oma wird 80", "Javi cumple 40", "for Dev's birthday"
_CELEBRATED = [
    re.compile(r"\bles \d{1,3} ans d[e'] ?" + _PERSON),
    re.compile(r"\blos \d{1,3}(?: años)? de " + _PERSON),
    re.compile(_PERSON + r"(?:'s|’s) (?:\d{1,3}(?:st|nd|rd|th) )?birthday\b"),
    re.compile(_PERSON + r"(?:'s|’s) \d{1,3}(?:st|nd|rd|th)\b"),
    re.compile(_PERSON + r"s \d{1,3}\. birthday\b"),
    re.compile(_PERSON + r" (?:wird|turns|cumple|fête ses) \d{1,3}\b"),
    re.compile(r"\bbirthday (?:de|d'|von|of|del)\s*" + _KIN + _PERSON),
]
# a birthday told with a possessive: "son anniversaire c'est le 9 octobre", "her birthday is
# on the 3rd", "sein Geburtstag ist am 3. Mai", "su cumple es el 4 de mayo" (read after the
# cue words: "birthday")
_THEIR_BIRTHDAY = re.compile(
    r"\b(?:son|sa|sein|seinen|ihr|ihren|su|his|her|their) birthday,?\s+(?:c'est |est |ist |es |"
    r"is |'s |falls |fällt )?(?:le |am |el |on )?((?:[^.;!?\n]|\.(?=\s*\w)){2,40})", re.I)


def celebrated(text: str) -> str | None:
    """The one person whose age or birthday ``text`` names, or None."""
    text = english_cues(text)
    found = {m[1] for rx in _CELEBRATED for m in rx.finditer(text)
             if m[1].split()[0].lower() not in _NOT_NAME_VALUE}
    return found.pop() if len(found) == 1 else None


def their_birthday(item: Item, person: str | None) -> list[Finding]:
    """A birthday told with a possessive, on the page of ``person`` (the one the message or
    the one before it in the conversation celebrates); nothing without one."""
    if not person:
        return []
    m = _THEIR_BIRTHDAY.search(english_cues(item.text))
    when = birthday_value(m[1], parse_when(item.said_at)) if m else None
    return [Finding("wiki", {"name": person, "birthday": when}, [item.id], name=person)] \
        if when else []


# an age celebrated on a day, read as said (the cue words make "fête" a party): "Papa
# (Gérard) fête ses 65 ans le 26 décembre", "Opa feiert am 3. Mai seinen 80.", "Javi celebra
# sus 40 el 3 de mayo"
_AGE_ON = re.compile(_PERSON + r"\)? (?:fête ses \d{1,3} ans|celebra sus \d{1,3}(?: años)?|"
                     r"feiert (?:seinen|ihren) \d{1,3}\.(?: Geburtstag)?) ((?:le|el|am) "
                     r"(?:[^.;!?\n]|\.(?=\s*\w)){2,30})")
_OWN_SLOTS = {"allergies": "allergies", "employer": "work", "home": "home", "diet": "diet"}


# a fact told of "she" or "he" ("Heads up she's allergic to tree nuts", "my sister Fran has a
# new job, she's starting at Arup") is about the one person the message names before it
# (read after the cue words: "elle est allergique aux" is "is allergic to")
_PRONOUN = r"\b(?:[Ss]he|[Hh]e|[Ee]lle|[Ii]l|[Ss]ie|[Ee]r|[Ee]lla|[ÉéEe]l)"
_PRONOUN_FACTS = [
    (re.compile(_PRONOUN + r"(?:'s| is)(?: also| now| actually)? allergic to ([^.,;!?\n]{2,60})"),
     "allergies"),
    (re.compile(_PRONOUN + r"(?:'s| is) (?:starting|joining|moving to a job) (?:at |with )?(?:the )?(" +
                _CAPS + r")(?= as\b| in\b| on\b| next\b| from\b|[.,;!?]|$)"), "work"),
    (re.compile(_PRONOUN + r" (?:has |just )?(?:started|joined) (?:a new job |work )?(?:at |with )?"
                r"(?:the )?(" + _CAPS + r")(?= as\b| in\b| on\b| last\b| this\b|[.,;!?]|$)"), "work"),
]
_KIN_NAME = re.compile(r"\b(?:[Mm]y|[Oo]ur|[Yy]our|[Hh]is|[Hh]er|[Tt]heir) (?:" + _RELATIONS +
                       r"|cousin|niece|nephew|aunt|auntie|uncle|nan|gran|grandma|grandpa|friend|"
                       r"colleague|neighbour|neighbor) " + _PERSON)
# a sentence opened by a name doing something: "Mia would love to come"
_NAME_DOES = re.compile(r"(?:^|[.!?]\s+)" + _PERSON + r"(?: (?:would|will|is|was|has|had|can|"
                        r"could|loves?|says?|said|asks?|asked|'s|just|sagt|fragt|meint|hat|ist|"
                        r"kommt|dit|demande|est|dice|pregunta|tiene|viene)\b| (?:and|&) [A-Z])")


def _referent(before: str, author: str | None) -> str | None:
    """The one person a pronoun after ``before`` stands for: named with a relation ("my
    sister Fran"), else as a sentence's subject or mid-sentence; None when there are none
    or several."""
    before = english_cues(before)       # "Geburtstag" is no name: "birthday"
    kin = {m[1] for m in _KIN_NAME.finditer(before)}
    found = kin or ({m[1] for m in _NAME_DOES.finditer(before)} | set(names(before)))
    found = {p for n in found if (p := _person(n)) and not is_date_word(p.split()[0]) and
             p.lower() not in NOT_NAMES and p != author}
    return found.pop() if len(found) == 1 else None


def _pronoun_facts(item: Item, text: str) -> list[Finding]:
    out: list[Finding] = []
    author = getattr(item, "author", None)
    for rx, slot in _PRONOUN_FACTS:
        for m in rx.finditer(text):
            person = _referent(text[:m.start()], author)
            if person:
                out.append(Finding("wiki", {"name": person, slot: clean(m[1])}, [item.id],
                                   name=person))
    return out


# a baby born to someone: "new grandson arrived Sunday, Idris", "just had a baby girl called
# Rosa", "os presento a la peque, se llama Alba ... nació el domingo", "little Ezra is 3
# weeks old": the baby's name on the page of the one who tells it (or the one "she"/"he"
# stands for)
_BABY = (r"(?:new |little |baby |newborn )*(grandson|granddaughter|baby(?: girl| boy)?|"
         r"little (?:girl|boy|one)|son|daughter|peque|bebé|nieto|nieta|Enkel(?:in)?|"
         r"bébé|petit-fils|petite-fille)")
_BORN = [
    re.compile(r"\b" + _BABY + r"\b,?\s*(?:(?:is|was|'s|who is|who's)\s+)?(?:called|named|"
               r"se llama|heißt|s'appelle)\s+" +
               _PERSON, re.I),
    re.compile(r"\b" + _BABY + r" (?:arrived|was born|is here|has arrived)\b[^.!?\n,]{0,20},\s+" +
               _PERSON + r"(?=[,.!?\s]|$)", re.I),
    re.compile(r"\b(?:little|baby) " + _PERSON + r" is (?:\d{1,2}|one|two|three|four|five|six) "
               r"(?:days?|weeks?|months?) old\b"),
]
_HAD_BABY = re.compile(r"\b([Ss]he|[Hh]e|[Tt]hey)(?:'s| has| have|'ve)? (?:just )?had\b")


def births(item: Item) -> list[Finding]:
    """The name of a baby someone tells was born, on the page of its parent or grandparent:
    the message's author, or the one person "she"/"he just had a baby" stands for."""
    author = getattr(item, "author", None)
    out: list[Finding] = []
    for rx in _BORN:
        for m in rx.finditer(item.text):
            baby = m.groups()[-1]
            if not baby[:1].isupper() or baby.split()[0].lower() in _NOT_NAME_VALUE or \
                    is_date_word(baby.split()[0]):
                continue
            who = _HAD_BABY.search(item.text[:m.start()])
            parent = _referent(item.text[:who.start()], author) if who else \
                (author if item.role == "other" and author and "@" not in author else None)
            if parent is None:
                continue
            slot = (m[1] if len(m.groups()) > 1 else "baby").lower().split()[-1]
            slot = "baby" if slot in ("girl", "boy", "one", "peque", "bebé", "bébé") else slot
            out.append(Finding("wiki", {"name": parent, slot: baby}, [item.id], name=parent))
            return out
    return out


# a new job said as a noun: "nouveau poste chez Decathlon", "einen neuen Job bei der
# Sparkasse", "a new role at Arup" (of the speaker, who says "I"/"je"/"ich"), and "Owen
# got the Network Rail job" (of the one named)
_NEW_JOB = re.compile(r"\b(?:new|neue[nmr]?|nouveau|nouvelle|nuevo|nueva)\s+(?:job|Job|poste|"
                      r"travail|trabajo|Stelle|role|position|puesto)\s+(?:at|bei|chez|en|with|"
                      r"in)\s+(?:der |dem |den |la |le |el |the )?(" + _CAPS + r")")
_FIRST_PERSON = re.compile(r"(?<![\w'])(?:I|I'm|I've|ich|je|j'|yo)(?![\w'])", re.I)
_OF_KIN = re.compile(r"\b(?:my|mein\w*|mon|ma|mi|our|unser\w*|notre|nuestr[oa])\s+(?:" + _RELATIONS +
                     r"|cousin|friend|Schwester|Bruder|Freundin|Freund|sœur|frère|hermana|hermano)\b",
                     re.I)
_GOT_THE_JOB = re.compile(_PERSON + r" (?:got|has got|'s got|landed) the (" + _CAPS + r") job\b")


# someone named starting work somewhere, as German, French and Spanish say it: "Marta ha
# empezado a trabajar en Zara", "Paul a commencé chez Michelin", "Jonas arbeitet jetzt bei
# Bosch", "Lea hat bei der Telekom angefangen"
_THEY_START = [
    re.compile(_PERSON + r" (?:ha empezado|empezó|empieza|ha comenzado|comenzó) a trabajar en "
               r"(?!el |la |los |las )(" + _CAPS + r")"),
    re.compile(_PERSON + r" (?:a commencé|commence|a démarré|démarre|a signé|signe|travaille (?:maintenant|"
               r"désormais)) chez (" + _CAPS + r")"),
    re.compile(_PERSON + r" (?:arbeitet (?:jetzt|inzwischen|neuerdings|seit \w+) bei|hat (?:jetzt )?"
               r"bei) (?:der |dem |den )?(" + _CAPS + r")(?: angefangen\b)?"),
]
# someone leaving for a new place, in a message about their leaving: "Carla is leaving us
# after nine years - she's off to Deloitte in the new year", "Sven's leaving drinks ... He's
# off to Spotify in Stockholm"
_OFF_TO = re.compile(r"(?:\b([Ss]he|[Hh]e)|" + _PERSON + r")(?:'s| is) (?:off|leaving|moving) to "
                     r"(?:join |work (?:at|for) )?(?:the )?(" + _CAPS + r")")
# (a leaving from work: "Carla is leaving us", "Sven's leaving drinks", not "leaving early")
_LEAVING = re.compile(r"(?:\b([A-ZÀ-ÖØ-Þ][a-zß-öø-ÿ]+)(?:'s| is))? (?:leaving (?:drinks|do|party|card|"
                      r"present|gift|lunch|us|the (?:company|team|firm|office)|after)|last day|"
                      r"farewell)\b")


def they_start(item: Item) -> list[Finding]:
    """Someone named starting work somewhere, or leaving for a new place, on their page."""
    out: list[Finding] = []
    for rx in _THEY_START:
        for m in rx.finditer(item.text):
            person = _person(m[1])
            if person and not is_date_word(person.split()[0]) and \
                    person.lower() not in NOT_NAMES and m[2].split()[0] not in ("Mit", "Bei"):
                out.append(Finding("wiki", {"name": person, "work": clean(m[2])}, [item.id],
                                   name=person))
    leaving = {w[1] for w in _LEAVING.finditer(item.text) if w[1]}
    if _LEAVING.search(item.text):
        for m in _OFF_TO.finditer(item.text):
            person = _person(m[2]) if m[2] else next(iter(leaving)) if len(leaving) == 1 else \
                _said_of(item, item.text[:m.start()], m[1])
            if person and not is_date_word(person.split()[0]) and \
                    person.lower() not in NOT_NAMES and not is_date_word(m[3].split()[0]):
                out.append(Finding("wiki", {"name": person, "leaving_for": clean(m[3])},
                                   [item.id], name=person))
    return out


def new_job(item: Item) -> list[Finding]:
    """A new job someone else tells of, on the page of the one it is about."""
    author = getattr(item, "author", None)
    out: list[Finding] = []
    m = _NEW_JOB.search(item.text)
    if m and item.role == "other" and author and "@" not in author and \
            _FIRST_PERSON.search(item.text[:m.start()]) and \
            not _OF_KIN.search(item.text[:m.start()]):
        out.append(Finding("wiki", {"name": author, "work": clean(m[1])}, [item.id],
                           name=author))
    for m in _GOT_THE_JOB.finditer(item.text):
        person = _person(m[1])
        if person and not is_date_word(person.split()[0]) and person.lower() not in NOT_NAMES:
            out.append(Finding("wiki", {"name": person, "work": clean(m[2])}, [item.id],
                               name=person))
    return out


# someone telling their new address: "New address for your address books: 14 Marlowe Close,
# Bristol", "Meine neue Adresse ab 6.12. übrigens: Wrangelstraße 40, 10997 Berlin", "we've
# moved - new place is Flat 4, 19 Carrow Road" (an address has a number in it)
_NEW_ADDRESS = re.compile(r"\b(?:new (?:address|place)|neue Adresse|nouvelle adresse|"
                          r"nueva direcci[óo]n)\b[^:\n]{0,40}?(?::|\bis\b|\bist\b|\best\b|\bes\b)"
                          r"\s*((?=[^\n]*\d)[^\n()\U0001F300-\U0001FAFF\u2600-\u27BF]{5,80})", re.I)


def new_address(item: Item) -> list[Finding]:
    """The new address someone else tells, on their page."""
    author = getattr(item, "author", None)
    if item.role != "other" or not author or "@" in author:
        return []
    m = _NEW_ADDRESS.search(item.text)
    if m is None or not re.search(r"\d", m[1]):
        return []
    value = clean(m[1]).rstrip(" .,!")
    return [Finding("wiki", {"name": author, "address": value}, [item.id], name=author)]


# a value said wrong, set right: "it's Birch House, not Beech House", "Es Aroa, no Alba",
# "Sorry, es ist die 12, nicht die 21"
_NOT_THAT = re.compile(r"(?:^|[.!?:,]\s*|\s[-–—]\s*|\b(?:it'?s|it is|es ist|ist|es|c'est|sorry|perdón|"
                       r"pardon)\s+)(?:(?:the|die|der|das|la|el|le|les)\s+)?"
                       r"([^\s,.;!?][^,.;!?]{0,30}?),\s*(?:not|no|nicht|pas|non)\s+"
                       r"(?:(?:the|die|der|das|la|el|le|les|a|al)\s+)?([^\s,.;!?][^,.;!?]{0,30}?)"
                       r"(?=\s*(?:[,.;!?)]|$|[-–—]|[\U0001F300-\U0001FAFF\u2600-\u27BF]))", re.I)
# the words that say who is or does what, before the value set right: "Ines is a midwife,
# not a nurse", "she's moved to Harrogate, not Leeds", "he's our COO, not CFO", "elle
# travaille chez Safran, pas Thales" (a verb, a copula or a possessive)
_SAYS_OF = re.compile(r"\b(?:is|are|was|were|'s|'re|ist|sind|war|est|sont|c'est|es|son|está|"
                      r"our|their|his|her|my|unser\w*|ihr\w*|sein\w*|notre|leur|sa|su|nuestr[oa])\b|"
                      r"\b[^\W\d_]+(?:ed|ing|s|t|e)\s+(?:at|to|in|for|from|with|bei|nach|in|à|chez|en|a)\b",
                      re.I)
_LEAD = re.compile(r"^(?:it'?s|it is|es ist|ist|es|c'est|sorry|perdón|pardon|the|die|der|das|"
                   r"la|el|le|les)\s+", re.I)


def _parallel(right: str, wrong: str) -> str:
    """The words of ``right`` that stand for ``wrong``: as many words from its end as the
    wrong value has, when the words before them say who is or does it ("Ines is a midwife"
    -> "midwife" for "nurse", "she's moved to Harrogate" -> "Harrogate" for "Leeds") and the
    two look alike (both a name, both lower case, both a number); else ``right`` as said."""
    words, k = right.split(), len(wrong.split())
    if len(words) <= k or not _SAYS_OF.search(" ".join(words[:-k])):
        return right
    tail = " ".join(words[-k:])
    alike = (tail[:1].isupper() == wrong[:1].isupper() and
             tail[:1].isdigit() == wrong[:1].isdigit())
    return tail if alike else ""


def corrected(item: Item, pages: list[tuple[str, str, str]]) -> list[Finding]:
    """A slot of a person's page whose value the message sets right: ``pages`` are the live
    slots (person, slot, value); the wrong words must stand in exactly one of them, on the
    page of the message's author or of a person it names, and the right ones be short (a
    name, a number). Birthdays are read by :func:`birthdays`."""
    author = getattr(item, "author", None)
    out: list[Finding] = []
    for m in _NOT_THAT.finditer(item.text):
        right, wrong = m[1].strip(), m[2].strip()
        while _LEAD.match(right):
            right = _LEAD.sub("", right, count=1)
        right = _parallel(right, wrong)
        if not right or len(right.split()) > 3 or right.lower() == wrong.lower():
            continue
        rx = re.compile(r"(?<![\w-])" + re.escape(wrong) + r"(?![\w-])", re.I)
        hits = [(person, slot, value) for person, slot, value in pages
                if slot != "birthday" and rx.search(value) and
                (person == author or re.search(r"\b" + re.escape(person.split()[0]) + r"\b",
                                                item.text))]
        if len(hits) != 1:
            continue
        person, slot, value = hits[0]
        out.append(Finding("wiki", {"name": person, slot: rx.sub(right, value, count=1)},
                           [item.id], name=person))
    return out


# a pregnancy someone tells of: "Anna ist schwanger!! Termin ist Mitte Mai", "she's pregnant!!
# Due in June" (of the one person named before), "je suis enceinte de 4 mois" (the teller),
# and a due date alone in a message about a baby ("a surprise baby shower ... She's due 18
# January"): the due date as said, else the words said
_PREGNANT_WORD = r"(?:pregnant|schwanger|enceinte|embarazada)"
_PREGNANT = re.compile(r"\b(?:(?:I|[Jj]e|[Ii]ch|[Ss]he|[Ee]lle|[Ss]ie|[Ee]lla)|" + _PERSON + r")"
                       r"(?:'s|'m| is| am| ist| bin| est| suis| está| estoy)"
                       r"(?: (?:now|also|actually|jetzt|auch|aussi|también|ya))? (" +
                       _PREGNANT_WORD + r"(?: de \d{1,2} mois| de \d{1,2} meses)?)(?![\w-])")
_DUE = re.compile(r"\b(?:(?:[Dd]ue|[Tt]ermin ist|[Gg]eburtstermin ist|ET ist|[Tt]erme (?:prévu )?"
                  r"(?:le|en|pour|début|fin|mi-)|[Pp]révue? pour|[Ss]ale de cuentas(?: el| en| a)?)"
                  r"\s+)((?:on |in |im |am |en |el |le |for |around |mid[- ]|early |late |end of )?"
                  r"[^.,;!?\n()]{2,30})")
_SHE_DUE = re.compile(r"\b([Ss]he|[Ee]lle|[Ss]ie|[Ee]lla)(?:'s| is| ist| est| está) due "
                      r"((?:on |in )?[^.,;!?\n()]{2,30})")
_BABY_TALK = re.compile(r"\b(?:baby|babies|shower|bump|pregnan\w*|schwanger\w*|enceinte|embarazad"
                        r"\w*|bébé|bebé)\b", re.I)
_GREETED = re.compile(r"\b(?:[Hh]i|[Hh]ey|[Hh]ello|[Dd]ear|[Hh]allo|[Ll]iebe[rs]?|[Ss]alut|[Cc]oucou|"
                      r"[Bb]onjour|[Hh]ola|[Qq]uerid[oa])\s+([A-ZÀ-ÖØ-Þ][a-zß-öø-ÿ]+)")


def _said_of(item: Item, before: str, pronoun: str | None) -> str | None:
    """Whom a fact is about: the teller for "I"/"je"/"ich", the one person named before a
    pronoun (not the teller, nor the one greeted: "Hi Chloe! It's Hannah ... She's due"),
    else the name said."""
    author = getattr(item, "author", None)
    if pronoun is None:
        return None
    if pronoun.lower() in ("i", "je", "ich", "yo"):
        return author if item.role == "other" and author and "@" not in author else None
    greeted = {m[1] for m in _GREETED.finditer(before)}
    found = {m[1] for m in _KIN_NAME.finditer(english_cues(before))} or \
        ({m[1] for m in _NAME_DOES.finditer(before)} | set(names(before)))
    found = {p for n in found if (p := _person(n)) and not is_date_word(p.split()[0]) and
             p.lower() not in NOT_NAMES and p != author and p not in greeted and
             (not author or p != author.split()[0]) and
             not re.search(r"\d\s+" + re.escape(p), before)}      # "22 Linden Avenue"
    return found.pop() if len(found) == 1 else None


def _said(value: str) -> str:
    """A value as said, without the emoji and the clause that follows it ("18 January so
    we're cutting it fine")."""
    value = re.sub(r"[\U0001F300-\U0001FAFF\u2600-\u27BF\ufe0f]+", " ", value)
    value = re.split(r"\s(?:so|and|but|donc|et|mais|also|und|aber|y|pero|así que)\s", value)[0]
    return clean(value).strip(" -–")


# how many pronouns ("she's pregnant") a message gets read back for whom they are about:
# each look reads all the text before it (names, cue words), so reading back for every one
# made a message repeating it quadratic (8 KB of "she is pregnant" took 6 s, 50 KB never
# ended); a message that tells of a pregnancy says it once or twice
_PRONOUN_LOOKS = 3


def pregnancies(item: Item) -> list[Finding]:
    """A pregnancy someone tells of, on the page of the one it is about, with the due date
    when the message says one."""
    text = item.text
    out: list[Finding] = []
    looks = 0
    for m in _PREGNANT.finditer(text):
        said = m.group(0).split("'")[0].split()[0]
        if m[1]:
            person = _person(m[1])
            if person is None or is_date_word(person.split()[0]) or person.lower() in NOT_NAMES:
                continue
        else:
            if looks == _PRONOUN_LOOKS:
                continue
            looks += 1
            person = _said_of(item, text[:m.start()], said)
        if not person:
            continue
        due = _DUE.search(text, m.end())
        value = f"due {_said(due[1])}" if due and due.start() - m.end() < 40 else _said(m[2])
        out.append(Finding("wiki", {"name": person, "pregnant": value}, [item.id], name=person))
        return out
    if _BABY_TALK.search(text):
        for looks, m in enumerate(_SHE_DUE.finditer(text)):
            if looks == _PRONOUN_LOOKS:
                break
            person = _said_of(item, text[:m.start()], m[1])
            if person and (find_date(m[2], parse_when(item.said_at)) or re.search(
                    r"\b(?:jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)[a-z]*\b", m[2], re.I)):
                out.append(Finding("wiki", {"name": person, "pregnant": f"due {_said(m[2])}"},
                                   [item.id], name=person))
                return out
    return out


# parental leave someone tells of: "I'm on paternity leave from 14 December", "je serai en
# congé maternité à partir du 8 janvier" (the teller), "Frau Berger geht ab Januar in
# Elternzeit" (the one named): the leave with its start as said
_LEAVE = re.compile(r"\b(?:(?:paternity|maternity|parental|adoption|shared parental) leave|"
                    r"cong[ée]s? (?:de )?(?:maternit[ée]|paternit[ée]|parental)|Elternzeit|"
                    r"Mutterschutz|(?:baja|permiso) (?:de |por )?(?:maternidad|paternidad))\b", re.I)
_LEAVE_FROM = re.compile(r"\b(?:from|starting|as of|à partir du?|dès le|ab|vom|desde el|a partir "
                         r"del?)\s+([^.,;!?\n()]{2,25})", re.I)
_FIRST = re.compile(r"(?<![\w'])(?:I|I'm|I'll|I've|je|j'|ich|yo|me|estaré|estoy)(?![\w'])", re.I)
# a name said with a title: "Frau Berger", "Mrs Patel", "Mme Durand", "la señora Ruiz"
_TITLED = re.compile(r"\b((?:Frau|Herr|Mrs?|Ms|Miss|Dr|Mme|Madame|Monsieur|M\.|Sra?\.|Señora|"
                     r"Señor) [A-ZÀ-ÖØ-Þ][a-zß-öø-ÿ]+(?:-[A-ZÀ-ÖØ-Þ][a-zß-öø-ÿ]+)?)")
_THIRD = re.compile(r"\b([Ss]he|[Hh]e|[Ee]lle|[Ii]l|[Ss]ie|[Ee]r|[Ee]lla|[ÉéEe]l)\b")


def leave(item: Item) -> list[Finding]:
    """Parental leave someone tells of, on the page of the one who takes it (the user's own
    is a standing fact)."""
    author = getattr(item, "author", None)
    out: list[Finding] = []
    text = item.text
    for sent in sentences(text)[:30]:
        m = _LEAVE.search(sent)
        if m is None or "?" in sent:
            continue
        before = sent[:m.start()]
        when = _LEAVE_FROM.search(sent)
        since = re.split(r"\s(?:for|until|till|bis|jusqu\w*|hasta|and|so|und|et|y)\b", when[1])[0] \
            if when else ""
        if when and when.start() < m.start():      # "geht ab Januar in Elternzeit"
            since = re.sub(r"\s+(?:in|en|on|de|auf|into|go on|goes on)$", "",
                           sent[when.start(1):m.start()].strip())
        value = m[0] + (f" {when[0][:when.start(1) - when.start()].strip()} {_said(since)}"
                        if when else "")
        if _FIRST.search(before):
            if item.role == "user":
                out.append(Finding("standing", {"leave": value}, [item.id]))
                continue
            person = author if item.role == "other" and author and "@" not in author else None
        else:
            titled = [m[1] for m in _TITLED.finditer(before)]
            named = titled or [p for n in names(before) if (p := _person(n)) and
                               not is_date_word(p.split()[0]) and p.lower() not in NOT_NAMES]
            pronoun = _THIRD.search(before)
            person = named[0] if len(named) == 1 else \
                _said_of(item, text[:text.find(sent)] + before, pronoun[1]) \
                if pronoun and not named else None
        if person:
            out.append(Finding("wiki", {"name": person, "leave": value}, [item.id], name=person))
    return out


# someone named keeping a diet: "Uncle Pete is gluten free now", "Marta es celíaca", "Tom ist
# jetzt Veganer"; or no longer able to eat a food: "el primo Iván ya no puede tomar lactosa",
# "Dan can't eat dairy any more", "Lea verträgt keine Laktose mehr"
_FREE_OF = r"(?:gluten|dairy|nut|lactose)[- ]free|glutenfrei|laktosefrei"
_THEIR_DIET = re.compile(_PERSON + r" (?:is|ist|est|es|está|'s) (?:(?:now|also|actually|jetzt|"
                         r"auch|inzwischen|maintenant|aussi|désormais|ahora|también|ya) )?(" +
                         diets.WORDS + "|" + _FREE_OF + r")(?![\w-])(?! (?:options?|food|menu|friendly|"
                         r"dishes|recipe|meals?|restaurant|place|café|cafe)\b)")
_NO_LONGER_EATS = re.compile(_PERSON + r" (?:ya no puede (?:tomar|comer)|no puede (?:tomar|comer) "
                             r"más|can'?t (?:have|eat) (?=\w+ any ?more)|can no longer (?:have|eat)|"
                             r"verträgt (?:kein(?:e|en)?|nichts mit)|ne (?:peut|supporte) plus "
                             r"(?:manger )?(?:de |d'|du |les |le |la )?)\s*([^\W\d_][\w'-]*)")


def their_diet(item: Item) -> list[Finding]:
    """A diet someone named keeps, or a food they can no longer have, on their page."""
    out: list[Finding] = []
    for rx in (_THEIR_DIET, _NO_LONGER_EATS):
        for m in rx.finditer(item.text):
            person = _person(m[1])
            if person is None or is_date_word(person.split()[0]) or \
                    person.lower() in NOT_NAMES or person == getattr(item, "author", None):
                continue
            if diets.NEGATED.search(item.text[max(0, m.start(2) - 12):m.start(2)]):
                continue        # "Tom is not vegan"
            value = diets.said_as(m[2]) if rx is _THEIR_DIET else f"no {m[2]}"
            out.append(Finding("wiki", {"name": person, "diet": value}, [item.id], name=person))
    return out


def wiki(item: Item) -> list[Finding]:
    """Slots of a wiki page about a person ("Jordan's birthday is ...", "Jordan works at
    ..."); what someone else says of themselves ("I'm allergic to wasp stings", "soy
    alérgica al kiwi", "I'm joining Helix Bio as staff engineer") goes on their page."""
    out: list[Finding] = birthdays(item) + new_address(item) + births(item) + new_job(item) + \
        pregnancies(item) + leave(item) + they_start(item) + their_diet(item)
    text = english_cues(item.text)
    out += _pronoun_facts(item, text)
    author = getattr(item, "author", None)
    if item.role == "other" and author and "@" not in author:
        for f in standing(item):
            for name, value in f.fields.items():
                if name in _OWN_SLOTS:
                    out.append(Finding("wiki", {"name": author, _OWN_SLOTS[name]: value},
                                       [item.id], name=author))
    for rx in _WIKI:
        for m in rx.finditer(text):
            out.append(Finding("wiki", {"name": m[1], slug_key(m[2]).replace("-", "_"):
                                        clean(m[3])}, [item.id], name=m[1]))
    for m in [m for rx in _HAS_ALLERGY for m in rx.finditer(item.text)]:
        person = _person(m[1])
        if person is None or is_date_word(person.split()[0]) or person.lower() in NOT_NAMES:
            continue
        out.append(Finding("wiki", {"name": person, "allergies": m[2]}, [item.id],
                           name=person))
    for m in _WIKI_VERB.finditer(text):
        if m[1].lower() in _NOT_NAME_VALUE or is_date_word(m[1]) or m[1].lower() in NOT_NAMES:
            continue        # "March works for the hike": no one's page
        slot = {"works at": "work", "works for": "work", "lives in": "home",
                "moved to": "home", "moved into": "home", "is allergic to": "allergies",
                "'s allergic to": "allergies"}[m[2]]
        # "Rita moved to Porto last month": the place, not when
        value = re.sub(r"\s+(?:now|too|as well|last (?:week|month|year)|recently|"
                       r"this (?:week|month|year)|(?:a )?(?:few )?(?:weeks?|months?|years?) ago)$",
                       "", clean(m[3]))
        out.append(Finding("wiki", {"name": m[1], slot: value},
                           [item.id], name=m[1]))
    return out


def tells_birthday(clause: str) -> bool:
    """Whether a clause states someone's birthday ("it's Dev's 40th on 3 November", "Leo
    turns 30 on 3 May"): a fact about a person, whose date is no plan's."""
    text = english_cues(clause)
    return any(rx.search(text) for rx in _BIRTHDAY)
