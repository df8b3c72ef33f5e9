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
from dream.kinds.text import NOT_NAMES, find_date, parse_when

_RELATIONS = (r"sister|brother|mother|mom|mum|father|dad|wife|husband|partner|boyfriend|"
              r"girlfriend|son|daughter|boss|manager|roommate|flatmate|dog|cat|best friend")
_NAME_WORDS = r"[A-Z][a-z]+(?: [A-Z][a-z]+)?"
_CAPS = r"[A-Z][\w&.'-]*(?:\s+[A-Z][\w&.'-]*){0,3}"
_STANDING = [
    (re.compile(r"\bmy ((?:\w+ ){0,2}?(?:name|birthday|address|email|phone|number|job|role|"
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
    (re.compile(r"\b[Ii] (?:start|begin) (?:work |a new job )?at (?:the )?(" + _CAPS +
                r")(?= in\b| on\b| next\b| from\b| after\b)"), "employer"),
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
    (re.compile(r"\b(?:[Jj]e rejoins|[Ee]ntro en) (?!la |le |les |el |los |las )(" + _CAPS +
                r") (?:en|début|fin|à partir de|dès|a partir de|el mes de) " + _MONTHS), "employer"),
    (re.compile(r"\b[Ii]ch fange (?:im|ab) " + _MONTHS + r" bei (?:der |dem |den )?(" + _CAPS +
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
_WIKI_VERB = re.compile(r"\b([A-ZÀ-ÖØ-Þ][a-zß-öø-ÿ]+) (works at|works for|lives in|moved to|"
                        r"is allergic to) ([\w&' -]{2,60}?)(?=[.,;!?\n]|$| and | so | but | donc | "
                        r"así | also )")


# someone else's allergy said as what they have: "Dylan has a nut allergy", "my Eli has a
# severe peanut allergy", "Mia reagiert allergisch auf Sesam"
_HAS_ALLERGY = [
    re.compile(_PERSON + r" has (?:got )?(?:a|an) (?:(?:severe|serious|bad|mild|real|nasty|"
               r"proper)\s+)?([^\W\d_]+(?:[ -](?!allergy)[^\W\d_]+)?)[ -]allergy\b"),
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
                key, value = m[1].lower(), m[2]
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


_MY_BIRTHDAY = re.compile(r"\b(?:my|mi|mon|ma|mein|meinen) birthday (?!party|dinner|drinks|lunch|"
                          r"cake)(?:is |falls |will be |es |est |c'est |ist )?"
                          r"(?:on |at |el |le |am )?([^.;!?\n]{2,40})", re.I)
# "el 3 de octubre es mi cumple", "le 3 mai c'est mon anniversaire": the day first
_MY_BIRTHDAY_AFTER = re.compile(r"([^.;!?\n,]{2,30}?)\s+(?:is|es|est|c'est|ist)\s+"
                                r"(?:my|mi|mon|ma|mein) birthday\b", re.I)


_YEAR = re.compile(r"\b(?:1[89]|20)\d{2}\b")


def birthday_value(span: str, said: datetime | None) -> str | None:
    """The date a birthday is on: ``YYYY-MM-DD`` when the words give the year (of birth),
    else ``--MM-DD`` (ISO 8601's day without a year): "Mum's birthday is on the 18th of
    August" is every year's 18 August, not this year's."""
    when = find_date(span, said)
    if when is None:
        return None
    year = _YEAR.search(span)
    return f"{year[0]}{when[4:]}" if year else "--" + when[5:]


def birthdays(item: Item) -> list[Finding]:
    """Birthdays on the page of the person named, with the date as the value, without a
    year unless one is said (a birthday whose date the text does not give is not
    filled)."""
    out: list[Finding] = []
    said = parse_when(item.said_at)
    seen: set[str] = set()
    text = english_cues(item.text)
    author = getattr(item, "author", None)
    m = _MY_BIRTHDAY.search(text) or _MY_BIRTHDAY_AFTER.search(text)
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


def wiki(item: Item) -> list[Finding]:
    """Slots of a wiki page about a person ("Jordan's birthday is ...", "Jordan works at
    ..."); what someone else says of themselves ("I'm allergic to wasp stings", "soy
    alérgica al kiwi", "I'm joining Helix Bio as staff engineer") goes on their page."""
    out: list[Finding] = birthdays(item)
    text = english_cues(item.text)
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
                "moved to": "home", "is allergic to": "allergies"}[m[2]]
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
