"""Every `noitu` command starts by importing the CLI and most build the container: what
those two imports pull in is what a bot author waits for at each `noitu arena match`
and what every test that runs a `noitu` process pays. The web framework, the
migrations tool and the server's app belong to the commands that serve or migrate;
checked in a fresh interpreter, since this one has imported everything already."""

from __future__ import annotations

import json
import subprocess
import sys

#: Imported only by the commands that need them (`serve`, a migration, the worker).
SERVER_ONLY = ("litestar", "alembic", "uvicorn", "noitu.entrypoints.app")

PROBE = """
import json, sys
def loaded():
    return sorted(sys.modules)
import noitu.entrypoints.cli
after_cli = loaded()
import noitu.entrypoints.container
print(json.dumps({"cli": after_cli, "container": loaded()}))
"""


def _top_level(modules: list[str], names: tuple[str, ...]) -> list[str]:
    return sorted(
        name for name in names if any(m == name or m.startswith(name + ".") for m in modules)
    )


def test_the_cli_and_the_container_import_no_server_parts():
    done = subprocess.run(
        [sys.executable, "-c", PROBE], capture_output=True, text=True, timeout=120, check=True
    )
    loaded = json.loads(done.stdout)
    # The parser alone: not even the container (nor SQLAlchemy, which it names).
    assert _top_level(loaded["cli"], (*SERVER_ONLY, "sqlalchemy", "noitu.entrypoints.container")) == []
    # The container, as `noitu token` or `noitu arena match` build it.
    assert _top_level(loaded["container"], SERVER_ONLY) == []
