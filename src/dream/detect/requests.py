"""Requests that are no task of the user's, though they are worded as one.

Someone else's "please ...", "can you ..." opens a to-do (:mod:`~dream.detect.todos`)
unless the sentence shows it is not the user's to do:

- said on a condition ("if you can't come, let us know", "si no puedes venir, avísanos",
  "please reply if you can't make it", "pay me by the 10th if you want one"): no task yet; "please note ..." asks to know something, not to do it;
- the mail's own instructions: a request naming the message itself or a part of it
  ("bring this email or your order reference", "use the link below", "reply to this
  email", "diese E-Mail", "le lien ci-dessous", "este correo") says how to use the mail;
- an invitation ("please join us on Saturday 12 June", "come and celebrate with us",
  "please RSVP"): the user's answer is a yes or no to a plan, not a task;
- a "please ..." with no day of its own in a message saying that something of the
  reader's is booked ("Your appointment ... is confirmed for Thursday 3 December. Please
  sign in at the main reception"): how to attend.
"""

from __future__ import annotations

import re
from datetime import datetime

from dream.detect.cues import english_cues
from dream.items import Item
from dream.kinds.text import find_date

# a request said on a condition is no task yet ("if you can't come, let us know", "si no
# puedes venir, avísanos", "falls du nicht kannst", "si tu ne peux pas"), and "please note"
# asks to know something, not to do it ("Please note our opening hours")
CONDITION = re.compile(r"\b(?:if|si|falls|wenn|sofern)\s+\S+(?:\s+\S+)?\s*$", re.I)
# a condition said after the request, that the user cannot, will not or wants to ("Please
# reply if you can't make it", "pay me by the 10th if you want one", "sag Bescheid, falls du
# nicht kannst", "préviens-moi si tu ne peux pas", "avísame si no puedes"): a task only
# once the user says so ("send it today if you can" asks politely and stays a task)
CONDITION_AFTER = re.compile(
    r"\b(?:if|in case)\s+(?:you|u)(?:'re| are)?\s+(?:can'?t|cannot|can not|won'?t|will not|"
    r"(?:are\s+)?(?:unable|not able|n't able)|want|wish|need|fancy|prefer|'d (?:like|prefer|"
    r"rather)|would (?:like|prefer|rather))\b|"
    r"\b(?:falls|wenn)\s+(?:du|ihr|Sie)\s+(?:\S+\s+){0,3}?(?:nicht|keine?n?)\b|"
    r"\b(?:falls|wenn)\s+(?:du|ihr|Sie)\s+(?:\S+\s+){0,3}?(?:willst|möchtest|wollt|möchtet|wollen|"
    r"möchten)\b|"
    r"\bsi\s+(?:tu\s+ne|vous\s+ne|tu\s+n'|vous\s+n')|\bsi\s+(?:tu|vous)\s+(?:veux|voulez|"
    r"as besoin|avez besoin)\b|"
    r"\bsi\s+no\s+(?:puedes|podéis|puede|pueden)\b|\bsi\s+(?:quieres|queréis|necesitas)\b",
    re.I)
NOTICE = re.compile(r"^(?:note|be aware|bear in mind|keep in mind|beachten|noter|"
                    r"tenga en cuenta|ten en cuenta)\b", re.I)
# a message saying that something of the reader's is booked ("Your appointment ... is
# confirmed for Thursday 3 December", "Your annual gas safety check is booked for ..."):
# its "please ..." without a day of its own says how to attend ("Please sign in at the main
# reception", "Please reply to confirm access"), no task of its own
BOOKED_NOTICE = re.compile(r"\b(?:is|are|has been|have been) (?:now )?(?:confirmed|booked|"
                           r"scheduled)\b", re.I)
# a mail's own instructions are about the mail, no task of its reader's: a request naming
# the message itself or a part of it ("bring this email or your order reference", "use the
# link below", "reply to this email", "diese E-Mail", "le lien ci-dessous", "este correo")
ABOUT_MESSAGE = re.compile(
    r"\b(?:this|the above|the below)\s+(?:e-?mail|message|letter|text)\b|"
    r"\b(?:link|button|form|details|address|number)\s+(?:below|above)\b|"
    r"\breply\s+(?:to\s+this|stop\b|[A-Z0-9]\b)|\bdiese[rn]?\s+(?:e-?mail|nachricht)\b|"
    r"\b(?:unten|oben)stehenden?\b|\b(?:ce|cet)\s+(?:e-?mail|mail|message|courriel)\b|"
    r"\bci-(?:dessous|dessus)\b|\best[ea]\s+(?:correo|e-?mail|mensaje)\b|"
    r"\b(?:de\s+abajo|de\s+arriba)\b", re.I)
# an invitation asks the user to come ("please join us on Saturday 12 June", "come and
# celebrate with us", "please RSVP"): their answer is a plan's yes or no, not a task
INVITATION = re.compile(r"^(?:join us|come (?:and|along|to|celebrate)|celebrate with us|"
                        r"be our guests?|rsvp)\b", re.I)


def no_task(item: Item, sent: str, match: re.Match[str], task: str,
            said: datetime | None) -> bool:
    """Whether the request ``match`` of ``sent`` (its task ``task``) is no task of the
    user's, by the rules of this module."""
    if CONDITION.search(sent[:match.start()][-40:]) or NOTICE.match(task) or \
            CONDITION_AFTER.search(sent[match.start():]):
        return True
    if item.role != "other":
        return False
    if ABOUT_MESSAGE.search(task) or INVITATION.match(task):
        return True
    return match[0].lower().startswith("please") and \
        not find_date(sent[match.start():], said) and \
        bool(BOOKED_NOTICE.search(english_cues(item.text)))
