"""Options are declared once, become one Settings record, and mean the same in every command."""

from __future__ import annotations

import pathlib
from dataclasses import fields

import click
import pytest
import tomllib

from tests.support.cli import invoke as cli_invoke
from transform.cli import main as main_module
from transform.cli import options
from transform.kubevirt import releases
from transform.model.settings import Settings
from transform.report import formats

ROOT = pathlib.Path(__file__).resolve().parents[2]
OLD = "apiVersion: instancetype.kubevirt.io/v1alpha1\nkind: VirtualMachinePreference\nmetadata:\n  name: p\nspec: {}\n"
RESOURCE_LIST = """\
apiVersion: config.kubernetes.io/v1
kind: ResourceList
items:
- apiVersion: instancetype.kubevirt.io/v1alpha1
  kind: VirtualMachinePreference
  metadata:
    name: p
  spec: {}
"""


def invoke(*args: str, stdin: str | None = None) -> tuple[int, str, str]:
    result = cli_invoke(*args, input=stdin)
    return result.exit_code, result.stdout, result.stderr


def test_one_default_release() -> None:
    assert Settings().target == releases.LATEST


def test_every_format_has_a_renderer() -> None:
    """One list: --format offers the report registry's formats, and --help names each."""
    assert options.FORMATS == tuple(formats.RENDERERS)

    shown = cli_invoke("check", "--help").output
    assert all(name in shown for name in formats.RENDERERS), shown


def test_every_option_lands_in_settings() -> None:
    """The engine's options in its `Settings`, the shell's in `RunOptions` beside it (issue 29 §2): the engine
    never sees output paths or report formats."""
    s = options.settings({"rename": True, "target": (1, 7), "jobs": 2, "fmt": "json", "unrelated": 1})
    assert s == options.RunOptions(Settings(rename=True, target=(1, 7)), jobs=2, fmt="json")
    assert options.settings({"target": None}).engine.target == releases.LATEST
    shell = {"include", "exclude", "context", "jobs", "output_dir", "force", "fmt", "output_file", "quiet", "debug"}
    assert not shell & {f.name for f in fields(Settings)} and shell <= options.SHELL_FIELDS


@pytest.mark.parametrize(
    "argv",
    [
        ["fix", "{tree}"],
        ["check", "{tree}"],
        ["diff", "{tree}"],
        ["validate", "{tree}"],
        ["scan", "{tree}"],
        ["backup", "{tree}/x.tar.gz", "--check"],
        ["krm"],
    ],
)
def test_target_kubevirt_is_parsed_the_same_everywhere(argv: list[str], tmp_path: pathlib.Path) -> None:
    args = [a.replace("{tree}", str(tmp_path)) for a in argv]
    code, _out, err = invoke(*args, "--target-kubevirt", "banana", stdin=RESOURCE_LIST)
    assert code == 2 and "not a KubeVirt release: 'banana'" in err, err
    code, _out, err = invoke(*args, "--target-kubevirt", "2.3", stdin=RESOURCE_LIST)
    assert "KubeVirt 2.3 is newer than the newest release this tool knows (1.9)" in err, err


