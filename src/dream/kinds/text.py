"""Plain-text reading shared by the bundler and the rules provider: sentences, names,
dates and times. Deterministic. English dates and times are read here; German, French
and Spanish ones (and English ones these patterns miss) by :mod:`dream.kinds.dates`."""

from __future__ import annotations

import re
from datetime import UTC, date, datetime, timedelta

from dream.kinds import dates

WEEKDAYS = ["monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday"]
MONTHS = ["january", "february", "march", "april", "may", "june", "july", "august",
          "september", "october", "november", "december"]
_MONTH_ABBR = {m[:3]: i + 1 for i, m in enumerate(MONTHS)} | {"sept": 9}
# the English month words the patterns accept ("mardi" is a French Tuesday, not March)
_MONTH_WORDS = set(MONTHS) | set(_MONTH_ABBR) | {"sept"}
NOT_NAMES = {
    "i", "i'm", "i've", "i'll", "i'd", "im", "ok", "okay", "yes", "no", "hi", "hey", "hello",
    "thanks", "thank", "the", "a", "an", "and", "but", "or", "so", "if", "we", "you", "it",
    "this", "that", "they", "he", "she", "my", "our", "your", "let", "lets", "let's", "just",
    "also", "sure", "great", "good", "nice", "cool", "sorry", "please", "maybe", "what",
    "when", "where", "who", "why", "how", "can", "could", "would", "should", "will", "do",
    "does", "did", "is", "are", "was", "were", "be", "not", "don't", "it's", "that's", "there",
    "here", "today", "tomorrow", "tonight", "yesterday", "now", "then", "wow", "oh", "yeah",
    "yep", "nope", "lol", "omg", "btw", "fyi", "re", "fwd", "dear", "best", "regards", "cheers",
    "all", "any", "some", "every", "each", "in", "on", "at", "for", "to", "from", "with",
    "of", "by", "as", "after", "before", "about", "done", "am", "pm", "new", "next", "last",
    "remember", "always", "never", "actually", "wait", "well", "awesome", "right",
    "wrong", "true", "false", "none", "null", "todo", "note", "use", "run", "add", "fix",
    "make", "check", "see", "look", "try", "got", "get", "have", "has", "had", "going",
    "reminder", "remind", "don", "didn't", "doesn't", "isn't", "won't", "can't", "couldn't",
    "perfect", "congrats", "congratulations", "happy", "love", "bye", "sounds", "agreed",
    "definitely", "absolutely", "really", "totally", "anyway", "haha", "hmm", "um", "uh",
    "mon", "tue", "wed", "thu", "fri", "sat", "sun", "utc", "api", "url", "json", "http",
    "https", "cli", "ui", "id", "pr", "ci",
} | set(WEEKDAYS) | set(MONTHS)
_DAY_WORDS = {"mon", "tue", "tues", "wed", "thu", "thur", "thurs", "fri", "sat", "sun",
              "jan", "feb", "mar", "apr", "jun", "jul", "aug", "sep", "sept", "oct", "nov",
              "dec"} | set(WEEKDAYS) | set(MONTHS)
_UP, _LOW = "A-ZÀ-ÖØ-Þ", "a-zß-öø-ÿ"        # Latin letters with accents ("Lucía", "Zoë")
_NAME_RE = re.compile(rf"(?<![\w@/.#-])([{_UP}][{_LOW}]+(?:[ -][{_UP}][{_LOW}]+)?)"
                      r"(?![\w/.@-]*\.\w)")
# a sentence ends at . ! ? before a capital, not after a day number ("am 17. März")
_SENT_RE = re.compile(r"(?<=[.!?])(?<!\b\d\.)(?<!\b\d\d\.)\s+(?=[A-Z\"'(])|\n+")


def sentences(text: str) -> list[str]:
    out = []
    for part in _SENT_RE.split(text or ""):
        part = part.strip(" \t-*>•")
        if part:
            out.append(part)
    return out


