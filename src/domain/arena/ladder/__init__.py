"""The ladder's rules (spec B8), pure: no I/O, no clock; randomness only through an
injected `random.Random`.

- `rating.py`: "Rating" — openskill's Plackett–Luce model, one match at a time.
- `results.py`: what is rated — a finished match's result; ABANDONED and the server's
  own failures are not rated, and their pairing is played again.
- `standings.py`: "Whole history" — each bot's rating and counts as a fold of the
  stored results in their order (end time, then match id).
- `table.py`: the table — ordered by μ − 3σ, ties by more games, then the older bot.
- `members.py`: "Entry" (3 ranked bots per owner, the built-ins from the start) and
  "Failures" (3 failed ladder matches in a row suspend a bot).
- `pairing.py`: a pairing — two matches, same seed, sides swapped.
- `placement.py`: a new bot's first pairings, against the built-ins in their order.
- `scheduling.py`: "Scheduling" — which bot plays next, and against whom.
"""
