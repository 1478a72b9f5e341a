"""What a framework itself puts in front of the model never holds a secret argument.

Arguments that are not one JSON object (cut short, an array, a bare string) never reach the guard's
schema; a framework that answers them itself (pydantic-ai's retry prompt quotes the raw text) would
send a password back to the model and into the message history. Each framework's own agent loop
runs with a scripted model that makes such a call, and what the model receives next is read.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import anyio
import pytest
from agents import Agent as OpenAIAgent
from agents import RunConfig, Runner
from agents.testing import ModelStep, ScriptedModel, assistant_message, function_call
from pydantic_ai import Agent
from pydantic_ai.messages import ModelResponse, TextPart, ToolCallPart
from pydantic_ai.models.function import AgentInfo, FunctionModel

from contractgen.adapters.openai_agents import function_tool
from contractgen.adapters.pydantic_ai import pydantic_ai_tool
from contractgen.runtime import Contract, Timeout, guard

SECRET = "SECRETmarker7731"
SCHEMA = {"type": "object", "additionalProperties": False, "required": ["pw"],
          "properties": {"pw": {"type": "string", "writeOnly": True, "pattern": "^[0-9]+$"},
                         "n": {"type": "integer"}}}
#: raw argument texts that are not one JSON object, each holding the secret
NOT_AN_OBJECT = [f'{{"pw": "{SECRET}", "n": ', f'["{SECRET}"]', f'"{SECRET}"', f"{{'pw': '{SECRET}'}}",
                 f'{{"pw": "{SECRET}"}} trailing']


def _tool() -> Any:
    contract = Contract(name="login", version="1.0.0", summary="s", description="d", input_schema=SCHEMA,
                        output_schema={"type": "object"}, timeout=Timeout(None))
    return guard(contract, lambda arguments: {"ok": True})


@pytest.mark.parametrize("raw", NOT_AN_OBJECT)
def test_pydantic_ai_never_quotes_arguments_that_are_not_an_object(raw: str) -> None:
    seen: list[Any] = []

    def respond(messages: list[Any], info: AgentInfo) -> ModelResponse:
        seen.append(messages)
        if len(seen) > 1:
            return ModelResponse(parts=[TextPart("done")])
        return ModelResponse(parts=[ToolCallPart("login", raw, tool_call_id="c1")])

    anyio.run(lambda: Agent(FunctionModel(respond), tools=[pydantic_ai_tool(_tool())]).run("log me in"))
    answer = seen[1][-1]  # the request after the tool call: what the model reads of it
    assert SECRET not in repr(answer)
    returned = answer.parts[0].content
    assert returned["error"]["code"] == "INVALID_ARGUMENT" and returned["error"]["action"] == "fix_arguments"


@pytest.mark.parametrize("raw", NOT_AN_OBJECT)
def test_openai_agents_never_quotes_arguments_that_are_not_an_object(raw: str) -> None:
    def respond(call: Any) -> Any:
        outputs = [item for item in call.input if isinstance(item, dict) and item.get("type") == "function_call_output"]
        if outputs:
            return [assistant_message("done")]
        return [function_call("login", raw, call_id="c1")]

    model = ScriptedModel([ModelStep.respond(respond) for _ in range(3)])
    agent = OpenAIAgent(name="a", model=model, tools=[function_tool(_tool())])
    anyio.run(lambda: Runner.run(agent, "log me in", run_config=RunConfig(tracing_disabled=True)))
    answer = [item for item in model.calls[-1].input
              if isinstance(item, dict) and item.get("type") == "function_call_output"]
    assert answer and SECRET not in json.dumps(answer)
    assert json.loads(answer[0]["output"])["error"]["code"] == "INVALID_ARGUMENT"


class _KeptSpans:
    """An Agents SDK trace processor that keeps every finished span as exported."""

    def __init__(self) -> None:
        self.spans: list[dict[str, Any]] = []

    def on_trace_start(self, trace: Any) -> None:
        return None

    def on_trace_end(self, trace: Any) -> None:
        return None

    def on_span_start(self, span: Any) -> None:
        return None

    def on_span_end(self, span: Any) -> None:
        self.spans.append(span.export() or {})

    def shutdown(self) -> None:
        return None

    def force_flush(self) -> None:
        return None


@pytest.fixture(scope="module")
def kept_spans() -> Iterator[_KeptSpans]:
    """Spans of every traced run, kept here only (the default processor would export them)."""
    from agents.tracing import set_trace_processors
    from agents.tracing.processors import default_processor

    kept = _KeptSpans()
    set_trace_processors([kept])  # type: ignore[list-item]
    yield kept
    set_trace_processors([default_processor()])


@pytest.mark.parametrize("raw", [{"pw": SECRET, "n": 1}, {"pw": SECRET, "n": "x"}, {"n": 1, "password": SECRET},
                                 f'{{"pw": "{SECRET}", "n": '])
def test_openai_agents_traces_never_record_a_secret(raw: Any, kept_spans: _KeptSpans) -> None:
    """The SDK traces by default (trace_include_sensitive_data on), and its function span recorded
    the raw arguments: it records what the guard's telemetry records, redacted."""
    kept_spans.spans.clear()

    def respond(call: Any) -> Any:
        if any(isinstance(item, dict) and item.get("type") == "function_call_output" for item in call.input):
            return [assistant_message("done")]
        return [function_call("login", raw, call_id="c1")]

    model = ScriptedModel([ModelStep.respond(respond) for _ in range(3)])
    agent = OpenAIAgent(name="a", model=model, tools=[function_tool(_tool())])
    anyio.run(lambda: Runner.run(agent, "log me in"))
    functions = [span for span in kept_spans.spans if (span.get("span_data") or {}).get("type") == "function"]
    assert functions, "the run was traced"
    assert SECRET not in json.dumps(kept_spans.spans, default=str)
    assert functions[0]["span_data"]["input"] in ('{"n": 1, "pw": "[redacted]"}', '{"n": "x", "pw": "[redacted]"}',
                                                  '{"n": 1, "password": "[redacted]"}', "[not a JSON object]")


