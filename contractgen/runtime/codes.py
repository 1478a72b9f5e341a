"""The closed error-code set: every code's category, default retryability and next-step action.

This table is the vocabulary that manifests, the runtime envelope, generated descriptions and the
diff rules all speak. It follows gRPC's canonical codes and Google AIP-193, narrowed to what a
model calling a tool can act on.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from types import MappingProxyType

#: What the model should do next. Defined once for all tools (see the agent-instruction snippet).
ACTIONS: Mapping[str, str] = MappingProxyType(
    {
        "fix_arguments": "Change the arguments as the message says, then call the tool again.",
        "retry_later": "Wait at least retry_after seconds (or a short backoff), then call again unchanged.",
        "stop_and_tell_user": "Do not call the tool again for this request; tell the user what happened.",
        "escalate": "Do not retry; ask the user (or an operator) to resolve the blocker first.",
        "ask_user": "Ask the user for the missing value; never invent or guess it. Then call again with it.",
        "confirm_with_user": ("Ask the user to confirm exactly what the message says will happen; the host "
                              "records their answer. Call again unchanged only once they agreed."),
    }
)

#: Broad families of failure, for dashboards and for deciding who must act.
CATEGORIES: Mapping[str, str] = MappingProxyType(
    {
        "validation": "The arguments do not match the contract; the caller can fix them.",
        "business": "The request was understood but a business rule or the data prevents it.",
        "permission": "The caller is not allowed to do this.",
        "transient": "A temporary condition; the same call may succeed later.",
        "internal": "A defect on the tool's side; retrying will not help.",
    }
)


@dataclass(frozen=True)
class CodeDefaults:
    """Defaults for one error code; a manifest's error entry may override retryable and action."""

    code: str
    category: str
    retryable: bool
    action: str
    meaning: str


_TABLE = (
    CodeDefaults("INVALID_ARGUMENT", "validation", True, "fix_arguments",
                 "An argument is missing, unknown, of the wrong type or violates a constraint."),
    CodeDefaults("VERSION_MISMATCH", "validation", True, "fix_arguments",
                 "The call is shaped like another version of this tool's contract."),
    CodeDefaults("NOT_FOUND", "business", False, "stop_and_tell_user",
                 "The thing the arguments point at does not exist."),
    CodeDefaults("CONFLICT", "business", True, "fix_arguments",
                 "The request clashes with the current state; other arguments may succeed."),
    CodeDefaults("FAILED_PRECONDITION", "business", False, "escalate",
                 "A business rule blocked the request."),
    CodeDefaults("PERMISSION_DENIED", "permission", False, "escalate",
                 "The caller is not allowed to do this."),
    CodeDefaults("RATE_LIMITED", "transient", True, "retry_later",
                 "Too many calls; wait for retry_after before calling again."),
    CodeDefaults("UNAVAILABLE", "transient", True, "retry_later",
                 "A dependency is temporarily unavailable."),
    CodeDefaults("TIMEOUT", "transient", True, "retry_later",
                 "The call did not finish within its deadline."),
    CodeDefaults("INTERNAL", "internal", False, "stop_and_tell_user",
                 "An unexpected failure inside the tool."),
    CodeDefaults("CONFIRMATION_REQUIRED", "permission", False, "confirm_with_user",
                 "The call needs the user's confirmation, given through the host, before it runs."),
    CodeDefaults("CONFIRMATION_DENIED", "permission", False, "stop_and_tell_user",
                 "The user declined to confirm the call; it did not run."),
)

#: Code name -> defaults, in the order above (validation first, internal, then the human step).
CODES: Mapping[str, CodeDefaults] = MappingProxyType({entry.code: entry for entry in _TABLE})

#: Codes whose default action is to retry later; these count against the failure budget.
TRANSIENT_CODES = frozenset(c.code for c in _TABLE if c.action == "retry_later")


def retry_withheld(code: str, retryable: bool | None, action: str | None, listed: frozenset[str] | tuple[str, ...]) -> bool:
    """Whether the runtime tells callers NOT to retry an error of ``code``: a transient code that
    the contract's ``retry.retryable_codes`` (``listed``) leaves out, on an error that writes neither
    ``retryable`` nor ``action`` (what an error writes itself wins). The one reading of the two fields
    that the guard, the generated description and ``contractgen diff`` share."""
    return retryable is None and action is None and code in TRANSIENT_CODES and code not in listed
