"""HTML for the review page: runs, one run with its changes, a review's proposals.

Plain HTML with inline CSS and inline SVG charts; no scripts. Every value from the database
or a store is escaped. Forms post to the same origin and carry the server's CSRF token.
"""

from __future__ import annotations

import json
from html import escape
from typing import Any
from urllib.parse import quote

from dream.review.charts import Point, chart

STYLE = """
body{font:14px/1.45 system-ui,sans-serif;margin:0;color:#1d232b;background:#f6f7f9}
header{background:#1d2b3a;color:#fff;padding:10px 24px;display:flex;gap:18px;align-items:center}
header a{color:#fff;text-decoration:none}header form{margin-left:auto}
main{padding:16px 24px;max-width:1200px}
table{border-collapse:collapse;width:100%;background:#fff}
th,td{padding:5px 8px;border-bottom:1px solid #e3e6ea;text-align:right;white-space:nowrap}
th{background:#eef1f4;font-weight:600}td.l,th.l{text-align:left}
.status{padding:1px 7px;border-radius:9px;font-size:12px;color:#fff}
.ok{background:#2e7d32}.partial{background:#b26a00}.failed{background:#c62828}
.running{background:#1565c0}.priced{background:#6a6a6a}
.charts{display:flex;gap:16px;flex-wrap:wrap;margin:12px 0}
svg.chart{background:#fff;border:1px solid #e3e6ea}
svg .grid{stroke:#e3e6ea}svg .tick{font-size:10px;fill:#555}
svg .chart-title{font-size:13px;font-weight:600}svg .empty{fill:#888}
pre.diff{background:#fff;border:1px solid #e3e6ea;padding:8px;overflow:auto;font-size:12px}
pre.diff .add{color:#1b5e20;background:#e8f5e9}pre.diff .del{color:#b71c1c;background:#ffebee}
pre.diff .hunk{color:#6a1b9a}.muted{color:#777}dl{display:grid;grid-template-columns:max-content
auto;gap:2px 16px}dt{font-weight:600}code{font-size:12px}
.proposal{background:#fff;border:1px solid #e3e6ea;padding:8px 12px;margin:10px 0}
.proposal h3{margin:4px 0;font-size:15px}.decide{display:flex;gap:8px;align-items:center}
.decide form{display:flex;gap:6px}.pstatus{font-size:12px;padding:1px 6px;border-radius:8px;
background:#e3e6ea}.pstatus.accepted,.pstatus.exported{background:#c8e6c9}
.pstatus.rejected{background:#ffcdd2}.flash{background:#e8f5e9;padding:6px 10px}
button.accept{background:#2e7d32;color:#fff;border:0;padding:4px 12px;border-radius:4px}
button.reject{background:#c62828;color:#fff;border:0;padding:4px 12px;border-radius:4px}
button.promote{background:#2e7d32;color:#fff;border:0;padding:4px 12px;border-radius:4px}
button.discard{background:#c62828;color:#fff;border:0;padding:4px 12px;border-radius:4px}
#decision{background:#fff;border:1px solid #e3e6ea;padding:8px 12px;margin:10px 0}
.decision{font-size:12px;padding:1px 6px;border-radius:8px;background:#fff3cd;margin-left:4px}
.decision.promoted{background:#c8e6c9}.decision.discarded{background:#ffcdd2}
pre.text{white-space:pre-wrap;background:#fafafa;padding:6px}
"""


def _page(title: str, body: str, style: str = "") -> str:
    return ("<!doctype html><html lang=\"en\"><head><meta charset=\"utf-8\">"
            f"<title>{escape(title)}</title><style>{STYLE}{style}</style></head><body>"
            f"<header><a href=\"/\"><b>Dream</b> runs</a>{HEADER_LINKS}</header>"
            f"<main>{body}</main></body></html>")


# the longest query the search boxes type and /search takes: a 20 KB query sent by hand
# was echoed back into the page twice, whole (the search reads its first 32 words)
SEARCH_CHARS = 500
# the memory pages and a search box on every page (dream.review.memory_pages serves them),
# the questions and pictures pages (dream.review.steer)
HEADER_LINKS = ('<a href="/memory" id="nav-memory">memory</a>'
                '<a href="/questions" id="nav-questions">questions</a>'
                '<a href="/pictures" id="nav-pictures">pictures</a>'
                '<form method="get" action="/search" id="nav-search" role="search">'
                '<input type="search" name="q" placeholder="search memory" '
                f'aria-label="search memory" maxlength="{SEARCH_CHARS}"></form>')


