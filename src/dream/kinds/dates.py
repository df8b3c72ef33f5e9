"""Dates and times in English, German, French and Spanish.

Month names, weekday names and the relative day words ("heute", "demain", "mañana") come
from the locale data of ``dateparser`` (a maintained multilingual date parser), never from
lists written here; only a few cue words the data lacks ("nächsten", "prochain", "pasado
mañana") and clock-time forms ("19 Uhr", "19h30", "a las 8") are written below. The text
is first cut into words and only a span that looks like a date — a day number next to a
month name, a numeric day.month(.year), a weekday or a relative day word — is resolved;
``dateparser`` reads the day-and-month spans. ``dateparser`` and its data are imported on
first use, so a run that never meets a date does not pay for them.

Resolution against ``ref`` (when the message was said): a date without a year is the next
such date on or after ``ref`` (60 days of grace backwards, as for English); a weekday is
the next one on or after ``ref`` ("next" / "nächsten" / "prochain" / "próximo": the one a
week later when it is today).
"""

from __future__ import annotations

import re
from datetime import date as _date
from datetime import datetime, timedelta
from functools import cache

LANGUAGES = ("en", "de", "fr", "es")
_NEXT = {"next", "nächsten", "nächste", "nächster", "kommenden", "kommende", "prochain",
         "prochaine", "próximo", "próxima", "proximo", "proxima"}
_EXTRA_RELATIVE = {"pasado mañana": 2, "heute abend": 0, "ce soir": 0, "esta noche": 0}
# "heute Morgen", "por la mañana": the morning, not tomorrow
_MORNING_BEFORE = {"heute", "am", "jeden", "guten", "morgen", "la", "esta", "cada", "de"}
_TOKEN = re.compile(r"\d{1,4}(?:er|º|\.)?|[^\W\d_]+(?:[-'’][^\W\d_]+)?\.?")
_NUMERIC = re.compile(r"(?<![\d./-])(\d{1,2})\.(\d{1,2})\.(\d{4}|\d{2}(?!\d))?(?![\d/-])")
# "le 20/06", "el 20/6/2026", "am 20/06": day first (a slash date said after a day word)
_SLASHED = re.compile(r"\b(?:le|el|am|du|del|vom|au|al|bis|on|the)\s+(\d{1,2})/(\d{1,2})"
                      r"(?:/(\d{4}|\d{2}))?(?![\d/%])")