def names(text: str, limit: int = 12, known: set[str] | None = None) -> list[str]:
    """Capitalised words that look like names of people, places or things. A word at the
    start of a sentence counts only when it is ``known`` (lower case) or capitalised
    elsewhere in the text, since any word is capitalised there."""
    found: dict[str, None] = {}
    text = text or ""
    known = known or set()
    for match in _NAME_RE.finditer(text):
        word = match.group(1)
        before = text[:match.start()].rstrip()
        at_start = not before or before[-1] in ".!?:\n\"'("
        if at_start and word.lower() not in known and \
                not re.search(r"[\w,;] " + re.escape(word) + r"\b", text):
            continue
        parts = word.replace("-", " ").split()
        if len(parts) == 2 and parts[1].lower() in _DAY_WORDS and \
                re.match(r"\s+\d", text[match.end():]):
            word = parts[0]     # "booked in with Bex Sat 12th": Bex, then her day
        if parts[0].lower() in NOT_NAMES:
            if len(parts) == 1 or parts[1].lower() in NOT_NAMES:
                continue
            word = parts[1]
        if len(word) < 3:
            continue
        found[word] = None
        if len(found) >= limit:
            break
    return list(found)


# -- dates and times -------------------------------------------------------------------------
_ISO_DATE = re.compile(r"\b(20\d\d)-(\d\d)-(\d\d)\b")
_DAY_MONTH = re.compile(
    r"\b(\d{1,2})(?:st|nd|rd|th)?\s+(?:of\s+)?(jan|feb|mar|apr|may|jun|jul|aug|sept?|oct|nov|dec)"
    r"[a-z]*\.?(?:,?\s+(20\d\d))?\b", re.I)
# (not a weekday's short form before a day and month: "mar. 08/12" is mardi 8 December)
_MONTH_DAY = re.compile(
    r"\b(jan|feb|mar|apr|may|jun|jul|aug|sept?|oct|nov|dec)[a-z]*\.?\s+(\d{1,2})(?:st|nd|rd|th)?"
    r"\b(?!/\d)(?:,?\s+(20\d\d))?", re.I)
_SLASH = re.compile(r"\b(\d{1,2})/(\d{1,2})(?:/(20\d\d))?\b")
_REL = re.compile(r"\b(today|tonight|tomorrow|day after tomorrow)\b", re.I)
_WEEKDAY = re.compile(r"\b(?:(next|this|on|last|past)\s+)?(monday|tuesday|wednesday|thursday|friday|"
                      r"saturday|sunday)s?\b", re.I)
# "on the 20th" with no month after it ("the 20th of May", "the 20th March" are full dates)
_THE_NTH_DAY = re.compile(r"\bthe\s+(\d{1,2})(?:st|nd|rd|th)\b(?!\s+(?:of\s+)?(?:"
                          + "|".join(_MONTH_ABBR) + r")[a-z]*\b)", re.I)
_IN_DAYS = re.compile(r"\bin\s+(\d{1,2}|two|three|a couple of)\s+days\b", re.I)
_TIME = re.compile(r"\b(?:at\s+)?(\d{1,2})(?:[:.](\d\d))?\s*(am|pm|a\.m\.|p\.m\.)(?!\w)"
                   r"|\b(\d{1,2}):(\d\d)\b"
                   # ("am 12.10." is a day; "at 12.30." ends a sentence: no month 30)
                   r"|\b(?:at|from|ab|um|à|a las)\s+(\d{1,2})\.(\d\d)\b"
                   r"(?!\.\d|(?<=\.(?:0\d|1[0-2]))\.)"
                   r"|\bat\s+(\d{1,2})\b(?!\s*(?:%|st|nd|rd|th|/|-|:|\.\d))"
                   # "7.30ish", "at 7ish", "around 8-ish": a time said loosely
                   r"|(?:(?<![\d.,])(\d{1,2})[.:](\d\d)|\b(?:at|around|about|from|by)\s+"
                   r"(\d{1,2}))\s?-?ish\b"
                   r"(?!\s+(?:years?|people|guests|min(?:ute)?s?|hours?|km|miles)\b)"
                   # "Sat 12th Dec 11.15", "Friday 18th 6.40 now": a dotted time after a day
                   r"|\b(?:\d{1,2}(?:st|nd|rd|th)|(?:jan|feb|mar|apr|may|jun|jul|aug|sep|oct|"
                   r"nov|dec)[a-z]{0,6}\.?),?\s+(\d{1,2})\.(\d\d)\b(?!\.\d)"
                   r"(?!\s*(?:€|eur\b|euros?\b|pounds?\b|dollars?\b|zł|kr\b|%))", re.I)
