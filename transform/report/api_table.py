"""The table (docs/upgrades.md) of every KubeVirt and CDI group/version, rendered from the one table
(kubevirt/apis.py)."""

from __future__ import annotations

from transform.kubevirt import apis
from transform.kubevirt.apis import Release


def _rel(release: Release | None) -> str:
    return f"{release[0]}.{release[1]}" if release else "–"


def markdown_table() -> str:
    """The table (docs/upgrades.md) of every group/version.

    tests/kubevirt/test_apis.py keeps them equal; regenerate with `python -m transform.report.api_table`."""
    lines = [
        "| group/version | kinds | served from | deprecated | removed (or unserved) "
        "| fix writes (newest the target serves) |",
        "| --- | --- | --- | --- | --- | --- |",
    ]
    for api in apis.TABLE:
        kinds = ", ".join(api.kinds) or "all"
        later_rows = [r.api_version for r in apis.later(api)]
        if api.legacy:
            action = "not upgradable: reported"
        elif not api.upgrade:
            action = "kept (" + api.note + ")"
        elif later_rows and api.family == "instancetype":
            action = f"`{later_rows[-1]}` (whatever the target: old payloads are unreadable from 1.7)"
        elif later_rows:
            action = " or ".join(f"`{v}`" for v in reversed(later_rows))
        else:
            action = "current"
        removed = _rel(api.removed) if api.removed else (f"{_rel(api.unserved)} (unserved)" if api.unserved else "–")
        product = f" ({api.product})" if api.product == apis.CDI else ""
        lines.append(
            f"| `{api.api_version}`{product} | {kinds} | {_rel(api.served)} | {_rel(api.deprecated)} "
            f"| {removed} | {action} |"
        )
    return "\n".join(lines) + "\n"


if __name__ == "__main__":  # regenerate the table of docs/upgrades.md
    print(markdown_table(), end="")
