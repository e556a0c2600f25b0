"""Inventory of KubeVirt instancetype material and what a target release cannot read.

`scan_items(items, target)` takes (name, bytes) pairs (files, tarball members, stdin) and returns
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

from transform import convert
from transform.convert import helmrelease, payloads, revisions
from transform.kubevirt import apis, embedding, releases
from transform.model.findings import Finding, Severity, error, warning
from transform.model.plain import as_map
from transform.model.settings import CDI_DEFAULT_RELEASE, Settings
from transform.pipeline.api_inventory import BREAKING, ApiUse, judge
from transform.pipeline.parts import MARKER
from transform.yamltext import textio

GROUPS = tuple(dict.fromkeys(r.group for r in apis.TABLE if r.family == "instancetype"))
MATCHER_MISMATCH_SINCE = (1, 6)
FLAVOR_VM_UNTIL = releases.VM_FIELDS[("spec", "flavor")][1] or releases.LATEST


@dataclass
class Doc:
    file: str
    doc: int
    line: int
    kind: str
    api_version: str
    name: str
    namespace: str


@dataclass
class Ref:
    family: str  # instancetype | preference
    via: str  # spec | status | flavor
    revision: str


@dataclass
class VM:
    doc: Doc
    refs: list[Ref]
    matcher_names: dict[str, str]  # family -> spec.*.name


@dataclass
class Revision:
    doc: Doc
    era: str
    fmt: str  # decoded payload format (F1, v1alpha2, v1beta1, flavor/v1alpha1) or ""
    family: str
    object_name: str  # the object-name label, or what KubeVirt's upgrade would put there
    object_name_source: str  # label | payload | synthetic | ""
    owner_kind: str
    owner_name: str
    error: str = ""
    readable: bool = True  # the target can decode the payload


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


def _get(value: Any, *path: Any) -> Any:
    for p in path:
        if not isinstance(value, dict):
            return None
        value = value.get(p)
    return value


def _ns_match(a: str, b: str) -> bool:
    return a == b or not a or not b


def scan_items(
    items: Iterable[tuple[str, bytes]],
    target: tuple[int, int] = releases.LATEST,
    settings: Settings | None = None,
    roles: dict[str, tuple[str, str]] | None = None,
) -> Scan:
    """`roles`: the Helm chart templates and values files among the inputs (by name: role, chart), read
    as text (`convert.helmtemplate`)."""
    # lazy: start-up: the parsing stack is imported only once a file is a candidate
    from transform.pipeline.onefile import iter_documents
    from transform.yamltext.nodepath import locate
    from transform.yamltext.values import ParseError

    settings = settings or Settings(target=target)
    scan = Scan(target=target, target_cdi=settings.target_cdi)
    marked: dict[str, str] = {}  # the texts of files with inline ignores
    for name, data in items:
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
            marked[name] = source.text
        if roles and name in roles:
            _chart_file(scan, name, source.text, *roles[name])
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
    _analyse(scan)
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
        use.breaks = True
        verb = "does not serve" if use.status == "not-yet" else "no longer serves"
        fix = f": run fix to upgrade it to {use.replacement}" if use.replacement else ""
        on = f"KubeVirt {targets.kubevirt[0]}.{targets.kubevirt[1]}"
        breaking([error("instancetype.not-served", f"{on} {verb} {use.api_version}{fix}", ("apiVersion",))])
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


def _chart_file(scan: Scan, name: str, text: str, role: str, chart: str) -> None:
    """A chart's template or values file: each literal KubeVirt apiVersion, judged as an object's."""
    # lazy: start-up: the template reader only for a scan that meets a chart
    from transform.convert import helmtemplate

    targets = apis.Targets(scan.target, scan.target_cdi)
    done = helmtemplate.upgrade(text, targets, values=role == "values")
    label = "chart " + os.path.basename(chart)
    for line, api_version, kind in done.uses:
        obj = {"apiVersion": api_version, "kind": kind}

        def breaking(found: Iterable[Finding], line: int = line) -> None:
            scan.breaking.extend(f.at(file=name, line=line, object=label) for f in found)

        use = _judge_text(obj, (name, 0, line, "", ""), targets, breaking)
        if use is not None:
            use.chart = label
            scan.files.add(name)
            scan.apis.append(use)
    scan.breaking += [f.at(object=label) for f in done.findings if f.severity is not Severity.INFO]


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
        breaking(_object_target(obj, api, kind, scan.target))
    elif kind == "ControllerRevision" and group == "apps" and payloads.is_ours(obj):
        scan.files.add(file)
        rev = _revision(obj, d)
        scan.revisions.append(rev)
        if rev.error:
            breaking([error("revision.undecodable", rev.error, ("data",))])
        elif rev.era == "flavor-object":
            breaking(
                [
                    error(
                        "target.payload-format",
                        "a whole flavor.kubevirt.io object: no KubeVirt release decodes "
                        "it (no kind is registered for it)",
                        ("data",),
                    )
                ]
            )
        found = _on_target(obj, scan.target)
        if (
            rev.era == releases.FLAVOR_WRAPPER_ERA and scan.target < FLAVOR_VM_UNTIL
        ):  # the flavor era reads its own wrappers
            found = [f for f in found if f.code != "target.payload-format"]
        rev.readable = (
            not rev.error and rev.era != "flavor-object" and not any(f.code == "target.payload-format" for f in found)
        )
        # the payload-format finding already says the target cannot read an old payload version
        breaking(f for f in found if not (f.code == "target.api-version" and f.path[:1] == ("data",)))
    elif kind == "VirtualMachine" and group == "kubevirt.io":
        scan.files.add(file)
        scan.vms.append(_vm(obj, d))
        found = list(_on_target(obj, scan.target))
        if isinstance(_get(obj, "spec", "flavor"), dict) and scan.target >= FLAVOR_VM_UNTIL:
            found.append(
                error(
                    "target.vm-flavor",
                    f"spec.flavor is unknown to KubeVirt {releases.text(scan.target)} "
                    "(renamed spec.instancetype in v0.56): run fix to rename it",
                    ("spec", "flavor"),
                )
            )
        breaking(found)
    elif group.endswith("kubevirt.io"):
        scan.files.add(file)
        scan.other.append(d)


def _on_target(obj: dict[str, Any], target: tuple[int, int]) -> list[Finding]:
    # lazy: the schemas load only once a document of ours is scanned
    from transform.validate.target import target_findings

    return target_findings(obj, target)


def _object_target(obj: dict[str, Any], api: str, kind: str, target: tuple[int, int]) -> list[Finding]:
    if api.startswith("flavor.kubevirt.io/"):
        if releases.serves(target, api):
            return []
        return [
            error(
                "target.api-version",
                f"KubeVirt {releases.text(target)} does not serve {api} (renamed "
                "instancetype.kubevirt.io in v0.56): run fix to upgrade it",
                ("apiVersion",),
            )
        ]
    return _on_target(obj, target)


def _revision(obj: dict[str, Any], d: Doc) -> Revision:
    labels = _get(obj, "metadata", "labels")
    labels = labels if isinstance(labels, dict) else {}
    own = payloads.owner(obj) or {}
    data = obj.get("data")
    rev = Revision(d, "undecodable", "", "", "", "", str(own.get("kind") or ""), str(own.get("name") or ""))
    try:
        decoded = payloads.decode(data, convert.go_types())
    except revisions.RevisionError as exc:
        rev.error = exc.message
        return rev
    rev.fmt, rev.family = decoded.fmt, decoded.family
    label = labels.get(payloads.LABEL + "object-name")
    if isinstance(label, str):
        rev.object_name, rev.object_name_source = label, "label"
    rev.era = revisions.era(decoded, data, labels, d.name)
    if not rev.object_name and decoded.fmt == releases.WRAPPER:
        rev.object_name, rev.object_name_source = revisions.SYNTHETIC_NAME[decoded.family], "synthetic"
    elif not rev.object_name:
        rev.object_name = str(_get(decoded.obj, "metadata", "name") or "")
        rev.object_name_source = "payload" if rev.object_name else ""
    return rev


def _vm(obj: dict[str, Any], d: Doc) -> VM:
    refs: list[Ref] = []
    names: dict[str, str] = {}
    for family, matcher_key in (
        ("instancetype", "instancetype"),
        ("instancetype", "flavor"),
        ("preference", "preference"),
    ):
        matcher = _get(obj, "spec", matcher_key)
        if not isinstance(matcher, dict):
            continue
        if isinstance(matcher.get("name"), str):
            names[family] = matcher["name"]
        rev = matcher.get("revisionName")
        if isinstance(rev, str) and rev:
            refs.append(Ref(family, "flavor" if matcher_key == "flavor" else "spec", rev))
    for family in ("instancetype", "preference"):
        rev = _get(obj, "status", family + "Ref", "controllerRevisionRef", "name")
        if isinstance(rev, str) and rev and not any(r.revision == rev and r.family == family for r in refs):
            refs.append(Ref(family, "status", rev))
    return VM(d, refs, names)


def _analyse(scan: Scan) -> None:
    by_name: dict[str, list[Revision]] = {}
    for rev in scan.revisions:
        by_name.setdefault(rev.doc.name, []).append(rev)
    referenced: set[int] = set()
    for vm in scan.vms:
        for ref in vm.refs:
            hits = [r for r in by_name.get(ref.revision, []) if _ns_match(r.doc.namespace, vm.doc.namespace)]
            if not hits:
                scan.dangling.append((vm, ref))
                continue
            for rev in hits:
                referenced.add(id(rev))
                if ref.via == "flavor" and rev.era == releases.WRAPPER:
                    rev.era = releases.FLAVOR_WRAPPER_ERA  # an apiVersion "" wrapper a flavor matcher names
                want = vm.matcher_names.get(ref.family)
                if want and rev.object_name and rev.object_name != want:
                    scan.mismatches.append((vm, ref, rev, want))
                    if scan.target >= MATCHER_MISMATCH_SINCE and (rev.object_name_source == "label" or rev.readable):
                        scan.breaking.append(_mismatch_finding(vm, ref, rev, want, scan.target))
    vms = {(vm.doc.namespace, vm.doc.name) for vm in scan.vms}
    for rev in scan.revisions:
        if id(rev) in referenced or rev.owner_kind == "VirtualMachineSnapshot":
            continue
        if rev.owner_kind == "VirtualMachine" and any(
            n == rev.owner_name and _ns_match(ns, rev.doc.namespace) for ns, n in vms
        ):
            continue
        scan.orphans.append(rev)


def _mismatch_finding(vm: VM, ref: Ref, rev: Revision, want: str, target: tuple[int, int]) -> Finding:
    how = {
        "label": "its object-name label is",
        "payload": "KubeVirt's upgrade would label it",
        "synthetic": "KubeVirt's upgrade of a wrapper labels it",
    }.get(rev.object_name_source, "it names")
    return Finding(
        Severity.ERROR,
        "target.object-name-mismatch",
        f"VM {vm.doc.name} references {rev.doc.name} as its {ref.family} {want!r}, but {how} {rev.object_name!r}: "
        f"KubeVirt {releases.text(target)} ignores such a revision (1.6+) and the VM no longer uses its snapshot",
        file=rev.doc.file,
        line=rev.doc.line,
        doc=rev.doc.doc,
        object=f"ControllerRevision/{rev.doc.namespace + '/' if rev.doc.namespace else ''}{rev.doc.name}",
    )


def missing_revision(vm: str, family: str, revision: str, via: str) -> Finding:
    """A VM of a backup names a ControllerRevision the backup does not hold: its restore will fail."""
    return warning(
        "backup.missing-revision",
        f"VM {vm} references ControllerRevision {revision} (its {family}, {via}), which the backup does not "
        f'hold: after a restore KubeVirt reports "Failure to find {family}: controllerrevisions.apps '
        f'\\"{revision}\\" not found"; back up the VM\'s ControllerRevisions with it (a backup that selects '
        "VMs by label misses them: include controllerrevisions.apps)",
    )


def missing_in_backups(scan: Scan, archives: Iterable[str]) -> list[Finding]:
    """`missing_revision` for every dangling reference of a VM read from one of the tarballs `archives`."""
    prefixes = tuple(f"{a}:" for a in archives)
    out = []
    for vm, ref in scan.dangling:
        if not prefixes or not vm.doc.file.startswith(prefixes):
            continue
        name = f"{vm.doc.namespace + '/' if vm.doc.namespace else ''}{vm.doc.name}"
        via = {"spec": f"spec.{ref.family}.revisionName", "flavor": "spec.flavor.revisionName"}.get(
            ref.via, f"status.{ref.family}Ref.controllerRevisionRef.name"
        )
        found = missing_revision(name, ref.family, ref.revision, via)
        out.append(found.at(file=vm.doc.file, line=vm.doc.line, doc=vm.doc.doc, object=f"VirtualMachine/{name}"))
    return out
