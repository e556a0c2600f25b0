"""Render findings and summaries: text, JSON, JUnit, SARIF, KRM results, scan tables."""
