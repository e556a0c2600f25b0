"""A Helm chart's templates and values files, read and upgraded as text (never parsed as YAML objects); also a
template outside any chart (`{{ }}` or `{% %}`, Go or Jinja) that does not read as YAML.

`roles` says which files are the chart's templates and values, `template` reads and upgrades their literal
apiVersion lines (`lines`, `flow`, `flowmaps`), `ignores` places inline ignores by line. `FORMAT` is the
format as the engine asks it (transform.formats.base.Format).
"""
