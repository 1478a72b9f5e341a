"""Pure helpers behind `contractgen check`: the name mapping and the leak patterns."""

from __future__ import annotations

import keyword

import pytest
from hypothesis import given
from hypothesis import strategies as st

from contractgen.manifest.leaks import find_leaks
from contractgen.naming import (
    TOOL_NAME_PATTERN,
    class_prefix,
    error_class_problem,
    module_name,
    python_identifier,
)

portable_names = st.from_regex(TOOL_NAME_PATTERN, fullmatch=True)


@given(portable_names, st.integers(0, 99))
def test_every_portable_name_maps_to_python_names(name: str, major: int) -> None:
    ident = python_identifier(name)
    assert (
        ident.isidentifier() and not keyword.iskeyword(ident) and not keyword.issoftkeyword(ident)
    )
    assert module_name(name, major).isidentifier() and module_name(name, major).endswith(
        f"_v{major}"
    )
    prefix = class_prefix(name)
    assert prefix.isidentifier() and not keyword.iskeyword(prefix)


@pytest.mark.parametrize(
    ("name", "ident", "module", "prefix"),
    [
        ("book_meeting", "book_meeting", "book_meeting_v2", "BookMeeting"),
        ("book-meeting", "book_meeting", "book_meeting_v2", "BookMeeting"),
        ("3d-print", "tool_3d_print", "tool_3d_print_v2", "Tool3dPrint"),
        ("import", "import_", "import__v2", "Import"),
        ("match", "match_", "match__v2", "Match"),
        ("SearchDocs", "SearchDocs", "searchdocs_v2", "SearchDocs"),
        ("_3d", "_3d", "_3d_v2", "Tool3d"),
    ],
)
def test_documented_name_mapping(name: str, ident: str, module: str, prefix: str) -> None:
    assert (python_identifier(name), module_name(name, 2), class_prefix(name)) == (
        ident,
        module,
        prefix,
    )


@pytest.mark.parametrize(
    ("class_name", "problem"),
    [
        ("None", "keyword"),
        ("class", "keyword"),
        ("TimeoutError", "built-in"),
        ("ToolError", "runtime"),
        ("BookMeetingInput", "derives"),
        ("SlotTaken", None),
        ("Match", None),
    ],
)
def test_error_class_problems(class_name: str, problem: str | None) -> None:
    found = error_class_problem(class_name, "book_meeting")
    assert (found is None) if problem is None else (found is not None and problem in found)


@pytest.mark.parametrize(
    ("message", "kind"),
    [
        ("KeyError: 'user'", "an exception class name"),
        ("IOError while reading", "an exception class name"),
        ("java.lang.NullPointerException", "an exception class name"),
        ("Traceback (most recent call last):", "a stack trace"),
        ('File "/srv/app/main.py", line 3, in run', "a stack-trace line"),
        ("at com.acme.Orders.find(Orders.java:42)", "a stack-trace line"),
        ("at Object.handler (/var/task/index.js:12:7)", "a stack-trace line"),
        ("goroutine 17 [running]:", "a stack-trace line"),
        ("failed in orders.go:88", "a stack-trace line"),
        ("jdbc:mysql://db/orders", "a JDBC connection string"),
        ("mongodb+srv://cluster0.example.net", "a database connection URL"),
        ("https://user:pa55@api.example.com/v1", "a URL with credentials"),
        ("see /home/deploy/app/config.yml", "a file-system path"),
        ("see C:\\Users\\svc\\app.ini", "a file-system path"),
        ("see ~/secrets.txt", "a file-system path"),
        ("use the key sk_live_51HxAbCdEfGhIjKlMnOp", "a credential"),
        ("sign in with ghp_aBcDeFgHiJkLmNoPqRsTuVwXyZ0123456789", "a credential"),
        ("SELECT id, email FROM users WHERE", "an SQL statement"),
    ],
)
def test_leaks_are_found(message: str, kind: str) -> None:
    assert kind in [leak.kind for leak in find_leaks(message)]


@pytest.mark.parametrize(
    "message",
    [
        "The slot is already booked. Pick another start_date from the user's free time.",
        "time_zone is not a known IANA zone. Use a name like Europe/Paris or America/New_York.",
        "The value at /filters/owner is not a known user. Ask for the owner's e-mail address.",
        "Error: the rates provider is throttling calls. Wait retry_after seconds, then call again.",
        "Send the date as YYYY-MM-DD, for example 2026-11-27.",
        "Open https://example.com/help for the refund policy, then tell the user.",
        "Select a smaller amount from the remaining balance and call again.",
        "The EUR/USD rate is not published on weekends; ask for a weekday.",
    ],
)
def test_ordinary_instructions_are_not_leaks(message: str) -> None:
    assert find_leaks(message) == []
