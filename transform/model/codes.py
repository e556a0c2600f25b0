"""Every finding code: the one table (code -> severity, one-line summary, where it is documented).

A finding's code is defined here and nowhere else: `error()/warning()/info()` take a registered code
(tests/model/test_codes.py walks every call site in `transform/`; under the test suite an unregistered
code is an internal error, see `findings.CHECK_CODES`). `--select`/`--ignore` (command line, configuration,
KRM functionConfig) accept a registered code, a prefix of one (`schema`, `webhook.`) or an API family
name, and refuse anything else with a suggestion; `instancetype-upgrade codes` lists the table;
docs/codes.md is generated from it (scripts/gen_codes_doc.py).

Adding a code: one row in its group below (a new group: one line in `GROUPS`), then run
`python scripts/gen_codes_doc.py` to regenerate docs/codes.md. A code a family of APIs shares
(`export.upgraded`, `cdi.upgraded`, ...) is one row of `FAMILY_CODES`, spelled `f"{family}.suffix"` at
its call sites. Stdlib only, no imports: the start-up path reads it for --select/--ignore.
"""

from __future__ import annotations

from typing import NamedTuple

E, W, I = "error", "warning", "info"  # noqa: E741 (the three severities, as Severity values spell them)


class Code(NamedTuple):
    code: str
    severities: tuple[str, ...]  # the severities its call sites raise it with; the first is its default
    summary: str  # one line
    doc: str  # where it is documented: a page of docs/ (with an anchor), relative to the repository

    @property
    def severity(self) -> str:
        return self.severities[0]


# The API families (transform.kubevirt.apis, `Api.family`): each is a code prefix and a --select name.
# tests/model/test_codes.py holds this tuple to the API table.
FAMILIES = (
    "core",
    "instancetype",
    "snapshot",
    "export",
    "clone",
    "pool",
    "template",
    "migrations",
    "backup",
    "plugin",
    "cdi",
)

# Group prefix -> (title, the page that documents its codes).
GROUPS: dict[str, tuple[str, str]] = {
    "input": ("Reading the input", "docs/usage.md"),
    "output": ("Writing the output", "docs/usage.md"),
    "internal": ("Internal errors (a bug: please report it)", "docs/usage.md#exit-codes"),
    "inline-ignore": ("Inline ignore comments", "docs/usage.md#inline-ignores"),
    "upgraded": ("Upgrades", "docs/upgrades.md"),
    "schema": ("The CRD schema of the document's version", "docs/validation.md"),
    "metadata": ("ObjectMeta, as the API server checks it", "docs/validation.md"),
    "webhook": ("KubeVirt's admission webhooks", "docs/validation.md"),
    "target": ("What the target release cannot take", "docs/validation.md"),
    "revision": ("ControllerRevisions and their payloads", "docs/upgrades.md"),
    "decoder": ("KubeVirt's Go decoder on a standalone object", "docs/exactness.md"),
    "reference": ("References to renamed revisions (--rename)", "docs/upgrades.md"),
    "flavor": ("The flavor era (flavor.kubevirt.io)", "docs/upgrades.md"),
    "core": ("VirtualMachine spellings", "docs/modernize.md"),
    "modernize": ("fix --modernize", "docs/modernize.md"),
    "kustomize": ("Kustomize trees", "docs/integrations.md"),
    "krm": ("The KRM function", "docs/integrations.md#krm-function-instancetype-upgrade-krm"),
    "helm": ("Helm charts and release records", "docs/helm.md"),
    "backup": ("Velero backups", "docs/velero.md"),
}

