"""``python -m eval``."""

from eval.cli import main

main(prog_name="python -m eval")
