"""Objects inside objects: the one walk over a document that every pass uses.

kubevirt-deprecated-apis.md §4: a `kind: ...List` carries whole objects in `items`, an OpenShift
`Template` in `objects`, a virt-template `VirtualMachineTemplate` one VirtualMachine (a RawExtension
with its own apiVersion) in `spec.virtualMachine`. Each is an object in its own right, with its own
apiVersion, upgraded and reported as if it stood alone. (VM `spec.dataVolumeTemplates[]` and pool
templates carry no whole objects and are handled by the rules of their carrier.)
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from transform.model.findings import Finding

Path = tuple[Any, ...]

# (carrier apiVersion group, carrier kind) -> path of the embedded object or list of objects
OPENSHIFT_TEMPLATE_GROUPS = ("template.openshift.io", "")  # "" : the legacy `apiVersion: v1` Template
VM_TEMPLATE_GROUP = "template.kubevirt.io"


def is_list(obj: dict[str, Any]) -> bool:
    kind = obj.get("kind")
    return isinstance(obj.get("items"), list) and isinstance(kind, str) and kind.endswith("List")


def _group(obj: dict[str, Any]) -> str | None:
    api = obj.get("apiVersion")
    return api.rpartition("/")[0] if isinstance(api, str) else None


def embedded(obj: dict[str, Any]) -> Iterator[tuple[Path, dict[str, Any]]]:
    """The whole objects `obj` carries directly, with their paths relative to `obj` (Lists excepted)."""
    kind = obj.get("kind")
    if kind == "Template" and _group(obj) in OPENSHIFT_TEMPLATE_GROUPS and isinstance(obj.get("objects"), list):
        for i, item in enumerate(obj["objects"]):
            if isinstance(item, dict):
                yield ("objects", i), item
    elif kind == "VirtualMachineTemplate" and _group(obj) == VM_TEMPLATE_GROUP:
        spec = obj.get("spec")
        vm = spec.get("virtualMachine") if isinstance(spec, dict) else None
        if isinstance(vm, dict):
            yield ("spec", "virtualMachine"), vm


def walk(doc: Any, path: Path = ()) -> Iterator[tuple[Path, dict[str, Any]]]:
    """Every object of a document, outermost first: List items instead of the List itself, then each
    object followed by the objects it embeds (recursively). Non-mappings yield nothing."""
    if not isinstance(doc, dict):
        return
    if is_list(doc):
        for i, item in enumerate(doc["items"]):
            yield from walk(item, path + ("items", i))
        return
    yield path, doc
    for sub, inner in embedded(doc):
        yield from walk(inner, path + sub)


# OpenShift Template parameters as `oc process` finds them (openshift/library-go template processing):
# `${NAME}` substitutes the parameter's string, `${{NAME}}` its value as JSON (any type).
_PARAMETER = re.compile(r"\$\{\{?[A-Za-z0-9_]+\}?\}")
_WHOLE_PARAMETER = re.compile(r"\$\{[A-Za-z0-9_]+\}|\$\{\{[A-Za-z0-9_]+\}\}")
# what a substituted value cannot change: the field itself is unknown, missing or repeated
_NOT_SUBSTITUTED = ("schema.unknown-field", "schema.required", "schema.duplicate")


def in_template(path: Path) -> bool:
    """Is the object at `path` (from `walk`) inside an OpenShift Template's `objects[]`?"""
    return any(path[i] == "objects" and isinstance(path[i + 1], int) for i in range(len(path) - 1))


def substituted(found: list[Finding], obj: Any) -> list[Finding]:
    """The findings of an object of a Template's `objects[]` that stay once `oc process` has substituted the
    parameters: a value that is a whole parameter reference (`${NAME}`, `${{CPU_CORES}}`) satisfies any
    type and pattern; a string holding one (`vm-${NAME}`) any pattern (it stays a string)."""
    out = []
    for f in found:
        value: Any = obj
        for part in f.path:
            if isinstance(value, dict) and part in value:
                value = value[part]
            elif isinstance(value, list) and isinstance(part, int) and 0 <= part < len(value):
                value = value[part]
            else:
                value = None
                break
        if isinstance(value, str) and f.code not in _NOT_SUBSTITUTED:
            if _WHOLE_PARAMETER.fullmatch(value) or (f.code != "schema.type" and _PARAMETER.search(value)):
                continue
        # a label, annotation or finalizer error is at the API server's path (`metadata.labels`), the bad
        # value in its message (`Invalid value: "vm-${NAME}": ...`)
        if isinstance(value, (dict, list)) and f.code.startswith("metadata.") and _PARAMETER.search(f.message):
            continue
        out.append(f)
    return out
