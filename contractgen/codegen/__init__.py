"""Adapters to third-party code generators; today only datamodel-code-generator (``models``)."""

from .models import ModelCode, ModelRequest, ModelsError, generate_models

__all__ = ["ModelCode", "ModelRequest", "ModelsError", "generate_models"]
