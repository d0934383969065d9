"""Nối từ's Redis adapters (NOITU_STORE=redis): the sessions, the daily games, the group
rooms, the start limit and the Telegram update de-duplication, shared by every server
instance that uses one Redis. They reach Redis through the shared link,
`noitu.adapters.redis.client`.

- `scripts`: the Lua scripts that make each write one atomic step;
- `codec`, `room_codec`: a session and a group room as compact JSON;
- `lock`: a lock on one key across instances;
- `repository`, `daily`, `rooms`, `limiter`, `update_memory`: the ports.
"""
