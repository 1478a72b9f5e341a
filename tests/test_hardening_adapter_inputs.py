"""Framework adapters on inputs that are no JSON object, and on numbers JSON cannot carry.

LangChain: a tool input that is not a dict (a JSON string, as text agents pass it; a list; plain
text) reached the ``on_tool_start`` callbacks (tracers, LangSmith) raw, ``writeOnly`` secret
included. OpenAI Agents and pydantic-ai: NaN and Infinity were explained as "'q' must be of type
number (got number)", which tells the model neither what is wrong nor what to send.
"""

from __future__ import annotations

import json
from typing import Any
from uuid import UUID

import anyio
import pytest

from contractgen.runtime import Contract, Timeout, guard

SECRET = "SECRETmarker7731"
SCHEMA = {
    "type": "object",
    "additionalProperties": False,
    "required": ["pw"],
    "properties": {"pw": {"type": "string", "writeOnly": True}, "n": {"type": "integer"}},
}
CONTRACT = Contract(
    name="login",
    version="1.0.0",
    summary="s",
    description="d",
    input_schema=SCHEMA,
    output_schema={"type": "object"},
    timeout=Timeout(None),
)


def login(arguments: Any) -> Any:
    return {"ok": True}


NOT_A_DICT = [
    json.dumps({"pw": SECRET, "n": 1}),
    [SECRET],
    [{"pw": SECRET}],
    f"my password is {SECRET}",
    json.dumps([{"pw": SECRET}]),
    7,
]


@pytest.mark.parametrize(
    "tool_input",
    NOT_A_DICT,
    ids=["json-object-text", "list", "list-of-objects", "plain-text", "json-list-text", "number"],
)
@pytest.mark.parametrize("mode", ["sync", "async"])
def test_langchain_callbacks_never_see_a_secret_of_an_input_that_is_not_a_dict(
    tool_input: Any, mode: str
) -> None:
    pytest.importorskip("langchain_core")
    from langchain_core.callbacks import BaseCallbackHandler

    from contractgen.adapters.langchain import langchain_tool

    seen: list[Any] = []

    class Tracer(BaseCallbackHandler):
        def on_tool_start(
            self,
            serialized: dict[str, Any],
            input_str: str,
            *,
            run_id: UUID,
            inputs: dict[str, Any] | None = None,
            **kwargs: Any,
        ) -> None:
            seen.append((input_str, inputs))

    tool = langchain_tool(guard(CONTRACT, login))
    config = {"callbacks": [Tracer()]}
    if mode == "sync":
        answer = tool.invoke(tool_input, config=config)
    else:
        answer = anyio.run(lambda: tool.ainvoke(tool_input, config=config))
    assert len(seen) == 1
    assert SECRET not in repr(seen), seen
    assert SECRET not in repr(answer)
    assert (
        answer["status"] == "error" and answer["error"]["code"] == "INVALID_ARGUMENT"
    )  # the guard still judges


def test_langchain_callbacks_of_a_dict_input_are_still_redacted_and_the_call_runs() -> None:
    pytest.importorskip("langchain_core")
    from langchain_core.callbacks import BaseCallbackHandler

    from contractgen.adapters.langchain import langchain_tool

    seen: list[Any] = []

    class Tracer(BaseCallbackHandler):
        def on_tool_start(self, serialized: dict[str, Any], input_str: str, **kwargs: Any) -> None:
            seen.append((input_str, kwargs.get("inputs")))

    answer = langchain_tool(guard(CONTRACT, login)).invoke(
        {"pw": SECRET, "n": 2}, config={"callbacks": [Tracer()]}
    )
    assert answer["status"] == "ok"
    ((text, inputs),) = seen
    assert SECRET not in text and inputs["n"] == 2 and inputs["pw"] != SECRET


NUMBERS = {
    "type": "object",
    "additionalProperties": False,
    "required": ["q"],
    "properties": {"q": {"type": "number"}},
}
NUMBER_CONTRACT = Contract(
    name="quote",
    version="1.0.0",
    summary="s",
    description="d",
    input_schema=NUMBERS,
    output_schema={"type": "object"},
    timeout=Timeout(None),
)
#: what models write for numbers JSON has no form for (Python's json module reads them all)
NON_FINITE = ['{"q": NaN}', '{"q": Infinity}', '{"q": -Infinity}']


def assert_explains_a_non_finite_number(error: dict[str, Any]) -> None:
    assert error["code"] == "INVALID_ARGUMENT" and error["action"] == "fix_arguments"
    text = json.dumps(error)
    assert "(got number)" not in text, text
    assert (
        "finite" in error["message"]
        or "NaN" in error["message"]
        or "infinit" in error["message"].lower()
    ), text


@pytest.mark.parametrize("raw", NON_FINITE)
def test_openai_agents_say_what_is_wrong_with_nan_and_infinity(raw: str) -> None:
    pytest.importorskip("agents")
    from agents import Agent, RunConfig, Runner
    from agents.testing import ModelStep, ScriptedModel, assistant_message, function_call

    from contractgen.adapters.openai_agents import function_tool

    def respond(call: Any) -> Any:
        if any(isinstance(i, dict) and i.get("type") == "function_call_output" for i in call.input):
            return [assistant_message("done")]
        return [function_call("quote", raw, call_id="c1")]

    model = ScriptedModel([ModelStep.respond(respond) for _ in range(3)])
    agent = Agent(
        name="a", model=model, tools=[function_tool(guard(NUMBER_CONTRACT, lambda a: {}))]
    )
    anyio.run(lambda: Runner.run(agent, "quote", run_config=RunConfig(tracing_disabled=True)))
    (output,) = [
        i
        for i in model.calls[-1].input
        if isinstance(i, dict) and i.get("type") == "function_call_output"
    ]
    assert_explains_a_non_finite_number(json.loads(output["output"])["error"])


@pytest.mark.parametrize("raw", NON_FINITE)
def test_pydantic_ai_says_what_is_wrong_with_nan_and_infinity(raw: str) -> None:
    pytest.importorskip("pydantic_ai")
    from pydantic_ai import Agent
    from pydantic_ai.messages import ModelResponse, TextPart, ToolCallPart
    from pydantic_ai.models.function import AgentInfo, FunctionModel

    from contractgen.adapters.pydantic_ai import pydantic_ai_tool

    seen: list[Any] = []

    def respond(messages: list[Any], info: AgentInfo) -> ModelResponse:
        seen.append(messages)
        if len(seen) > 1:
            return ModelResponse(parts=[TextPart("done")])
        return ModelResponse(parts=[ToolCallPart("quote", raw, tool_call_id="c1")])

    anyio.run(
        lambda: Agent(
            FunctionModel(respond), tools=[pydantic_ai_tool(guard(NUMBER_CONTRACT, lambda a: {}))]
        ).run("quote")
    )
    returned = seen[1][-1].parts[0].content
    assert_explains_a_non_finite_number(returned["error"])
