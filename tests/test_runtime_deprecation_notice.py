"""A deprecated tool version succeeds with a deprecation notice in the envelope, once per session:
through the generated book_meeting 1.2.0 stub (sync and async), in a LangChain agent loop, and with
the migration steps the compiler reads from the replacement's manifest."""

from __future__ import annotations

import asyncio
import dataclasses
import json
import shutil
from pathlib import Path
from typing import Any

import pytest
from conftest import ROOT, run_cli

from contractgen.manifest import load_contracts
from contractgen.runtime import Timeout, guard
from contractgen.runtime.deprecation_notice import compile_deprecation_notice
from contractgen.testing import envelope_problems
from generated import book_meeting_v1, book_meeting_v2

CALL = dict(book_meeting_v1.CONTRACT.examples[0].arguments)
BOOKED = {"meeting_id": "m-1", "starts_at": "2026-12-01T15:00:00+01:00"}
STEPS = [
    "rename 'date' to 'start_date'",
    "remove 'notify': Invitations are now always e-mailed to attendees; drop notify from the call.",
    "'start_date' changed meaning: Now local time without an offset; send the zone separately in time_zone.",
    (
        "'attendees' changed meaning: Each attendee is now an object {email, optional} instead of an "
        "e-mail string."
    ),
    "note: Version 2 needs time_zone, an IANA zone name such as Europe/Paris.",
]


def booking_tool(**options: Any) -> Any:
    return book_meeting_v1.book_meeting.implement(lambda args: dict(BOOKED), **options)


def test_the_first_success_of_a_session_carries_the_notice_and_later_ones_do_not() -> None:
    tool = booking_tool()
    first = tool(CALL, session="conv-1")
    assert first["status"] == "ok" and first["output"] == BOOKED
    assert first["deprecation"] == {
        "message": "book_meeting 1.2.0 is deprecated since 2.0.0 and is removed after 2027-06-30. Use "
        "version 2, which takes start_date instead of date. Move to book_meeting 2.0.0 following the "
        "steps in 'migration'; this call still succeeded.",
        "replacement": "book_meeting 2.0.0",
        "sunset": "2027-06-30",
        "migration": STEPS,
    }
    assert envelope_problems(first, book_meeting_v1.CONTRACT) == []
    assert "deprecation" not in tool(CALL, session="conv-1")
    # another session is told too, once
    assert "deprecation" in tool(CALL, session="conv-2")
    assert "deprecation" not in tool(CALL, session="conv-2")


def test_async_calls_and_the_inline_path_tell_each_session_once() -> None:
    async def book(args: Any) -> dict[str, Any]:
        return dict(BOOKED)

    tool = book_meeting_v1.book_meeting.implement(book)
    envelopes = [asyncio.run(tool.acall(CALL, session="s")) for _ in range(2)]
    assert ["deprecation" in e for e in envelopes] == [True, False]
    inline = guard(
        dataclasses.replace(book_meeting_v1.CONTRACT, timeout=Timeout(seconds=None)),
        lambda args: dict(BOOKED),
    )
    assert "deprecation notice" in inline.plan
    assert ["deprecation" in inline(CALL, session="s") for _ in range(2)] == [True, False]


def test_a_failure_does_not_use_up_the_notice() -> None:
    answers: list[Any] = [book_meeting_v1.SlotTaken(), dict(BOOKED), dict(BOOKED)]

    def book(args: Any) -> Any:
        answer = answers.pop(0)
        if isinstance(answer, Exception):
            raise answer
        return answer

    tool = book_meeting_v1.book_meeting.implement(book)
    failed = tool(CALL, session="s")
    assert failed["status"] == "error" and "deprecation" not in failed
    assert "deprecation" in tool(CALL, session="s")
    assert "deprecation" not in tool(CALL, session="s")


def test_a_version_that_is_not_deprecated_has_no_notice() -> None:
    assert compile_deprecation_notice(book_meeting_v2.CONTRACT) is None
    args = dict(book_meeting_v2.CONTRACT.examples[0].arguments)
    tool = book_meeting_v2.book_meeting.implement(
        lambda a: {
            "meeting_id": "m",
            "starts_at": "2026-12-01T15:00:00+01:00",
            "status": "confirmed",
        }
    )
    envelope = tool(args, session="s")
    assert envelope["status"] == "ok" and "deprecation" not in envelope


def test_sessions_remembered_are_bounded_and_the_least_recent_is_told_again() -> None:
    notify = compile_deprecation_notice(book_meeting_v1.CONTRACT, sessions=2)
    assert notify is not None

    def told(session: str) -> bool:
        envelope: dict[str, Any] = {"status": "ok"}
        notify(envelope, session)
        return "deprecation" in envelope

    assert [told(s) for s in ("a", "b", "a", "c")] == [
        True,
        True,
        False,
        True,
    ]  # c forgets b, not a
    assert [told(s) for s in ("a", "c", "b")] == [False, False, True]
    # a notice is a fresh copy: a caller editing one envelope changes no other
    first: dict[str, Any] = {"status": "ok"}
    notify(first, "d")
    first["deprecation"]["migration"].clear()
    second: dict[str, Any] = {"status": "ok"}
    notify(second, "e")
    assert second["deprecation"]["migration"] == STEPS


