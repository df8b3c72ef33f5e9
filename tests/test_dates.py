"""Dates and times in English, German, French and Spanish (``dream.kinds.dates``): month
and weekday names come from dateparser's locale data, spans are resolved against when the
message was said."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from dream.kinds import dates

SAID = datetime(2026, 3, 10, 9, 0, tzinfo=UTC)      # a Tuesday


@pytest.mark.parametrize("text, day, clock", [
    ("Abendessen am Freitag um 19 Uhr im Lokal Zur Linde", "2026-03-13", "19:00"),
    ("Termin am 14. März um 10:30 Uhr", "2026-03-14", "10:30"),
    ("Zahnarzttermin am 14.3. um 9 Uhr", "2026-03-14", "09:00"),
    ("Treffen nächsten Dienstag", "2026-03-17", None),
    ("übermorgen Mittagessen", "2026-03-12", None),
    ("am 2. Mai 2027", "2027-05-02", None),
    ("Dîner vendredi à 20h chez Paul", "2026-03-13", "20:00"),
    ("rendez-vous le 14 mars à 9h30", "2026-03-14", "09:30"),
    ("on se voit le 1er avril", "2026-04-01", None),
    ("demain soir", "2026-03-11", None),
    ("cita el 14 de marzo a las 10:30", "2026-03-14", "10:30"),
    ("cena mañana a las 8 de la tarde", "2026-03-11", "20:00"),
    ("pasado mañana", "2026-03-12", None),
    ("14 de marzo de 2027", "2027-03-14", None),
    ("Lunch on Friday", "2026-03-13", None),
    ("Freitag, 14. März", "2026-03-14", None),            # the full date, not the weekday
    ("mardi 14 avril", "2026-04-14", None),
])
def test_dates_and_times_in_four_languages(text, day, clock):
    assert dates.find_date(text, SAID) == day
    assert dates.find_time(text) == clock


@pytest.mark.parametrize("text", [
    "Ich habe dich heute Morgen nicht erreicht, aber",     # "Morgen": the morning
    "nos vemos por la mañana",
    "Version 1.2.3 released",
    "Preis 12.50 EUR",
    "nothing here at all",
])
def test_no_date_where_none_is_said(text):
    found = dates.find_date(text, SAID)
    assert found is None or found == "2026-03-10"         # "heute" alone is today
    assert dates.find_time(text) is None


def test_a_weekday_alone_is_told_from_a_full_date():
    assert dates.weekday_only("dîner vendredi") == 4
    assert dates.weekday_only("el viernes 14 de marzo") is None
    assert dates.weekday_only("morgen") is None


@pytest.mark.parametrize("text, day, clock", [
    ("Termin am 14.07. um 10 Uhr", "2026-07-14", "10:00"),     # not the time 14:07
    ("Jour fixe Montag, 16.3., 10:00", "2026-03-16", "10:00"),
    ("rendez-vous le 20/06 à 19h", "2026-06-20", "19:00"),
    ("el 20/6/2026 a las 9", "2026-06-20", "09:00"),
    ("am 3.1.", "2027-01-03", None),
    ("Abendessen um 19.30 im Lokal", None, "19:30"),
    # a dotted time that ends a sentence: no month 45, so no date "8.45."
    ("Service moved, it's now at 8.45. Sorry for the trouble", None, "08:45"),
    # a weekday's short form before a numeric day: "mar." is mardi / martes, not March
    ("votre séance du mar. 24/11 à 17h30 est avancée", "2026-11-24", "17:30"),
    ("tu cita del mar. 17/11 a las 10:00", "2026-11-17", "10:00"),
    ("Mar 24 at 10am", "2026-03-24", "10:00"),
])
def test_numeric_days_and_dotted_times(text, day, clock):
    from dream.kinds.text import find_date, find_time

    assert find_date(text, SAID) == day
    assert find_time(text) == clock


def test_a_weekday_and_a_day_number_apart_name_one_day():
    """"Sunday lunch here on the 20th": the weekday and "the 20th" said apart are one day,
    the next 20th that is a Sunday, not the coming Sunday; when no such day comes within
    two months they are two different days and the weekday is read as before."""
    from dream.kinds.text import find_date

    said = datetime(2026, 11, 21, 9, 14, tzinfo=UTC)       # a Saturday
    assert find_date("Sunday lunch here on the 20th before everyone scatters! 1pm",
                     said) == "2026-12-20"
    assert find_date("pizza Friday, the 4th, at mine", said) == "2026-12-04"
    # a Sunday the 19th is ten months away: two days, the weekday wins (the coming Sunday)
    assert find_date("Sunday works for me, or else the 19th", said) == "2026-11-22"
    # a month after the number makes it a full date, read as before
    assert find_date("Sunday, the 20th of December", said) == "2026-12-20"
    assert find_date("next Sunday on the 20th", said) == "2026-11-22"


@pytest.mark.parametrize("text, clock", [
    ("Der Techniker kommt am Freitag zwischen 13 und 17 Uhr.", "13:00"),
    ("Livraison possible de 14 à 18h le mardi.", "14:00"),
    ("El técnico pasará entre las 9 y las 11 h.", "09:00"),
    ("Abholung von 10 bis 12 Uhr im Lager.", "10:00"),
])
def test_a_span_of_hours_with_its_unit_at_the_end_starts_at_its_first_hour(text, clock):
    from dream.kinds.text import find_time
    assert find_time(text) == clock


@pytest.mark.parametrize("text, day", [
    ("Your MOT is booked for Wed 09/12, 10:40. Reply STOP to opt out", "2026-12-09"),
    ("RDV confirmé vendredi 11/12 à 9h15", "2026-12-11"),
    ("cita el miércoles 16/12 a las 10", "2026-12-16"),
    ("Probe am Do. 10/12 im Gemeindesaal", "2026-12-10"),
    # the US order, told by the weekday: Friday 12/18 is 18 December
    ("Practice moved to Friday 12/18 at the rec center", "2026-12-18"),
    # a weekday that fits neither order: no date from those numbers
    ("Mon 09/12 works?", None),
    # German's two-letter days are capitalised; lower-case "so" and "do" are English words
    ("Do 10/12 um 19 Uhr im Vereinsheim", "2026-12-10"),
    ("I did so 12/13 times before it stuck", None),
    ("we do 12/13 reps now", None),
])
def test_a_weekday_before_a_numeric_day_and_month_names_the_day_it_fits(text, day):
    """A text message's "Wed 09/12" is the day and month that fall on that weekday (day
    first in Europe, month first in the US); the weekday is then part of a full date, not
    a weekday said alone."""
    from dream.kinds.text import find_date, weekday_only

    said = datetime(2026, 11, 30, 8, 0, tzinfo=UTC)     # a Monday
    assert find_date(text, said) == day
    if day:
        assert weekday_only(text) is None


@pytest.mark.parametrize("text, clock", [
    ("Open day is Sat 14 Nov, 10:00-1:00 PM in the main hall", "10:00"),
    ("We're doing the garden party 3-6pm on Sunday", "15:00"),
    ("stall runs 11 to 2pm", "11:00"),
    ("Leaving do 6.30-9 PM upstairs", "18:30"),
    ("drop-in clinic 9-11am", "09:00"),
])
def test_a_span_of_hours_with_am_or_pm_at_its_end_starts_at_its_first_hour(text, clock):
    """"3-6pm" starts at three in the afternoon, not at six; the first hour takes the
    half of the day that keeps it before the last ("11 to 2pm" starts before noon)."""
    from dream.kinds.text import find_time

    assert find_time(text) == clock


@pytest.mark.parametrize("text, day", [
    ("Christmas Eve drinks at the Feathers, 8pm?", "2026-12-24"),
    ("we'll do the Boxing Day walk from the car park at 10", "2026-12-26"),
    ("Treffen wir uns an Silvester bei Jonas?", "2026-12-31"),
    ("Repas de famille le jour de Noël à midi", "2026-12-25"),
    ("Cenamos en casa de mis padres en Nochebuena", "2026-12-24"),
    # the season alone names no day
    ("what are you doing for Christmas this year?", None),
    ("on part à la montagne pour Noël", None),
])
def test_a_holiday_on_a_fixed_day_names_that_day(text, day):
    """"Boxing Day walk" said in late November is on 26 December; "for Christmas" is a
    season, not a day."""
    from dream.kinds.text import find_date

    said = datetime(2026, 11, 27, 18, 0, tzinfo=UTC)
    assert find_date(text, said) == day


@pytest.mark.parametrize("text, clock", [
    ("choir social at the Bell, Friday 7.30ish", "19:30"),
    ("we'll head over around 6ish", "18:00"),
    ("brunch 10.45ish if the table's free", "10:45"),
    ("pick-up from school about 3-ish", "15:00"),
    # a loose amount is no time
    ("it took 2.5ish hours door to door", None),
    ("about 10ish people said yes", None),
])
def test_a_time_said_loosely_with_ish(text, clock):
    """"7.30ish" is half past seven, in the evening for a plan made among friends as "at
    7" is; "2.5ish hours" or "10ish people" is an amount, no time."""
    from dream.kinds.text import find_time

    assert find_time(text) == clock