_TIMES = [
    # a span of hours with its unit once, at its end: "zwischen 13 und 17 Uhr", "de 14 à
    # 16h", "de 10 a 12 h": it starts at its first hour
    (re.compile(r"\b(?:zwischen|von|de|entre(?: las?)?)\s+(\d{1,2})(?:[:.](\d\d))?\s*"
                r"(?:und|bis|-|–|à|a|y(?: las?)?)\s*\d{1,2}(?:[:.]\d\d)?\s*(?:uhr|h|heures?)\b",
                re.I), False),
    # German: "19 Uhr", "19:30 Uhr", "19.30 Uhr", "um 7"
    (re.compile(r"\b(\d{1,2})(?:[:.](\d\d))?\s*uhr\b", re.I), False),
    # French: "19h", "19h30", "19 h 30"
    (re.compile(r"\b(\d{1,2})\s?h\s?(\d\d)?\b", re.I), False),
    # Spanish "a las 8", German "um 8", French "à 8 heures"
    (re.compile(r"\b(?:a las|a la|um|à)\s+(\d{1,2})(?:[:.](\d\d))?(?:\s*heures?)?\b(?![.:/]\d)",
                re.I), True),
]
# hours said in words: "um halb acht", "à huit heures et demie", "a las ocho y media"
_NUMBERS = {
    "ein": 1, "eins": 1, "zwei": 2, "drei": 3, "vier": 4, "fünf": 5, "sechs": 6, "sieben": 7,
    "acht": 8, "neun": 9, "zehn": 10, "elf": 11, "zwölf": 12,
    "une": 1, "deux": 2, "trois": 3, "quatre": 4, "cinq": 5, "six": 6, "sept": 7, "huit": 8,
    "neuf": 9, "dix": 10, "onze": 11, "douze": 12, "midi": 12,
    "una": 1, "dos": 2, "tres": 3, "cuatro": 4, "cinco": 5, "seis": 6, "siete": 7, "ocho": 8,
    "nueve": 9, "diez": 10, "once": 11, "doce": 12,
}
_N = r"(" + "|".join(sorted(_NUMBERS, key=len, reverse=True)) + r"|\d{1,2})"
_WORD_TIMES = [
    # (pattern, minutes, hours to take away): German first since "halb acht" is 7:30
    (re.compile(r"\bhalb " + _N + r"\b", re.I), 30, 1),
    (re.compile(r"\bviertel nach " + _N + r"\b", re.I), 15, 0),
    (re.compile(r"\bviertel vor " + _N + r"\b", re.I), 45, 1),
    (re.compile(r"\bà " + _N + r" heures? et demie\b", re.I), 30, 0),
    (re.compile(r"\bà " + _N + r" heures? et quart\b", re.I), 15, 0),
    (re.compile(r"\bà " + _N + r" heures? moins le quart\b", re.I), 45, 1),
    (re.compile(r"\bà " + _N + r" heures?\b|\bà (midi)\b", re.I), 0, 0),
    (re.compile(r"\ba las? " + _N + r" y media\b", re.I), 30, 0),
    (re.compile(r"\ba las? " + _N + r" y cuarto\b", re.I), 15, 0),
    (re.compile(r"\ba las? " + _N + r" menos cuarto\b", re.I), 45, 1),
    (re.compile(r"\b(?:a las?|um) " + _N + r"\b(?!\s*[:.]\d)", re.I), 0, 0),
]
WORD_HOUR = re.compile(r"\b(?:halb|viertel (?:nach|vor)|à|a las?|um) " + _N + r"\b", re.I)
_EVENING = re.compile(r"de la (?:tarde|noche)|abends|du soir|de l'après-midi|nachmittags",
                      re.I)


@cache
def _vocabulary() -> dict[str, list[tuple[str, str, int]]]:
    """word -> [(language, 'month'|'weekday'|'relative', value)] from dateparser's data."""
    from dateparser.languages.loader import default_loader

    months = ["january", "february", "march", "april", "may", "june", "july", "august",
              "september", "october", "november", "december"]
    weekdays = ["monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday"]
    out: dict[str, list[tuple[str, str, int]]] = {}
    for lang in LANGUAGES:
        info = default_loader.get_locale(lang).info
        for n, name in enumerate(months, 1):
            for word in info.get(name, []):
                if len(word) >= 3:
                    out.setdefault(word.lower(), []).append((lang, "month", n))
        for n, name in enumerate(weekdays):
            for word in info.get(name, []):
                if len(word) >= 5:
                    out.setdefault(word.lower(), []).append((lang, "weekday", n))
        rel = info.get("relative-type", {})
        for key, days in (("0 day ago", 0), ("in 1 day", 1), ("in 2 day", 2)):
            for word in rel.get(key, []):
                out.setdefault(word.lower(), []).append((lang, "relative", days))
    for phrase, days in _EXTRA_RELATIVE.items():
        out.setdefault(phrase, []).append(("", "relative", days))
    return out


def _parse(span: str, languages: list[str], ref: datetime) -> str | None:
    import dateparser

    settings = {"RELATIVE_BASE": ref.replace(tzinfo=None), "PREFER_DATES_FROM": "future",
                "DATE_ORDER": "DMY", "REQUIRE_PARTS": ["day", "month"]}
    when = dateparser.parse(span, languages=languages, settings=settings)  # type: ignore[arg-type]
    if when is None:
        return None
    day = when.date()
    base = ref.date()
    if not re.search(r"\d{4}", span) and day > base + timedelta(days=305) and \
            day.replace(year=day.year - 1) >= base - timedelta(days=60):
        day = day.replace(year=day.year - 1)    # "3 March" said on 10 March: this year's
    return day.isoformat()


