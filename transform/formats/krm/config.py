"""The KRM function's options: `functionConfig` (a ConfigMap's `data`, kpt's `key=value` arguments,
or a custom kind's `spec`) turned into `Settings`, with a finding for each bad or unknown key."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from transform.model.findings import Finding, error, info, warning
from transform.model.settings import Settings

BOOL_OPTIONS = {
    "rename": "rename",
    "strict": "strict",
    "modernize": "modernize",
    "modernize-revisions": "modernize_revisions",
    "drop-server-fields": "drop_server_fields",
}
OPTION_KEYS = (*BOOL_OPTIONS, "target-kubevirt", "target-cdi")


def _bool(value: Any) -> bool | None:
    if isinstance(value, bool):
        return value
    s = str(value).strip().lower()
    if s in ("true", "yes", "on", "1"):
        return True
    if s in ("false", "no", "off", "0", ""):
        return False
    return None


def options(function_config: Any, base: Settings) -> tuple[Settings, list[Finding]]:
    """Settings from a ConfigMap's `data` (kpt `key=value` args) or a custom kind's `spec`."""
    if not isinstance(function_config, dict) or not function_config:
        return base, []
    if function_config.get("kind") == "ConfigMap":
        conf, where = function_config.get("data"), "data"
    else:
        conf, where = function_config.get("spec"), "spec"
    if conf is None:
        return base, []
    if not isinstance(conf, dict):
        return base, [error("krm.config", f"functionConfig.{where} must be a mapping", ("functionConfig", where))]
    found: list[Finding] = []
    values: dict[str, Any] = {}
    for key, value in conf.items():
        path = ("functionConfig", where, key)
        if key in BOOL_OPTIONS:
            b = _bool(value)
            if b is None:
                found.append(error("krm.config", f'{key}: expected "true" or "false", got {value!r}', path))
            else:
                values[BOOL_OPTIONS[key]] = b
        elif key == "target-kubevirt":
            # lazy: start-up: the parsing stack only when the ResourceList holds a candidate
            from transform.kubevirt import releases

            try:
                values["target"], note = releases.parse_target(str(value))
            except ValueError as exc:
                found.append(error("krm.config", f"{key}: {exc}", path))
            else:
                if note:
                    found.append(info("krm.config", note, path))
        elif key == "target-cdi":
            # lazy: start-up: the parsing stack only when the ResourceList holds a candidate
            from transform.kubevirt import apis

            try:
                values["target_cdi"], note = apis.parse_cdi_target(str(value))
            except ValueError as exc:
                found.append(error("krm.config", f"{key}: {exc}", path))
            else:
                if note:
                    found.append(info("krm.config", note, path))
        else:
            found.append(
                warning("krm.config", f"unknown option {key!r} ignored (known: {', '.join(OPTION_KEYS)})", path)
            )
    return replace(base, **values), found
