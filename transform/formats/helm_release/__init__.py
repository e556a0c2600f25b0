"""Helm's release records (a Secret or ConfigMap per revision): the manifest inside, upgraded, re-encoded."""
