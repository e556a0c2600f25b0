"""YAML/JSON text: bytes and line endings, parsing with positions, the edit planner, emitting new nodes."""
