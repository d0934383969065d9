"""Redis adapters (NOITU_STORE=redis): the sessions, the start limit and the Telegram
update de-duplication, shared by every server instance that uses one Redis.

- `client`: the client and the outage bookkeeping (every operation that cannot reach
  Redis raises the application's `Busy`, HTTP 503, within about a second);
- `scripts`: the Lua scripts that make each write one atomic step;
- `codec`: a session as compact JSON;
- `repository`, `limiter`, `update_memory`: the three ports.
"""