def _day_month(day: int, month: int, year: str | None, ref: datetime) -> str | None:
    """A numeric day and month ("14.07.", "20/06"): in ``year`` when given, else the next
    such date on or after ``ref`` (60 days of grace backwards). Read here, not by
    ``dateparser``, which takes "14.07" for the time 14:07."""
    base = ref.date()
    years = [int(year) + (2000 if len(year) == 2 else 0)] if year else \
        [base.year, base.year + 1]
    for y in years:
        try:
            when = base.replace(year=y, month=month, day=day)
        except ValueError:
            return None
        if year or when >= base - timedelta(days=60):
            return when.isoformat()
    return None


def find_date(text: str, ref: datetime | None, full_only: bool = False) -> str | None:
    """The date the text names in one of the four languages, as YYYY-MM-DD: a day and
    month first, then a relative day, then a weekday (``full_only``: a day and month or a
    numeric date only)."""
    ref = ref or datetime(2000, 1, 1)
    low = text.lower()
    found = weekday_slash_date(text, ref)
    if found:
        return found
    for rx in (_NUMERIC, _SLASHED):
        m = rx.search(low)
        found = _day_month(int(m[1]), int(m[2]), m[3], ref) if m else None
        if found:
            return found
    vocab = _vocabulary()
    tokens = [(t[0].rstrip("."), t.start()) for t in _TOKEN.finditer(low)]
    hits: list[tuple[int, int, str, str, str, int]] = []
    for i, (word, _start) in enumerate(tokens):
        for pair in ((word + " " + tokens[i + 1][0]) if i + 1 < len(tokens) else "", word):
            for lang, kind, value in vocab.get(pair, []):
                if full_only and kind != "month":
                    continue
                hits.append((_PRIORITY[kind], i, pair, lang, kind, value))
    # a day and month ("Freitag, 14. März") says more than the weekday before it
    for _p, i, pair, lang, kind, value in sorted(hits, key=lambda h: (h[0], h[1])):
        got = _resolve(tokens, i, pair, lang, kind, value, ref)
        if got:
            return got
    return None


_PRIORITY = {"month": 0, "relative": 1, "weekday": 2}


def _resolve(tokens: list[tuple[str, int]], i: int, word: str, lang: str, kind: str,
             value: int, ref: datetime) -> str | None:
    before = [t[0] for t in tokens[max(0, i - 2):i]]
    if kind == "month":
        day_i = i - 2 if before[-1:] in (["de"], ["of"]) else i - 1
        if day_i < 0 or not tokens[day_i][0].rstrip("erº").isdigit():
            return None
        day = tokens[day_i][0].rstrip("erº")
        if not 1 <= int(day) <= 31:
            return None
        after = [t[0] for t in tokens[i + 1:i + 3]]
        year = next((t for t in after if re.fullmatch(r"20\d\d", t)), "")
        if not year or not (after[:1] == [year] or after[:2] == ["de", year]):
            year = ""
        return _parse(f"{day} {word} {year}".strip(), [lang] if lang else list(LANGUAGES), ref)
    if kind == "relative":
        if word in ("morgen", "mañana") and before and before[-1] in _MORNING_BEFORE:
            return None
        return (ref.date() + timedelta(days=value)).isoformat()
    ahead = (value - ref.weekday()) % 7
    around = {t[0] for t in tokens[max(0, i - 1):i + 2]}
    if ahead == 0 and around & _NEXT:
        ahead = 7
    return (ref.date() + timedelta(days=ahead)).isoformat()


