"""What of a message's text the plan and fact detectors read.

A mail's body is hard-wrapped and may carry a forwarded block: read as it comes, a
sentence is cut in two at each line end and the forwarded block's own header ("Date: Fri,
17 Jul 2026 09:02") looks like the date of a plan. :func:`readable` therefore

- drops the header lines of a forwarded or quoted block (``From:``, ``Date:``, ``To:``,
  ``Subject:`` ... in English, German, French and Spanish, when the block names a sender)
  and the separator and attribution lines around it ("---------- Forwarded message
  ---------", "On Mon, 3 Jun 2026 at 18:20, Sam wrote:", "Le lun. 8 juin 2026 à 10:30,
  X a écrit :");
- cuts the sender's signature off each part (what follows "--", "Kind regards", "Mit
  freundlichen Grüßen", "Cordialement", "Saludos" ... up to the next forwarded block: the
  studio address and office hours under a name are no plan);
- drops the subject line of a reply ("Subject: Re: Annulation de votre rendez-vous du 9
  juin"): it repeats what the first mail said, not what this one says;
- drops the sentences that say how to reach the sender: one giving a phone number ("To
  change or cancel, call 01632 960 412", "Please call us on 0161 496 0733 to arrange a new
  appointment") or asking for a reply to this mail ("Need to change? Reply to this
  email"). They are the sender's standing contact lines, neither a plan ("call") nor a
  to-do of the reader's; what the reader will do is in their own words;
- joins a wrapped line to the next one when it is long, ends without a sentence mark, and
  the next line goes on in lower case or is long too — a short labelled line ("Date:
  Saturday 20 June 2026", "Time: 19:30") stays a line of its own.
"""

from __future__ import annotations

import re

_LABELS = (r"from|date|sent|to|cc|bcc|subject|reply-to|von|an|datum|gesendet|betreff|"
           r"de|à|a|objet|envoyé|date d'envoi|para|asunto|enviado|fecha")
_HEADER = re.compile(r"^\s*(?:" + _LABELS + r")\s*:\s*\S", re.I)
_SENDER = re.compile(r"^\s*(?:from|von|de)\s*:.*(?:@|<)", re.I)
_SEPARATOR = re.compile(r"^\s*[-_=]{2,}\s*(?:forwarded message|original message|"
                        r"weitergeleitete nachricht|ursprüngliche nachricht|message transféré|"
                        r"message d'origine|mensaje reenviado|mensaje original)\s*[-_=]*\s*$|"
                        r"^\s*begin forwarded message:?\s*$", re.I)
_ATTRIBUTION = re.compile(r"^\s*(?:on|am|le|el)\b.{6,160}\b(?:wrote|schrieb|a écrit|escribió)"
                          r"\s*:?\s*$", re.I)
# a mail signature and what follows it is not the message
_SIGNATURE = re.compile(r"\n\s*(?:--\s*\n|(?:best(?: regards| wishes)?|kind regards|regards|"
                        r"cheers|thanks|many thanks|sent from my|mit freundlichen grüßen|"
                        r"viele grüße|liebe grüße|(?:bien )?cordialement|bien à vous|"
                        r"salutations|saludos|un saludo|un abrazo|envoyé de mon|"
                        r"von meinem \w+ gesendet|enviado desde mi|"
                        r"atentamente)\b[^\n]{0,40}(?:\n|$))", re.I)
_REPLY_SUBJECT = re.compile(r"^\s*(?:subject|betreff|objet|asunto)\s*:\s*(?:re|aw|antw|tr|rv|"
                            r"sv|vs)\s*:", re.I)
# a phone number: a leading + or 0, then at least 8 more digits in groups
_PHONE = r"(?<![\w.:/-])(?:\+|0)\d(?:[ ()/-]?\d){8,}(?![\w:])"
# (it starts at a sentence's start, where the search would have found it anyway: started
# anywhere else it rescanned the sentence from each of its characters)
_CONTACT = re.compile(r"(?<![^.!?\n])[^.!?\n]*(?:" + _PHONE + r"|\breply to (?:this|the) (?:e-?mail|message|"
                      r"mail)\b|\b(?:répondez|antworten sie|responda)\b[^.!?\n]{0,20}"
                      r"(?:e-?mail|courriel|mail|correo))[^.!?\n]*[.!?]?", re.I)
_WRAP = 55       # a line at least this long, cut without a sentence mark, was wrapped


def readable(text: str) -> str:
    """``text`` with signatures cut, forwarded headers dropped and wrapped lines joined."""
    parts, part = [], []
    for line in (text or "").splitlines():
        if _SEPARATOR.match(line):
            parts.append(part)
            part = []
        else:
            part.append(line)
    parts.append(part)
    lines: list[str] = []
    for part in parts:
        body = _SIGNATURE.split("\n".join(part), maxsplit=1)[0]
        lines += body.splitlines() + [""]
    keep: list[str] = []
    i = 0
    while i < len(lines):
        line = lines[i]
        if _ATTRIBUTION.match(line) or _REPLY_SUBJECT.match(line):
            i += 1
            continue
        if _HEADER.match(line):
            j = i
            while j < len(lines) and _HEADER.match(lines[j]):
                j += 1
            block = lines[i:j]
            if any(_SENDER.match(b) for b in block):
                i = j           # a forwarded block's header: who sent it when, not a plan
                continue
        keep.append(line)
        i += 1
    return _CONTACT.sub("", _unwrap(keep))


def _unwrap(lines: list[str]) -> str:
    out: list[str] = []
    for line in lines:
        if out and _wrapped(out[-1], line):
            out[-1] = out[-1].rstrip() + " " + line.strip()
        else:
            out.append(line)
    return "\n".join(out)


def _wrapped(prev: str, line: str) -> bool:
    prev_s, line_s = prev.rstrip(), line.strip()
    if not prev_s or not line_s or len(prev_s) < _WRAP or prev_s[-1] in ".!?:;":
        return False
    if _HEADER.match(line_s) or line_s[0] in "-*•>|":
        return False
    return line_s[0].islower() or line_s[0].isdigit() or len(line_s) >= _WRAP // 2
