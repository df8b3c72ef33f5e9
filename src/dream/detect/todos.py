"""To-dos: what someone asks to be done or says they must do, and when it is done.

A user's "remind me to ...", "I need to ...", "don't forget to ...", "todo: ..." and
another person's "can you ...", "please ..." open a to-do when the task is sure ("remind
me", "todo:"), has a due date, or starts with a task verb ("send", "book", "pay" ...);
"can you tell me more" is conversation, not a task. A task said again is the same to-do.

The user taking a task on opens one too: "I'll bring the chalk bag", "Sending the £85
tonight", "J'apporte le dessert", "el regalo lo compro el miércoles" (commitment phrases
of German, French and Spanish in ``words/<lang>.toml``, section ``todos``). Someone
else's commitment is theirs, not the user's: no to-do.

In a group (a stream where several other people write), a request or a deadline ("can
someone bring a folding table?", "budget submissions are due Friday") is the user's only
when it names them ("@kat can you review ...", "Felix, could you ...") or when they take
it on in the same stream within a day ("I'll bring it", "sure", "noted, I'll get my
sheet in"): then the to-do has the request's task (or, for a deadline, its subject with
the user's part) and its due date.

A later sentence closes an open to-do when it says it is done ("done", "sent", "paid",
"erledigt", "c'est fait", "listo", "✅" ...) about it, or uses the to-do's own verb in the
past ("Renewed the car insurance"); a shop's "thank you for your order" closes the to-do
to order from that shop.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from functools import cache

from dream.detect import requests
from dream.detect.cues import LANGUAGES, english_cues, words
from dream.detect.finding import Finding, conversation
from dream.detect.mailtext import readable
from dream.detect.prose import STOP, stems
from dream.items import Item
from dream.kinds.text import find_date, parse_when, sentences

# to-dos are read in more languages than plans: Dutch, Portuguese, Swedish, Polish and
# Italian have their to-do words (``words/<lang>.toml``, section ``todos``) only
TODO_LANGUAGES = (*LANGUAGES, "nl", "pt", "sv", "pl", "it")

# The person's own to-do cues, one list: (cue, what may follow it before the task, sure).
# TODO_USER finds any of them before a task; a sure cue (TODO_SURE, anywhere in the
# sentence) keeps the task without a due day or a task verb, which "i need to" needs.
_USER_CUES = (
    (r"remind me to", "", True),
    (r"i need to", "", False),
    (r"i have to", "", False),
    (r"i must", "", False),
    (r"don'?t forget to", "", False),
    (r"remember to", "", False),
    (r"todo:", "", True),
    (r"to-do:", "", True),
    (r"note to self", ":?", True),
    (r"don'?t let me forget", "(?: to)?", True),
    (r"keep track of", "(?: this)?:", True),
    (r"add to my (?:list|to-?dos?)", ":", True),
    (r"put on my list", ":", True),
)
TODO_USER = re.compile(r"\b(?:" + "|".join(cue + tail for cue, tail, _ in _USER_CUES) + r")"
                       r"\s+(.{3,160})", re.I)
TODO_SURE = re.compile(r"\b(?:" + "|".join(cue for cue, _, sure in _USER_CUES if sure) + ")",
                       re.I)
TASK_VERBS = re.compile(
    r"^(?:send|call|book|pick up|bring|buy|pay|sign|review|email|text|renew|file|submit|"
    r"schedule|cancel|return|order|fix|finish|prepare the|print|post|reply|write|check|update|"
    r"confirm|invite|collect|drop off|clean|ship|deploy|merge|upload|share|fill (?:in|out)|"
    # a form to complete: "please complete the online medical history form"
    r"complete (?:the|your|this|our) (?:[\w-]+ ){0,3}(?:form|questionnaire|application))\b", re.I)
TODO_OTHER = re.compile(r"\b(?:can you|could you(?: please)?|please|don'?t forget to|"
                         r"remember to|peux-tu|pourrais-tu|tu peux|tu pourrais|kannst du|"
                         r"könntest du|(?:me |nos )?puedes|(?:me |nos )?podrías|"
                         # French asks with "merci de" and the verb: "Merci de nous transmettre
                         # votre RIB" (not "merci de votre réponse", "merci de nous avoir reçus")
                         r"merci de(?: nous| me| lui| leur)?(?= (?!(?:votre|notre|avoir|être)\b)[^\W\d_]+"
                         r"(?:er|ir|re)\b)|"
                         # Spanish asks with the verb in the present: "¿me mandas el PDF?"
                         r"(?<=¿)(?:me|nos)(?= [^\W\d_]{3,}as\b))\s+(.{3,160})", re.I)
# (a thing sent "attached" is sent: "Voilà le rapport en pièce jointe", "anbei", "adjunto")
DONE = re.compile(r"\b(done|finished|completed|sent|submitted|paid|fixed|did it|took care of|"
                  r"attached|en pièces? jointes?|ci-joints?|im anhang|anbei|adjuntos?)\b", re.I)
# the thing of a task said to be in its done state: "airport transfer is booked", "card's
# signed by all of us", "Cake collected" (the other languages' words: ``done`` in
# words/*.toml); not when the sentence says it is not so or still to come
DONE_STATE = re.compile(r"\b(?:booked|collected|signed|bought|ordered|picked up|sorted(?: out)?|"
                        r"arranged|reserved|organi[sz]ed|renewed|returned|posted|printed|"
                        r"baked|handed in|dropped off|packed|"
                        # "picked it up on Saturday", "dropped them off"
                        r"(?:picked|dropped|handed) (?:it|them) (?:up|off|in)|"
                        # what was to be sent in or off "went in", "has gone off"
                        r"(?:went|gone|turned) (?:in|off)|"
                        # "rope and pad are packed, in the car already", "capacity numbers
                        # are in the doc already": the thing is where it should be
                        r"already|bereits|déjà)\b", re.I)
# the user telling they got the thing of a to-do to get ("got the cat food 🐟", "picked up
# the prescription"): the errand is done (when the sentence names that to-do's thing)
ACQUIRED = re.compile(r"^\W*(?:i\s+|we\s+|just\s+)?(?:got|bought|grabbed|picked up|fetched|"
                      r"collected)\b", re.I)
NOT_YET = re.compile(r"\b(?:not|never|yet|still|will|'ll|need|needs|have to|has to|must|"
                     r"going to|gonna|should|can|could)\b|n't\b|\?", re.I)
CALL_OFF = re.compile(r"(?:call off|call (?:it|this|that|tonight|tomorrow|the \w+) off|cancel (?:it|on "
                      r"\w+|tonight|tomorrow|(?:this |next )?(?:mon|tues|wednes|thurs|fri|satur|"
                      r"sun)day)|skip (?:it|tonight)|bail|drop out)\b", re.I)
# someone asking a group: "can someone bring a folding table?", "could anyone ..."
ANYONE = re.compile(r"\b(?:(?:can|could|would) (?:someone|somebody|anyone|anybody|one of you)|"
                    r"(?:kann|könnte) (?:jemand|einer von euch)|quelqu'un (?:peut|pourrait)|"
                    r"(?:alguien|alguno) (?:puede|podría))\s+(.{3,160})", re.I)
# a deadline said to a group: "Q3 budget submissions are due Friday 26 June"
DEADLINE = re.compile(r"\b(?:is|are) due\b|\bdue (?:by|on)\b|\bdeadline\b|\babgabe\b|"
                      r"\bdate limite\b|\bfecha l[ií]mite\b|\bà rendre\b|\bfällig\b", re.I)
# the user taking a task on in English; the other languages' phrases are in words/*.toml
_TAKE_ON = re.compile(
    # an offer is taken on too: "I can pick up the cake", "happy to book it"
    r"\b(?:i'?ll|i will|i'?m going to|i am going to|i'?m gonna|i can|i could|"
    r"(?:i'?m )?happy to)\s+(?:(?:just|also|quickly|"
    r"then|happily|definitely|gladly)\s+)?((?:bring|send|buy|book|order|sort|look (?:at|into)|"
    r"check|call|pay|pick up|get|transfer|text|email|write|print|ask|organi[sz]e|arrange|"
    r"handle|reserve|renew|return|fix|prepare|finish|submit|confirm|collect|drop off|grab|"
    r"move|update|share|bake|cook|make a|make the|find|research|fill (?:in|out)|"
    # a thing to do said with "do" and its thing: "I'll do the invitations this week" (not
    # "I'll do the same", "I'll do my best")
    r"do(?= (?:the|a|an|some|our|my) (?!same\b|rest\b|best\b|honou?rs\b|maths?\b)[^\W\d_]))"
    r"\b.{2,140})|"
    r"^((?:sending|bringing|booking|ordering|buying|paying|transferring|picking up)\s+"
    r"(?:the|a|an|my|our|your|it|them|you|some|£|\$|€|\d).{1,140})", re.I)
# "I'll bring Jo": a person comes along, no task
_PERSON_OBJECT = re.compile(r"^\w+(?: \w+)? (?!The\b)[A-Z][a-z]+\b(?! [a-z]+ing)")
# (not "ask": "I'll ask Mum" is as often a maybe as a task)
_TO_PERSON = re.compile(r"(?:call|ring|phone|text|email|e-mail|message|write to|pay)\b",
                        re.I)
PRONOUN_OBJECT = re.compile(r"^[\w']+(?: \w+)? (?:it|one|them|that|those|these|es|das|ihn|"
                            r"ça|le|la|les|lo|los|eso)(?: mit| yo)?\W*$|^(?:je |yo )?(?:lo|la|"
                            r"los|las|le|les|l') ?\w+(?: yo)?\W*$|^(?:übernehme|bringe) ich\b|"
                            r"^je m'en charge\W*$", re.I)
ACCEPT = re.compile(r"^\W*(?:sure|ok(?:ay)?|yes|yep|will do|on it|no problem|of course|happy "
                    r"to|can do|noted|i can do that|i'?ll do it|i'?ll take care of it)\b", re.I)
# someone saying they got what a to-do was to give them
RECEIVED = re.compile(r"\b(?:got|received|thanks for|thank you for|danke für|merci pour|"
                      r"gracias por|bekommen|erhalten|reçu|recibido)\b", re.I)
# someone telling the user they got what the user was to give them: "We've received your
# deposit", "we have received your completed medical history form", "nous avons bien reçu
# votre virement de 20 €", "hemos recibido tu transferencia", "wir haben Ihre Anmeldung
# erhalten"
RECEIVED_YOURS = re.compile(r"\b(?:received|got|reçu|recibido)\s+(?:your|votre|vos|ton|ta|tes|tu|"
                            r"su|sus)\s+([^.!?\n]{2,60})|\b(?:Ihre|deine?n?|eure?n?)\s+((?:[^\W\d_]"
                            r"[\w-]*\s+){0,2}?[^\W\d_][\w-]*)\s+(?:erhalten|bekommen)\b", re.I)
# what is paid, and a task to pay ("Pay the fee", "Je vous règle le solde", "Anzahlung
# überweisen", "pagar la señal")
_PAYMENT = re.compile(r"\b(?:payment|transfer|deposit|fee|virement|paiement|règlement|acompte|"
                      r"solde|Zahlung|Überweisung|Anzahlung|pago|transferencia|señal)\b", re.I)
_PAY_TASK = re.compile(r"\b(?:pay|transfer|payer|paie|règle|régler|verse[rz]?|virement|zahlen|"
                       r"bezahlen|überweisen|überweise|pagar|pago|transferir)\b", re.I)
ORDER_THANKS = re.compile(r"\b(?:thank you for your order|thanks for your order|your order "
                          r"(?:is|has been) confirmed|order confirmed|vielen dank für ihre "
                          r"bestellung|danke für ihre bestellung|merci pour votre commande|"
                          r"gracias por (?:tu|su) pedido)\b", re.I)
_VERBISH = {"bring", "send", "buy", "book", "order", "sort", "look", "check", "call", "pay",
            "pick", "get", "transfer", "text", "email", "write", "print", "ask", "organise",
            "organize", "arrange", "handle", "reserve", "renew", "return", "fix", "prepare",
            "finish", "submit", "confirm", "collect", "drop", "grab", "move", "update",
            "share", "bake", "cook", "make", "find", "research", "week", "tonight",
            "tomorrow", "weekend", "today", "later", "soon"}


def _things(text: str) -> set[str]:
    """The words of a to-do's text that may name its thing (not its verb or when)."""
    return {w for w in re.findall(r"[^\W\d_]{4,}", text.lower())} - STOP - _VERBISH - {
        "this", "that", "promise", "btw", "also", "then", "there", "here", "today", "ahora",
        "heute", "morgen", "demain", "mañana", "ist", "sind", "est", "está",
        # a word standing for any thing names none: "you don't need to do anything"
        "anything", "something", "everything", "nothing", "anyone", "someone", "everyone"}


