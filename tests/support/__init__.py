"""Helpers the test packages share: small releases, a stub OpenAI-compatible server, an ATC solver."""