def test_migration_steps_come_from_the_replacements_manifest() -> None:
    loaded = load_contracts([ROOT / "contracts" / "book_meeting"])
    old, new = loaded.contracts.tools
    assert (
        old.contract.deprecation is not None and list(old.contract.deprecation.migration) == STEPS
    )
    assert new.contract.deprecation is None


def test_a_rebuild_refreshes_the_steps_when_only_the_replacement_changed(tmp_path: Path) -> None:
    """The deprecated module holds text from another manifest: the build cache must see it change."""
    project = tmp_path / "project"
    shutil.copytree(ROOT / "contracts" / "book_meeting", project / "contracts" / "book_meeting")
    build = ["build", "--contracts", "contracts", "--output", "out"]
    assert run_cli(*build, cwd=project).returncode == 0
    replacement = project / "contracts" / "book_meeting" / "2.0.0.yaml"
    replacement.write_text(
        replacement.read_text().replace(
            "an IANA zone name such as Europe/Paris", "an IANA zone name such as Asia/Tokyo"
        )
    )
    result = run_cli(*build, cwd=project)
    assert result.returncode == 0, result.stderr
    assert "such as Asia/Tokyo." in (project / "out" / "book_meeting_v1.py").read_text()


def test_the_notice_reaches_the_model_once_in_a_langchain_agent_loop() -> None:
    pytest.importorskip("langchain_core")
    from langchain_core.language_models import GenericFakeChatModel
    from langchain_core.messages import AIMessage, BaseMessage, HumanMessage, ToolMessage

    from contractgen.adapters.langchain import langchain_tool

    class ScriptedChat(GenericFakeChatModel):
        """Books two meetings, one tool call per turn, then answers with what the tools said."""

        def bind_tools(self, tools: Any, **_: Any) -> Any:
            return self

        def _generate(self, messages: list[BaseMessage], *args: Any, **kwargs: Any) -> Any:
            results = [m for m in messages if isinstance(m, ToolMessage)]
            reply = (
                AIMessage("done")
                if len(results) == 2
                else AIMessage(
                    "",
                    tool_calls=[{"name": "book_meeting", "args": CALL, "id": f"c{len(results)}"}],
                )
            )
            self.messages = iter([reply])
            return super()._generate(messages, *args, **kwargs)

    tool = langchain_tool(booking_tool())
    model = ScriptedChat(messages=iter(())).bind_tools([tool])
    config = {"configurable": {"session_id": "conv-7"}}
    messages: list[BaseMessage] = [HumanMessage("Book the review twice")]
    while True:
        reply = model.invoke(messages, config)
        messages.append(reply)
        if not reply.tool_calls:
            break
        messages += [
            tool.invoke({**call, "type": "tool_call"}, config) for call in reply.tool_calls
        ]
    seen = [json.loads(m.content) for m in messages if isinstance(m, ToolMessage)]
    assert [e["status"] for e in seen] == ["ok", "ok"]
    assert seen[0]["deprecation"]["replacement"] == "book_meeting 2.0.0"
    assert seen[0]["deprecation"]["migration"][0] == "rename 'date' to 'start_date'"
    assert "deprecation" not in seen[1]


def test_diff_does_not_count_steps_read_from_the_replacement_as_a_change(tmp_path: Path) -> None:
    """Only book_meeting 2.0.0's manifest changed (and its version): 1.2.0, whose contract now holds
    other steps, is the same manifest and gets no finding."""
    for side in ("old", "new"):
        shutil.copytree(ROOT / "contracts" / "book_meeting", tmp_path / side / "book_meeting")
    replacement = tmp_path / "new" / "book_meeting" / "2.0.0.yaml"
    text = replacement.read_text().replace(
        "an IANA zone name such as Europe/Paris", "an IANA zone name"
    )
    replacement.unlink()
    (replacement.parent / "2.0.1.yaml").write_text(text.replace("version: 2.0.0", "version: 2.0.1"))
    old_only = tmp_path / "old" / "book_meeting" / "1.2.0.yaml"
    assert old_only.read_bytes() == (tmp_path / "new" / "book_meeting" / "1.2.0.yaml").read_bytes()
    result = run_cli("diff", "old", "new", "--format", "json", cwd=tmp_path)
    findings = json.loads(result.stdout)["findings"]
    assert [f for f in findings if f["old_version"] == "1.2.0"] == [], findings
    assert result.returncode == 0, result.stdout + result.stderr
