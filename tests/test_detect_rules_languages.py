"""Rules said in German, French, Spanish, Italian, Portuguese, Dutch, Swedish and Polish:
read as the English reader reads its rules
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
    ("Non usare mai `npm install` nella root, rompe i workspace.", "it"),
    ("Aqui é sempre `pnpm`, nunca npm.", "pt"),
    ("Niet deployen vanaf je laptop, dat gaat altijd via de pipeline.", "nl"),
    ("Kör aldrig `terraform apply` lokalt.", "sv"),
    ("Nikdy nepouštěj `terraform apply` lokálně, jen přes pipeline.", "cs"),
    ("Nie commituj bezpośrednio do main, zawsze przez PR.", "pl"),
    # a pasted log in English with ".com" links and single letters is no Portuguese
    ("Error: e e e see https://example.com and docs.example.com for details, then retry.",
     None),
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
    # said with "we" or "you" before the negation, without any name from the code
    ("Wir deployen nie freitags.", "Wir deployen nie freitags."),
    ("On ne merge jamais sans review.", "On ne merge jamais sans review."),
    ("Jamas hagas deploy a mano, aqui todo va por la CI.",      # without accents
     "Jamas hagas deploy a mano, aqui todo va por la CI."),
    ("Die Tests laufen ausschliesslich ueber `tox`.",            # without umlauts
     "Die Tests laufen ausschliesslich ueber `tox`."),
    # what not to do, why, then what to do instead: one rule, the reason after it
    ("kein docker system prune!! das wirft auch den Build-Cache weg, dann dauert alles ewig. "
     "Wenn überhaupt `docker image prune`, das reicht immer.",
     "Kein docker system prune; wenn überhaupt `docker image prune`, das reicht immer; das wirft "
     "auch den Build-Cache weg, dann dauert alles ewig."),
    ("Nein, nicht direkt cmake im Container. Der hat die Toolchain gar nicht. Wir bauen immer "
     "über ./scripts/build.sh.",
     "Nicht direkt cmake im Container; wir bauen immer über ./scripts/build.sh; Der hat die "
     "Toolchain gar nicht."),
    ("Pas de migration à la main. Tu lances `make migrate`, Flyway garde l'historique.",
     "Pas de migration à la main; tu lances `make migrate`, Flyway garde l'historique."),
    ("Pas de push sur main ! La branche est protégée, la CI refuse. Tu ouvres une MR.",
     "Pas de push sur main; tu ouvres une MR; La branche est protégée, la CI refuse."),
    # a shouted "X no!!", then what to do said again: one rule, the flag kept whole
    ("para. otra vez la suite entera no!! --filter unit, te lo dije",
     "La suite entera no; --filter unit."),
    # not X but Y, X over Y
    ("Nein, nicht `npm`, sondern `pnpm`.", "Nicht `npm`, sondern `pnpm`."),
    ("Non, pas `npm` mais `pnpm`.", "Pas `npm` mais `pnpm`."),
    ("No `npm` sino `pnpm`.", "No `npm` sino `pnpm`."),
    ("Lieber `rg` als `grep`.", "Lieber `rg` als `grep`."),
    ("Plutôt `rg` que `grep`.", "Plutôt `rg` que `grep`."),
    ("Mejor `rg` que `grep`.", "Mejor `rg` que `grep`."),
    # "remember to ..." naming what to keep
    ("Vergiss nicht, die `CHANGELOG.md` zu pflegen.",
     "Vergiss nicht, die `CHANGELOG.md` zu pflegen."),
    ("N'oublie pas de régénérer `schema.graphql` après un changement d'API.",
     "N'oublie pas de régénérer `schema.graphql` après un changement d'API."),
    ("Recuerda que la base de datos de staging es de solo lectura.",
     "Recuerda que la base de datos de staging es de solo lectura."),
    # Italian, Portuguese, Dutch, Swedish and Polish: never, always, we use, both halves
    ("Non usare mai `npm install` nella root, rompe i workspace.",
     "Non usare mai `npm install` nella root, rompe i workspace."),
    ("No, niente jQuery nel codice nuovo: usiamo fetch.",
     "Niente jQuery nel codice nuovo: usiamo fetch."),
    ("Nunca faça `git push --force` na main.", "Nunca faça `git push --force` na main."),
    ("Aqui é sempre `pnpm`, nunca npm.", "Aqui é sempre `pnpm`, nunca npm."),
    ("Niet deployen vanaf je laptop, dat gaat altijd via de pipeline.",
     "Niet deployen vanaf je laptop, dat gaat altijd via de pipeline."),
    ("Kör aldrig `terraform apply` lokalt.", "Kör aldrig `terraform apply` lokalt."),
    ("Nej, ingen `sudo pip`. Använd alltid `uv`.", "Ingen `sudo pip`; använd alltid `uv`."),
    ("Nie commituj bezpośrednio do main, zawsze przez PR.",
     "Nie commituj bezpośrednio do main, zawsze przez PR."),
    ("Plików w vendor/ nie ruszamy, są generowane.",
     "Plików w vendor/ nie ruszamy, są generowane."),
    # a negated Italian imperative with its pronoun; French "ne ... rien"
    ("no, `docker compose up` non lanciarlo tu, ci pensa già la CI da qui.",
     "`docker compose up` non lanciarlo tu, ci pensa già la CI da qui."),
    ("Non, n'ajoute rien avec `pip install` dans le conteneur.",
     "N'ajoute rien avec `pip install` dans le conteneur."),
    # Czech: always and never, every one of a kind, a negated imperative, a refusal said after
    # the thing refused
    ("Migrace pouštěj vždycky přes `make migrate`, nikdy ručně.",
     "Migrace pouštěj vždycky přes `make migrate`, nikdy ručně."),
    ("Každý endpoint musí mít test v tests/api, jinak to review nepustí.",
     "Každý endpoint musí mít test v tests/api, jinak to review nepustí."),
    ("Nesahej na `config/prod.yaml`, patří adminům a ti ho mění jen přes svůj PR.",
     "Nesahej na `config/prod.yaml`, patří adminům a ti ho mění jen přes svůj PR."),
    ("`git push --force` ne, tahle větev je sdílená a máme na ní i release.",
     "`git push --force` ne, tahle větev je sdílená a máme na ní i release."),
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
    "Nie wieder so ein Chaos.",
    "Immer wieder derselbe Fehler mit `tsc`.",
    "On a jamais eu ce problème avant.",
    "Siempre igual con este build.",
    "Nunca se sabe.",
    "Recuerda que mañana hay demo.",
    "Nicht schlecht, aber `make` ist langsam.",
    "Pas mal, mais le build est lent.",
    "Lieber heute als morgen.",
    "Mejor tarde que nunca.",
    "Denk dran, morgen ist Release.",
    "le endpoint renvoie 'dev' au lieu de la version, corrige stp",
    "El test de `parser.py` falla desde ayer.",
    # Italian, Portuguese, Dutch, Swedish and Polish one-offs and questions
    "Per oggi lascia stare i test lenti.",
    "Secondo te conviene passare a Vite?",
    "Por hoje pode pular o lint.",
    "Voorlopig mag je de e2e-tests overslaan.",
    "Idag kan du hoppa över lintern.",
    "Na razie pomiń testy e2e.",
    "Czy warto przejść na Bun?",
    # Czech one-offs, questions, musings and reports
    "Dneska přeskoč e2e testy, díky.",
    "Nevím, jestli by nebyl lepší `vite`. To je na jindy.",
    "A kde máš ten `Makefile`?",
    "Ten build je pořád pomalý, `make` nefunguje.",
    "Ještě `make lint` ne?",
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


def test_what_a_thing_asked_for_does_is_no_rule_but_the_rule_beside_it_is():
    text = ("Crée une contrainte : une salle ne peut jamais avoir deux séances en même temps. "
            "Ne touche jamais aux migrations déjà jouées.")
    assert _said(text, answers=False, starts=True) == [
        "Ne touche jamais aux migrations déjà jouées."]
    text = ("The upload dialog needs a `retry` button: it must not retry more than 3 times. "
            "Never hand-edit the generated client.")
    assert _said(text) == ["Never hand-edit the generated client."]


def test_the_lines_under_a_heading_for_how_the_project_works_are_rules_without_a_marker():
    """Under "ein paar Hinweise vorab:" in the message that opens a session, a line is a
    standing rule even without "immer" or "nie"; the heading is no part of it."""
    text = ("Hallo! Im Dashboard fehlt ein Filter nach Datum, bau den bitte ein. Ein paar "
            "Hinweise vorab: die Formulare laufen über `react-hook-form`, kein eigenes "
            "State-Handling.")
    said = _said(text, answers=False, starts=True)
    assert any("`react-hook-form`" in r and "State-Handling" in r for r in said), said
    assert not any("vorab" in r or "Filter" in r for r in said), said


def test_a_rule_said_again_is_a_correction_with_its_reason():
    item = Item(seq=1, id="E1", role="user", kind="statement", evidence=True, stream="s1",
                source="pi", text="encore ! le profil `ci-fast`. sans lui les tests "
                                  "tournent une heure, je te l'ai déjà dit hier.")
    assert rules.said_rules(item, True) == [
        ("Le profil `ci-fast`; sans lui les tests tournent une heure.", "correction")]


def test_an_english_word_of_no_moment_is_no_one_off():
    """A word that says "for now" only in another language ("even" in Dutch) is no one-off
    in an English sentence, so the flags said with it stay a way to work."""
    assert not rule_lang.one_off("it fails even with --release, look at the linker")
    assert rule_lang.one_off("Voorlopig mag je `--no-verify` gebruiken.")


def test_a_rule_name_keeps_its_negation_in_its_language():
    assert rules.name_words("Nie `npm install` im Root ausführen.").split()[:2] == \
        ["nie", "npm"]
    assert "jamais" in rules.name_words("Ne lance jamais terraform apply.").split()
    assert rules.name_words("Ingen `repair`; ändra aldrig en körd migrering.").split()[:4] == \
        ["ingen", "repair", "ändra", "aldrig"]
    assert "nie" in rules.name_words("Nie kompiluj ręcznie cobc.").split()


def test_a_fix_told_in_another_language_after_a_failure():
    assert rule_lang.told_to_run("ah, du musst vorher `docker compose up -d db` starten",
                                 "de") == "du musst vorher `docker compose up -d db` starten"
    assert rule_lang.told_to_run("lance d'abord `make deps`", "fr") == "lance d'abord `make deps`"
    assert rule_lang.told_to_run("usa `uv sync` primero", "es") == "usa `uv sync` primero"
    assert rule_lang.told_to_run("kannst du `make` starten?", "de") is None


# -- what the user's words in these languages do to commands -------------------------------
@pytest.mark.parametrize("rule, refused", [
    ("Niemals `terraform apply` lokal ausführen.", ["terraform apply"]),
    ("Bitte immer `poetry run` statt `pip` direkt.", ["pip"]),
    ("Pas de `docker compose up` sur ton poste, jamais.", ["docker compose up"]),
    ("Utilise `ruff` à la place de `flake8`.", ["flake8"]),
    ("No uses `yarn`, en este repo usamos `pnpm`.", ["yarn"]),
    ("Nunca despliegues sin `--dry-run` primero.", []),       # wanted, not refused
    ("Nie ohne `--frozen-lockfile` installieren.", []),
    ("Never run `make deploy` locally.", []),                  # English: read elsewhere
])
def test_what_a_rule_in_another_language_refuses_to_run(rule, refused):
    assert rule_lang.rejected(rule) == refused


def test_a_command_a_rule_refuses_is_no_way_to_work_here():
    from dream.detect import howto
    from dream.detect.finding import Finding

    found = [Finding("command", {"text": "Deploy: `terraform apply -auto-approve`"}, ["E1"]),
             Finding("command", {"text": "Plan: `terraform plan`"}, ["E2"])]
    rules_said = [Finding("directive", {"text": "Niemals `terraform apply` lokal."}, ["E3"])]
    assert [f.fields["text"] for f in howto.without_rejected(found, rules_said)] == \
        ["Plan: `terraform plan`"]


def test_flags_said_for_this_once_in_another_language_are_a_workaround():
    from dream.detect import howto

    said = [Item(seq=n, id=f"E{n}", role="user", kind="statement", evidence=True, text=t,
                 stream="s1", source="pi") for n, t in enumerate([
                     "Lass die Javadoc-Prüfung nur heute weg: -Dmaven.javadoc.skip=true",
                     "pour l'instant ajoute --no-verify, le hook est cassé",
                     "por ahora usa --legacy-peer-deps",
                     "immer mit --frozen-lockfile installieren"])]
    assert howto.temporary_flags(said) == {"-Dmaven.javadoc.skip=true", "--no-verify",
                                           "--legacy-peer-deps"}


@pytest.mark.parametrize("said, prefix, objected", [
    ("nein, kein `npm install` hier", "npm install", True),
    ("non, pas de `git push --force` sur main", "git push", True),
    ("no, nada de `pip install` global", "pip install", True),
    ("lance `make test` stp", "make test", False),
    # a flag goes on with the command: the program alone is not refused
    ("pas de `cmake -B build` à la main", "cmake", False),
    ("no `cmake -B build` by hand", "cmake", False),
])
def test_a_command_refused_in_another_language_is_an_objection(said, prefix, objected):
    from dream.detect import objections

    assert objections._negated(said, prefix, alone=len(prefix.split()) == 1) is objected


@pytest.mark.parametrize("said, fix", [
    ("ah, du musst vorher `docker compose up -d db` starten, sonst läuft keine Datenbank",
     "Du musst vorher `docker compose up -d db` starten, sonst läuft keine Datenbank"),
    ("ah oui, lance d'abord `docker compose up -d db`, sinon pas de base",
     "Lance d'abord `docker compose up -d db`, sinon pas de base"),
    ("usa primero `docker compose up -d db`, si no no hay base de datos",
     "Usa primero `docker compose up -d db`, si no no hay base de datos"),
])
def test_a_pitfall_keeps_the_fix_the_user_named_in_another_language(said, fix):
    from test_detect_coding import _run, _session

    failed = "Exit code 1\nE   sqlalchemy.exc.OperationalError: could not connect to server\n1 failed"
    notes = _run(_session("claude-1", [("user", "Lance les tests."), ("call", "pytest -q"),
                                       ("fail", failed), ("user", said),
                                       ("assistant", "OK.")]),
                 _session("claude-2", [("user", "Tests."), ("call", "pytest -q"),
                                       ("fail", failed)]))
    assert [n["text"] for n in notes if n["type"] == "failure"] == [
        "`pytest -q` fails with: OperationalError: could not connect to server. "
        f"The user said: {fix}."]


def test_a_report_said_to_be_said_before_is_no_rule_said_again():
    """"je te l'ai déjà dit, npm run dev ne trouve pas le backend" reports what fails (the
    reason for the rule said next to it), as "X can't find Y" does in English; a rule said
    again with it stays a correction."""
    assert _said("je te l'ai déjà dit, npm run dev ne trouve pas le backend") == []
    assert _said("je l'ai déjà dit, `make dev` ne voit pas la base du conteneur") == []
    assert _said("je te l'ai déjà dit : toujours `make dev`, jamais npm run dev.")


def test_where_a_file_lies_is_no_rule_but_where_it_belongs_is():
    """"der Schaltplan liegt unter hw/..." says where a thing is (for the task at hand);
    "gehört nach ..." says where things go."""
    assert _said("Kannst du die Footprints prüfen? Der Schaltplan liegt unter "
                 "hw/sensor.kicad_sch", starts=True) == []
    assert _said("Der Footprint gehört nach lib/sensor.pretty, das ist die Projektbibliothek.")


@pytest.mark.parametrize("text, kept", [
    # a bare prohibition, then how the project has it instead or why, naming it
    ("Não mexe na versão do Prisma. A gente está presa na 4.x porque o driver do Oracle "
     "ainda não suporta a 5.",
     "Não mexe na versão do Prisma; a gente está presa na 4.x porque o driver do Oracle "
     "ainda não suporta a 5."),
    ("N'installe rien avec pip. Les paquets viennent de conda-forge (environment.yml).",
     "N'installe rien avec pip; les paquets viennent de conda-forge (environment.yml)."),
    ("Nie wdrażaj tego ręcznie. Releasy publikuje u nas pipeline `release.yml` po tagu.",
     "Nie wdrażaj tego ręcznie; releasy publikuje u nas pipeline `release.yml` po tagu."),
    ("Nej, aldrig rebase. Historiken på main speglas till kundens Gerrit varje natt.",
     "Aldrig rebase; historiken på main speglas till kundens Gerrit varje natt."),
    ("No, nada de publicar. Las imágenes las sube el job de release con su propia cuenta.",
     "Nada de publicar; las imágenes las sube el job de release con su propia cuenta."),
])
def test_a_bare_prohibition_takes_how_things_are_from_the_sentence_after_it(text, kept):
    assert _said(text) == [kept]


@pytest.mark.parametrize("text, kept", [
    # what the speaker will do is no part of the rule
    ("Nunca `docker compose down -v`. Ya lo borro yo cuando haga falta, tranquilo.",
     "Nunca `docker compose down -v`."),
    # a narrowing ("only what you touched") leans on what was said before it
    ("Nein, nicht das ganze `src/` Verzeichnis. Nur was du angefasst hast, bitte.", None),
    # a one-off after it stays out
    ("Não mexe no `tsconfig.json`. Hoje o build da CI está lento, paciência.",
     "Não mexe no `tsconfig.json`."),
])
def test_a_bare_prohibition_takes_no_plan_narrowing_or_one_off_after_it(text, kept):
    said = _said(text)
    assert said == ([kept] if kept else []) or kept is None and not any(
        "angefasst" in r for r in said), said


def test_a_failure_said_as_the_reason_of_a_rule_is_no_report():
    """"..., jinak CI spadne" (otherwise CI fails) says why the rule holds; the sentence is
    still the rule, as "porque X no falla" is."""
    said = _said("po každé změně migrací pusť `make schema-dump`, jinak CI spadne.",
                 answers=False, starts=True)
    assert said == ["Po každé změně migrací pusť `make schema-dump`, jinak CI spadne."]
    assert _said("`make schema-dump` spadne, protože chybí `pg_dump`.") == []
