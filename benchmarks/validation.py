#!/usr/bin/env python3
"""Whole-document validation speed against check-jsonschema (issue 14, item 4).

Writes N seeded VirtualMachine files (default 520), then times, whole-process (median of --rounds):
  ours:  python -m transform validate --target-kubevirt 1.9 DIR   (KubeVirt v1.9's VirtualMachine schema)
  peer:  check-jsonschema --schemafile <v1.9.0 virtualmachine.json> FILES...   (the same schema)
and prints both times and the ratio peer/ours. check-jsonschema comes from `pip install check-jsonschema`;
the schema is kubevirt-releases/v1.9.0/virtualmachine.json of reference/crd-schemas.tar.xz (or --schema).
Also checks that both accept every file (the corpus is valid) and that ours finds a planted typo.

Usage: python benchmarks/validation.py [--files 520] [--rounds 5] [--schema PATH]
"""

from __future__ import annotations

import argparse
import random
import shutil
import statistics
import subprocess
import sys
import tarfile
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
ARCHIVE = ROOT / "reference" / "crd-schemas.tar.xz"
MEMBER = "crd-schemas/kubevirt-releases/v1.9.0/virtualmachine.json"


def vm_yaml(r: random.Random, i: int) -> str:
    name = f"vm-{i:04d}-{r.choice(['web', 'db', 'cache', 'batch', 'ci'])}"
    disks = "".join(
        f"          - name: data{n}\n            disk:\n              bus: virtio\n" for n in range(r.randint(0, 3))
    )
    volumes = "".join(
        f"      - name: data{n}\n        persistentVolumeClaim:\n          claimName: {name}-data{n}\n"
        for n in range(disks.count("name: data"))
    )
    return f"""# generated VM {i}
apiVersion: kubevirt.io/v1
kind: VirtualMachine
metadata:
  name: {name}
  namespace: team-{r.randint(1, 40)}
  labels:
    app.kubernetes.io/name: {name}
    app.kubernetes.io/part-of: fleet-{r.randint(1, 9)}
  annotations:
    description: "benchmark VM {i}"
spec:
  runStrategy: {r.choice(["Always", "Halted", "RerunOnFailure"])}
  instancetype:
    kind: VirtualMachineClusterInstancetype
    name: {r.choice(["u1.small", "u1.medium", "cx1.large", "m1.xlarge"])}
  preference:
    kind: VirtualMachineClusterPreference
    name: {r.choice(["fedora", "rhel.9", "windows.2k22", "ubuntu"])}
  dataVolumeTemplates:
  - metadata:
      name: {name}-root
    spec:
      sourceRef:
        kind: DataSource
        name: fedora
        namespace: kubevirt-os-images
      storage:
        resources:
          requests:
            storage: {r.choice([20, 30, 50])}Gi
  template:
    metadata:
      labels:
        kubevirt.io/domain: {name}
    spec:
      evictionStrategy: LiveMigrate
      terminationGracePeriodSeconds: {r.choice([30, 60, 180])}
      nodeSelector:
        kubernetes.io/arch: amd64
      tolerations:
      - key: dedicated
        operator: Equal
        value: virt
        effect: NoSchedule
      domain:
        firmware:
          bootloader:
            efi:
              secureBoot: {r.choice(["true", "false"])}
        devices:
          disks:
          - name: root
            bootOrder: 1
            disk:
              bus: virtio
          - name: cloudinit
            disk:
              bus: virtio
{disks}          interfaces:
          - name: default
            masquerade: {{}}
            model: virtio
          rng: {{}}
        resources:
          requests:
            memory: {r.choice([1, 2, 4, 8])}Gi
      networks:
      - name: default
        pod: {{}}
      volumes:
      - name: root
        dataVolume:
          name: {name}-root
      - name: cloudinit
        cloudInitNoCloud:
          userData: |
            #cloud-config
            user: cloud-user
            ssh_authorized_keys:
            - ssh-ed25519 AAAA{r.getrandbits(128):032x} admin@example.com
{volumes}"""


def timed(cmds: list[list[str]], rounds: int) -> list[tuple[float, float, subprocess.CompletedProcess[str]]]:
    """(median, min, last result) per command; the commands alternate within each round, so that a
    machine shared with other jobs slows both alike."""
    for cmd in cmds:
        subprocess.run(cmd, capture_output=True, text=True, check=False)  # warm-up (page cache, .pyc)
    times: list[list[float]] = [[] for _ in cmds]
    results: list[subprocess.CompletedProcess[str]] = []
    for _ in range(rounds):
        results = []
        for i, cmd in enumerate(cmds):
            start = time.perf_counter()
            results.append(subprocess.run(cmd, capture_output=True, text=True, check=False))
            times[i].append(time.perf_counter() - start)
    return [(statistics.median(t), min(t), r) for t, r in zip(times, results, strict=True)]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--files", type=int, default=520)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--schema", type=Path, help=f"default: {MEMBER} of {ARCHIVE.name}")
    args = parser.parse_args(argv)
    r = random.Random(14)
    with tempfile.TemporaryDirectory(prefix="validation-bench-") as tmp:
        tree = Path(tmp) / "vms"
        tree.mkdir()
        files = [tree / f"vm-{i:04d}.yaml" for i in range(args.files)]
        for i, path in enumerate(files):
            path.write_text(vm_yaml(r, i))
        ours_cmd = [sys.executable, "-m", "transform", "validate", "-q", "--target-kubevirt", "1.9", str(tree)]
        typo = Path(tmp) / "typo.yaml"
        typo.write_text(vm_yaml(r, 0).replace("        firmware:", "        firmwre:"))
        check = subprocess.run([*ours_cmd[:-1], str(typo)], capture_output=True, text=True, check=False)
        assert 'unknown field "spec.template.spec.domain.firmwre"' in check.stdout + check.stderr, check
        print(f"files: {args.files} VirtualMachines, {sum(p.stat().st_size for p in files) / 1e6:.2f} MB")
        peer = shutil.which("check-jsonschema")
        if args.schema is None:  # check-jsonschema reads a file: the one member, out of the archive
            args.schema = Path(tmp) / "virtualmachine.json"
            with tarfile.open(ARCHIVE) as tar:
                member = tar.extractfile(MEMBER)
                assert member is not None, MEMBER
                args.schema.write_bytes(member.read())
        cmds = [ours_cmd]
        if peer is not None and args.schema.is_file():
            cmds.append([peer, "--schemafile", str(args.schema), *map(str, files)])
        timings = timed(cmds, args.rounds)
        for (median, low, result), name in zip(
            timings, ("instancetype-upgrade validate", "check-jsonschema"), strict=False
        ):
            if result.returncode != 0:
                print(f"{name} refused the valid corpus:\n{(result.stdout + result.stderr)[-2000:]}", file=sys.stderr)
                return 1
            print(f"{name}: median {median:.3f} s, min {low:.3f} s")
        if len(timings) < 2:
            print("check-jsonschema or the reference schema is missing: no ratio (pip install check-jsonschema)")
            return 0
        (ours, ours_min, _), (theirs, theirs_min, _) = timings
        print(
            f"ratio check-jsonschema / ours: {theirs / ours:.1f}x (medians), {theirs_min / ours_min:.1f}x (minima); "
            "target: >= 1x (no schema engine at run time)"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