def _money(value: float) -> str:
    return f"${value:.4f}" if value < 1 else f"${value:.2f}"


def _status(status: str, kind: str = "dream") -> str:
    """A run's status; a review whose run is still ``running`` waits for decisions: open."""
    label = "open" if kind == "review" and status == "running" else status
    return f'<span class="status {escape(status)}">{escape(label)}</span>'


def _label(run: dict[str, Any]) -> str:
    """'11-30 12:00' from the start time (the full id is in the tooltip)."""
    started = run.get("started_at") or ""
    return started[5:16].replace("T", " ") if len(started) >= 16 else run["id"][:11]


def review_state(run: dict[str, Any]) -> str | None:
    """'waiting' for a dream run left for review (--apply review) that wrote a commit and
    was not decided yet; its decision ('promoted', 'discarded') once decided; else None."""
    details = run.get("details") or {}
    if run.get("kind") != "dream" or details.get("apply_mode") != "review":
        return None
    if details.get("reverted_by"):
        return "reverted"
    if details.get("decision"):
        return str(details["decision"])
    return "waiting" if details.get("commits") else None      # what decide() requires


def _decision_badge(run: dict[str, Any]) -> str:
    state = review_state(run)
    if state is None:
        return ""
    label = "awaits review" if state == "waiting" else state
    return f' <span class="decision {escape(state)}">{escape(label)}</span>'


def runs_page(runs: list[dict[str, Any]], memory_html: str = "") -> str:
    """The front page: ``memory_html`` (the memory section) above the runs."""
    chronological = list(reversed(runs))
    costs = [Point(_label(r), float(r["cost_usd"]), r["id"],
                   f"{r['id']} ({r['status']}): {_money(r['cost_usd'])}")
             for r in chronological]
    memory = [Point(_label(r), float(r["memory_docs"]), r["id"],
                    f"{r['id']}: {r['memory_docs']} documents")
              for r in chronological if r["memory_docs"] is not None]
    total_cost = sum(r["cost_usd"] for r in runs if r["status"] != "priced")
    total_in = sum(r["input_tokens"] for r in runs if r["status"] != "priced")
    summary = (f'<p id="summary">{len(runs)} runs · spent {_money(total_cost)} · '
               f'{total_in:,} input tokens (dry-run estimates not counted)</p>')
    charts = ('<div class="charts">'
              + chart("chart-cost", "Cost per run (USD)", costs, "$", "bar")
              + chart("chart-memory", "Memory documents after each run", memory, "", "line",
                      "#2e7d32")
              + "</div>")
    head = ("<tr><th class=l>run</th><th class=l>kind</th><th class=l>mode</th>"
            "<th class=l>status</th><th class=l>started</th><th>items</th><th>bundles</th>"
            "<th>calls</th><th>input</th><th>cached</th><th>output</th><th>cost</th>"
            "<th>duration</th><th>memory</th><th class=l>commit</th></tr>")
    rows = []
    for r in runs:
        link = f'/runs/{quote(r["id"], safe="")}'
        rows.append(
            f'<tr class="run" data-run="{escape(r["id"])}" data-status="{escape(r["status"])}">'
            f'<td class=l><a href="{link}">{escape(r["id"])}</a></td>'
            f'<td class=l>{escape(r["kind"])}</td><td class=l>{escape(r["mode"])}</td>'
            f'<td class=l>{_status(r["status"], r["kind"])}{_decision_badge(r)}</td>'
            f'<td class=l>{escape((r["started_at"] or "")[:19].replace("T", " "))}</td>'
            f'<td>{r["items"]}</td><td>{r["bundles"]}</td><td>{r["calls"]}</td>'
            f'<td>{r["input_tokens"]:,}</td><td>{r["cached_tokens"]:,}</td>'
            f'<td>{r["output_tokens"]:,}</td><td class="cost">{_money(r["cost_usd"])}</td>'
            f'<td>{r["duration_s"]:.1f}s</td>'
            f'<td>{"" if r["memory_docs"] is None else r["memory_docs"]}</td>'
            f'<td class=l><code>{escape((r["commit"] or "")[:10])}</code></td></tr>')
    table = (f'<table id="runs">{head}{"".join(rows)}</table>' if rows else
             '<p class="muted" id="no-runs">No runs yet: run <code>dream run</code> first.</p>')
    return _page("Dream runs", memory_html + "<h1>Runs</h1>" + summary + charts + table)