_ROWS: tuple[tuple[str, str | tuple[str, ...], str], ...] = (
    # input
    ("input.alias", E, "a value to change is defined by an anchor that is used elsewhere too"),
    ("input.duplicate-key", E, "a mapping holds the same key twice"),
    ("input.encoding", E, "the text cannot be decoded (not UTF-8, or a byte-order mark it does not match)"),
    ("input.no-files", W, "no file matched the paths (and --include/--exclude)"),
    ("input.not-an-object", E, "a document is not a mapping, so not a Kubernetes object"),
    ("input.number", E, "a number JSON cannot hold (NaN, infinity)"),
    ("input.refused", E, "an input refused before it is read: not a regular file, too large, binary"),
    ("input.skipped", (W, E), "a path not read: missing, not a regular file, a link out of the tree, unlistable"),
    ("input.tarball", E, "a tar archive that cannot be read"),
    ("input.template", I, "a template outside a chart: only its literal apiVersion lines are upgraded"),
    ("input.templated-apiversion", W, "an OpenShift Template object's apiVersion is a parameter the tool cannot see"),
    ("input.too-large", (E, W), "a document or file over the size limits (docs/limits.md)"),
    ("input.type", E, "metadata is not a mapping"),
    ("input.unknown-kind", (E, W), "a kind no KubeVirt or CDI group has (the kind meant is named)"),
    ("input.unreadable", E, "a file that cannot be read"),
    ("input.wrong-group", E, "a KubeVirt kind under a group that never had it"),
    ("input.yaml", E, "the text is not YAML the tool can parse"),
    # output
    ("output.read-only", E, "a read-only file is not rewritten (--force rewrites it)"),
    ("output.write", E, "an upgraded file could not be written"),
    # internal
    ("internal.comments", E, "an edit would lose a comment: the file is left unchanged"),
    ("internal.krm", E, "the KRM function could not put its output together"),
    ("internal.plan", E, "the text edits could not be planned: the file is left unchanged"),
    ("internal.verify", E, "the upgraded text does not read back as intended: nothing is written"),
    # inline ignores
    ("inline-ignore.invalid", W, "an `# instancetype-upgrade: ignore=` comment that is malformed or covers nothing"),
    ("inline-ignore.unknown-code", W, "an `# instancetype-upgrade: ignore=` comment naming a code that does not exist"),
    # upgraded
    ("upgraded", I, "an instancetype.kubevirt.io object upgraded to the newest version the target serves"),
    # schema
    ("schema.api-version", E, "an apiVersion its group does not have"),
    ("schema.duplicate", E, "a list-map or set holds the same key twice"),
    ("schema.enum", E, "a value outside the schema's enum"),
    ("schema.format", E, "a string that does not match its schema format"),
    ("schema.maxItems", E, "a list longer than the schema allows"),
    ("schema.maxLength", E, "a string longer than the schema allows"),
    ("schema.maximum", E, "a number above the schema's maximum"),
    ("schema.minItems", E, "a list shorter than the schema allows"),
    ("schema.minLength", E, "a string shorter than the schema allows"),
    ("schema.minimum", E, "a number below the schema's minimum"),
    ("schema.pattern", E, "a string that does not match the schema's pattern"),
    ("schema.quantity", E, "a value that is not a Kubernetes quantity"),
    ("schema.required", E, "a required field is missing"),
    ("schema.rule", E, "a CEL validation rule (x-kubernetes-validations) fails"),
    ("schema.rules-unchecked", I, "CEL rules the tool cannot evaluate were not checked"),
    ("schema.scale", E, "an invalid value under the scale subresource's replicas path"),
    ("schema.type", E, "a value of the wrong type"),
    ("schema.unknown-field", (E, W), "a field the version's schema does not have (the API server drops it)"),
    # metadata
    ("metadata.annotation", E, "annotations the API server refuses (an invalid key, too long in total)"),
    ("metadata.finalizer", E, "a finalizer that is not a qualified name"),
    ("metadata.label", E, "a label key or value the API server refuses"),
    ("metadata.name", E, "a name (or generateName) the API server refuses, or none at all"),
    ("metadata.owner", E, "an ownerReference the API server refuses"),
    # webhook
    ("webhook.cpu-topology", E, "an unknown preferredCPUTopology"),
    ("webhook.deprecated-launch-security", W, "an instancetype's launchSecurity is deprecated"),
    ("webhook.deprecated-topology", W, "a deprecated preferredCPUTopology spelling"),
    ("webhook.discontinued-binding", (E, W), "a network interface binding the target no longer supports"),
    ("webhook.infer-failure-policy", E, "an invalid inferFromVolumeFailurePolicy"),
    ("webhook.matcher", E, "an instancetype or preference matcher KubeVirt refuses"),
    ("webhook.overcommit-hugepages", E, "memory.overcommitPercent together with memory.hugepages"),
    ("webhook.overcommit-percent", E, "memory.overcommitPercent outside 0-100"),
    ("webhook.spread-across", E, "an unsupported spreadOptions.across"),
    ("webhook.spread-ratio", E, "a spreadOptions ratio CoresThreads does not support"),
    # target
    ("target.api-version", E, "an apiVersion the target release does not serve"),
    ("target.object-name-mismatch", E, "a VM's revision names another object than the VM references"),
    ("target.payload-format", E, "a ControllerRevision payload the target release cannot decode"),
    ("target.topology-value", E, "a preferredCPUTopology value the target release does not know"),
    ("target.unknown-field", (W, E), "a field the target release does not know (its API server drops it)"),
    ("target.vm-flavor", E, "a VM's spec.flavor, unknown after the flavor era"),
    # decoder
    ("decoder.go-range", (E, W), "an integer outside its Go type: KubeVirt's decoder cannot read the object"),
    # revision
    ("revision.bad-api-version", E, "a payload apiVersion that is not group/version"),
    ("revision.bad-name", E, "the name a revision would get is not a valid name"),
    ("revision.bad-wrapper", E, "a v1alpha1 SpecRevision wrapper whose spec is not base64 of a JSON object"),
    ("revision.cr-undecodable", E, "a ControllerRevision Kubernetes itself cannot decode"),
    ("revision.dropped-field", W, "a payload field KubeVirt's decoder drops"),
    ("revision.family-mismatch", W, "a VM references the revision as the other family than its payload"),
    ("revision.flavor", I, "a flavor.kubevirt.io payload converted to its instancetype kind"),
    ("revision.identity-recovered", I, "the object identity a wrapper lacks, recovered from the revision name"),
    ("revision.kind-guessed", W, "no VM says which kind the revision snapshots: the namespaced kind assumed"),
    ("revision.kind-missing", E, "a payload with no kind (KubeVirt: Object 'Kind' is missing)"),
    ("revision.label-lies", W, "the object-version label does not match the payload"),
    ("revision.labelled-unreadable", E, "a payload no release reads under the label KubeVirt trusts to skip it"),
    ("revision.name-collision", E, "a rename would give two objects one name"),
    ("revision.name-kept", (I, W), "a revision keeps its name under --rename (why is said)"),
    ("revision.no-data", E, "a ControllerRevision without data"),
    ("revision.owner-replaced", I, "ownerReferences replaced by KubeVirt's controller reference to the VM"),
    ("revision.payload-limit", E, "a payload over the tool's nesting or size limits"),
    ("revision.rename-unreferenced", W, "a renamed revision no VM in the inputs references"),
    ("revision.replacement-not-served", (E, I), "the target cannot read the payload the upgrade would write"),
    ("revision.stripped-metadata", I, "payload metadata KubeVirt strips when it stores an object, removed"),
    ("revision.synthetic-identity", W, "a wrapper records no object identity and none could be recovered"),
    ("revision.undecodable", E, "a payload KubeVirt's decoder refuses"),
    ("revision.unexpected-kind", E, "a payload kind that is not an instancetype or preference"),
    ("revision.unknown-version", E, "a payload version or kind KubeVirt never registered"),
    ("revision.zero-value", W, "a payload value KubeVirt's decoder reads as its zero value"),
    # reference
    ("reference.kept", W, "references keep the old name: the revision's file could not be written"),
    ("reference.outside-run", W, "a revision referenced from a --context file keeps its name"),
    ("reference.renamed", I, "a VM's revisionName rewritten to the renamed revision"),
    # flavor
    ("flavor.bad-matcher", E, "spec.flavor is not a mapping"),
    ("flavor.both-matchers", E, "a VM with both spec.flavor and spec.instancetype"),
    ("flavor.kind-short-name", I, "a matcher's short kind name written as its resource name"),
    ("flavor.kind-unknown", E, "a flavor matcher kind that names no flavor kind"),
    ("flavor.memory-guest", E, "a flavor without spec.memory.guest, which an instancetype requires"),
    ("flavor.no-spec", E, "a flavor without spec"),
    ("flavor.renamed", I, "a flavor.kubevirt.io object moved to its instancetype.kubevirt.io kind"),
    ("flavor.revision-reference", W, "a VM's revisionName names a flavor-era ControllerRevision"),
    ("flavor.vm-matcher", I, "a VM's spec.flavor rewritten as spec.instancetype"),
    # core
    ("core.run-strategy", I, "spec.running rewritten as spec.runStrategy (--modernize)"),
    ("core.running-and-run-strategy", E, "a VM with both spec.running and spec.runStrategy"),
    ("core.running-deprecated", W, "spec.running is deprecated (since KubeVirt 1.4)"),
    # modernize
    ("modernize.efi", I, "preferredUseEfi/preferredUseSecureBoot rewritten as preferredEfi"),
    ("modernize.efi-ignored", I, "preferredUseEfi/preferredUseSecureBoot dropped: preferredEfi is set"),
    ("modernize.efi-kept", W, "preferredUseSecureBoot kept: preferredEfi cannot say the same"),
    ("modernize.efi-noop", I, "a preferredUseEfi that was a no-op, dropped"),
    ("modernize.launch-security", W, "an instancetype's deprecated launchSecurity, not moved"),
    ("modernize.needs-release", I, "a rewrite the target release does not read yet, left as it is"),
    ("modernize.secureboot-own-efi", W, "preferredUseSecureBoot: false also affected VMs with their own EFI"),
    ("modernize.spread", I, "preferSpreadSocketToCoreRatio rewritten as cpu.spreadOptions.ratio"),
    ("modernize.spread-ignored", I, "preferSpreadSocketToCoreRatio dropped: spreadOptions.ratio is set"),
    ("modernize.spread-invalid", W, "a preferSpreadSocketToCoreRatio that is not a ratio, left as it is"),
    ("modernize.spread-noop", I, "preferSpreadSocketToCoreRatio: 0 (the default ratio), dropped"),
    ("modernize.topology", I, "a deprecated preferredCPUTopology spelling rewritten"),
    # kustomize
    ("kustomize.inline-patch", I, "an instancetype apiVersion in an inline patch upgraded"),
    ("kustomize.inline-patch-unparsable", W, "an inline patch that is not YAML the tool can read, left as it is"),
    ("kustomize.not-a-list", E, "a kustomization's patches field that is not a list"),
    ("kustomize.partial-tree", W, "a patch or base whose kustomization is not among the inputs"),
    ("kustomize.target", I, "a patch target's instancetype version upgraded"),
    ("kustomize.wrong-group", W, "a patch applied by target under a group that never had the kind"),
    # krm
    ("krm.config", (E, W, I), "a functionConfig option that is unknown or invalid"),
    # helm
    ("helm.bad-release", E, "a Helm release record that cannot be read"),
    ("helm.flow-unread", W, "a multi-line flow mapping in a template the tool cannot read"),
    ("helm.kind-unknown", W, "a templated apiVersion without a literal kind beside it"),
    ("helm.release-upgraded", I, "a Helm release record's manifest upgraded and the record re-encoded"),
    ("helm.revision-template", W, "a ControllerRevision in a chart template: its payload is not upgraded"),
    ("helm.templated-apiversion", W, "an apiVersion the tool cannot see (templated)"),
    ("helm.upgraded", I, "an apiVersion in a chart template or values upgraded"),
    # backup
    ("backup.flavor-dir", W, "an upgraded flavor stays under its flavor.kubevirt.io directory"),
    ("backup.missing-revision", W, "a VM references a ControllerRevision the backup does not hold"),
    ("backup.path-kept", W, "a renamed revision keeps its item path (the new one is taken)"),
    ("backup.path-renamed", I, "a renamed revision stored under its new item path"),
    ("backup.unreadable", E, "a backup item that cannot be read"),
    ("backup.version-dir", I, "an upgraded item stays under its old version's directory"),
)

