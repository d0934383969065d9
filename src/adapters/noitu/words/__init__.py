"""The additions store of the words the players bring (spec B11): memory, SQLite, Redis."""
