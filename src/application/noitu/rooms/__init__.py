"""Group rooms of nối từ (spec B10): people against people on one room card."""