def _same_thing(a: str, b: str) -> bool:
    """Two words naming the same thing: the same word, its plural ("rooms", "room"), or
    sharing their first five letters (compounds: "Tischreservierung", "Tisch")."""
    return a == b or a.rstrip("s") == b.rstrip("s") or \
        (len(a) >= 5 and len(b) >= 5 and (a[:5] in b or b[:5] in a))


def _about(title: str, said: set[str]) -> bool:
    """Whether a to-do's title names one of the things said (:func:`_same_thing`)."""
    return any(_same_thing(a, b) for a in said for b in _things(title))


def _task(raw: str) -> str:
    """The task of a request or commitment, without its trailing time and politeness."""
    task = re.sub(r"[\U0001F300-\U0001FAFF\u2600-\u27BF\ufe0f\u200d]+", " ", raw)
    task = re.sub(r"(?<!\w):[a-z0-9_+-]+:(?!\w)", " ", task)     # a Slack emoji code ":+1:"
    task = re.split(r"[.!?\n]", task)[0].strip(" ,")
    task = re.sub(r"^(?:please|me)\s+", "", task, flags=re.I)
    # ("by Friday", "before Friday 4 Dec", "by the 12th", "by 3 March": the due date, kept apart)
    task = re.sub(r"\s+(?:by|before|on|until)\s+(?:next\s+|this\s+|the\s+)?(?:"
                  r"today|tonight|tomorrow|(?:(?:mon|tues|wednes|thurs|fri|satur|sun)day"
                  r"(?:,?\s+(?:the\s+)?\d[\w ]*)?)|\d[\w ]*)$", "", task, flags=re.I)
    # a remark after the task in a clause of its own is no part of it: "update the status
    # page copy, it still says beta", "get him a present - he's into vinyl"
    task = re.sub(r"(?:,|\s[-–—])\s+(?:it|it's|that|that's|this|she|she's|he|he's|they|they're|which|"
                  r"as|since|because|cos|c'est|il|elle|es|das|er|sie)\b.*$", "", task,
                  flags=re.I)
    # a name called at the end is whom the message is to: "Je t'envoie mes congés demain
    # Pascal", "I'll send the form tonight, Jo"
    task = re.sub(r"(,|\b(?:today|tonight|tomorrow|demain|ce soir|morgen|heute|mañana|hoy|"
                  r"esta noche))\s*[A-ZÀ-Ö][a-zß-ÿ]+$", r"\1", task).strip(" ,")
    before = None
    while before != task:       # "pay the fee this week anyway": each trailing word in turn
        before = task
        task = re.sub(r",?\s+(?:sorry|please|thanks|thank you|ok|okay|pls|plz|anyway|"
                      r"(?:before|by|after|until) then|for after|then)$", "", task, flags=re.I)
        task = re.sub(r"\s+(?:(?:this|next) (?:week|month|weekend)|soon|asap|later|beforehand|"
                      r"in advance|ahead of time|"
                      r"today|tonight|tomorrow|demain|ce soir|cette semaine|morgen|heute|"
                      r"diese woche|am wochenende|ce week-end|mañana|hoy|esta noche|esta semana|"
                      r"este finde|este fin de semana)$", "", task,
                      flags=re.I).strip(" ,")
    return task.strip(" ,")


