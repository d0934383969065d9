"""The Redis link both games share: `client` holds the client and the outage bookkeeping
(every operation that cannot reach Redis raises the application's `Busy`, HTTP 503,
within about a second). Each game's Redis adapters sit in its own folder
(`noitu.adapters.noitu.redis`, `noitu.adapters.arena`)."""
