"""HTML of the steering pages: open questions with their answer forms, and the correct and
crumple forms a record's page shows. Plain HTML, no scripts; every value is escaped and every
form carries the server's CSRF token."""

from __future__ import annotations

from html import escape
from typing import Any
from urllib.parse import quote

from dream.review import pages

STYLE = """<style>
.question{background:#fff;border:1px solid #e3e6ea;padding:8px 12px;margin:10px 0}
.question h3{margin:4px 0;font-size:15px}.scope h2{font-size:16px;margin-top:22px}
.question table{width:auto;margin:6px 0}.question td,.question th{text-align:left}
.question td.asked{background:#fff3cd;font-weight:600}
.answer{display:flex;gap:10px;align-items:center;flex-wrap:wrap;margin-top:6px}
.answer label{white-space:nowrap}button.yes,button.answer{background:#2e7d32;color:#fff;
border:0;padding:4px 12px;border-radius:4px}button.no{background:#455a64;color:#fff;border:0;
padding:4px 12px;border-radius:4px}.steer{background:#fff;border:1px solid #e3e6ea;
padding:8px 12px;margin:10px 0}.steer form{display:flex;gap:6px;align-items:center;
flex-wrap:wrap;margin:4px 0}button.correct{background:#1565c0;color:#fff;border:0;
padding:4px 12px;border-radius:4px}button.crumple{background:#6d4c41;color:#fff;border:0;
padding:4px 12px;border-radius:4px}ul.waiting li{margin:3px 0}
</style>"""


def _hidden(csrf: str, **fields: str) -> str:
    out = f'<input type="hidden" name="csrf" value="{escape(csrf)}">'
    for name, value in fields.items():
        out += f'<input type="hidden" name="{escape(name)}" value="{escape(value)}">'
    return out


def _records_table(q: dict[str, Any]) -> str:
    """The records a question is about, side by side, the asked field marked."""
    recs = q.get("records") or []
    if not recs:
        return ""
    names: list[str] = []
    for rec in recs:
        names += [n for n in rec["fields"] if n not in names]
    head = "".join('<th>' + (f'<a href="{escape(r["link"])}" class="record">'
                             f'<code>{escape(r["address"])}</code></a>' if r.get("link") else
                             f'<code>{escape(r["address"])}</code>')
                   + (' <span class="muted">(gone)</span>' if r["missing"] else "") + "</th>"
                   for r in recs)
    rows = []
    for name in names:
        asked = name == q.get("field")
        cells = "".join(
            f'<td{" class=asked" if asked else ""}>{escape(str(r["fields"].get(name, "")))}</td>'
            for r in recs)
        rows.append(f"<tr><th>{escape(name)}</th>{cells}</tr>")
    return f'<table class="about"><tr><th></th>{head}</tr>{"".join(rows)}</table>'


def answer_form(q: dict[str, Any], csrf: str, back: str = "") -> str:
    """Yes / No buttons for a same-thing question; the offered values and a box to type
    one for a which-value question; nothing for a question that names no record."""
    hidden = _hidden(csrf, question=q["address"], **({"back": back} if back else {}))
    if q["ask"] == "same":
        return ('<form method="post" action="/questions/answer" class="answer">' + hidden
                + '<button type="submit" class="yes" name="answer" value="yes">Yes, the same '
                'thing</button><button type="submit" class="no" name="answer" value="no">No, '
                'keep them apart</button></form>')
    if q["ask"] == "value":
        options = "".join(
            f'<label><input type="radio" name="answer" value="{escape(o)}"'
            f'{" checked" if i == 0 else ""}> {escape(o)}</label>'
            for i, o in enumerate(q["options"]))
        return ('<form method="post" action="/questions/answer" class="answer">' + hidden
                + options + f'<label>or type one: <input type="text" name="typed" '
                f'maxlength="500" placeholder="{escape(q["field"])}"></label>'
                '<button type="submit" class="answer">Answer</button></form>')
    return ('<p class="muted">This question names no record to settle: change the records '
            'with <code>dream correct</code>, then correct its status to answered.</p>')


