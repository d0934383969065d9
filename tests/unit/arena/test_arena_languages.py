"""The language table is the one home of what a language is: every language has one
entry, every suffix leads to it, the sandbox can run each one, and the SQL column's
CHECK names exactly the table's languages."""

from __future__ import annotations

import re

from sqlalchemy import CheckConstraint

from noitu.adapters.arena.languages import ENTRY_NAME, SOURCE_NAME, needs_jvm, run_command
from noitu.adapters.arena.sql.models import bots
from noitu.application.arena.languages import LANGUAGE_BY_SUFFIX, LANGUAGES
from noitu.application.arena.ports import Language


def test_every_language_has_one_entry_and_every_suffix_leads_to_it():
    assert set(LANGUAGES) == set(Language)
    for language, spec in LANGUAGES.items():
        assert spec.language is language
        assert spec.suffixes and all(s.startswith(".") and s == s.lower() for s in spec.suffixes)
        assert all(LANGUAGE_BY_SUFFIX[s] is language for s in spec.suffixes)
        assert spec.source_name.endswith(spec.suffixes[0])
        assert SOURCE_NAME[language] == spec.source_name
        assert ENTRY_NAME[language] == spec.entry_name


def test_the_sandbox_has_a_command_line_for_every_language():
    for language in LANGUAGES:
        command = run_command(language, "/bot", python="/usr/bin/python3", java="/usr/bin/java")
        assert command and (command[0] == "/usr/bin/java") == needs_jvm(language)


def test_the_sql_check_names_exactly_the_tables_languages():
    checks = [
        str(c.sqltext) for c in bots.constraints
        if isinstance(c, CheckConstraint) and str(c.name).endswith("_language")
    ]
    assert len(checks) == 1
    assert set(re.findall(r"'([a-z]+)'", checks[0])) == {language.value for language in LANGUAGES}
