"""dream questions, dream questions answer."""

from __future__ import annotations

import click

from dream.cli.common import emit_json, get_app, json_option
from dream.pipeline.answers import answer_question, app_scopes, open_questions


def register(cli: click.Group) -> None:
    cli.add_command(questions)


@click.group(invoke_without_command=True)
@json_option
@click.pass_context
def questions(ctx: click.Context, as_json: bool) -> None:
    """List the open questions runs asked (this project and @user/).

    A same-thing question is answered yes or no; a which-value question with one of the
    offered values or one you type: 'dream questions answer KEY ANSWER'.
    """
    if ctx.invoked_subcommand is not None:
        return
    app = get_app()
    scopes, _key = app_scopes(app)
    found = open_questions(scopes)
    if as_json:
        emit_json(found)
        return
    if not found:
        click.echo("no open questions")
        return
    for q in found:
        hint = "yes | no" if q["ask"] == "same" else \
            " | ".join(q["options"]) + " | a value you type" if q["ask"] == "value" else ""
        click.echo(f"{q['key']}  {q['text']}" + (f"  [{hint}]" if hint else ""))


@questions.command("answer")
@click.argument("key")
@click.argument("answer")
@json_option
def questions_answer(key: str, answer: str, as_json: bool) -> None:
    """Answer question KEY now: it settles the records it is about in one commit.

    yes merges two records into the older one (of two notes, keeps the newer), no keeps
    them apart for good, a value sets the field; later runs respect the answer. KEY may be
    the question's address (@user/questions/KEY, @projects/<name>/questions/KEY), which
    answers it in its own project wherever you are.
    """
    app = get_app()
    result = answer_question(app, key, answer)
    if as_json:
        emit_json(result)
        return
    click.echo(f"answered {result['question']} = {result['answer']!r} (evidence "
               f"{result['item']}, run {result['id']})")
