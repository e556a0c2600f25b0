"""YAML/JSON text, the only package that imports the YAML library (ruamel.yaml).

- `textio`: bytes <-> text (BOM, line endings, final newline), document spans, the byte pre-filter; no
  YAML library, so the start-up path of irrelevant files imports only this module.
- `resolver`: how Kubernetes (sigs.k8s.io/yaml) reads a plain scalar: a class-level resolver table.
- `pureparser`: ruamel.yaml's pure-Python parser set to libyaml's behaviour (the fallback).
- `values`: the JSON value of a node tree, as sigs.k8s.io/yaml makes it, within limits.
- `nodes`: parsing with positions (libyaml's C parser through ruamel.yaml.clib, else the pure one).
- `nodepath`: finding nodes by field path and their line:column.
- `emit`: new nodes in a file's own style (ruamel.yaml's emitter; JSON with the json module).
- `edits`: the planner turning `old -> new` into the smallest text edits.

Every module but `textio` loads ruamel.yaml: callers import them lazily (start-up speed).
"""