@pytest.mark.parametrize("how", ["invoke", "ainvoke"])
@pytest.mark.parametrize("call", [True, False])
def test_langchain_callbacks_never_see_a_secret(how: str, call: bool) -> None:
    """LangChain hands every callback (tracers, LangSmith) the tool's input on on_tool_start; the
    tool itself still gets the real arguments."""
    from langchain_core.callbacks import BaseCallbackHandler

    from contractgen.adapters.langchain import langchain_tool

    class Recorded(BaseCallbackHandler):
        def __init__(self) -> None:
            self.seen: list[Any] = []

        def on_tool_start(self, serialized: Any, input_str: str, **kwargs: Any) -> None:
            self.seen.append((input_str, kwargs.get("inputs")))

    received: list[Any] = []
    contract = Contract(name="login", version="1.0.0", summary="s", description="d", input_schema=SCHEMA,
                        output_schema={"type": "object"}, timeout=Timeout(None))
    tool = langchain_tool(guard(contract, lambda arguments: received.append(arguments) or {"ok": True}))
    arguments = {"pw": "1234567890", "n": 1}
    given_input: Any = {"type": "tool_call", "name": "login", "args": arguments, "id": "c1"} if call else arguments
    recorded = Recorded()
    config: Any = {"callbacks": [recorded]}
    if how == "invoke":
        tool.invoke(given_input, config=config)
    else:
        anyio.run(lambda: tool.ainvoke(given_input, config=config))
    assert received and received[0]["pw"] == "1234567890"
    assert recorded.seen and "1234567890" not in repr(recorded.seen)
    assert recorded.seen[0][1] == {"pw": "[redacted]", "n": 1}
