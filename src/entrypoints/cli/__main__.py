"""`python -m noitu.entrypoints.cli …` is `noitu …`."""

from noitu.entrypoints.cli import main

main()