def deadline_subject(sent: str) -> str | None:
    """What a deadline is for: "Q3 budget submissions" of "Reminder: Q3 budget
    submissions are due Friday", "Abgabe des Projektberichts" of "Abgabe des
    Projektberichts ist Freitag"."""
    sent = re.sub(r":[a-z0-9_+-]+:", " ", sent)
    sent = re.sub(r"^\W*(?:hi all|hi everyone|hello all|reminder|zur erinnerung|rappel|"
                  r"recordatorio|fyi|psa|guten morgen)\W*", "", sent, flags=re.I)
    sent = re.sub(r"^\W*(?:reminder|zur erinnerung|rappel|recordatorio)\W*", "", sent,
                  flags=re.I)
    m = re.match(r"(.{3,60}?)\s+(?:is|are|ist|sind|est|es)\s+(?:due|fällig)?", sent, re.I)
    if m and DEADLINE.search(sent):
        return m[1].strip(" :*,")
    m = re.search(r"\bdeadline (?:for|of) (.{3,60}?)(?:\s+is\b|$)", sent, re.I)
    return m[1].strip(" :*,") if m else None


# a thing named first, then taken on with a pronoun standing for it and "yo" after the verb
# (Spanish doubles the object this way): "La tasa la pago yo online", "me ha llegado la de
# la luz, la pago yo este finde", "los billetes los compro yo"
_DOUBLED = re.compile(r"\b((?:el|la|los|las|lo) (?:[^\W\d_][\w'-]* ){0,4}?[^\W\d_][\w'-]*),? "
                      r"(?:lo|la|los|las) (pago|compro|llevo|traigo|reservo|pido|mando|envío|"
                      r"llamo|recojo|preparo|hago|imprimo|relleno|organizo) yo\b([^.!?;]*)", re.I)


def commitment(sent: str) -> str | None:
    """The task a user's sentence takes on, or None (a question takes nothing on)."""
    sent = re.sub(r"¿[^?]*\?|[^.!?]*\?", " ", sent)
    m = _DOUBLED.search(sent)
    if m:       # the verb first, then the thing its pronoun stands for
        return _task(f"{m[2].lower()} {m[1][0].lower()}{m[1][1:]}{m[3]}")
    m = _TAKE_ON.search(sent)
    if m:
        task = _task(m[1] or m[2])
        # "I'll bring Jo" is company; "I'll email Dr Hale", "I'll call Mum" is a task
        return None if _PERSON_OBJECT.match(task) and not _TO_PERSON.match(task) else task
    rx = _commit_words()
    for part in re.split(r"[,;.!]\s+|\s+(?:so|así que|donc|also|und|et|y|and)\s+", sent):
        part = re.sub(r"^(?:así que|so|donc|also|und|et|y|and|pero|but|mais|aber|entonces|"
                      r"then|alors|dann|en|e|och|maar|mas|men|ale|ma)\s+", "",
                      part.strip(), flags=re.I)
        if rx.search(part):
            return _task(part)
    return None


def _todo_phrases(key: str) -> list[str]:
    """The phrases of one kind (``commit``, ``verbs``, ...) in every language's ``todos``
    section of ``words/<lang>.toml``."""
    return [p for lang in TODO_LANGUAGES for p in words(lang).get("todos", {}).get(key, [])]


@cache
def _commit_words() -> re.Pattern[str]:
    phrases = _todo_phrases("commit")
    return re.compile(r"(?<![\w'])(?:" + "|".join(sorted(phrases, key=len, reverse=True)) +
                      r")(?![\w'])", re.I)


@cache
def _task_verbs() -> re.Pattern[str]:
    """The verbs of German, French and Spanish a task is asked with, anywhere in the task
    (German puts the infinitive last: "die Luftmatratze mitbringen")."""
    phrases = _todo_phrases("verbs")
    return re.compile(r"(?<![\w'])(?:" + "|".join(sorted(phrases, key=len, reverse=True)) +
                      r")(?![\w'])", re.I)


@cache
def _relief_words() -> re.Pattern[str]:
    phrases = _todo_phrases("relief")
    return re.compile(r"(?<![\w'])(?:" + "|".join(sorted(phrases, key=len, reverse=True)) +
                      r")(?![\w'])", re.I)


@cache
def _accept_words() -> re.Pattern[str]:
    phrases = _todo_phrases("accept")
    return re.compile(r"\W*(?:" + "|".join(sorted(phrases, key=len, reverse=True)) +
                      r")(?![\w'])", re.I)


# possessive before the mark or the word (neither is a space, so nothing is matched
# differently): "\s*(?:[,;:]|\s(?:and|...)\s)" gave back each space of a run to try the
# word after it, and 4,000 spaces took 3 s to split (now 0.2 s)
_CLAUSES = re.compile(r"(?:[,;:]|(?<!\s)\s++(?:[,;:]|(?:and|but|so|then|btw)\s))\s*", re.I)


def _done_state(sentence: str) -> bool:
    """Whether a clause of the sentence says a thing is in its done state ("Train's booked
    btw, I'll send you the e-tickets": the train is booked) with nothing in that same
    clause saying it is not so or still to come ("isn't booked yet", "will be booked")."""
    return any(DONE_STATE.search(c) and not NOT_YET.search(c)
               for c in _CLAUSES.split(sentence))


# (a Slack export writes the marks as codes: ":white_check_mark:", ":heavy_check_mark:")
_SLACK_MARK = r":(?:white_check_mark|heavy_check_mark|ballot_box_with_check):"
_DONE_MARK = re.compile(r"✅|✔️|☑️|" + _SLACK_MARK + r"|\b(?:done|erledigt|c'est fait|hecho|listo)\b", re.I)


def says_done(sentence: str) -> bool:
    """Whether a sentence marks a task done ("✅", "erledigt", "done"); a booking's own
    words ("reserviert", "booked") confirm a plan and are not read here."""
    return bool(_DONE_MARK.search(sentence))


@cache
def _done_words() -> re.Pattern[str]:
    phrases = _todo_phrases("done")
    return re.compile(r"✅|✔️|☑️|" + _SLACK_MARK + r"|(?<![\w'])(?:" +
                      "|".join(sorted(phrases, key=len, reverse=True))
                      + r")(?![\w'])", re.I)


IRREGULAR = {"buy": "bought", "pay": "paid", "send": "sent", "bring": "brought",
              "pick": "picked", "write": "wrote", "get": "got", "take": "took", "make": "made",
              "do": "did", "give": "gave", "find": "found", "sell": "sold", "tell": "told",
              "call": "called", "drop": "dropped", "sign": "signed", "ship": "shipped"}
# the past participle where it is not the simple past: "Timeline's written up" closes "Write
# up the timeline", as "wrote up the timeline" does
PARTICIPLE = {"write": "written", "take": "taken", "give": "given", "do": "done",
              "get": "gotten", "draw": "drawn", "drive": "driven", "hide": "hidden",
              "throw": "thrown", "show": "shown"}


# a task whose object is only a placeholder: "the thing", "that stuff", a bare "it", "das
# Ding", "le truc", "la cosa"
_PLACEHOLDER = re.compile(
    r"^\S+(?:\s+(?:up|over|back|along|off))?\s+(?:the|that|this|those|these)\s+(?:thing|things|"
    r"stuff)(?:\s+(?:to|for|with|over|back|along|up|in|on|by|before)\b.*)?$"
    # a pronoun alone, with nothing said of what it is ("bring it", "pick them up")
    r"|^\S+\s+(?:it|them)(?:\s+(?:up|over|back|along|off|round|in))?$"
    # a thing named only by "it", whatever follows ("get it all out first thing Monday",
    # "book it myself") or "one", or a person only by a pronoun with nothing said of what for
    # ("email her with the time"): nobody could act on it without the chat around it; a
    # thing after the person ("get him a present"), whose ("bring her bike") or a purpose
    # ("call them on Wednesday to rebook") says what the task is
    r"|^\S+\s+it\b"
    # "one" standing for a thing said before: "order a new one", "get a vegan one in"
    r"|^\S+\s+(?:a|an|the|another)\s+(?:[\w-]+\s+)?one(?![\w-])(?!\s+of\b)"
    r"|^\S+\s+(?:her|him|them)(?!\s+(?:a|an|the|some|my|his|her|their|our|your|\w+s?'s)\b)"
    r"(?!.*\bto\s+(?!the\b|a\b|my\b|her\b|his\b|them\b|him\b)\w+)(?:\s+(?:up|over|back|"
    r"along|off|round|in|out|with|to|for|at|on|about|tomorrow|today|tonight|later|again)\b|$)"
    r"|\b(?:das|dieses|den)\s+(?:ding|zeug)\b|\b(?:le|ce|la)\s+(?:truc|machin|chose)\b"
    r"|\b(?:la|esa|esta)\s+cosa\b", re.I)


