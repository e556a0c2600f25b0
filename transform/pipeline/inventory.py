"""Inventory of KubeVirt instancetype material and what a target release cannot read.

`scan_items(items, target)` takes the inputs (`batch.Item`: files, tarball members, stdin) and returns
a `Scan`: objects per kind and version, ControllerRevisions per payload format and era, VMs and
the revisions they reference, dangling references, orphan revisions, object-name label
mismatches, and the findings that would break on the target. Only documents holding a KubeVirt
marker (transform.yamltext.textio pre-filter) are parsed. Rendering lives in transform.report.scan_tables.
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from transform.convert import helmrelease, helmvalues, payloads
from transform.kubevirt import apis, embedding, releases
from transform.model.findings import Finding, Severity, error
from transform.model.plain import as_map
from transform.model.policy import Stage, verdict
from transform.model.settings import CDI_DEFAULT_RELEASE, Settings
from transform.pipeline.api_inventory import BREAKING, ApiUse, judge
from transform.pipeline.batch import Item
from transform.pipeline.parts import MARKER
from transform.pipeline.scan_links import FLAVOR_VM_UNTIL, VM, Doc, Ref, Revision, analyse, revision, vm_refs
from transform.yamltext import textio

GROUPS = tuple(dict.fromkeys(r.group for r in apis.TABLE if r.family == "instancetype"))


@dataclass
class Scan:
    target: tuple[int, int]
    target_cdi: tuple[int, int] = CDI_DEFAULT_RELEASE
    files_seen: int = 0
    candidates: int = 0
    files: set[str] = field(default_factory=set)  # files with KubeVirt documents
    objects: list[Doc] = field(default_factory=list)
    revisions: list[Revision] = field(default_factory=list)
    vms: list[VM] = field(default_factory=list)
    other: list[Doc] = field(default_factory=list)
    breaking: list[Finding] = field(default_factory=list)
    undecided: list[Finding] = field(default_factory=list)  # what scan cannot tell (a templated apiVersion)
    errors: list[Finding] = field(default_factory=list)  # unreadable input (and skipped broken links: warnings)
    dangling: list[tuple[VM, Ref]] = field(default_factory=list)
    orphans: list[Revision] = field(default_factory=list)
    mismatches: list[tuple[VM, Ref, Revision, str]] = field(default_factory=list)  # (.., matcher name)
    apis: list[ApiUse] = field(default_factory=list)  # every object of a table group (transform.kubevirt.apis)
    suppressed: list[Finding] = field(default_factory=list)  # by the files' inline ignores (yamltext.ignores)

    @property
    def exit_code(self) -> int:
        if any(f.severity.value == "error" for f in self.errors):
            return 3
        return 1 if self.breaking else 0


def scan_items(
    items: Iterable[Item], target: tuple[int, int] = releases.LATEST, settings: Settings | None = None
) -> Scan:
    """Every input's documents judged on the target (a Helm chart's templates and values files, by
    `Item.role`, read as text: `convert.helmtemplate`)."""
    # lazy: start-up: the parsing stack is imported only once a file is a candidate
    from transform.pipeline.onefile import iter_documents
    from transform.yamltext.nodepath import locate
    from transform.yamltext.values import ParseError

    settings = settings or Settings(target=target)
    scan = Scan(target=target, target_cdi=settings.target_cdi)
    marked: dict[str, str] = {}  # the texts of files with inline ignores
    for item in items:
        name, data = item.name, item.data
        scan.files_seen += 1
        if not textio.is_candidate(data):
            continue
        scan.candidates += 1
        try:
            source = textio.decode(data)
        except textio.ReadError as exc:
            scan.errors.append(error("input.encoding", str(exc), file=name))
            continue
        if settings.inline_ignores and MARKER in source.text:
            marked[name] = source.text  # (a chart file's too: a malformed directive is said as `check` says it)
        if item.role:  # a template is no YAML: its directives are read by line
            _chart_file(scan, name, source.text, item.role, item.chart, settings.inline_ignores)
            continue
        problems: list[Finding] = []
        for pd in iter_documents(name, source, settings, problems):
            if pd.doc is None:
                continue
            line0 = pd.line0
            try:
                root = pd.doc.root
            except ParseError:  # JSON that the json module reads and YAML does not (`"key"\r:`): no lines
                root = None

            def where(path: tuple[Any, ...], line0: int = line0, root: Any = root) -> int:
                line, _col = locate(root, path)
                return line0 + (line or 1)

            if textio.HELM_NEEDLE in pd.text and (driver := helmrelease.driver(pd.doc.value)):
                _release(scan, name, pd.index, driver, pd.doc.value, where(("data", "release")), settings)
                continue
            for path, obj in embedding.walk(pd.doc.value):
                _visit(scan, obj, path, name, pd.index, where)
        scan.errors.extend(problems)
    links = analyse(scan.revisions, scan.vms, scan.target)
    scan.dangling, scan.orphans, scan.mismatches = links.dangling, links.orphans, links.mismatches
    scan.breaking += links.breaking
    if marked:
        # lazy: only a scan of a file that holds a directive composes its documents again
        from transform.yamltext.ignores import apply_files

        scan.errors, suppressed = apply_files(marked, scan.errors)
        scan.breaking, scan.suppressed = apply_files(marked, scan.breaking, warn=False)
        scan.suppressed += suppressed
    return scan


def _judge_text(
    obj: dict[str, Any], where: tuple[str, int, int, str, str], targets: apis.Targets, breaking: Any
) -> ApiUse | None:
    """`judge` for an object no release check reads (a template's, a release manifest's): an instancetype
    version the target does not serve breaks by the table's verdict alone."""
    use = judge(obj, where, targets, breaking)
    if use is not None and use.family == "instancetype" and use.status in BREAKING:
        use.breaks = True  # the target judge's fact, as for an object of a manifest (one code: target.api-version)
        said = [f for f in _on_target(obj, targets.kubevirt) if f.code == "target.api-version"]
        on = f"KubeVirt {targets.kubevirt[0]}.{targets.kubevirt[1]}"
        fallback = error("target.api-version", f"{on} does not serve {use.api_version}", ("apiVersion",))
        breaking(said or [fallback])
    return use


