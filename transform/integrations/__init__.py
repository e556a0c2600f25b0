"""Other tools' formats: streamed tarballs and Velero backups, KRM ResourceLists."""
