"""Anthropic mapper tests."""
