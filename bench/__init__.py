"""The benchmarks and the word bots' self-play tournament (`noitu bench ...`).

Installed as `noitu.bench` (pyproject maps this folder), so the installed `noitu`
command runs them; nothing in `noitu.entrypoints` depends on this package but the CLI,
which imports `noitu.bench.cli` when it builds its parser (and `noitu serve`, which
imports `server_cpu` only when NOITU_BENCH_CPU=1).

- `cli`: the `noitu bench engine|memory|http|bots` sub-commands (light: every command
  imports its module when it runs).
- `machine`: the machine, /proc readings, statistics, the budget and the table rows.
- `positions`: the policy that makes long games, and positions from real games.
- `engine`: dictionary load, move validation and bot replies, timed.
- `memory`: the resident memory of a server holding 2,000 live games.
- `http_load` and `http_players`: a real `noitu serve` under a load generator;
  `server_cpu`: the server's CPU per route, counted inside the server (benchmark only).
- `bots`: the word bots' self-play tournament and its statistics.
- `player_models`: models of a person against each level (`noitu bench bots --players`).
- `cluster`: the arena's several-machine processes on one machine (`noitu bench cluster`).
- `arena_cluster`: B9's capacity and start latency on such a cluster (`noitu bench
  arena-cluster`); `arena_rooms` (a script) is its embedded counterpart.
- `arena_ladder_reads` (a script): the ladder's read routes on a ladder of 50,000
  results and 5,000 ranked bots seeded directly, and `/healthz` while bots' pages are
  read (issue 30).

`plot.py`, `redis_cost.py` and `word_additions.py` (the words the players bring: the
cost of an addition, moves with 10,000 added words, the reach across instances) are
scripts (run them with the venv's python).
"""
