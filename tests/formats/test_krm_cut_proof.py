"""The krm item cut proved against the parser's view of the whole list (issue 23, item 5): the list's key
and every item's start where the parser has them, else the list is read whole; results name only
objects that are in the list."""

from __future__ import annotations

import yaml

from transform.formats.krm import items as krmitems
from transform.integrations import krm

HEAD = "apiVersion: config.kubernetes.io/v1\nkind: ResourceList\n"
ITEM = "- apiVersion: instancetype.kubevirt.io/v1alpha1\n  kind: VirtualMachinePreference\n  metadata: {{name: {}}}\n  spec: {{}}\n"
# a single-quoted scalar opened before a fake `items:` line, closed inside the fake item (`q'` reads as a
# plain scalar when the item is read alone); the real items are under a quoted key
FAKE = HEAD + "note: 'abc\nitems:\n" + ITEM.format("fake") + "  z: q'\n" + '"items":\n' + ITEM.format("real")


def test_a_cut_that_the_parser_does_not_make_is_not_proven() -> None:
    lay = krmitems.layout(FAKE, "\n")
    assert lay is not None  # the text cut finds the fake list
    assert not krmitems.proven(lay, FAKE)


def test_a_cut_that_the_parser_makes_is_proven() -> None:
    text = HEAD + "items:\n" + ITEM.format("a") + "# between\n" + ITEM.format("b") + "# after\nresults: []\n"
    lay = krmitems.layout(text, "\n")
    assert lay is not None and krmitems.proven(lay, text)


def test_results_name_only_objects_in_the_list() -> None:
    out = krm.process(FAKE.encode())
    doc = yaml.safe_load(out.data)
    names = {i["metadata"]["name"] for i in doc["items"]}
    assert names == {"real"} and doc["items"][0]["apiVersion"].endswith("v1beta1")
    assert "fake" in doc["note"] and "v1alpha1" in doc["note"]  # the string is left as it was
    assert all(r.get("resourceRef", {}).get("name", "real") == "real" for r in doc.get("results", []))
