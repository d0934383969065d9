"""Nối từ over HTTP: the game's API and page (`api`), its group rooms (`rooms`) and the
words players bring (`words`)."""
