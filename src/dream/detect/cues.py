"""Cue words of plans and facts in German, French and Spanish, read as their English
equivalents so one set of detectors serves four languages.

The words live in one data file per language (``words/de.toml``, ``words/fr.toml``,
``words/es.toml``), each mapping an English meaning to the phrases that say it:

- ``activities``: kinds of event ("Abendessen", "dîner", "cena" -> dinner);
- ``compounds`` (German): a compound read by its last part ("Yogastunde" -> "yoga
  lesson"); ``patterns``: a kind named by what it is of ("cours de yoga", "clase de yoga"
  -> "yoga class");
- ``professions``: whom an appointment is with ("Zahnarzt", "kiné", "dermatóloga" ->
  dentist, physiotherapist, dermatologist);
- ``phrases``: status ("abgesagt", "annulé", "cancelado" -> cancelled; "bin dabei", "avec
  plaisir", "me apunto" -> confirmed; "kann nicht", "je ne peux pas", "no puedo" -> can't
  make it), changes ("verschoben auf", "reporté au", "queda para" -> moved to; "jetzt um",
  "maintenant à", "ahora a las" -> now at; "stattdessen", "à la place", "en su lugar" ->
  instead; "am selben Tag", "à la même heure" -> same day, same time) and facts about the
  speaker or someone else ("ich bin allergisch gegen", "est allergique aux", "soy alérgica
  a" -> I'm / is allergic to; "ich wohne in" -> I live in);
- ``places``: words before a capitalised name that say where ("im", "au", "en el" -> at)
  or with whom ("bei", "chez", "con" -> with).

German puts the verb of a change last ("auf Dienstag verschoben", "auf 11 Uhr verlegt"):
that order is turned into "moved to Dienstag". Everything else stays as it was said:
names, places and values keep their language. Dates and times are read by
:mod:`dream.kinds.dates`, not here. Only words that are not also English are listed, so an
English clause comes back unchanged. A new language is one more file.
"""

from __future__ import annotations

import re
import tomllib
from functools import cache
from pathlib import Path
from typing import Any

LANGUAGES = ("de", "fr", "es")
_FILES = Path(__file__).with_name("words")
# "auf Dienstag, 14.07., 14 Uhr verschoben" -> "moved to Dienstag, 14.07., 14 Uhr"
_VERB_LAST = re.compile(r"\bauf\s+((?:[^.!?;\n]|\.(?=\s*\d|,))(?:[^!?;\n]){0,60}?)\s+"
                        r"(?:verschoben|verlegt|vorverlegt)\b", re.I)


def words(language: str) -> dict[str, dict[str, list[str]]]:
    """The cue words of one language: section -> English meaning -> phrases."""
    with (_FILES / f"{language}.toml").open("rb") as fh:
        return tomllib.load(fh)


@cache
def _cues() -> tuple[list[tuple[re.Pattern[str], Any]], re.Pattern[str]]:
    """(pattern, English) in the order they apply, and one pattern finding any of them."""
    by_section: dict[str, list[tuple[str, str]]] = {}
    for lang in LANGUAGES:
        for section, meanings in words(lang).items():
            for english, phrases in meanings.items():
                # one meaning's phrases longest first, the meanings in the file's order
                # (so "j'ai réservé" is read as "I booked" before "réservé" as "confirmed")
                if section == "patterns":    # each keeps its own group
                    by_section.setdefault(section, []).extend((p, english) for p in phrases)
                    continue
                alts = "|".join(sorted(phrases, key=len, reverse=True))
                by_section.setdefault(section, []).append((alts, english))
    cues: list[tuple[re.Pattern[str], Any]] = []
    for section in ("activities", "patterns", "professions", "phrases"):
        for phrase, english in by_section.get(section, []):
            # after an elided article too: "l'anniversaire", "d'annuler"
            cues.append((re.compile(r"(?<![\w-])(?:" + phrase + r")(?![\w-])", re.I), english))
    # German nouns (capitalised) read by their last part, once the words above are read
    for suffix, english in by_section.get("compounds", []):
        cues.append((re.compile(r"\b([A-ZÄÖÜ][a-zäöüß]{2,}?)(?:" + suffix + r")\b"),
                     lambda m, e=english: f"{m[1].lower()} {e}"))
    for english in ("at", "with"):
        phrases = [p for p, e in by_section.get("places", []) if e == english]
        if phrases:
            alts = "|".join(phrases)
            cues.append((re.compile(r"\b(?:" + alts + r")\s+(?=[A-ZÄÖÜÉÈÁÍÓÚÑ])"),
                         english + " "))
    anything = re.compile("|".join(rx.pattern for rx, _ in cues) + "|" + _VERB_LAST.pattern,
                          re.I)
    return cues, anything


@cache
def _activity_words() -> list[tuple[str, re.Pattern[str], bool]]:
    """(English meaning, pattern of its phrases in the message's language, read by the last
    part of a compound) for every kind of event the word files name."""
    out: list[tuple[str, re.Pattern[str], bool]] = []
    for lang in LANGUAGES:
        table = words(lang)
        for english, phrases in table.get("activities", {}).items():
            alts = "|".join(sorted(phrases, key=len, reverse=True))
            out.append((english, re.compile(r"(?<![\w-])(?:" + alts + r")(?![\w-])", re.I),
                        False))
        for english, phrases in table.get("patterns", {}).items():
            for p in phrases:
                out.append((english, re.compile(r"(?<![\w-])" + p + r"(?![\w-])", re.I), False))
        for english, phrases in table.get("compounds", {}).items():
            alts = "|".join(phrases)
            out.append((english, re.compile(r"\b[A-ZÄÖÜ][a-zäöüß]{2,}?(?:" + alts + r")\b"),
                        True))
    return out


def said_as(activity: str, text: str) -> str | None:
    """The words of ``text`` (as it was said) that :func:`english_cues` reads as the kind
    of event ``activity``: "boda" for a wedding in a Spanish message, "Teamessen" for a team
    meal. None when the text says it in English or not at all."""
    head = activity.split()[-1]
    for english, rx, compound in _activity_words():
        meaning = english.replace("\\1 ", "")
        if meaning != activity and meaning != head and not (compound and
                                                           activity.endswith(" " + meaning)):
            continue
        m = rx.search(text)
        if m and m[0].lower() != activity.lower():
            return m[0]
    return None


def profession_as(profession: str, text: str) -> str | None:
    """The word of ``text`` (as it was said) that :func:`english_cues` reads as the trade
    ``profession``: "kinésithérapie" for a physiotherapist, "Zahnarzt" for a dentist. None
    when the text says it in English or not at all."""
    for rx in _profession_words().get(profession, ()):
        m = rx.search(text)
        if m:
            return m[0]
    return None


@cache
def _profession_words() -> dict[str, list[re.Pattern[str]]]:
    """English trade -> the pattern of its phrases in each language, in :data:`LANGUAGES`'
    order (read once: :func:`profession_as` read three word files for every plan named)."""
    out: dict[str, list[re.Pattern[str]]] = {}
    for lang in LANGUAGES:
        for english, phrases in words(lang).get("professions", {}).items():
            if phrases:
                alts = "|".join(sorted(phrases, key=len, reverse=True))
                out.setdefault(english, []).append(
                    re.compile(r"(?<![\w-])(?:" + alts + r")(?![\w-])", re.I))
    return out


def english_cues(text: str) -> str:
    """``text`` with its German, French and Spanish cue words in English."""
    cues, anything = _cues()
    if not anything.search(text):
        return text
    text = _VERB_LAST.sub(r"moved to \1", text)
    for rx, english in cues:
        text = rx.sub(english, text)
    return text
