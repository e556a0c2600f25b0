"""Container formats: every way the tool's users keep manifests other than plain YAML streams (Helm charts and
release records, kustomize trees, KRM ResourceLists, ...), one module or package each, below the engine."""
