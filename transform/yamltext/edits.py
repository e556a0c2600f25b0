"""Turn `old -> new` on plain values into the smallest text edits on the original document.

Nothing is re-emitted that did not change: a changed scalar is replaced in its own quoting,
a removed key is cut out (its comments stay, as comment lines), an added key is inserted
in the mapping's own indentation, and only a value whose shape changed (a base64 wrapper
becoming an object) is written anew, in the file's style.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from ruamel.yaml.nodes import MappingNode, Node, ScalarNode, SequenceNode

from transform.model.plain import same
from transform.yamltext import aliasuses, emit, nodepath
from transform.yamltext.comments import comments
from transform.yamltext.emit import Style

NOT_SCALAR: Any = object()


@dataclass(frozen=True, order=True)
class Edit:
    start: int
    end: int
    text: str
    # Set only for a one-line scalar in block context (no tag, anchor or comment in it, a line break,
    # space or the end after it) replaced by `text` written for `value`: the document around it keeps its
    # structure, so `text` reading back alone as `value` proves the edit (`reads_back`).
    value: Any = field(default=NOT_SCALAR, compare=False)


class EditConflict(Exception):
    pass


def apply(text: str, edits: list[Edit]) -> str:
    out: list[str] = []
    pos = 0
    for e in sorted(edits, key=lambda e: (e.start, e.end)):
        if e.start < pos:
            raise EditConflict(f"overlapping edits at offset {e.start}")
        out.append(text[pos : e.start])
        out.append(e.text)
        pos = e.end
    out.append(text[pos:])
    return "".join(out)


class Planner:
    def __init__(
        self, text: str, style: Style, replace: frozenset[int] = frozenset(), root: Node | None = None
    ) -> None:
        self.text = text
        self.style = style
        self.nl = style.newline
        self.replace = replace  # ids of nodes to write anew rather than patch
        self.aliases = aliasuses.alias_ends(text, root)  # an alias stands where its `*name` is written

    # -- positions ---------------------------------------------------------------------------
    def line_start(self, pos: int) -> int:
        return self.text.rfind("\n", 0, pos) + 1

    def line_end(self, pos: int) -> int:
        """Index just past the newline ending the line that holds `pos` (or len(text))."""
        i = self.text.find("\n", pos)
        return len(self.text) if i < 0 else i + 1

    def content_end(self, node: Node) -> int:
        if isinstance(node, ScalarNode):
            a, b = node.start_mark.index, node.end_mark.index
            return a + len(self.text[a:b].rstrip())
        if not isinstance(node, (MappingNode, SequenceNode)) or node.flow_style or not node.value:
            return node.end_mark.index
        return self.item_end(node, len(node.value) - 1)

    def item_end(self, node: Node, i: int) -> int:
        """Where the value of pair (or item) `i` of `node` ends in the text: an alias's `*name`, where it is."""
        if self.aliases and (at := self.aliases.get(aliasuses.place(node, i))) is not None:
            return at
        return self.content_end(node.value[i][1] if isinstance(node, MappingNode) else node.value[i])

    def first_on_line(self, node: Node) -> bool:
        return not self.text[self.line_start(node.start_mark.index) : node.start_mark.index].strip()

    # -- the diff ----------------------------------------------------------------------------
    def diff(self, node: Node, old: Any, new: Any, flow: bool = False) -> list[Edit]:
        if same(old, new):
            return []
        if id(node) in self.replace:
            return [self._replace(node, new, flow)]
        if isinstance(node, MappingNode) and isinstance(old, dict) and isinstance(new, dict):
            return self._diff_mapping(node, old, new, flow or bool(node.flow_style))
        if isinstance(node, SequenceNode) and isinstance(old, list) and isinstance(new, list):
            if len(old) == len(new):
                edits: list[Edit] = []
                for item, o, n in zip(node.value, old, new, strict=False):
                    edits += self.diff(item, o, n, flow or bool(node.flow_style))
                return edits
        if (
            isinstance(node, ScalarNode)
            and not isinstance(new, (dict, list))
            and node.end_mark.index > node.start_mark.index
        ):
            if node.style == "|" and isinstance(old, str) and isinstance(new, str):
                in_place = self._literal_lines(node, old, new)
                if in_place is not None:
                    return in_place
            return [self._scalar_edit(node, new, flow)]
        return [self._replace(node, new, flow)]

    def _scalar_edit(self, node: ScalarNode, new: Any, flow: bool) -> Edit:
        start, end = self._after_properties(node.start_mark.index), self.content_end(node)
        text = self._scalar(new, node)
        span = self.text[start:end]
        alone = (
            not flow
            and not self.style.json
            and span[:1] not in ("", "!", "&", "*", "|", ">")
            and "\n" not in span
            and "\r" not in span
            and self.text[end : end + 1] in ("", " ", "\t", "\n", "\r")
            and self.text[self.line_start(start) : start].rstrip().endswith((":", "-"))
        )
        return Edit(start, end, text, new) if alone else Edit(start, end, text)

    def _after_properties(self, start: int) -> int:
        """Where a node's value starts after its tag and anchor (`!custom &a value`): those stay as written."""
        pos, text = start, self.text
        while text[pos : pos + 1] in ("!", "&"):
            while pos < len(text) and text[pos] not in " \t\r\n":
                pos += 1
            while pos < len(text) and text[pos] in " \t":
                pos += 1
        return pos

    def _literal_lines(self, node: ScalarNode, old: str, new: str) -> list[Edit] | None:
        """A `|` block whose change stays within lines (an inline kustomize patch): edit those lines
        in place and keep the block. None when that cannot be done safely."""
        olds, news = old.split("\n"), new.split("\n")
        if len(olds) != len(news) or news[0] != news[0].lstrip():
            return None
        start, end = node.start_mark.index, node.end_mark.index
        pos = self.text.find("\n", start, end) + 1
        if pos <= 0:
            return None
        edits: list[Edit] = []
        for a, b in zip(olds, news, strict=True):
            eol = self.text.find("\n", pos, end)
            eol = end if eol < 0 else eol
            line = self.text[pos:eol].rstrip("\r")
            if a != b:
                if not a or not line.endswith(a) or line[: len(line) - len(a)].strip():
                    return None
                edits.append(Edit(pos + len(line) - len(a), pos + len(line), b))
            pos = eol + 1
        return edits

    def _scalar(self, value: Any, like: Node | None) -> str:
        return emit.scalar(value, self.style, emit.quote_of(like) if like is not None else None)

    def _renamed(self, node: MappingNode, old: dict, new: dict, removed: list, added: dict) -> list[Edit] | None:
        """One scalar key replaced by another at the same position (`running: true` ->
        `runStrategy: Always`): both scalars rewritten in place, so the line and its comment stay."""
        if len(removed) != 1 or len(added) != 1 or list(old).index(removed[0]) != list(new).index(next(iter(added))):
            return None
        ((new_key, value),) = added.items()
        hits = [(k, v) for k, v in node.value if isinstance(k, ScalarNode) and k.value == removed[0]]
        if len(hits) != 1 or not isinstance(hits[0][1], ScalarNode) or isinstance(value, (dict, list)):
            return None
        k, v = hits[0]
        if v.end_mark.index == v.start_mark.index or "\n" in self.text[v.start_mark.index : v.end_mark.index]:
            return None
        return [
            Edit(k.start_mark.index, k.end_mark.index, self._scalar(new_key, k)),
            Edit(v.start_mark.index, v.end_mark.index, self._scalar(value, v)),
        ]

    def _diff_mapping(self, node: MappingNode, old: dict, new: dict, flow: bool) -> list[Edit]:
        removed = [k for k in old if k not in new]
        added = {k: v for k, v in new.items() if k not in old}
        renamed = self._renamed(node, old, new, removed, added) if removed and added else None
        if renamed is not None:
            rest = {k: v for k, v in new.items() if k not in added}
            base = {k: v for k, v in old.items() if k not in removed}
            return renamed + self._diff_mapping(node, base, rest, flow) if rest != base else renamed
        merges = any(nodepath.is_merge(k) for k, _ in node.value)
        if not new or (len(removed) == len(old) and added) or (merges and removed):
            return [self._replace(node, new, flow)]  # (a key a `<<` may hold is written out, as go-yaml reads it)
        edits: list[Edit] = []
        pairs = node.value
        gone = [isinstance(k, ScalarNode) and k.value in removed for k, _ in pairs]
        kept = [i for i, g in enumerate(gone) if not g]
        flowish = flow or self.style.json
        covered = -1
        for i, (k, v) in enumerate(pairs):
            key = k.value if isinstance(k, ScalarNode) else None
            if gone[i]:
                if i <= covered or (flowish and kept and i > kept[-1]):
                    continue  # cut together with an earlier pair, or with the trailing run below
                if not flowish and not self.first_on_line(k):
                    nxt = next((j for j in kept if j > i), None)
                    covered = (nxt if nxt is not None else len(pairs)) - 1
                    edits.append(self._delete_first(node, i, nxt))
                    continue
                edits.append(self._delete(node, i, flow))
            elif key is not None and key in new and (src := nodepath.source(node, key)) and src[1] is v:
                edits += self._diff_value(k, v, old[key], new[key], flow)
        for key in new.keys() & old.keys() if merges else ():  # a value a `<<` merge gives: edited where it is
            if (src := nodepath.source(node, key)) and src[2] is not node:
                edits += self._diff_value(src[0], src[1], old[key], new[key], bool(src[2].flow_style))
        if flowish and kept and kept[-1] < len(pairs) - 1:
            cut = [n for pair in pairs[kept[-1] + 1 :] for n in pair]
            edits.append(self._cut(self.item_end(node, kept[-1]), self.item_end(node, len(pairs) - 1), cut))
        if added:
            edits.append(self._insert(node, added, flow, last=kept[-1] if kept else None))
        return edits

    def _diff_value(self, k: Node, v: Node, old: Any, new: Any, flow: bool) -> list[Edit]:
        if same(old, new):
            return []
        if id(v) in self.replace and not flow and isinstance(new, dict) and new and not emit.is_block(v):
            return [self._block_after_key(k, v, new)]  # a new payload is a nested block, as kubectl prints it
        if (not flow and not isinstance(new, (dict, list)) or (isinstance(new, (dict, list)) and not new)) and (
            emit.is_block(v) or v.end_mark.index == v.start_mark.index
        ):
            # a block collection or an empty value becomes a scalar on the key's line; the comments
            # of the lines it covered stay, the first at the end of the line, the others below it
            end, kept = self._through_comment(
                k.end_mark.index, self.content_end(v) if emit.is_block(v) else v.end_mark.index, [v]
            )
            text = ": " + (emit.empty(new) or self._scalar(new, None))
            if kept:
                pad = " " * k.start_mark.column
                text += "  " + kept[0] + "".join(f"{self.nl}{pad}{c}" for c in kept[1:])
            return [Edit(k.end_mark.index, end, text)]
        if not flow and isinstance(new, (dict, list)) and new and emit.is_block(v) and type(old) is not type(new):
            return [self._block_after_key(k, v, new)]  # a sequence becomes a mapping or back: re-indent
        if not flow and isinstance(new, (dict, list)) and new and not emit.is_block(v):
            if isinstance(v, (MappingNode, SequenceNode)) and isinstance(old, type(new)) and old:
                return self.diff(v, old, new, True)
            return [self._block_after_key(k, v, new)]
        return self.diff(v, old, new, flow)

    def _block_after_key(self, k: Node, v: Node, new: Any) -> Edit:
        """`key: scalar  # c` -> `key:  # c` + a block below, at the mapping's indentation."""
        col = k.start_mark.column
        indent = col + (self.style.unit if isinstance(new, dict) else self.style.offset)
        end = self.content_end(v) if v.end_mark.index > v.start_mark.index else v.end_mark.index
        end, kept = self._through_comment(k.end_mark.index, end, [v])
        head = ":" + ("  " + kept[0] if kept else "")
        pad = " " * indent
        lines = [pad + c for c in kept[1:]] + emit.block(new, indent, self.style)
        return Edit(k.end_mark.index, end, head + self.nl + self.nl.join(lines))

    def _through_comment(self, start: int, end: int, nodes: list[Node]) -> tuple[int, list[str]]:
        """Extend `end` over a comment that ends its line; the comments in [start, end)."""
        eol = self.text.find("\n", end)
        eol = len(self.text) if eol < 0 else eol
        if self.text[end:eol].strip().startswith("#"):
            end = len(self.text[:eol].rstrip("\r"))
        return end, comments(self.text, start, end, nodes)

    def _replace(self, node: Node, new: Any, flow: bool) -> Edit:
        start = node.start_mark.index
        if flow or self.style.json or not isinstance(new, (dict, list)) or not new:
            if isinstance(new, (dict, list)):
                indent = len(self.text[self.line_start(start) : start]) - len(
                    self.text[self.line_start(start) : start].lstrip()
                )
                text = emit.flow(new, self.style, indent)
            else:
                text = self._scalar(new, node)
            if emit.is_block(node):  # a block collection becomes a scalar: keep its comments
                end, kept = self._through_comment(start, self.content_end(node), [node])
                pad = " " * node.start_mark.column
                return Edit(
                    start,
                    end,
                    text + ("  " + kept[0] if kept else "") + "".join(f"{self.nl}{pad}{c}" for c in kept[1:]),
                )
            return Edit(start, self.content_end(node), text)
        if emit.is_block(node):
            end = self.content_end(node)
            eol = self.text.find("\n", end)
            eol = len(self.text) if eol < 0 else eol
            if self.text[end:eol].strip().startswith("#"):
                end = len(self.text[:eol].rstrip("\r"))  # take the last line's comment along
            col = node.start_mark.column
            kept = comments(self.text, start, end, [node])
            lines = [" " * col + c for c in kept] + emit.block(new, col, self.style)
            lines[0] = lines[0].lstrip()
            return Edit(start, end, self.nl.join(lines))
        return Edit(start, self.content_end(node), emit.flow(new, self.style))

    def _delete(self, node: MappingNode, i: int, flow: bool) -> Edit:
        k, v = node.value[i]
        n = len(node.value)
        if flow or self.style.json:
            if i + 1 < n:
                return self._cut(k.start_mark.index, node.value[i + 1][0].start_mark.index, [k, v])
            prev_end = self.item_end(node, i - 1) if i else None
            return self._cut(k.start_mark.index if prev_end is None else prev_end, self.item_end(node, i), [k, v])

        if self.first_on_line(k):
            start = self.line_start(k.start_mark.index)
            end = self.line_end(self.item_end(node, i))
            kept = comments(self.text, start, end, [k, v])
            pad = " " * k.start_mark.column
            return Edit(start, end, "".join(f"{pad}{c}{self.nl}" for c in kept))
        return self._delete_first(node, i, i + 1 if i + 1 < n else None)

    def _cut(self, start: int, end: int, nodes: list[Node]) -> Edit:
        """Cut text[start:end] of a flow collection; a comment in it stays, on a line of its own."""
        kept = comments(self.text, start, end, nodes)
        if not kept:
            return Edit(start, end, "")
        line = self.text[self.line_start(end) : end]
        pad = self.nl + " " * (len(line) - len(line.lstrip()))
        lead = "" if self.text[start - 1 : start] in (" ", "\t", "\n") else " "
        return Edit(start, end, lead + pad.join(kept) + pad)

    def _delete_first(self, node: MappingNode, i: int, nxt: int | None) -> Edit:
        """Cut pairs i.. up to the kept pair `nxt` when pair i shares its line with a `- ` or `? `:
        pair `nxt` moves up to that line; comments of the cut lines go above the item."""
        k = node.value[i][0]
        if nxt is None:
            end = self.item_end(node, len(node.value) - 1)
        else:
            end = node.value[nxt][0].start_mark.index
        cut = [n for pair in node.value[i : nxt if nxt is not None else len(node.value)] for n in pair]
        kept = comments(self.text, k.start_mark.index, end, cut)
        ls = self.line_start(k.start_mark.index)
        prefix = self.text[ls : k.start_mark.index]
        pad = " " * (len(prefix) - len(prefix.lstrip()))
        above = "".join(f"{pad}{c}{self.nl}" for c in kept)
        return Edit(ls, end, above + prefix + ("" if nxt is not None else "{}"))

    def _insert(self, node: MappingNode, added: dict, flow: bool, last: int | None = None) -> Edit:
        if flow or self.style.json:
            items = [
                emit.scalar(str(key), self.style)
                + (": " if not self.style.compact_json else ":")
                + (
                    emit.flow(val, self.style, self._key_indent(node))
                    if isinstance(val, (dict, list))
                    else self._scalar(val, None)
                )
                for key, val in added.items()
            ]
            if not node.value:
                inner = ", ".join(items) if not self.style.json else ",".join(items)
                return Edit(node.start_mark.index + 1, node.end_mark.index - 1, inner)
            if len(node.value) >= 2:
                sep = self.text[node.value[-2][1].end_mark.index : node.value[-1][0].start_mark.index]
            else:
                lead = self.text[node.start_mark.index + 1 : node.value[0][0].start_mark.index]
                sep = "," + lead if "\n" in lead else ("," if self.style.compact_json else ", ")
            end = self.item_end(node, len(node.value) - 1 if last is None else last)
            return Edit(end, end, "".join(sep + it for it in items))
        col = node.value[0][0].start_mark.column
        end = self.content_end(node)
        at = self.line_end(end)
        body = self.nl.join(emit.block(added, col, self.style)) + self.nl
        if at == len(self.text) and not self.text.endswith("\n"):
            return Edit(at, at, self.nl + body.rstrip("\r\n"))
        return Edit(at, at, body)

    def _key_indent(self, node: MappingNode) -> int:
        if node.value and self.first_on_line(node.value[-1][0]):
            return node.value[-1][0].start_mark.column
        return self._indent_of(node) + self.style.unit

    def _indent_of(self, node: Node) -> int:
        ls = self.line_start(node.start_mark.index)
        line = self.text[ls : node.start_mark.index]
        return len(line) - len(line.lstrip())


def plan(text: str, root: Node, old: Any, new: Any, style: Style, replace: frozenset[int] = frozenset()) -> list[Edit]:
    """Edits turning the document `old` (parsed from `root`) into `new`.

    `replace` holds ids of nodes to write anew (a payload whose shape changed) instead of
    patching key by key.
    """
    return Planner(text, style, replace, root).diff(root, old, new)