def _patch_html(patch: str) -> str:
    lines = []
    for line in patch.splitlines():
        cls = ""
        if line.startswith("+") and not line.startswith("+++"):
            cls = "add"
        elif line.startswith("-") and not line.startswith("---"):
            cls = "del"
        elif line.startswith("@@"):
            cls = "hunk"
        text = escape(line)
        lines.append(f'<span class="{cls}">{text}</span>' if cls else text)
    return "\n".join(lines)


def run_page(run: dict[str, Any], csrf: str = "", done: str = "") -> str:
    fields = [("status", _status(run["status"], run["kind"])), ("kind", escape(run["kind"])),
              ("mode", escape(run["mode"])), ("model", escape(run["model"] or "")),
              ("project", escape(run["project_key"] or "")),
              ("started", escape(run["started_at"] or "")),
              ("finished", escape(run["finished_at"] or "")),
              ("duration", f'{run["duration_s"]:.2f}s'),
              ("items / bundles / calls", f'{run["items"]} / {run["bundles"]} / {run["calls"]}'),
              ("tokens in / cached / out", (f'{run["input_tokens"]:,} / '
               f'{run["cached_tokens"]:,} / {run["output_tokens"]:,}')),
              ("cost", _money(run["cost_usd"])),
              ("branch", f'<code>{escape(run["branch"] or "")}</code>'),
              ("commit", f'<code>{escape(run["commit"] or "")}</code>')]
    if run["kind"] == "dream" and run.get("decision"):
        by = ", ".join((run["details"].get("reverted_by") or {}).values())
        fields.append(("decision", f'<span id="run-decision">{escape(run["decision"])}</span>'
                       + (f' by <code>{escape(by[:12])}</code>' if by else "")))
    if run["error"]:
        fields.append(("error", f'<span class="error">{escape(run["error"])}</span>'))
    dl = "".join(f"<dt>{name}</dt><dd>{value}</dd>" for name, value in fields)
    parts = [f'<h1>Run <code id="run-id">{escape(run["id"])}</code></h1>']
    if done:
        parts.append(f'<p class="flash" id="done">{escape(done)}</p>')
    parts.append(f"<dl>{dl}</dl>")
    if review_state(run) is not None:
        parts.append(decision_section(run, csrf))
    if run.get("proposals") is not None:
        parts.append(proposals_section(run["id"], run["proposals"], csrf))
    details = {k: v for k, v in run["details"].items() if k != "commits"}
    if details:
        parts.append("<h2>Details</h2><pre class=diff id=details>"
                     f"{escape(json.dumps(details, indent=2, sort_keys=True))}</pre>")
    parts.append("<h2>Changes</h2>")
    if not run["diffs"] and run["kind"] == "review":
        parts.append('<p class="muted" id="no-changes">A review changes nothing itself; '
                     'accepted memory proposals are committed one by one (see above).</p>')
    elif not run["diffs"]:
        parts.append('<p class="muted" id="no-changes">This run made no commit.</p>')
    for diff in run["diffs"]:
        if diff["missing"]:
            parts.append(f'<p class="muted">commit <code>{escape(diff["commit"])}</code> is not '
                         f'in store {escape(diff["store"])} (pruned or not attached).</p>')
            continue
        files = "".join(f'<li><code>{escape(status)}</code> {escape(path)}</li>'
                        for status, path in diff["files"])
        sizes = ", ".join(f"{escape(k)}: {v}" for k, v in sorted(diff["size"].items()))
        parts.append(
            f'<section class="store-diff" data-store="{escape(diff["store_id"])}">'
            f'<h3>store {escape(diff["store"])} · <code>{escape(diff["commit"][:12])}</code></h3>'
            f'<p class="muted">documents after this run: {sizes or "none"}</p>'
            f'<ul class="files">{files}</ul>'
            f'<pre class="diff">{_patch_html(diff["patch"])}</pre>'
            + ('<p class="muted">diff truncated</p>' if diff["truncated"] else "")
            + "</section>")
    return _page(f"Dream run {run['id']}", "".join(parts))


