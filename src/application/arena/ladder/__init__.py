"""The ladder's use cases (spec B8), one per module, over the small ports of
`ports.py`; the rules themselves are the domain's (`noitu.domain.arena.ladder`).

`RankBot`, `UnrankBot`, `ResumeBot` (entry and suspension), `RecordLadderResult` (a
finished ladder match), `SchedulePairing` (the next pairing, under the one lease),
`RebuildLadder` (the whole history again), `ShowLadder` (the table), `ListLadder` (the
table with the bots' names, for the page).
"""
