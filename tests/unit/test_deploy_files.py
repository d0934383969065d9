"""The files of deploy/ and docs/operating.md's "The arena on several machines" say only
what the code does: every setting they name is one `load_settings` reads (its one
definition, watched by `setting_names`), every environment they give is one it accepts
for the several-machine arena, every command they run is one the `noitu` parser takes,
and the nginx configuration routes every `noitu serve` of the compose file with the
limits section 4 asks for. Docker is not run here: these are the files' own checks.
"""

from __future__ import annotations

import re
import shlex
from pathlib import Path
from typing import Any

import pytest
import yaml

from noitu.entrypoints.cli import build_parser
from noitu.entrypoints.cli.noitu import setting_names
from noitu.entrypoints.settings import load_settings

ROOT = Path(__file__).resolve().parents[2]
DEPLOY = ROOT / "deploy"
UNITS = sorted((DEPLOY / "systemd").glob("*.service"))
SECTION = "## The arena on several machines"
VARIABLE = re.compile(r"\b(?:NOITU_[A-Z0-9_]+|REDIS_URL)\b")


def section() -> str:
    text = (ROOT / "docs" / "operating.md").read_text(encoding="utf-8")
    start = text.index(SECTION)
    end = text.find("\n## ", start + len(SECTION))
    return text[start:] if end < 0 else text[start:end]


def compose() -> dict[str, Any]:
    return yaml.safe_load((DEPLOY / "compose.yaml").read_text(encoding="utf-8"))


def noitu_services() -> dict[str, dict[str, Any]]:
    """The compose services that run the noitu image."""
    return {
        name: service for name, service in compose()["services"].items()
        if service.get("build", {}).get("dockerfile") == "deploy/Dockerfile"
    }


def unit_lines(unit: Path, key: str) -> list[str]:
    prefix = f"{key}="
    return [
        line[len(prefix):] for line in unit.read_text(encoding="utf-8").splitlines()
        if line.startswith(prefix)
    ]


def doc_env_file() -> dict[str, str]:
    """The example /etc/noitu/env of the section."""
    block = re.search(r"```sh\n# /etc/noitu/env[^\n]*\n(.*?)```", section(), re.DOTALL)
    assert block, "the section shows /etc/noitu/env"
    return dict(line.split("=", 1) for line in block.group(1).splitlines() if line)


def accepts(argv: list[str]) -> None:
    """The `noitu` parser takes `argv` (a command line after `noitu`) as it is."""
    try:
        build_parser().parse_args(argv)
    except SystemExit as error:
        pytest.fail(f"`noitu {shlex.join(argv)}` is not a noitu command (exit {error.code})")


def test_every_setting_named_is_one_the_server_reads() -> None:
    known = set(setting_names())
    texts = {path: path.read_text(encoding="utf-8") for path in DEPLOY.rglob("*") if path.is_file()}
    texts[Path("docs/operating.md#the-arena-on-several-machines")] = section()
    named: set[str] = set()
    for path, text in texts.items():
        found = set(VARIABLE.findall(text))
        assert found <= known, f"{path} names settings nobody reads: {sorted(found - known)}"
        named |= found
    # The files say the cluster's settings themselves, not only around them.
    assert {
        "NOITU_ARENA_QUEUE", "NOITU_STORE", "REDIS_URL", "NOITU_ARENA_DATABASE",
        "NOITU_ARENA_FILES", "NOITU_INSTANCE", "NOITU_DATA_DIR", "NOITU_TRUSTED_PROXY",
    } <= named
    for service in noitu_services().values():
        assert set(service["environment"]) <= known
    for unit in UNITS:
        keys = {line.split("=", 1)[0] for line in unit_lines(unit, "Environment")}
        assert keys <= known, unit.name
    assert set(doc_env_file()) <= known


def test_every_environment_given_is_a_valid_several_machine_arena() -> None:
    services = noitu_services()
    assert len(services) == 4
    for name, service in services.items():
        settings = load_settings({k: str(v) for k, v in service["environment"].items()})
        assert (settings.arena_queue, settings.store, settings.arena_files) == ("saq", "redis", "database"), name
        assert settings.arena_database_url.startswith("postgresql"), name
    instances = [service["environment"]["NOITU_INSTANCE"] for service in services.values()]
    assert len(set(instances)) == len(instances)  # each process its own name

    shared = doc_env_file()
    assert not {"NOITU_PORT", "NOITU_INSTANCE", "NOITU_DATA_DIR"} & set(shared)  # the units' own
    for unit in UNITS:
        assert unit_lines(unit, "EnvironmentFile") == ["/etc/noitu/env"], unit.name
        own = dict(line.split("=", 1) for line in unit_lines(unit, "Environment"))
        assert {"NOITU_INSTANCE", "NOITU_DATA_DIR"} <= set(own), unit.name
        instance = {key: value.replace("%i", "8081").replace("%H", "web1") for key, value in own.items()}
        settings = load_settings({**shared, **instance})
        assert (settings.arena_queue, settings.store, settings.arena_files) == ("saq", "redis", "database")