_NOON = re.compile(r"\b(noon|midday|midnight)\b", re.I)


def parse_when(said: str) -> datetime | None:
    if not said:
        return None
    try:
        when = datetime.fromisoformat(said.replace("Z", "+00:00"))
    except ValueError:
        return None
    return when if when.tzinfo else when.replace(tzinfo=UTC)


def _mk(year: int, month: int, day: int) -> date | None:
    try:
        return date(year, month, day)
    except ValueError:
        return None


_NEXT_WEEK = re.compile(r"\b(?:next week|the week after|nächste[n]? woche|kommende[n]? woche|"
                        r"semaine prochaine|la semaine d'après|semana que viene|"
                        r"próxima semana|proxima semana)\b", re.I)


def find_date(text: str, ref: datetime | None) -> str | None:
    """The first date the text names, as YYYY-MM-DD, resolved against ``ref`` (when it was
    said). Dates without a year take the next such date on or after ``ref``."""
    base = (ref or datetime(2000, 1, 1)).date()
    text = dates.range_start(text)
    if _NEXT_WEEK.search(text):
        # "Friday next week", "nächste Woche Dienstag", "el jueves de la semana que viene":
        # that weekday in the calendar week after the one it was said in ("next week"
        # alone names no day)
        wd = weekday_only(text)
        if wd is not None:
            return (base + timedelta(days=7 - base.weekday() + wd)).isoformat()
    m = _ISO_DATE.search(text)
    if m:
        d = _mk(int(m[1]), int(m[2]), int(m[3]))
        if d:
            return d.isoformat()
    for rx, order in ((_DAY_MONTH, "dm"), (_MONTH_DAY, "md")):
        m = next((x for x in rx.finditer(text) if _english_month(x[0])), None)
        if m:
            day_s, mon_s = (m[1], m[2]) if order == "dm" else (m[2], m[1])
            month = _MONTH_ABBR.get(mon_s.lower()[:4] if mon_s.lower().startswith("sept")
                                    else mon_s.lower()[:3])
            if month:
                year = int(m[3]) if m[3] else base.year
                d = _mk(year, month, int(day_s))
                if d and not m[3] and d < base - timedelta(days=60):
                    d = _mk(year + 1, month, int(day_s))
                if d:
                    return d.isoformat()
    other = dates.find_date(text, ref, full_only=True) or dates.weekday_and_day(text, ref) \
        or dates.holiday(text, ref)
    if other:
        return other
    m = _REL.search(text)
    if m:
        word = m[1].lower()
        delta = {"today": 0, "tonight": 0, "tomorrow": 1, "day after tomorrow": 2}[word]
        return (base + timedelta(days=delta)).isoformat()
    m = _IN_DAYS.search(text)
    if m:
        n = {"two": 2, "three": 3, "a couple of": 2}.get(m[1].lower())
        n = n if n is not None else int(m[1])
        return (base + timedelta(days=n)).isoformat()
    m = _WEEKDAY.search(text)
    if m:
        target = WEEKDAYS.index(m[2].lower())
        nth = None if m[1] else _THE_NTH_DAY.search(text)
        if nth and 1 <= int(nth[1]) <= 31:
            # "Sunday lunch here on the 20th": the next 20th that is a Sunday (only when
            # such a day comes within two months: else they are two different days)
            found = dates.next_day(int(nth[1]), base, target)
            day = date.fromisoformat(found) if found else None
            if day and day.weekday() == target and (day - base).days <= 62:
                return found
        if (m[1] or "").lower() in ("last", "past"):        # "last Friday": the one before
            return (base - timedelta(days=(base.weekday() - target) % 7 or 7)).isoformat()
        ahead = (target - base.weekday()) % 7
        if ahead == 0 and (m[1] or "").lower() == "next":
            ahead = 7
        return (base + timedelta(days=ahead)).isoformat()
    return dates.find_date(text, ref) or dates.day_of_month(text, ref)


