"""Nối từ's adapters: its stores (memory and Redis), the dictionary file, the game-link
signer, the score reporters, the words players bring, and the Telegram side. The
adapters both games use sit at the root of `noitu.adapters`."""
