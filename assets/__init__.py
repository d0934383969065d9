"""Files shipped with the game: the dictionary and the web page."""
