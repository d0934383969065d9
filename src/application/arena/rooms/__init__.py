"""The arena's rooms (spec B4, B5): a code, two seats, spectators, and the match played
in it. One use case per module; `host.RoomHost` is what they share (the live rooms, the
feed of snapshots, the match queue, the clock)."""
