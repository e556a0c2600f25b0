"""KubeVirt facts: API groups and versions, kinds, the release table, field trees, quantities. No I/O, no YAML."""