@pytest.mark.parametrize("text, clock", [
    ("booked in with Kai Fri 15th May 09.30", "09:30"),
    ("so Sunday 17th 7.55 now, still ok?", "07:55"),
    ("Thursday 3 Dec 18.45 at the Lyceum", "18:45"),
    # money after a day is no time
    ("paid on the 3rd 12.50 euros", None),
    ("December 14.99€ a month", None),
])
def test_a_dotted_time_right_after_a_day(text, clock):
    """A time written with a dot and no "at" right after the day it is on ("Sat 12th Dec
    11.15") is that time; an amount of money after a day is not."""
    from dream.kinds.text import find_time

    assert find_time(text) == clock


@pytest.mark.parametrize("text, day", [
    ("I'm off to Cardiff on the 19th for a few days", "2026-12-19"),
    ("dinner the 5th at Rosa's?", "2026-12-05"),
    # the number of a thing, not a day
    ("she lives on the 4th floor", None),
    ("it's our 20th anniversary", None),
])
def test_the_nth_followed_by_a_preposition_is_a_day(text, day):
    """"on the 19th for a few days" names the 19th: a preposition links it to the rest of
    the sentence; "the 4th floor" counts floors."""
    from dream.kinds.text import find_date

    said = datetime(2026, 11, 29, 19, 0, tzinfo=UTC)
    assert find_date(text, said) == day