# a weekday, written out or short, right before a numeric day and month ("Tue 08/12",
# "jeudi 10/12", "martes 15/12", "Sunday 12/13" in the US order): the day and month in
# whichever order gives that weekday, else no date (the weekday checks the reading)
_SHORT_WEEKDAYS = {
    "mon": 0, "tue": 1, "tues": 1, "wed": 2, "thu": 3, "thur": 3, "thurs": 3, "fri": 4,
    "sat": 5, "sun": 6, "lun": 0, "mar": 1, "mer": 2, "jeu": 3, "ven": 4, "sam": 5, "dim": 6,
    "mo": 0, "di": 1, "mi": 2, "do": 3, "fr": 4, "sa": 5, "so": 6,
    "mié": 2, "mie": 2, "jue": 3, "vie": 4, "sáb": 5, "sab": 5, "dom": 6,
}
_WEEKDAY_SLASH = re.compile(r"(?<![\w/])([^\W\d_]{2,10})\.?,?\s+(\d{1,2})/(\d{1,2})"
                            r"(?:/(\d{4}|\d{2}))?(?![\d/%])")


def slash_weekdays(text: str) -> list[tuple[int, re.Match[str]]]:
    vocab = _vocabulary()
    out = []
    for m in _WEEKDAY_SLASH.finditer(text):
        word = m[1].lower()
        if len(word) == 2 and not m[1][0].isupper():
            continue  # German's two-letter days are written capitalised: "do", "so" are words
        weekday = _SHORT_WEEKDAYS.get(word)
        if weekday is None:
            weekday = next((v for _l, kind, v in vocab.get(word, []) if kind == "weekday"),
                           None)
        if weekday is not None:
            out.append((weekday, m))
    return out


def weekday_slash_date(text: str, ref: datetime | None) -> str | None:
    """A weekday before a numeric day and month ("Tue 08/12", "jeudi 10/12", "Sunday
    12/13"): the date, day first or month first, that falls on that weekday; None when
    neither does (the numbers are something else)."""
    ref = ref or datetime(2000, 1, 1)
    for weekday, m in slash_weekdays(text):
        a, b = int(m[2]), int(m[3])
        for day, month in ((a, b), (b, a)):
            if not (1 <= month <= 12 and 1 <= day <= 31):
                continue
            found = _day_month(day, month, m[4], ref)
            if found and _date.fromisoformat(found).weekday() == weekday:
                return found
    return None


# holidays on a fixed day, named as a day ("Christmas Day lunch", "an Heiligabend", "el día
# de Navidad"): that day; the season alone ("for Christmas", "à Noël") names no day
_HOLIDAYS = [(re.compile(rx, re.I), month, day) for rx, month, day in (
    (r"\bchristmas eve\b|\bheilig(?:abend|en abend)\b|\bveille de noël\b|"
     r"\bréveillon de noël\b|\bnochebuena\b", 12, 24),
    (r"\bchristmas day\b|\b(?:erste[nr]?|1\.) weihnachts(?:feier)?tag\b|\bjour de noël\b|"
     r"\bd[ií]a de navidad\b", 12, 25),
    (r"\bboxing day\b|\b(?:zweite[nr]?|2\.) weihnachts(?:feier)?tag\b", 12, 26),
    (r"\bnew year'?s eve\b|\bsilvester(?:abend)?\b|\bsaint[- ]sylvestre\b|"
     r"\bréveillon du nouvel an\b|\bnochevieja\b", 12, 31),
    (r"\bnew year'?s day\b|\bneujahrstag\b|\bjour de l'an\b|\bd[ií]a de año nuevo\b",
     1, 1),
    (r"\bd[ií]a de reyes\b|\bepiphany\b|\bdreikönigstag\b", 1, 6),
)]


def holiday(text: str, ref: datetime | None) -> str | None:
    """The day a fixed-date holiday named in the text falls on next ("Boxing Day parkrun"
    said in November: 26 December), or None."""
    hits = [(m.start(), month, day) for rx, month, day in _HOLIDAYS
            for m in [rx.search(text)] if m]
    if not hits:
        return None
    _start, month, day = min(hits)
    return _day_month(day, month, None, ref or datetime(2000, 1, 1))


_ARTICLE = {"the", "le", "el", "den", "der", "am"}
_CLOCK_AFTER = re.compile(r"\s*(?:[:.h]\d\d|am\b|pm\b|a\.m|p\.m|h\b|uhr\b|heures?\b|hrs?\b|"
                          r"o'?clock)")
_ORDINAL = {"st", "nd", "rd", "th", "er", "e", "º"}


