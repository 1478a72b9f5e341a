"""contractgen: schema-first code generator for versioned LLM tool contracts."""

__version__ = "0.1.0"
