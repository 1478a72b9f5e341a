"""A contract built with the real CLI for the signal tests (what the tool tried, arguments only the
user can give, escalation): ``find_orders`` searches a customer's orders."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

from build_support import build, imported_package, make_project

MANIFEST = """\
name: find_orders
version: 1.0.0
summary: Find a customer's orders by keywords.
description: Searches the orders of one customer account by product keywords. Use it when the user asks about an order without its number.
input:
  type: object
  additionalProperties: false
  required: [query, api_key, account_number]
  properties:
    query:
      type: string
      minLength: 2
      maxLength: 500
      description: Product keywords to search for.
    api_key:
      type: string
      writeOnly: true
      description: Key of the order archive.
    account_number:
      type: string
      pattern: "^[0-9]{8}$"
      description: The customer's eight-digit account number.
user_supplied: [/account_number]
output:
  type: object
  additionalProperties: false
  required: [orders, query_run]
  properties:
    orders:
      type: array
      description: Matching order numbers, newest first.
      items: {type: string}
    query_run:
      type: string
      description: The query the search ran, after spelling correction.
empty_result:
  pointer: /orders
  meaning: No order matches these keywords. Tell the user nothing was found.
  attempted: /query_run
errors:
  - class: ArchiveMissing
    code: NOT_FOUND
    message: The archive holds no orders for these keywords.
    field: /query
  - class: AccountLocked
    code: PERMISSION_DENIED
    message: This account is locked; an operator must unlock it.
examples:
  - arguments: {query: blue kettle, api_key: k-0123456789abcdef, account_number: "12345678"}
"""


def built_orders(root: Path) -> Iterator[Any]:
    """The generated ``find_orders_v1`` module of a fresh build of ``MANIFEST`` under ``root``."""
    make_project(root)
    (root / "contracts" / "find_orders").mkdir()
    (root / "contracts" / "find_orders" / "1.0.0.yaml").write_text(MANIFEST, "utf-8")
    result = build(root)
    assert result.returncode == 0, result.stdout + result.stderr
    with imported_package(root) as package:
        yield package.find_orders_v1
