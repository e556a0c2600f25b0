"""The node classes libyaml's composer builds: ruamel.yaml's, with a lean constructor.

libyaml's composer (ruamel.yaml.clib) calls `ScalarNode(...)`, `SequenceNode(...)` and `MappingNode(...)`,
looked up in its own module, once per node; ruamel's constructors pass every argument on through two
levels of keyword calls, a quarter of the time of composing a document. These subclasses set the same
attributes directly (importing this module puts them in the composer's module), so a node is still a ruamel node to
every `isinstance` check; `SCALAR`, `SEQUENCE` and `MAPPING` name both classes of each kind for the
code that dispatches on the exact class. ruamel's pure-Python composer keeps building ruamel's classes.
"""

from __future__ import annotations

from types import ModuleType
from typing import Any

from ruamel.yaml.nodes import MappingNode, ScalarNode, SequenceNode
from ruamel.yaml.tag import Tag


class LeanScalarNode(ScalarNode):
    __slots__ = ()

    def __init__(
        self,
        tag: Any,
        value: Any,
        start_mark: Any = None,
        end_mark: Any = None,
        style: Any = None,
        comment: Any = None,
        anchor: Any = None,
    ) -> None:
        self.ctag = tag if isinstance(tag, Tag) else Tag(suffix=tag)  # an explicit tag comes as a string
        self.value = value
        self.start_mark = start_mark
        self.end_mark = end_mark
        self.style = style
        self.comment = comment
        self.anchor = anchor


class LeanSequenceNode(SequenceNode):
    __slots__ = ()

    def __init__(
        self,
        tag: Any,
        value: Any,
        start_mark: Any = None,
        end_mark: Any = None,
        flow_style: Any = None,
        comment: Any = None,
        anchor: Any = None,
    ) -> None:
        self.ctag = tag if isinstance(tag, Tag) else Tag(suffix=tag)
        self.value = value
        self.start_mark = start_mark
        self.end_mark = end_mark
        self.flow_style = flow_style
        self.comment = comment
        self.anchor = anchor


class LeanMappingNode(MappingNode):
    __slots__ = ()

    def __init__(
        self,
        tag: Any,
        value: Any,
        start_mark: Any = None,
        end_mark: Any = None,
        flow_style: Any = None,
        comment: Any = None,
        anchor: Any = None,
    ) -> None:
        self.ctag = tag if isinstance(tag, Tag) else Tag(suffix=tag)
        self.value = value
        self.start_mark = start_mark
        self.end_mark = end_mark
        self.flow_style = flow_style
        self.comment = comment
        self.anchor = anchor
        self.merge = None


SCALAR = frozenset((ScalarNode, LeanScalarNode))
SEQUENCE = frozenset((SequenceNode, LeanSequenceNode))
MAPPING = frozenset((MappingNode, LeanMappingNode))


def _install(module: ModuleType) -> bool:
    """Have the C module build (and its emitter expect) the lean classes, where it names ruamel's own."""
    pairs = (("ScalarNode", LeanScalarNode), ("SequenceNode", LeanSequenceNode), ("MappingNode", LeanMappingNode))
    if any(getattr(module, name, None) not in (lean, lean.__mro__[1]) for name, lean in pairs):
        return False  # another ruamel.yaml.clib than the one this was written for: leave it alone
    for name, lean in pairs:
        setattr(module, name, lean)
    return True


try:
    import _ruamel_yaml  # ruamel.yaml.clib: libyaml's composer and emitter
except ImportError:
    _installed = False
else:
    _installed = _install(_ruamel_yaml)

# The classes to build new nodes with (emit.py): the C emitter compares node classes by identity.
Scalar: type[ScalarNode] = LeanScalarNode if _installed else ScalarNode
Sequence: type[SequenceNode] = LeanSequenceNode if _installed else SequenceNode
Mapping: type[MappingNode] = LeanMappingNode if _installed else MappingNode