def _english_month(span: str) -> bool:
    return any(w.lower().rstrip(".") in _MONTH_WORDS for w in re.findall(r"[A-Za-z]+\.?", span))


def weekday_only(text: str) -> int | None:
    """The weekday (0 = Monday) the text names when a weekday is all it says of the date
    ("on Friday", not "Friday 13 March" or "tomorrow"), else None."""
    if _ISO_DATE.search(text) or _DAY_MONTH.search(text) or _MONTH_DAY.search(text) or \
            _REL.search(text) or _IN_DAYS.search(text) or dates.slash_weekdays(text) or \
            dates.holiday(text, None):
        return None
    m = _WEEKDAY.search(text)
    return WEEKDAYS.index(m[2].lower()) if m else dates.weekday_only(text)


# a span of hours with am/pm once, at its end ("4:00-6:00 PM", "2-5pm", "9 to 11am"):
# it starts at its first hour, in the half of the day that keeps it before its last
_SPAN = re.compile(r"(?<![\d:./])(\d{1,2})(?:[:.](\d\d))?\s*(?:-|–|—|to)\s*(\d{1,2})"
                   r"(?:[:.](\d\d))?\s*(am|pm|a\.m\.|p\.m\.)(?!\w)", re.I)


def _span_start(m: re.Match[str]) -> str:
    start, end = int(m[1]), int(m[3])
    if not (1 <= start <= 12 and 1 <= end <= 12):
        return m[0]
    pm = m[5].lower().startswith("p")
    last = (end % 12) + (12 if pm else 0)
    first = (start % 12) + (12 if pm else 0)
    if first > last:
        first -= 12         # "11-2pm": eleven in the morning; "10-12pm": ten
    return f"{first:02d}:{int(m[2] or 0):02d}" if first >= 0 else m[0]


def find_time(text: str) -> str | None:
    """The first clock time the text names, as HH:MM."""
    text = _SPAN.sub(_span_start, text)
    m = _NOON.search(text)
    for m2 in _TIME.finditer(text):
        if m2[1]:
            hour, minute, mer = int(m2[1]), int(m2[2] or 0), m2[3].lower().replace(".", "")
            if hour > 12:
                continue
            if mer == "pm" and hour != 12:
                hour += 12
            if mer == "am" and hour == 12:
                hour = 0
        elif m2[4]:
            hour, minute = int(m2[4]), int(m2[5])
        elif m2[6]:     # "at 19.30", "um 19.30"
            hour, minute = int(m2[6]), int(m2[7])
        elif m2[12]:
            hour, minute = int(m2[12]), int(m2[13])
        elif m2[9] or m2[11]:
            hour, minute = int(m2[9] or m2[11]), int(m2[10] or 0)
            if 0 < hour < 8:      # "7.30ish" for a social plan means the evening
                hour += 12
        else:
            hour, minute = int(m2[8]), 0
            if hour > 12 or hour == 0:
                continue
            if hour < 8:          # "at 7" for a social plan means the evening
                hour += 12
        if 0 <= hour < 24 and 0 <= minute < 60:
            return f"{hour:02d}:{minute:02d}"
    if m:
        return "00:00" if m[1].lower() == "midnight" else "12:00"
    return dates.find_time(text)
