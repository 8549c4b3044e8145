"""``python -m builders``: the ``needlework`` command, for environments without its script on PATH."""

from builders.cli import main

main(prog_name="needlework")