# Codes every API family has: `f"{family}.{suffix}"` (e.g. `export.upgraded`), optionally for some families.
FAMILY_CODES: tuple[tuple[str, str | tuple[str, ...], str, tuple[str, ...]], ...] = (
    ("upgraded", I, "an object's apiVersion upgraded to the newest version the target serves", ()),
    ("deprecated", W, "an apiVersion the target serves but deprecates, with nothing newer to move to", ()),
    ("not-served", (W, E), "an apiVersion the target does not serve (yet)", ()),
    ("removed", E, "an apiVersion the target removed and nothing replaces", ()),
    ("no-replacement", E, "an apiVersion the target removed whose replacement it does not serve yet", ()),
    ("replacement-not-served", I, "left as it is: the target does not serve its replacement yet", ()),
    ("not-latest", W, "validate: a served apiVersion that is not the newest the target serves", ()),
    ("legacy", (E, W), "an apiVersion no release converts (re-create the object)", ()),
    ("action", W, "an object whose creation runs an action (applying it again runs it again)", ()),
    ("preset-deprecated", W, "VirtualMachineInstancePreset is deprecated", ("core",)),
    ("reference", I, "an apiVersion in a reference (a scale target) upgraded", ()),
    ("owner-reference", I, "an apiVersion in an ownerReference upgraded", ()),
    ("managed-fields", I, "managedFields naming an old apiVersion (--drop-server-fields removes them)", ()),
    ("status", I, "status naming an old apiVersion (--drop-server-fields removes it)", ()),
    ("kustomize-target", I, "a kustomize patch target's version upgraded", ()),
    (
        "kustomize-inline-patch",
        I,
        "an apiVersion in an inline kustomize patch upgraded",
        tuple(f for f in FAMILIES if f != "instancetype"),  # (instancetype: kustomize.inline-patch)
    ),
)
FAMILY_DOC = "docs/upgrades.md"


