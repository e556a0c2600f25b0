"""Values every layer shares: findings, run settings, helpers for plain (JSON-shaped) data. No I/O."""