def questions_page(questions: list[dict[str, Any]], waiting: dict[str, list[dict[str, Any]]],
                   csrf: str, done: str = "") -> str:
    parts = [STYLE, f'<h1>Questions <span class="muted" id="open-count">({len(questions)} '
             'open)</span></h1>']
    if done:
        parts.append(f'<p class="flash" id="done">{escape(done)}</p>')
    parts.append('<p class="muted">Dream asks instead of writing a record it could not '
                 'defend. An answer is evidence said now: it settles the records (merging '
                 'them, keeping them apart, or setting the field) and closes the question in '
                 'one commit, and no older message undoes it. The same as <code>dream '
                 'questions answer</code>.</p>')
    if not questions:
        parts.append('<p id="no-questions">No open questions.</p>')
    scope = None
    for q in questions:
        if q["scope"] != scope:
            if scope is not None:
                parts.append("</section>")
            scope = q["scope"]
            parts.append(f'<section class="scope" data-scope="{escape(scope)}">'
                         f'<h2>{escape(scope)}</h2>')
        ask = {"same": "same thing?", "value": f"which {q['field']}?"}.get(q["ask"], "")
        parts.append(
            f'<section class="question" data-key="{escape(q["key"])}" '
            f'data-ask="{escape(q["ask"])}" data-address="{escape(q["address"])}">'
            f'<h3>{escape(q["text"] or q["key"])}</h3>'
            f'<p class="muted"><a href="{escape(q.get("link") or "")}" class="question-page">'
            f'<code>{escape(q["key"])}</code></a>'
            + (f" · {escape(ask)}" if ask else "") + "</p>"
            + _records_table(q) + answer_form(q, csrf) + "</section>")
    if scope is not None:
        parts.append("</section>")
    parts.append(_waiting(waiting))
    return pages._page("Dream questions", "".join(parts))


def _waiting(waiting: dict[str, list[dict[str, Any]]]) -> str:
    items = []
    for run in waiting["runs"]:
        link = "/runs/" + quote(run["id"], safe="")
        items.append(f'<li class="waiting-run"><a href="{link}">{escape(run["id"])}</a>: a dream '
                     'run left for review (Promote or Discard)</li>')
    for run in waiting["reviews"]:
        link = "/runs/" + quote(run["id"], safe="") + "#proposals"
        items.append(f'<li class="waiting-review"><a href="{link}">{escape(run["id"])}</a>: '
                     f'{run["open"]} review proposal{"s" if run["open"] != 1 else ""} to '
                     'accept or reject</li>')
    if not items:
        return ""
    return ('<h2 id="waiting">Also waiting for you</h2><ul class="waiting">'
            + "".join(items) + "</ul>")


def error_page(status: int, message: str, back: str | None = None) -> str:
    return pages.error_page(status, message, back)


def record_forms(address: str, store_id: str, kind: str, fields: list[str], status: str,
                 typed: bool, csrf: str, back: str, done: str = "",
                 question: dict[str, Any] | None = None) -> str:
    """For a record's page: the answer form of an open question, the Correct form (a
    record's field, checked like ``dream correct``) and the Crumple button (a live note);
    '' when none applies."""
    from dream.kinds.fields import FIELDS, OPEN_KINDS

    hidden = _hidden(csrf, address=address, store=store_id, back=back)
    parts = []
    if question is not None:
        parts.append('<div class="question" id="answer"><b>Answer this question</b>'
                     + answer_form(question, csrf, back) + "</div>")
    if typed and (kind in FIELDS or kind in OPEN_KINDS):
        if kind in OPEN_KINDS:          # named slots: any field name
            options = "".join(f'<option value="{escape(n)}">' for n in fields)
            chooser = ('<input type="text" name="field" list="steer-fields" required '
                       'maxlength="64" placeholder="field" aria-label="field">'
                       f'<datalist id="steer-fields">{options}</datalist>')
        else:
            chooser = ('<select name="field" aria-label="field">' + "".join(
                f'<option value="{escape(n)}">{escape(n)}</option>' for n in FIELDS[kind])
                + "</select>")
        parts.append(
            '<form method="post" action="/records/correct" class="correct">' + hidden
            + f'<label>Correct {chooser}</label><input type="text" name="value" required '
            'maxlength="2000" placeholder="the right value" aria-label="value">'
            '<button type="submit" class="correct">Correct</button></form>'
            '<p class="muted">A correction is evidence said now: it wins over everything said '
            'before it, and only newer evidence can change the field again '
            '(<code>dream correct</code>).</p>')
    if kind == "note" and status != "crumpled":
        parts.append('<form method="post" action="/records/crumple" class="crumple">' + hidden
                     + '<button type="submit" class="crumple">Crumple</button>'
                     '<span class="muted">soft-delete this note: gone from the brief and '
                     'from search, still in git (<code>dream notes crumple</code>)</span>'
                     '</form>')
    if not parts and not done:
        return ""
    flash = f'<p class="flash" id="done">{escape(done)}</p>' if done else ""
    return STYLE + '<section class="steer" id="steer"><h2>Steer</h2>' + flash + \
        "".join(parts) + "</section>"
