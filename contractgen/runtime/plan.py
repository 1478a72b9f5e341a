"""A tool's plan compiled into its call functions: the stages its contract asks for, as one function.

``compile_plan(tool)`` writes the source of four functions for one tool and returns them:

    call    / acall      the whole call: arguments -> run -> settle -> account (sync, async)
    checked / achecked   the same without the account stage (what hooks wrap)

Each is the pipeline of ``guard.py`` written out for this tool: a stage its contract does not ask
for (a version check, a model, a gate, notices, a deadline) is not in the source, and the step every
call takes (its private copy, the input check, the run, the output check, the ok envelope, the
budget reset) is a line here, not a method call. Where a call leaves that line, the stage that owns
the outcome answers it with its own method: ``_judged`` and ``_prepare`` explain or refuse arguments,
``_settled``/``_complete`` settle what the implementation raised or returned, ``_handed`` runs a
sync implementation on a worker thread under its deadline (its small plain result is settled on the
common line), ``_run_sync`` and ``_run_async`` run async code for a sync caller and anything under
``acall`` that leaves the loop or has a deadline, ``_finish`` counts a failure against the budget.
Tools of one ``Shape`` share one source and one code object, compiled once per process (``_compiled``);
``GuardedTool`` compiles a tool's plan on its first call (``GuardedTool._compile``).
"""

from __future__ import annotations

import functools
import hashlib
import linecache
import re
import time
from collections.abc import Callable
from typing import Any, NamedTuple

from .budget import InMemoryBudgetStore
from .calls import (
    _CALL,
    _CALL_LOG_LEVEL,
    _NEVER_SWALLOWED,
    _call_log_enabled,
    _call_log_memo,
    _stage,
)
from .jsonvalue import CLEAN_BUDGET, MISSING, clean_json, names_within
from .progress import listening
from .schema_check import ITEM_CAP
from .secret_positions import MAX_NODES
from .stage_arguments import _private_copy
from .stage_settle import BIG_VALUE, _off_loop

#: what every compiled plan reads by name (module-level facts, bound once into its namespace)
_SHARED = {
    "MISSING": MISSING, "CLEAN_BUDGET": CLEAN_BUDGET, "BIG_VALUE": BIG_VALUE, "MAX_NODES": MAX_NODES,
    "NEVER_SWALLOWED": _NEVER_SWALLOWED, "LOG_LEVEL": _CALL_LOG_LEVEL, "clean_json": clean_json,
    "names_within": names_within, "private_copy": _private_copy, "call_set": _CALL.set,
    "call_reset": _CALL.reset, "log_enabled": _call_log_enabled,
    "log_memo": _call_log_memo, "perf_counter": time.perf_counter,
    "stage": _stage, "off_loop": _off_loop, "listening": listening,
}


class Shape(NamedTuple):
    """What of a tool decides its plan's source: tools of one shape share one compiled plan."""

    model: bool  # an input model to build
    gate: bool  # preconditions or a confirmation
    versions: bool  # members of older versions to look for
    heavy: bool  # a schema whose bad call is explained off the event loop
    accepted: str | None  # when an accepted output is the ok envelope as it is (_accepted_inline)
    is_async: bool
    timed: bool  # a deadline
    notices: bool  # an open input schema: unknown names get notices
    reset_here: bool  # an in-process store, no deprecation notice: an ok call resets in the plan
    counts_async: bool  # a store with an asyncio client
    observed: bool  # an observer (on_call) sees every call


def shape_of(tool: Any) -> Shape:
    return Shape(
        model=tool.input_model is not None, gate=tool._gate is not None, versions=bool(tool._old_keys),
        heavy=tool._compiled.input.member_cap < ITEM_CAP, accepted=_accepted_inline(tool),
        is_async=tool._is_async, timed=tool._timeout is not None, notices=tool._open_names is not None,
        reset_here=type(tool.budget) is InMemoryBudgetStore and tool._deprecation_notice is None,
        counts_async=tool._counts_async, observed=tool._on_call is not None)


