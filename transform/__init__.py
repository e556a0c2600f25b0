"""instancetype-upgrade: offline upgrade of KubeVirt instancetype.kubevirt.io manifests."""

__version__ = "0.1.0"