# a task that names no thing at all, only when: "I'll collect at 5", "Please collect within
# 14 days", "pick up at 4 then" (the verb, a particle, then a time or a day): nobody could
# act on it without the chat around it, as with a pronoun; what is picked up at 5 is a plan
_NO_THING = re.compile(
    r"^[a-z]+(?:\s+(?:up|off|in|out|back|round|over))?\s+(?:at|within|in|on|by|before|after|"
    r"around|from|until|till|between|this|next|every)\s+(?:the\s+|a\s+|an\s+)?(?:\d|"
    r"(?:mon|tues|wednes|thurs|fri|satur|sun)day|noon|midday|midnight|morning|evening|"
    r"afternoon|night|weekend|week|month|tomorrow|today|tonight|half|quarter|(?:few|couple|two|three|"
    r"seven|ten|fourteen)\b)[^,;]*$", re.I)


# a task that is only to answer whoever asked: "reply to confirm by 4 December", "let us
# know", "RSVP", "gib mir Bescheid", "réponds-moi", "contéstame"; the user's own reply in
# that conversation, later, does it
REPLY_TASK = re.compile(
    r"^(?:reply|respond|answer|rsvp|write back|get back to (?:me|us)|let (?:me|us) know|"
    r"(?:gib|sag)\w* (?:mir |uns )?bescheid|(?:mir |uns )?bescheid (?:geben|sagen)|"
    r"(?:mir |uns )?antworte\w*|zurückschreiben|"
    r"répond\w*|me répondre|nous répondre|tiens-moi au courant|"
    r"contesta\w*|respond[ea]\w*|avísa(?:me|nos))\b", re.I)
# someone proposing another thing for what the user took on: "maybe a fruit salad instead
# love?", "plutôt une salade de fruits à la place ?" (read in English cue words)
_OTHER_THING = re.compile(r"\b(?:a|an|some|the|un|une|des|du|ein|eine|einen|una|unos|unas)\s+((?:[^\W\d_][\w'-]*\s+){0,3}?[^\W\d_][\w'-]*)"
                          r"\s+instead\b", re.I)
# someone else telling the user a thing they took on is no longer theirs to do: it is
# covered ("dessert's covered", "don't worry about the sprouts", "no need to bring chairs",
# "I can take Alfie myself now"), or another person does it ("Priya will do the capacity
# slides", "Pete's bringing the sprouts"); the other languages' phrases: ``relief`` in
# words/*.toml
_RELIEF = re.compile(r"\bdon'?t (?:you )?worry about\b|\bno need (?:to|for)\b|"
                     r"\byou don'?t (?:need|have) to\b|"
                     r"\b(?:is|are|'s|'re) (?:covered|taken care of|mine)\b|\bmyself\b", re.I)
_OTHER_DOES = re.compile(r"(?:^|\s)@?([A-ZÀ-Ö][\w'-]*(?: [A-ZÀ-Ö][\w'-]*)?|(?<=@)[\w.-]+|[Ss]he|[Hh]e|"
                         r"[Tt]hey)(?:'s| is| will|'ll| is going to) (?:do|doing|handle|handling|"
                         r"take over|taking over|cover|covering|bring|bringing|make|making)\b")
# the user saying a thing they were to do is not needed any more: "no need to move the car",
# "we don't need to book the room now", "plus besoin de", "no hace falta", "nicht mehr nötig"
_NO_NEED = re.compile(r"\bno need (?:to|for)\b|\b(?:i|we) (?:don'?t|no longer) need to\b|"
                      r"\b(?:plus|pas) besoin de\b|\b(?:ya )?no hace falta\b|\bnicht mehr nötig\b|"
                      r"\bbrauche ich nicht mehr\b", re.I)
# a thing asked for in place of the one the user took on: "can you do drinks instead?",
# "could you take the risks section instead?" (no article needed after the verb)
_DO_INSTEAD = re.compile(r"\b(?:do|bring|take|make|handle)\s+((?:(?:[^\W\d_][\w'-]*|&)\s+)"
                         r"{0,4}?[^\W\d_][\w'-]*)\s+instead\b", re.I)
# the user's own swap: "en vez de chocolate llevo el vino", "instead of the crumble I'll
# bring ...", "Glühwein statt Salat", "au lieu du gâteau j'apporte ..."
_INSTEAD_OF = re.compile(r"\b(?:instead of|rather than|en vez de(?:l)?|en lugar de(?:l)?|"
                         r"au lieu d[eu']|à la place d[eu']|statt|anstatt|anstelle von)\s*"
                         r"((?:the|a|an|el|la|los|las|le|les|der|die|das|den|dem)\s+)?"
                         r"([^\W\d_][\w'-]*)", re.I)
# someone offering to swap: "I can do plates if you take drinks", "I'll bring the salad if
# you do dessert": the user's thing for another, once the user says yes
_SWAP_OFFER = re.compile(r"\bI(?:'ll| will| can| could)? (?:do|take|bring|handle|cover) "
                         r"((?:[^\W\d_][\w&'-]*\s+){0,3}?[^\W\d_][\w'-]*) if you "
                         r"(take|do|bring|handle|cover) ((?:[^\W\d_][\w&'-]*\s+){0,3}?"
                         r"[^\W\d_][\w'-]*)(?=\s*(?:[-–,.;:!?(]|$))", re.I)
# a turn or slot given to the user in place of another ("could you do pickup Thurs the 10th
# instead?", "tu peux prendre le dimanche à la place du samedi ?", "could anyone cover my
# shift on Thursday? happy to swap"): said with its day, it is a plan, not a task; a day said
# as a deadline ("by Friday") keeps the task
_SLOT_SWAP = re.compile(r"\binstead\b|\bin my place\b|\bà ma place\b|\bà la place d[eu']|"
                        r"\bswap\b|\btauschen\b|\béchanger\b|\bcambiar(?:me|nos)?\b|"
                        r"\b(?:cover|take) (?:my|her|his|their) (?:[\w-]+ )?shift\b", re.I)
_BY_DAY = re.compile(r"\b(?:by|before|until|no later than|d'ici|avant|bis|spätestens|antes del?|"
                     r"hasta)\b", re.I)
# a second thing asked in the same request: "RSVP by Friday and fill in the form"
_AND_TASK = re.compile(r"\s(?:and|und|et|y)\s+(?:(?:also|then|please|aussi|auch|bitte)\s+)?"
                       r"(\S.{2,140})", re.I)
_NOT_A_NO = re.compile(r"\bno (?:problem|worries|bother|prob)\b", re.I)
# the user saying another person does a thing they had taken on: "Lena's doing the salad
# now", "Tom will bring the wine instead"; German and Dutch put the thing first and the
# doer after the verb: "Kartoffelsalat macht übrigens Lena", "de taart bakt Joris" (the
# doer is a capitalised word that is no noun of the kind "macht Spaß" says)
_DOER_AFTER = re.compile(r"^\W*(?:(?:der|die|das|den|de|het)\s+)?[^\W\d_][\w-]*(?:\s+[^\W\d_][\w-]*)?"
                         r"\s+(?:macht|bringt|übernimmt|besorgt|kauft|backt|holt|organisiert|"
                         r"maakt|neemt|koopt|bakt|regelt|haalt)\s+(?:(?:übrigens|jetzt|doch|"
                         r"dann|nun|ja|eh|trouwens|nu|toch|dus)\s+)*(?-i:([A-ZÄÖÜ][a-zäöüß]+))"
                         r"(?!\s+(?:mit|mee)\b)", re.I)