@pytest.mark.parametrize("argv", [["check", "{tree}"], ["validate", "{tree}"], ["scan", "{tree}"]])
def test_a_cdi_target_newer_than_the_data_is_said_and_judged_as_the_newest(
    argv: list[str], tmp_path: pathlib.Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """As for --target-kubevirt: a CDI release after the newest the bundled CDI CRDs know is not silent."""
    args = [a.replace("{tree}", str(tmp_path)) for a in argv]
    code, _out, err = invoke(*args, "--target-cdi", "v1.70.1")
    assert code == 0 and "CDI v1.70.1 is newer than the newest release this tool knows (1.66)" in err, err
    code, _out, err = invoke(*args, "--target-cdi", "1.66")
    assert code == 0 and "newer than" not in err, err
    (tmp_path / "pyproject.toml").write_text('[tool.instancetype-upgrade]\ntarget-cdi = "2.0"\n')
    monkeypatch.chdir(tmp_path)  # the repository's configuration: the same parser
    code, _out, err = invoke(argv[0], ".")
    assert "CDI 2.0 is newer than the newest release this tool knows (1.66)" in err, err


def test_krm_function_config_reads_the_same_target_parser() -> None:
    from transform.integrations import krm

    settings, found = krm.options({"kind": "ConfigMap", "data": {"target-kubevirt": "v1.7.2"}}, Settings())
    assert settings.target == (1, 7) and not found
    settings, found = krm.options({"kind": "ConfigMap", "data": {"target-kubevirt": "banana"}}, Settings())
    assert found and "not a KubeVirt release" in found[0].message
    settings, found = krm.options({"kind": "ConfigMap", "data": {"target-cdi": "1.70"}}, Settings())
    assert settings.target_cdi == (1, 66)
    assert [(f.severity.value, f.code) for f in found] == [("info", "krm.config")]
    assert "CDI 1.70 is newer than the newest release this tool knows (1.66)" in found[0].message


def test_krm_function_config_keeps_every_other_setting() -> None:
    """functionConfig overrides what it names and nothing else (it used to rebuild Settings by hand)."""
    from transform.integrations import krm

    base = Settings(modernize=True, max_document_bytes=123, rename=True)
    settings, _ = krm.options({"kind": "ConfigMap", "data": {"strict": "true"}}, base)
    assert settings == Settings(modernize=True, max_document_bytes=123, rename=True, strict=True)


def test_no_import_cycle_in_cli() -> None:
    """cmd_* modules never import cli.main (which imports them)."""
    for path in (ROOT / "transform" / "cli").glob("*.py"):
        if path.name != "main.py":
            assert "cli.main" not in path.read_text(), path


def test_exit_codes_defined_once() -> None:
    for path in (ROOT / "transform").rglob("*.py"):
        if path.name != "exits.py":
            assert "EXIT_OK, EXIT_CHANGED" not in path.read_text().replace("import EXIT_OK, EXIT_CHANGED", ""), path
            assert "= 0, 1, " not in path.read_text(), path


def test_configuration_from_pyproject(tmp_path: pathlib.Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / ".git").mkdir()
    (tmp_path / "pyproject.toml").write_text(
        '[tool.instancetype-upgrade]\nexclude = ["exported"]\ntarget-kubevirt = "1.7"\n'
        '[tool.instancetype-upgrade.check]\nformat = "json"\n'
    )
    (tmp_path / "exported").mkdir()
    (tmp_path / "exported" / "old.yaml").write_text(OLD)
    (tmp_path / "kept.yaml").write_text(OLD)
    monkeypatch.chdir(tmp_path)
    code, out, _ = invoke("check", ".")
    assert code == 1
    import json

    report = json.loads(out)  # format = "json" from the check table
    assert report["summary"]["files_seen"] == 1  # exported/ excluded by the shared table
    code, out, _ = invoke("check", ".", "--format", "text")  # the command line wins
    assert "1 file would change" in out


def test_configuration_typo_is_a_usage_error(tmp_path: pathlib.Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / ".git").mkdir()
    (tmp_path / ".instancetype-upgrade.toml").write_text("renmae = true\n")
    monkeypatch.chdir(tmp_path)
    code, _out, err = invoke("check", ".")
    assert code == 2 and "renmae" in err
    (tmp_path / ".instancetype-upgrade.toml").write_text("[check]\nforce = true\n")  # fix only
    code, _out, err = invoke("check", ".")
    assert code == 2 and "check.force" in err


def test_configuration_typo_keeps_help_reachable(tmp_path: pathlib.Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / ".git").mkdir()
    (tmp_path / "pyproject.toml").write_text('[tool.instancetype-upgrade]\ntarget-kubevrt = "1.7"\n')
    monkeypatch.chdir(tmp_path)
    for args in (("--help",), ("check", "--help"), ("fix", "-h"), ("--version",)):
        code, out, err = invoke(*args)
        assert code == 0, (args, err)
        assert "Usage:" in out or "instancetype-upgrade, version" in out, args
        assert "target-kubevrt" in err and "ignored while showing help" in err, args
    code, out, err = invoke()  # no arguments: the group's usage, as without a configuration
    assert "Usage:" in out + err and "ignored while showing help" in err
    code, _out, err = invoke("check", ".")  # a real run still refuses the typo
    assert code == 2 and "target-kubevrt" in err


def test_project_pre_commit_config_runs_the_linters() -> None:
    import yaml

    config = yaml.safe_load((ROOT / ".pre-commit-config.yaml").read_text())
    ids = {hook["id"] for repo in config["repos"] for hook in repo["hooks"]}
    assert {"ruff", "ruff-format", "mypy"} <= ids
    assert tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["name"] == "instancetype-upgrade"


def test_ignored_options_are_usage_errors(tmp_path: pathlib.Path) -> None:
    assert invoke("validate", "--rename", str(tmp_path))[0] == 2
    code, _out, err = invoke("fix", "-", "--output-dir", str(tmp_path), stdin=OLD)
    assert code == 2 and "--output-dir" in err
    assert isinstance(main_module.cli, click.Group)


def test_version_names_the_releases_of_the_bundled_data() -> None:
    """--version: the tool's version and the release range read from the generated index, never typed."""
    import json

    index = json.loads((ROOT / "schemas" / "kubevirt" / "index.json").read_text())
    tags = sorted(
        (s["tag"] for s in index["release_sources"].values()), key=lambda t: [int(x) for x in t[1:].split(".")]
    )
    from transform.kubevirt import gojson_v1_6

    code, out, _ = invoke("--version")
    lines = out.splitlines()
    assert code == 0 and lines[0] == f"instancetype-upgrade, version {main_module.__version__}"
    assert lines[1].startswith(f"KubeVirt {tags[0]} to {tags[-1]} (") and gojson_v1_6.RELEASE in lines[1]
    assert lines[2].startswith("CDI")


NAMES = (
    "instancetype.kubevirt.io",
    "flavor.kubevirt.io",
    "ControllerRevisions",
    "every other KubeVirt and CDI API version",
)


@pytest.mark.parametrize("args", [(), ("fix",), ("check",), ("diff",), ("backup",), ("krm",)])
def test_help_names_everything_the_tool_upgrades(args: tuple[str, ...]) -> None:
    """Issue 24 §4: not "instancetype ... to v1beta1" only: every family the upgrade rewrites."""
    code, out, _ = invoke(*args, "--help")
    text = " ".join(out.split())  # click wraps the lines
    assert code == 0 and all(name in text for name in NAMES), (args, text)


def test_pre_commit_hooks_name_everything_the_tool_upgrades() -> None:
    import yaml

    for hook in yaml.safe_load((ROOT / ".pre-commit-hooks.yaml").read_text()):
        assert all(name in hook["description"] for name in NAMES), hook["id"]
        assert "CDI" in hook["name"], hook["id"]


def test_the_groups_the_help_names_are_the_api_tables() -> None:
    import re

    from transform.kubevirt import apis

    groups = {row.group for row in apis.TABLE}
    named = re.search(r"\((kubevirt\.io, [^)]*), \.\.\.\)", options.WHAT_IT_UPGRADES)
    assert named, options.WHAT_IT_UPGRADES
    for name in named.group(1).split(", "):
        assert name in groups or f"{name}.kubevirt.io" in groups, name
