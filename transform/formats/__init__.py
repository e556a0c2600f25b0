"""Container formats: every way the tool's users keep manifests other than plain YAML streams (Helm charts and
release records, kustomize trees, Flux/Argo CD inline values, KRM ResourceLists), one package each, below
the engine, behind one contract (`base.Format`), listed in `registry.FORMATS`.

A new format is one module or package here and its line in `registry.FORMATS`: the engine asks `detect` of
every input it reads, runs the formats' `kinds` with convert's rules and gathers their `facts` in the index
pass (tests/formats/test_toy_format.py). This package itself stays light: the engine's name test runs on
every file, before anything is parsed.
"""

from __future__ import annotations

from transform.formats.kustomize.kustomization import is_kustomization_file


def whole_file(name: str) -> bool:
    """Does a format read every document of this file, found by its name alone (with no KubeVirt marker)?
    kustomize finds its kustomizations so: they may carry no apiVersion and kind."""
    return is_kustomization_file(name)
