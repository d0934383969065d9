"""The arena over HTTP: its static pages (`pages`), the bots (`bots`), the rooms
(`rooms`, their bodies in `room_bodies`, their WebSocket in `ws`), the configuration the
page reads (`config`) and the ladder (`ladder`)."""
