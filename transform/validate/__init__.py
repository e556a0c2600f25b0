"""Judge plain documents: bundled schemas and KubeVirt's webhook rules. Pure."""
