"""``contractgen init``: the text of a new, fully commented manifest that passes ``check`` as it is.

Every manifest field appears, either filled with a small working example (one argument, one result
field, two errors, one example call) or commented out with what it is for.
"""

from __future__ import annotations

from pathlib import Path

from .diagnostics import Diagnostic
from .importer.manifest import schema_comment
from .importer.yaml_text import dump_block
from .naming import TOOL_NAME_PATTERN

DEFAULT_VERSION = "1.0.0"

_BODY = """\
# description: when the model should use the tool, and when it should not. The build adds the
# declared errors and the timeout and retry rules to the model-facing text (and, with
# `describe_parameters = true` in [tool.contractgen], the parameters and results); do not repeat them.
description: >-
  TODO: say when to use {name} and when not to. Until then it looks up one record by its id.

# input: the arguments, JSON Schema 2020-12 with an object root. `additionalProperties: false`
# rejects misspelled argument names; give every property a description (the model reads it).
input:
  type: object
  additionalProperties: false
  required: [id]
  properties:
    id:
      type: string
      minLength: 1
      description: Identifier of the record to look up.
      examples: ["rec_123"]

# output: what a successful call returns, an object schema. Every result is checked against it
# before it is returned, so a malformed result becomes an error instead of a silent success.
output:
  type: object
  additionalProperties: false
  required: [id, value]
  properties:
    id: {{type: string, description: Identifier of the record.}}
    value: {{type: string, description: The record's content.}}

# empty_result: where a valid "looked, found nothing" shows in the output, and what it means.
# empty_result:
#   pointer: /items
#   meaning: No record matches; tell the user nothing was found rather than retrying.
#   attempted: /query_run  # output field holding what was searched for, shown when empty

# partial_results: true when an error may carry the part of the work that succeeded.
partial_results: false

# user_supplied: arguments only the user can give (pointers to required ones); a call without one
# is told to ask the user (action ask_user), never to invent the value.
# user_supplied: [/id]
# result_rules: checked by the guard on every result before it is returned. integrity: a field is
# the hash of another (`*` stands for every array item); freshness: a date-time field is recent.
# result_rules:
#   - rule: integrity
#     field: /content_hash
#     hash_of: /value
#     algorithm: sha256
#   - rule: freshness
#     field: /fetched_at
#     max_age: PT24H

# errors: every error the tool can return. `code` is one of INVALID_ARGUMENT, VERSION_MISMATCH,
# NOT_FOUND, CONFLICT, FAILED_PRECONDITION, PERMISSION_DENIED, RATE_LIMITED, UNAVAILABLE, TIMEOUT,
# INTERNAL; each code implies a category, `retryable` and an `action` (fix_arguments, retry_later,
# stop_and_tell_user, escalate) that you may override. `message` is what the model reads: say
# what to do next, never internals. `field` points at the argument concerned. Argument checks,
# timeouts and unexpected exceptions need no entry: the guard reports them itself.
errors:
  - class: RecordNotFound
    code: NOT_FOUND
    message: No record has this id. Check the id with the user before calling again.
    field: /id
    description: Raised when the id is well-formed but unknown.
  - class: BackendUnavailable
    code: UNAVAILABLE
    message: The records service is temporarily unavailable. Wait a little, then call again with the same arguments.
    description: Raised when the records service cannot be reached.
    # retry_after: 5          # seconds, when you know how long to wait
    # retryable: true         # override the code's default
    # action: retry_later     # override the code's default

# retry: what the model may retry and how; failure_budget is how many consecutive retry_later
# failures (per tool, per session) are allowed before the error tells the model to stop.
retry:
  retryable_codes: [RATE_LIMITED, UNAVAILABLE, TIMEOUT]
  backoff: {{initial: 0.5, multiplier: 2, maximum: 30, jitter: true}}
  failure_budget: 3

# timeout: the per-call deadline in seconds (null: none); long_running for slow jobs.
timeout:
  seconds: 10
  long_running: false

# dependency: the upstream service this tool calls. Tools naming the same dependency share one
# circuit breaker across sessions and processes: after `failures` consecutive retry_later failures
# it opens, calls fail fast with UNAVAILABLE, and after `open_for` seconds one probe call goes through.
# dependency:
#   name: records-api
#   breaker: {{failures: 5, window: 60, open_for: 30}}

# state_unreachable: when shared state (a Redis budget or breaker) cannot be reached, `allow` runs
# calls uncounted (fail open, the default) and `refuse` stops retries (fail closed).
# state_unreachable: allow

# migrations: how callers of earlier versions move to this one (from a 2.0.0 onwards). A call
# shaped like an older version then gets VERSION_MISMATCH with these steps.
# migrations:
#   - from: ">=1,<2"
#     renamed: {{old_argument: new_argument}}
#     removed: {{dropped_argument: What to do instead.}}
#     changed: {{argument: How its meaning changed.}}
#     notes: Anything else the caller must know.

# deprecated: mark this version for retirement once a successor exists.
# deprecated:
#   since: 2.0.0
#   sunset: "2027-12-31"
#   replacement: {name} 2.0.0
#   message: Use version 2, which ...

# annotations: behaviour hints for clients (MCP readOnlyHint, destructiveHint, ...).
annotations:
  read_only: true
  destructive: false
  idempotent: true
  open_world: true

# icons: images MCP clients may show for the tool (MCP Tool.icons), served as given.
# icons:
#   - src: https://example.com/lookup.png
#     mimeType: image/png
#     sizes: [48x48]

# meta: extra metadata for MCP clients (Tool._meta), served as given; contractgen/ keys are reserved.
# meta: {{vendor/team: records}}

# examples: calls the model can copy; `contractgen check` validates each against `input`.
examples:
  - summary: Look up one record
    arguments: {{id: rec_123}}

# preconditions: calls the guard refuses before the tool runs; `when` is a JSON Schema over the
# arguments (a call it accepts is refused with this code and message).
# preconditions:
#   - when: {{properties: {{id: {{const: rec_000}}}}, required: [id]}}
#     code: PERMISSION_DENIED
#     message: Record rec_000 is reserved. Do not retry; tell the user.

# confirmation: calls that wait for a human's confirmation, given through the host, never by the
# model; `when` is a JSON Schema over the arguments, or `always`; `{{name}}` in the summary is that argument.
# confirmation:
#   when: always
#   summary: Look up record {{id}}
"""


