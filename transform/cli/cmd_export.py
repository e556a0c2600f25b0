"""`instancetype-upgrade export FORMAT [DIR]`: the API table and the bundled schemas for other tools.

Imports only click and the standard library at module level (start-up time): the facts are rendered
by transform.report.peers, imported when the command runs.
"""

from __future__ import annotations

import os
import sys
from typing import Any

import click

from transform.cli.exits import EXIT_OK, EXIT_USAGE, guard
from transform.cli.options import options, settings

FORMATS = ("mapkubeapis", "pluto", "kubeconform-schemas")  # == transform.report.peers.FORMATS (a test checks)


@click.command()
@click.argument("fmt", metavar="FORMAT", type=click.Choice(FORMATS))
@click.argument("directory", metavar="[DIR]", required=False, type=click.Path(file_okay=False))
@click.option(
    "-o", "--output-file", "output_file", type=click.Path(dir_okay=False), help="Write the file here (default: stdout)."
)
@options("target", "target_cdi", "debug")
def export(fmt: str, directory: str | None, output_file: str | None, **kw: Any) -> None:
    """Write the KubeVirt and CDI API facts for another tool, for --target-kubevirt/--target-cdi.

    \b
    mapkubeapis              a helm-mapkubeapis Map file (live Helm releases): every deprecated
                             or unserved KubeVirt/CDI kind to the newest version the targets serve
    pluto                    a pluto versions file (pluto detect-files -f FILE): every deprecated,
                             unserved or removed KubeVirt/CDI version, components kubevirt and cdi
    kubeconform-schemas DIR  the targets' CRD schemas as standalone JSON Schema in DIR, laid out as
                             {{.Group}}/{{.ResourceKind}}_{{.ResourceAPIVersion}}.json for
                             kubeconform -schema-location
    """
    c = settings(kw)
    if (fmt == "kubeconform-schemas") != (directory is not None):
        raise click.UsageError(
            "kubeconform-schemas writes a directory: give DIR" if directory is None else f"{fmt} takes no DIR"
        )
    sys.exit(guard(lambda: _run(fmt, directory, output_file, c.engine.target, c.engine.target_cdi), c.debug))


def _run(fmt: str, directory: str | None, output_file: str | None, kubevirt: Any, cdi: Any) -> int:
    # lazy: start-up: the table renderers and the schemas load only for this command
    from transform.kubevirt import apis
    from transform.report import peers

    targets = apis.Targets(kubevirt, cdi)
    if directory is not None:
        files = peers.kubeconform_schemas(targets)
        for rel, text in files.items():
            path = os.path.join(directory, *rel.split("/"))
            os.makedirs(os.path.dirname(path), exist_ok=True)
            with open(path, "w", encoding="utf-8", newline="\n") as fh:
                fh.write(text)
        click.echo(f"{len(files)} schemas written under {directory}", err=True)
        return EXIT_OK
    text = peers.mapkubeapis(targets) if fmt == "mapkubeapis" else peers.pluto(targets)
    if output_file is None:
        click.echo(text, nl=False)
        return EXIT_OK
    # lazy: start-up, as above
    from transform.pipeline import reportfile

    try:  # replaced atomically, never written through a link at the target (as --output-file reports)
        reportfile.replace(output_file, text.encode("utf-8"))
    except OSError as exc:
        click.echo(f"Error: {output_file}: {exc.strerror or exc}", err=True)
        return EXIT_USAGE
    return EXIT_OK
