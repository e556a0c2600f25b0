"""Kubernetes object names: the one check for every name the tool builds or copies into a name or a
path (a renamed revision, a recovered object name, a tarball member built from a name).

ControllerRevisions, VMs and the instancetype kinds use apimachinery's NameIsDNSSubdomain: at most
253 characters of lower-case alphanumerics, `-` and `.`, starting and ending with an alphanumeric.
Such a name never holds `/`, `..` as a path component, a newline or an escape sequence.
"""

from __future__ import annotations

import re

MAX_NAME = 253
DNS1123_LABEL = r"[a-z0-9](?:[-a-z0-9]*[a-z0-9])?"
_SUBDOMAIN = re.compile(rf"{DNS1123_LABEL}(?:\.{DNS1123_LABEL})*")


# an object's metadata.uid as KubeVirt writes it into revision names (a lower-case RFC 4122 UUID)
UUID = r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}"


def is_subdomain(name: str) -> bool:
    """apimachinery's IsDNS1123Subdomain (the whole string: a trailing newline is not allowed)."""
    return len(name) <= MAX_NAME and _SUBDOMAIN.fullmatch(name) is not None


def name_problem(name: str) -> str:
    """Why `name` is not a valid object name (DNS-1123 subdomain), or "" when it is."""
    if not name:
        return "a name must not be empty"
    if len(name) > MAX_NAME:
        return f"a name must be at most {MAX_NAME} characters, this one has {len(name)}"
    if not is_subdomain(name):
        return (
            f"{name!r} is not a valid Kubernetes name (DNS-1123 subdomain: lower-case letters, digits, '-' and "
            "'.', starting and ending with a letter or digit)"
        )
    return ""
