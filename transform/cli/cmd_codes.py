"""`instancetype-upgrade codes [CODE...]`: the finding codes, from the registry (transform/model/codes.py)."""

from __future__ import annotations

import json
from typing import Any

import click

from transform.model import codes as registry

CODES_HELP = """\b
Exit codes:
  0    listed
  2    usage error (a CODE that names no code, prefix or API family)
"""


@click.command(
    epilog=CODES_HELP,
    short_help="List the finding codes; explain one.",
    help="""List every finding code with its default severity and summary; with CODE, explain it (a prefix,
    `webhook.`, or an API family, `export`, lists the codes it names). Every code is in docs/codes.md;
    --select, --ignore and inline `ignore=` comments take the same names.""",
)
@click.argument("selectors", metavar="[CODE]...", nargs=-1)
@click.option(
    "--format",
    "fmt",
    type=click.Choice(("text", "json"), case_sensitive=False),
    default="text",
    show_default=True,
    help="json: a list of {code, severity, severities, summary, doc, family} for tools.",
)
def codes(selectors: tuple[str, ...], fmt: str) -> None:
    chosen: list[registry.Code] = []
    for selector in selectors:
        why = registry.unknown_selector(selector)
        if why is not None:
            raise click.BadParameter(why, param_hint="CODE")
        chosen += [c for c in registry.matching(selector) if c not in chosen]
    shown = chosen if selectors else sorted(registry.CODES.values())
    if fmt.lower() == "json":
        click.echo(json.dumps([_record(c) for c in shown], indent=2))
    elif len(selectors) == 1 and selectors[0] in registry.CODES:
        click.echo(explain(registry.CODES[selectors[0]]))
    else:
        width = max(len(c.code) for c in shown)
        for c in shown:
            click.echo(f"{c.code:<{width}}  {c.severity:<7}  {c.summary}")


def _record(c: registry.Code) -> dict[str, Any]:
    return {
        "code": c.code,
        "severity": c.severity,
        "severities": list(c.severities),
        "summary": c.summary,
        "doc": c.doc,
        "family": registry.family_of(c.code),
    }


def explain(c: registry.Code) -> str:
    """One code, as `codes CODE` shows it."""
    lines = [f"{c.code}: {c.summary}", f"  severity: {' or '.join(c.severities)} (as raised; --strict makes "]
    lines[-1] += "a warning an error)" if "warning" in c.severities else "no difference)"
    family = registry.family_of(c.code)
    if family is not None:
        lines.append(f"  family: {family} (--select {family} also picks every finding about an object of it)")
    lines.append(f"  documented in: {c.doc}, and docs/codes.md#{registry.anchor(c.code)}")
    return "\n".join(lines)
