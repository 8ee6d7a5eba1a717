"""The README's command synopsis is the parser's own usage text (issue 39 item 7)."""

from __future__ import annotations

import importlib.util
import os
import subprocess
import sys

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def synopsis_module():
    spec = importlib.util.spec_from_file_location(
        "cli_synopsis", os.path.join(ROOT, "docs", "cli_synopsis.py")
    )
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.mark.parametrize("name", ["README.md", os.path.join("docs", "guide", "cli.md")])
def test_each_copy_of_the_synopsis_equals_the_parsers_usage(name):
    tool = synopsis_module()
    assert name in tool.COPIES
    with open(os.path.join(ROOT, name), encoding="utf-8") as f:
        text = f.read()
    assert tool.START in text and tool.END in text
    assert tool.readme_block(text) == tool.synopsis(), (
        f"{name}'s command synopsis differs from the parser: run "
        "`.venv/bin/python docs/cli_synopsis.py --write`"
    )


def test_synopsis_names_every_command_and_the_options_a_real_table_needs():
    synopsis = synopsis_module().synopsis()
    for command in ("learn", "score", "predict", "sample", "query", "explain", "show"):
        assert f"treelearn {command} " in synopsis
    for option in ("--numeric", "--sep", "--encoding", "--decimal", "--thousands", "--numbers"):
        assert option in synopsis


@pytest.mark.slow
def test_synopsis_equals_the_installed_commands_help():
    # the installed console script prints the same usage (at the same width) as the parser
    tool = synopsis_module()
    installed = os.path.join(os.path.dirname(sys.executable), "treelearn")
    if not os.path.exists(installed):
        pytest.skip("the treelearn console script is not installed next to this Python")
    usages = []
    for command in tool.commands():
        proc = subprocess.run(
            [installed, command, "--help"],
            capture_output=True,
            text=True,
            env={**os.environ, "COLUMNS": tool.WIDTH},
            timeout=120,
        )
        assert proc.returncode == 0, proc.stderr
        usage = proc.stdout.split("\n\n")[0].removeprefix("usage: ")
        usages.append(usage.rstrip().replace("\n" + " " * 7, "\n"))
    assert "\n".join(usages) + "\n" == tool.synopsis()