def weekday_and_day(text: str, ref: datetime | None) -> str | None:
    """A weekday with a day number and no month ("Saturday 20th", "Sunday the 13th",
    "samedi 27", "el domingo 16", "Freitag, den 3."): the next date on or after ``ref``
    with that day number falling on that weekday (within a year), else the next date with
    that day number."""
    ref = ref or datetime(2000, 1, 1)
    vocab = _vocabulary()
    found = list(_TOKEN.finditer(text.lower()))
    tokens = [t[0].rstrip(".") for t in found]
    spans = [t.start() + len(t[0].rstrip(".").rstrip("erº")) for t in found]
    for i, word in enumerate(tokens):
        weekday = next((v for _l, kind, v in vocab.get(word, []) if kind == "weekday"), None)
        if weekday is None:
            continue
        j = i + 1
        if j < len(tokens) and tokens[j] in _ARTICLE:
            j += 1
        if j >= len(tokens) or not tokens[j].rstrip("erº").isdigit():
            continue
        day = int(tokens[j].rstrip("erº"))
        if _CLOCK_AFTER.match(text.lower(), spans[j]):
            continue            # "Sunday 7pm", "samedi 20h": a time, not a day
        k = j + 1
        if k < len(tokens) and tokens[k] in _ORDINAL:
            k += 1
        if k < len(tokens) and tokens[k] in ("of", "de"):
            k += 1
        if k < len(tokens) and any(kind == "month" for _l, kind, _v in vocab.get(tokens[k], [])):
            continue            # "Friday 14 March": a full date, read elsewhere
        if 1 <= day <= 31:
            return next_day(day, ref.date(), weekday)
    return None


# (not before a word it is the number of, "the 4th floor", "the 20th anniversary", "the 16th
# March"; a preposition after it, "on the 19th for a few days", "the 3rd at 8", is no such)
_THE_NTH = re.compile(r"\bthe\s+(\d{1,2})(?:st|nd|rd|th)\b(?!\s+(?:of\s+)?(?!(?:for|at|from|"
                      r"until|till|with)\b)"
                      r"[A-Za-z]{3,})", re.I)


def nearest_weekday_and_day(text: str, date: str, near: str, floor: str) -> str:
    """``date`` read from a weekday with a day number and no month ("Sunday the 14th",
    "Sat the 6th"), said about a plan on ``near``: the date with that weekday and day
    number nearest ``near`` (not before ``floor``, the day it was said), which the first
    one after the message need not be. Any other ``date`` is returned as it is."""
    if weekday_and_day(text, datetime.fromisoformat(floor)) != date:
        return date     # the date was not read from a weekday and a day number
    try:
        plan = _date.fromisoformat(near)
    except ValueError:
        return date
    best = date
    for back in (40, 0):
        start = plan - timedelta(days=back)
        found = weekday_and_day(text, datetime(start.year, start.month, start.day))
        if found and found >= floor and \
                abs((_date.fromisoformat(found) - plan).days) < \
                abs((_date.fromisoformat(best) - plan).days):
            best = found
    return best


def day_of_month(text: str, ref: datetime | None) -> str | None:
    """A day number alone, written "the 16th": the next date with that day number."""
    m = _THE_NTH.search(text)
    if not m or not 1 <= int(m[1]) <= 31:
        return None
    return next_day(int(m[1]), (ref or datetime(2000, 1, 1)).date(), None)


def next_day(day: int, base, weekday: int | None) -> str | None:
    first = None
    year, month = base.year, base.month
    for _ in range(13):
        try:
            when = base.replace(year=year, month=month, day=day)
        except ValueError:
            when = None
        if when is not None and when >= base:
            if weekday is None or when.weekday() == weekday:
                return when.isoformat()
            first = first or when
        month += 1
        if month > 12:
            year, month = year + 1, 1
    return first.isoformat() if first else None


