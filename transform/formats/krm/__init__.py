"""The KRM function's ResourceList: its items cut at the byte level, its annotations, its functionConfig."""
