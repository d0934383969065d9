"""Installing from a built wheel carries the dictionary and the page."""

from __future__ import annotations

import subprocess
import sys
import zipfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_the_wheel_carries_the_data_and_the_page(tmp_path):
    subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "--quiet", "--no-deps", "--no-build-isolation",
         "-w", str(tmp_path), str(ROOT)],
        check=True, timeout=300, capture_output=True,
    )
    wheel = next(tmp_path.glob("noitu-*.whl"))
    names = set(zipfile.ZipFile(wheel).namelist())
    for name in ("dictionary.txt", "index.html", "app.js", "js/api.js", "app.css", "ATTRIBUTION.md",
                 "LICENSE.underthesea.txt", "builtin-bots/strong.cpp", "builtin-bots/random.py",
                 "bot-examples/minimal.py", "bot-examples/Main.java", "bot-examples/tactical.py",
                 "arena/index.html", "arena/app.js", "arena/arena.css", "arena/js/board.js",
                 "arena/bot-guide.html", "kernel/kernel.css", "kernel/js/api.js"):
        assert f"noitu/assets/{name}" in names
    assert "noitu/domain/noitu/lexicon.py" in names
    # The arena's migrations ship with the code (they run in-process at start-up).
    assert any(n.startswith("noitu/adapters/arena/sql/versions/") for n in names)
    # Every package of the source tree is in the wheel (pyproject lists them by hand).
    source = Path(__file__).resolve().parents[2] / "src"
    for init in source.rglob("__init__.py"):
        if "__pycache__" not in init.parts:
            assert f"noitu/{init.relative_to(source).as_posix()}" in names, init

    target = tmp_path / "site"
    subprocess.run(
        [sys.executable, "-m", "pip", "install", "--quiet", "--no-deps", "--target", str(target), str(wheel)],
        check=True, timeout=300, capture_output=True,
    )
    probe = (
        "from importlib import resources; "
        "text = (resources.files('noitu.assets') / 'dictionary.txt').read_text('utf-8'); "
        "print(text.count(chr(10)))"
    )
    lines = subprocess.run(
        [sys.executable, "-I", "-c", f"import sys; sys.path.insert(0, {str(target)!r}); {probe}"],
        check=True, timeout=60, capture_output=True, text=True, cwd=tmp_path,
    )
    assert int(lines.stdout) > 50_000
