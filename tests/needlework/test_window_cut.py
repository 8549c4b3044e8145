"""The window rule's cut (issue 40): HaystackCraft's authors keep the first and last halves of a prompt's tokens,
and the cut must leave room for the chat template and ``max_tokens`` as the rule counts them."""

from __future__ import annotations

import asyncio

from needlework.backends.window import (
    CHAT_TOKENS_PER_MESSAGE,
    CHAT_TOKENS_PER_PROMPT,
    WindowRule,
    _local_count,
    keep_ends,
)


def test_keep_ends_keeps_the_first_and_last_halves_of_the_tokens(qwen):
    """HaystackCraft's ``utils/llm.py``: ``input_ids[:max_len//2] + input_ids[-max_len//2:]``, here cut at token
    boundaries of the text; a text that fits is returned as it is."""
    text = " ".join(f"word{i}" for i in range(400))
    ids = qwen.encode(text)
    cut = keep_ends(text, 100, qwen)
    assert qwen.encode(cut).tolist() == ids[:50].tolist() + ids[-50:].tolist()
    assert keep_ends(text, len(ids), qwen) == text


def test_fit_cuts_until_the_counted_conversation_and_max_tokens_fit(qwen):
    """The rule counts message tokens plus the chat overhead; ``fit`` keeps as many tokens as make that plus
    ``max_tokens`` fit, and records what it cut. A prompt that fits is untouched; one that cannot be cut small
    enough stays over."""
    rule = WindowRule(600, _local_count(qwen), "tokenizer qwen2.5 + chat overhead", qwen)
    system = {"role": "system", "content": "You answer questions."}
    long = {"role": "user", "content": " ".join(f"fact {i} is {i * 7}." for i in range(300))}
    messages, tokens, cut, over = asyncio.run(rule.fit(None, [system, long], 100))  # type: ignore[arg-type]
    assert over is None and cut is not None and tokens == cut["prompt_tokens"]
    overhead = CHAT_TOKENS_PER_PROMPT + 2 * CHAT_TOKENS_PER_MESSAGE
    assert qwen.count(messages[0]["content"]) + qwen.count(messages[1]["content"]) + overhead + 100 <= 600
    assert tokens + 100 > 590  # kept as much as fits
    assert messages[0] == system and messages[1]["content"].startswith("fact 0 is 0.")
    assert messages[1]["content"].endswith("fact 299 is 2093.") and cut["tokens"] == qwen.count(long["content"])
    short = [{"role": "user", "content": "fact 1 is 7."}]
    assert asyncio.run(rule.fit(None, short, 100))[2:] == (None, None)  # type: ignore[arg-type]
    tiny = WindowRule(120, _local_count(qwen), "tokenizer", qwen)
    _, _, cut, over = asyncio.run(tiny.fit(None, [{"role": "system", "content": long["content"]}, long], 100))  # type: ignore[arg-type]
    assert cut is None and over is not None and over.kind == "skipped_window"
