"""The site's reference pages, written from the code's own data when the site is built (an MkDocs
hook), so they cannot drift: the CLI's commands and options (from the Typer app), the diff rule
catalogue (the rule registry), the manifest fields (the meta-schema) and the runtime's error codes
and actions (the code table). ``reference_pages()`` is also what tests/test_docs_site.py compares."""

from __future__ import annotations

import json
from importlib import resources
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]

#: page path (under docs/) -> title; the order of the site's Reference section
PAGES = {
    "reference/cli.md": "Command line",
    "reference/rules.md": "Diff rules",
    "reference/manifest-fields.md": "Manifest fields",
    "reference/error-codes.md": "Error codes",
}
_GENERATED = "<!-- generated from the code by docs/hooks/reference.py when the site is built -->"


def _cell(text: object) -> str:
    """One table cell: one line, pipes escaped, and angle brackets outside code spans shown as text."""
    parts = " ".join(str(text).split()).replace("|", "\\|").split("`")
    return "`".join(
        p if i % 2 else p.replace("<", "&lt;").replace(">", "&gt;") for i, p in enumerate(parts)
    )


def cli_page() -> str:
    import typer

    from contractgen.cli import app

    root = typer.main.get_command(app)
    lines = [
        f"# {PAGES['reference/cli.md']}",
        "",
        _GENERATED,
        "",
        (
            "Exit codes: 0 clean, 1 findings or drift, 2 invalid input or usage (with a `hint:` saying what to "
            "do next). `contractgen COMMAND --help` prints the same."
        ),
        "",
    ]
    for name, command in sorted(root.commands.items()):  # type: ignore[attr-defined]
        lines += [
            f"## `contractgen {name}`",
            "",
            _cell((command.help or "").split("\n\n")[0]),
            "",
            "| argument or option | takes | meaning |",
            "|---|---|---|",
        ]
        for param in command.params:
            if getattr(param, "param_type_name", "") == "argument":
                lines.append(
                    f"| `{param.name.upper()}` | {'one or more' if param.nargs == -1 else 'one'} | "
                    f"{_cell(getattr(param, 'help', '') or '')} |"
                )
                continue
            names = ", ".join(f"`{o}`" for o in (*param.opts, *param.secondary_opts))
            takes = (
                "flag"
                if param.is_flag
                else (
                    f"`{param.metavar}`"
                    if param.metavar
                    else _choices(param) or f"`{param.bare_type()}`"
                )
            )
            lines.append(f"| {names} | {takes} | {_cell(param.help or '')} |")
        lines.append("")
    return "\n".join(lines)


def _choices(param: Any) -> str:
    choices = getattr(getattr(param, "type_descriptor", None), "choices", None)
    return " \\| ".join(f"`{getattr(c, 'value', c)}`" for c in choices) if choices else ""


def rules_page() -> str:
    from contractgen.diff.catalogue import render_summary
    from contractgen.diff.levels import GROUPS

    lines = [
        f"# {PAGES['reference/rules.md']}",
        "",
        _GENERATED,
        "",
        (
            "The same rules as `contractgen diff --list-rules`, each with a before and after from its test "
            "case. Override a level per group or rule in `[tool.contractgen.diff.levels]` ([Diff](../diff.md))."
        ),
        "",
        "| group | meaning |",
        "|---|---|",
    ]
    lines += [f"| `{name}` | {_cell(meaning)} |" for name, meaning in GROUPS.items()]
    lines += ["", render_summary(ROOT / "tests" / "cases" / "diff", "../diff.md")]
    return "\n".join(lines)


def _schema_type(node: dict[str, Any]) -> str:
    if "enum" in node:
        return "one of " + ", ".join(f"`{v}`" for v in node["enum"])
    kind = node.get("type", "any")
    if kind == "array" and isinstance(node.get("items"), dict) and "type" in node["items"]:
        return f"array of {node['items']['type']}"
    return " or ".join(kind) if isinstance(kind, list) else str(kind)


def _fields(node: dict[str, Any], prefix: str, depth: int) -> list[str]:
    required = set(node.get("required", ()))
    rows = []
    for name, child in node.get("properties", {}).items():
        path = f"{prefix}{name}"
        rows.append(
            f"| `{path}` | {'yes' if name in required else ''} | {_cell(_schema_type(child))} | "
            f"{_cell(child.get('description', ''))} |"
        )
        inner = child.get("items") if child.get("type") == "array" else child
        if depth < 2 and isinstance(inner, dict) and "properties" in inner:
            rows += _fields(inner, f"{path}{'[]' if inner is not child else ''}.", depth + 1)
    return rows


def manifest_page() -> str:
    schema = json.loads(
        resources.files("contractgen.schema").joinpath("manifest.schema.json").read_text("utf-8")
    )
    lines = [
        f"# {PAGES['reference/manifest-fields.md']}",
        "",
        _GENERATED,
        "",
        (
            f"Every field of a manifest, from the meta-schema that `contractgen check` applies first "
            f"(`contractgen/schema/manifest.schema.json`, `$id` {schema['$id']}). `check` adds the rules the "
            "meta-schema cannot say ([manifest](../manifest.md))."
        ),
        "",
        "| field | required | type | meaning |",
        "|---|---|---|---|",
        *_fields(schema, "", 0),
    ]
    return "\n".join(lines) + "\n"


def error_codes_page() -> str:
    from contractgen.runtime.codes import ACTIONS, CATEGORIES, CODES

    lines = [
        f"# {PAGES['reference/error-codes.md']}",
        "",
        _GENERATED,
        "",
        (
            "The closed set of codes a guarded tool's error envelope carries, with the defaults a manifest's "
            "error entry may override (`retryable`, `action`)."
        ),
        "",
        "| code | category | retryable | action | meaning |",
        "|---|---|---|---|---|",
    ]
    lines += [
        f"| `{c.code}` | {c.category} | {'yes' if c.retryable else 'no'} | `{c.action}` | {_cell(c.meaning)} |"
        for c in CODES.values()
    ]
    lines += ["", "## Actions", "", "| action | what the model does |", "|---|---|"]
    lines += [f"| `{name}` | {_cell(text)} |" for name, text in ACTIONS.items()]
    lines += ["", "## Categories", "", "| category | meaning |", "|---|---|"]
    lines += [f"| `{name}` | {_cell(text)} |" for name, text in CATEGORIES.items()]
    return "\n".join(lines) + "\n"


def reference_pages() -> dict[str, str]:
    return {
        "reference/cli.md": cli_page(),
        "reference/rules.md": rules_page(),
        "reference/manifest-fields.md": manifest_page(),
        "reference/error-codes.md": error_codes_page(),
    }


def on_files(files: Any, config: Any) -> Any:
    """MkDocs hook: add the reference pages to the site as generated files."""
    from mkdocs.structure.files import File

    for path, text in reference_pages().items():
        files.append(File.generated(config, path, content=text))
    return files
