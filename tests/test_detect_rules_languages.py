"""Rules said in German, French and Spanish: read as the English reader reads its rules
(prohibitions, requirements, "we use X here", "X is broken here, use Y", corrections with
both halves), with the same exclusions (one-offs, questions, musings), and kept in the
words they were said in. Every sentence here was written for this test."""

from __future__ import annotations

import pytest

from dream.detect import rule_lang, rules
from dream.items import Item


def _said(text: str, answers: bool = True, starts: bool = False) -> list[str]:
    item = Item(seq=1, id="E1", role="user", kind="statement", evidence=True, text=text,
                stream="s1", source="claude_code")
    return [rule for rule, _kind in rules.said_rules(item, answers, opening=starts,
                                                      starts=starts)]


@pytest.mark.parametrize("text, lang", [
    ("Bitte nie `npm install` im Root ausführen, das zerschießt die Workspaces.", "de"),
    ("Ici on utilise `poetry`, pas pip, et c'est comme ça depuis le début.", "fr"),
    ("Nunca hagas `git push --force` a main, por favor.", "es"),
    ("Never run the migrations by hand, use the make target.", None),
    ("ok", None),
])
def test_the_language_of_a_statement(text, lang):
    assert rule_lang.language(text) == lang


@pytest.mark.parametrize("text, kept", [
    # German: never, always, we use, broken here, a prohibition with what to do instead
    ("Bitte nie `npm install` im Root ausführen, das zerschießt die Workspaces.",
     "Nie `npm install` im Root ausführen, das zerschießt die Workspaces."),
    ("Migrationen immer mit `alembic upgrade head` einspielen.",
     "Migrationen immer mit `alembic upgrade head` einspielen."),
    ("Wir nutzen hier `pnpm`, nicht npm.", "Wir nutzen hier `pnpm`, nicht npm."),
    ("`pytest -x` ist bei uns kaputt, nimm `make test`.",
     "`pytest -x` ist bei uns kaputt, nimm `make test`."),
    ("Nein, kein sudo. Pakete nur über `brew` installieren.",
     "Kein sudo; pakete nur über `brew` installieren."),
    # French
    ("Ne lance jamais `terraform apply` depuis ton poste.",
     "Ne lance jamais `terraform apply` depuis ton poste."),
    ("Ici on utilise `poetry`, pas pip.", "Ici on utilise `poetry`, pas pip."),
    ("Utilise `make check` au lieu de lancer `tox` directement.",
     "Utilise `make check` au lieu de lancer `tox` directement."),
    ("Non non, toujours `black` avant chaque commit, je te l'ai déjà dit.",
     "Toujours `black` avant chaque commit."),
    # Spanish
    ("Nunca hagas `git push --force` a main.", "Nunca hagas `git push --force` a main."),
    ("Siempre corre `npm run lint` antes de cada commit.",
     "Siempre corre `npm run lint` antes de cada commit."),
    ("No uses moment.js, en este repo usamos `date-fns`.",
     "No uses moment.js, en este repo usamos `date-fns`."),
    ("Ojo: el `docker compose` del sistema está roto aquí, usa `podman compose`.",
     "El `docker compose` del sistema está roto aquí, usa `podman compose`."),
])
def test_rules_said_in_other_languages_are_read_in_their_words(text, kept):
    assert _said(text) == [kept]


@pytest.mark.parametrize("text", [
    # one-offs
    "Für heute reicht `make quick`, nie mehr als das.",
    "Pour l'instant, pas de tests d'intégration sur `api/`.",
    "Por ahora no toques `config/prod.yml`.",
    "Diesmal bitte kein `rebase`, einfach mergen.",
    "Cette fois-ci, n'utilise pas `--no-verify`.",
    "Esta vez no ejecutes `make deploy`.",
    # questions
    "Sollen wir immer `ruff format` vor dem Commit laufen lassen?",
    "Tu penses qu'on devrait toujours passer par `uv` ?",
    "¿Podemos usar siempre `vite` en vez de webpack?",
    # musings and deferrals
    "Vielleicht nutzen wir irgendwann nur noch `bun`, mal sehen.",
    "Juste curieux : on utilise toujours `make` dans l'autre repo ?",
    "Ya veremos si usamos `bun` siempre, algún día.",
    # reports on the code at hand, idioms and "still", not rules
    "Die Funktion gibt immer null zurück.",
    "`make test` ist kaputt.",
    "Ich habe nie `npm ci` benutzt, komisch.",
    "Kein Problem, mach einfach weiter.",
    "`cargo build` hängt immer noch bei der Verlinkung.",
    "Toujours la même erreur avec `npm test`.",
    "C'est toujours comme ça avec Docker.",
    "Pas de souci, continue comme ça.",
    "Siempre falla el test de `auth`.",
    "No pasa nada, sigue con `main`.",
    "le endpoint renvoie 'dev' au lieu de la version, corrige stp",
    "El test de `parser.py` falla desde ayer.",
])
def test_one_offs_questions_and_musings_in_other_languages_are_no_rules(text):
    assert _said(text) == []


def test_the_request_that_opens_a_session_keeps_only_its_standing_rules():
    text = ("Hallo! Bitte füge einen Endpoint `/status` hinzu. Getestet wird immer mit "
            "`make test`. Niemals direkt auf `main` pushen.")
    assert _said(text, answers=False, starts=True) == [
        "Getestet wird immer mit `make test`.", "Niemals direkt auf `main` pushen."]
    assert _said("Salut ! Ajoute une colonne `created_at` à la table `orders`.",
                 answers=False, starts=True) == []


def test_a_rule_said_again_is_a_correction_with_its_reason():
    item = Item(seq=1, id="E1", role="user", kind="statement", evidence=True, stream="s1",
                source="pi", text="encore ! le profil `ci-fast`. sans lui les tests "
                                  "tournent une heure, je te l'ai déjà dit hier.")
    assert rules.said_rules(item, True) == [
        ("Le profil `ci-fast`; sans lui les tests tournent une heure.", "correction")]


def test_a_rule_name_keeps_its_negation_in_its_language():
    assert rules.name_words("Nie `npm install` im Root ausführen.").split()[:2] == \
        ["nie", "npm"]
    assert "jamais" in rules.name_words("Ne lance jamais terraform apply.").split()


def test_a_fix_told_in_another_language_after_a_failure():
    assert rule_lang.told_to_run("ah, du musst vorher `docker compose up -d db` starten",
                                 "de") == "du musst vorher `docker compose up -d db` starten"
    assert rule_lang.told_to_run("lance d'abord `make deps`", "fr") == "lance d'abord `make deps`"
    assert rule_lang.told_to_run("usa `uv sync` primero", "es") == "usa `uv sync` primero"
    assert rule_lang.told_to_run("kannst du `make` starten?", "de") is None
