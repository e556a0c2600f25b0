"""ruamel.yaml's pure-Python reader, scanner, parser and composer, made to agree with libyaml.

The fallback where the C extension (ruamel.yaml.clib) has no wheel. Three places where ruamel's Python
parser differs from libyaml (and from go-yaml, libyaml's Go port that Kubernetes runs) are set to
libyaml's behaviour, so that both parsers give the same nodes and positions:

- an empty value in a block mapping (`a:`) sits right after its `:`, not at the next token;
- an empty value in a flow mapping (`{a: }`) sits at the next token, not after the `:`;
- a tab separates tokens in block context after a key or value indicator (`a:<TAB>b`).

It also reads what libyaml refuses but go-yaml v2 reads: a `:` inside a plain scalar of a flow collection
(`{creationTimestamp: 2023-03-01T10:00:00Z}`; libyaml: "found unexpected ':'"). Its YAML 1.1 scanner rules
are go-yaml v2's there (`:` ends a plain scalar only before a blank; `,?[]{}` end it in flow context), so
`nodes` reads such a text again with this parser (`goyaml_reads_it`) and refuses only what Kubernetes refuses.
"""

from __future__ import annotations

from typing import Any

from ruamel.yaml.composer import Composer
from ruamel.yaml.docinfo import DocInfo
from ruamel.yaml.parser import Parser
from ruamel.yaml.reader import Reader
from ruamel.yaml.scanner import Scanner
from ruamel.yaml.tokens import (
    BlockEndToken,
    FlowEntryToken,
    FlowMappingEndToken,
    FlowSequenceEndToken,
    KeyToken,
    ValueToken,
)

from transform.yamltext.resolver import KubernetesResolver

_THE_END = "\0\r\n\x85\u2028\u2029"


def goyaml_reads_it(exc: Exception, parser: type) -> bool:
    """Whether `parser`'s error is libyaml's refusal of a `:` in a flow plain scalar, which go-yaml v2 reads."""
    return parser is not PureLoader and "found unexpected ':'" in str(getattr(exc, "problem", "") or "")


class PureLoader(Reader, Scanner, Parser, Composer, KubernetesResolver):
    """A loader (`PureLoader(text).get_single_node()`) that composes as libyaml does, in Python."""

    max_depth = 0  # nodes.py checks the depth before composing

    def __init__(self, stream: str) -> None:
        self.comment_handling = None
        Reader.__init__(self, stream, loader=self)
        Scanner.__init__(self, loader=self)
        Parser.__init__(self, loader=self)
        Composer.__init__(self, loader=self)
        KubernetesResolver.__init__(self, loadumper=self)
        self.doc_infos = [DocInfo()]  # where ruamel's scanner records %YAML/%TAG directives

    def scan_to_next_token(self) -> Any:
        """Skip spaces, comments and line breaks; tabs too in flow context or after `:`/`-`/`?` (libyaml)."""
        srp = self.reader.peek
        srf = self.reader.forward
        if self.reader.index == 0 and srp() == "\ufeff":
            srf()
        while True:
            while srp() == " " or (srp() == "\t" and (self.flow_level > 0 or not self.allow_simple_key)):
                srf()
            if srp() == "#":
                while srp() not in _THE_END:
                    srf()
            if self.scan_line_break():
                if not self.flow_level:
                    self.allow_simple_key = True
            else:
                return None

    def parse_block_mapping_value(self) -> Any:
        if self.scanner.check_token(ValueToken):
            token = self.scanner.get_token()
            if not self.scanner.check_token(KeyToken, ValueToken, BlockEndToken):
                self.states.append(self.parse_block_mapping_key)
                return self.parse_block_node_or_indentless_sequence()
            self.state = self.parse_block_mapping_key
            return self.process_empty_scalar(token.end_mark)
        self.state = self.parse_block_mapping_key
        return self.process_empty_scalar(self.scanner.peek_token().start_mark)

    def parse_flow_mapping_value(self) -> Any:
        if self.scanner.check_token(ValueToken):
            self.scanner.get_token()
            if not self.scanner.check_token(FlowEntryToken, FlowMappingEndToken):
                self.states.append(self.parse_flow_mapping_key)
                return self.parse_flow_node()
        self.state = self.parse_flow_mapping_key
        return self.process_empty_scalar(self.scanner.peek_token().start_mark)

    def parse_flow_sequence_entry_mapping_value(self) -> Any:
        if self.scanner.check_token(ValueToken):
            self.scanner.get_token()
            if not self.scanner.check_token(FlowEntryToken, FlowSequenceEndToken):
                self.states.append(self.parse_flow_sequence_entry_mapping_end)
                return self.parse_flow_node()
        self.state = self.parse_flow_sequence_entry_mapping_end
        return self.process_empty_scalar(self.scanner.peek_token().start_mark)