def _arguments(shape: Shape, asynchronous: bool, staged: bool, lazy: bool) -> list[str]:
    """The arguments stage: the private copy, then (for clean arguments of this version) the input
    schema, the model and the gate; the stage's own methods judge the rest (``_judged`` a refused
    or unbuildable call, ``_prepare`` arguments not clean JSON or of another version), under
    ``acall`` off the loop for a big or a heavy one. The validator reads a call once."""
    budget = "BIG_VALUE" if asynchronous else "CLEAN_BUDGET"
    current = "contract_version is None"
    if shape.versions:
        current += " and (type(own) is not dict or old_keys.isdisjoint(own))"
    heavy = asynchronous and shape.heavy
    lines = [
        f"own = clean_json(arguments, {budget}, True, MISSING)",
        "problem = None",
        "clean = own is not MISSING",
        "if not clean:",
        "    own, problem = private_copy(arguments)",
        # the call in progress: see _entering
        "token = None if listening() is None else call_set((tool, own))" if lazy else "token = call_set((tool, own))",
        "try:",
        "    valid = None",
        f"    if clean and {current}:",
        "        try:",
        "            valid = in_valid(own)",
        "        except ValueError:  # the careful validator decides (_prepare)",
        "            valid = None",
        "    if valid:",
    ]
    passed = ["stage('input', 'passed')"] if staged else []
    passed.append("early = gate(own)" if shape.gate else "early = None")
    if not shape.model:
        lines += ["        value = own", *(f"        {line}" for line in passed)]
    else:
        lines += ["        try:",
                  "            value = tool._build_input(own)",
                  "        except Exception:  # the model is stricter than the schema: _judged says how",
                  "            early, value = tool._judged(own, True)",
                  "        else:", *(f"            {line}" for line in passed)]
    judge = "await off_loop(tool._judged, own, False)" if heavy else "tool._judged(own, False)"
    lines += ["    elif valid is False:", f"        early, value = {judge}"]
    if asynchronous:
        lines += [f"    elif {'' if heavy else 'not clean and '}tool._read_off_loop(own):",
                  "        early, value = await off_loop(prepare, own, problem, contract_version)"]
    lines += ["    else:", "        early, value = prepare(own, problem, contract_version)"]
    return lines


def _accepted_inline(tool: Any) -> str | None:
    """The condition under which an output the schema accepted is the ok envelope as it is (no
    result rule, no empty rule, and no secret of the call to take out of it); None where every
    accepted output goes through ``_accepted``."""
    if tool._result_rules is not None or tool._empty_rule is not None:
        return None
    if tool._output_scrub is None:
        return ""
    plain = getattr(tool._output_scrub, "plain_names", None)
    return None if plain is None else " and names_within(own, plain_names, MAX_NODES)"


def _run_and_settle(shape: Shape, asynchronous: bool) -> list[str]:
    """The run stage and the settle stage on the common line: a sync tool without a deadline called
    inline (``call``), an async one without a deadline awaited on the caller's loop (``acall``);
    every other run is ``_run_sync``'s or ``_run_async``'s."""
    ok = shape.accepted
    # an accepted output: the ok envelope as it is, or through _accepted (rules, secrets, empty rule)
    answer = "tool._accepted(result)" if ok is None else \
        "{'status': 'ok', 'tool': NAME, 'version': VERSION, 'output': result, 'empty': False}"
    accepted = [f"            elif clean_json(result, CLEAN_BUDGET, False, MISSING) is not MISSING and out_valid(result){ok or ''}:",
                f"                envelope = {answer}"]
    if not asynchronous:
        if shape.is_async:
            return ["        envelope = tool._run_sync(value)"]
        if shape.timed:
            # on a worker thread under the deadline: a refusal, a timeout or what the worker
            # settled there is an envelope (``_handed``); a dict comes back only once the worker
            # found it small plain JSON (``_worked``), and is settled here
            return ["        result = tool._handed(value)",
                    "        if type(result) is not dict:",
                    "            envelope = tool._from_worker(result) or tool._complete(result)",
                    f"        elif out_valid(result){ok or ''}:",
                    f"            envelope = {answer}",
                    "        else:",
                    "            envelope = tool._complete(result)"]
        return ["        try:",
                "            result = implementation(value)",
                "        except BaseException as exc:  # the tool's outcome: its envelope (or re-raised there)",
                "            envelope = tool._settled(None, exc)",
                "        else:",
                "            if type(result) is not dict:",
                "                envelope = tool._settled(result, None)",
                *accepted,
                "            else:",
                "                envelope = tool._complete(result)"]
    if not shape.is_async or shape.timed:
        return ["        envelope = await tool._run_async(value)"]
    on_loop = ["envelope = tool._completed_on_loop(result)",
               "if envelope is None:  # a big result is read on a worker thread",
               "    envelope = await off_loop(tool._complete, result)"]
    settle = [
        ("            if type(result) is dict and clean_json(result, BIG_VALUE, False, MISSING) is not MISSING "
         f"and out_valid(result){ok or ''}:"),
        f"                envelope = {answer}",
        "            else:", *(f"                {line}" for line in on_loop)]
    return ["    elif tool.blocks_event_loop:",
            "        envelope = await tool._run_async(value)",
            "    else:",
            "        try:",
            "            result = await implementation(value)",
            "        except BaseException as exc:  # the tool's outcome: its envelope (or re-raised there)",
            "            envelope = tool._tools_failure(exc)",
            "        else:",
            *settle]


def _body(shape: Shape, asynchronous: bool, staged: bool, lazy: bool) -> list[str]:
    """The envelope of one call before the account stage, into ``envelope``."""
    lines = _arguments(shape, asynchronous, staged, lazy)
    lines += ["    if early is not None:", "        envelope = early"]
    run = _run_and_settle(shape, asynchronous)
    lines += run if run[0].startswith("    elif") else ["    else:", *run]
    if shape.notices:
        lines += ["    if type(own) is dict and not open_names.issuperset(own):",
                  "        envelope = tool._with_notices(envelope, own)"]
    lines += ["except NEVER_SWALLOWED:",
              "    raise",
              "except BaseException as exc:  # a defect in the guard itself still answers with an envelope",
              "    envelope = tool._internal(exc, 'guard')",
              "finally:",
              "    if token is not None:",
              "        call_reset(token)"]
    return _entering(lines) if lazy else lines


