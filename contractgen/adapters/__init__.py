"""Framework adapters: a guarded tool served through FastMCP, Google ADK, the OpenAI Agents SDK,
pydantic-ai or LangChain, one module each (``contractgen.adapters.<framework>``).

Each module imports its framework (``pip install 'contractgen[<extra>]'``); this package imports none.
"""