def _release(scan: Scan, name: str, doc: int, driver: str, value: Any, line: int, settings: Settings) -> None:
    """A Helm release record: every KubeVirt object of its manifest, judged as an object's; what would
    break makes `helm upgrade` fail after a restore (the deployed revision) or `helm rollback` (others)."""
    # lazy: start-up: the parsing stack is imported only once a file is a candidate
    from transform.pipeline.onefile import iter_documents

    ns, release, version, status = helmrelease.labels(value)
    label = f"Helm release {ns + '/' if ns else ''}{release} v{version if version is not None else '?'}"
    try:
        record = helmrelease.decode(driver, value["data"]["release"], settings.max_document_bytes)
    except helmrelease.ReleaseError as exc:
        scan.errors.append(error("helm.bad-release", f"{label}: {exc}", file=name, line=line, doc=doc))
        return
    targets = apis.Targets(scan.target, scan.target_cdi)
    deployed = status in ("deployed", "")
    source = textio.Source(record.manifest, False, "\n")
    for pd in iter_documents(label, source, settings, []):
        if pd.doc is None:
            continue
        for _path, obj in embedding.walk(pd.doc.value):
            meta = as_map(obj.get("metadata"))
            obj_name = f"{obj.get('kind')}/{meta.get('name') or ''}"

            def breaking(found: Iterable[Finding], obj_name: str = obj_name) -> None:
                how = "helm upgrade fails" if deployed else "helm rollback to it fails"
                scan.breaking.extend(
                    f.at(
                        file=name,
                        line=line,
                        doc=doc,
                        object=label,
                        path=(),
                        message=f"{obj_name} in its manifest: "
                        f"{f.message} ({how} after a restore; run fix or backup on the record)",
                    )
                    for f in found
                )

            use = _judge_text(obj, (name, doc, line, str(meta.get("name") or ""), ""), targets, breaking)
            if use is not None:
                use.chart = label
                scan.files.add(name)
                scan.apis.append(use)


def _chart_file(scan: Scan, name: str, text: str, role: str, chart: str, inline_ignores: bool) -> None:
    """A chart's template or values file: each literal KubeVirt apiVersion, judged as an object's; a
    directive's line in the file suppresses what it names, as `check` reads it (transform.convert.helmignores)."""
    # lazy: start-up: the template reader only for a scan that meets a chart
    from transform.formats.helm_chart import ignores as helmignores
    from transform.formats.helm_chart import roles as charts
    from transform.formats.helm_chart import template as helmtemplate

    targets = apis.Targets(scan.target, scan.target_cdi)
    context = charts.chart_context(chart) if chart and role != "values" and "{{" in text else None
    done = helmtemplate.upgrade(text, targets, values=role == "values", context=context)
    label = "chart " + os.path.basename(chart) if chart else "template"
    found: list[Finding] = []
    for line, api_version, kind in done.uses:
        obj = {"apiVersion": api_version, "kind": kind}

        def breaking(said: Iterable[Finding], line: int = line) -> None:
            found.extend(f.at(file=name, line=line, object=label) for f in said)

        use = _judge_text(obj, (name, 0, line, "", ""), targets, breaking)
        if use is not None:
            use.chart = label
            scan.files.add(name)
            scan.apis.append(use)
    rendered = {line for line, _, _ in done.uses}  # a templated apiVersion rendered: judged above, as an object's
    undecided: list[Finding] = []  # one whose value the chart does not set: scan cannot tell
    for f in done.findings:
        if f.code == "helm.templated-apiversion":
            undecided += [] if f.line in rendered else [f.at(file=name, object=label)]
        elif f.severity is not Severity.INFO:
            found.append(f.at(file=name, object=label))
    if inline_ignores:
        found, suppressed = helmignores.apply(text, found)
        undecided, quiet = helmignores.apply(text, undecided)
        scan.suppressed += suppressed + quiet
    scan.breaking += found
    scan.undecided += undecided