def _severities(value: str | tuple[str, ...]) -> tuple[str, ...]:
    return (value,) if isinstance(value, str) else value


def _doc(code: str) -> str:
    return GROUPS[code.split(".", 1)[0]][1]


def _table() -> dict[str, Code]:
    out = {code: Code(code, _severities(sev), summary, _doc(code)) for code, sev, summary in _ROWS}
    for suffix, sev, summary, only in FAMILY_CODES:
        for family in only or FAMILIES:
            code = f"{family}.{suffix}"
            assert code not in out, code  # (one definition per code)
            out[code] = Code(code, _severities(sev), summary, FAMILY_DOC)
    return out


CODES: dict[str, Code] = _table()
KNOWN = frozenset(CODES)
_FAMILY_MEMBERS = frozenset(f"{f}.{suffix}" for suffix, _, _, only in FAMILY_CODES for f in only or FAMILIES)
_LISTED = " (`instancetype-upgrade codes` lists them)"


def anchor(code: str) -> str:
    """The anchor of a code in docs/codes.md."""
    return code.replace(".", "-")


def family_of(code: str) -> str | None:
    """The family a family code belongs to (`export.upgraded` -> `export`), else None."""
    return code.partition(".")[0] if code in _FAMILY_MEMBERS else None


def matching(selector: str) -> list[Code]:
    """The codes a --select/--ignore value names: a code, a prefix of codes (`schema`, `webhook.`), or an
    API family (`export`: every finding about an export object, by code and by object; findings.matches)."""
    return [c for c in CODES.values() if c.code.startswith(selector)]


def unknown_selector(selector: str) -> str | None:
    """Why `selector` names no code (with a suggestion, as `did you mean ...?`), or None when it names some."""
    if selector in FAMILIES or matching(selector):
        return None
    import difflib  # lazy: start-up: only a refused value pays for it

    words = sorted({*CODES, *GROUPS, *FAMILIES})
    close = difflib.get_close_matches(selector, words, n=3, cutoff=0.6)
    hint = f"; did you mean {' or '.join(repr(c) for c in close)}?" if close else ""
    return f"{selector!r} names no finding code, code prefix or API family{hint}" + _LISTED
