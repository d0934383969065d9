"""The import contracts in pyproject.toml can fail: each case writes one forbidden
import into a copy of the tree and runs `lint-imports` on the copy. A second test
checks that every package and root module of the layers is named by the games'
contracts, so a new module cannot slip between them."""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
LINT_IMPORTS = Path(sys.executable).with_name("lint-imports")


def _contracts() -> list[dict]:
    with (ROOT / "pyproject.toml").open("rb") as file:
        return tomllib.load(file)["tool"]["importlinter"]["contracts"]


def _copy_tree(tmp_path: Path) -> Path:
    skip = shutil.ignore_patterns("__pycache__")
    shutil.copytree(ROOT / "src", tmp_path / "noitu", ignore=skip)
    shutil.copytree(ROOT / "bench", tmp_path / "bench", ignore=skip)
    shutil.copy(ROOT / "pyproject.toml", tmp_path / "pyproject.toml")
    return tmp_path


def _lint(tree: Path) -> str:
    done = subprocess.run(
        [str(LINT_IMPORTS), "--no-cache"], cwd=tree, capture_output=True, text=True,
        env={"PATH": "/usr/bin:/bin", "PYTHONPATH": str(tree)}, check=False,
    )
    return done.stdout + done.stderr


def _broken(output: str) -> set[str]:
    verdicts = (re.fullmatch(r"(.+) BROKEN( \(.*\))?", line) for line in output.splitlines())
    return {verdict.group(1) for verdict in verdicts if verdict}


# (file in the copy, the line added to it, the contract that must break)
VIOLATIONS = [
    ("noitu/domain/noitu/game.py", "from noitu.domain.arena import board",
     "Nối từ does not import the arena"),
    ("noitu/adapters/noitu/memory_repository.py", "from noitu.application.arena import limits",
     "Nối từ does not import the arena"),
    ("noitu/adapters/http/arena/bots.py", "from noitu.application.noitu import view",
     "The arena does not import nối từ"),
    ("noitu/adapters/arena/files.py", "from noitu.adapters.noitu.redis import repository",
     "The arena does not import nối từ"),
    ("noitu/adapters/http/errors.py", "from noitu.adapters.http.arena import ws",
     "The shared modules import neither game"),
    ("noitu/adapters/redis/client.py", "from noitu.adapters.noitu.redis import scripts",
     "The shared modules import neither game"),
    ("noitu/domain/noitu/game.py", "from noitu.bench import positions",
     "The bench is the top layer: nothing imports it"),
    ("noitu/adapters/http/noitu/api.py", "import noitu.bench.machine",
     "The bench is the top layer: nothing imports it"),
    ("noitu/application/noitu/view.py", "from noitu.adapters import system_clock",
     "Layers: entrypoints > adapters > application > domain"),
    ("noitu/domain/arena/board.py", "import time",
     "The domain imports no framework, no I/O and no clock"),
    ("noitu/application/arena/judge.py", "import litestar",
     "The application imports no framework, no I/O and no clock"),
]


def test_the_tree_as_it_is_keeps_every_contract(tmp_path: Path) -> None:
    output = _lint(_copy_tree(tmp_path))
    assert f"Contracts: {len(_contracts())} kept, 0 broken." in output, output


@pytest.mark.parametrize(("path", "line", "contract"), VIOLATIONS)
def test_a_forbidden_import_breaks_its_contract(
    tmp_path: Path, path: str, line: str, contract: str
) -> None:
    tree = _copy_tree(tmp_path)
    target = tree / path
    target.write_text(target.read_text(encoding="utf-8") + f"\n{line}  # noqa\n", encoding="utf-8")
    # A violation may break more than its own contract (an indirect import through it),
    # never less.
    assert contract in _broken(_lint(tree))


def test_every_contract_has_a_case_that_breaks_it() -> None:
    assert {contract["name"] for contract in _contracts()} == {case[2] for case in VIOLATIONS}


def _named(module: str, names: set[str]) -> bool:
    return any(module == name or module.startswith(name + ".") for name in names)


def test_every_module_of_the_layers_belongs_to_a_game_or_is_shared() -> None:
    by_name = {contract["name"]: contract for contract in _contracts()}
    named = set(by_name["Nối từ does not import the arena"]["source_modules"])
    named |= set(by_name["The arena does not import nối từ"]["source_modules"])
    named |= set(by_name["The shared modules import neither game"]["source_modules"])
    # One level below each layer, and inside noitu.adapters.http (where the shared HTTP
    # modules sit beside both games' packages).
    folders = [ROOT / "src" / layer for layer in ("domain", "application", "adapters")]
    folders.append(ROOT / "src" / "adapters" / "http")
    unnamed = []
    for folder in folders:
        package = "noitu." + ".".join(folder.relative_to(ROOT / "src").parts)
        for entry in sorted(folder.iterdir()):
            if entry.name == "__init__.py" or entry.name.startswith((".", "__pycache__")):
                continue
            if entry.is_dir() and not (entry / "__init__.py").exists():
                continue
            if entry.is_file() and entry.suffix != ".py":
                continue
            module = f"{package}.{re.sub(r'[.]py$', '', entry.name)}"
            if module != "noitu.adapters.http" and not _named(module, named):
                unnamed.append(module)
    assert not unnamed, (
        "name these modules in pyproject.toml's import contracts, as nối từ, arena or "
        f"shared: {unnamed}"
    )


GAMES = ("Nối từ does not import the arena", "The arena does not import nối từ")


def test_each_game_is_named_by_its_folders_only() -> None:
    # A game's module goes in one of its folders; none is named on its own, at a root
    # that the games share.
    by_name = {contract["name"]: contract for contract in _contracts()}
    loose = [
        module
        for game in GAMES
        for module in by_name[game]["source_modules"]
        if not (ROOT / "src" / Path(*module.split(".")[1:]) / "__init__.py").is_file()
    ]
    assert not loose, f"name each game by its packages, not modules: {loose}"