def scaffold_text(name: str, *, version: str = DEFAULT_VERSION, schema_ref: str | None) -> str:
    title = " ".join(part for part in name.replace("-", "_").split("_") if part).capitalize() or name
    header = (
        schema_comment(schema_ref)
        + "# A new tool contract, scaffolded by `contractgen init`: edit every TODO and the example\n"
        "# argument, result and errors, then run `contractgen check` and `contractgen build`.\n"
        "\n"
        "# name: what models call the tool; portable across OpenAI, Anthropic and MCP.\n"
    )
    return (header + dump_block("name", name)
            + "# version: semantic version; the file is named after it. Bump the major for any change\n"
              "# that breaks callers (`contractgen diff` finds them).\n"
            + dump_block("version", version)
            + "# title: display name for people.\n"
            + dump_block("title", title[:100])
            + "# summary: one sentence, what the tool does (at most 200 characters).\n"
            + dump_block("summary", f"TODO: say in one sentence what {name} does.")
            + _BODY.format(name=name))


def invalid_name(name: str) -> Diagnostic | None:
    if TOOL_NAME_PATTERN.match(name):
        return None
    return Diagnostic("NAME", "", f"expected a portable tool name matching ^[a-zA-Z0-9_-]{{1,64}}$ (got {name!r})",
                      code="invalid-name", hint="use letters, digits, _ and -, e.g. get_weather")


def target_path(out: Path, name: str, version: str = DEFAULT_VERSION) -> Path:
    return out / name / f"{version}.yaml"
