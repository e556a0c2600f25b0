"""A Helm chart's templates and values files, read and upgraded as text (never parsed as YAML objects)."""
