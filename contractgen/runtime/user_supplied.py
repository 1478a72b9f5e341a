"""Arguments only the user can give (the contract's ``user_supplied`` pointers): a call that lacks one
answers INVALID_ARGUMENT with the action ``ask_user``, whose message tells the model to ask the user
instead of the usual "fix the arguments", which invites it to fill the value in."""

from __future__ import annotations

from collections.abc import Sequence

from .contract import Contract
from .wording import Violation, field_label


def missing_user_supplied(contract: Contract, violations: Sequence[Violation]) -> list[Violation]:
    """The violations saying a user-supplied argument is missing, in their order."""
    asked = contract.user_supplied
    if not asked:
        return []
    return [v for v in violations if v.constraint == "required" and v.field in asked]


def ask_user_message(missing: Sequence[Violation], others: int) -> str:
    """What the model reads: which arguments to ask the user for, and not to invent them."""
    names = ", ".join(dict.fromkeys(field_label(v.field) for v in missing))
    one = len(missing) == 1
    text = (
        f"Missing {names}, which only the user can give: ask the user for {'it' if one else 'them'}; "
        f"do not invent or guess {'a value' if one else 'values'}."
    )
    if others:
        text += f" Also fix {others} other problem{'s' if others > 1 else ''} in 'violations'."
    return text + " Then call again."
