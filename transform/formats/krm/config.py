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
CODE_OPTIONS = ("select", "ignore")  # finding codes, prefixes or API families, comma-separated (as --select)
OPTION_KEYS = (*BOOL_OPTIONS, "target-kubevirt", "target-cdi", *CODE_OPTIONS)


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
        if key in ("target-kubevirt", "target-cdi") and isinstance(value, float):
            found.append(  # as the configuration file refuses a TOML number
                error(
                    "krm.config",
                    f'{key}: {value!r} is a YAML number, which drops zeros (1.10 reads as 1.1): quote it: {key}: "X.Y"',
                    path,
                )
            )
        elif key in BOOL_OPTIONS:
            b = _bool(value)
            if b is None:
                found.append(error("krm.config", f'{key}: expected "true" or "false", got {value!r}', path))
            else:
                values[BOOL_OPTIONS[key]] = b
        elif key in ("target-kubevirt", "target-cdi"):
            # lazy: start-up: the release tables only when the ResourceList holds a candidate
            from transform.kubevirt import apis, releases

            kubevirt = key == "target-kubevirt"
            field, parse = ("target", releases.parse_target) if kubevirt else ("target_cdi", apis.parse_cdi_target)
            try:
                values[field], note = parse(str(value))
            except ValueError as exc:
                found.append(error("krm.config", f"{key}: {exc}", path))
            else:
                if note:
                    found.append(info("krm.config", note, path))
        elif key in CODE_OPTIONS:
            codes, bad = _codes(key, value, path)
            values[key] = codes
            found += bad
        else:
            found.append(
                warning("krm.config", f"unknown option {key!r} ignored (known: {', '.join(OPTION_KEYS)})", path)
            )
    return replace(base, **values), found


def _codes(key: str, value: Any, path: tuple[Any, ...]) -> tuple[tuple[str, ...], list[Finding]]:
    """`select`/`ignore`: a comma-separated string (a ConfigMap's data) or a list of strings; a value that
    names no code, prefix or family is an error result (the run goes on without it)."""
    # lazy: the code registry only for a functionConfig that selects or ignores codes
    from transform.model.codes import unknown_selector

    items = value if isinstance(value, list) else [value]
    if not all(isinstance(v, str) for v in items):
        return (), [error("krm.config", f"{key}: expected codes separated by commas, got {value!r}", path)]
    codes = [c.strip() for v in items for c in v.split(",") if c.strip()]
    bad = [(c, why) for c in codes if (why := unknown_selector(c)) is not None]
    found = [error("krm.config", f"{key}: {why}", path) for _, why in bad]
    return tuple(c for c in codes if c not in dict(bad)), found
