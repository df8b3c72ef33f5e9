"""Cue words of plans and facts in German, French and Spanish, read as their English
equivalents so one set of detectors serves four languages.

:func:`english_cues` rewrites the cue words of a clause — kinds of event ("Abendessen",
"dîner", "cena" -> dinner), status ("abgesagt", "annulé", "cancelado" -> cancelled;
"bestätigt", "réservé", "confirmado" -> confirmed; "kann nicht", "je ne peux pas", "no
puedo" -> can't make it), changes ("verschoben auf", "reporté au", "cambiado a" -> moved
to; "stattdessen", "à la place", "en su lugar" -> instead), where ("im", "au", "en el"
before a name -> at; "bei", "chez" before a name -> with) and facts about the speaker
("ich bin allergisch gegen", "je suis allergique à", "soy alérgica a" -> I'm allergic to;
"ich wohne in", "j'habite à", "vivo en" -> I live in; "ich arbeite bei", "je travaille
chez", "trabajo en" -> I work at) — and leaves everything else as it was said: names,
places and values stay in their language. Dates and times are read by
:mod:`dream.kinds.dates`, not here. Only words that are not also English are listed, so an
English clause comes back unchanged.
"""

from __future__ import annotations

import re

_ACTIVITIES = {
    "dinner": r"abendessen|dîner|cena",
    "lunch": r"mittagessen|déjeuner|almuerzo|comida",
    "breakfast": r"frühstück|petit[- ]déjeuner|desayuno",
    "dentist appointment": r"termin beim zahnarzt|zahnarzttermin|rendez-vous chez le dentiste|"
                           r"cita (?:con|en) el dentista",
    "doctor appointment": r"arzttermin|rendez-vous chez le médecin|cita con el médico",
    "haircut": r"friseurtermin",
    "appointment": r"termin|rendez-vous|rdv|cita",
    "meeting": r"besprechung|sitzung|réunion|reunión",
    "birthday party": r"geburtstagsfeier|fête d'anniversaire|fiesta de cumpleaños",
    "party": r"feier|fête|soirée|fiesta",
    "flight": r"flug|vuelo",
    "trip": r"reise|ausflug|viaje|excursión",
    "hike": r"wanderung|randonnée|caminata|senderismo",
    "wedding": r"hochzeit|mariage|boda",
    "interview": r"vorstellungsgespräch|entretien d'embauche|entrevista",
    "movie": r"kinoabend|kino|cinéma|cine",
    "concert": r"konzert|concierto",
    "drinks": r"apéro|apero|copas",
    "coffee": r"kaffee",
}
_PHRASES = [
    # status and changes
    (r"(?:wurde |ist |wird )?(?:abgesagt|storniert)|fällt aus|findet nicht statt|"
     r"(?:a été |est )?annulée?s?|n'aura pas lieu|(?:ha sido |fue |está )?(?:cancelad[oa]s?|"
     r"anulad[oa]s?|suspendid[oa]s?)|se cancela", "cancelled"),
    (r"(?:ist |wurde )?(?:bestätigt|gebucht|reserviert)|(?:est )?(?:confirmée?s?|réservée?s?)|"
     r"(?:está )?(?:confirmad[oa]s?|reservad[oa]s?)|j'ai réservé|reservé|abgemacht|"
     r"ich bin dabei|ça marche|je serai là|nos vemos|allí estaré|ahí estaré|bis dann",
     "confirmed"),
    (r"ich kann nicht|kann leider nicht|schaffe es nicht|je ne peux pas|je ne pourrai pas|"
     r"no puedo|no podré", "can't make it"),
    (r"verschoben auf|verlegt auf|reportée? (?:à|au)|déplacée? (?:à|au)|"
     r"(?:movid[oa]|cambiad[oa]|pospuest[oa]|aplazad[oa]) (?:a|al|para)", "moved to"),
    (r"stattdessen|à la place|en su lugar|en cambio", "instead"),
    (r"vielleicht|peut-être|quizás|quizá|tal vez", "maybe"),
    # facts about the speaker
    (r"ich bin allergisch gegen|je suis allergique (?:aux|au|à la|à l'|à)|"
     r"soy alérgic[oa] (?:al|a los|a las|a la|a)", "I'm allergic to"),
    (r"ich bin (?:vegetarier(?:in)?)|je suis végétarien(?:ne)?|soy vegetarian[oa]",
     "I'm vegetarian"),
    (r"ich bin veganer(?:in)?|je suis vegan(?:e)?|soy vegan[oa]", "I'm vegan"),
    (r"ich wohne in|ich lebe in|j'habite (?:à|en)|je vis (?:à|en)|vivo en", "I live in"),
    (r"ich arbeite (?:bei|für)|je travaille (?:chez|pour)|trabajo (?:en|para)", "I work at"),
    (r"ich habe (?:einen )?neuen job bei|j'ai un nouveau travail chez|"
     r"tengo un nuevo trabajo en", "I started a new job at"),
    (r"ich bevorzuge|ich mag lieber|je préfère|prefiero", "I prefer"),
]
# "im Lokal Zur Linde", "au Café de Flore", "en el Bar Pepe": at; "chez Paul", "bei Anna": with
_AT = re.compile(r"\b(?:im|ins|in der|in dem|au|à la|à l'|dans le|dans la|en el|en la)\s+"
                 r"(?=[A-ZÄÖÜÉÈ])")
_WITH = re.compile(r"\b(?:bei|chez|con)\s+(?=[A-ZÄÖÜÉÈ])")
_CUES = [(re.compile(r"(?<![\w-])(?:" + words + r")(?![\w-])", re.I), english)
         for english, words in _ACTIVITIES.items()]
_CUES += [(re.compile(r"(?<![\w'-])(?:" + words + r")(?![\w-])", re.I), english)
          for words, english in _PHRASES]
_ANY = re.compile("|".join(rx.pattern for rx, _ in _CUES) + r"|" + _AT.pattern + "|" +
                  _WITH.pattern, re.I)


def english_cues(text: str) -> str:
    """``text`` with its German, French and Spanish cue words in English."""
    if not _ANY.search(text):
        return text
    for rx, english in _CUES:
        text = rx.sub(english, text)
    text = _AT.sub("at ", text)
    return _WITH.sub("with ", text)
