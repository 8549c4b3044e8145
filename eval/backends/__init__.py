"""Model backends: ``openai`` (any OpenAI-compatible chat-completions server) and ``vllm`` (offline)."""