#: the lines that leave the common line for a stage's method: each may read the call in progress
_EXITS = re.compile(r"^\s*(envelope|early(, value)?|result) = (await )?(tool\._|prepare\(|gate\(|off_loop\()")


def _entering(lines: list[str]) -> list[str]:
    """``lines`` with the call in progress (``calls._CALL``: its tool and private arguments) set
    before each line that leaves the common line for a stage's method, which may read it. On the
    common line nothing reads it, except a progress listener asking for the call's secrets while the
    implementation runs: with a listener it is set from the start. (Under hooks, ``checked`` sets it
    from the start.) Setting it is a sixth of a corpus tool's call."""
    entered = []
    for line in lines:
        if _EXITS.match(line):
            indent = line[:len(line) - len(line.lstrip())]
            entered += [f"{indent}if token is None:", f"{indent}    token = call_set((tool, own))"]
        entered.append(line)
    return entered


def _account(shape: Shape, asynchronous: bool) -> list[str]:
    """The account stage: an ok call of a session with no failures counted resets nothing, here;
    every other envelope is counted and observed by ``_finish``."""
    lines = []
    if shape.reset_here:
        lines += ["if not observed and envelope['status'] == 'ok' and type(session) is str:",
                  "    key = keys.get(session) or tool._key(session)",
                  "    if key in counts:",
                  "        budget.reset(key)",
                  "    return envelope"]
    if asynchronous and shape.counts_async:
        return [*lines, "return await tool.afinish(envelope, session, start, observed)"]
    return [*lines, "return tool._finish(envelope, session, start, observed)"]


def _source(shape: Shape) -> str:
    # ``self`` is the tool (the functions become its class's methods, see GuardedTool._compile);
    # the source reads ``tool`` from its closure
    signature = "(self, arguments, contract_version=None, session='default', call_id=None, caller=None)"
    observed = ["observed = True"] if shape.observed else [
        "observed = log_memo.get(LOG_LEVEL)", "if observed is None:", "    observed = log_enabled(LOG_LEVEL)"]
    observed.append("start = perf_counter() if observed else 0.0")
    functions = []
    for asynchronous in (False, True):
        prefix = "async def" if asynchronous else "def"
        name = "acall" if asynchronous else "call"
        call = [*observed, *_body(shape, asynchronous, False, True), *_account(shape, asynchronous)]
        checked = [*_body(shape, asynchronous, True, False), "return envelope"]
        functions.append(f"{prefix} {name}{signature}:\n" + _indent(call))
        functions.append(f"{prefix} {'a' if asynchronous else ''}checked(arguments, contract_version):\n"
                         + _indent(checked))
    return "def plan(tool, implementation, in_valid, out_valid, prepare, gate, old_keys, open_names,\n" \
           "         plain_names, keys, counts, budget, NAME, VERSION):\n" \
           + _indent("\n\n".join(functions).splitlines()) + "\n    return call, checked, acall, achecked\n"


def _indent(lines: list[str]) -> str:
    return "".join(f"    {line}\n" if line else "\n" for line in lines)


@functools.lru_cache(maxsize=512)
def _compiled(shape: Shape) -> tuple[str, Any]:
    """The source of the plan of ``shape`` and the ``plan`` function it defines, made once per
    process; its lines are registered with ``linecache`` under the name its code carries, so a
    traceback through a plan shows them."""
    source = _source(shape)
    filename = f"<contractgen plan {hashlib.sha1(source.encode(), usedforsecurity=False).hexdigest()[:12]}>"
    linecache.cache[filename] = (len(source), None, source.splitlines(keepends=True), filename)
    namespace = dict(_SHARED)
    exec(compile(source, filename, "exec"), namespace)  # noqa: S102 - our own source
    return source, namespace["plan"]


class Compiled(NamedTuple):
    """One tool's plan: its source, and the functions compiled from it."""

    source: str
    call: Callable[..., Any]
    checked: Callable[[Any, Any], Any]
    acall: Callable[..., Any]
    achecked: Callable[[Any, Any], Any]


def compile_plan(tool: Any) -> Compiled:
    """The call functions of ``tool`` as it is configured now."""
    source, plan = _compiled(shape_of(tool))
    scrub = tool._output_scrub
    budget = tool.budget
    functions = plan(
        tool, tool.implementation, tool._input_is_valid, tool._output_is_valid, tool._prepare, tool._gate,
        tool._old_keys, tool._open_names, getattr(scrub, "plain_names", None), tool._keys,
        getattr(budget, "_counts", None), budget, tool.name, tool.version)
    return Compiled(source, *functions)
