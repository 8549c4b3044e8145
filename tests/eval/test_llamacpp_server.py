"""The llama.cpp launcher's own arguments (``python -m eval.llamacpp_server``, issue 20)."""

from __future__ import annotations

import importlib.util
from types import SimpleNamespace

import pytest

from eval.llamacpp_server import packaged_gguf, server_arguments, without_extra_bufts
from needlework.errors import SpecError


@pytest.fixture
def model_package(tmp_path, monkeypatch):
    """An installed-looking package ``fake_models`` holding two GGUF files."""
    package = tmp_path / "fake_models"
    package.mkdir()
    (package / "__init__.py").write_text("raise ImportError('never imported')\n")
    for name in ("b.gguf", "a.gguf"):
        (package / name).write_bytes(b"GGUF")
    monkeypatch.syspath_prepend(str(tmp_path))
    return package


def test_extra_buffer_types_are_turned_off_in_every_default():
    made = []

    def default():
        made.append(SimpleNamespace(use_extra_bufts=True, n_gpu_layers=0))
        return made[-1]

    params = without_extra_bufts(default)()
    assert params is made[-1] and params.use_extra_bufts is False and params.n_gpu_layers == 0


def test_the_real_llama_cpp_defaults_are_turned_off():
    if importlib.util.find_spec("llama_cpp") is None:
        pytest.skip("llama-cpp-python is not installed")
    import llama_cpp.llama_cpp as llama_lib

    assert llama_lib.llama_model_default_params().use_extra_bufts is True  # what would crash on AMX
    assert without_extra_bufts(llama_lib.llama_model_default_params)().use_extra_bufts is False


def test_model_may_name_a_package_that_ships_a_gguf(model_package):
    assert packaged_gguf("fake_models") == model_package / "a.gguf"
    args, keep = server_arguments(["--model", "fake_models", "--n_ctx", "8192", "--extra-bufts"])
    assert args == ["--model", str(model_package / "a.gguf"), "--n_ctx", "8192"] and keep is True
    args, keep = server_arguments(["--model=fake-models"])
    assert args == [f"--model={model_package / 'a.gguf'}"] and keep is False


def test_a_model_file_passes_unchanged_and_an_unknown_model_is_an_error(tmp_path):
    model = tmp_path / "m.gguf"
    model.write_bytes(b"GGUF")
    assert server_arguments(["--model", str(model)]) == (["--model", str(model)], False)
    with pytest.raises(SpecError, match="--model nothing_here: no such file, and no installed package"):
        server_arguments(["--model", "nothing_here"])
