"""Evaluation of models on published needlework releases (``python -m eval``); see issue 3."""
