"""docs/arena-api.md against the server: every error code an arena route can answer is
listed for that route with its status, every listed code has that status in the error
table, and the document sends readers to no source file."""

from __future__ import annotations

import os
import re
from pathlib import Path

from noitu.adapters.http.errors import ERROR_STATUS
from noitu.entrypoints.app import create_app
from noitu.entrypoints.container import Container
from noitu.entrypoints.settings import load_settings

DOC = Path(__file__).resolve().parents[2] / "docs" / "arena-api.md"
API = "/arena/api/"
#: Any route may answer it; the document says so once instead of on every row.
EVERYWHERE = "internal"

ROUTE_ROW = re.compile(r"^\| `(GET|POST|PATCH|DELETE|PUT) (/arena/api/[^`]*)` \| (.*) \|$")
CODE_ROW = re.compile(r"^\| `([a-z_]+)` \| (\d{3}) \|")
CODE_AND_STATUS = re.compile(r"`([a-z_]+)` (\d{3})")
#: A code and its status anywhere in the text: "`bad_owner_key` (400)" too.
MENTION = re.compile(r"`([a-z_]+)` \(?(\d{3})\b")


def _route(method: str, path: str) -> str:
    """`GET /arena/api/bots/{}`: path parameters compared whatever their names."""
    return f"{method.upper()} {re.sub(r'{[^}]*}', '{}', path)}"


def _section(text: str, title: str) -> list[str]:
    lines = text.splitlines()
    assert f"## {title}" in lines, f"docs/arena-api.md has no section '## {title}'"
    start = lines.index(f"## {title}") + 1
    end = next((i for i in range(start, len(lines)) if lines[i].startswith("## ")), len(lines))
    return lines[start:end]


def _openapi() -> dict:
    container = Container()
    env = {"NOITU_ACCESS_LOG": "0", "NOITU_DATA_DIR": os.environ["NOITU_DATA_DIR"]}
    container.settings.override(load_settings(env))
    return create_app(container).openapi_schema.to_schema()


def _answered(operation: dict) -> set[tuple[str, int]]:
    """(code, status) of every error the OpenAPI document declares for an operation."""
    found = set()
    for status, answer in operation.get("responses", {}).items():
        for content in (answer.get("content") or {}).values():
            for example in (content.get("examples") or {}).values():
                value = example.get("value")
                if isinstance(value, dict) and "error" in value:
                    found.add((value["error"], int(status)))
    return found


def _documented_routes() -> dict[str, set[tuple[str, int]]]:
    routes: dict[str, set[tuple[str, int]]] = {}
    for line in _section(DOC.read_text(encoding="utf-8"), "Errors"):
        row = ROUTE_ROW.match(line)
        if row:
            method, path, cell = row.groups()
            pairs = {(code, int(status)) for code, status in CODE_AND_STATUS.findall(cell)}
            assert pairs or cell.strip() == "none", f"unreadable errors of {method} {path}: {cell!r}"
            assert _route(method, path) not in routes, f"{method} {path} is listed twice"
            routes[_route(method, path)] = pairs
    return routes


def test_every_route_lists_exactly_the_errors_it_can_answer() -> None:
    documented = _documented_routes()
    served = {
        _route(method, path): _answered(operation) - {(EVERYWHERE, ERROR_STATUS[EVERYWHERE])}
        for path, item in _openapi()["paths"].items()
        if path.startswith(API)
        for method, operation in item.items()
        if method in ("get", "post", "patch", "delete", "put")
    }
    assert sorted(documented) == sorted(served), "routes in the Errors section differ from the server's"
    problems = []
    for route, answers in served.items():
        for code, status in sorted(answers - documented[route]):
            problems.append(f"{route}: answers `{code}` {status}, not listed in docs/arena-api.md")
        for code, status in sorted(documented[route] - answers):
            problems.append(f"{route}: docs/arena-api.md lists `{code}` {status}, which it never answers")
    assert not problems, "\n".join(problems)


def test_every_listed_code_has_the_status_of_the_error_table() -> None:
    text = DOC.read_text(encoding="utf-8")
    table = {}
    for line in _section(text, "Errors"):
        row = CODE_ROW.match(line)
        if row:
            table[row.group(1)] = int(row.group(2))
    problems = [
        f"`{code}` is listed with {status}, the server answers {ERROR_STATUS.get(code)}"
        for code, status in table.items()
        if ERROR_STATUS.get(code) != status
    ]
    mentioned = {(code, int(status)) for code, status in MENTION.findall(text)}
    problems += [
        f"`{code}` {status} is mentioned but the server answers {ERROR_STATUS.get(code)}"
        for code, status in sorted(mentioned)
        if ERROR_STATUS.get(code) != status
    ]
    used = {code for answers in _documented_routes().values() for code, _ in answers} | {EVERYWHERE}
    problems += [f"`{code}` is answered by a route but has no row in the code table" for code in sorted(used - set(table))]
    assert not problems, "\n".join(problems)


def test_the_document_sends_readers_to_no_source_file() -> None:
    text = DOC.read_text(encoding="utf-8")
    assert not re.findall(r"\bsrc/|\btests/|[\w/]+\.py\b", text)