def test_every_command_run_is_a_noitu_command() -> None:
    commands: list[list[str]] = []
    for unit in UNITS:
        (exec_start,) = unit_lines(unit, "ExecStart")
        program, *argv = shlex.split(exec_start)
        assert Path(program).name == "noitu" and Path(program).is_absolute(), unit.name
        commands.append(argv)
    for service in noitu_services().values():
        program, *argv = service["command"]
        assert program == "noitu"
        commands.append(argv)
    # The section's commands, in code spans and blocks, after any `taskset -c LIST`.
    text = section()
    blocks = "".join(re.findall(r"```sh\n(.*?)```", text, re.DOTALL))
    spans = re.findall(r"`([^`]+)`", re.sub(r"```.*?```", "", text, flags=re.DOTALL))
    for line in [" ".join(span.split()) for span in spans] + blocks.splitlines():
        line = re.sub(r"^(?:taskset -c \S+ )", "", line.strip())
        if line.startswith("noitu ") and "…" not in line:
            commands.append(shlex.split(line)[1:])
    assert ["serve"] in commands and ["arena", "worker"] in commands
    assert ["bench", "cluster", "--serve", "2", "--workers", "2"] in commands
    assert ["arena", "worker"] in commands[len(UNITS) + len(noitu_services()):]  # the pinned one
    for argv in commands:
        accepts(argv)


def test_the_units_run_serve_without_root_and_a_worker_with_its_cgroup() -> None:
    serve = DEPLOY / "systemd" / "noitu-serve@.service"
    worker = DEPLOY / "systemd" / "noitu-arena-worker@.service"
    assert {serve, worker} <= set(UNITS)
    assert unit_lines(serve, "User") == ["noitu"]
    assert unit_lines(worker, "Delegate")  # the bots' cgroups (BOT-UPLOAD.md, section 7)
    assert unit_lines(worker, "KillMode") == ["mixed"]  # SIGTERM to the worker alone first


def test_the_image_has_the_packages_setup_installs_for_the_arena() -> None:
    setup = (ROOT / "scripts" / "setup").read_text(encoding="utf-8")
    arena_part = setup[: setup.index('if [ "$with_tests" = 1 ]; then\n  command -v chromium')]
    wanted = set(re.findall(r"missing\+=\(([^)]+)\)", arena_part))
    assert {"bubblewrap", "g++", "openjdk-17-jdk-headless"} <= wanted
    dockerfile = (DEPLOY / "Dockerfile").read_text(encoding="utf-8")
    install = re.search(r"apt-get install ([^&]+)&&", dockerfile, re.DOTALL)
    assert install
    assert wanted <= set(install.group(1).replace("\\", " ").split())


def nginx_locations(text: str) -> dict[str, str]:
    return {m.group(1).strip(): m.group(2) for m in re.finditer(r"location\s+([^{]+)\{([^}]*)\}", text)}


def directive(block: str, name: str) -> list[str]:
    return re.findall(rf"^\s*{name}\s+([^;]+);", block, re.MULTILINE)


def test_nginx_routes_every_serve_with_the_limits_of_section_4() -> None:
    text = re.sub(r"#[^\n]*", "", (DEPLOY / "nginx.conf").read_text(encoding="utf-8"))
    upstream = re.search(r"upstream noitu \{([^}]*)\}", text)
    assert upstream
    servers = {line.split()[0] for line in directive(upstream.group(1), "server")}
    assert servers == {f"{name}:8080" for name, service in noitu_services().items()
                       if service["command"] == ["noitu", "serve"]}
    for affinity in ("ip_hash", "hash", "sticky"):  # any instance answers any room
        assert not directive(upstream.group(1), affinity)

    server = re.sub(r"location\s+[^{]+\{[^}]*\}", "", text.split("server {", 1)[1])
    assert directive(server, "client_max_body_size") == ["1m"]
    assert directive(server, "proxy_next_upstream") == ["error timeout"]  # never on 503 busy
    for name in ("client_header_timeout", "client_body_timeout", "limit_conn", "limit_req"):
        assert directive(server, name), name
    locations = nginx_locations(text)
    assert set(locations) == {"/", "= /arena/api/bots", "/arena/ws/", "= /games/noitu/api/room/feed"}
    assert directive(locations["= /arena/api/bots"], "client_max_body_size") == ["17m"]
    ws = locations["/arena/ws/"]
    assert "Upgrade $http_upgrade" in directive(ws, "proxy_set_header")
    assert 'Connection "upgrade"' in directive(ws, "proxy_set_header")
    # A location that sets a header inherits none of the server's: it repeats them all.
    outer = {value.split()[0] for value in directive(server, "proxy_set_header")} - {"Connection"}
    assert {"Host", "X-Forwarded-For"} <= outer
    for where, block in locations.items():
        own = {value.split()[0] for value in directive(block, "proxy_set_header")}
        assert not own or outer <= own, where
        assert directive(block, "proxy_pass") == ["http://noitu"], where