# "2-16 November", "12th to 19th of September", "du 2 au 16 novembre", "vom 2. bis 16. Mai"
# (the second day may carry its weekday: "Fri 14th–Sun 16th August")
_RANGE = re.compile(r"\b(\d{1,2})(?:st|nd|rd|th|er|\.)?\s*(?:-|–|—|to|till|until|bis|au|al)\s*"
                    r"(?:[^\W\d_]{2,9}\.?,?\s+)?"
                    r"\d{1,2}(?:st|nd|rd|th|\.)?(?=\s+(?:of\s+|de\s+)?([^\W\d_]{3,}))", re.I)
# "21st–23rd" with no month: the 21st
_ORDINAL_RANGE = re.compile(r"(?<!the )\b(\d{1,2}(?:st|nd|rd|th))\s*(?:-|–|—|to|till|until)\s*"
                            r"\d{1,2}(?:st|nd|rd|th)\b(?!\s+(?:of\s+)?[^\W\d_]{3,})", re.I)


def range_start(text: str) -> str:
    """``text`` with a range of days in one month written as its first day ("2-16
    November" -> "2 November"), so the date read is when it starts."""
    def first(m: re.Match[str]) -> str:
        month = any(kind == "month" for _l, kind, _v in _vocabulary().get(m[2].lower(), []))
        return m[1] if month else m[0]
    return _ORDINAL_RANGE.sub(r"the \1", _RANGE.sub(first, text))


def is_date_word(word: str) -> bool:
    """Whether a word names a month, a weekday or a relative day in one of the languages,
    or is a clock word ("Freitag", "Uhr"): not the name of a person."""
    low = word.lower()
    return low in _vocabulary() or low in ("uhr", "heures", "horas")


def weekday_only(text: str) -> int | None:
    """The weekday (0 = Monday) the text names when a weekday is all it says of the date."""
    low = text.lower()
    if _NUMERIC.search(low) or slash_weekdays(text) or holiday(text, None):
        return None     # ("jeudi 10/12" is a date, not a weekday alone)
    vocab = _vocabulary()
    tokens = [t[0].rstrip(".") for t in _TOKEN.finditer(low)]
    weekday = None
    for i, word in enumerate(tokens):
        pair = word + " " + tokens[i + 1] if i + 1 < len(tokens) else ""
        for kind_of in (vocab.get(pair, []), vocab.get(word, [])):
            for _lang, kind, value in kind_of:
                if kind == "relative" or (kind == "month" and _day_before(tokens, i)):
                    return None
                if kind == "weekday" and weekday is None:
                    weekday = value
    return weekday


def _day_before(tokens: list[str], i: int) -> bool:
    j = i - 2 if i >= 2 and tokens[i - 1] in ("de", "of") else i - 1
    return j >= 0 and tokens[j].rstrip("erº").isdigit()


def find_time(text: str) -> str | None:
    """The first clock time in German, French or Spanish form, as HH:MM."""
    for rx, minutes, back in _WORD_TIMES:
        m = rx.search(text)
        if m is None:
            continue
        word = next(g for g in m.groups() if g)
        if word.isdigit() and back == 0 and minutes == 0:
            continue        # "a las 8", "um 8": read below with their minutes
        hour = (int(word) if word.isdigit() else _NUMBERS[word.lower()]) - back
        if minutes == 0 and hour < 8 and not word.isdigit() and word.lower() != "midi" and \
                not re.search(r"de la mañana|morgens|du matin", text, re.I):
            hour += 12      # "a las siete" for a plan: the evening, as "a las 7"
        elif hour < 12 and _EVENING.search(text[m.end():m.end() + 20]):
            hour += 12
        if 0 <= hour < 24:
            return f"{hour:02d}:{minutes:02d}"
    for rx, bare in _TIMES:
        for m in rx.finditer(text):
            hour, minute = int(m[1]), int(m[2] or 0)
            if bare and hour < 8 and not re.search(r"de la mañana|morgens|du matin", text,
                                                   re.I):
                hour += 12          # "a las 7" for a plan: the evening
            elif hour < 12 and _EVENING.search(text[m.end():m.end() + 20]):
                hour += 12
            if 0 <= hour < 24 and 0 <= minute < 60:
                return f"{hour:02d}:{minute:02d}"
    return None
