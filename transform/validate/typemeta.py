"""`apiVersion` and `kind` as the API server reads them: case-insensitively.

apimachinery's JSON serializer finds an object's group, version and kind before anything else
(`runtime/serializer/json` `SimpleMetaFactory.Interpret`): `encoding/json.Unmarshal` into a struct of two
string fields, `apiVersion` and `kind`. encoding/json matches a key to a field case-insensitively (its
`foldName`: ASCII letters upper-cased, any other rune `ToUpper(ToLower(r))`), every matching key sets the
field in turn, and a value that is not a string (nor null, which leaves the field alone) fails the whole
call: "couldn't get version/kind; json parse error: json: cannot unmarshal number into Go struct field
.kind of type string". The JSON kubectl sends comes from Go maps, so its keys are sorted (bytewise:
`Kind` before `apiVersion` before `apiversion` before `kind`), and the last matching key is the one read.

So `Kind: 3` next to `kind: VirtualMachine` makes the object unreadable to the API server and to KubeVirt,
and `apiversion: v1` next to `apiVersion: kubevirt.io/v1` makes it read as `v1`."""

from __future__ import annotations

from typing import Any

from transform.kubevirt import apis
from transform.model.findings import Finding, error

_FIELDS = ("apiVersion", "kind")
_LENGTHS = {len(f) for f in _FIELDS}  # folding keeps a name's length in characters
_JSON_TYPE = {bool: "bool", int: "number", float: "number", dict: "object", list: "array"}


def _fold(name: str) -> str:
    return "".join(c.upper() if c < "\x80" else c.lower().upper() for c in name)


def _json_type(value: Any) -> str:
    return next((t for cls, t in _JSON_TYPE.items() if isinstance(value, cls)), "value")


def case_clash(obj: dict[str, Any]) -> Finding | None:
    """The error of an object whose apiVersion or kind the API server cannot read, or reads from another key
    than the one spelled exactly (None: no key differs from `apiVersion`/`kind` by case alone, or the object is
    none of KubeVirt's or CDI's: no apiVersion key names their groups, and it is no ControllerRevision)."""
    if all(k in _FIELDS or not isinstance(k, str) or len(k) not in _LENGTHS for k in obj):
        return None  # (no key that could fold to apiVersion or kind but the two themselves)
    api = _fold("apiVersion")
    if obj.get("kind") != "ControllerRevision" and not any(
        isinstance(k, str) and len(k) == 10 and _fold(k) == api and apis.group_of(v) is not None for k, v in obj.items()
    ):
        return None
    for name in _FIELDS:
        folded = _fold(name)
        others = [k for k in obj if isinstance(k, str) and len(k) == len(name) and k != name and _fold(k) == folded]
        if not others:
            continue
        keys = sorted([*others, name] if name in obj else others)  # the order of the JSON kubectl sends
        pair = f"`{others[0]}` and `{name}`" if name in obj else f"`{others[0]}`"
        bad = next((k for k in keys if obj[k] is not None and not isinstance(obj[k], str)), None)
        if bad is not None:
            return error(
                "input.type",
                f"{pair}: the API server reads apiVersion and kind case-insensitively (apimachinery's "
                f"SimpleMetaFactory, with encoding/json), so `{bad}` is read as {name}, and it is a "
                f"{_json_type(obj[bad])}: \"couldn't get version/kind; json parse error: json: cannot unmarshal "
                f'{_json_type(obj[bad])} into Go struct field .{name} of type string"; no API server or KubeVirt '
                f"component can read this object: remove `{bad}` or correct its spelling",
                (bad,),
            )
        read = [k for k in keys if obj[k] is not None]
        if name not in obj:
            return error(
                "input.type",
                f"`{others[0]}` is not `{name}`: kubectl and every client read `{name}` exactly and find none "
                f"(\"Object 'Kind' is missing\"), although the API server would match it case-insensitively: "
                f"write `{name}`",
                (others[0],),
            )
        if read and read[-1] != name and obj[read[-1]] != obj.get(name):
            return error(
                "input.type",
                f"{pair}: the API server reads apiVersion and kind case-insensitively (apimachinery's "
                f"SimpleMetaFactory, with encoding/json) and takes the last key of the JSON kubectl sends, "
                f"`{read[-1]}: {obj[read[-1]]}`, not `{name}: {obj.get(name)}`: remove `{read[-1]}` or correct "
                "its spelling",
                (read[-1],),
            )
    return None