def _visit(scan: Scan, obj: Any, path: tuple[Any, ...], file: str, doc: int, where: Any) -> None:
    kind, api = obj.get("kind"), obj.get("apiVersion")
    if not isinstance(kind, str) or not isinstance(api, str):
        return
    meta = as_map(obj.get("metadata"))
    d = Doc(file, doc, where(path), kind, api, str(meta.get("name") or ""), str(meta.get("namespace") or ""))
    group = api.split("/")[0] if "/" in api else ""

    def breaking(found: Iterable[Finding]) -> None:
        for f in found:
            full = path + f.path
            scan.breaking.append(
                f.at(
                    file=file,
                    doc=doc,
                    line=where(full),
                    path=full,
                    object=f"{kind}/{d.namespace + '/' if d.namespace else ''}{d.name}",
                )
            )

    use = judge(obj, (file, doc, d.line, d.name, d.namespace), apis.Targets(scan.target, scan.target_cdi), breaking)
    if use is not None:
        scan.files.add(file)
        scan.apis.append(use)
    if group in GROUPS:
        scan.files.add(file)
        scan.objects.append(d)
        breaking(_on_target(obj, scan.target))
    elif kind == "ControllerRevision" and group == "apps" and payloads.is_ours(obj):
        scan.files.add(file)
        rev = revision(obj, d)
        scan.revisions.append(rev)
        if rev.error:
            breaking([error(rev.error_code, rev.error, rev.error_path)])
        found = _on_target(obj, scan.target)
        if (rev.era == releases.FLAVOR_WRAPPER_ERA and scan.target < FLAVOR_VM_UNTIL) or rev.error:
            # the flavor era reads its own wrappers; a payload no decoder reads is said once, by the decoder's code
            # (as the judge says it: "run fix" would be a second, wrong word for it, fix cannot upgrade it either)
            found = [f for f in found if f.code != "target.payload-format"]
        rev.readable = (
            not rev.error and rev.era != "flavor-object" and not any(f.code == "target.payload-format" for f in found)
        )
        breaking(found)
    elif kind == "VirtualMachine" and group == "kubevirt.io":
        scan.files.add(file)
        scan.vms.append(vm_refs(obj, d))
        breaking(_on_target(obj, scan.target))
    elif group.endswith("kubevirt.io"):
        scan.files.add(file)
        scan.other.append(d)
        if group in ("kubevirt.io", "pool.kubevirt.io"):  # a VMI, VMIRS or pool: the bindings the target refuses
            breaking(_on_target(obj, scan.target))
    elif kind in ("HelmRelease", "Application"):  # Flux's and Argo CD's inline Helm values, as fix reads them
        _values(scan, obj, path, d, where, breaking)


def _values(scan: Scan, obj: dict[str, Any], path: tuple[Any, ...], d: Doc, where: Any, breaking: Any) -> None:
    """The KubeVirt objects of a HelmRelease's or Application's inline Helm values, judged as a values file's."""
    targets = apis.Targets(scan.target, scan.target_cdi)
    for rel, api_version, kind in helmvalues.values_objects(obj):
        at = (d.file, d.doc, where(path + rel), d.name, d.namespace)

        def said(found: Iterable[Finding], rel: tuple[Any, ...] = rel) -> None:
            breaking(f.at(path=rel + f.path) for f in found)

        use = _judge_text({"apiVersion": api_version, "kind": kind}, at, targets, said)
        if use is not None:
            use.chart = f"{d.kind} {d.name} values"
            scan.files.add(d.file)
            scan.apis.append(use)


def _on_target(obj: dict[str, Any], target: tuple[int, int]) -> list[Finding]:
    """The judge's verdict on what breaks on the target (transform.model.policy, scan's stage)."""
    # lazy: the schemas load only once a document of ours is scanned
    from transform.validate.target import judge

    return verdict(judge(obj, target, own=False), Stage.SCAN)