def decision_section(run: dict[str, Any], csrf: str) -> str:
    """A dream run left for review: Promote and Discard forms while it waits (they call
    what 'dream runs promote|discard' calls), its decision once decided."""
    state = review_state(run)
    details = run["details"]
    branch = f'<code>{escape(run["branch"] or "")}</code>'
    out = [f'<section id="decision" data-decision="{escape(str(state))}">'
           '<h2>Review of this run</h2>']
    if state == "waiting":
        action = "/runs/" + quote(run["id"], safe="")
        hidden = f'<input type="hidden" name="csrf" value="{escape(csrf)}">'
        out.append(
            f'<p>This run was left for review (<code>--apply review</code>): its branch '
            f'{branch} is not on the store\'s main line yet. <b>Promote</b> brings it onto the '
            'main line (a merge when the store moved since; refused if it would overwrite '
            'newer content). <b>Discard</b> applies nothing and keeps the branch in git for '
            'the record.</p>'
            f'<div class="decide"><form method="post" action="{action}/promote">{hidden}'
            '<button type="submit" class="promote" name="promote">Promote</button></form>'
            f'<form method="post" action="{action}/discard">{hidden}'
            '<button type="submit" class="discard" name="discard">Discard</button></form>'
            '</div>')
    else:
        when = escape(str(details.get("reverted_at" if state == "reverted" else "decided_at")
                          or ""))
        text = f'<p>Decision: <span class="decision {escape(str(state))}" id="decision-value">' \
               f'{escape(str(state))}</span>' + (f" at {when}" if when else "")
        heads = details.get("promoted_heads") or {}
        if state == "promoted" and isinstance(heads, dict) and heads:
            text += "; the store is now at " + ", ".join(
                f'{escape(str(store))} <code>{escape(str(sha)[:12])}</code>'
                for store, sha in sorted(heads.items()))
        elif state == "reverted":
            text += "; 'dream revert' rolled it back with " + ", ".join(
                f'<code>{escape(str(sha)[:12])}</code>'
                for sha in (details.get("reverted_by") or {}).values())
        elif state == "discarded":
            text += f"; nothing was applied, the branch {branch} stays in git for the record"
        out.append(text + ".</p>")
    out.append("</section>")
    return "".join(out)


def proposals_section(run_id: str, proposals: list[dict[str, Any]], csrf: str) -> str:
    """A review's proposals with evidence and diffs; accept/reject forms for open ones."""
    action = "/runs/" + quote(run_id, safe="")
    out = [f'<h2 id="proposals">Proposals ({len(proposals)})</h2>']
    if not proposals:
        out.append('<p class="muted">This review proposed nothing.</p>')
    for p in proposals:
        slug = escape(p["slug"])
        evidence = "".join(f"<li><code>{escape(str(c))}</code></li>" for c in p["evidence"])
        replaces = ", ".join(escape(str(r)) for r in p.get("replaces") or [])
        change = p.get("change") or {}
        text = str(change.get("text") or "") if change.get("type") != "note" else ""
        outcome = ""
        if p.get("commit"):
            outcome = f' · commit <code>{escape(str(p["commit"])[:12])}</code>'
        elif p.get("export"):
            outcome = f' · exported to <code>{escape(str(p["export"]))}</code>'
        if p.get("why"):
            outcome += f' · why: {escape(str(p["why"]))}'
        buttons = ""
        if p["status"] == "proposed":
            hidden = (f'<input type="hidden" name="csrf" value="{escape(csrf)}">'
                      f'<input type="hidden" name="slug" value="{slug}">')
            buttons = (
                f'<div class="decide"><form method="post" action="{action}/accept">{hidden}'
                f'<button type="submit" class="accept" name="accept">Accept</button></form>'
                f'<form method="post" action="{action}/reject">{hidden}'
                f'<input type="text" name="why" placeholder="why (optional)" maxlength="500">'
                f'<button type="submit" class="reject" name="reject">Reject</button></form></div>')
        out.append(
            f'<section class="proposal" data-slug="{slug}" data-status="{escape(p["status"])}">'
            f'<h3>{escape(p["title"])} <span class="pstatus {escape(p["status"])}">'
            f'{escape(p["status"])}</span></h3>'
            f'<p class="muted"><code>{slug}</code> · {escape(p["pass"])} pass · '
            f'{escape(p["kind"])} · size {escape(p["size"])} · risk {escape(p["risk"])}'
            f'{outcome}</p>'
            + (f'<p>replaces: {replaces}</p>' if replaces else "")
            + (f'<pre class="text">{escape(text)}</pre>' if text else "")
            + f'<details open><summary>evidence ({len(p["evidence"])})</summary>'
            f'<ul class="evidence">{evidence}</ul></details>'
            + (f'<pre class="diff">{_patch_html(p["diff"])}</pre>' if p.get("diff") else "")
            + buttons + "</section>")
    return "".join(out)


def error_page(status: int, message: str, back: str | None = None) -> str:
    link = f'<p><a href="{escape(back)}" id="back">back</a></p>' if back else ""
    return _page(f"{status}", f'<h1>{status}</h1><p id="error">{escape(message)}</p>{link}')
