"""The words the players bring (spec B11): the use cases around the additions store."""