_NO_DOER = {"spaß", "sinn", "mühe", "arbeit", "freude", "laune", "angst", "sorgen", "hunger",
            "durst", "lust", "plezier", "zin", "ich", "ik", "wir", "we", "du", "jij", "je"}
# the user asking someone to take a thing off them: "could you take the budget slides off
# me?", "can you take over the rota this week?", "kannst du den Einkauf übernehmen?",
# "tu peux reprendre les inscriptions ?"; it is handed over once that person says yes
_HAND_OVER = re.compile(r"\b(?:can|could|would) you (?:please )?(?:take (.{3,80}?) off (?:me|my "
                        r"hands|my plate)|take over (.{3,80}))|\b(?:kannst|könntest) du (.{3,80}?) "
                        r"übernehmen|\b(?:tu peux|peux-tu|pourrais-tu|tu pourrais) (?:reprendre|te "
                        r"charger d[eu']s?) (.{3,80})|\b(?:puedes|podrías) (?:encargarte|hacerte "
                        r"cargo) de(?:l)? (.{3,80})", re.I)
# a reply that puts the answer off: "I'll get back to you", "je te redis", "te digo algo"
_ANSWER_LATER = re.compile(r"\b(?:i'?ll|i will|will) (?:get back|reply|let you know|confirm)|"
                           r"\bje te (?:redis|dirai)|\bich (?:sag|melde) mich\b|"
                           r"\bte (?:digo|diré) algo\b", re.I)


# a task asked with a time it must be done before, said without a date: "can you clear out
# the cupboard under the stairs before then?", "can you move the car off the drive the night
# before?" (a thing to act on, "the"/"your"/"my" ..., then "before")
_BEFORE = re.compile(r"^[a-z]+(?: (?:out|up|off|away|in|over|round|back))? (?:the|your|my|our|his|"
                     r"her|their|all the) [^,;]{2,60}?\b(?:before (?:then|that|we \w+|you \w+|"
                     r"the \w+)|the (?:night|day|morning|evening) before|beforehand|by then)\b",
                     re.I)


# a thing said to be ready or arrived at the start of a sentence: "prescription's ready at
# Boots", "the parcel is at the depot", "your glasses are in"
_READY = re.compile(r"^\W*(?:(?:the|my|your|our|his|her)\s+)?(?!(?:it|that|this|he|she|they|we|"
                    r"everything|all|dinner|lunch)\b)((?:[^\W\d_][\w-]*\s+){0,2}?"
                    r"[^\W\d_][\w-]*)(?:'s|’s| is| are|'re) (?:now )?(?:ready|in|here|back|"
                    r"waiting|arrived|available|at the depot)\b", re.I)


@dataclass
class Request:
    """A request or deadline said to a group, waiting for the user to take it on."""

    stream: str
    task: str
    due: str
    said: datetime | None
    author: str | None
    deadline: bool = False
    assigned: bool = False      # a thing given to the user by name ("Oranges: Sophie")


# a word that makes what follows a name in a list no thing given to them ("Tom and Ana are
# coming" is no list of who brings what)
_NOT_A_THING = re.compile(r"^(?:are|is|was|were|will|can|could|would|has|have|had|and|or|"
                          r"said|says|'s|too|also|can't|won't|isn't|aren't)\b", re.I)


