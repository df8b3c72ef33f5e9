"""Diets: what a person says they eat or cannot eat, in English, German, French and Spanish.

A message in which someone speaks of themselves ("I", "ich", "je", "yo", "soy", "bei
mir", "para mí") and names a diet ("I'm coeliac", "ich bin seit Januar Vegetarierin", "also
eher pescetarisch", "soy celíaco", "Richtig, Laktoseintoleranz. Sahnesoße geht bei mir gar
nicht") states that person's diet: a standing fact when the user says it, a slot of the
speaker's page when someone else does. The value keeps the word as it was said and adds
its English meaning ("celíaco (coeliac, no gluten)"), so it reads in either language. A
diet said with a negation before it ("I'm not vegan any more", "nicht mehr vegetarisch"),
of someone else ("my sister is vegan") or of food ("vegetarian options", "ein vegetarischer
Kochkurs") states nothing. A later diet replaces the earlier one: it is one field.
"""

from __future__ import annotations

import re

from dream.kinds.text import sentences

# English meaning -> the words that name it in the four languages
_DIETS = {
    "vegetarian": r"vegetarian|vegetarier(?:in)?|vegetarisch|végétarien(?:ne)?|vegetarian[oa]",
    "vegan": r"vegan(?:er(?:in)?|[oa]|e)?|végane?",
    "pescatarian": r"pesc[ae]tarian|pesc[ae]tarier(?:in)?|pesc[ae]tarisch|pescétarien(?:ne)?|"
                   r"pesc[ae]tarian[oa]",
    "coeliac, no gluten": r"coeliac|celiac|zöliakie|cœliaque|coeliaque|celíac[oa]",
    "lactose intolerant": r"lactose[- ]intolerant|laktoseintoleran(?:t|z)|"
                          r"intolérante? au lactose|intolerante a la lactosa",
}
_DIET = re.compile(r"(?<![\w-])(" + "|".join(f"(?:{w})" for w in _DIETS.values()) +
                   r")(?![\w-])", re.I)
# the diet words alone (for a diet said of someone named: dream.detect.facts)
WORDS = r"(?:" + "|".join(f"(?:{w})" for w in _DIETS.values()) + r")"
_SELF = re.compile(r"(?<![\w'])(?:i|i'm|i've|im|me|my|ich|mir|mich|je|j'|moi|yo|soy|mí|mi)"
                   r"(?![\w'])", re.I)
_NEGATION = re.compile(r"(?<![\w'])(?:not|no longer|never|nicht|kein\w*|pas|plus|no|nunca|"
                       r"ya no)(?![\w'])|n't", re.I)
# someone else the diet is said of: "my sister is vegan", "Tom ist Vegetarier"
_OTHER = re.compile(r"(?:\b(?:my|his|her|our|their|mein\w*|sein\w*|ihr\w*|ma|mon|sa|son|"
                    r"mi|su|tu|your|dein\w*)\s+\w+|\b[A-ZÄÖÜÉ][a-zäöüßéèíóú]+)\s+"
                    r"(?:is|are|ist|sind|est|sont|es|son)\s+(?:\w+\s+)?$")
# the word describing food, not a person: "vegetarian options", "vegetarischen Kochkurs"
_FOOD = re.compile(r"\s+(?!(?:so|and|but|now|since|too|as|for|any|again|though|because|lol|"
                   # a when after it: "I got diagnosed coeliac last month"
                   r"last|this|these|ago|recently|lately|"
                   r"btw|und|aber|seit|jetzt|also|auch|mehr|et|mais|depuis|maintenant|donc|"
                   r"aussi|y|pero|desde|ahora|así|también|porque)\b)[^\W\d_]", re.I)
# a word written in lower case (not a German noun) capitalised inside a name ("Cake ordered
# from Bake Me Vegan"): a shop or a dish, not someone's diet ("I'm Vegan" is still a diet)
_LOWER = {"vegan", "vegetarian", "pescatarian", "pescetarian", "coeliac", "celiac"}
_IN_NAME = re.compile(r"(?<![.!?]\s)\b(?!(?:I|I'm|Im|Ich|Je|Yo|Soy|Bin)\b)[A-ZÄÖÜÉ][\w']*\s+"
                      r"(?:[A-ZÄÖÜÉ][\w']*\s+)*[A-ZÄÖÜÉ][\w-]*$")
_SHORT = 160        # a message this short speaks of its author throughout
# a food the speaker has given up: "je ne mange plus du tout de viande", "I don't eat pork
# any more", "I've stopped eating fish", "ich esse kein Fleisch mehr", "ya no como carne"
# (a change said, not a dislike: "I don't eat breakfast" states no diet)
_STOP_FOOD = (r"(?:any|anymore|more|depuis|since|seit|desde|now|du|at|jamais|mehr|because|car|"
              r"weil|porque|so|donc|also|und|and|et|y|but|mais|aber|pero)\b")
_GIVEN_UP = re.compile(
    r"\b(?:je (?:ne )?mange plus (?:du tout |jamais )?(?:de |d'|du |des )|"
    r"(?:i|we)(?:'ve| have)? (?:no longer eat|stopped eating|don'?t eat) |"
    r"ich esse (?:(?:jetzt|übrigens|inzwischen|seit \w+) )?(?:kein(?:e|en)?|nichts mehr mit) |"
    r"ya no como |no como más )"
    r"((?!" + _STOP_FOOD + r")[^\W\d_][\w'-]*(?: (?!" + _STOP_FOOD + r")[^\W\d_][\w'-]*)?)",
    re.I)



def diet(text: str) -> str | None:
    """The diet the speaker of ``text`` states, as said with its English meaning, or None."""
    found = None
    short = len(text) <= _SHORT and bool(_SELF.search(text))
    for sent in sentences(text):
        for m in _DIET.finditer(sent):
            before = sent[:m.start()]
            if _NEGATION.search(before[-40:]) or _OTHER.search(before) or \
                    _FOOD.match(sent, m.end()) or (
                    m[1].lower() in _LOWER and _IN_NAME.search(sent[:m.end()])):
                continue
            if not (short or _SELF.search(sent)):
                continue
            found = _value(m[1])
    for sent in sentences(text):
        m = _GIVEN_UP.search(sent)
        if m is None:
            continue
        food = m[1].strip()
        changed = re.search(r"\b(?:plus|no longer|stopped|mehr|ya no|más|any ?more)\b",
                            sent[m.start():m.end() + 30], re.I)
        if food and changed:
            found = f"no {food}"
    return found


NEGATED = _NEGATION


def said_as(said: str) -> str:
    """A diet word as said, with its English meaning when it has one in the list ("celíaca
    (coeliac, no gluten)"); any other ("gluten free") as said."""
    return _value(said) if re.fullmatch(WORDS, said, re.I) else said


def _value(said: str) -> str:
    meaning = next(english for english, rx in _DIETS.items()
                   if re.fullmatch(rx, said, re.I))
    first, _, rest = meaning.partition(", ")
    if said.lower() == first:
        return f"{said} ({rest})" if rest else said
    return f"{said} ({meaning})"