@dataclass
class TodoReader:
    """Reads statements and messages in order; ``rows`` are the scope's current records
    (their handles), ``opened`` the to-dos opened earlier in the same call (name, title);
    ``groups`` the streams where several other people write, ``user_names`` the names
    (lower case) the user goes by."""

    rows: list[dict] = field(default_factory=list)
    opened: list[tuple[str, str]] = field(default_factory=list)
    groups: set[str] = field(default_factory=set)
    user_names: set[str] = field(default_factory=set)
    pending: list[Request] = field(default_factory=list)
    replies: dict[str, str] = field(default_factory=dict)   # to-do name -> its conversation
    taken: dict[str, str] = field(default_factory=dict)     # to-do name -> where taken on
    instead: dict[str, tuple[str | None, str | None, str, str, str, str, bool]] = field(
        default_factory=dict)   # stream -> (row, name, title of the to-do given up, the
    #                             thing proposed instead, its due day, the verb it was asked
    #                             with, whether the to-do given up is closed already)
    relieved: list[tuple[str | None, str | None, str]] = field(default_factory=list)
    #                                                 (row, name, title) of this message
    asked: dict[str, str] = field(default_factory=dict)     # stream -> the question its
    #                                                         last message from someone asks
    handing: dict[str, tuple[str | None, str | None]] = field(default_factory=dict)
    #                                      stream -> the open to-do the user asked to hand over

    def read(self, item: Item) -> list[Finding]:
        """To-dos opened and closed by one statement or message."""
        out: list[Finding] = []
        said = parse_when(item.said_at)
        rx = TODO_USER if item.role == "user" else TODO_OTHER
        author = getattr(item, "author", None) if item.role == "other" else None
        stream = conversation(item.stream)
        group = stream in self.groups
        # "¿pagaste la luz?" - "sí, ya está pagada": the user's answer is about what the
        # question right before it in the conversation names
        asked = self.asked.pop(stream, None) if item.role == "user" else None
        if item.role == "other":
            question = " ".join(re.findall(r"¿[^?]*\?|(?<![^.!?¿\n])[^.!?¿\n]*\?", readable(item.text))[:5])
            self.asked.pop(stream, None)
            if question:
                self.asked[stream] = question
        if item.role == "user" and not _ANSWER_LATER.search(item.text):
            # "Could you reply to confirm by 4 December?" - "Thrilled - confirming!": the
            # user answering in that conversation is the reply asked for
            for name, talk in list(self.replies.items()):
                if talk == stream:
                    del self.replies[name]
                    out.append(Finding("todo_done", {"status": "done"}, [item.id],
                                       name=name))
        if item.role == "other":
            out += self._relief(item) + self._handed_over(item, stream)
        else:
            self.relieved = []  # another role's message takes nothing off from an earlier one
            if item.role == "user":
                out += self._own_relief(item)
        swapped = self._swapped(item, stream, said)
        if swapped:
            return out + swapped
        for n, sent in enumerate(sentences(readable(item.text))[:20]):
            thing = self._assigned(sent) if item.role == "other" and group else None
            if thing:
                self.pending.append(Request(stream, thing, find_date(sent, said) or "", said,
                                            author, assigned=True))
                continue
            if item.role == "user":
                done = next((c for c in _CLAUSES.split(sent) if DONE_STATE.search(c) and
                             not NOT_YET.search(c)), None)
                if done and commitment(sent) is not None:
                    # "Train's booked btw, I'll send you the e-tickets": one thing done,
                    # another taken on
                    row, name = self._matching_todo(done)
                    if row or name:
                        out.append(Finding("todo_done", {"status": "done"}, [item.id],
                                           name=name, row=row))
                taken = self._taken_on(item, sent, said, first=n == 0)
                if taken is not None:
                    out += taken
                    continue
            elif DEADLINE.search(sent):
                subject = deadline_subject(sent)
                if subject and group and not self._names_user(sent):
                    self.pending.append(Request(stream, subject, find_date(sent, said) or
                                                "", said, author, deadline=True))
                    continue
            m = rx.search(sent) or (ANYONE.search(sent) if item.role == "other" else None)
            if m and not sent.rstrip().endswith("?") or (m and item.role == "other"):
                task = _task(m[1])
                if m.re is TODO_OTHER and m[0][:1].lower() in "mn" and sent[m.start() - 1:m.start()] == "¿":
                    task = re.sub(r"^([^\W\d_]{3,})as\b", r"\1ar", task)   # "preparas" -> "preparar"
                due = None
                second = _AND_TASK.search(m[1]) if requests.INVITATION.match(task) else None
                if second is not None and (TASK_VERBS.search(second[1]) or
                                           _task_verbs().match(second[1])):
                    # "please RSVP by 4 December and fill in the dietary form": the answer
                    # to an invitation is no task, the second thing asked is one
                    task = _task(second[1])
                    due = find_date(second[1], said) or ""
                if len(task.split()) < 2 or CALL_OFF.match(task):
                    continue        # "I have to call it off": a plan called off, no task
                if requests.no_task(item, sent, m, task, said):
                    continue        # "if you can't come, let us know", "please note ...",
                    #                 "please use the link below", "please join us on ..."
                due = find_date(sent, said) if due is None else due
                if not (TODO_SURE.search(sent) or due or TASK_VERBS.search(task) or
                        _task_verbs().search(task) or _BEFORE.search(m[1])):
                    continue        # "can you tell me more" is conversation, not a task
                if item.role == "other" and due and _SLOT_SWAP.search(english_cues(item.text)) \
                        and not _BY_DAY.search(sent):
                    continue        # "could you do pickup Thurs the 10th instead?", "tu peux
                    #                 prendre lundi à ma place ?": a turn swapped is a plan
                if item.role == "other" and (group or ANYONE.search(sent)) and \
                        not self._names_user(sent):
                    # said to a group: the user's once they take it on
                    self.pending.append(Request(stream, task, due or "", said, author))
                    continue
                opened = self._open(task, due or "", item, author)
                if item.role == "other" and REPLY_TASK.match(task) and not group:
                    self.replies.update({f.name: stream for f in opened if f.name})
                out += opened
                continue
            if not DONE.search(sent) and not re.search(r"\b(?:not|never|yet|still|didn'?t|"
                                                        r"haven'?t|will|'ll|to)\b|\?", sent,
                                                        re.I):
                # (a question says nothing is done: "is the taxi booked?")
                # "Renewed the car insurance": the to-do's own verb, done
                row, name = self._todo_by_past_verb(sent)
                if row or name:
                    out.append(Finding("todo_done", {"status": "done"}, [item.id],
                                       name=name, row=row))
                    continue
            if item.role == "other" and author and RECEIVED.search(sent):
                row, name = self._received_by(author, sent)
                if row or name:     # "Got the drill, cheers!" from Kofi: given back
                    out.append(Finding("todo_done", {"status": "done"}, [item.id],
                                       name=name, row=row))
                    continue
            if item.role == "other" and RECEIVED_YOURS.search(sent):
                row, name = self._received_yours(sent)
                if row or name:     # "We've received your deposit": paying it is done
                    out.append(Finding("todo_done", {"status": "done"}, [item.id],
                                       name=name, row=row))
                    continue
            if item.role == "other" and ORDER_THANKS.search(sent) and author:
                row, name = self._ordered_from(author)
                if row or name:     # the shop thanks for the order: ordering it is done
                    out.append(Finding("todo_done", {"status": "done"}, [item.id],
                                       name=name, row=row))
                    continue
            if sent.rstrip().endswith("?") and not any(
                    DONE.search(c) or _done_words().search(c)
                    for c in re.split(r"[,;:]\s+", sent)[:-1]):
                # "la facture est payée ?": asked, not said done ("Kapitel 3 ist fertig,
                # kannst du drüberschauen?" says it done before it asks)
                continue
            if DONE.search(sent) or _done_words().search(sent) or (
                    item.role == "user" and (_done_state(sent) or self._acquired(sent))):
                row, name = self._matching_todo(sent)
                if not (row or name) and len(item.text) <= 300:
                    # "Attached is the tax form. Done on my side.": the item says what is done
                    row, name = self._matching_todo(item.text)
                if not (row or name) and asked and n == 0 and \
                        not re.search(r"\b(?:no|not|nope|todavía|pas encore|noch nicht)\b|n't\b",
                                      sent, re.I):
                    # "did you pay the light bill?" - "yes, all paid": the question names it
                    row, name = self._matching_todo(asked)
                if row or name:
                    out.append(Finding("todo_done", {"status": "done"}, [item.id],
                                       name=name, row=row))
        closed: set[tuple[str | None, str | None]] = set()
        kept = []
        for f in out:       # "the contract is attached. All done": closed once
            if f.kind == "todo_done":
                if (f.row, f.name) in closed:
                    continue
                closed.add((f.row, f.name))
            kept.append(f)
        return kept

    def _open(self, task: str, due: str, item: Item, author: str | None,
              loose: bool = False) -> list[Finding]:
        """The finding opening a to-do (or adding evidence to the same open one); none for a
        task whose thing is only a placeholder ("bring the thing to Priya", "das Ding
        mitbringen") or that names no thing, only when ("collect at 5"): a line nobody could
        act on without the chat around it."""
        if _PLACEHOLDER.search(task) or _NO_THING.match(task):
            return []
        title = task[0].upper() + task[1:]
        fields = {"title": title, "due": due}
        if author:
            fields["from"] = author
        name = " ".join(title.split()[:8])
        twin = self._same_todo(title, loose)
        if twin is not None:        # said again: the same to-do, more evidence
            row, name = twin
            if row:
                return []
            fields["title"] = next(t for n, t in self.opened if n == name)
        else:
            self.opened.append((name, title))
        return [Finding("todo", fields, [item.id], name=name)]

    def _taken_on(self, item: Item, sent: str, said: datetime | None,
                  first: bool) -> list[Finding] | None:
        """The to-do a user's sentence takes on: their own commitment ("I'll bring the
        chalk bag"), or a pending request of the stream they say yes to. None when the
        sentence takes nothing on."""
        stream = conversation(item.stream)
        pending = [r for r in self.pending if r.stream == stream and
                   (said is None or r.said is None or
                    timedelta(0) <= said - r.said <= timedelta(hours=24))]
        task = commitment(sent)
        ready = _READY.search(sent)
        if task is not None and ready is not None and PRONOUN_OBJECT.search(task) and \
                re.search(r"\b(?:it|them)\b", task, re.I):
            # "prescription's ready at Boots, I'll grab it tomorrow": "it" is the thing
            # the sentence said is ready
            task = re.sub(r"\b(?:it|them)\b", f"the {ready[1]}", task, count=1, flags=re.I)
        if task is not None:
            if PRONOUN_OBJECT.search(task):
                if not pending or pending[-1].deadline:
                    return None         # "ich mach das" with nothing asked: no task named
                req = pending.pop()     # "I'll bring it": the thing asked for
                return self._open(req.task, req.due or (find_date(sent, said) or ""), item,
                                  None)
            due = find_date(sent, said) or ""
            deadline = next((r for r in reversed(pending) if r.deadline), None)
            if deadline is not None and not (
                    (due and due == deadline.due) or ACCEPT.search(sent) or
                    _accept_words().match(sent) or (stems(task) - _VERBISH) & stems(deadline.task)):
                # "noted, I'll get our sheet in" answers the deadline; "I'll transfer my
                # share of the gas bill by the 15th" is a task of its own
                deadline = None
            if deadline is not None:
                self.pending.remove(deadline)
                return self._open(f"{deadline.task}: {task}", deadline.due or due, item, None)
            opened = self._open(task, due, item, None, loose=True)
            self.taken.update({f.name: stream for f in opened if f.name})
            return opened
        if first and pending and (ACCEPT.search(sent) or _accept_words().match(sent)):
            req = pending.pop()
            return self._open(req.task, req.due, item, None)
        given = next((r for r in reversed(pending) if r.assigned), None)
        if given is not None and stems(given.task) & stems(readable(item.text)) and \
                not re.search(r"\b(?:no|not|nah|can'?t|cannot)\b|n't\b|\?",
                              _NOT_A_NO.sub("", item.text), re.I):
            # "Nudelsalat geht klar", "Plates and napkins from us": the thing given, said back
            self.pending.remove(given)
            return self._open(given.task, given.due, item, None)
        return None

    def _assigned(self, sent: str) -> str | None:
        """The thing a message to a group gives the user by name: "Oranges this week:
        Sophie", "Kieran you're on snacks", or the user's entry in a list of who brings
        what ("Mitbringliste: Jonas Nudelsalat, Tim Würstchen, Lukas Getränke", "Sign-ups:
        Ortiz family - paper plates & napkins, Patel family - drinks")."""
        mine = sorted((n for n in self.user_names if len(n) >= 3 and
                       re.fullmatch(r"[^\W\d_]+(?: [^\W\d_]+)*", n)), key=len, reverse=True)
        if not mine:
            return None
        name = r"(?:" + "|".join(re.escape(n) for n in mine) + r")"
        m = re.search(r"(?:^|[.!?]\s+)([^:.!?\n]{2,40}):\s*@?" + name + r"\b[^\w]*$", sent, re.I)
        if m is None:
            m = re.search(r"\b@?" + name + r",?\s+(?:you'?re|you are) (?:on|doing|bringing|in "
                          r"charge of) ([^.,!?\n]{2,40})", sent, re.I)
        if m is not None:
            return _task(m[1]) or None
        listed = sent.rsplit(":", 1)[-1]
        parts = [p.strip(" .!") for p in re.split(r",\s*|;\s*|\s+(?:and|und|et|y)\s+", listed)]
        entry = re.compile(r"@?([A-ZÀ-Ö][\w'-]+(?: family)?)\s*(?:[-–:]\s*)?([^\W\d_][\w&' -]{1,40})$")
        entries = [m for p in parts if (m := entry.match(p)) and not _NOT_A_THING.match(m[2])
                   and len(m[2].split()) <= 5]
        if len(entries) < 2:
            return None
        for m in entries:
            if re.fullmatch(name + r"(?: family)?", m[1], re.I):
                return _task(m[2]) or None
        return None

    def _swapped(self, item: Item, stream: str, said: datetime | None) -> list[Finding]:
        """A thing the user took on, swapped for another: someone in the conversation
        proposes "a fruit salad instead" of the user's "I'll bring a crumble" (or says the
        dessert is covered and asks "can you do drinks instead?"), and the user agrees ("Ok
        fruit salad it is"): the crumble is off the list (closed) and the fruit salad is the
        to-do, with the same verb. The user's own "en vez de chocolate llevo el vino" closes
        the chocolate and takes the wine on."""
        text = readable(item.text)
        if item.role != "user":
            mine = [(row, name, title) for row, name, title in self.relieved] or \
                [(None, n, next((t for o, t in self.opened if o == n), ""))
                 for n, talk in self.taken.items() if talk == stream]
            cued = english_cues(text)
            m = _DO_INSTEAD.search(cued) or _OTHER_THING.search(cued)
            if mine and m:
                verb = m[0].split()[0].lower() if m.re is _DO_INSTEAD else ""
                self.instead[stream] = (*mine[-1], m[1], find_date(text, said) or "",
                                        verb, bool(self.relieved))
                return []
            offer = _SWAP_OFFER.search(cued)
            if offer is not None:
                hits = [(row, name, title) for row, name, title in self._open_todos()
                        if any(_same_thing(a, b) for a in _things(offer[1])
                               for b in _things(title))]
                if len(hits) == 1:
                    self.instead[stream] = (*hits[0], offer[3], find_date(text, said) or "",
                                            offer[2].lower(), False)
            return []
        swap = self.instead.pop(stream, None)
        if swap is None:
            return self._own_swap(item, text, said)
        row, name, title, thing, due, asked, closed = swap
        if not (ACCEPT.search(text) or _accept_words().match(text) or
                stems(thing) & stems(text)) or \
                re.search(r"\b(?:no|not|nah|rather not)\b|n't\b", _NOT_A_NO.sub("", text), re.I):
            return []
        # the verb of the task given up when it is one ("bring dessert" -> "bring drinks"),
        # else the one asked with ("take the risks section instead")
        verb = title.split()[0].lower() if title else ""
        verb = verb if verb in _VERBISH or not asked else asked
        self.taken.pop(name or "", None)
        out = [] if closed else \
            [Finding("todo_done", {"status": "done"}, [item.id], name=name, row=row)]
        opened = self._open(f"{verb or 'bring'} {thing}", due or find_date(text, said) or "",
                            item, None)
        self.taken.update({f.name: stream for f in opened if f.name})
        return out + opened

    def _own_swap(self, item: Item, text: str, said: datetime | None) -> list[Finding]:
        """The user swapping a thing they took on for another in one sentence ("en vez de
        chocolate llevo el vino", "I'll bring a salad instead of the crumble"): the old
        to-do is closed and the new thing taken on; nothing when no open to-do is about
        the thing given up."""
        out: list[Finding] = []
        for sent in sentences(text)[:20]:
            m = _INSTEAD_OF.search(sent)
            if m is None:
                continue
            hits = [(row, name) for row, name, title in self._open_todos()
                    if any(_same_thing(a, b) for a in _things(m[2]) for b in _things(title))]
            rest = re.sub(r"\s+", " ", sent[:m.start()] + " " + sent[m.end():]).strip(" ,")
            task = commitment(rest)
            if len(hits) != 1 or task is None or PRONOUN_OBJECT.search(task):
                continue
            row, name = hits[0]
            out.append(Finding("todo_done", {"status": "done"}, [item.id], name=name, row=row))
            out += self._open(task, find_date(rest, said) or "", item, None)
        return out

    def _relief(self, item: Item) -> list[Finding]:
        """The user's open to-dos someone else's message takes off them ("dessert's
        covered", "Priya will do the capacity slides", "plus besoin de récupérer les
        noms"): each clause saying so that names the thing of exactly one open to-do
        closes it as done (the thing is seen to; the user does nothing more)."""
        self.relieved = []
        out: list[Finding] = []
        for sent in sentences(readable(item.text))[:20]:
            for clause in re.split(r"[,;:.!?]\s+|\s[-–—]\s|\s+(?:but|so|and|as)\s+|"
                                   r"\s*[\U0001F300-\U0001FAFF\u2600-\u27BF]+\s*", sent):
                does = _OTHER_DOES.search(clause)
                if not (_RELIEF.search(clause) or _relief_words().search(clause) or
                        (does and does[1].lower() not in self.user_names)):
                    continue
                if clause.rstrip().endswith("?"):
                    continue        # "will you do the slides?": asked, not taken off
                said = _things(clause) - {n for n in self.user_names}
                if not said and not does:
                    # "Omar, I've booked the rooms, so you don't need to do anything": the
                    # thing is named elsewhere in the sentence
                    said = _things(sent) - {n for n in self.user_names}
                hits = [(row, name, title) for row, name, title in self._open_todos()
                        if (row, name, title) not in self.relieved and
                        _about(title, said)]
                if len(hits) != 1:
                    continue
                self.relieved.append(hits[0])
                out.append(Finding("todo_done", {"status": "done"}, [item.id],
                                   name=hits[0][1], row=hits[0][0]))
        return out

    def _handed_over(self, item: Item, stream: str) -> list[Finding]:
        """The to-do the user asked someone in this conversation to take off them ("could
        you take the budget slides off me?"), closed when the next message from someone
        says yes ("sure, I'll take them"); anything else keeps it the user's."""
        handed = self.handing.pop(stream, None)
        text = english_cues(readable(item.text))
        if handed is None or not (ACCEPT.search(text) or _accept_words().match(text) or
                                  re.match(r"\W*(?:i'?ll|i can|i will) (?:take|do|handle|"
                                           r"cover)\b", text, re.I)) or \
                re.search(r"\b(?:no|not|nah|sorry)\b|n't\b", _NOT_A_NO.sub("", text), re.I):
            return []
        self.taken.pop(handed[1] or "", None)
        return [Finding("todo_done", {"status": "done"}, [item.id], name=handed[1],
                        row=handed[0])]

    def _own_relief(self, item: Item) -> list[Finding]:
        """The user's own open to-do they say is not needed any more ("PipeRight have
        cancelled, so no need to move the car Tuesday night", "plus besoin de réserver la
        salle"): a clause saying so that names the thing of exactly one open to-do closes
        it."""
        out: list[Finding] = []
        stream = conversation(item.stream)
        for sent in sentences(readable(item.text))[:20]:
            hand = _HAND_OVER.search(sent)
            if hand is not None:
                said = _things(next(g for g in hand.groups() if g))
                hits = [(row, name) for row, name, title in self._open_todos()
                        if _about(title, said)]
                if len(hits) == 1:
                    self.handing[stream] = hits[0]
                continue
            for clause in re.split(r"[,;:.!?]\s+|\s[-–—]\s|\s+(?:but|so|and|as|und|maar)\s+", sent):
                if clause.rstrip().endswith("?"):
                    continue
                said = self._done_by_other(clause)
                if said is None:
                    no_need = _NO_NEED.search(clause)
                    if no_need is None:
                        continue
                    said = _things(clause[no_need.end():])
                hits = [(row, name) for row, name, title in self._open_todos()
                        if _about(title, said)]
                if len(hits) == 1:
                    out.append(Finding("todo_done", {"status": "done"}, [item.id],
                                       name=hits[0][1], row=hits[0][0]))
        return out

    def _done_by_other(self, clause: str) -> set[str] | None:
        """The things of a user's clause saying another person does them ("Lena's doing
        the salad now", "Kartoffelsalat macht übrigens Lena"), or None."""
        does = _OTHER_DOES.search(clause)
        if does is not None and does[1].lower() not in self.user_names | _NO_DOER | {
                "she", "he", "they", "i", "it", "you", "we", "that", "this", "there"}:
            return _things(clause[does.end():])
        after = _DOER_AFTER.search(clause)
        if after is not None and after[1].lower() not in self.user_names | _NO_DOER:
            return _things(clause[:after.start(1)])
        return None

    def _acquired(self, sent: str) -> bool:
        """Whether the user says they got the very thing an open to-do is to get: what
        follows "got", "bought", "picked up" shares a word with what follows the to-do's
        verb ("got the cat food" of "grab a bag of the cat food on the way home"; "got the
        bus home" is not it)."""
        m = ACQUIRED.search(sent)
        if m is None or NOT_YET.search(sent):
            return False
        got = _things(re.split(r"[,.;!?]|\s(?:on|to|for|at|from|by)\s", sent[m.end():])[0])
        for _, _, title in self._open_todos():
            thing = re.split(r"\s(?:on|to|for|at|from|by|before)\s", title, maxsplit=1)[0]
            if got & _things(" ".join(thing.split()[1:])):
                return True
        return False

    def _names_user(self, sent: str) -> bool:
        low = sent.lower()
        return any(re.search(r"(?<![\w])@?" + re.escape(n) + r"\b", low)
                   for n in self.user_names if len(n) >= 2)

    def _received_by(self, person: str, sent: str) -> tuple[str | None, str | None]:
        """The open to-do naming ``person`` whose thing the sentence says they got."""
        first = person.split()[0].lower()
        things = stems(sent) - _VERBISH
        for handle, name, title in self._open_todos():
            if re.search(r"\b" + re.escape(first) + r"\b", title.lower()) and \
                    things & (stems(title) - _VERBISH):
                return handle, name
        return None, None

    def _received_yours(self, sent: str) -> tuple[str | None, str | None]:
        """The one open to-do whose thing someone says they received from the user: the
        to-do naming that thing, else, for a payment received, the one to-do to pay."""
        m = RECEIVED_YOURS.search(sent)
        if m is None:
            return None, None
        thing = m[1] or m[2]
        said = _things(thing)
        todos = self._open_todos()
        hits = [(row, name) for row, name, title in todos
                if _about(title, said)]
        if not hits and _PAYMENT.search(thing):
            hits = [(row, name) for row, name, title in todos if _PAY_TASK.search(title)]
        return hits[0] if len(hits) == 1 else (None, None)

    def _ordered_from(self, shop: str) -> tuple[str | None, str | None]:
        """The open to-do to order, book or buy something from ``shop``."""
        candidates = [(row["handle"], None, row["fields"].get("title", ""))
                      for row in self.rows if row["kind"] == "todo"
                      and row["fields"].get("status", "open") == "open"]
        candidates += [(None, name, title) for name, title in self.opened]
        words = stems(shop)
        for handle, name, title in candidates:
            if re.match(r"(?i)(?:order|book|buy|reserve)\b", title) and words & stems(title):
                return handle, name
        return None, None

    def _todo_by_past_verb(self, sent: str) -> tuple[str | None, str | None]:
        low = sent.lower()
        candidates = [(row["handle"], None, row["fields"].get("title", ""))
                      for row in self.rows if row["kind"] == "todo"
                      and row["fields"].get("status", "open") == "open"]
        candidates += [(None, name, title) for name, title in self.opened]
        for handle, name, title in candidates:
            words = title.lower().split()
            if not words:
                continue
            verb = words[0]
            forms = {IRREGULAR.get(verb, ""), PARTICIPLE.get(verb, ""), verb + "ed", verb + "d",
                     verb[:-1] + "ied"} - {""}
            if not any(re.search(r"\b" + re.escape(f) + r"\b", low) for f in forms):
                continue
            rest = stems(" ".join(words[1:]))
            needed = len(rest) if len(rest) <= 2 else -(-2 * len(rest) // 3)
            if rest and len(rest & stems(sent)) >= needed:
                return handle, name
        return None, None

    def _same_todo(self, title: str,
                   loose: bool = False) -> tuple[str | None, str | None] | None:
        """An open to-do (row handle, or name opened in this call) saying the same task
        (``loose``: one shared thing besides the verb is enough, as when the user takes on
        "sort the cake" asked as "order the cake from Café Kreutzkamm")."""
        words = stems(title)
        if loose:
            # (a word of three letters is no thing: "ich", "uns", "mit" of "ich bring
            # Kinderpunsch mit" and "ich reservier uns den Anhänger" are no thing in common)
            things = {w for w in words - _VERBISH if len(w) >= 4}
            for handle, name, other in self._open_todos():
                if things & (stems(other) - _VERBISH):
                    return handle, name
        candidates = [(row["handle"], None, row["fields"].get("title", ""))
                      for row in self.rows if row["kind"] == "todo"
                      and row["fields"].get("status", "open") == "open"]
        candidates += [(None, name, t) for name, t in self.opened]
        for handle, name, other in candidates:
            tw = stems(other)
            overlap = len(words & tw)
            if overlap >= 2 and overlap >= 0.6 * min(len(words), len(tw)):
                return handle, name
        return None

    def _open_todos(self) -> list[tuple[str | None, str | None, str]]:
        out: list[tuple[str | None, str | None, str]] = [
            (row["handle"], None, row["fields"].get("title", "")) for row in self.rows
            if row["kind"] == "todo" and row["fields"].get("status", "open") == "open"]
        return out + [(None, name, t) for name, t in self.opened]

    def _matching_todo(self, sent: str) -> tuple[str | None, str | None]:
        """(row handle, or name of a to-do opened in this bundle) the sentence closes."""
        words = {w for w in re.findall(r"[^\W\d_]{3,}", sent.lower())} - STOP
        candidates = [(row["handle"], None, row["fields"].get("title", ""))
                      for row in self.rows if row["kind"] == "todo"
                      and row["fields"].get("status", "open") == "open"]
        candidates += [(None, name, title) for name, title in self.opened]
        best, best_score = (None, None), 0.0
        for handle, name, title in candidates:
            tw = {w for w in re.findall(r"[^\W\d_]{3,}", title.lower())} - STOP
            if not tw:
                continue
            overlap = len(words & tw)
            score = overlap / len(tw)
            if (overlap >= 2 or score >= 0.5 and overlap >= 1) and score > best_score:
                best, best_score = (handle, name), score
        if best != (None, None):
            return best
        # "Passport renewal done" closes "Renew my passport this week, promise", "Tisch ist
        # reserviert" closes "Ich übernehme die Tischreservierung": the thing the to-do is
        # about named again (a word sharing its first five letters, compounds included),
        # when exactly one open to-do is about it
        said = _things(sent)
        hits = [(handle, name) for handle, name, title in candidates
                if _about(title, said)]
        return hits[0] if len(hits) == 1 else (None, None)
